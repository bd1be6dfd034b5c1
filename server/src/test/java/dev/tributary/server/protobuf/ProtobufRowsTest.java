package dev.tributary.server.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import dev.tributary.server.source.DecodeException;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement.SourceOption;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rows as shop.Order messages both ways, without a server: each field's SQL type and value,
 * proto3's defaults and presence, columns by name, the CREATE-time refusals (42703, 42804,
 * 22023, 42601) and the values a sink cannot write (22003, 22008, 22P02).
 */
class ProtobufRowsTest {
    private static final Descriptor ORDER = OrderSchema.orderDescriptor();

    private static List<SourceOption> options(String message, byte[] set) {
        return List.of(new SourceOption(1, "MESSAGE", message), new SourceOption(2, "SCHEMA", "\\x" + HexFormat.of().formatHex(set)));
    }

    private static Descriptor schema(String message, byte[] set) {
        return ProtobufSchema.of(options(message, set), 0).message();
    }

    private static List<String> text(List<Column> columns, Object[] row) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < row.length; i++) out.add(columns.get(i).name() + "=" + (row[i] == null ? "NULL" : Values.toText(row[i], columns.get(i).type())));
        return out;
    }

    @Test
    void everyFieldIsAColumnOfItsOwnTypeAndValue() throws Exception {
        List<Column> columns = ProtobufRows.columnsOf(schema(OrderSchema.ORDER, OrderSchema.set().toByteArray()));
        assertThat(columns.stream().map(c -> c.name() + " " + c.type()).toList()).containsExactly(
                "i32 integer", "s32 integer", "sf32 integer", "i64 bigint", "s64 bigint", "sf64 bigint", "u32 bigint", "f32 bigint",
                "u64 numeric", "f64 numeric", "fl real", "db double precision", "ok boolean", "name text", "data bytea", "status text",
                "item jsonb", "tags jsonb", "counts jsonb", "at timestamp with time zone", "note text");
        ProtobufRows rows = ProtobufRows.forSource(ORDER, columns, 0);
        byte[] bytes = OrderSchema.fullOrder().toByteArray();
        assertThat(text(columns, rows.decode(bytes, 0, bytes.length))).containsExactly(
                "i32=-7", "s32=-8", "sf32=9", "i64=-9223372036854775808", "s64=-11", "sf64=12", "u32=4294967295", "f32=4294967294",
                "u64=18446744073709551615", "f64=9223372036854775808", "fl=1.5", "db=-2.25", "ok=t", "name=é\"x", "data=\\x00ff", "status=SHIPPED",
                "item={\"qty\": 3, \"sku\": \"a-1\"}", "tags=[\"1\", \"-2\"]", "counts={\"x\": 4}", "at=2023-11-14 22:13:20.123456+00", "note=n");
    }

    @Test
    void anAbsentFieldIsItsDefaultOrNullWhenItHasPresence() throws Exception {
        List<Column> columns = ProtobufRows.columnsOf(ORDER);
        ProtobufRows rows = ProtobufRows.forSource(ORDER, columns, 0);
        assertThat(text(columns, rows.decode(new byte[0], 0, 0))).containsExactly(
                "i32=0", "s32=0", "sf32=0", "i64=0", "s64=0", "sf64=0", "u32=0", "f32=0", "u64=0", "f64=0", "fl=0", "db=0", "ok=f", "name=", "data=\\x",
                "status=NEW", "item=NULL", "tags=[]", "counts={}", "at=NULL", "note=NULL");
        // an unknown enum number (proto3 enums are open) reads as the number
        byte[] unknownStatus = {(byte) 0x80, 0x01, 9};
        assertThat(text(columns, rows.decode(unknownStatus, 0, 3))).contains("status=9");
        // a nested message at its defaults is {}; set fields only, by their JSON names
        byte[] emptyItem = {(byte) 0x8a, 0x01, 0};
        assertThat(text(columns, rows.decode(emptyItem, 0, 3))).contains("item={}");
    }

    @Test
    void listedColumnsTakeTheirFieldsByNameAndMayBeWider() throws Exception {
        List<Column> columns = List.of(new Column("note", SqlType.TEXT, true, false), new Column("i32", SqlType.NUMERIC, true, false),
                new Column("u32", SqlType.numeric(12, 2), true, false), new Column("fl", SqlType.DOUBLE, true, false), new Column("name", SqlType.varchar(3), true, false));
        ProtobufRows rows = ProtobufRows.forSource(ORDER, columns, 0);
        DynamicMessage m = DynamicMessage.newBuilder(ORDER).setField(ORDER.findFieldByName("i32"), 5).setField(ORDER.findFieldByName("u32"), 7)
                .setField(ORDER.findFieldByName("fl"), 0.5f).setField(ORDER.findFieldByName("name"), "abc").build();
        assertThat(text(columns, rows.decode(m.toByteArray(), 0, m.getSerializedSize()))).containsExactly("note=NULL", "i32=5", "u32=7.00", "fl=0.5", "name=abc");
        // a value the column's type cannot take is a decode error, as a NOT NULL column's NULL is
        byte[] tooLong = m.toBuilder().setField(ORDER.findFieldByName("name"), "abcd").build().toByteArray();
        assertThatThrownBy(() -> rows.decode(tooLong, 0, tooLong.length)).isInstanceOf(DecodeException.class).hasMessageContaining("column name");
        ProtobufRows notNull = ProtobufRows.forSource(ORDER, List.of(new Column("note", SqlType.TEXT, false, false)), 0);
        assertThatThrownBy(() -> notNull.decode(new byte[0], 0, 0)).isInstanceOf(DecodeException.class).hasMessageContaining("not-null");
    }

    @Test
    void bytesThatAreNotAMessageAreADecodeError() {
        ProtobufRows rows = ProtobufRows.forSource(ORDER, ProtobufRows.columnsOf(ORDER), 0);
        byte[] garbage = "{\"id\": 1}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThatThrownBy(() -> rows.decode(garbage, 0, garbage.length)).isInstanceOf(DecodeException.class).hasMessageContaining("not a protobuf message shop.Order");
        byte[] truncated = OrderSchema.fullOrder().toByteArray();
        assertThatThrownBy(() -> rows.decode(truncated, 0, truncated.length - 3)).isInstanceOf(DecodeException.class);
    }

    @Test
    void aColumnWithoutAFieldOrOfAnotherTypeIsRefused() {
        assertState(() -> ProtobufRows.forSource(ORDER, List.of(new Column("nope", SqlType.TEXT, true, false)), 0), "42703", "has no field \"nope\"");
        assertState(() -> ProtobufRows.forSource(ORDER, List.of(new Column("i64", SqlType.INTEGER, true, false)), 0), "42804", "field shop.Order.i64 is int64");
        assertState(() -> ProtobufRows.forSource(ORDER, List.of(new Column("tags", SqlType.TEXT, true, false)), 0), "42804", "is repeated int64");
        assertState(() -> ProtobufRows.forSink(ORDER, List.of("nope"), List.of(SqlType.TEXT), 0), "42703", "has no field");
        assertState(() -> ProtobufRows.forSink(ORDER, List.of("at"), List.of(SqlType.TEXT), 0), "42804", "google.protobuf.Timestamp");
        assertState(() -> ProtobufRows.forSink(ORDER, List.of("i32"), List.of(SqlType.NUMERIC), 0), "42804", "int32");
    }

    @Test
    void aSinkRefusesValuesItsFieldsCannotHold() {
        ProtobufRows ints = ProtobufRows.forSink(ORDER, List.of("i32", "u32", "u64"), List.of(SqlType.BIGINT, SqlType.BIGINT, SqlType.NUMERIC), 0);
        assertState(() -> ints.encode(new Object[] {1L << 40, null, null}), "22003", "out of range for field shop.Order.i32");
        assertState(() -> ints.encode(new Object[] {null, -1L, null}), "22003", "shop.Order.u32");
        assertState(() -> ints.encode(new Object[] {null, null, new BigDecimal("1.5")}), "22P02", "not an integer");
        assertState(() -> ints.encode(new Object[] {null, null, new BigDecimal("18446744073709551616")}), "22003", "out of range");
        ProtobufRows status = ProtobufRows.forSink(ORDER, List.of("status", "at", "item"), List.of(SqlType.TEXT, SqlType.TIMESTAMPTZ, SqlType.JSONB), 0);
        assertState(() -> status.encode(new Object[] {"LOST", null, null}), "22P02", "enum shop.Status");
        assertState(() -> status.encode(new Object[] {null, dev.tributary.sql.types.InfiniteTimes.INSTANT_MAX, null}), "22008", "out of range");
        assertState(() -> status.encode(new Object[] {null, null, Jsonb.parse("{\"sku\": 1}")}), "22P02", "shop.Item.sku");
        assertState(() -> status.encode(new Object[] {null, null, Jsonb.parse("{\"color\": 1}")}), "22P02", "no field \"color\"");
        // JSON null, like SQL NULL, leaves the field unset
        assertThat(status.encode(new Object[] {null, null, Jsonb.parse("null")})).isEmpty();
    }

    @Test
    void aRowWrittenIsReadBackAsItWas() throws Exception {
        List<Column> columns = ProtobufRows.columnsOf(ORDER);
        ProtobufRows source = ProtobufRows.forSource(ORDER, columns, 0);
        byte[] full = OrderSchema.fullOrder().toByteArray();
        Object[] row = source.decode(full, 0, full.length);
        ProtobufRows sink = ProtobufRows.forSink(ORDER, columns.stream().map(Column::name).toList(), columns.stream().map(Column::type).toList(), 0);
        byte[] written = sink.encode(row);
        assertThat(text(columns, source.decode(written, 0, written.length))).isEqualTo(text(columns, row));
        // the nanoseconds below a microsecond are what reading drops
        DynamicMessage back = DynamicMessage.parseFrom(ORDER, written);
        assertThat(back.toBuilder().clearField(ORDER.findFieldByName("at")).build()).isEqualTo(OrderSchema.fullOrder().toBuilder().clearField(ORDER.findFieldByName("at")).build());
        assertThat(((com.google.protobuf.Message) back.getField(ORDER.findFieldByName("at"))).getField(Timestamp.getDescriptor().findFieldByName("nanos"))).isEqualTo(123_456_000);
    }

    @Test
    void theSchemaIsADescriptorSetHoldingTheMessage() {
        byte[] set = OrderSchema.set().toByteArray();
        assertThat(schema(".shop.Order", set).getFullName()).isEqualTo("shop.Order");
        assertThat(schema("shop.Item", set).getFields()).hasSize(2);
        // a set without the well-known import takes protobuf-java's own
        assertThat(schema(OrderSchema.ORDER, OrderSchema.setWithoutWellKnown().toByteArray()).findFieldByName("at").getMessageType().getFullName())
                .isEqualTo("google.protobuf.Timestamp");
        SqlException missing = assertState(() -> schema("shop.Ordr", set), "22023", "message \"shop.Ordr\" is not in the schema");
        assertThat(missing.hint()).contains("shop.Item", "shop.Order", "google.protobuf.Timestamp").doesNotContain("CountsEntry");
        assertState(() -> schema("Order", set), "22023", "not in the schema");
        assertState(() -> schema(OrderSchema.ORDER, "syntax = \"proto3\";\nmessage Order {}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)), "22023",
                "not a compiled protobuf descriptor set");
        assertState(() -> schema(OrderSchema.ORDER, new byte[0]), "22023", "holds no file descriptors");
        byte[] withoutItem = com.google.protobuf.DescriptorProtos.FileDescriptorSet.newBuilder().addFile(OrderSchema.order()).build().toByteArray();
        assertState(() -> schema(OrderSchema.ORDER, withoutItem), "22023", "lacks \"shop/item.proto\"");
        assertState(() -> ProtobufSchema.of(List.of(new SourceOption(0, "MESSAGE", "a.B")), 0), "42601", "needs its SCHEMA FILE");
        assertState(() -> ProtobufSchema.of(List.of(new SourceOption(0, "SCHEMA", "\\x00")), 0), "42601", "needs the MESSAGE");
        assertState(() -> ProtobufSchema.of(List.of(new SourceOption(0, "MESSAGE", "a.B"), new SourceOption(0, "SCHEMA", "0a")), 0), "22023", "hex");
        assertState(() -> ProtobufSchema.of(List.of(new SourceOption(0, "MESSAGE", "a.B"), new SourceOption(0, "SCHEMA", "\\xzz")), 0), "22023", "hex");
        assertState(() -> ProtobufSchema.of(List.of(new SourceOption(0, "MESSAGE", "a.B"), new SourceOption(0, "HEADER", "true")), 0), "42601", "\"HEADER\" not recognized");
    }

    @Test
    void aDamagedSetOrMessageIsRefusedNeverThrownAt() {
        java.util.Random random = new java.util.Random(29);
        byte[] set = OrderSchema.set().toByteArray();
        byte[] message = OrderSchema.fullOrder().toByteArray();
        ProtobufRows rows = ProtobufRows.forSource(ORDER, ProtobufRows.columnsOf(ORDER), 0);
        for (int i = 0; i < 2_000; i++) {
            byte[] s = set.clone();
            for (int k = 0; k < 1 + random.nextInt(4); k++) s[random.nextInt(s.length)] = (byte) random.nextInt(256);
            try {
                schema(OrderSchema.ORDER, s);
            } catch (SqlException e) {
                assertThat(e.sqlState()).isEqualTo("22023");
            }
            byte[] m = message.clone();
            for (int k = 0; k < 1 + random.nextInt(4); k++) m[random.nextInt(m.length)] = (byte) random.nextInt(256);
            try {
                rows.decode(m, 0, m.length);
            } catch (DecodeException e) {
                // counted and skipped, or stops the source: never anything else
            }
        }
    }

    @Test
    void embeddingReplacesTheFileByItsBytes() {
        List<SourceOption> embedded = ProtobufSchema.embed(List.of(new SourceOption(3, "MESSAGE", "m"), new SourceOption(4, "SCHEMA FILE", "/x")),
                (path, pos) -> path.equals("/x") && pos == 4 ? new byte[] {10, (byte) 0xab} : null);
        assertThat(embedded).containsExactly(new SourceOption(3, "MESSAGE", "m"), new SourceOption(4, "SCHEMA", "\\x0aab"));
    }

    private static SqlException assertState(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String state, String message) {
        try {
            call.call();
        } catch (SqlException e) {
            assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(state);
            assertThat(e.getMessage()).contains(message);
            return e;
        } catch (Throwable t) {
            throw new AssertionError("expected " + state + ", got " + t, t);
        }
        throw new AssertionError("expected " + state + ", nothing was thrown");
    }
}
