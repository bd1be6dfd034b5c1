package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tributary_internal.dataflows}, {@code operators}, {@code channels} and {@code
 * arrangements}: a join view's dataflow with its operators' exact counts and its channels, and
 * an index's arrangement shown as shared by the two views that read it, on one worker and on two.
 */
class DataflowIntrospectionTest {
    private static Map<String, String> dataflowIds(Tributary db) {
        Map<String, String> ids = new HashMap<>();
        for (List<String> r : db.query("SELECT name, dataflow_id FROM tributary_internal.dataflows").text()) ids.put(r.get(0), r.get(1));
        return ids;
    }

    @Test
    void aJoinViewsOperatorsAndChannels() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
                db.execute("CREATE TABLE a (k int PRIMARY KEY, v int)");
                db.execute("CREATE TABLE b (k int, w int)");
                db.execute("INSERT INTO a VALUES (1, 10), (2, 20), (3, 30)");
                db.execute("INSERT INTO b VALUES (1, 100), (2, 200), (2, 201), (4, 400)");
                db.execute("CREATE MATERIALIZED VIEW j AS SELECT a.k, v, w FROM a JOIN b ON a.k = b.k");
                String j = dataflowIds(db).get("mv:j");
                assertThat(j).isNotNull();
                assertThat(db.query("SELECT object_id = (SELECT oid FROM pg_class WHERE relname = 'j'), operators > 0, channels > 0"
                        + " FROM tributary_internal.dataflows WHERE dataflow_id = " + j).text()).containsExactly(List.of("t", "t", "t"));
                // the join matches 3 rows, over all workers; the probe at the end sees the same 3
                assertThat(db.query("SELECT sum(records_out) FROM tributary_internal.operators WHERE dataflow_id = " + j + " AND name = 'join'").text())
                        .as("%d workers", workers).containsExactly(List.of("3"));
                assertThat(db.query("SELECT records_in FROM tributary_internal.operators WHERE dataflow_id = " + j + " AND name = 'probe'").text())
                        .as("%d workers", workers).containsExactly(List.of("3"));
                assertThat(db.query("SELECT bool_and(activations > 0), bool_and(elapsed_ns > 0) FROM tributary_internal.operators"
                        + " WHERE dataflow_id = " + j + " AND name = 'join'").text()).containsExactly(List.of("t", "t"));
                // the join has two inputs, each fed by a channel; b is re-keyed by k through an exchange
                assertThat(db.query("SELECT count(*) FROM tributary_internal.channels c JOIN tributary_internal.operators o"
                        + " ON o.dataflow_id = c.dataflow_id AND o.operator_id = c.to_operator WHERE c.dataflow_id = " + j + " AND o.name = 'join'").text())
                        .containsExactly(List.of("2"));
                assertThat(db.query("SELECT count(*) > 0 FROM tributary_internal.channels WHERE dataflow_id = " + j + " AND exchange").text())
                        .containsExactly(List.of("t"));
                // every channel joins two of the dataflow's operators
                assertThat(db.query("SELECT count(*) FROM tributary_internal.channels c WHERE dataflow_id = " + j + " AND NOT EXISTS"
                        + " (SELECT 1 FROM tributary_internal.operators o WHERE o.dataflow_id = c.dataflow_id AND o.operator_id = c.to_operator)").text())
                        .containsExactly(List.of("0"));
                // what it arranged: its result (3 rows) among them, built by an arrange operator
                assertThat(db.query("SELECT o.name, a.records FROM tributary_internal.arrangements a JOIN tributary_internal.operators o"
                        + " ON o.dataflow_id = a.dataflow_id AND o.operator_id = a.operator_id WHERE a.dataflow_id = " + j
                        + " AND a.name = 'bySelf' AND a.records > 0").text()).containsExactly(List.of("arrange:bySelf", "3"));
            }
        }
    }

    @Test
    void anIndexReadByTwoViewsIsSharedByBoth() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
                db.execute("CREATE TABLE t (k int NOT NULL, v int)");
                db.execute("INSERT INTO t VALUES (1, 10), (2, 20), (2, 21)");
                db.execute("CREATE INDEX t_k ON t (k)");
                db.execute("CREATE TABLE u (k int, name text)");
                db.execute("INSERT INTO u VALUES (1, 'one'), (2, 'two')");
                db.execute("CREATE MATERIALIZED VIEW v1 AS SELECT u.name, t.v FROM u JOIN t ON t.k = u.k");
                db.execute("CREATE MATERIALIZED VIEW v2 AS SELECT u.name, count(*) FROM u JOIN t ON t.k = u.k GROUP BY u.name");
                Map<String, String> ids = dataflowIds(db);
                String index = ids.get("index:t_k");
                assertThat(index).isNotNull();
                assertThat(db.query("SELECT records, batches > 0, bytes > 0, shared_by FROM tributary_internal.arrangements WHERE dataflow_id = " + index).text())
                        .as("%d workers", workers).containsExactly(List.of("3", "t", "t", "{" + ids.get("mv:v1") + "," + ids.get("mv:v2") + "}"));
                // u's arrangement, in u's own dataflow, is read by both too
                assertThat(db.query("SELECT shared_by FROM tributary_internal.arrangements WHERE dataflow_id = " + ids.get("table:u")).text())
                        .containsExactly(List.of("{" + ids.get("mv:v1") + "," + ids.get("mv:v2") + "}"));
                db.execute("DROP MATERIALIZED VIEW v1");
                assertThat(db.query("SELECT shared_by FROM tributary_internal.arrangements WHERE dataflow_id = " + index).text())
                        .containsExactly(List.of("{" + ids.get("mv:v2") + "}"));
                assertThat(dataflowIds(db)).doesNotContainKey("mv:v1");
            }
        }
    }
}
