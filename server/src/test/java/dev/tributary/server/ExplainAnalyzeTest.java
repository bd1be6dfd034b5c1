package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Json;
import dev.tributary.sql.types.SqlType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * EXPLAIN ANALYZE runs the query in a transient dataflow and shows each plan node's rows,
 * counted from the operators rendered for it, on one worker and on two; FORMAT JSON is one json
 * value that parses; EXPLAIN of CREATE MATERIALIZED VIEW and CREATE INDEX names the arrangements
 * reused; options are checked as PostgreSQL checks them.
 */
class ExplainAnalyzeTest {
    private static Tributary withData(int workers) {
        Tributary db = Tributary.inMemory(Clock.manual(0), workers);
        db.execute("CREATE TABLE a (k int PRIMARY KEY, v int)");
        db.execute("CREATE TABLE b (k int, w int)");
        db.execute("INSERT INTO a VALUES (1, 10), (2, 20), (3, 30)");
        db.execute("INSERT INTO b VALUES (1, 100), (2, 200), (2, 201), (4, 400), (NULL, 0)");
        return db;
    }

    private static List<String> lines(Tributary db, String sql) {
        return db.query(sql).text().stream().map(r -> r.get(0)).toList();
    }

    /** The line of the node whose line starts (after its indentation) with {@code start}. */
    private static String node(List<String> lines, String start) {
        return lines.stream().filter(l -> l.strip().startsWith(start)).findFirst().orElseThrow(() -> new AssertionError("no " + start + " in " + lines));
    }

