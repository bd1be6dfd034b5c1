package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ranking window functions row_number, rank and dense_rank, with PARTITION BY and ORDER BY. */
class WindowFunctionsTest {
    @Test
    void rankingFunctionsPerPartition() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (g text, v int)");
            db.execute("INSERT INTO t VALUES ('a', 10), ('a', 20), ('a', 20), ('a', NULL), ('b', 5)");
            assertThat(rows(db, "SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v), rank() OVER (PARTITION BY g ORDER BY v),"
                    + " dense_rank() OVER (PARTITION BY g ORDER BY v) FROM t ORDER BY g, 3")).containsExactly(
                    "a|10|1|1|1", "a|20|2|2|2", "a|20|3|2|2", "a|NULL|4|4|3", "b|5|1|1|1");
            assertThat(rows(db, "SELECT v, row_number() OVER (ORDER BY v DESC NULLS LAST) AS n FROM t ORDER BY n")).containsExactly(
                    "20|1", "20|2", "10|3", "5|4", "NULL|5");
            assertThat(rows(db, "SELECT count(*) FROM (SELECT rank() OVER () AS r FROM t) x WHERE r = 1")).containsExactly("5");
            // as pgjdbc numbers columns: in a subquery, filtered and ordered outside
            assertThat(rows(db, "SELECT * FROM (SELECT g, row_number() OVER (PARTITION BY g ORDER BY v) AS n FROM t) x WHERE n = 1 ORDER BY g"))
                    .containsExactly("a|1", "b|1");
            // maintained in a materialized view
            db.execute("CREATE MATERIALIZED VIEW ranked AS SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM t");
            db.execute("INSERT INTO t VALUES ('b', 7)");
            db.execute("DELETE FROM t WHERE v = 20");
            assertThat(rows(db, "SELECT g, v, r FROM ranked ORDER BY g, r, v")).containsExactly("a|NULL|1", "a|10|2", "b|7|1", "b|5|2");
            // correlated: each outer row numbers its own rows
            assertThat(rows(db, "SELECT x.g, (SELECT max(n) FROM LATERAL (SELECT row_number() OVER (ORDER BY t.v) AS n FROM t WHERE t.g = x.g) s)"
                    + " FROM (VALUES ('a'), ('b')) x(g) ORDER BY 1")).containsExactly("a|2", "b|2");
        }
    }

    @Test
    void unsupportedUsesAreRefused() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (g text, v int)");
            fails("42P20", () -> db.query("SELECT * FROM t WHERE row_number() OVER () = 1"));
            fails("0A000", () -> db.query("SELECT sum(DISTINCT v) OVER (PARTITION BY g) FROM t"));
            fails("0A000", () -> db.query("SELECT string_agg(g, ',' ORDER BY g) OVER () FROM t"));
            fails("0A000", () -> db.query("SELECT rank() FILTER (WHERE v > 0) OVER () FROM t"));
            fails("42809", () -> db.query("SELECT abs(v) OVER () FROM t"));
            fails("42P20", () -> db.query("SELECT sum(v) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t"));
            fails("42P20", () -> db.query("SELECT sum(v) OVER (GROUPS 1 PRECEDING) FROM t"));
            fails("42P20", () -> db.query("SELECT sum(v) OVER (ORDER BY v, g RANGE 1 PRECEDING) FROM t"));
            fails("42P20", () -> db.query("SELECT rank() OVER (w ORDER BY v) FROM t WINDOW w AS (ORDER BY g)"));
            fails("42P20", () -> db.query("SELECT rank() OVER (w ORDER BY v) FROM t WINDOW w AS (ROWS 1 PRECEDING)"));
            fails("42704", () -> db.query("SELECT rank() OVER w FROM t"));
            fails("22013", () -> db.query("SELECT sum(v) OVER (ROWS -1 PRECEDING) FROM t"));
            fails("22004", () -> db.query("SELECT sum(v) OVER (ROWS NULL PRECEDING) FROM t"));
            fails("42883", () -> db.query("SELECT row_number(1) OVER () FROM t"));
            db.execute("INSERT INTO t VALUES ('a', 1)");
            fails("22014", () -> db.query("SELECT ntile(0) OVER () FROM t"));
            fails("22016", () -> db.query("SELECT nth_value(v, 0) OVER () FROM t"));
        }
    }

    /** A maintained window's state is its own, not a checkpoint's: a restart builds the view again from its table, which then goes on changing it. */
    @Test
    void aMaintainedWindowIsBuiltAgainAtARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (g int, v int)");
            db.execute("INSERT INTO t SELECT i % 3, i FROM generate_series(1, 30) i");
            db.execute("CREATE MATERIALIZED VIEW w AS SELECT g, v, sum(v) OVER (PARTITION BY g ORDER BY v) AS s FROM t");
            db.execute("CHECKPOINT");
            db.execute("INSERT INTO t VALUES (0, 100)");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            assertThat(rows(db, "SELECT s FROM w WHERE g = 0 AND v = 100")).containsExactly("265");
            db.execute("INSERT INTO t VALUES (0, 0)");
            assertThat(rows(db, "SELECT s FROM w WHERE g = 0 ORDER BY v LIMIT 2")).containsExactly("0", "3");
            assertThat(rows(db, "SELECT count(*), sum(s) FROM w")).containsExactly(rows(db,
                    "SELECT count(*), sum(s) FROM (SELECT sum(v) OVER (PARTITION BY g ORDER BY v) AS s FROM t) x").toArray(String[]::new));
        }
    }
}
