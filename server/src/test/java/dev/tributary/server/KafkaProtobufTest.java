package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.tributary.server.protobuf.OrderSchema;
import dev.tributary.server.source.SourceRunner;
import dev.tributary.server.source.KafkaTestCase;
import dev.tributary.server.source.TestKafka;
import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FORMAT PROTOBUF against a real broker in the test JVM: a source reads shop.Order messages
 * (every scalar type, an enum, a nested message, a repeated field, a map, a Timestamp) value by
 * value, counts and skips or stops at a message that does not parse, and decodes after a restart
 * with its schema file gone (the catalog keeps the schema); a sink writes a view's rows as
 * messages and its deletes as tombstones, read back with DynamicMessage; and CREATE refuses what
 * it cannot do with the SQLSTATE of each case.
 */
class KafkaProtobufTest extends KafkaTestCase {
    private static final Descriptor ORDER = OrderSchema.orderDescriptor();

    @TempDir
    Path dir;


    private static SourceRunner.Status await(Tributary db, String source, Predicate<SourceRunner.Status> condition) throws InterruptedException {
        return KafkaSourceTest.await(db, source, condition);
    }

    private static Jobs.Job awaitSink(Tributary db, String sink, Predicate<Jobs.Job> condition) throws InterruptedException {
        return KafkaSinkTest.await(db, sink, condition);
    }

    private static SinkMessages awaitMessages(String topic, int n) {
        return KafkaSinkTest.awaitMessages(kafka, topic, n);
    }

    private static String from(String topic) {
        return "FROM KAFKA (BROKERS '" + kafka.bootstrapServers() + "', TOPIC '" + topic + "')";
    }

    private static String into(String topic) {
        return "INTO KAFKA (BROKERS '" + kafka.bootstrapServers() + "', TOPIC '" + topic + "')";
    }

    private String protobuf(Path schema) {
        return "FORMAT PROTOBUF (MESSAGE 'shop.Order', SCHEMA FILE '" + schema + "')";
    }

