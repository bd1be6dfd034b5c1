package dev.tributary.server;

import static dev.tributary.server.SqlRows.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code max_result_size} bounds the bytes of rows one query collects: past it the query fails
 * with 53200 (and a transient dataflow stops collecting at once) instead of filling the heap;
 * the session and the database go on. Values take PostgreSQL's memory units.
 */
class ResultSizeTest {

    @Test
    void aTransactionBlockWhoseWritesOutgrowMaxSessionMemoryFailsWith53200() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            assertThat(s.execute("SHOW max_session_memory").get(0).text()).containsExactly(List.of((Runtime.getRuntime().maxMemory() / 2 >> 20) + "MB"));
            s.execute("CREATE TABLE t (id int PRIMARY KEY, pad text)");
            s.execute("SET max_session_memory = '1MB'");
            s.execute("BEGIN");
            s.execute("INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g"); // about 0.7 MB
            SqlException e = error(s, "INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(2001, 4000) g");
            assertThat(e.sqlState()).isEqualTo("53200");
            assertThat(e.getMessage()).startsWith("out of memory: the transaction block's writes would hold about").endsWith("more than max_session_memory (1MB)");
            assertThat(error(s, "SELECT 1").sqlState()).as("the block failed").isEqualTo("25P02");
            s.execute("ROLLBACK");
            // outside a block nothing waits to commit: the same rows are written at once
            s.execute("INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 4000) g");
            // and a new block starts from nothing
            s.execute("BEGIN");
            s.execute("DELETE FROM t WHERE id <= 2000");
            s.execute("COMMIT");
            assertThat(s.execute("SELECT count(*) FROM t").get(0).text()).containsExactly(List.of("2000"));
        }
    }

    @Test
    void aResultLargerThanMaxResultSizeFailsWith53200() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            long quarter = Math.min(1024, Runtime.getRuntime().maxMemory() / 4 >> 20);
            assertThat(s.execute("SHOW max_result_size").get(0).text()).containsExactly(List.of(quarter == 1024 ? "1GB" : quarter + "MB"));
            s.execute("CREATE TABLE t (id int PRIMARY KEY, pad text)");
            s.execute("INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g");
            s.execute("SET max_result_size = '1 MB'");
            assertThat(s.execute("SHOW max_result_size").get(0).text()).containsExactly(List.of("1MB"));
            // a transient dataflow, a scan of a table, a scan with a filter: each about 2 MB of rows
            for (String sql : List.of("SELECT repeat('y', 100), g FROM generate_series(1, 20000) g", "SELECT * FROM t", "SELECT pad FROM t WHERE id > 0",
                    "SELECT t.pad, u.pad FROM t JOIN t AS u ON t.id = u.id")) {
                SqlException e = error(s, sql);
                assertThat(e.sqlState()).as(sql).isEqualTo("53200");
                assertThat(e.getMessage()).isEqualTo("result exceeds max_result_size (1MB)");
                assertThat(e.hint()).contains("SET max_result_size");
            }
            // what fits is answered, and aggregates over all of it are small results
            assertThat(s.execute("SELECT count(*), sum(length(pad)) FROM t").get(0).text()).containsExactly(List.of("20000", "2000000"));
            assertThat(s.execute("SELECT pad FROM t WHERE id < 100").get(0).rows()).hasSize(99);
            s.execute("SET max_result_size = '64MB'");
            assertThat(s.execute("SELECT * FROM t").get(0).rows()).hasSize(20000);
            assertThat(error(s, "SET max_result_size = '2 parsecs'").sqlState()).isEqualTo("22023");
            assertThat(error(s, "SET max_result_size = '99999999999TB'").sqlState()).isEqualTo("22023");
            // another session has its own setting
            assertThat(db.session().execute("SELECT count(*) FROM (SELECT * FROM t) x").get(0).text()).containsExactly(List.of("20000"));
        }
    }
}
