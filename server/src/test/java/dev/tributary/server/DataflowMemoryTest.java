package dev.tributary.server;

import static dev.tributary.server.SqlRows.error;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code max_dataflow_memory} bounds what one dataflow holds on all workers together (its
 * arrangements, operator state and buffered updates): a query, a materialized view's build, an
 * index's build or a later change that takes a view past it fails that dataflow alone with 53200,
 * long before the heap runs out, and everything else goes on. The default is half the heap.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DataflowMemoryTest {
    private static List<List<String>> text(Tributary.Connection s, String sql) {
        return s.execute(sql).get(0).text();
    }

    private static void assertLimitError(SqlException e, String what) {
        assertThat(e.sqlState()).isEqualTo("53200");
        assertThat(e.getMessage()).contains(what + " failed: ").contains("more than max_dataflow_memory (8MB)").contains(", most in ");
        assertThat(e.hint()).contains("SET max_dataflow_memory");
    }

    @Test
    void aDataflowPastTheLimitFailsAloneWith53200() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            long half = Runtime.getRuntime().maxMemory() / 2 >> 20;
            assertThat(text(s, "SHOW max_dataflow_memory")).containsExactly(List.of(half + "MB"));
            s.execute("CREATE TABLE t (a int, pad text)");
            s.execute("INSERT INTO t SELECT g, repeat('x', 50) FROM generate_series(1, 2000) g");
            s.execute("CREATE MATERIALIZED VIEW fine AS SELECT count(*) AS n FROM t");
            s.execute("SET max_dataflow_memory = '8MB'");
            assertThat(text(s, "SHOW max_dataflow_memory")).containsExactly(List.of("8MB"));

            // a query whose join holds far more than 8 MB; the result itself would be one row
            assertLimitError(error(s, "SELECT count(DISTINCT x.a * 10000 + y.a) FROM t AS x, t AS y WHERE x.a < 500"), "query");
            // a view's build: the CREATE fails and leaves nothing behind
            assertLimitError(error(s, "CREATE MATERIALIZED VIEW pairs AS SELECT x.a AS l, y.a AS r FROM t AS x, t AS y"), "materialized view \"pairs\"");
            assertThat(error(s, "SELECT * FROM pairs").sqlState()).isEqualTo("42P01");
            // an index's build over rows that do not fit
            s.execute("CREATE TABLE wide (k int, pad text)");
            s.execute("INSERT INTO wide SELECT g, repeat('y', 2000) FROM generate_series(1, 10000) g");
            assertLimitError(error(s, "CREATE INDEX wide_k ON wide (k)"), "index \"wide_k\"");
            assertThat(text(s, "SELECT count(*) FROM pg_indexes WHERE indexname = 'wide_k'")).containsExactly(List.of("0"));

            // a view that fits when built and outgrows the limit later fails then, alone
            s.execute("CREATE TABLE u (a int)");
            s.execute("INSERT INTO u VALUES (1)");
            s.execute("CREATE MATERIALIZED VIEW grows AS SELECT x.a AS l, y.a AS r FROM t AS x, u AS y");
            assertThat(text(s, "SELECT count(*) FROM grows")).containsExactly(List.of("2000"));
            s.execute("INSERT INTO u SELECT g FROM generate_series(2, 200) g");
            SqlException later = error(s, "SELECT count(*) FROM grows");
            assertLimitError(later, "materialized view \"grows\"");

            // everything else goes on, and without the limit the same work is done
            s.execute("INSERT INTO t VALUES (0, 'z')");
            assertThat(text(s, "SELECT * FROM fine")).containsExactly(List.of("2001"));
            assertThat(text(db.session(), "SELECT count(*) FROM t AS x, t AS y WHERE x.a < 10")).containsExactly(List.of("20010"));
            s.execute("SET max_dataflow_memory = 0");
            s.execute("CREATE INDEX wide_k ON wide (k)");
            assertThat(text(s, "SELECT count(*) FROM wide WHERE k = 7")).containsExactly(List.of("1"));
            assertThat(error(s, "SET max_dataflow_memory = 'lots'").sqlState()).isEqualTo("22023");
        }
    }

    /**
     * A materialized view over a table just written by many transactions starts from one
     * snapshot of it: its creation lets the table's history go up to its start (as a read does),
     * so it does not get each write at its own time and work out (and buffer) a result per write
     * in every reduce and join, all but the last retracted again. With nested subqueries that was
     * some 70 MB for 100 rows written one by one (how the corpus's index/commute/100 --views
     * could hit 53200 when its build ran slowly); now it fits in 24 MB, and the view is right.
     */
    @Test
    void aViewOverManySmallWritesStartsFromOneSnapshot() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE tab0 (pk int PRIMARY KEY, col0 int, col1 float, col3 int, col4 float)");
            java.util.Random random = new java.util.Random(7);
            for (int pk = 0; pk < 100; pk++) {
                s.execute("INSERT INTO tab0 VALUES (" + pk + ", " + random.nextInt(1000) + ", " + random.nextInt(100000) / 100.0 + ", "
                        + random.nextInt(1000) + ", " + random.nextInt(100000) / 100.0 + ")");
            }
            String query = "SELECT pk FROM tab0 WHERE col0 IS NULL OR col1 IN (SELECT col4 FROM tab0 WHERE col4 > 229.50) AND col3 > 300 "
                    + "OR col0 IN (SELECT col3 FROM tab0 WHERE col1 > 802.34 OR col0 > 143 AND col3 > 230) AND col4 < 500 "
                    + "OR col1 IN (SELECT col4 FROM tab0 WHERE col3 > 195) AND col0 >= 934 "
                    + "OR col0 IN (SELECT col3 FROM tab0 WHERE col3 = 532 OR col0 >= 718 AND col1 < 675.53) AND col3 >= 118 "
                    + "OR col3 IN (SELECT col0 FROM tab0 WHERE col0 > 471) AND col4 > 612.11 OR col4 < 228.42";
            s.execute("SET max_dataflow_memory = '24MB'");
            s.execute("CREATE MATERIALIZED VIEW v AS " + query);
            s.execute("SET max_dataflow_memory = 0");
            assertThat(text(s, "SELECT pk FROM v ORDER BY pk")).isEqualTo(text(s, query + " ORDER BY pk"));
            // and it stays right as the table changes
            s.execute("DELETE FROM tab0 WHERE pk % 3 = 0");
            s.execute("UPDATE tab0 SET col4 = col4 / 2 WHERE pk % 5 = 1");
            assertThat(text(s, "SELECT pk FROM v ORDER BY pk")).isEqualTo(text(s, query + " ORDER BY pk"));
        }
    }
}
