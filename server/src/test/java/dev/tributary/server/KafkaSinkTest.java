package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.source.KafkaTestCase;
import dev.tributary.server.source.TestKafka;
import dev.tributary.server.storage.StorageController;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE SINK ... INTO KAFKA against a real broker in the test JVM: a table, a materialized view
 * over it, a sink of the view; a {@code read_committed} consumer of the sink's topic sees each of
 * the view's changes once, in time order, with ENVELOPE UPSERT and DEBEZIUM, across a restart of
 * the server, crashes (a second server opening the same stores, whose sink fences the first's
 * Kafka writer), and the broker stopped for a while. The expected messages are computed from the
 * statements run (each one commit, one time), not read back from the server.
 */
class KafkaSinkTest extends KafkaTestCase {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;


    /** Waits (at most a minute) for sink {@code sink} of {@code db} to meet {@code condition}; fails the test if it does not. */
    static Jobs.Job await(Tributary db, String sink, Predicate<Jobs.Job> condition) throws InterruptedException {
        Jobs.Job j = db.job(sink);
        assertThat(j).as("sink " + sink).isNotNull();
        assertThat(j.await(condition, WAIT_MS)).as("sink " + sink + ": " + j.state + ", " + j.messages + " messages").isTrue();
        return j;
    }

    /** Reads {@code topic} until it holds at least {@code n} messages (or the wait ends), and returns them. */
    static SinkMessages awaitMessages(TestKafka broker, String topic, int n) {
        long deadline = System.nanoTime() + WAIT_MS * 1_000_000;
        while (true) {
            SinkMessages read = SinkMessages.read(broker.bootstrapServers(), topic);
            if (read.messages().size() >= n || System.nanoTime() > deadline) return read;
        }
    }

    private static String into(TestKafka broker, String topic) {
        return "INTO KAFKA (BROKERS '" + broker.bootstrapServers() + "', TOPIC '" + topic + "')";
    }

    private static final String SCHEMA = "CREATE TABLE t (k int, v int); CREATE MATERIALIZED VIEW m AS SELECT k, sum(v) AS s, count(*) AS n FROM t GROUP BY k";

    /**
     * The view {@code m} over {@code t} as a model: each statement's rows change it at one time,
     * and the messages of each key that changed are what an UPSERT (KEY (k)) sink writes.
     */
    private static final class Model {
        final TreeMap<Integer, long[]> view = new TreeMap<>();
        final List<String> upserts = new ArrayList<>();
        final List<String> debezium = new ArrayList<>();

        /** One commit's inserted (v > 0) or deleted (v < 0 means: take away a row of value -v) rows of key k. */
        void commit(Map<Integer, List<Integer>> changes) {
            for (var e : new TreeMap<>(changes).entrySet()) {
                long[] before = view.get(e.getKey());
                long[] now = before == null ? new long[2] : before.clone();
                for (int v : e.getValue()) {
                    now[0] += v > 0 ? v : v;
                    now[1] += v > 0 ? 1 : -1;
                }
                String key = "{\"k\":" + e.getKey() + "}";
                String after = now[1] == 0 ? null : row(e.getKey(), now);
                if (now[1] == 0) view.remove(e.getKey());
                else view.put(e.getKey(), now);
                upserts.add(key + " -> " + after);
                debezium.add(key + " -> {\"before\":" + (before == null ? "null" : row(e.getKey(), before)) + ",\"after\":" + (after == null ? "null" : after) + "}");
            }
        }

        static String row(int k, long[] sn) {
            return "{\"k\":" + k + ",\"s\":" + sn[0] + ",\"n\":" + sn[1] + "}";
        }
    }

    /** Runs {@code sql} (one commit) and tells the model the changes. */
    private static void run(Tributary db, Model model, String sql, Map<Integer, List<Integer>> changes) {
        db.execute(sql);
        model.commit(changes);
    }

