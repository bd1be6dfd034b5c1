package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code row_number()} kept to its first k per partition is planned as a top-k beneath the window
 * (Nexmark's q9, q18 and q19), and the maintained answer, over random inserts and deletes with
 * ties in the order, is the one the whole window gives (the same query with the number inside an
 * expression, which the rewrite leaves alone), ties broken alike.
 */
class RowNumberLimitsTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>(db.query(sql).text().stream().map(r -> String.join("|", r)).toList());
        out.sort(null);
        return out;
    }

    @Test
    void aRowNumberKeptToItsFirstKIsATopKAndStaysRight() {
        List<String> queries = List.of(
                "SELECT g, v, w, rn FROM (SELECT *, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS rn FROM t) AS r WHERE rn <= 3",
                "SELECT g, v, w FROM (SELECT *, row_number() OVER (PARTITION BY g ORDER BY v, w DESC) AS rn FROM t) AS r WHERE rn = 1",
                "SELECT g, v FROM (SELECT g, v, row_number() OVER (PARTITION BY g % 3 ORDER BY w) AS rn FROM t) AS r WHERE 2 > rn AND v > 0");
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (g int, v int, w int)");
            for (int i = 0; i < queries.size(); i++) {
                String plan = String.join("\n", db.query("EXPLAIN " + queries.get(i)).text().stream().map(r -> r.get(0)).toList());
                assertThat(plan).as(queries.get(i)).contains("TopK");
                db.execute("CREATE MATERIALIZED VIEW v" + i + " AS " + queries.get(i));
            }
            SplittableRandom r = new SplittableRandom(7);
            for (int round = 0; round < 30; round++) {
                StringBuilder values = new StringBuilder();
                for (int k = 0; k < 20; k++) values.append(k > 0 ? ", " : "").append('(').append(r.nextInt(6)).append(", ").append(r.nextInt(10)).append(", ").append(r.nextInt(4)).append(')');
                db.execute("INSERT INTO t VALUES " + values);
                if (round % 3 == 2) db.execute("DELETE FROM t WHERE v = " + r.nextInt(10) + " AND g = " + r.nextInt(6));
                for (int i = 0; i < queries.size(); i++) {
                    // the same query with the number hidden in an expression: the whole window, no top-k
                    String whole = queries.get(i).replace("rn <= 3", "rn + 0 <= 3").replace("rn = 1", "rn + 0 = 1").replace("2 > rn", "2 > rn + 0");
                    assertThat(rows(db, "SELECT * FROM v" + i)).as("round %d, %s", round, queries.get(i)).isEqualTo(rows(db, whole));
                }
            }
            assertThat(rows(db, "SELECT * FROM v0")).isNotEmpty();
        }
    }
}
