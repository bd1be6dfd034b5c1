package dev.tributary.bench;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.SplittableRandom;

/**
 * The operation of the point-select comparison, run by {@link ClosedLoop}: each client prepares
 * {@code SELECT v FROM <relation> WHERE k = ?} and executes it with keys drawn uniformly from a
 * generator seeded {@code seed + client}.
 *
 * <p>A query's latency is from binding the key to having read and closed its result set. Every
 * answer is then checked against {@link KvDataset#value}: a missing, extra or wrong row fails the
 * run, since a fast wrong answer is no result.
 */
final class PointSelectLoad {
    private PointSelectLoad() {}

    static ClosedLoop.Opener opener(String relation, int rows, long seed) {
        return (client, c) -> {
            PreparedStatement select = c.prepareStatement("SELECT v FROM " + relation + " WHERE k = ?");
            SplittableRandom keys = new SplittableRandom(seed + client);
            return () -> {
                long k = keys.nextLong(rows);
                long t0 = System.nanoTime();
                select.setLong(1, k);
                String v;
                try (ResultSet r = select.executeQuery()) {
                    v = r.next() ? r.getString(1) : null;
                    if (r.next()) throw new IllegalStateException("key " + k + " has more than one row");
                }
                long t1 = System.nanoTime();
                if (!KvDataset.value(k).equals(v)) throw new IllegalStateException("key " + k + " answered " + v);
                return t1 - t0;
            };
        };
    }
}
