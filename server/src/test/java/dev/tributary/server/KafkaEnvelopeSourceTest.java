package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.source.SourceRunner;
import dev.tributary.server.source.KafkaTestCase;
import dev.tributary.server.source.TestKafka;
import java.nio.file.Path;
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
 * Keyed Kafka sources against a real broker in the test JVM: ENVELOPE UPSERT (message keys as
 * text or JSON, keys from the value, updates, tombstones, deletes of absent keys, one key several
 * times in a batch), ENVELOPE DEBEZIUM (c, u, d, r events, wrapped and not, a topic read from the
 * middle: updates and deletes of rows never seen), a restart resuming exactly, and the refusals.
 * Every check of contents also checks that no key holds other than one row (a view of the keys
 * whose count is not 1 stays empty), which a retraction of a row never inserted would break.
 */
class KafkaEnvelopeSourceTest extends KafkaTestCase {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;


    private static SourceRunner.Status await(Tributary db, String source, Predicate<SourceRunner.Status> condition) throws InterruptedException {
        return KafkaSourceTest.await(db, source, condition);
    }

    /** Waits until {@code source} has committed every message of {@code sent}. */
    private static SourceRunner.Status awaitAll(Tributary db, String source, List<RecordMetadata> sent) throws InterruptedException {
        Map<String, String> ends = lastOffsets(sent);
        return await(db, source, s -> s.positions().entrySet().containsAll(ends.entrySet()));
    }

    private static Map<String, String> lastOffsets(List<RecordMetadata> sent) {
        Map<String, String> out = new TreeMap<>();
        for (RecordMetadata m : sent) out.merge(String.valueOf(m.partition()), String.valueOf(m.offset()), (a, b) -> Long.parseLong(a) > Long.parseLong(b) ? a : b);
        return out;
    }

    private static String from(String topic) {
        return "FROM KAFKA (BROKERS '" + kafka.bootstrapServers() + "', TOPIC '" + topic + "')";
    }

    private static ProducerRecord<byte[], byte[]> message(String topic, String key, String value) {
        return TestKafka.record(topic, 0, key, value);
    }

    /** The view of keys holding other than one row, which must stay empty. */
    private static void watchKeys(Tributary db, String source) {
        db.execute("CREATE MATERIALIZED VIEW " + source + "_not_one AS SELECT id, count(*) AS n FROM " + source + " GROUP BY id HAVING count(*) <> 1");
    }

    private static void checkKeys(Tributary db, String source) {
        assertThat(rows(db, "SELECT * FROM " + source + "_not_one")).isEmpty();
        assertThat(rows(db, "SELECT count(*) = count(DISTINCT id) FROM " + source)).containsExactly("t");
    }

