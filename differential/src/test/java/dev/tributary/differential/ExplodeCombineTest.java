package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * An explode that combines (a grouping's rows into their groups' sums) sends what an explode that
 * does not would, added up: per record and time, the sum of the multiplicities of the updates
 * that made it, records whose multiplicities cancel sent not at all, nothing sent twice in one
 * message for one time. Random updates at several times per message, on one and two workers,
 * against the uncombined explode of the same input.
 */
class ExplodeCombineTest {
    private static final DataType<Long> L = DataType.longs();

    @Test
    void combiningAddsUpWhatTheUncombinedExplodeSends() {
        for (int workers = 1; workers <= 2; workers++) {
            for (long seed = 0; seed < 20; seed++) {
                Map<List<Long>, Long> combined = new HashMap<>();
                Map<List<Long>, Long> plain = new HashMap<>();
                List<Long> zeros = new ArrayList<>();
                run(workers, seed, combined, plain, zeros);
                plain.values().removeIf(n -> n == 0);
                Map<List<Long>, Long> sums = new HashMap<>(combined);
                sums.values().removeIf(n -> n == 0);
                assertThat(sums).as("seed %d, %d workers", seed, workers).isEqualTo(plain);
                assertThat(zeros).as("records sent with multiplicity zero").isEmpty();
            }
        }
    }

    private static void run(int workers, long seed, Map<List<Long>, Long> combined, Map<List<Long>, Long> plain, List<Long> zeros) {
        Timely.run(Config.workers(workers), w -> {
            Object[] made = new Object[1];
            Collection.Exploder<Long, Long> groups = (x, n, out) -> {
                // each input makes its group twice and a record that its negation cancels
                out.add(x % 7, n);
                out.add(x % 7, 2 * n);
                out.add(100 + x % 3, n);
                out.add(100 + x % 3, -n);
            };
            Probe probe = w.dataflow("explode", scope -> {
                InputSession<Long> in = InputSession.create(scope, "in", L);
                made[0] = in;
                Collection<Long> c = in.collection();
                Collection<Long> a = c.explode(groups, L, true).inspect((r, t, n) -> {
                    synchronized (combined) {
                        combined.merge(List.of(r, t[0]), n, Long::sum);
                        if (n == 0) zeros.add(r);
                    }
                });
                Collection<Long> b = c.explode(groups, L, false).inspect((r, t, n) -> {
                    synchronized (combined) {
                        plain.merge(List.of(r, t[0]), n, Long::sum);
                    }
                });
                return a.concat(b).probe();
            });
            @SuppressWarnings("unchecked")
            InputSession<Long> in = (InputSession<Long>) made[0];
            SplittableRandom random = new SplittableRandom(seed * 31 + w.index());
            for (long t = 0; t < 6; t++) {
                int n = random.nextInt(200);
                for (int i = 0; i < n; i++) in.update(random.nextLong(50), random.nextInt(-2, 3));
                in.advanceTo(t + 1);
            }
            in.close();
            w.stepWhile(() -> !probe.isDone());
        });
    }
}
