package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table created {@code WITH (APPEND ONLY)} takes INSERT and COPY, is read and maintained in
 * views as any table, and refuses UPDATE and DELETE with 55000 (simple and prepared, and after a
 * restart, since its definition is kept as written).
 */
class AppendOnlyTableTest {
    private static List<String> rows(Tributary db, String sql) {
        return db.query(sql).text().stream().map(r -> String.join("|", r)).toList();
    }

    private static void refused(ThrowingRunnable r, String message) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo("55000");
            assertThat(e.getMessage()).isEqualTo(message);
        });
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void takesInsertsAndCopiesAndRefusesUpdatesAndDeletes() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE events (id int, kind text) WITH (APPEND ONLY)");
            db.execute("CREATE MATERIALIZED VIEW per_kind AS SELECT kind, count(*) AS n FROM events GROUP BY kind");
            db.execute("INSERT INTO events VALUES (1, 'a'), (2, 'b'), (3, 'a')");
            Tributary.Connection s = db.session();
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parseStatement("COPY events FROM STDIN"));
            copy.data("4\tb\n5\ta\n".getBytes(StandardCharsets.UTF_8));
            assertThat(copy.finish().tag()).isEqualTo("COPY 2");
            assertThat(rows(db, "SELECT * FROM per_kind ORDER BY kind")).containsExactly("a|3", "b|2");

            refused(() -> db.execute("UPDATE events SET kind = 'c' WHERE id = 1"), "cannot update table \"events\": it is append-only");
            refused(() -> db.execute("DELETE FROM events WHERE id = 1"), "cannot delete from table \"events\": it is append-only");
            refused(() -> s.prepare("DELETE FROM events", List.of()), "cannot delete from table \"events\": it is append-only");
            db.execute("BEGIN");
            refused(() -> db.execute("UPDATE events SET id = 0"), "cannot update table \"events\": it is append-only");
            db.execute("ROLLBACK");
            assertThat(rows(db, "SELECT count(*) FROM events")).containsExactly("5");
        }
    }

    /**
     * A top-k over rows that only grow keeps each group's top rows only (EXPLAIN says so), a min
     * or max its extreme, and their views agree with the same views over an ordinary table through
     * random inserts: per group by row_number, a global ORDER BY ... LIMIT ... OFFSET, LIMIT BY,
     * min and max with and without FILTER, ties and duplicate rows, joins.
     */
    @Test
    void topKsOverAppendOnlyTablesAgreeWithTheOrdinaryOnes() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE a (k int, v int, w text) WITH (APPEND ONLY)");
            db.execute("CREATE TABLE o (k int, v int, w text)");
            db.execute("CREATE TABLE d (k int, name text) WITH (APPEND ONLY)");
            List<String> views = List.of(
                    "SELECT k, v, w FROM (SELECT k, v, w, row_number() OVER (PARTITION BY k ORDER BY v DESC, w) AS rn FROM %s) AS r WHERE rn <= 2",
                    "SELECT k, v, w FROM %s ORDER BY v, w LIMIT 3 OFFSET 1",
                    "SELECT t.k, t.v, d.name FROM %s AS t JOIN d ON d.k = t.k ORDER BY t.v DESC LIMIT 2 BY t.k",
                    "SELECT k, min(v) AS lo, max(w) AS top, max(v) FILTER (WHERE v > 3) AS hi, count(*) AS n FROM %s GROUP BY k",
                    "SELECT t.k, max(t.v), min(d.name) FROM %s AS t JOIN d ON d.k = t.k GROUP BY t.k");
            for (int i = 0; i < views.size(); i++) {
                db.execute("CREATE MATERIALIZED VIEW va" + i + " AS " + views.get(i).formatted("a"));
                db.execute("CREATE MATERIALIZED VIEW vo" + i + " AS " + views.get(i).formatted("o"));
            }
            assertThat(rows(db, "EXPLAIN SELECT * FROM a ORDER BY v LIMIT 3")).anySatisfy(l -> assertThat(l).contains("keeps each group's top rows only"));
            assertThat(rows(db, "EXPLAIN SELECT * FROM o ORDER BY v LIMIT 3")).anySatisfy(l -> assertThat(l).contains("arranges input by group"));
            assertThat(rows(db, "EXPLAIN SELECT k, max(v) FROM a GROUP BY k")).anySatisfy(l -> assertThat(l).contains("keeps each group's extreme only"));
            assertThat(rows(db, "EXPLAIN SELECT k, max(v) FROM o GROUP BY k")).noneSatisfy(l -> assertThat(l).contains("extreme"));
            java.util.Random random = new java.util.Random(2618);
            for (int round = 0; round < 30; round++) {
                StringBuilder values = new StringBuilder();
                for (int r = random.nextInt(6); r >= 0; r--) {
                    if (values.length() > 0) values.append(", ");
                    values.append("(").append(random.nextInt(4)).append(", ").append(random.nextInt(10)).append(", '").append((char) ('a' + random.nextInt(3))).append("')");
                }
                db.execute("INSERT INTO a VALUES " + values);
                db.execute("INSERT INTO o VALUES " + values);
                if (round % 5 == 0) db.execute("INSERT INTO d VALUES (" + random.nextInt(4) + ", 'n" + round + "')");
                for (int i = 0; i < views.size(); i++) {
                    assertThat(rows(db, "SELECT * FROM va" + i + " ORDER BY 1, 2, 3")).as("view %d, round %d", i, round)
                            .isEqualTo(rows(db, "SELECT * FROM vo" + i + " ORDER BY 1, 2, 3"));
                }
            }
            assertThat(rows(db, "SELECT count(*) FROM va0")).doesNotContain("0");
        }
    }

    @Test
    void staysAppendOnlyAfterARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE events (id int) WITH (APPEND ONLY, RETAIN HISTORY FOR '1 hour')");
            db.execute("INSERT INTO events VALUES (1)");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(2_000), 1)) {
            refused(() -> db.execute("DELETE FROM events"), "cannot delete from table \"events\": it is append-only");
            db.execute("INSERT INTO events VALUES (2)");
            assertThat(rows(db, "SELECT sum(id) FROM events")).containsExactly("3");
        }
    }
}
