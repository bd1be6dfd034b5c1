package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recursive queries beyond what PostgreSQL's corpus shows (slt/recursive.slt): a recursion that
 * never converges is stopped by {@code max_recursion_iterations} with 54000, in a one-off query
 * and in a materialized view, which recovers once its inputs let it converge; {@code RETURN AT
 * RECURSION LIMIT} returns the last round; a recursive view survives a restart; EXPLAIN shows
 * the loop.
 */
class RecursiveQueryTest {
    private static List<String> rows(Tributary db, String sql) {
        return db.query(sql).text().stream().map(r -> String.join("|", r)).toList();
    }

    private static final String WALKS = "WITH RECURSIVE walk(node, len) AS (SELECT 0, 0 UNION ALL SELECT e.dst, w.len + 1 FROM walk w JOIN edge e ON w.node = e.src) "
            + "SELECT node, max(len) AS longest FROM walk GROUP BY node";

    @Test
    void aRecursionThatNeverConvergesFailsWithTheSettingNamedAndAViewRecoversWhenItConvergesAgain() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("SET max_recursion_iterations = 50");
            db.execute("CREATE TABLE edge (src int, dst int)");
            db.execute("INSERT INTO edge VALUES (0, 1), (1, 2), (2, 3)");
            db.execute("CREATE MATERIALIZED VIEW walks AS " + WALKS);
            assertThat(rows(db, "SELECT * FROM walks ORDER BY node")).containsExactly("0|0", "1|1", "2|2", "3|3");

            // a cycle: every walk goes on for ever
            db.execute("INSERT INTO edge VALUES (3, 1)");
            assertThatThrownBy(() -> db.query("SELECT * FROM walks")).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("54000");
                assertThat(e.getMessage()).isEqualTo("recursive query \"walk\" did not converge within 50 iterations; the recursion may not terminate, "
                        + "or it needs more rounds: raise max_recursion_iterations (SET max_recursion_iterations = n)");
            });
            assertThatThrownBy(() -> db.query(WALKS)).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("54000"));

            // the cycle gone, the view is right again
            db.execute("DELETE FROM edge WHERE src = 3");
            db.execute("INSERT INTO edge VALUES (3, 4)");
            assertThat(rows(db, "SELECT * FROM walks ORDER BY node")).containsExactly("0|0", "1|1", "2|2", "3|3", "4|4");

            // a longer chain needs more rounds than the setting allows
            StringBuilder chain = new StringBuilder("INSERT INTO edge VALUES (4, 5)");
            for (int i = 5; i < 60; i++) chain.append(", (").append(i).append(", ").append(i + 1).append(')');
            db.execute(chain.toString());
            assertThatThrownBy(() -> db.query("SELECT count(*) FROM walks")).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("54000"));
            db.execute("SET max_recursion_iterations = 1000");
            assertThat(rows(db, "SELECT count(*), max(longest) FROM (" + WALKS + ") w")).containsExactly("61|60");
        }
    }

    @Test
    void returnAtRecursionLimitGivesTheLastRound() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 1)) {
            assertThat(rows(db, "WITH MUTUALLY RECURSIVE (RETURN AT RECURSION LIMIT 4) t (n int) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*), max(n) FROM t"))
                    .containsExactly("4|4");
            assertThatThrownBy(() -> db.query("WITH MUTUALLY RECURSIVE (ERROR AT RECURSION LIMIT 4) t (n int) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("54000"));
            // declared types: a value that cannot be the declared type is refused
            assertThatThrownBy(() -> db.query("WITH MUTUALLY RECURSIVE t (n int) AS (SELECT 'x'::text) SELECT * FROM t"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42804"));
            assertThatThrownBy(() -> db.query("WITH MUTUALLY RECURSIVE t (n int, m int) AS (SELECT 1) SELECT * FROM t"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42601"));
        }
    }

    @Test
    void explainShowsTheLoopAndWhatItIteratesOn() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 1)) {
            db.execute("CREATE TABLE edge (src int, dst int)");
            String plan = String.join("\n", rows(db, "EXPLAIN WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM edge UNION SELECT r.src, e.dst FROM r JOIN edge e ON r.dst = e.src) "
                    + "SELECT * FROM r"));
            assertThat(plan).contains("LetRec (iterates until no binding changes, at most 100000 rounds)").contains("Ref l");
            // a step with DISTINCT keeps PostgreSQL's working table: two bindings, the first starting as the base term
            String layered = String.join("\n", rows(db, "EXPLAIN WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT DISTINCT n + 1 FROM t WHERE n < 3) SELECT * FROM t"));
            assertThat(layered).contains("(t) starts as").contains("and then is");
        }
    }

    @Test
    void aRecursiveViewIsRightAfterARestart(@TempDir Path dir) {
        String closure = "WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM edge UNION SELECT r.src, e.dst FROM r JOIN edge e ON r.dst = e.src) SELECT src, dst FROM r";
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 2)) {
            db.execute("CREATE TABLE edge (src int, dst int)");
            db.execute("CREATE MATERIALIZED VIEW closure AS " + closure);
            db.execute("CREATE RECURSIVE VIEW countdown (n) AS SELECT 3 UNION ALL SELECT n - 1 FROM countdown WHERE n > 0");
            db.execute("INSERT INTO edge VALUES (1, 2), (2, 3)");
            assertThat(rows(db, "SELECT count(*) FROM closure")).containsExactly("3");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 2)) {
            assertThat(rows(db, "SELECT * FROM closure ORDER BY 1, 2")).containsExactly("1|2", "1|3", "2|3");
            db.execute("INSERT INTO edge VALUES (3, 1)");
            assertThat(rows(db, "SELECT count(*) FROM closure")).containsExactly("9");
            assertThat(rows(db, "SELECT * FROM closure ORDER BY 1, 2")).isEqualTo(rows(db, closure + " ORDER BY 1, 2"));
            assertThat(rows(db, "SELECT n FROM countdown ORDER BY n")).containsExactly("0", "1", "2", "3");
        }
    }
}
