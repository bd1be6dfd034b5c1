package dev.tributary.server.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Jsonb;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * Protobuf values as jsonb and back, by proto3's canonical JSON mapping, for the fields a column
 * of type jsonb holds (messages, repeated fields, maps).
 *
 * <p>As the mapping says: keys are the fields' JSON names (lowerCamelCase); fields at their
 * default (no presence) or unset (presence) are left out; 64-bit integers are strings; bytes are
 * base64; enums are their value's name (the number when the type does not know it); NaN and the
 * infinities are the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"};
 * {@code google.protobuf.Timestamp} is an RFC 3339 string in UTC, {@code Duration} a string of
 * seconds ending in {@code s}, the wrappers their value, {@code Struct}/{@code Value}/{@code
 * ListValue} the JSON they stand for. {@code Any} and {@code FieldMask} are written as the plain
 * messages they are (their special forms need a type registry, or are rare). Reading back takes
 * a field's JSON name or its proto name, numbers as numbers or strings, and JSON null as the
 * field left unset; anything else is 22P02.
 *
 * <p>protobuf-java-util's {@code JsonFormat} does this too, but it is not among the server's
 * dependencies (it brings Gson and Guava); what sources and sinks need is this much.
 */
final class ProtoJson {
    private ProtoJson() {}

    /** The wrappers of one scalar each, written as that scalar. */
    private static final Set<String> WRAPPERS = Set.of("google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
            "google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value", "google.protobuf.BoolValue",
            "google.protobuf.StringValue", "google.protobuf.BytesValue");

    // ------------------------------------------------------------------ protobuf to JSON

    /** Message {@code m} as JSON. */
    static Jsonb message(Message m) {
        Descriptor d = m.getDescriptorForType();
        String type = d.getFullName();
        if (WRAPPERS.contains(type)) return single(d.findFieldByNumber(1), m.getField(d.findFieldByNumber(1)));
        switch (type) {
            case "google.protobuf.Timestamp" -> {
                return new Jsonb.Str(timestampText(seconds(m), nanos(m)));
            }
            case "google.protobuf.Duration" -> {
                return new Jsonb.Str(durationText(seconds(m), nanos(m)));
            }
            case "google.protobuf.Struct" -> {
                return map(d.findFieldByName("fields"), m.getField(d.findFieldByName("fields")));
            }
            case "google.protobuf.ListValue" -> {
                return repeated(d.findFieldByName("values"), (List<?>) m.getField(d.findFieldByName("values")));
            }
            case "google.protobuf.Value" -> {
                FieldDescriptor kind = m.getOneofFieldDescriptor(d.getOneofs().get(0));
                return kind == null || kind.getName().equals("null_value") ? Jsonb.Null.NULL : single(kind, m.getField(kind));
            }
            default -> { }
        }
        List<String> keys = new ArrayList<>();
        List<Jsonb> values = new ArrayList<>();
        for (FieldDescriptor f : d.getFields()) {
            if (f.isRepeated() ? m.getRepeatedFieldCount(f) == 0 : !m.hasField(f)) continue;
            keys.add(f.getJsonName());
            values.add(field(f, m.getField(f)));
        }
        return Jsonb.Obj.of(keys, values);
    }

    /** The value {@code v} of field {@code f} (as {@code Message.getField} gives it: a list when repeated) as JSON. */
    static Jsonb field(FieldDescriptor f, Object v) {
        if (f.isMapField()) return map(f, v);
        if (f.isRepeated()) return repeated(f, (List<?>) v);
        return single(f, v);
    }

    private static Jsonb repeated(FieldDescriptor f, List<?> v) {
        List<Jsonb> out = new ArrayList<>(v.size());
        for (Object e : v) out.add(single(f, e));
        return new Jsonb.Arr(out);
    }

    private static Jsonb map(FieldDescriptor f, Object v) {
        Descriptor entry = f.getMessageType();
        FieldDescriptor key = entry.findFieldByNumber(1), value = entry.findFieldByNumber(2);
        List<String> keys = new ArrayList<>();
        List<Jsonb> values = new ArrayList<>();
        for (Object e : (List<?>) v) {
            Message m = (Message) e;
            Object k = m.getField(key);
            keys.add(switch (key.getType()) {
                case UINT32, FIXED32 -> Integer.toUnsignedString((Integer) k);
                case UINT64, FIXED64 -> Long.toUnsignedString((Long) k);
                default -> String.valueOf(k);
            });
            values.add(single(value, m.getField(value)));
        }
        return Jsonb.Obj.of(keys, values);
    }

