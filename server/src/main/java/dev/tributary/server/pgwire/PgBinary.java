package dev.tributary.server.pgwire;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.ShapedArray;
import dev.tributary.sql.types.SqlType;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;

/**
 * PostgreSQL's binary format (format code 1) of every type Tributary has, both ways: the bytes
 * a client sends for a parameter and the bytes sent for a result column.
 *
 * <p>Integers and floats are big-endian two's complement and IEEE 754; bool one byte; text,
 * varchar, bpchar (and untyped values) UTF-8; bytea the bytes; date the days since 2000-01-01 as
 * int4; time the microseconds since midnight, timestamp and timestamptz the microseconds since
 * 2000-01-01 00:00 (UTC for timestamptz), all int8; interval microseconds (int8), days and months
 * (int4 each); numeric the digit count, weight, sign and display scale (int2 each) and then the
 * base-10000 digits, most significant first, the first with the weight's power of 10000; an array
 * its number of dimensions, NULL flag, element OID, each dimension's size and lower bound and
 * then its elements (flat, last subscript fastest), a record its
 * field count and each field's OID and value (elements and fields each with their length, -1 for
 * NULL).
 *
 * <p>Decoding never trusts the input: wrong lengths, bad digits or signs, out-of-range values
 * and invalid UTF-8 are 22P03 (22021 for bad UTF-8), never an exception of another kind.
 */
final class PgBinary {
    private PgBinary() {}

    /** 2000-01-01, PostgreSQL's epoch, in days since 1970-01-01. */
    private static final long EPOCH_DAYS = 10_957;
    private static final long EPOCH_MICROS = EPOCH_DAYS * 86_400_000_000L;
    private static final int NUMERIC_POS = 0x0000;
    private static final int NUMERIC_NEG = 0x4000;
    private static final int NUMERIC_NAN = 0xC000;
    private static final int NUMERIC_PINF = 0xD000;
    private static final int NUMERIC_NINF = 0xF000;
    private static final BigInteger TEN_THOUSAND = BigInteger.valueOf(10_000);

    /** The binary form of {@code v}, a non-null value of {@code t}. */
    static byte[] encode(Object v, SqlType t) {
        return switch (t.kind()) {
            case BOOLEAN -> new byte[] {(byte) ((Boolean) v ? 1 : 0)};
            case SMALLINT -> ByteBuffer.allocate(2).putShort((short) (long) (Long) v).array();
            case INTEGER -> ByteBuffer.allocate(4).putInt((int) (long) (Long) v).array();
            case BIGINT -> ByteBuffer.allocate(8).putLong((Long) v).array();
            case REAL -> ByteBuffer.allocate(4).putFloat((float) (double) (Double) v).array();
            case DOUBLE -> ByteBuffer.allocate(8).putDouble((Double) v).array();
            case NUMERIC -> v instanceof NonFiniteNumeric n ? nonFinite(n) : numeric((BigDecimal) v);
            case TEXT, VARCHAR, CHAR, UNKNOWN, JSON -> ((String) v).getBytes(StandardCharsets.UTF_8);
            // jsonb's binary form is a version byte (1) and then its text
            case JSONB -> {
                byte[] text = v.toString().getBytes(StandardCharsets.UTF_8);
                byte[] out = new byte[text.length + 1];
                out[0] = 1;
                System.arraycopy(text, 0, out, 1, text.length);
                yield out;
            }
            case BYTEA -> ((Bytea) v).toByteArray();
            case UUID -> {
                java.util.UUID u = (java.util.UUID) v;
                yield ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
            }
            case DATE -> ByteBuffer.allocate(4).putInt(switch (InfiniteTimes.sign(v)) {
                case 1 -> Integer.MAX_VALUE;
                case -1 -> Integer.MIN_VALUE;
                default -> (int) (((LocalDate) v).toEpochDay() - EPOCH_DAYS);
            }).array();
            case TIME -> ByteBuffer.allocate(8).putLong(((LocalTime) v).toNanoOfDay() / 1000).array();
            case TIMESTAMP -> ByteBuffer.allocate(8).putLong(pgMicros(((LocalDateTime) v).toInstant(ZoneOffset.UTC))).array();
            case TIMESTAMPTZ -> ByteBuffer.allocate(8).putLong(pgMicros((Instant) v)).array();
            case INTERVAL -> {
                Interval i = (Interval) v;
                yield ByteBuffer.allocate(16).putLong(i.micros()).putInt(i.days()).putInt(i.months()).array();
            }
            case ARRAY -> array((java.util.List<?>) v, t.element());
            case RECORD -> record((java.util.List<?>) v, t.fieldTypes());
        };
    }

