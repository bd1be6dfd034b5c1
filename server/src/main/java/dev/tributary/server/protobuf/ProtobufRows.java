package dev.tributary.server.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.tributary.server.source.DecodeException;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rows as messages of one protobuf type and back: each column is the top-level field of its
 * name.
 *
 * <p>A field's own SQL type ({@link #typeOf}): int32, sint32, sfixed32 are integer; int64,
 * sint64, sfixed64, uint32, fixed32 bigint (an unsigned 32-bit value does not fit an integer);
 * uint64 and fixed64 numeric; float real; double double precision; bool boolean; string text;
 * bytes bytea; an enum text, its value's name; {@code google.protobuf.Timestamp} timestamptz
 * (to the microsecond: nanoseconds below are dropped); any other message, a repeated field and a
 * map jsonb, by proto3's JSON mapping ({@link ProtoJson}).
 *
 * <p>Reading (a source): a field absent from the bytes is its proto3 default (0, '', false, the
 * enum's first value, [] or {}) when it has no presence, and NULL when it has (a message, a
 * proto3 {@code optional}, a oneof's member, a proto2 field), as the message itself tells the
 * two apart. A column may also be a wider type than its field's own (integer to bigint or
 * numeric, bigint to numeric, real to double precision, text to varchar); a column no field is
 * named after is 42703, another type 42804, both at CREATE. Bytes that are not a message of the
 * type are a {@link DecodeException}.
 *
 * <p>Writing (a sink): a NULL leaves its field unset, which a reader sees as the field's default
 * where it has no presence. A column may be a narrower or wider integer than its field (checked
 * per value: 22003 out of range, which fails the sink, as an INSERT fails), double precision to
 * float, text to an enum (its value's name, 22P02 for a name the enum does not have), jsonb to a
 * message, repeated field or map (22P02 for JSON that is not one; a JSON null leaves the field
 * unset, as a NULL does).
 */
public final class ProtobufRows {
    private static final String TIMESTAMP = "google.protobuf.Timestamp";
    private static final Set<SqlType.Kind> INTEGERS = Set.of(SqlType.Kind.SMALLINT, SqlType.Kind.INTEGER, SqlType.Kind.BIGINT);

    private final Descriptor message;
    private final List<Column> columns;
    private final List<SqlType> types;
    private final FieldDescriptor[] fields;

    private ProtobufRows(Descriptor message, List<Column> columns, FieldDescriptor[] fields) {
        this.message = message;
        this.columns = List.copyOf(columns);
        this.types = columns.stream().map(Column::type).toList();
        this.fields = fields;
    }

    /** The columns of a source of {@code message} that lists none: every field, in the message's order, nullable. */
    public static List<Column> columnsOf(Descriptor message) {
        List<Column> out = new ArrayList<>();
        for (FieldDescriptor f : message.getFields()) out.add(new Column(f.getName(), typeOf(f), true, false));
        return out;
    }

    /** The SQL type a field is read as when a source lists no columns. */
    public static SqlType typeOf(FieldDescriptor f) {
        if (f.isRepeated()) return SqlType.JSONB;
        return switch (f.getType()) {
            case INT32, SINT32, SFIXED32 -> SqlType.INTEGER;
            case INT64, SINT64, SFIXED64, UINT32, FIXED32 -> SqlType.BIGINT;
            case UINT64, FIXED64 -> SqlType.NUMERIC;
            case FLOAT -> SqlType.REAL;
            case DOUBLE -> SqlType.DOUBLE;
            case BOOL -> SqlType.BOOLEAN;
            case STRING, ENUM -> SqlType.TEXT;
            case BYTES -> SqlType.BYTEA;
            case MESSAGE, GROUP -> f.getMessageType().getFullName().equals(TIMESTAMP) ? SqlType.TIMESTAMPTZ : SqlType.JSONB;
        };
    }

    /** The reading of {@code message} into {@code columns}: 42703 and 42804 as the type says. */
    public static ProtobufRows forSource(Descriptor message, List<Column> columns, int pos) {
        FieldDescriptor[] fields = new FieldDescriptor[columns.size()];
        for (int i = 0; i < fields.length; i++) {
            Column c = columns.get(i);
            FieldDescriptor f = field(message, c.name(), pos);
            SqlType.Kind own = typeOf(f).kind(), wanted = c.type().kind();
            boolean fits = own == wanted || switch (own) {
                case INTEGER -> wanted == SqlType.Kind.BIGINT || wanted == SqlType.Kind.NUMERIC;
                case BIGINT -> wanted == SqlType.Kind.NUMERIC;
                case REAL -> wanted == SqlType.Kind.DOUBLE;
                case TEXT -> wanted == SqlType.Kind.VARCHAR;
                default -> false;
            };
            if (!fits) throw incompatible(c.name(), c.type(), f, "Declare the column as " + typeOf(f) + ", or list no columns to take every field as its own type.", pos);
            fields[i] = f;
        }
        return new ProtobufRows(message, columns, fields);
    }

    /** The writing of rows of columns {@code names} of {@code types} as {@code message}: 42703 and 42804 as the type says. */
    public static ProtobufRows forSink(Descriptor message, List<String> names, List<SqlType> types, int pos) {
        FieldDescriptor[] fields = new FieldDescriptor[names.size()];
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
            FieldDescriptor f = field(message, names.get(i), pos);
            SqlType.Kind kind = types.get(i).kind();
            boolean fits = f.isRepeated() ? kind == SqlType.Kind.JSONB : switch (f.getType()) {
                case INT32, SINT32, SFIXED32, INT64, SINT64, SFIXED64, UINT32, FIXED32 -> INTEGERS.contains(kind);
                case UINT64, FIXED64 -> INTEGERS.contains(kind) || kind == SqlType.Kind.NUMERIC;
                case FLOAT, DOUBLE -> kind == SqlType.Kind.REAL || kind == SqlType.Kind.DOUBLE;
                case BOOL -> kind == SqlType.Kind.BOOLEAN;
                case STRING, ENUM -> kind == SqlType.Kind.TEXT || kind == SqlType.Kind.VARCHAR || kind == SqlType.Kind.CHAR || kind == SqlType.Kind.UNKNOWN;
                case BYTES -> kind == SqlType.Kind.BYTEA;
                case MESSAGE, GROUP -> kind == (f.getMessageType().getFullName().equals(TIMESTAMP) ? SqlType.Kind.TIMESTAMPTZ : SqlType.Kind.JSONB);
            };
            if (!fits) throw incompatible(names.get(i), types.get(i), f, "Cast the column to " + typeOf(f) + " in the sink's query.", pos);
            fields[i] = f;
            columns.add(new Column(names.get(i), types.get(i), true, false));
        }
        return new ProtobufRows(message, columns, fields);
    }

    private static FieldDescriptor field(Descriptor message, String column, int pos) {
        FieldDescriptor f = message.findFieldByName(column);
        if (f == null) {
            throw new SqlException("42703", "message " + message.getFullName() + " has no field \"" + column + "\"", pos,
                    "Columns are the message's fields by name: " + String.join(", ", message.getFields().stream().map(FieldDescriptor::getName).toList()) + ".");
        }
        return f;
    }

    private static SqlException incompatible(String column, SqlType type, FieldDescriptor f, String hint, int pos) {
        String proto = f.isMapField() ? "a map" : (f.isRepeated() ? "repeated " : "")
                + (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE ? f.getMessageType().getFullName() : f.getJavaType() == FieldDescriptor.JavaType.ENUM ? f.getEnumType().getFullName() : f.getType().name().toLowerCase(java.util.Locale.ROOT));
        return new SqlException("42804", "column \"" + column + "\" is of type " + type + " but field " + f.getFullName() + " is " + proto, pos, hint);
    }

    /** The message type rows are read from or written as. */
    public Descriptor message() {
        return message;
    }

    /** The row message {@code b[off, off + len)} holds; a {@link DecodeException} for bytes that are not one, or a NULL in a NOT NULL column. */
    public Object[] decode(byte[] b, int off, int len) throws DecodeException {
        DynamicMessage m;
        try {
            m = DynamicMessage.parseFrom(message, CodedInputStream.newInstance(b, off, len));
        } catch (java.io.IOException | RuntimeException e) {
            throw new DecodeException("not a protobuf message " + message.getFullName() + ": " + e.getMessage());
        }
        Object[] row = new Object[fields.length];
        for (int i = 0; i < row.length; i++) {
            FieldDescriptor f = fields[i];
            Object v = f.isRepeated() ? ProtoJson.field(f, m.getField(f))
                    : f.hasPresence() && !m.hasField(f) ? null
                    : single(f, m.getField(f));
            SqlType type = types.get(i);
            if (v == null) {
                if (!columns.get(i).nullable()) throw new DecodeException("null value in column \"" + columns.get(i).name() + "\" violates not-null constraint");
            } else if (!type.equals(typeOf(f)) && type.kind() != SqlType.Kind.DOUBLE) {
                // a wider column than the field's own type, or one with a typmod: as a cast would make it
                try {
                    v = Values.fromText(Values.toText(v, typeOf(f)), type);
                } catch (SqlException e) {
                    throw new DecodeException("column " + columns.get(i).name() + ": " + e.getMessage());
                }
            }
            row[i] = v;
        }
        return row;
    }

    /** Field {@code f}'s value {@code v} (as {@code Message.getField} gives it) as its SQL type's value. */
    private static Object single(FieldDescriptor f, Object v) {
        return switch (f.getType()) {
            case INT32, SINT32, SFIXED32 -> (long) (Integer) v;
            case UINT32, FIXED32 -> Integer.toUnsignedLong((Integer) v);
            case INT64, SINT64, SFIXED64 -> v;
            case UINT64, FIXED64 -> new BigDecimal(Long.toUnsignedString((Long) v));
            case FLOAT -> (double) (Float) v;
            case DOUBLE, BOOL, STRING -> v;
            case BYTES -> Bytea.copyOf(((ByteString) v).toByteArray());
            case ENUM -> ProtoJson.enumName((EnumValueDescriptor) v);
            case MESSAGE, GROUP -> {
                Message m = (Message) v;
                if (!f.getMessageType().getFullName().equals(TIMESTAMP)) yield ProtoJson.message(m);
                long seconds = (Long) m.getField(f.getMessageType().findFieldByNumber(1));
                int nanos = (Integer) m.getField(f.getMessageType().findFieldByNumber(2));
                yield Instant.ofEpochSecond(seconds, nanos - nanos % 1000);
            }
        };
    }

    /** {@code row} as the message's bytes; 22003, 22008, 22P02 for a value its field cannot hold. */
    public byte[] encode(Object[] row) {
        return build(row).toByteArray();
    }

    /** {@code row} as the message (to be a field of another: a Debezium envelope's before and after). */
    public DynamicMessage build(Object[] row) {
        DynamicMessage.Builder b = DynamicMessage.newBuilder(message);
        for (int i = 0; i < fields.length; i++) {
            Object v = row[i];
            // SQL NULL and JSON null alike leave the field unset
            if (v == null || v instanceof Jsonb.Null) continue;
            FieldDescriptor f = fields[i];
            if (f.isRepeated() || types.get(i).kind() == SqlType.Kind.JSONB) ProtoJson.setField(b, f, (Jsonb) v);
            else b.setField(f, toField(f, v, types.get(i)));
        }
        return b.build();
    }

    /**
     * Debezium's envelope in protobuf: {@code envelope} has message fields {@code before} and
     * {@code after} of one type (the row's, whose fields the columns fill by name as
     * {@link #forSink} checks) and may have a string {@code op} (c, u or d). 42P16 for a message
     * that is not such an envelope.
     */
    public static BeforeAfter forDebezium(Descriptor envelope, List<String> names, List<SqlType> types, int pos) {
        FieldDescriptor before = envelope.findFieldByName("before"), after = envelope.findFieldByName("after"), op = envelope.findFieldByName("op");
        if (before == null || after == null || before.isRepeated() || after.isRepeated() || before.getJavaType() != FieldDescriptor.JavaType.MESSAGE
                || after.getJavaType() != FieldDescriptor.JavaType.MESSAGE || !before.getMessageType().equals(after.getMessageType())) {
            throw new SqlException("42P16", "message " + envelope.getFullName() + " is not a Debezium envelope", pos,
                    "ENVELOPE DEBEZIUM in protobuf writes a message with fields before and after of the row's message type (and a string op): "
                            + "message Change { Order before = 1; Order after = 2; string op = 3; }");
        }
        if (op != null && (op.isRepeated() || op.getType() != FieldDescriptor.Type.STRING)) {
            throw new SqlException("42P16", "field op of message " + envelope.getFullName() + " is not a string", pos, "A Debezium envelope's op is c, u or d.");
        }
        ProtobufRows rows = forSink(before.getMessageType(), names, types, pos);
        return (b, a) -> {
            DynamicMessage.Builder m = DynamicMessage.newBuilder(envelope);
            if (b != null) m.setField(before, rows.build(b));
            if (a != null) m.setField(after, rows.build(a));
            if (op != null) m.setField(op, b == null ? "c" : a == null ? "d" : "u");
            return m.build().toByteArray();
        };
    }

    /** How a change of a key (its row before, its row after; either null) becomes a message's bytes. */
    @FunctionalInterface
    public interface BeforeAfter {
        byte[] encode(Object[] before, Object[] after);
    }

    private Object toField(FieldDescriptor f, Object v, SqlType type) {
        String what = "field " + f.getFullName();
        return switch (f.getType()) {
            case INT32, SINT32, SFIXED32 -> (int) inRange((Long) v, Integer.MIN_VALUE, Integer.MAX_VALUE, what);
            case UINT32, FIXED32 -> (int) inRange((Long) v, 0, 0xFFFF_FFFFL, what);
            case INT64, SINT64, SFIXED64 -> v;
            case UINT64, FIXED64 -> {
                if (v instanceof Long l) yield inRange(l, 0, Long.MAX_VALUE, what);
                if (!(v instanceof BigDecimal d)) throw new SqlException("22003", Values.toText(v, type) + " is out of range for " + what);
                BigInteger n;
                try {
                    n = d.toBigIntegerExact();
                } catch (ArithmeticException e) {
                    throw new SqlException("22P02", d.toPlainString() + " is not an integer, as " + what + " must be");
                }
                if (n.signum() < 0 || n.bitLength() > 64) throw new SqlException("22003", n + " is out of range for " + what);
                yield n.longValue();
            }
            case FLOAT -> ((Double) v).floatValue();
            case DOUBLE, BOOL -> v;
            case STRING -> (String) v;
            case BYTES -> ByteString.copyFrom(((Bytea) v).toByteArray());
            case ENUM -> {
                String s = (String) v;
                // a number stands for a value the enum does not name (what reading gives for one)
                yield ProtoJson.enumValue(f.getEnumType(), s.matches("-?[0-9]{1,10}") ? new Jsonb.Num(new BigDecimal(s)) : new Jsonb.Str(s), what);
            }
            case MESSAGE, GROUP -> {
                Instant t = (Instant) v;
                // google.protobuf.Timestamp's range: years 1 to 9999
                if (!InfiniteTimes.isFinite(t) || t.getEpochSecond() < -62_135_596_800L || t.getEpochSecond() > 253_402_300_799L) {
                    throw new SqlException("22008", "timestamp " + Values.toText(t, type) + " is out of range for " + what);
                }
                Descriptor ts = f.getMessageType();
                yield DynamicMessage.newBuilder(ts).setField(ts.findFieldByNumber(1), t.getEpochSecond()).setField(ts.findFieldByNumber(2), t.getNano()).build();
            }
        };
    }

    private static long inRange(long v, long min, long max, String what) {
        if (v < min || v > max) throw new SqlException("22003", "value " + v + " is out of range for " + what);
        return v;
    }
}