    @Test
    void upsertAndDebeziumWriteEachChangeOnceInTimeOrder() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute(SCHEMA);
            Model model = new Model();
            run(db, model, "INSERT INTO t VALUES (0, 1)", Map.of(0, List.of(1)));
            db.execute("CREATE SINK up FROM m " + into(kafka, "up") + " KEY (k) FORMAT JSON ENVELOPE UPSERT");
            db.execute("CREATE SINK deb FROM m " + into(kafka, "deb") + " KEY (k) FORMAT JSON ENVELOPE DEBEZIUM");
            db.execute("CREATE SINK rows FROM (SELECT k, s FROM m WHERE k > 0) " + into(kafka, "rows") + " FORMAT JSON ENVELOPE UPSERT");
            for (String s : List.of("up", "deb", "rows")) await(db, s, j -> j.state.equals("running"));
            run(db, model, "INSERT INTO t VALUES (1, 10), (2, 20)", Map.of(1, List.of(10), 2, List.of(20)));
            run(db, model, "INSERT INTO t VALUES (1, 5)", Map.of(1, List.of(5)));
            run(db, model, "DELETE FROM t WHERE k = 2", Map.of(2, List.of(-20)));
            run(db, model, "UPDATE t SET v = v + 1 WHERE k = 1 AND v = 5", Map.of(1, List.of(-5, 6)));
            run(db, model, "INSERT INTO t VALUES (3, 1), (0, 2)", Map.of(3, List.of(1), 0, List.of(2)));