    /** One value of field {@code f} (an element when repeated) as JSON. */
    private static Jsonb single(FieldDescriptor f, Object v) {
        return switch (f.getType()) {
            case INT32, SINT32, SFIXED32 -> new Jsonb.Num(BigDecimal.valueOf((Integer) v));
            case UINT32, FIXED32 -> new Jsonb.Num(BigDecimal.valueOf(Integer.toUnsignedLong((Integer) v)));
            case INT64, SINT64, SFIXED64 -> new Jsonb.Str(Long.toString((Long) v));
            case UINT64, FIXED64 -> new Jsonb.Str(Long.toUnsignedString((Long) v));
            case FLOAT -> floating((Float) v, Float.toString((Float) v));
            case DOUBLE -> floating((Double) v, Double.toString((Double) v));
            case BOOL -> (Boolean) v ? Jsonb.Bool.TRUE : Jsonb.Bool.FALSE;
            case STRING -> new Jsonb.Str((String) v);
            case BYTES -> new Jsonb.Str(Base64.getEncoder().encodeToString(((ByteString) v).toByteArray()));
            case ENUM -> enumValue((EnumValueDescriptor) v);
            case MESSAGE, GROUP -> message((Message) v);
        };
    }

    private static Jsonb floating(double d, String text) {
        if (Double.isNaN(d)) return new Jsonb.Str("NaN");
        if (Double.isInfinite(d)) return new Jsonb.Str(d > 0 ? "Infinity" : "-Infinity");
        return new Jsonb.Num(new BigDecimal(text));
    }

    private static Jsonb enumValue(EnumValueDescriptor e) {
        if (e.getType().getFullName().equals("google.protobuf.NullValue")) return Jsonb.Null.NULL;
        // an open enum's number the type does not name is kept as the number
        return e.getType().findValueByNumber(e.getNumber()) == e ? new Jsonb.Str(e.getName()) : new Jsonb.Num(BigDecimal.valueOf(e.getNumber()));
    }

    /** The name an enum value has for a text column: its name, or its number when the type does not name it. */
    static String enumName(EnumValueDescriptor e) {
        return e.getType().findValueByNumber(e.getNumber()) == e ? e.getName() : Integer.toString(e.getNumber());
    }

    private static long seconds(Message m) {
        return (Long) m.getField(m.getDescriptorForType().findFieldByNumber(1));
    }

    private static int nanos(Message m) {
        return (Integer) m.getField(m.getDescriptorForType().findFieldByNumber(2));
    }

    private static String timestampText(long seconds, int nanos) {
        String s = Instant.ofEpochSecond(seconds).toString();
        // Instant prints no fraction for whole seconds; the mapping prints 0, 3, 6 or 9 digits
        return s.substring(0, s.length() - 1) + fraction(nanos) + "Z";
    }

    private static String durationText(long seconds, int nanos) {
        boolean negative = seconds < 0 || nanos < 0;
        return (negative ? "-" : "") + Math.abs(seconds) + fraction(Math.abs(nanos)) + "s";
    }

    private static String fraction(int nanos) {
        if (nanos == 0) return "";
        if (nanos % 1_000_000 == 0) return String.format(java.util.Locale.ROOT, ".%03d", nanos / 1_000_000);
        if (nanos % 1_000 == 0) return String.format(java.util.Locale.ROOT, ".%06d", nanos / 1_000);
        return String.format(java.util.Locale.ROOT, ".%09d", nanos);
    }

    // ------------------------------------------------------------------ JSON to protobuf

