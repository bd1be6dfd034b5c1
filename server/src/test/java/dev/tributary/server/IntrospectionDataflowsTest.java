package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's introspection relations as maintained collections: a materialized view, a view
 * and a SUBSCRIBE over {@code dataflows}, {@code operators}, {@code channels},
 * {@code arrangements}, {@code arrangement_sizes}, {@code subscriptions} and
 * {@code hydration_progress} follow the engine (a new materialized view's rows appear at the next
 * sample, a dropped one's are retracted), agree with a one-off read (which computes the rows as
 * they are), and an idle engine's sample changes no operator's row. Samples are taken by hand, so
 * every step is deterministic.
 */
class IntrospectionDataflowsTest {
    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    /** How many of {@code relation}'s rows are about materialized view {@code m}'s dataflow (its name is {@code mv:m}). */
    private static String countOfM(String relation) {
        return switch (relation) {
            case "dataflows" -> "SELECT count(*) AS n FROM tributary_internal.dataflows WHERE name = 'mv:m'";
            case "arrangement_sizes" -> "SELECT count(*) AS n FROM tributary_internal.arrangement_sizes WHERE name = 'm'";
            default -> "SELECT count(*) AS n FROM tributary_internal." + relation + " r JOIN tributary_internal.dataflows d"
                    + " ON d.dataflow_id = r.dataflow_id WHERE d.name = 'mv:m'";
        };
    }

    /** Collects a subscription's data rows (change_diff and the columns), as text. */
    private static final class Changes implements Subscription.Listener {
        final LinkedBlockingQueue<List<String>> rows = new LinkedBlockingQueue<>();

        @Override
        public void onChanges(Result batch) {
            for (List<String> r : batch.text()) rows.add(r.subList(1, r.size()));
        }