            SinkMessages up = awaitMessages(kafka, "up", model.upserts.size());
            assertThat(up.keyValues()).containsExactlyElementsOf(model.upserts);
            SinkMessages deb = awaitMessages(kafka, "deb", model.debezium.size());
            assertThat(deb.keyValues()).containsExactlyElementsOf(model.debezium);
            // in time order, each time once per key
            for (SinkMessages read : List.of(up, deb)) {
                for (List<SinkMessages.Message> ms : read.byKey().values()) {
                    for (int i = 1; i < ms.size(); i++) assertThat(ms.get(i).time()).isGreaterThan(ms.get(i - 1).time());
                }
            }
            // without a KEY the whole row is the key: replaying the upserts gives the rows
            // (k = 1: 10, 15, 16; k = 2: 20, gone; k = 3: 1), each change once
            SinkMessages all = awaitMessages(kafka, "rows", 8);
            assertThat(all.upserted()).containsOnlyKeys("{\"k\":1,\"s\":16}", "{\"k\":3,\"s\":1}");
            assertThat(all.keyValues()).hasSize(8);
            assertThat(rows(db, "SHOW SINKS")).hasSize(3).allSatisfy(r -> assertThat(r).contains("|running|"));
            assertThat(rows(db, "SHOW JOBS")).isEmpty();
            assertThat(rows(db, "SELECT part FROM up ORDER BY 1")).containsExactly("cursor", "writer");
        }
    }

    @Test
    void aRestartNeitherRepeatsNorSkipsAndPauseIsDurable() throws Exception {
        Path data = dir.resolve("data");
        Model model = new Model();
        try (Tributary db = Tributary.open(data)) {
            db.execute(SCHEMA);
            db.execute("CREATE SINK s FROM m " + into(kafka, "restart") + " KEY (k) FORMAT JSON ENVELOPE UPSERT");
            await(db, "s", j -> j.state.equals("running"));
            for (int i = 1; i <= 20; i++) run(db, model, "INSERT INTO t VALUES (" + i % 3 + ", " + i + ")", Map.of(i % 3, List.of(i)));
            awaitMessages(kafka, "restart", model.upserts.size());
        }
        try (Tributary db = Tributary.open(data)) {
            // changes while it is down and while it is paused are written once it runs
            for (int i = 21; i <= 30; i++) run(db, model, "INSERT INTO t VALUES (" + i % 3 + ", " + i + ")", Map.of(i % 3, List.of(i)));
            await(db, "s", j -> j.state.equals("running"));
            db.execute("ALTER SINK s PAUSE");
            for (int i = 31; i <= 35; i++) run(db, model, "INSERT INTO t VALUES (" + i % 3 + ", " + i + ")", Map.of(i % 3, List.of(i)));
        }
        try (Tributary db = Tributary.open(data)) {
            assertThat(db.job("s").state).isEqualTo("paused");
            db.execute("ALTER SINK s RESUME");
            for (int i = 36; i <= 40; i++) run(db, model, "INSERT INTO t VALUES (" + i % 3 + ", " + i + ")", Map.of(i % 3, List.of(i)));
            assertThat(awaitMessages(kafka, "restart", model.upserts.size()).keyValues()).containsExactlyElementsOf(model.upserts);
        }
    }

    @Test
    void crashesNeitherRepeatNorSkip() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        List<Tributary> servers = new ArrayList<>();
        Model model = new Model();
        try {
            Tributary first = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.wall(), 2);
            servers.add(first);
            first.execute(SCHEMA);
            first.execute("CREATE SINK s FROM m " + into(kafka, "crash") + " KEY (k) FORMAT JSON ENVELOPE DEBEZIUM");
            await(first, "s", j -> j.state.equals("running"));
            int i = 0;
            for (int crash = 0; crash < 3; crash++) {
                Tributary db = servers.get(servers.size() - 1);
                // changes the sink may or may not have written when the crash comes
                for (int k = 0; k < 40; k++) {
                    i++;
                    run(db, model, "INSERT INTO t VALUES (" + i % 7 + ", " + i + "), (" + (i + 3) % 7 + ", " + i + ")",
                            i % 7 == (i + 3) % 7 ? Map.of(i % 7, List.of(i, i)) : Map.of(i % 7, List.of(i), (i + 3) % 7, List.of(i)));
                }
                awaitMessages(kafka, "crash", model.debezium.size() - 30);
                // never closed before the next opens its stores (which fences it): a crash; the
                // next one's sink fences the first's Kafka writer
                Tributary next = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.wall(), 2);
                Jobs.stop(db.job("s"));
                servers.add(next);
            }
            Tributary db = servers.get(servers.size() - 1);
            for (int k = 0; k < 10; k++) {
                i++;
                run(db, model, "INSERT INTO t VALUES (" + i % 7 + ", " + i + ")", Map.of(i % 7, List.of(i)));
            }
            SinkMessages read = awaitMessages(kafka, "crash", model.debezium.size());
            assertThat(read.keyValues()).containsExactlyElementsOf(model.debezium);
        } finally {
            for (int k = servers.size() - 1; k >= 0; k--) {
                try {
                    servers.get(k).close();
                } catch (IllegalStateException storesClosed) {
                    // the older ones' stores were taken over and closed with the last server
                }
            }
        }
    }

    @Test
    void aCrashBetweenKafkasCommitAndTheCursorsResumesFromKafka() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Model model = new Model();
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Tributary first = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.wall(), 2);
        Tributary next = null;
        try {
            first.execute(SCHEMA);
            first.execute("CREATE SINK s FROM m " + into(kafka, "between") + " KEY (k) FORMAT JSON ENVELOPE UPSERT");
            Jobs.Job sink = await(first, "s", j -> j.state.equals("running"));
            for (int i = 1; i <= 5; i++) run(first, model, "INSERT INTO t VALUES (" + i % 2 + ", " + i + ")", Map.of(i % 2, List.of(i)));
            awaitMessages(kafka, "between", model.upserts.size());
            // the next write's transaction commits in Kafka, and its cursor never reaches the relation
            KafkaSinkRunner.betweenCommits = j -> {
                if (j != sink) return;
                stopped.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            run(first, model, "INSERT INTO t VALUES (7, 7)", Map.of(7, List.of(7)));
            assertThat(stopped.await(WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS)).as("the sink wrote to Kafka").isTrue();
            long cursor = sink.cursor;
            assertThat(sink.kafkaUpper).isGreaterThan(cursor);
            // a crash there: the next server finds the older cursor, and Kafka's progress ahead of it
            next = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.wall(), 2);
            assertThat(rows(next, "SELECT position FROM s WHERE part = 'cursor'")).containsExactly(Long.toString(cursor));
            for (int i = 8; i <= 10; i++) run(next, model, "INSERT INTO t VALUES (" + i % 2 + ", " + i + ")", Map.of(i % 2, List.of(i)));
            assertThat(awaitMessages(kafka, "between", model.upserts.size()).keyValues()).containsExactlyElementsOf(model.upserts);
        } finally {
            KafkaSinkRunner.betweenCommits = j -> {};
            release.countDown();
            if (next != null) next.close();
            try {
                first.close();
            } catch (IllegalStateException storesClosed) {
                // taken over by the next server
            }
        }
    }

    @Test
    void aBrokerDownForAWhileLosesNothing() throws Exception {
        try (TestKafka own = TestKafka.start(); Tributary db = Tributary.inMemory()) {
            db.execute(SCHEMA);
            Model model = new Model();
            db.execute("CREATE SINK s FROM m " + into(own, "down") + " KEY (k) FORMAT JSON ENVELOPE UPSERT");
            await(db, "s", j -> j.state.equals("running"));
            for (int i = 1; i <= 10; i++) run(db, model, "INSERT INTO t VALUES (" + i % 4 + ", " + i + ")", Map.of(i % 4, List.of(i)));
            awaitMessages(own, "down", model.upserts.size());
            own.stopBroker();
            for (int i = 11; i <= 30; i++) run(db, model, "INSERT INTO t VALUES (" + i % 4 + ", " + i + ")", Map.of(i % 4, List.of(i)));
            own.restartBroker();
            for (int i = 31; i <= 35; i++) run(db, model, "INSERT INTO t VALUES (" + i % 4 + ", " + i + ")", Map.of(i % 4, List.of(i)));
            assertThat(awaitMessages(own, "down", model.upserts.size()).keyValues()).containsExactlyElementsOf(model.upserts);
        }
    }

    @Test
    void whatASinkRefuses() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute(SCHEMA);
            String sink = "CREATE SINK s FROM m " + into(kafka, "refuse") + " KEY (k) FORMAT JSON ENVELOPE UPSERT";
            fails("25001", () -> db.execute("BEGIN; " + sink));
            db.execute("ROLLBACK");
            fails("0A000", "a sink writes FORMAT JSON or PROTOBUF; FORMAT AVRO is not supported", () -> db.execute("CREATE SINK s FROM m " + into(kafka, "refuse") + " FORMAT AVRO ENVELOPE UPSERT"));
            // an unknown connector is an unknown object, as for sources (INTO KAFKA and INTO HTTP exist)
            fails("42704", () -> db.execute("CREATE SINK s FROM m INTO S3 (PATH 'x') FORMAT JSON ENVELOPE UPSERT"));
            fails("42601", () -> db.execute("CREATE SINK s FROM m " + into(kafka, "refuse") + " FORMAT JSON ENVELOPE APPEND"));
            fails("42601", () -> db.execute("CREATE SINK s FROM m " + into(kafka, "refuse") + " FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SINK s FROM m INTO KAFKA (BROKERS 'x:1', TOPIC 'a', PARTITIONS 3) FORMAT JSON ENVELOPE UPSERT"));
            fails("42601", () -> db.execute("CREATE SINK s FROM m INTO KAFKA (TOPIC 'a') FORMAT JSON ENVELOPE UPSERT"));
            fails("42703", () -> db.execute("CREATE SINK s FROM m " + into(kafka, "refuse") + " KEY (nope) FORMAT JSON ENVELOPE UPSERT"));
            fails("42P01", () -> db.execute("CREATE SINK s FROM nothing " + into(kafka, "refuse") + " FORMAT JSON ENVELOPE UPSERT"));
            db.execute(sink);
            fails("42P07", () -> db.execute(sink));
            fails("42809", () -> db.execute("INSERT INTO s VALUES ('cursor', '1')"));
            fails("2BP01", () -> db.execute("DROP MATERIALIZED VIEW m"));
            fails("42809", () -> db.execute("ALTER SINK m PAUSE"));
            fails("25001", () -> db.execute("BEGIN; DROP SINK s"));
            db.execute("ROLLBACK");
            await(db, "s", j -> j.state.equals("running"));
            // an HTTP sink beside it: one SHOW SINKS, one ALTER SINK, one DROP ... CASCADE
            db.execute("CREATE SINK h FROM m INTO HTTP (URL 'http://127.0.0.1:1/nothing')");
            fails("42P07", () -> db.execute("CREATE SINK s FROM m INTO HTTP (URL 'http://127.0.0.1:1/nothing')"));
            db.execute("ALTER SINK h PAUSE");
            List<String> shown = rows(db, "SHOW SINKS");
            assertThat(shown).hasSize(2);
            assertThat(shown.get(0)).startsWith("h|http|m|http://127.0.0.1:1/nothing|paused|");
            assertThat(shown.get(1)).startsWith("s|kafka|m|refuse|running|UPSERT|");
            // a KEY that is not unique in what the sink writes stops it
            db.execute("CREATE SINK dup FROM t " + into(kafka, "dup") + " KEY (k) FORMAT JSON ENVELOPE UPSERT");
            db.execute("INSERT INTO t VALUES (1, 1), (1, 2)");
            assertThat(await(db, "dup", j -> j.state.startsWith("failed")).state).contains("21000");
            db.execute("DROP SINK s");
            db.execute("DROP TABLE t CASCADE");
            assertThat(rows(db, "SHOW SINKS")).isEmpty();
        }
    }
}
