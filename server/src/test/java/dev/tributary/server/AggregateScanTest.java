package dev.tributary.server;

import static dev.tributary.server.SqlRows.error;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.compute.Dataflows;
import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An aggregate over the maps and filters of one stored collection of moderate size is answered
 * by scanning it on the workers and aggregating on the coordinator, with no dataflow built; its
 * rows are those of the same query maintained as a view, and when it fails, the view's error is
 * what it reports (the dataflow then answers). A collection too large to scan in one step is
 * aggregated by a dataflow, as before.
 */
class AggregateScanTest {
    private static final List<String> QUERIES = List.of(
            "SELECT sum(n) FROM t WHERE region = 'r3'",
            "SELECT count(*), sum(n), avg(n), min(n), max(n) FROM t WHERE region = 'nowhere'",
            "SELECT region, count(*), sum(n), avg(x), min(s), max(s) FROM t GROUP BY region",
            "SELECT region, sum(n) * 2 AS twice FROM t WHERE n > 10 GROUP BY region HAVING count(*) > 3",
            "SELECT x, count(*) FROM t GROUP BY x",
            "SELECT region, count(DISTINCT n % 5), sum(n) FILTER (WHERE n % 2 = 0) FROM t GROUP BY region",
            "SELECT region, string_agg(s, ',' ORDER BY s DESC) FROM t WHERE n < 40 GROUP BY region",
            "SELECT count(*) FROM t",
            "SELECT bool_and(n > 0), bool_or(n > 70), avg(x), count(x), sum(x) FROM t WHERE region <> 'r0'",
            "SELECT region, max(n) - min(n) FROM v GROUP BY region",
            "SELECT sum(total) FROM v WHERE region = 'r1'");