    /** {@code j} as a message of type {@code d}; 22P02 for JSON that is not one. */
    static DynamicMessage toMessage(Descriptor d, Jsonb j) {
        DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
        String type = d.getFullName();
        if (WRAPPERS.contains(type)) {
            FieldDescriptor value = d.findFieldByNumber(1);
            return b.setField(value, toSingle(value, j)).build();
        }
        switch (type) {
            case "google.protobuf.Timestamp" -> {
                Instant t;
                try {
                    t = Instant.parse(text(j, "an RFC 3339 timestamp", type));
                } catch (DateTimeParseException e) {
                    throw mismatch(j, "an RFC 3339 timestamp", type);
                }
                return b.setField(d.findFieldByNumber(1), t.getEpochSecond()).setField(d.findFieldByNumber(2), t.getNano()).build();
            }
            case "google.protobuf.Duration" -> {
                String s = text(j, "a duration such as \"1.5s\"", type);
                if (!s.endsWith("s")) throw mismatch(j, "a duration such as \"1.5s\"", type);
                BigDecimal total;
                try {
                    total = new BigDecimal(s.substring(0, s.length() - 1));
                } catch (NumberFormatException e) {
                    throw mismatch(j, "a duration such as \"1.5s\"", type);
                }
                long seconds = total.setScale(0, java.math.RoundingMode.DOWN).longValueExact();
                int nanos = total.subtract(BigDecimal.valueOf(seconds)).movePointRight(9).intValue();
                return b.setField(d.findFieldByNumber(1), seconds).setField(d.findFieldByNumber(2), nanos).build();
            }
            case "google.protobuf.Struct" -> {
                if (!(j instanceof Jsonb.Obj)) throw mismatch(j, "an object", type);
                setField(b, d.findFieldByName("fields"), j);
                return b.build();
            }
            case "google.protobuf.ListValue" -> {
                if (!(j instanceof Jsonb.Arr)) throw mismatch(j, "an array", type);
                setField(b, d.findFieldByName("values"), j);
                return b.build();
            }
            case "google.protobuf.Value" -> {
                String kind = switch (j) {
                    case Jsonb.Null n -> "null_value";
                    case Jsonb.Num n -> "number_value";
                    case Jsonb.Str s -> "string_value";
                    case Jsonb.Bool x -> "bool_value";
                    case Jsonb.Obj o -> "struct_value";
                    case Jsonb.Arr a -> "list_value";
                };
                FieldDescriptor f = d.findFieldByName(kind);
                return b.setField(f, j instanceof Jsonb.Null ? f.getEnumType().findValueByNumber(0) : toSingle(f, j)).build();
            }
            default -> { }
        }
        if (!(j instanceof Jsonb.Obj o)) throw mismatch(j, "an object", type);
        for (int i = 0; i < o.keys().size(); i++) {
            String key = o.keys().get(i);
            FieldDescriptor f = d.findFieldByName(key);
            if (f == null) f = d.getFields().stream().filter(x -> x.getJsonName().equals(key)).findFirst().orElse(null);
            if (f == null) throw new SqlException("22P02", "message " + type + " has no field \"" + key + "\"");
            // null is the field left unset, except where it is a value (google.protobuf.Value's null)
            boolean isValue = !f.isRepeated() && f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && f.getMessageType().getFullName().equals("google.protobuf.Value");
            if (o.values().get(i) instanceof Jsonb.Null && !isValue) continue;
            setField(b, f, o.values().get(i));
        }
        return b.build();
    }

    /** Sets field {@code f} of {@code b} to {@code j}: a repeated field's elements added, a map's entries. */
    static void setField(DynamicMessage.Builder b, FieldDescriptor f, Jsonb j) {
        if (f.isMapField()) {
            if (!(j instanceof Jsonb.Obj o)) throw mismatch(j, "an object", f.getFullName());
            Descriptor entry = f.getMessageType();
            FieldDescriptor key = entry.findFieldByNumber(1), value = entry.findFieldByNumber(2);
            for (int i = 0; i < o.keys().size(); i++) {
                Object k = toSingle(key, key.getJavaType() == FieldDescriptor.JavaType.STRING ? new Jsonb.Str(o.keys().get(i)) : mapKey(key, o.keys().get(i)));
                b.addRepeatedField(f, DynamicMessage.newBuilder(entry).setField(key, k).setField(value, toSingle(value, o.values().get(i))).build());
            }
        } else if (f.isRepeated()) {
            if (!(j instanceof Jsonb.Arr a)) throw mismatch(j, "an array", f.getFullName());
            for (Jsonb e : a.elements()) b.addRepeatedField(f, toSingle(f, e));
        } else {
            b.setField(f, toSingle(f, j));
        }
    }

    private static Jsonb mapKey(FieldDescriptor key, String text) {
        return key.getJavaType() == FieldDescriptor.JavaType.BOOLEAN ? switch (text) {
            case "true" -> Jsonb.Bool.TRUE;
            case "false" -> Jsonb.Bool.FALSE;
            default -> throw new SqlException("22P02", "map key \"" + text + "\" of " + key.getContainingType().getFullName() + " is not a boolean");
        } : new Jsonb.Str(text);
    }