    @Test
    void eachNodeShowsTheRowsItsOperatorsSent() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = withData(workers)) {
                List<String> join = lines(db, "EXPLAIN ANALYZE SELECT a.k, v, w FROM a JOIN b ON a.k = b.k");
                // b's four rows with a key reach the join, which matches three of them
                assertThat(node(join, "Filter")).as("%d workers", workers).contains("(actual rows=4 time=");
                assertThat(node(join, "Join")).as("%d workers", workers).contains("(actual rows=3 time=");
                assertThat(join.get(0)).contains("(actual rows=3 time=");
                String ran = "on " + workers + " worker";
                assertThat(join).anyMatch(l -> l.startsWith("Ran in a transient dataflow of ") && l.contains(ran) && l.contains("; 3 rows"));
                assertThat(join.get(join.size() - 1)).matches("Execution Time: [0-9]+\\.[0-9]{3} ms");

                List<String> grouped = lines(db, "EXPLAIN ANALYZE SELECT k, count(*) FROM b GROUP BY k");
                // five rows in, four groups out (NULL is a group)
                assertThat(node(grouped, "Get table b")).as("%d workers", workers).contains("(actual rows=5 time=");
                assertThat(node(grouped, "Reduce")).as("%d workers", workers).contains("(actual rows=4 time=");

                // it ran: a query the workers answer without a dataflow is measured in one all the same
                List<String> seek = lines(db, "EXPLAIN ANALYZE SELECT * FROM a WHERE k = 2");
                assertThat(seek.get(0)).contains("(actual rows=1 time=");
            }
        }
    }

    @Test
    void formatJsonIsOneJsonValueThatParses() {
        try (Tributary db = withData(2)) {
            for (String sql : List.of("EXPLAIN (FORMAT JSON) SELECT k, count(*) FROM b GROUP BY k",
                    "EXPLAIN (ANALYZE, FORMAT JSON) SELECT k, count(*) FROM b WHERE w > 100 GROUP BY k",
                    "EXPLAIN (FORMAT JSON) CREATE INDEX b_k ON b (k)")) {
                Result r = db.query(sql);
                assertThat(r.columns()).containsExactly("QUERY PLAN");
                assertThat(r.types()).containsExactly(SqlType.JSON);
                assertThat(r.rows()).hasSize(1);
                String json = (String) r.rows().get(0)[0];
                Json.parse(json);
                assertThat(json).startsWith("[\n  {\n    \"Plan\": {\n");
            }
            String json = (String) db.query("EXPLAIN (ANALYZE, FORMAT JSON) SELECT k, count(*) FROM b WHERE w > 100 GROUP BY k").rows().get(0)[0];
            // the Reduce made two groups (2 and 4) of the three rows its input sent; the whole run took some time
            assertThat(json).containsPattern("\"Node Type\": \"Reduce\",\\n *\"Details\": \"[^\"]*\",\\n *\"Actual Rows\": 2,\\n *\"Actual Total Time\": [0-9.]+,");
            assertThat(json).containsPattern("\"Node Type\": \"Project\",\\n *\"Details\": \"#1\",\\n *\"Actual Rows\": 3,");
            assertThat(json).containsPattern("\"Execution Time\": [0-9]+\\.[0-9]{3}\\n  }\\n]$");
        }
    }

    @Test
    void explainingAViewOrAnIndexNamesTheArrangementsItReuses() {
        try (Tributary db = withData(1)) {
            List<String> view = lines(db, "EXPLAIN CREATE MATERIALIZED VIEW j AS SELECT a.k, v, w FROM a JOIN b ON a.k = b.k");
            assertThat(view).contains("Reuses the arrangements of index a_pkey, table b (imported, nothing copied)");
            assertThat(lines(db, "EXPLAIN CREATE INDEX b_k ON b (k)")).containsExactly(
                    "Index b_k on k (arranges the rows by key: the one arrangement it creates)",
                    "  Get table b (its arrangement, shared)",
                    "Reuses the arrangement of table b (imported, nothing copied); creates one arrangement, the index's");
            // explained, not made
            assertThat(db.query("SELECT count(*) FROM pg_class WHERE relname IN ('j', 'b_k')").text()).containsExactly(List.of("0"));
        }
    }

    @Test
    void optionsAreCheckedAsPostgresChecksThem() {
        try (Tributary db = withData(1)) {
            // harmless options are accepted and change nothing
            assertThat(lines(db, "EXPLAIN (ANALYZE off, COSTS off, VERBOSE, BUFFERS, SETTINGS on, SUMMARY) SELECT * FROM a"))
                    .isEqualTo(lines(db, "EXPLAIN SELECT * FROM a"));
            assertThat(lines(db, "EXPLAIN (ANALYZE 1, TIMING off) SELECT 1").get(0)).contains("(actual rows=1");
            state(db, "EXPLAIN (foo) SELECT 1", "42601", "unrecognized EXPLAIN option \"foo\"");
            state(db, "EXPLAIN (FORMAT bar) SELECT 1", "22023", "unrecognized value for EXPLAIN option \"format\": \"bar\"");
            state(db, "EXPLAIN (FORMAT) SELECT 1", "42601", "format requires a parameter");
            state(db, "EXPLAIN (ANALYZE maybe) SELECT 1", "42601", "analyze requires a Boolean value");
            state(db, "EXPLAIN (TIMING) SELECT 1", "22023", "EXPLAIN option TIMING requires ANALYZE");
            state(db, "EXPLAIN (WAL) SELECT 1", "22023", "EXPLAIN option WAL requires ANALYZE");
            state(db, "EXPLAIN (FORMAT XML) SELECT 1", "0A000", "EXPLAIN (FORMAT XML) is not supported");
            state(db, "EXPLAIN ANALYZE CREATE MATERIALIZED VIEW j AS SELECT * FROM a", "0A000", "EXPLAIN ANALYZE of CREATE VIEW is not supported");
            state(db, "EXPLAIN ANALYZE CREATE INDEX b_k ON b (k)", "0A000", "EXPLAIN ANALYZE of CREATE INDEX is not supported");
            state(db, "EXPLAIN CREATE INDEX x ON nothing (k)", "42P01", "relation \"nothing\" does not exist");
        }
    }

    private static void state(Tributary db, String sql, String sqlState, String message) {
        assertThatThrownBy(() -> db.execute(sql)).as(sql).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo(sqlState);
            assertThat(e.getMessage()).isEqualTo(message);
        });
    }
}
