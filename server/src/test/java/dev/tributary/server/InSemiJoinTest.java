package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code x IN (SELECT e ...)} as a WHERE conjunct joins on {@code x = e} (the binder puts the
 * equality into the subquery), and answers as the three-valued IN does there: over random rows
 * with NULLs on both sides, a maintained view of it equals the same query with the IN wrapped in
 * {@code IS TRUE} (which the rewrite leaves alone); NOT IN keeps its meaning, NULLs included.
 */
class InSemiJoinTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>(db.query(sql).text().stream().map(r -> String.join("|", r.stream().map(String::valueOf).toList())).toList());
        out.sort(null);
        return out;
    }

    @Test
    void aCorrelatedInIsASemiJoinOnItsEquality() {
        String in = "SELECT p.id, p.w FROM p WHERE p.id IN (SELECT a.seller FROM a WHERE a.w = p.w)";
        String plain = "SELECT p.id, p.w FROM p WHERE (p.id IN (SELECT a.seller FROM a WHERE a.w = p.w)) IS TRUE";
        String notIn = "SELECT p.id, p.w FROM p WHERE p.id NOT IN (SELECT a.seller FROM a WHERE a.w = p.w)";
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE p (id int, w int)");
            db.execute("CREATE TABLE a (seller int, w int)");
            String plan = String.join("\n", db.query("EXPLAIN " + in).text().stream().map(r -> r.get(0)).toList());
            assertThat(plan).as("no join on the window alone: the seller is a key too").doesNotContainPattern("Join on left #\\d+ = right");
            db.execute("CREATE MATERIALIZED VIEW v_in AS " + in);
            db.execute("CREATE MATERIALIZED VIEW v_not_in AS " + notIn);
            SplittableRandom r = new SplittableRandom(11);
            for (int round = 0; round < 25; round++) {
                StringBuilder ps = new StringBuilder(), as = new StringBuilder();
                for (int k = 0; k < 8; k++) {
                    ps.append(k > 0 ? ", " : "").append('(').append(r.nextInt(8) == 0 ? "NULL" : r.nextInt(6)).append(", ").append(r.nextInt(3)).append(')');
                    as.append(k > 0 ? ", " : "").append('(').append(r.nextInt(8) == 0 ? "NULL" : r.nextInt(6)).append(", ").append(r.nextInt(3)).append(')');
                }
                db.execute("INSERT INTO p VALUES " + ps);
                db.execute("INSERT INTO a VALUES " + as);
                if (round % 4 == 3) db.execute("DELETE FROM a WHERE seller = " + r.nextInt(6));
                assertThat(rows(db, "SELECT * FROM v_in")).as("round %d", round).isEqualTo(rows(db, plain));
                assertThat(rows(db, "SELECT * FROM v_not_in")).as("round %d", round).isEqualTo(rows(db, "SELECT p.id, p.w FROM p WHERE NOT EXISTS"
                        + " (SELECT 1 FROM a WHERE a.w = p.w AND (a.seller = p.id OR a.seller IS NULL OR p.id IS NULL))"));
            }
            assertThat(rows(db, "SELECT * FROM v_in")).isNotEmpty();
            // an IN inside another's subquery: each rewrite names its own left-hand value
            String nested = "SELECT p.id FROM p WHERE p.id IN (SELECT a.seller FROM a WHERE a.w < p.w AND a.seller IN (SELECT q.id FROM p AS q WHERE q.w = a.w))";
            assertThat(rows(db, nested)).isEqualTo(rows(db, "SELECT p.id FROM p WHERE (p.id IN (SELECT a.seller FROM a WHERE a.w < p.w"
                    + " AND (a.seller IN (SELECT q.id FROM p AS q WHERE q.w = a.w)) IS TRUE)) IS TRUE"));
        }
    }
}