    @Test
    void aggregatesOfAScanAreTheViewsRowsWithNoDataflow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k int PRIMARY KEY, region text, n int, x numeric(8,2), s text)");
            // NULLs in keys and arguments; numerics that are equal with different scales (1.5, 1.50)
            s.execute("INSERT INTO t SELECT g, CASE WHEN g % 9 = 0 THEN NULL ELSE 'r' || (g % 4) END, CASE WHEN g % 13 = 0 THEN NULL ELSE g END, "
                    + "CASE WHEN g % 2 = 0 THEN 1.5 ELSE 1.50 + g % 3 END, 's' || (g % 17) FROM generate_series(1, 90) g");
            s.execute("CREATE MATERIALIZED VIEW v AS SELECT region, n, n * 3 AS total FROM t WHERE n IS NOT NULL");
            Coordinator c = db.coordinator();
            for (int i = 0; i < QUERIES.size(); i++) {
                String q = QUERIES.get(i);
                long built = c.reads().dataflowsBuilt;
                List<List<String>> scanned = sorted(s.execute(q).get(0).text());
                assertThat(c.reads().dataflowsBuilt).as("dataflows built for %s", q).isEqualTo(built);
                assertThat(s.execute("EXPLAIN " + q).get(0).text().stream().map(r -> r.get(0)).toList())
                        .as("EXPLAIN %s", q).anyMatch(line -> line.startsWith("Answered by scanning the arrangement of") && line.contains("aggregating on the coordinator"));
                s.execute("CREATE MATERIALIZED VIEW check" + i + " AS " + q);
                assertThat(scanned).as(q).isEqualTo(sorted(s.execute("SELECT * FROM check" + i).get(0).text()));
            }
        }
    }

    @Test
    void aFailingAggregateReportsTheViewsError() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k int PRIMARY KEY, g int, b bigint)");
            s.execute("INSERT INTO t SELECT i, i % 5, 9000000000000000000 FROM generate_series(1, 40) i");
            for (String q : List.of("SELECT g, CAST(sum(b) AS bigint) FROM t GROUP BY g", "SELECT sum(b) / (count(*) - 40) FROM t WHERE b > 0",
                    "SELECT g, 1 / (g - 2) FROM t GROUP BY g")) {
                SqlException scanned = error(s, q);
                s.execute("CREATE VIEW check_view AS " + q);
                SqlException viewed = error(s, "SELECT * FROM check_view");
                assertThat(scanned.sqlState()).as(q).isEqualTo(viewed.sqlState());
                assertThat(scanned.getMessage()).as(q).isEqualTo(viewed.getMessage());
                s.execute("DROP VIEW check_view");
            }
        }
    }

    @Test
    void aCollectionTooLargeToScanInOneStepIsAggregatedByADataflow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 1)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE big (x int)");
            s.execute("INSERT INTO big SELECT * FROM generate_series(1, " + (ReadPath.AGGREGATE_SCAN_UPDATES + 10) + ")");
            Coordinator c = db.coordinator();
            long built = c.reads().dataflowsBuilt;
            long n = ReadPath.AGGREGATE_SCAN_UPDATES + 10;
            assertThat(s.execute("SELECT count(*), sum(x) FROM big").get(0).text()).containsExactly(List.of(String.valueOf(n), String.valueOf(n * (n + 1) / 2)));
            assertThat(c.reads().dataflowsBuilt).isEqualTo(built + 1);
        }
    }

    /** More distinct input rows than a worker consolidates for the coordinator: a dataflow aggregates them, faster than one thread would. */
    @Test
    void manyDistinctInputRowsAreAggregatedByADataflow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            int n = 4 * Dataflows.ScanPart.CONSOLIDATED_ROWS;
            s.execute("CREATE TABLE t (k int PRIMARY KEY, g int)");
            s.execute("INSERT INTO t SELECT i, i % 3 FROM generate_series(1, " + n + ") i");
            Coordinator c = db.coordinator();
            long built = c.reads().dataflowsBuilt;
            assertThat(s.execute("SELECT sum(k) FROM t").get(0).text()).containsExactly(List.of(String.valueOf((long) n * (n + 1) / 2)));
            assertThat(c.reads().dataflowsBuilt).as("distinct keys: a dataflow").isEqualTo(built + 1);
            assertThat(s.execute("SELECT g, count(*) FROM t GROUP BY g ORDER BY g").get(0).text()).hasSize(3);
            assertThat(c.reads().dataflowsBuilt).as("three distinct rows: consolidated on the workers").isEqualTo(built + 1);
        }
    }

    /**
     * An aggregate over the rows an index finds (its key columns fixed by the filter) seeks them
     * and aggregates on the coordinator, however large the collection (more than a scan takes
     * here): no dataflow, and the view's rows; a step that fails on a row found leaves it to the
     * dataflow, which reports the view's error.
     */
    @Test
    void anAggregateOverTheRowsAnIndexFindsSeeksThemWithNoDataflow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            long n = ReadPath.AGGREGATE_SCAN_UPDATES * 3;
            s.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2), status int)");
            s.execute("INSERT INTO orders SELECT g, g % 1000, (g % 9973) / 100.0, g % 5 FROM generate_series(1, " + n + ") g");
            s.execute("CREATE INDEX orders_by_customer ON orders (customer)");
            Coordinator c = db.coordinator();
            for (String q : List.of("SELECT count(*), sum(amount) FROM orders WHERE customer = 42",
                    "SELECT status, count(*), max(amount) FROM orders WHERE customer IN (7, 8, 9) AND status <> 2 GROUP BY status",
                    "SELECT count(*), sum(amount) FROM orders WHERE customer = 5000",
                    "SELECT avg(amount) * 2 FROM orders WHERE customer = 3 HAVING count(*) > 1")) {
                long built = c.reads().dataflowsBuilt;
                long seeks = c.reads().seeks;
                List<List<String>> looked = sorted(s.execute(q).get(0).text());
                assertThat(c.reads().dataflowsBuilt).as("dataflows built for %s", q).isEqualTo(built);
                assertThat(c.reads().seeks).as("seeks for %s", q).isGreaterThan(seeks);
                assertThat(s.execute("EXPLAIN " + q).get(0).text().stream().map(r -> r.get(0)).toList())
                        .as("EXPLAIN %s", q).anyMatch(line -> line.contains("in index orders_by_customer and aggregating on the coordinator"));
                s.execute("CREATE VIEW check_view AS " + q);
                assertThat(looked).as(q).isEqualTo(sorted(s.execute("SELECT * FROM check_view").get(0).text()));
                s.execute("DROP VIEW check_view");
            }
            String failing = "SELECT sum(amount) FROM orders WHERE customer = 0 AND 1 / (status - status) = 1";
            long built = c.reads().dataflowsBuilt;
            SqlException looked = error(s, failing);
            assertThat(c.reads().dataflowsBuilt).as("a failing step: the dataflow answers").isEqualTo(built + 1);
            s.execute("CREATE VIEW check_view AS " + failing);
            SqlException viewed = error(s, "SELECT * FROM check_view");
            assertThat(looked.sqlState()).isEqualTo("22012").isEqualTo(viewed.sqlState());
            assertThat(looked.getMessage()).isEqualTo(viewed.getMessage());
        }
    }

    private static List<List<String>> sorted(List<List<String>> rows) {
        List<List<String>> out = new ArrayList<>(rows);
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }
}