    /** array_send: the number of dimensions, a has-NULLs flag, the element OID, each dimension's size and lower bound, then each element. */
    private static byte[] array(java.util.List<?> elements, SqlType element) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int n = ShapedArray.dimensions(elements);
        writeInt(out, n);
        boolean nulls = false;
        for (Object e : elements) nulls |= e == null; // not contains(null): an immutable List.of() throws on it
        writeInt(out, nulls ? 1 : 0);
        writeInt(out, PgTypes.oid(element));
        for (int d = 0; d < n; d++) {
            writeInt(out, ShapedArray.length(elements, d));
            writeInt(out, ShapedArray.lower(elements, d));
        }
        for (Object e : elements) writeValue(out, e, element);
        return out.toByteArray();
    }

    /** record_send: the field count, then each field's type OID and value. */
    private static byte[] record(java.util.List<?> fields, java.util.List<SqlType> types) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeInt(out, fields.size());
        for (int i = 0; i < fields.size(); i++) {
            writeInt(out, PgTypes.oid(types.get(i)));
            writeValue(out, fields.get(i), types.get(i));
        }
        return out.toByteArray();
    }

    private static void writeValue(ByteArrayOutputStream out, Object v, SqlType t) {
        if (v == null) {
            writeInt(out, -1);
            return;
        }
        byte[] b = encode(v, t);
        writeInt(out, b.length);
        out.writeBytes(b);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        writeShort(out, v >>> 16);
        writeShort(out, v);
    }

    private static java.util.List<Object> array(ByteBuffer in, SqlType element, int parameter) {
        int ndim = in.getInt();
        int flags = in.getInt();
        int oid = in.getInt();
        if (ndim < 0 || (flags != 0 && flags != 1)) throw malformed(parameter);
        if (ndim > ShapedArray.MAX_DIMENSIONS) throw ShapedArray.tooManyDimensions(ndim);
        if (oid != PgTypes.oid(element)) throw new SqlException("42804", "wrong element type");
        int[] lengths = new int[ndim], lowers = new int[ndim];
        long size = ndim == 0 ? 0 : 1;
        for (int d = 0; d < ndim; d++) {
            lengths[d] = in.getInt();
            lowers[d] = in.getInt();
            size *= lengths[d];
            if (lengths[d] < 0 || size > in.remaining() / 4) throw malformed(parameter);
        }
        Object[] out = new Object[(int) size];
        for (int i = 0; i < out.length; i++) out[i] = readValue(in, element, parameter);
        return ShapedArray.of(lengths, lowers, out);
    }

    private static java.util.List<Object> record(ByteBuffer in, java.util.List<SqlType> types, int parameter) {
        int n = in.getInt();
        if (n != types.size()) throw malformed(parameter);
        java.util.List<Object> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (in.getInt() != PgTypes.oid(types.get(i))) throw new SqlException("42804", "wrong data type in field " + (i + 1) + " of the record");
            out.add(readValue(in, types.get(i), parameter));
        }
        return java.util.Collections.unmodifiableList(out);
    }

    private static Object readValue(ByteBuffer in, SqlType t, int parameter) {
        int len = in.getInt();
        if (len == -1) return null;
        if (len < 0 || len > in.remaining()) throw malformed(parameter);
        byte[] b = new byte[len];
        in.get(b);
        return decode(b, t, parameter);
    }

    /**
     * The value of {@code t} that {@code b} encodes; {@code parameter} (from 1) names the bind
     * parameter in errors.
     */
    static Object decode(byte[] b, SqlType t, int parameter) {
        ByteBuffer in = ByteBuffer.wrap(b);
        try {
            Object v = switch (t.kind()) {
                case BOOLEAN -> in.get() != 0;
                case SMALLINT -> (long) in.getShort();
                case INTEGER -> (long) in.getInt();
                case BIGINT -> in.getLong();
                case REAL -> (double) in.getFloat();
                case DOUBLE -> in.getDouble();
                case NUMERIC -> numeric(in, parameter);
                case TEXT, VARCHAR, CHAR, UNKNOWN -> {
                    in.position(b.length);
                    yield utf8(b);
                }
                case JSON -> {
                    in.position(b.length);
                    yield dev.tributary.sql.types.Json.parse(utf8(b));
                }
                case JSONB -> {
                    int version = in.get();
                    // PostgreSQL raises this as an internal error; it is the client's bad input
                    if (version != 1) throw new SqlException("22P03", "unsupported jsonb version number " + version);
                    in.position(b.length);
                    yield dev.tributary.sql.types.Jsonb.parse(utf8(java.util.Arrays.copyOfRange(b, 1, b.length)));
                }
                case BYTEA -> {
                    in.position(b.length);
                    yield Bytea.copyOf(b);
                }
                case UUID -> new java.util.UUID(in.getLong(), in.getLong());
                case DATE -> {
                    int days = in.getInt();
                    yield days == Integer.MAX_VALUE ? LocalDate.MAX : days == Integer.MIN_VALUE ? LocalDate.MIN : LocalDate.ofEpochDay(days + EPOCH_DAYS);
                }
                case TIME -> {
                    long us = in.getLong();
                    if (us < 0 || us >= 86_400_000_000L) throw malformed(parameter);
                    yield LocalTime.ofNanoOfDay(us * 1000);
                }
                case TIMESTAMP -> LocalDateTime.ofInstant(instant(in.getLong(), parameter), ZoneOffset.UTC);
                case TIMESTAMPTZ -> instant(in.getLong(), parameter);
                case INTERVAL -> {
                    long us = in.getLong();
                    int days = in.getInt();
                    yield new Interval(in.getInt(), days, us);
                }
                case ARRAY -> array(in, t.element(), parameter);
                case RECORD -> record(in, t.fieldTypes(), parameter);
            };
            if (in.hasRemaining()) throw malformed(parameter);
            return v;
        } catch (BufferUnderflowException | java.time.DateTimeException | ArithmeticException e) {
            throw malformed(parameter);
        }
    }

    /** Text bytes as a string: valid UTF-8 without NUL, as PostgreSQL's server encoding requires. */
    static String utf8(byte[] b) {
        try {
            CharBuffer c = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b));
            String s = c.toString();
            if (s.indexOf('\0') >= 0) throw new SqlException("22021", "invalid byte sequence for encoding \"UTF8\": 0x00");
            return s;
        } catch (CharacterCodingException e) {
            throw new SqlException("22021", "invalid byte sequence for encoding \"UTF8\"");
        }
    }

    private static SqlException malformed(int parameter) {
        return new SqlException("22P03", "incorrect binary data format in bind parameter " + parameter);
    }

    private static long micros(Instant i) {
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
    }

    /** PostgreSQL's microseconds since 2000-01-01, the long's extremes for the infinities. */
    private static long pgMicros(Instant i) {
        return switch (InfiniteTimes.sign(i)) {
            case 1 -> Long.MAX_VALUE;
            case -1 -> Long.MIN_VALUE;
            default -> micros(i) - EPOCH_MICROS;
        };
    }

    private static Instant instant(long pgMicros, int parameter) {
        if (pgMicros == Long.MAX_VALUE || pgMicros == Long.MIN_VALUE) return (Instant) InfiniteTimes.of(SqlType.Kind.TIMESTAMPTZ, Long.signum(pgMicros));
        long us = Math.addExact(pgMicros, EPOCH_MICROS);
        return Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000);
    }

    private static byte[] numeric(BigDecimal v) {
        BigDecimal d = v.scale() < 0 ? v.setScale(0) : v;
        int dscale = d.scale();
        String digits = d.unscaledValue().abs().toString();
        // split at the decimal point, then pad both parts to whole base-10000 digits
        String intPart = digits.length() > dscale ? digits.substring(0, digits.length() - dscale) : "";
        String fracPart = digits.length() > dscale ? digits.substring(digits.length() - dscale) : "0".repeat(dscale - digits.length()) + digits;
        intPart = "0".repeat((4 - intPart.length() % 4) % 4) + intPart;
        fracPart = fracPart + "0".repeat((4 - fracPart.length() % 4) % 4);
        String all = intPart + fracPart;
        int n = all.length() / 4;
        int weight = intPart.length() / 4 - 1;
        int first = 0;
        while (first < n && all.startsWith("0000", first * 4)) first++;
        int last = n;
        while (last > first && all.startsWith("0000", (last - 1) * 4)) last--;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int count = last - first;
        writeShort(out, count);
        writeShort(out, count == 0 ? 0 : weight - first);
        writeShort(out, d.signum() < 0 ? NUMERIC_NEG : NUMERIC_POS);
        writeShort(out, dscale);
        for (int i = first; i < last; i++) writeShort(out, Integer.parseInt(all.substring(i * 4, i * 4 + 4)));
        return out.toByteArray();
    }

    /**
     * NaN and the infinities: no digits, weight 0, the special sign word, and the scale
     * PostgreSQL 15 sends (0 for NaN; 0x20 for an infinity, bits of its header read as a scale),
     * so that the bytes are PostgreSQL's own. Decoding ignores the scale.
     */
    private static byte[] nonFinite(NonFiniteNumeric n) {
        int sign = switch (n) {
            case NAN -> NUMERIC_NAN;
            case POSITIVE_INFINITY -> NUMERIC_PINF;
            case NEGATIVE_INFINITY -> NUMERIC_NINF;
        };
        int scale = n == NonFiniteNumeric.NAN ? 0 : 0x20;
        return ByteBuffer.allocate(8).putShort((short) 0).putShort((short) 0).putShort((short) sign).putShort((short) scale).array();
    }

    private static void writeShort(ByteArrayOutputStream out, int v) {
        out.write((v >> 8) & 0xff);
        out.write(v & 0xff);
    }

    private static Object numeric(ByteBuffer in, int parameter) {
        int ndigits = in.getShort();
        int weight = in.getShort();
        int sign = in.getShort() & 0xffff;
        int dscale = in.getShort();
        if (ndigits < 0 || dscale < 0 || dscale > 0x3FFF) throw malformed(parameter);
        NonFiniteNumeric special = switch (sign) {
            case NUMERIC_NAN -> NonFiniteNumeric.NAN;
            case NUMERIC_PINF -> NonFiniteNumeric.POSITIVE_INFINITY;
            case NUMERIC_NINF -> NonFiniteNumeric.NEGATIVE_INFINITY;
            default -> null;
        };
        if (special != null) {
            if (ndigits != 0 || in.hasRemaining()) throw malformed(parameter);
            return special;
        }
        if (sign != NUMERIC_POS && sign != NUMERIC_NEG) throw malformed(parameter);
        if (in.remaining() != 2 * ndigits) throw malformed(parameter);
        BigInteger unscaled = BigInteger.ZERO;
        for (int i = 0; i < ndigits; i++) {
            int digit = in.getShort();
            if (digit < 0 || digit >= 10_000) throw malformed(parameter);
            unscaled = unscaled.multiply(TEN_THOUSAND).add(BigInteger.valueOf(digit));
        }
        // the digits hold unscaled * 10000^(weight - ndigits + 1)
        BigDecimal v = new BigDecimal(unscaled).scaleByPowerOfTen(4 * (weight - ndigits + 1));
        if (sign == NUMERIC_NEG) v = v.negate();
        return v.setScale(dscale, RoundingMode.HALF_UP);
    }
}