        /** The next {@code n} rows, in the order of their text (a batch's order is not defined). */
        List<List<String>> next(int n) throws InterruptedException {
            List<List<String>> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                List<String> r = rows.poll(20, TimeUnit.SECONDS);
                assertThat(r).as("waiting for change %d of %d", i + 1, n).isNotNull();
                out.add(r);
            }
            out.sort(java.util.Comparator.comparing(Object::toString));
            return out;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dataflows", "operators", "channels", "arrangements", "arrangement_sizes"})
    void aMaterializedViewAndASubscriptionFollowANewViewsDataflow(String relation) throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (k int PRIMARY KEY, x int)");
            db.execute("INSERT INTO t VALUES (1, 10), (2, 20), (3, 10)");
            db.execute("CREATE MATERIALIZED VIEW watch AS " + countOfM(relation));
            db.execute("CREATE VIEW watch_v AS " + countOfM(relation));
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT n FROM watch")).containsExactly(List.of("0"));
            Changes changes = new Changes();
            try (Subscription sub = db.subscribe("SUBSCRIBE (" + countOfM(relation) + ")", changes)) {
                assertThat(changes.next(1)).containsExactly(List.of("1", "0"));
                db.execute("CREATE MATERIALIZED VIEW m AS SELECT x, count(*) FROM t GROUP BY x");
                // nothing shows before the next sample; a one-off read computes the rows now
                assertThat(rows(db, "SELECT n FROM watch")).containsExactly(List.of("0"));
                String now = rows(db, countOfM(relation)).get(0).get(0);
                assertThat(Long.parseLong(now)).isPositive();
                db.coordinator().sampleIntrospection();
                assertThat(rows(db, "SELECT n FROM watch")).containsExactly(List.of(now));
                assertThat(rows(db, "SELECT n FROM watch_v")).containsExactly(List.of(now));
                assertThat(changes.next(2)).containsExactly(List.of("-1", "0"), List.of("1", now));
                // dropping it retracts its rows
                db.execute("DROP MATERIALIZED VIEW m");
                db.coordinator().sampleIntrospection();
                assertThat(rows(db, "SELECT n FROM watch")).containsExactly(List.of("0"));
                assertThat(rows(db, "SELECT n FROM watch_v")).containsExactly(List.of("0"));
                assertThat(changes.next(2)).containsExactly(List.of("-1", now), List.of("1", "0"));
            }
        }
    }

    @Test
    void aSubscriptionSeesAViewsOperatorsAppearAndGo() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (k int PRIMARY KEY, x int)");
            db.coordinator().sampleIntrospection();
            Changes changes = new Changes();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT o.operator_id, o.name FROM tributary_internal.operators o"
                    + " JOIN tributary_internal.dataflows d ON d.dataflow_id = o.dataflow_id WHERE d.name = 'mv:m')", changes)) {
                db.execute("CREATE MATERIALIZED VIEW m AS SELECT x, count(*) FROM t GROUP BY x");
                List<List<String>> operators = rows(db, "SELECT '1', o.operator_id, o.name FROM tributary_internal.operators o"
                        + " JOIN tributary_internal.dataflows d ON d.dataflow_id = o.dataflow_id WHERE d.name = 'mv:m'");
                assertThat(operators).isNotEmpty();
                db.coordinator().sampleIntrospection();
                List<List<String>> appeared = changes.next(operators.size());
                assertThat(appeared).containsExactlyInAnyOrderElementsOf(operators);
                db.execute("DROP MATERIALIZED VIEW m");
                db.coordinator().sampleIntrospection();
                List<List<String>> gone = changes.next(operators.size());
                assertThat(gone).containsExactlyInAnyOrderElementsOf(operators.stream().map(r -> List.of("-1", r.get(1), r.get(2))).toList());
            }
        }
    }

    @Test
    void theRelationsAreListedAsEveryCatalogLists() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            String relations = "('pg_stat_activity', 'objects', 'statement_log', 'streams', 'hydration_progress', 'arrangement_sizes', 'subscriptions',"
                    + " 'dataflows', 'operators', 'channels', 'arrangements')";
            List<List<String>> classes = rows(db, "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE c.relkind = 'v' AND c.relname IN " + relations + " ORDER BY 1, 2");
            assertThat(classes).hasSize(11);
            assertThat(rows(db, "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'VIEW' AND table_name IN " + relations
                    + " ORDER BY 1, 2")).isEqualTo(classes);
            assertThat(rows(db, "SELECT schemaname, viewname FROM pg_views WHERE viewname IN " + relations + " ORDER BY 1, 2")).isEqualTo(classes);
            // their columns as pg_attribute and information_schema.columns list them
            assertThat(rows(db, "SELECT c.relname, count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE a.attnum > 0 AND c.relname IN "
                    + relations + " GROUP BY 1 ORDER BY 1")).isEqualTo(rows(db, "SELECT table_name, count(*) FROM information_schema.columns"
                    + " WHERE table_name IN " + relations + " GROUP BY 1 ORDER BY 1"));
            assertThat(rows(db, "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'tributary_internal'"))
                    .isEqualTo(rows(db, "SELECT nspname FROM pg_namespace WHERE nspname = 'tributary_internal'"));
        }
    }

    @Test
    void anEngineRelationIsSampledFromItsFirstReaderOn() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (x int)");
            db.execute("CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t");
            db.coordinator().sampleIntrospection();
            // nothing read dataflows, so no sample filled it: the first view over it does, at once
            db.execute("CREATE VIEW flows AS SELECT name FROM tributary_internal.dataflows WHERE name = 'mv:m'");
            assertThat(rows(db, "SELECT * FROM flows")).containsExactly(List.of("mv:m"));
            db.execute("DROP VIEW flows");
            db.coordinator().sampleIntrospection();
            db.execute("DROP MATERIALIZED VIEW m");
            // the next reader finds it filled as the engine is now, not as it was when last read
            db.execute("CREATE MATERIALIZED VIEW flows AS SELECT count(*) AS n FROM tributary_internal.dataflows WHERE name = 'mv:m'");
            assertThat(rows(db, "SELECT n FROM flows")).containsExactly(List.of("0"));
        }
    }

    @Test
    void aMaterializedViewOverOperatorsIsMadeAgainAfterARestart(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (x int)");
            db.execute("INSERT INTO t VALUES (1), (2)");
            db.execute("CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t");
            db.execute("CREATE MATERIALIZED VIEW flows AS SELECT DISTINCT d.name FROM tributary_internal.operators o"
                    + " JOIN tributary_internal.dataflows d ON d.dataflow_id = o.dataflow_id WHERE d.name = 'mv:m'");
            db.execute("INSERT INTO t VALUES (3)");
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(rows(db, "SELECT * FROM flows")).containsExactly(List.of("mv:m"));
            db.execute("CHECKPOINT");
            db.execute("INSERT INTO t VALUES (4)");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(3_000), 1)) {
            // the writes after the checkpoint are replayed at their own times; the view follows from the first sample
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly(List.of("4"));
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(rows(db, "SELECT * FROM flows")).containsExactly(List.of("mv:m"));
        }
    }

    @Test
    void theMaintainedRowsAreTheComputedOnes() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE a (k int PRIMARY KEY, v int)");
            db.execute("CREATE TABLE b (k int, w int)");
            db.execute("INSERT INTO a VALUES (1, 10), (2, 20)");
            db.execute("INSERT INTO b VALUES (1, 100), (2, 200), (2, 201)");
            db.execute("CREATE MATERIALIZED VIEW j AS SELECT a.k, v, w FROM a JOIN b ON a.k = b.k");
            db.execute("CREATE MATERIALIZED VIEW by_k AS SELECT k, count(*) FROM j GROUP BY k");
            // the views' structure and counts (not their time, which the views' own reads move)
            String[][] queries = {
                    {"dataflows", "SELECT dataflow_id, name, object_id, operators, channels, arrangements, records_out FROM tributary_internal.dataflows"},
                    {"operators", "SELECT dataflow_id, operator_id, name, scope, inputs, outputs, records_in, records_out, messages_in, messages_out"
                            + " FROM tributary_internal.operators"},
                    {"channels", "SELECT * FROM tributary_internal.channels"},
                    {"arrangements", "SELECT * FROM tributary_internal.arrangements"},
                    {"arrangement_sizes", "SELECT * FROM tributary_internal.arrangement_sizes"}};
            for (String[] q : queries) db.execute("CREATE VIEW maintained_" + q[0] + " AS " + q[1]);
            db.coordinator().sampleIntrospection();
            for (String[] q : queries) {
                // the views' dataflows and the internal tables' own are left out: reading and sampling move them
                String mine = " WHERE dataflow_id IN (SELECT dataflow_id FROM tributary_internal.dataflows WHERE name IN ('mv:j', 'mv:by_k'))";
                if (q[0].equals("arrangement_sizes")) mine = " WHERE name IN ('a', 'b', 'j', 'by_k')";
                List<List<String>> computed = rows(db, "SELECT * FROM (" + q[1] + ") c" + mine + " ORDER BY 1, 2, 3, 4");
                assertThat(computed).as(q[0]).isNotEmpty();
                assertThat(rows(db, "SELECT * FROM maintained_" + q[0] + mine + " ORDER BY 1, 2, 3, 4")).as(q[0]).isEqualTo(computed);
            }
        }
    }

    @Test
    void anIdleEngineChangesNoOperatorsRow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (k int PRIMARY KEY, x int)");
            for (int i = 0; i < 5; i++) db.execute("CREATE MATERIALIZED VIEW m" + i + " AS SELECT x, count(*) FROM t GROUP BY x");
            String ops = "SELECT o.dataflow_id, o.operator_id, o.records_in, o.activations, o.elapsed_ns FROM tributary_internal.operators o"
                    + " JOIN tributary_internal.dataflows d ON d.dataflow_id = o.dataflow_id WHERE d.name LIKE 'mv:m_'";
            db.execute("CREATE VIEW sampled AS " + ops);
            String activations = "SELECT sum(activations) FROM ";
            db.coordinator().sampleIntrospection();
            List<List<String>> before = rows(db, "SELECT * FROM sampled ORDER BY 1, 2");
            long computedBefore = Long.parseLong(rows(db, activations + "(" + ops + ") o").get(0).get(0));
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            // the clock moved every operator's frontier, and with it their activations and time,
            // but no record: the samples since left every row as it was (nothing written for them)
            assertThat(Long.parseLong(rows(db, activations + "(" + ops + ") o").get(0).get(0))).isGreaterThan(computedBefore);
            assertThat(rows(db, "SELECT * FROM sampled ORDER BY 1, 2")).isEqualTo(before);
            // an INSERT changes the rows of the operators it reached, their activations and time along
            db.execute("INSERT INTO t VALUES (1, 10)");
            // each view's read waits until it has taken the INSERT in: its operators' counts are final
            for (int i = 0; i < 5; i++) assertThat(rows(db, "SELECT count FROM m" + i)).containsExactly(List.of("1"));
            db.coordinator().sampleIntrospection();
            List<List<String>> after = rows(db, "SELECT * FROM sampled ORDER BY 1, 2");
            assertThat(after).hasSameSizeAs(before).isNotEqualTo(before);
            // and every row's records are the operator's now
            assertThat(rows(db, "SELECT count(*) FROM sampled s JOIN (" + ops + ") c ON c.dataflow_id = s.dataflow_id AND c.operator_id = s.operator_id"
                    + " AND c.records_in = s.records_in")).containsExactly(List.of(String.valueOf(before.size())));
        }
    }

    @Test
    void aMaterializedViewFollowsSubscriptions() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE watched (x int)");
            // the pattern is split so the view's own text does not match it
            db.execute("CREATE MATERIALIZED VIEW subs AS SELECT count(*) AS n FROM tributary_internal.subscriptions WHERE query LIKE '%' || 'wat' || 'ched%'");
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT n FROM subs")).containsExactly(List.of("0"));
            Changes changes = new Changes();
            try (Subscription sub = db.subscribe("SUBSCRIBE watched", changes)) {
                db.coordinator().sampleIntrospection();
                assertThat(rows(db, "SELECT n FROM subs")).containsExactly(List.of("1"));
            }
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT n FROM subs")).containsExactly(List.of("0"));
        }
    }

    @Test
    void aMaterializedViewFollowsABuild() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, g int)");
            db.execute("INSERT INTO t SELECT i, i % 100 FROM generate_series(1, 200000) AS s(i)");
            db.execute("CREATE MATERIALIZED VIEW builds AS SELECT name, rows_total FROM tributary_internal.hydration_progress");
            db.coordinator().ddl().progressNoticeNanos = 0;
            Tributary.Connection s = db.session();
            Tributary.Connection other = db.session();
            List<List<String>> during = new ArrayList<>();
            List<List<String>> computed = new ArrayList<>();
            s.onNotice(n -> {
                // the CREATE waits with the coordinator free: sample and look meanwhile
                if (!during.isEmpty()) return;
                db.coordinator().sampleIntrospection();
                during.addAll(other.execute("SELECT * FROM builds").get(0).text());
                computed.addAll(other.execute("SELECT name, rows_total FROM tributary_internal.hydration_progress").get(0).text());
            });
            s.execute("CREATE MATERIALIZED VIEW sums AS SELECT g, count(*) FROM t GROUP BY g");
            assertThat(during).containsExactly(List.of("sums", "200000"));
            assertThat(computed).isEqualTo(during);
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT count(*) FROM builds")).containsExactly(List.of("0"));
        }
    }
}