    private static void produce(String topic, byte[]... values) throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (byte[] v : values) records.add(new ProducerRecord<>(topic, 0, null, v));
        kafka.produce(records);
    }

    private static byte[] order(int i32, String name) {
        return DynamicMessage.newBuilder(ORDER).setField(ORDER.findFieldByName("i32"), i32).setField(ORDER.findFieldByName("name"), name).build().toByteArray();
    }

    @Test
    void aSourceReadsEveryFieldValueByValue() throws Exception {
        kafka.createTopic("pb_all", 1);
        produce("pb_all", OrderSchema.fullOrder().toByteArray(), new byte[0]);
        Path schema = OrderSchema.write(dir.resolve("orders.desc"));
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE orders " + from("pb_all") + " " + protobuf(schema) + " INCLUDE OFFSET");
            db.execute("CREATE SOURCE narrow (name varchar(10), i32 bigint, at timestamptz, note text) " + from("pb_all") + " " + protobuf(schema));
            await(db, "orders", s -> s.rows() == 2);
            await(db, "narrow", s -> s.rows() == 2);
            assertThat(rows(db, "SELECT * FROM orders ORDER BY \"offset\"")).containsExactly(
                    "-7|-8|9|-9223372036854775808|-11|12|4294967295|4294967294|18446744073709551615|9223372036854775808|1.5|-2.25|t|é\"x|\\x00ff|SHIPPED"
                            + "|{\"qty\": 3, \"sku\": \"a-1\"}|[\"1\", \"-2\"]|{\"x\": 4}|2023-11-14 22:13:20.123456+00|n|0",
                    // an empty message: proto3's defaults, NULL where a field has presence
                    "0|0|0|0|0|0|0|0|0|0|0|0|f||\\x|NEW|NULL|[]|{}|NULL|NULL|1");
            assertThat(rows(db, "SELECT pg_typeof(i32), pg_typeof(u32), pg_typeof(u64), pg_typeof(fl), pg_typeof(db), pg_typeof(data), pg_typeof(item), pg_typeof(at)"
                    + " FROM orders LIMIT 1")).containsExactly("integer|bigint|numeric|real|double precision|bytea|jsonb|timestamp with time zone");
            assertThat(rows(db, "SELECT item->>'sku', (tags->>1)::bigint, counts->'x' FROM orders WHERE ok")).containsExactly("a-1|-2|4");
            assertThat(rows(db, "SELECT name, i32, at, note FROM narrow ORDER BY i32")).containsExactly("é\"x|-7|2023-11-14 22:13:20.123456+00|n", "|0|NULL|NULL");
            assertThat(rows(db, "SHOW SOURCES")).hasSize(2).allSatisfy(r -> assertThat(r).contains("|kafka|none|running").contains("|2|0|"));
        }
    }

    @Test
    void malformedMessagesAreCountedAndSkippedOrStopTheSource() throws Exception {
        kafka.createTopic("pb_mixed", 1);
        // field 1 with wire type 7, which does not exist; and a length that runs past the end
        produce("pb_mixed", order(1, "a"), new byte[] {0x0f, 0x00}, new byte[] {0x72, 0x05, 'x'}, order(4, "d"));
        Path schema = OrderSchema.write(dir.resolve("orders.desc"));
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE skips (i32 int, name text) " + from("pb_mixed") + " " + protobuf(schema));
            db.execute("CREATE SOURCE stops (i32 int, name text) " + from("pb_mixed") + " " + protobuf(schema) + " ON DECODE ERROR STOP");
            SourceRunner.Status skipped = await(db, "skips", s -> s.rows() == 2 && "3".equals(s.positions().get("0")));
            assertThat(skipped.decodeErrors()).isEqualTo(2);
            assertThat(skipped.lastErrorPosition()).isEqualTo("partition 0 offset 2");
            assertThat(skipped.lastError()).contains("not a protobuf message shop.Order");
            assertThat(rows(db, "SELECT i32, name FROM skips ORDER BY i32")).containsExactly("1|a", "4|d");
            SourceRunner.Status stopped = await(db, "stops", s -> s.state().startsWith("stopped"));
            assertThat(stopped.state()).startsWith("stopped: decode error at partition 0 offset 1: not a protobuf message shop.Order");
            assertThat(rows(db, "SELECT i32 FROM stops")).containsExactly("1");
        }
    }

    @Test
    void aRestartReadsAndWritesWithTheSchemaFileGone() throws Exception {
        kafka.createTopic("pb_restart", 1);
        Path data = dir.resolve("data");
        Path schema = OrderSchema.write(dir.resolve("orders.desc"));
        produce("pb_restart", order(1, "one"));
        try (Tributary db = Tributary.open(data)) {
            db.execute("CREATE SOURCE orders (i32 int, name text) " + from("pb_restart") + " " + protobuf(schema));
            db.execute("CREATE MATERIALIZED VIEW names AS SELECT i32, upper(name) AS name FROM orders");
            db.execute("CREATE SINK out FROM names " + into("pb_restart_out") + " KEY (i32) " + protobuf(schema) + " ENVELOPE UPSERT");
            await(db, "orders", s -> s.rows() == 1);
            awaitMessages("pb_restart_out", 1);
        }
        Files.delete(schema);
        produce("pb_restart", order(2, "two"));
        try (Tributary db = Tributary.open(data)) {
            await(db, "orders", s -> "1".equals(s.positions().get("0")));
            assertThat(rows(db, "SELECT i32, name FROM orders ORDER BY i32")).containsExactly("1|one", "2|two");
            awaitSink(db, "out", j -> j.state.equals("running"));
            SinkMessages out = awaitMessages("pb_restart_out", 2);
            assertThat(out.messages().stream().map(m -> m.key() + " -> " + fields(m.valueBytes())).toList())
                    .containsExactly("{\"i32\":1} -> i32=1 name=ONE", "{\"i32\":2} -> i32=2 name=TWO");
        }
    }

    /** The fields a message of shop.Order holds (set ones, by number), as {@code name=value}. */
    private static String fields(byte[] value) {
        if (value == null) return "null";
        try {
            DynamicMessage m = DynamicMessage.parseFrom(ORDER, value);
            List<String> out = new ArrayList<>();
            m.getAllFields().forEach((f, v) -> out.add(f.getName() + "=" + (v instanceof Message x ? x.toString().replace('\n', ' ').trim()
                    : v instanceof com.google.protobuf.Descriptors.EnumValueDescriptor e ? e.getName() : v)));
            return String.join(" ", out);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aSinkWritesRowsAsMessagesAndDeletesAsTombstones() throws Exception {
        Path schema = OrderSchema.write(dir.resolve("orders.desc"));
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (id int, name text, amount bigint, at timestamptz, status text, tags jsonb, total numeric)");
            db.execute("INSERT INTO t VALUES (1, 'a', 10, '2024-01-02 03:04:05.678901+00', 'PAID', '[\"1\", 2]', 18446744073709551615)");
            db.execute("CREATE SINK s FROM (SELECT id AS i32, name, amount AS i64, at, status, tags, total AS u64 FROM t) " + into("pb_sink") + " KEY (i32) "
                    + protobuf(schema) + " ENVELOPE UPSERT");
            awaitSink(db, "s", j -> j.state.equals("running"));
            db.execute("INSERT INTO t VALUES (2, NULL, -5, NULL, 'NEW', NULL, 0)");
            db.execute("UPDATE t SET amount = 11, status = 'SHIPPED' WHERE id = 1");
            db.execute("DELETE FROM t WHERE id = 2");
            SinkMessages read = awaitMessages("pb_sink", 4);
            // NULL and a proto3 default leave a field unset: a message holds the rest only (u64's
            // 2^64 - 1 is Java's long -1)
            assertThat(read.messages().stream().map(m -> m.key() + " -> " + fields(m.valueBytes())).toList()).containsExactly(
                    "{\"i32\":1} -> i32=1 i64=10 u64=-1 name=a status=PAID tags=[1, 2] at=seconds: 1704164645 nanos: 678901000",
                    "{\"i32\":2} -> i32=2 i64=-5",
                    "{\"i32\":1} -> i32=1 i64=11 u64=-1 name=a status=SHIPPED tags=[1, 2] at=seconds: 1704164645 nanos: 678901000",
                    "{\"i32\":2} -> null");
            assertThat(rows(db, "SHOW SINKS")).singleElement().asString().startsWith("s|kafka|").contains("|running|UPSERT|");
        }
    }

    /**
     * ENVELOPE DEBEZIUM in protobuf: the MESSAGE is the envelope, whose before and after are the
     * row's message and op says c, u or d; an update of a key is one message with both.
     */
    @Test
    void aDebeziumSinkWritesBeforeAndAfterAsMessages() throws Exception {
        Path schema = OrderSchema.write(dir.resolve("orders.desc"));
        com.google.protobuf.Descriptors.Descriptor change = ORDER.getFile().findMessageTypeByName("OrderChange");
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (id int, name text)");
            db.execute("INSERT INTO t VALUES (1, 'a')");
            db.execute("CREATE SINK s FROM (SELECT id AS i32, name FROM t) " + into("pb_debezium") + " KEY (i32) "
                    + "FORMAT PROTOBUF (MESSAGE 'shop.OrderChange', SCHEMA FILE '" + schema + "') ENVELOPE DEBEZIUM");
            awaitSink(db, "s", j -> j.state.equals("running"));
            db.execute("UPDATE t SET name = 'b' WHERE id = 1");
            db.execute("DELETE FROM t WHERE id = 1");
            SinkMessages read = awaitMessages("pb_debezium", 3);
            List<String> got = new ArrayList<>();
            for (var m : read.messages()) {
                DynamicMessage c = DynamicMessage.parseFrom(change, m.valueBytes());
                java.util.function.Function<String, String> side = f -> c.hasField(change.findFieldByName(f))
                        ? fields(((DynamicMessage) c.getField(change.findFieldByName(f))).toByteArray()) : "-";
                got.add(m.key() + " " + c.getField(change.findFieldByName("op")) + " before[" + side.apply("before") + "] after[" + side.apply("after") + "]");
            }
            assertThat(got).containsExactly(
                    "{\"i32\":1} c before[-] after[i32=1 name=a]",
                    "{\"i32\":1} u before[i32=1 name=a] after[i32=1 name=b]",
                    "{\"i32\":1} d before[i32=1 name=b] after[-]");
        }
    }

    @Test
    void whatCreateRefuses() throws Exception {
        Path schema = OrderSchema.write(dir.resolve("orders.desc"));
        Path text = Files.writeString(dir.resolve("orders.proto"), "syntax = \"proto3\";\npackage shop;\nmessage Order { int32 i32 = 1; }\n");
        try (Tributary db = Tributary.inMemory()) {
            String source = "CREATE SOURCE s " + from("pb_refuse") + " ";
            fails("58P01", () -> db.execute(source + protobuf(dir.resolve("missing.desc"))));
            fails("22023", () -> db.execute(source + protobuf(text)));
            SqlException notHeld = error(db, source + "FORMAT PROTOBUF (MESSAGE 'shop.Ordr', SCHEMA FILE '" + schema + "')");
            assertThat(notHeld.sqlState()).isEqualTo("22023");
            assertThat(notHeld.hint()).contains("shop.Item, shop.Order");
            fails("42601", () -> db.execute(source + "FORMAT PROTOBUF (SCHEMA FILE '" + schema + "')"));
            fails("42601", () -> db.execute(source + "FORMAT PROTOBUF (MESSAGE 'shop.Order')"));
            fails("42703", () -> db.execute("CREATE SOURCE s (nope int) " + from("pb_refuse") + " " + protobuf(schema)));
            fails("42804", () -> db.execute("CREATE SOURCE s (i64 int) " + from("pb_refuse") + " " + protobuf(schema)));
            fails("0A000", () -> db.execute("CREATE SOURCE s FROM DIRECTORY (PATH '" + dir + "') " + protobuf(schema)));
            fails("0A000", () -> db.execute("CREATE SOURCE s " + from("pb_refuse") + " FORMAT AVRO"));

            db.execute("CREATE TABLE t (i32 int, name text, amount int)");
            String sink = "CREATE SINK k FROM t " + into("pb_refuse") + " ";
            fails("42703", () -> db.execute(sink + protobuf(schema) + " ENVELOPE UPSERT"));
            fails("42804", () -> db.execute("CREATE SINK k FROM (SELECT name AS i32 FROM t) " + into("pb_refuse") + " " + protobuf(schema) + " ENVELOPE UPSERT"));
            // DEBEZIUM's message is the envelope (before, after): an order is not one
            fails("42P16", () -> db.execute("CREATE SINK k FROM (SELECT i32 FROM t) " + into("pb_refuse") + " " + protobuf(schema) + " ENVELOPE DEBEZIUM"));
            fails("42601", () -> db.execute(sink + "FORMAT JSON (MESSAGE 'x') ENVELOPE UPSERT"));
            fails("58P01", () -> db.execute("CREATE SINK k FROM (SELECT i32 FROM t) " + into("pb_refuse") + " " + protobuf(dir.resolve("gone.desc")) + " ENVELOPE UPSERT"));
            assertThat(rows(db, "SHOW SOURCES")).isEmpty();
            assertThat(rows(db, "SHOW SINKS")).isEmpty();

            // reading the server's file is a superuser's; the set's bytes given inline are anyone's
            db.execute("CREATE ROLE bob LOGIN; GRANT CREATE ON SCHEMA public TO bob; GRANT SELECT ON t TO bob; GRANT tributary_connect TO bob");
            Tributary.Connection bob = db.session();
            bob.execute("SET SESSION AUTHORIZATION bob");
            fails("42501", () -> bob.execute(source + protobuf(schema)));
            fails("42501", () -> bob.execute("CREATE SINK k FROM (SELECT i32 FROM t) " + into("pb_refuse") + " " + protobuf(schema) + " ENVELOPE UPSERT"));
            bob.execute(source + "FORMAT PROTOBUF (MESSAGE 'shop.Order', SCHEMA '" + OrderSchema.schemaHex() + "')");
            assertThat(rows(db, "SELECT count(*) FROM s")).containsExactly("0");
        }
    }

    private static SqlException error(Tributary db, String sql) {
        try {
            db.execute(sql);
        } catch (SqlException e) {
            return e;
        }
        throw new AssertionError(sql + " succeeded");
    }
}