    /** One value of field {@code f} from {@code j}, as {@code DynamicMessage} takes it. */
    private static Object toSingle(FieldDescriptor f, Jsonb j) {
        String what = f.getFullName();
        return switch (f.getType()) {
            case INT32, SINT32, SFIXED32 -> (int) integer(j, Integer.MIN_VALUE, Integer.MAX_VALUE, what);
            case UINT32, FIXED32 -> (int) integer(j, 0, 0xFFFF_FFFFL, what);
            case INT64, SINT64, SFIXED64 -> integer(j, Long.MIN_VALUE, Long.MAX_VALUE, what);
            case UINT64, FIXED64 -> unsigned64(j, what);
            case FLOAT -> (float) floating(j, what);
            case DOUBLE -> floating(j, what);
            case BOOL -> {
                if (!(j instanceof Jsonb.Bool x)) throw mismatch(j, "a boolean", what);
                yield x.value();
            }
            case STRING -> text(j, "a string", what);
            case BYTES -> {
                String s = text(j, "a base64 string", what);
                try {
                    yield ByteString.copyFrom(s.contains("-") || s.contains("_") ? Base64.getUrlDecoder().decode(s) : Base64.getDecoder().decode(s));
                } catch (IllegalArgumentException e) {
                    throw mismatch(j, "a base64 string", what);
                }
            }
            case ENUM -> enumValue(f.getEnumType(), j, what);
            case MESSAGE, GROUP -> toMessage(f.getMessageType(), j);
        };
    }

    /** The value named {@code j} (its name, or its number) of enum {@code e}; 22P02 for one it does not have. */
    static EnumValueDescriptor enumValue(EnumDescriptor e, Jsonb j, String what) {
        EnumValueDescriptor v = switch (j) {
            case Jsonb.Str s -> e.findValueByName(s.value());
            case Jsonb.Num n -> e.isClosed() ? e.findValueByNumber((int) integer(j, Integer.MIN_VALUE, Integer.MAX_VALUE, what))
                    : e.findValueByNumberCreatingIfUnknown((int) integer(j, Integer.MIN_VALUE, Integer.MAX_VALUE, what));
            default -> null;
        };
        if (v == null) throw new SqlException("22P02", "invalid value " + j + " for enum " + e.getFullName() + " (" + what + ")", 0,
                "It has " + String.join(", ", e.getValues().stream().map(EnumValueDescriptor::getName).toList()) + ".");
        return v;
    }

    private static long integer(Jsonb j, long min, long max, String what) {
        BigDecimal d = number(j, "an integer", what);
        try {
            long v = d.longValueExact();
            if (v < min || v > max) throw new SqlException("22003", "value " + d + " is out of range for " + what);
            return v;
        } catch (ArithmeticException e) {
            throw new SqlException(d.stripTrailingZeros().scale() > 0 ? "22P02" : "22003", "value " + d + " is not an integer in range for " + what);
        }
    }

    private static long unsigned64(Jsonb j, String what) {
        BigDecimal d = number(j, "an integer", what);
        try {
            BigInteger v = d.toBigIntegerExact();
            if (v.signum() < 0 || v.bitLength() > 64) throw new SqlException("22003", "value " + d + " is out of range for " + what);
            return v.longValue();
        } catch (ArithmeticException e) {
            throw new SqlException("22P02", "value " + d + " is not an integer for " + what);
        }
    }

    private static double floating(Jsonb j, String what) {
        if (j instanceof Jsonb.Str s) {
            switch (s.value()) {
                case "NaN" -> { return Double.NaN; }
                case "Infinity" -> { return Double.POSITIVE_INFINITY; }
                case "-Infinity" -> { return Double.NEGATIVE_INFINITY; }
                default -> { }
            }
        }
        return number(j, "a number", what).doubleValue();
    }

    private static BigDecimal number(Jsonb j, String expected, String what) {
        if (j instanceof Jsonb.Num n) return n.value();
        if (j instanceof Jsonb.Str s) {
            try {
                return new BigDecimal(s.value());
            } catch (NumberFormatException e) {
                throw mismatch(j, expected, what);
            }
        }
        throw mismatch(j, expected, what);
    }

    private static String text(Jsonb j, String expected, String what) {
        if (!(j instanceof Jsonb.Str s)) throw mismatch(j, expected, what);
        return s.value();
    }

    private static SqlException mismatch(Jsonb j, String expected, String what) {
        String shown = j.toString();
        if (shown.length() > 60) shown = shown.substring(0, 57) + "...";
        return new SqlException("22P02", "invalid JSON for " + what + ": " + shown + " is not " + expected);
    }
}
