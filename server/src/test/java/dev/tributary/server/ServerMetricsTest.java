package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tributary_internal.server_metrics}: the counters behind {@code /metrics} as one row that
 * psql reads (and the console plots), recomputed here from what the test did.
 */
class ServerMetricsTest {
    private static List<String> metrics(Tributary.Connection session) {
        return session.execute("SELECT statements, statement_errors, commits, committed_rows, latency_p50_ms, latency_p99_ms,"
                + " heap_used_bytes, heap_committed_bytes, arrangement_records, arrangement_bytes, connections, subscriptions,"
                + " sampled_at <= now() + interval '1 minute' FROM tributary_internal.server_metrics").get(0).text().get(0);
    }

    @Test
    void itCountsStatementsCommitsAndWhatTheArrangementsHold() {
        try (Tributary db = Tributary.inMemory()) {
            Tributary.Connection session = db.session();
            List<String> before = metrics(session);
            session.execute("CREATE TABLE t (a int)");
            session.execute("INSERT INTO t VALUES (1), (2), (3)");
            session.execute("INSERT INTO t VALUES (4)");
            try {
                session.execute("SELECT nope FROM t");
            } catch (dev.tributary.sql.SqlException expected) {
                // counted as a failed statement
            }
            // a commit is queued on the workers, not waited for: a read of t waits until they have it
            assertThat(session.execute("SELECT count(*) FROM t").get(0).text().get(0)).containsExactly("4");
            List<String> after = metrics(session);
            // the first read of the metrics, CREATE, two INSERTs, the failed SELECT and the count ran in between
            assertThat(Long.parseLong(after.get(0)) - Long.parseLong(before.get(0))).isEqualTo(6);
            assertThat(Long.parseLong(after.get(1)) - Long.parseLong(before.get(1))).isEqualTo(1);
            assertThat(Long.parseLong(after.get(2)) - Long.parseLong(before.get(2))).isEqualTo(2);
            assertThat(Long.parseLong(after.get(3)) - Long.parseLong(before.get(3))).isEqualTo(4);
            double p50 = Double.parseDouble(after.get(4));
            double p99 = Double.parseDouble(after.get(5));
            assertThat(p50).isPositive().isLessThanOrEqualTo(p99);
            assertThat(Long.parseLong(after.get(6))).isPositive().isLessThanOrEqualTo(Long.parseLong(after.get(7)));
            List<String> held = session.execute("SELECT sum(records), sum(bytes) FROM tributary_internal.arrangement_sizes").get(0).text().get(0);
            // the records are the same in both reads; the bytes only while no merge of t's two
            // batches (its idle merging) happens between the two statements: positive in both
            assertThat(after.get(8)).isEqualTo(held.get(0));
            assertThat(Long.parseLong(after.get(9))).isPositive();
            assertThat(Long.parseLong(held.get(1))).isPositive();
            assertThat(Long.parseLong(after.get(8))).isEqualTo(4);
            assertThat(after.subList(10, 13)).containsExactly("0", "0", "t");
        }
    }

    /** A materialized view over it follows the samples, as over the engine relations: its one row is replaced at each. */
    @Test
    void aMaterializedViewOverItFollowsTheSamples() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 1)) {
            db.execute("CREATE TABLE t (a int)");
            db.execute("CREATE MATERIALIZED VIEW counted AS SELECT statements, commits, arrangement_records FROM tributary_internal.server_metrics");
            db.coordinator().sampleIntrospection();
            List<String> first = db.execute("SELECT * FROM counted").get(0).text().get(0);
            db.execute("INSERT INTO t VALUES (1), (2)");
            db.execute("INSERT INTO t VALUES (3)");
            db.coordinator().sampleIntrospection();
            List<List<String>> rows = db.execute("SELECT * FROM counted").get(0).text();
            assertThat(rows).hasSize(1);
            List<String> second = rows.get(0);
            // the SELECT and two INSERTs since the first sample; two commits; three more rows held by
            // t, and what counted holds of the first sample's row
            assertThat(Long.parseLong(second.get(0)) - Long.parseLong(first.get(0))).isEqualTo(3);
            assertThat(Long.parseLong(second.get(1)) - Long.parseLong(first.get(1))).isEqualTo(2);
            assertThat(Long.parseLong(second.get(2)) - Long.parseLong(first.get(2))).isGreaterThanOrEqualTo(3);
            db.execute("DROP MATERIALIZED VIEW counted");
            db.coordinator().sampleIntrospection();
            // no reader: the table is emptied, and a one-off query still computes the row
            assertThat(db.execute("SELECT count(*) FROM tributary_internal.server_metrics").get(0).text()).containsExactly(List.of("1"));
        }
    }

    @Test
    void everyRoleMayReadIt() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE ROLE bob LOGIN");
            Tributary.Connection bob = db.session();
            bob.authenticatedAs("bob");
            assertThat(bob.execute("SELECT count(*) FROM tributary_internal.server_metrics").get(0).text()).containsExactly(List.of("1"));
        }
    }

    @Test
    void percentilesInterpolateWithinTheirBucketAsHistogramQuantileDoes() {
        double[] bounds = {0.001, 0.01, 0.1, Double.POSITIVE_INFINITY};
        // 100 statements: 50 under 1 ms, 40 in (1, 10] ms, 9 in (10, 100] ms, 1 slower
        long[] counts = {50, 40, 9, 1};
        assertThat(StatementMetrics.quantile(0.5, bounds, counts)).isCloseTo(0.001, within(1e-12));
        assertThat(StatementMetrics.quantile(0.7, bounds, counts)).isCloseTo(0.001 + 0.009 * 20 / 40, within(1e-12));
        assertThat(StatementMetrics.quantile(0.99, bounds, counts)).isCloseTo(0.1, within(1e-12));
        assertThat(StatementMetrics.quantile(0.999, bounds, counts)).isEqualTo(0.1);
        assertThat(StatementMetrics.quantile(0.5, bounds, new long[4])).isZero();
    }
}
