package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.source.SourceRunner;
import dev.tributary.server.source.KafkaTestCase;
import dev.tributary.server.source.TestKafka;
import dev.tributary.server.storage.StorageController;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source FROM KAFKA against a real broker in the test JVM: messages become rows with their
 * metadata, a view over the source follows it, malformed messages are counted and skipped or
 * stop the source, and across a restart and crashes every message is in the source exactly once
 * (count, distinct count and sum of ids equal what was produced).
 */
class KafkaSourceTest extends KafkaTestCase {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;


    /** Waits (at most a minute) for source {@code source} of {@code db} to meet {@code condition}; fails the test if it does not. */
    static SourceRunner.Status await(Tributary db, String source, Predicate<SourceRunner.Status> condition) throws InterruptedException {
        SourceRunner r = db.sourceRunner(source);
        assertThat(r).as("source " + source + " runs").isNotNull();
        boolean met = r.awaitStatus(condition, WAIT_MS);
        assertThat(met).as("source " + source + ": " + r.status()).isTrue();
        return r.status();
    }

    private static String from(String topic) {
        return "FROM KAFKA (BROKERS '" + kafka.bootstrapServers() + "', TOPIC '" + topic + "')";
    }

    /** Orders {@code first .. first + n - 1} as JSON, keyed {@code k<id>}, id modulo the partitions picking the partition. */
    private static List<RecordMetadata> orders(String topic, int partitions, long first, long n) throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long id = first; id < first + n; id++) {
            records.add(TestKafka.record(topic, (int) (id % partitions), "k" + id, "{\"id\": " + id + ", \"amount\": " + id % 10 + "}"));
        }
        return kafka.produce(records);
    }

    /** Each partition's last offset among {@code sent}, as the progress table keeps it. */
    private static Map<String, String> lastOffsets(List<RecordMetadata> sent) {
        Map<String, String> out = new TreeMap<>();
        for (RecordMetadata m : sent) out.merge(String.valueOf(m.partition()), String.valueOf(m.offset()), (a, b) -> Long.parseLong(a) > Long.parseLong(b) ? a : b);
        return out;
    }

    @Test
    void messagesBecomeRowsWithTheirMetadataAndAViewFollows() throws Exception {
        kafka.createTopic("orders", 3);
        List<RecordMetadata> sent = new ArrayList<>(orders("orders", 3, 0, 300));
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE orders (id bigint NOT NULL, amount int) " + from("orders") + " FORMAT JSON INCLUDE KEY, PARTITION, OFFSET, TIMESTAMP");
            db.execute("CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(amount) AS s, count(DISTINCT key) AS keys FROM orders");
            await(db, "orders", s -> s.rows() == 300);
            assertThat(rows(db, "SELECT * FROM totals")).containsExactly("300|1350|300");
            // id 7: partition 7 % 3, the third message there
            assertThat(rows(db, "SELECT key, partition, \"offset\", pg_typeof(key), pg_typeof(partition), pg_typeof(\"offset\"), pg_typeof(timestamp),"
                    + " timestamp > now() - interval '1 hour' FROM orders WHERE id = 7"))
                    .containsExactly("k7|1|2|text|integer|bigint|timestamp with time zone|t");

            sent.addAll(orders("orders", 3, 300, 200));
            await(db, "orders", s -> s.rows() == 500);
            assertThat(rows(db, "SELECT * FROM totals")).containsExactly("500|2250|500");
            assertThat(rows(db, "SELECT * FROM totals")).isEqualTo(rows(db, "SELECT count(*), sum(amount), count(DISTINCT key) FROM orders"));
            List<String> progress = new ArrayList<>();
            lastOffsets(sent).forEach((part, position) -> progress.add(part + "|" + position));
            assertThat(rows(db, "SELECT part, position FROM orders_progress ORDER BY part")).isEqualTo(progress);
            assertThat(rows(db, "SHOW SOURCES")).singleElement().asString().startsWith("orders|kafka|none|running").contains("|500|0|");

            fails("42809", () -> db.execute("INSERT INTO orders VALUES (1, 1, 'k', 0, 0, now())"));
        }
    }

    @Test
    void everyFormatReadsAMessageAsOneRecordAndLatestStartsAtTheEnd() throws Exception {
        kafka.createTopic("formats", 1);
        kafka.produce(List.of(TestKafka.record("formats", 0, "k1", "1,one"), TestKafka.record("formats", 0, "k2", "2,\"t,wo\"")));
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE t_text " + from("formats") + " FORMAT TEXT INCLUDE KEY");
            db.execute("CREATE SOURCE t_csv (id int, name text) " + from("formats") + " FORMAT CSV INCLUDE OFFSET");
            db.execute("CREATE SOURCE t_bytes " + from("formats") + " FORMAT BYTES INCLUDE KEY");
            db.execute("CREATE SOURCE t_latest FROM KAFKA (BROKERS '" + kafka.bootstrapServers() + "', TOPIC 'formats', START OFFSET 'latest') FORMAT TEXT");
            for (String s : List.of("t_text", "t_csv", "t_bytes")) await(db, s, st -> st.rows() == 2);
            assertThat(rows(db, "SELECT text, key FROM t_text ORDER BY key")).containsExactly("1,one|k1", "2,\"t,wo\"|k2");
            assertThat(rows(db, "SELECT id, name, \"offset\" FROM t_csv ORDER BY id")).containsExactly("1|one|0", "2|t,wo|1");
            assertThat(rows(db, "SELECT data, key FROM t_bytes ORDER BY key")).containsExactly("\\x312c6f6e65|\\x6b31", "\\x322c22742c776f22|\\x6b32");
            // 'latest': the end (offset 1 the last message) made durable before any message
            await(db, "t_latest", st -> st.positions().equals(Map.of("0", "1")));
            assertThat(rows(db, "SELECT part, position FROM t_latest_progress")).containsExactly("0|1");
            kafka.produce("formats", 0, "3,three");
            await(db, "t_latest", st -> st.rows() == 1);
            assertThat(rows(db, "SELECT * FROM t_latest")).containsExactly("3,three");
        }
    }

    @Test
    void malformedMessagesAreCountedAndSkippedOrStopTheSource() throws Exception {
        kafka.createTopic("mixed", 1);
        kafka.produce("mixed", 0, "{\"id\": 1}", "{\"id\": ", "{\"id\": \"three\"}", "{\"id\": 4}");
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE skips (id int) " + from("mixed") + " FORMAT JSON");
            db.execute("CREATE SOURCE stops (id int) " + from("mixed") + " FORMAT JSON ON DECODE ERROR STOP");
            SourceRunner.Status skipped = await(db, "skips", s -> s.rows() == 2 && "3".equals(s.positions().get("0")));
            assertThat(skipped.decodeErrors()).isEqualTo(2);
            assertThat(skipped.lastErrorPosition()).isEqualTo("partition 0 offset 2");
            assertThat(skipped.lastError()).contains("three");
            assertThat(rows(db, "SELECT id FROM skips ORDER BY id")).containsExactly("1", "4");

            SourceRunner.Status stopped = await(db, "stops", s -> s.state().startsWith("stopped"));
            assertThat(stopped.state()).startsWith("stopped: decode error at partition 0 offset 1: ");
            // what came before the malformed message is in, and the source stopped just before it
            assertThat(rows(db, "SELECT id FROM stops")).containsExactly("1");
            assertThat(rows(db, "SELECT part, position FROM stops_progress")).containsExactly("0|0");
        }
    }

    @Test
    void optionsAreCheckedWhenTheSourceIsMade() {
        try (Tributary db = Tributary.inMemory()) {
            fails("42601", () -> db.execute("CREATE SOURCE t FROM KAFKA (BROKERS 'localhost:9092') FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM KAFKA (TOPIC 't') FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM KAFKA (BROKERS 'b:1', TOPIC 't', PARTITIONS 3) FORMAT JSON"));
            fails("22023", () -> db.execute("CREATE SOURCE t FROM KAFKA (BROKERS 'b:1', TOPIC 't', START OFFSET 'middle') FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT JSON INCLUDE HEADERS"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT JSON INCLUDE KEY, KEY"));
            fails("42701", () -> db.execute("CREATE SOURCE t (\"offset\" bigint) FROM KAFKA (BROKERS 'b:1', TOPIC 't') FORMAT JSON INCLUDE OFFSET"));
            fails("0A000", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH '/tmp') FORMAT JSON INCLUDE OFFSET"));
            // FORMAT BYTES keeps the key as bytes too
            db.execute("CREATE SOURCE raw FROM KAFKA (BROKERS '127.0.0.1:1', TOPIC 't') FORMAT BYTES INCLUDE KEY");
            assertThat(rows(db, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'raw' ORDER BY ordinal_position"))
                    .containsExactly("data|bytea", "key|bytea");
        }
    }

    @Test
    void unreachableBrokersAreAStateAndHoldUpNeitherCreateNorShutdown() throws Exception {
        long t0 = System.nanoTime();
        Tributary db = Tributary.inMemory();
        try {
            db.execute("CREATE SOURCE nowhere FROM KAFKA (BROKERS '127.0.0.1:1', TOPIC 'nothing') FORMAT TEXT");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            SourceRunner.Status s = await(db, "nowhere", st -> st.state().contains("does not answer"));
            assertThat(s.state()).startsWith("waiting: Kafka at 127.0.0.1:1 does not answer");
        } finally {
            long t1 = System.nanoTime();
            db.close();
            assertThat(Duration.ofNanos(System.nanoTime() - t1)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aBrokerOutageIsRiddenOut() throws Exception {
        // a broker of its own, to stop and start again
        try (TestKafka own = TestKafka.start(); Tributary db = Tributary.inMemory()) {
            own.createTopic("outage", 2);
            List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>();
            for (long id = 0; id < 1000; id++) first.add(TestKafka.record("outage", (int) (id % 2), null, "{\"id\": " + id + "}"));
            own.produce(first);
            db.execute("CREATE SOURCE big (id bigint) FROM KAFKA (BROKERS '" + own.bootstrapServers() + "', TOPIC 'outage') FORMAT JSON");
            await(db, "big", s -> s.rows() == 1000);

            own.stopBroker();
            await(db, "big", s -> s.state().contains("does not answer"));
            assertThat(rows(db, "SELECT count(*) FROM big")).containsExactly("1000");
            own.restartBroker();
            List<ProducerRecord<byte[], byte[]>> second = new ArrayList<>();
            for (long id = 1000; id < 2000; id++) second.add(TestKafka.record("outage", (int) (id % 2), null, "{\"id\": " + id + "}"));
            own.produce(second);
            SourceRunner.Status s = await(db, "big", st -> st.rows() == 2000 && st.state().startsWith("running"));
            assertThat(s.positions()).isEqualTo(Map.of("0", "999", "1", "999"));
            checkExactlyOnce(db, 2000);
        }
    }

    private static void checkExactlyOnce(Tributary db, long n) {
        assertThat(rows(db, "SELECT count(*), count(DISTINCT id), sum(id) FROM big")).containsExactly(n + "|" + n + "|" + n * (n - 1) / 2);
    }

    @Test
    void aRestartResumesAfterTheLastDurableOffset() throws Exception {
        kafka.createTopic("restart", 2);
        Path data = dir.resolve("data");
        orders("restart", 2, 0, 3000);
        try (Tributary db = Tributary.open(data, Clock.manual(1_000), 1)) {
            db.execute("CREATE SOURCE big (id bigint, amount int) " + from("restart") + " FORMAT JSON");
            await(db, "big", s -> s.rows() == 3000);
            checkExactlyOnce(db, 3000);
        }
        // messages produced while the server was down
        List<RecordMetadata> later = orders("restart", 2, 3000, 2000);
        try (Tributary db = Tributary.open(data, Clock.manual(0), 1)) {
            await(db, "big", s -> s.rows() == 2000);
            checkExactlyOnce(db, 5000);
            assertThat(db.sourceRunner("big").status().positions()).isEqualTo(lastOffsets(later));
        }
    }

    @Test
    void aCrashLosesNothingAndRepeatsNothing() throws Exception {
        int partitions = 4;
        long n = 400_000; // commits of at most 65,536 rows: crashes come between and inside them
        kafka.createTopic("crash", partitions);
        Map<String, String> ends = lastOffsets(orders("crash", partitions, 0, n));
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Tributary first = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(1_000), 2);
        first.execute("CREATE SOURCE big (id bigint, amount int) " + from("crash") + " FORMAT JSON");
        List<Tributary> crashed = new ArrayList<>(List.of(first));
        try {
            // each server is never closed before the next opens the same stores (which fences
            // it), as far as the stores know a crash; its source's thread ends as a killed
            // process's would, a commit perhaps in flight
            for (int crash = 1; crash <= 3; crash++) {
                Tributary last = crashed.get(crashed.size() - 1);
                await(last, "big", s -> s.durableRows() >= 50_000);
                Tributary next = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(crash * 1_000L), 2);
                last.sourceRunner("big").stop(WAIT_MS);
                crashed.add(next);
            }
            Tributary db = crashed.get(crashed.size() - 1);
            await(db, "big", s -> s.positions().equals(ends));
            // the last server resumed where the crashed ones' durable commits ended
            assertThat(db.sourceRunner("big").status().rows()).isLessThanOrEqualTo(n - 3 * 50_000);
            checkExactlyOnce(db, n);
            assertThat(rows(db, "SELECT count(*) FROM big_progress")).containsExactly(String.valueOf(partitions));
        } finally {
            // the newest first: the older ones' stores were taken over, so they write nothing
            // more; the newest closes the in-memory stores they share, and an older one's close
            // may then find them closed (as a killed process would have written nothing either)
            for (int k = crashed.size() - 1; k >= 0; k--) {
                try {
                    crashed.get(k).close();
                } catch (IllegalStateException storesClosed) {
                    if (k == crashed.size() - 1) throw storesClosed;
                }
            }
        }
    }

    /**
     * A cursor over a Kafka source is its partitions' offsets: a STREAM FROM CURSOR of the
     * positions the source's progress table held at a commit gets exactly the messages after them
     * (those committed since, not one before, none twice); positions it never held at a commit, or
     * that do not parse, are 22023.
     */
    @Test
    void aCursorOfOffsetsResumesExactlyAfterThem() throws Exception {
        kafka.createTopic("cursor", 2);
        try (Tributary db = Tributary.inMemory(Clock.wall(), 2)) {
            db.execute("CREATE SOURCE c (id bigint, amount int) " + from("cursor") + " FORMAT JSON");
            db.execute("ALTER TABLE c SET (RETAIN HISTORY FOR '1 hour')");
            orders("cursor", 2, 0, 100);
            await(db, "c", st -> st.rows() == 100 && st.durableRows() == 100);
            String cursor = String.join(", ", rows(db, "SELECT part || '=' || position FROM c_progress ORDER BY part"));
            orders("cursor", 2, 100, 50);
            await(db, "c", st -> st.rows() == 150 && st.durableRows() == 150);
            java.util.concurrent.LinkedBlockingQueue<Long> ids = new java.util.concurrent.LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT id FROM c STREAM FROM CURSOR '" + cursor + "')", batch -> {
                for (Object[] r : batch.rows()) for (long n = (Long) r[1]; n > 0; n--) ids.add((Long) r[2]);
            })) {
                List<Long> got = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    Long id = ids.poll(WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                    assertThat(id).as("the 50 messages after " + cursor + ", got " + got).isNotNull();
                    got.add(id);
                }
                orders("cursor", 2, 150, 1);
                got.add(ids.poll(WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS));
                assertThat(got).containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(100, 151).boxed().toList());
            }
            // the latest commit's positions: nothing before them comes again, the next message does
            await(db, "c", st -> st.durableRows() == 151);
            String now = String.join(",", rows(db, "SELECT part || '=' || position FROM c_progress ORDER BY part"));
            ids.clear();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT id FROM c STREAM FROM CURSOR '" + now + "')", batch -> {
                for (Object[] r : batch.rows()) for (long n = (Long) r[1]; n > 0; n--) ids.add((Long) r[2]);
            })) {
                orders("cursor", 2, 151, 1);
                assertThat(ids.poll(WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(151L);
            }
            fails("22023", () -> db.subscribe("SUBSCRIBE (SELECT id FROM c STREAM FROM CURSOR '0=1000000, 1=3')", batch -> { }).close());
            fails("22023", () -> db.subscribe("SUBSCRIBE (SELECT id FROM c STREAM FROM CURSOR '0=, 1=3')", batch -> { }).close());
            fails("22023", () -> db.subscribe("SUBSCRIBE (SELECT id FROM c STREAM FROM CURSOR '0=1, 0=2')", batch -> { }).close());
        }
    }
}
