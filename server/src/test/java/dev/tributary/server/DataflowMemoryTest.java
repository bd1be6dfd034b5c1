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
}