    @Test
    void upsertKeepsTheLastValueOfEachKeyAndTombstonesDelete() throws Exception {
        String topic = "upserts";
        kafka.createTopic(topic, 1);
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE s (id int PRIMARY KEY, v text) " + from(topic) + " FORMAT JSON ENVELOPE UPSERT");
            db.execute("CREATE SOURCE with_key (id int PRIMARY KEY, v text) " + from(topic) + " FORMAT JSON INCLUDE KEY, OFFSET ENVELOPE UPSERT");
            watchKeys(db, "s");
            db.execute("CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(id) AS ids, string_agg(v, ',' ORDER BY id) AS vs FROM s");
            // produced together, so read as one batch (or a few): the last record of a key wins
            List<RecordMetadata> sent = kafka.produce(List.of(
                    message(topic, "1", "{\"v\": \"a\"}"),
                    message(topic, "2", "{\"v\": \"b\"}"),
                    message(topic, "1", "{\"v\": \"c\"}"),
                    message(topic, "3", null), // a tombstone of a key never seen: nothing
                    message(topic, "2", null), // a tombstone: 2 goes
                    message(topic, "{\"id\": 4}", "{\"v\": \"d\"}"), // a JSON key fills the key columns by name
                    message(topic, null, "{\"id\": 5, \"v\": \"e\"}"), // no message key: the value's
                    message(topic, null, "{\"v\": \"x\"}"), // no key anywhere: a decode error
                    message(topic, "6", "{\"id\": 99, \"v\": \"f\"}"))); // the message key over the value's
            SourceRunner.Status st = awaitAll(db, "s", sent);
            assertThat(st.decodeErrors()).isEqualTo(1);
            assertThat(st.lastError()).contains("key column \"id\" is null");
            assertThat(rows(db, "SELECT id, v FROM s ORDER BY id")).containsExactly("1|c", "4|d", "5|e", "6|f");
            checkKeys(db, "s");

            sent = kafka.produce(List.of(
                    message(topic, "1", null),
                    message(topic, "5", "{\"v\": \"g\"}"),
                    message(topic, "2", "{\"v\": \"h\"}"),
                    message(topic, "1", null), // deleted twice: still no row, not a negative one
                    message(topic, "4", "{\"v\": \"d\"}"))); // the same row again: no change
            awaitAll(db, "s", sent);
            assertThat(rows(db, "SELECT id, v FROM s ORDER BY id")).containsExactly("2|h", "4|d", "5|g", "6|f");
            // INCLUDE still adds the message's metadata, the last message's of each key
            awaitAll(db, "with_key", sent);
            assertThat(rows(db, "SELECT id, v, key, \"offset\" FROM with_key ORDER BY id")).containsExactly("2|h|2|11", "4|d|4|13", "5|g|5|10", "6|f|6|8");
            checkKeys(db, "s");
            assertThat(rows(db, "SELECT * FROM totals")).containsExactly("4|17|h,d,g,f")
                    .isEqualTo(rows(db, "SELECT count(*), sum(id), string_agg(v, ',' ORDER BY id) FROM s"));
            // the primary key is a table's: its index is there, and the key is NOT NULL
            assertThat(rows(db, "SELECT indexname FROM pg_indexes WHERE tablename = 's'")).containsExactly("s_pkey");
            assertThat(rows(db, "SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 's'::regclass AND attnum > 0 ORDER BY attnum"))
                    .containsExactly("id|t", "v|f");
            assertThat(rows(db, "SHOW SOURCES")).filteredOn(r -> r.startsWith("s|")).singleElement().asString().startsWith("s|kafka|upsert|running");

            fails("42809", () -> db.execute("INSERT INTO s VALUES (7, 'x')"));
            fails("42809", () -> db.execute("UPDATE s SET v = 'y' WHERE id = 2"));
            fails("42809", () -> db.execute("DELETE FROM s WHERE id = 2"));
            fails("42809", () -> db.execute("INSERT INTO s VALUES (2, 'x') ON CONFLICT (id) DO UPDATE SET v = excluded.v"));
        }
    }

    @Test
    void debeziumAppliesChangeEventsAndAStreamReadFromTheMiddleNeverGoesNegative() throws Exception {
        String topic = "cdc";
        kafka.createTopic(topic, 1);
        String schema = "{\"type\": \"struct\", \"optional\": false}";
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE cdc (id int PRIMARY KEY, name text, qty int NOT NULL) " + from(topic) + " FORMAT JSON ENVELOPE DEBEZIUM");
            watchKeys(db, "cdc");
            List<RecordMetadata> sent = kafka.produce(List.of(
                    // the topic read from its middle: an update and a delete of rows never inserted here
                    message(topic, "{\"id\": 7}", "{\"before\": {\"id\": 7, \"name\": \"old\", \"qty\": 1}, \"after\": {\"id\": 7, \"name\": \"seven\", \"qty\": 7}, \"op\": \"u\"}"),
                    message(topic, null, "{\"before\": {\"id\": 8, \"name\": \"gone\", \"qty\": 1}, \"after\": null, \"op\": \"d\"}"),
                    message(topic, "{\"id\": 8}", null), // Debezium's tombstone after a delete
                    message(topic, null, "{\"before\": null, \"after\": {\"id\": 1, \"name\": \"one\", \"qty\": 1}, \"op\": \"r\", \"ts_ms\": 1}"),
                    message(topic, null, "{\"schema\": " + schema + ", \"payload\": {\"before\": null, \"after\": {\"id\": 2, \"name\": \"two\", \"qty\": 2}, \"op\": \"c\"}}"),
                    message(topic, "{\"schema\": " + schema + ", \"payload\": {\"id\": 2}}",
                            "{\"schema\": " + schema + ", \"payload\": {\"before\": {\"id\": 2, \"name\": \"two\", \"qty\": 2}, \"after\": {\"id\": 2, \"name\": \"two\", \"qty\": 20}, \"op\": \"u\"}}"),
                    message(topic, null, "{\"before\": {\"id\": 1, \"name\": \"one\", \"qty\": 1}, \"after\": null, \"op\": \"d\"}"),
                    message(topic, "{\"id\": 1}", null),
                    message(topic, null, "{\"before\": null, \"after\": {\"id\": 3, \"name\": \"three\", \"qty\": 3}, \"op\": \"c\"}"),
                    message(topic, null, "{\"before\": {\"id\": 3}, \"after\": {\"id\": 3, \"name\": \"three\", \"qty\": 30}, \"op\": \"u\"}"),
                    message(topic, null, "{\"op\": \"t\"}"), // a truncate: not read (a decode error)
                    message(topic, null, "{\"before\": {\"id\": 9}, \"after\": null, \"op\": \"d\"}"),
                    message(topic, null, "{\"before\": null, \"after\": {\"id\": 4, \"name\": \"four\"}, \"op\": \"c\"}"))); // qty NOT NULL: an error
            SourceRunner.Status st = awaitAll(db, "cdc", sent);
            assertThat(st.decodeErrors()).isEqualTo(2);
            assertThat(rows(db, "SELECT id, name, qty FROM cdc ORDER BY id")).containsExactly("2|two|20", "3|three|30", "7|seven|7");
            assertThat(rows(db, "SELECT count(*), sum(qty) FROM cdc")).containsExactly("3|57");
            checkKeys(db, "cdc");
            assertThat(rows(db, "SHOW SOURCES")).singleElement().asString().startsWith("cdc|kafka|debezium|");
        }
    }

    @Test
    void aRestartResumesAfterTheLastDurableOffsetWithTheUpsertedState() throws Exception {
        String topic = "keyed_restart";
        kafka.createTopic(topic, 2);
        Path data = dir.resolve("data");
        Map<Integer, Integer> model = new TreeMap<>();
        List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>();
        for (int i = 0; i < 3000; i++) first.add(change(topic, i, model));
        List<RecordMetadata> sent = kafka.produce(first);
        try (Tributary db = Tributary.open(data, Clock.manual(1_000), 1)) {
            db.execute("CREATE SOURCE s (id int PRIMARY KEY, v int) " + from(topic) + " FORMAT JSON ENVELOPE UPSERT");
            awaitAll(db, "s", sent);
            assertThat(rows(db, "SELECT id, v FROM s ORDER BY id")).isEqualTo(expected(model));
        }
        // produced while the server was down
        List<ProducerRecord<byte[], byte[]>> later = new ArrayList<>();
        for (int i = 3000; i < 5000; i++) later.add(change(topic, i, model));
        sent = kafka.produce(later);
        try (Tributary db = Tributary.open(data, Clock.manual(0), 1)) {
            watchKeys(db, "s");
            SourceRunner.Status st = awaitAll(db, "s", sent);
            // only what came after the durable offsets was read again
            assertThat(st.rows()).isEqualTo(2000);
            assertThat(rows(db, "SELECT id, v FROM s ORDER BY id")).isEqualTo(expected(model));
            checkKeys(db, "s");
        }
    }

    @Test
    void crashesLoseNoChangeAndRepeatNone() throws Exception {
        String topic = "keyed_crash";
        int partitions = 4, n = 200_000;
        kafka.createTopic(topic, partitions);
        Map<Integer, Integer> model = new TreeMap<>();
        List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int key = i % 1000;
            boolean delete = i % 11 == 0;
            if (delete) model.remove(key);
            else model.put(key, i);
            all.add(TestKafka.record(topic, key % partitions, Integer.toString(key), delete ? null : "{\"v\": " + i + "}"));
        }
        Map<String, String> ends = lastOffsets(kafka.produce(all));
        dev.tributary.storage.MemoryBlob blob = new dev.tributary.storage.MemoryBlob();
        dev.tributary.storage.MemoryConsensus consensus = new dev.tributary.storage.MemoryConsensus();
        Tributary first = Tributary.open(dev.tributary.server.storage.StorageController.open(blob, consensus, m -> {}), Clock.manual(1_000), 2);
        first.execute("CREATE SOURCE s (id int PRIMARY KEY, v int) " + from(topic) + " FORMAT JSON ENVELOPE UPSERT");
        List<Tributary> crashed = new ArrayList<>(List.of(first));
        try {
            // as KafkaSourceTest's crashes: the next server takes the stores over (fencing the
            // last) while its source runs, a commit perhaps in flight
            for (int crash = 1; crash <= 2; crash++) {
                Tributary last = crashed.get(crashed.size() - 1);
                await(last, "s", st -> st.durableRows() >= 40_000);
                Tributary next = Tributary.open(dev.tributary.server.storage.StorageController.open(blob, consensus, m -> {}), Clock.manual(crash * 1_000L), 2);
                last.sourceRunner("s").stop(WAIT_MS);
                crashed.add(next);
            }
            Tributary db = crashed.get(crashed.size() - 1);
            await(db, "s", st -> st.positions().equals(ends));
            assertThat(db.sourceRunner("s").status().rows()).isLessThanOrEqualTo(n - 2 * 40_000);
            assertThat(rows(db, "SELECT id, v FROM s ORDER BY id")).isEqualTo(expected(model));
            checkKeysNow(db, "s");
        } finally {
            for (int k = crashed.size() - 1; k >= 0; k--) {
                try {
                    crashed.get(k).close();
                } catch (IllegalStateException storesClosed) {
                    if (k == crashed.size() - 1) throw storesClosed;
                }
            }
        }
    }

    private static void checkKeysNow(Tributary db, String source) {
        assertThat(rows(db, "SELECT count(*) = count(DISTINCT id), count(*) FILTER (WHERE id IS NULL) FROM " + source)).containsExactly("t|0");
        assertThat(rows(db, "SELECT id, count(*) FROM " + source + " GROUP BY id HAVING count(*) <> 1")).isEmpty();
    }

    /** Message {@code i}: key {@code i % 100} (in partition key % 2, so a key's messages keep their order) set to {@code i}, or every 7th deleted. */
    private static ProducerRecord<byte[], byte[]> change(String topic, int i, Map<Integer, Integer> model) {
        int key = i % 100;
        boolean delete = i % 7 == 0;
        if (delete) model.remove(key);
        else model.put(key, i);
        return TestKafka.record(topic, key % 2, Integer.toString(key), delete ? null : "{\"v\": " + i + "}");
    }

    private static List<String> expected(Map<Integer, Integer> model) {
        List<String> out = new ArrayList<>();
        model.forEach((k, v) -> out.add(k + "|" + v));
        return out;
    }

    @Test
    void keyedEnvelopesAreChecked() {
        try (Tributary db = Tributary.inMemory()) {
            String from = from("nowhere");
            fails("42P16", () -> db.execute("CREATE SOURCE t (id int, v text) " + from + " FORMAT JSON ENVELOPE UPSERT"));
            fails("42P16", () -> db.execute("CREATE SOURCE t (id int, v text) " + from + " FORMAT JSON ENVELOPE DEBEZIUM"));
            fails("42P16", () -> db.execute("CREATE SOURCE t (id int PRIMARY KEY, v text) " + from + " FORMAT JSON"));
            fails("42P16", () -> db.execute("CREATE SOURCE t (id int, v text, PRIMARY KEY (id)) " + from + " FORMAT JSON ENVELOPE NONE"));
            fails("0A000", () -> db.execute("CREATE SOURCE t (id int PRIMARY KEY, v text) " + from + " FORMAT CSV ENVELOPE DEBEZIUM"));
            fails("42703", () -> db.execute("CREATE SOURCE t (id int, v text, PRIMARY KEY (nope)) " + from + " FORMAT JSON ENVELOPE UPSERT"));
            fails("42701", () -> db.execute("CREATE SOURCE t (id int, v text, PRIMARY KEY (id, id)) " + from + " FORMAT JSON ENVELOPE UPSERT"));
            fails("42P16", () -> db.execute("CREATE SOURCE t (id int PRIMARY KEY, v text PRIMARY KEY) " + from + " FORMAT JSON ENVELOPE UPSERT"));
            fails("42601", () -> db.execute("CREATE SOURCE t (id int PRIMARY KEY) " + from + " FORMAT JSON ENVELOPE SIDEWAYS"));
            // CSV takes UPSERT; a key of two columns
            db.execute("CREATE SOURCE c (a int, b text, v text, PRIMARY KEY (a, b)) " + from + " FORMAT CSV ENVELOPE UPSERT");
            assertThat(rows(db, "SELECT indexdef FROM pg_indexes WHERE indexname = 'c_pkey'")).singleElement().asString().contains("(a, b)");
            fails("42809", () -> db.execute("DELETE FROM c"));
            db.execute("DROP SOURCE c");
            assertThat(rows(db, "SELECT count(*) FROM pg_indexes WHERE indexname = 'c_pkey'")).containsExactly("0");
        }
    }
}
