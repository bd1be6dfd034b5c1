package dev.tributary.sql.row;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.ShapedArray;
import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * Encodes SQL values of fixed column types into {@link Row}s whose unsigned bytewise order is the
 * SQL order, and decodes them back into the Java values {@link SqlType} fixes.
 *
 * <p>Each column is a tag byte, {@code 0x01} for a value or {@code 0x02} for NULL (so NULL sorts
 * after every value, PostgreSQL's default {@code ASC NULLS LAST}), then for a value its payload.
 * Every payload is self-delimiting and no payload is a proper prefix of another of the same type,
 * so comparing two rows bytewise compares them column by column, and concatenating rows' bytes
 * concatenates their columns. Payloads:
 * <ul>
 *   <li>BOOLEAN: one byte, 0 or 1.</li>
 *   <li>SMALLINT, INTEGER, BIGINT: a header byte, then the {@code long}'s low {@code n} bytes,
 *       big-endian, where {@code n} (0 to 8) is the fewest that hold it (for a negative value,
 *       the fewest that hold its complement): the header is {@code 9 + n} for a value of at
 *       least 0 and {@code 8 - n} for a negative one, so a header orders values by sign and
 *       magnitude class, and the bytes within a class. 0 and -1 take one byte, an id below a
 *       million four, where a fixed width took eight: most integers in rows are small, and an
 *       arrangement holds every one of them.</li>
 *   <li>REAL, DOUBLE: the IEEE bits, big-endian, with the sign bit flipped for positive values and
 *       all bits flipped for negative ones (8 bytes). {@code -0.0} is stored as {@code 0.0} and
 *       every NaN as the one canonical NaN, which sorts above infinity, as in PostgreSQL; so
 *       {@code -0.0} decodes as {@code 0.0}.</li>
 *   <li>NUMERIC: a sign byte ({@code 0x01} negative, {@code 0x02} zero, {@code 0x03} positive);
 *       for non-zero values the value written as {@code 0.d1d2...dn × 10^e} with {@code d1 != 0}
 *       and no trailing zero digits: {@code e} as a sign-flipped big-endian int, the digits two
 *       to a byte ({@code 2 + 10*d + d'}, the last pair padded with 0), and a {@code 0x01}
 *       terminator, every byte after the sign inverted for negative values; then the display
 *       scale (fraction digits as written, {@code max(0, scale)}) as two big-endian bytes.
 *       PostgreSQL shows {@code 2.50} as written, so the scale is kept; numerically equal values
 *       of different scales (1.0, 1.00) therefore encode differently, ordered by scale, and the
 *       planner normalises numeric join and group keys (strips trailing zeros) so that they
 *       still meet. The decoded value has that scale, or the column's declared scale if larger.
 *       The non-finite values are one byte each, around the finite ones in PostgreSQL's order:
 *       {@code 0x00} -Infinity, {@code 0x04} Infinity, {@code 0x05} NaN.</li>
 *   <li>TEXT, VARCHAR, UNKNOWN: UTF-8, each {@code 0x00} byte written as {@code 0x00 0xFF}, then
 *       {@code 0x00 0x01}, so a string sorts before its extensions. The order is Unicode code
 *       point order, PostgreSQL's {@code C} collation, not a locale's. A string with an unpaired
 *       surrogate cannot be stored (22021).</li>
 *   <li>CHAR: as TEXT after trailing spaces are removed, since PostgreSQL compares
 *       {@code character} values without them; decoded values are padded back to the declared
 *       length.</li>
 *   <li>BYTEA: the bytes escaped and terminated as TEXT's, so unsigned bytewise order with a
 *       prefix first.</li>
 *   <li>UUID: its 16 bytes, most significant first (unsigned bytewise order is PostgreSQL's).</li>
 *   <li>DATE: the epoch day as a sign-flipped big-endian int (4 bytes; outside int, 22008);
 *       -infinity and infinity are the int's least and greatest values.</li>
 *   <li>TIME: microseconds since midnight; TIMESTAMP: microseconds since 1970-01-01 00:00;
 *       TIMESTAMPTZ: microseconds since the epoch; each a sign-flipped big-endian long (8 bytes),
 *       sub-microsecond digits dropped. Outside the long range, 22008; -infinity and infinity
 *       are the long's least and greatest values.</li>
 *   <li>INTERVAL: the span in microseconds with 30-day months and 24-hour days, as PostgreSQL
 *       compares intervals, as a signed 128-bit big-endian integer with the sign bit flipped
 *       (16 bytes), then the fields it was written with: months and days (sign-flipped
 *       big-endian ints) and microseconds (a sign-flipped big-endian long), 32 bytes in all. So
 *       rows order by span, and {@code '1 mon'} is shown as written; but {@code '1 mon'} and
 *       {@code '30 days'}, equal in PostgreSQL, encode differently: keys are made of
 *       {@link Keys#normalize}d values, in which they meet.</li>
 *   <li>RECORD: the fields as a row of the fields' types (no terminator: the type fixes how many).</li>
 *   <li>ARRAY: each element as a one-column row of the element type (its tag, then its
 *       payload), then a {@code 0x00} terminator, which sorts below both tags: arrays compare
 *       element by element, a prefix first, as PostgreSQL compares one-dimensional arrays. A
 *       {@link ShapedArray} (more than one dimension, or a lower bound other than 1) starts
 *       with a {@code 0x03} marker (neither a tag nor the terminator), and after its terminator
 *       has its shape: the number of dimensions as a byte, then each dimension's length and
 *       then each lower bound as integers. The marker comes first so that a decoder knows the
 *       shape follows without looking past the value (a row's last column may be followed by
 *       anything) and the encodings stay prefix-free; so shaped arrays compare with each other
 *       as PostgreSQL compares them (elements, their number, dimensions, lengths, lower
 *       bounds), but all sort after the one-dimensional ones, which PostgreSQL interleaves
 *       (a sort key therefore takes an array's {@link #arrayOrderBytes}).
 *       One-dimensional arrays from 1 are encoded as they were before shapes were stored.</li>
 *   <li>JSONB: a tree of tagged values in PostgreSQL's jsonb order, as {@link JsonbCodec} says.
 *       Its numbers keep their scale as NUMERIC's do, so equal documents ({@code 1.0} and
 *       {@code 1}) meet as keys only in their {@link Keys#normalize}d form.</li>
 * </ul>
 *
 * <p>Encoding checks each value's Java class; a value of the wrong class is a bug in the caller
 * and raises {@link IllegalArgumentException} naming the column.
 */
public final class RowCodec {
    static final byte VALUE = 0x01;
    static final byte NULL = 0x02;

    private static final byte NUM_NEGATIVE_INFINITY = 0x00;
    private static final byte NUM_NEGATIVE = 0x01;
    private static final byte NUM_ZERO = 0x02;
    private static final byte NUM_POSITIVE = 0x03;
    private static final byte NUM_POSITIVE_INFINITY = 0x04;
    private static final byte NUM_NAN = 0x05;
    private static final byte NUM_END = 0x01;
    private static final int NUM_DIGIT_BASE = 2;

    private final List<SqlType> types;
    private final SqlType.Kind[] kinds;
    /** Payload bytes of each column when fixed, else {@link #VARIABLE} or {@link #INTEGER}. */
    private final int[] widths;
    private static final int VARIABLE = -1;
    /** The width of an integer column: a header byte says how many follow. */
    private static final int INTEGER = -2;
    /** For each ARRAY column, the codec of its elements (one column); for each RECORD column, of its fields; null for other columns. */
    private final RowCodec[] elements;
    private static final byte ARRAY_END = 0x00;
    /** Before a {@link ShapedArray}'s elements: its shape follows its terminator. */
    private static final byte ARRAY_SHAPE = 0x03;

    public RowCodec(List<SqlType> types) {
        this.types = List.copyOf(types);
        int n = this.types.size();
        this.kinds = new SqlType.Kind[n];
        this.widths = new int[n];
        this.elements = new RowCodec[n];
        for (int i = 0; i < n; i++) {
            kinds[i] = this.types.get(i).kind();
            widths[i] = payloadWidth(kinds[i]);
            if (kinds[i] == SqlType.Kind.ARRAY) elements[i] = new RowCodec(List.of(this.types.get(i).element()));
            if (kinds[i] == SqlType.Kind.RECORD) elements[i] = new RowCodec(this.types.get(i).fieldTypes());
        }
    }

    public static RowCodec of(SqlType... types) {
        return new RowCodec(List.of(types));
    }

    private static int payloadWidth(SqlType.Kind kind) {
        return switch (kind) {
            case BOOLEAN -> 1;
            case SMALLINT, INTEGER, BIGINT -> INTEGER;
            case REAL, DOUBLE, TIME, TIMESTAMP, TIMESTAMPTZ -> 8;
            case DATE -> 4;
            case INTERVAL -> 32;
            case UUID -> 16;
            case NUMERIC, TEXT, VARCHAR, CHAR, BYTEA, UNKNOWN, ARRAY, RECORD, JSON, JSONB -> VARIABLE;
        };
    }

    /** The column types. */
    public List<SqlType> types() {
        return types;
    }

    public int arity() {
        return kinds.length;
    }

    /** The codec of rows made by {@link #concat(Row, Row)} of a row of this codec and one of {@code other}. */
    public RowCodec concat(RowCodec other) {
        List<SqlType> all = new ArrayList<>(types);
        all.addAll(other.types);
        return new RowCodec(all);
    }

    /** The codec of rows made by {@link #project(Row, int[])} with {@code columns}. */
    public RowCodec project(int[] columns) {
        List<SqlType> out = new ArrayList<>(columns.length);
        for (int c : columns) out.add(types.get(c));
        return new RowCodec(out);
    }

    // ------------------------------------------------------------------------------------------
    // Encoding

    /** The row of {@code values}, one per column, each of its type's Java class or null. */
    public Row encode(Object... values) {
        if (values.length != kinds.length) {
            throw new IllegalArgumentException("a row of " + types + " needs " + kinds.length + " values; got " + values.length);
        }
        if (values.length == 0) return Row.EMPTY;
        Writer w = new Writer(16 * values.length);
        for (int c = 0; c < values.length; c++) writeColumn(w, c, values[c]);
        return new Row(w.toArray());
    }

    /**
     * A row of this codec's columns: column {@code c} a byte copy of column {@code from[c]} of
     * {@code in} (a row of a codec whose column {@code k} is {@code in}'s bytes
     * {@code [at[k], at[k + 1])}, as {@link #bounds} gives them) when {@code from[c] >= 0}, else
     * {@code values[c]} encoded. A map's output whose columns are mostly its input's, copied
     * rather than decoded and encoded again.
     */
    public Row splice(Row in, int[] at, int[] from, Object[] values) {
        if (from.length != kinds.length) throw new IllegalArgumentException("a row of " + types + " needs " + kinds.length + " columns; got " + from.length);
        if (from.length == 0) return Row.EMPTY;
        Writer w = new Writer(in.bytes.length + 16);
        for (int c = 0; c < from.length; c++) {
            int k = from[c];
            if (k < 0) {
                writeColumn(w, c, values[c]);
                continue;
            }
            int n = at[k + 1] - at[k];
            w.ensure(n);
            System.arraycopy(in.bytes, at[k], w.buf, w.length, n);
            w.length += n;
        }
        return new Row(w.toArray());
    }

    /** Column {@code c}'s tag and payload: {@code v}, of its type's Java class, or null. */
    private void writeColumn(Writer w, int c, Object v) {
        if (v == null) {
            w.put(NULL);
            return;
        }
        w.put(VALUE);
        try {
            writeValue(w, c, v);
        } catch (ClassCastException e) {
            throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + "; its value must be a "
                    + javaClassOf(kinds[c]) + ", got " + v.getClass().getSimpleName() + " " + v, e);
        }
    }

    /** A builder of rows of this codec's columns, one column at a time, reused row after row. */
    public Builder builder() {
        return new Builder();
    }

    /**
     * Builds one row at a time into a reusable buffer, column by column in order, without boxing the
     * values that have a direct form (integers, UTF-8 text): a bulk load's rows go from their text
     * straight into a slab. {@link #reset} starts a row; after the last column the row is
     * {@code buffer()[0 .. length())}.
     */
    public final class Builder {
        private final Writer w = new Writer(64);
        private int column;

        private Builder() {}

        /** Starts a new row at its first column. */
        public void reset() {
            w.length = 0;
            column = 0;
        }

        /** The next column is NULL. */
        public void putNull() {
            next();
            w.put(NULL);
        }

        /** The next column, an integer column (SMALLINT, INTEGER or BIGINT; its range checked by the caller), is {@code v}. */
        public void putInteger(long v) {
            int c = next();
            if (widths[c] != INTEGER) throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + ", not an integer");
            w.put(VALUE);
            w.putInteger(v);
        }

        /**
         * The next column, a TEXT (or unknown) column, is the string whose UTF-8 is
         * {@code utf8[from .. to)}, already checked to be valid UTF-8.
         */
        public void putText(byte[] utf8, int from, int to) {
            int c = next();
            if (kinds[c] != SqlType.Kind.TEXT && kinds[c] != SqlType.Kind.UNKNOWN) {
                throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + ", not text");
            }
            w.put(VALUE);
            w.ensure(to - from + 2);
            // runs between 0x00 bytes (almost always the whole text) copied at once
            for (int i = from; ; ) {
                int zero = firstZero(utf8, i, to);
                System.arraycopy(utf8, i, w.buf, w.length, zero - i);
                w.length += zero - i;
                if (zero == to) break;
                w.put(0);
                w.put(0xFF);
                i = zero + 1;
            }
            w.put(0);
            w.put(1);
        }

        /**
         * The next column, a NUMERIC column, is {@code unscaled} x 10^-{@code scale} ({@code scale}
         * >= 0), already fitted to the column's precision and scale by the caller (a scale at most
         * the column's): the bytes {@link #putValue} writes for that {@link BigDecimal}, with none made.
         */
        public void putNumeric(long unscaled, int scale) {
            int c = next();
            if (kinds[c] != SqlType.Kind.NUMERIC) throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + ", not numeric");
            if (unscaled == Long.MIN_VALUE || scale < 0) throw new IllegalArgumentException("numeric " + unscaled + "e-" + scale + " is out of the long path's range");
            w.put(VALUE);
            writeNumeric(w, unscaled, scale, Math.max(Math.max(0, types.get(c).scale()), scale));
        }

        /**
         * The next column, a TIMESTAMP or TIMESTAMPTZ column, is the finite time {@code micros}
         * microseconds after 1970-01-01 00:00 (UTC for a TIMESTAMPTZ): the bytes {@link #putValue}
         * writes for that {@link LocalDateTime} or {@link Instant}, with none made.
         */
        public void putTimestamp(long micros) {
            int c = next();
            if (kinds[c] != SqlType.Kind.TIMESTAMP && kinds[c] != SqlType.Kind.TIMESTAMPTZ) {
                throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + ", not a timestamp");
            }
            // the long's extremes stand for the infinities
            if (micros == Long.MAX_VALUE || micros == Long.MIN_VALUE) throw new IllegalArgumentException(micros + " is not a finite timestamp");
            w.put(VALUE);
            w.putLong(micros ^ Long.MIN_VALUE);
        }

        /** The next column, a DATE column, is the finite date {@code epochDay} days after 1970-01-01: the bytes {@link #putValue} writes for that {@link LocalDate}. */
        public void putDate(int epochDay) {
            int c = next();
            if (kinds[c] != SqlType.Kind.DATE) throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + ", not a date");
            if (epochDay == Integer.MAX_VALUE || epochDay == Integer.MIN_VALUE) throw new IllegalArgumentException(epochDay + " is not a finite date");
            w.put(VALUE);
            w.putInt(epochDay ^ Integer.MIN_VALUE);
        }

        /**
         * The next column, a TIMESTAMP, TIMESTAMPTZ or integer column, is the value that is
         * {@code ticks} of its units: what {@link #getTicks} reads back (microseconds since the
         * epoch, the long's extremes the infinities; an integer's range checked by the caller, as
         * for {@link #putInteger}). A window's bounds written from the longs they are computed as.
         */
        public void putTicks(long ticks) {
            int c = next();
            w.put(VALUE);
            switch (kinds[c]) {
                case TIMESTAMP, TIMESTAMPTZ -> w.putLong(ticks ^ Long.MIN_VALUE);
                case SMALLINT, INTEGER, BIGINT -> w.putInteger(ticks);
                default -> throw new IllegalArgumentException("column " + (c + 1) + " is " + types.get(c) + ", not a time");
            }
        }

        /** The next column is {@code v}, of its type's Java class, or null. */
        public void putValue(Object v) {
            writeColumn(w, next(), v);
        }

        /** The row's bytes so far, from 0 to {@link #length()}; overwritten by the next row. */
        public byte[] buffer() {
            return w.buf;
        }

        public int length() {
            return w.length;
        }

        private int next() {
            if (column == kinds.length) throw new IllegalStateException("a row of " + types + " has only " + kinds.length + " columns");
            return column++;
        }
    }

    private void writeValue(Writer w, int c, Object v) {
        switch (kinds[c]) {
            case BOOLEAN -> w.put((Boolean) v ? 1 : 0);
            case SMALLINT, INTEGER, BIGINT -> w.putInteger((Long) v);
            case REAL, DOUBLE -> w.putLong(doubleKey((Double) v));
            case NUMERIC -> {
                if (v instanceof NonFiniteNumeric n) w.put(switch (n) {
                    case NEGATIVE_INFINITY -> NUM_NEGATIVE_INFINITY;
                    case POSITIVE_INFINITY -> NUM_POSITIVE_INFINITY;
                    case NAN -> NUM_NAN;
                });
                else writeNumeric(w, (BigDecimal) v, types.get(c).scale());
            }
            case TEXT, VARCHAR, UNKNOWN, JSON -> writeString(w, (String) v);
            case JSONB -> JsonbCodec.write(w, (Jsonb) v);
            case CHAR -> writeString(w, stripTrailingSpaces((String) v));
            case BYTEA -> writeEscaped(w, ((Bytea) v).toByteArray());
            case UUID -> {
                java.util.UUID u = (java.util.UUID) v;
                w.putLong(u.getMostSignificantBits());
                w.putLong(u.getLeastSignificantBits());
            }
            case DATE -> w.putInt(epochDay((LocalDate) v) ^ Integer.MIN_VALUE);
            case TIME -> w.putLong(((LocalTime) v).toNanoOfDay() / 1000 ^ Long.MIN_VALUE);
            case TIMESTAMP -> {
                LocalDateTime t = (LocalDateTime) v;
                int inf = InfiniteTimes.sign(t);
                w.putLong((inf != 0 ? infiniteMicros(inf) : epochMicros(t.toEpochSecond(ZoneOffset.UTC), t.getNano(), "timestamp")) ^ Long.MIN_VALUE);
            }
            case TIMESTAMPTZ -> {
                Instant t = (Instant) v;
                int inf = InfiniteTimes.sign(t);
                w.putLong((inf != 0 ? infiniteMicros(inf) : epochMicros(t.getEpochSecond(), t.getNano(), "timestamp with time zone")) ^ Long.MIN_VALUE);
            }
            case INTERVAL -> writeInterval(w, (Interval) v);
            case ARRAY -> {
                if (v instanceof ShapedArray) w.put(ARRAY_SHAPE);
                for (Object e : (List<?>) v) {
                    byte[] element = elements[c].encode(e).bytes;
                    for (byte b : element) w.put(b);
                }
                w.put(ARRAY_END);
                if (v instanceof ShapedArray a) {
                    int n = ShapedArray.dimensions(a);
                    w.put(n);
                    for (int d = 0; d < n; d++) w.putInteger(ShapedArray.length(a, d));
                    for (int d = 0; d < n; d++) w.putInteger(ShapedArray.lower(a, d));
                }
            }
            case RECORD -> {
                byte[] fields = elements[c].encode(((List<?>) v).toArray()).bytes;
                for (byte b : fields) w.put(b);
            }
        }
    }

    private static String javaClassOf(SqlType.Kind kind) {
        return switch (kind) {
            case BOOLEAN -> "Boolean";
            case SMALLINT, INTEGER, BIGINT -> "Long";
            case REAL, DOUBLE -> "Double";
            case NUMERIC -> "BigDecimal";
            case TEXT, VARCHAR, CHAR, UNKNOWN, JSON -> "String";
            case JSONB -> "Jsonb";
            case BYTEA -> "Bytea";
            case UUID -> "UUID";
            case DATE -> "LocalDate";
            case TIME -> "LocalTime";
            case TIMESTAMP -> "LocalDateTime";
            case TIMESTAMPTZ -> "Instant";
            case INTERVAL -> "Interval";
            case ARRAY, RECORD -> "List";
        };
    }

    /** The order-preserving bits of {@code d}: -0.0 as 0.0, every NaN as the canonical NaN. */
    static long doubleKey(double d) {
        if (d == 0.0) d = 0.0;
        long bits = Double.doubleToLongBits(d);
        return bits ^ ((bits >> 63) | Long.MIN_VALUE);
    }

    static double doubleFromKey(long key) {
        return Double.longBitsToDouble(key ^ ((~key >> 63) | Long.MIN_VALUE));
    }

    private static int epochDay(LocalDate d) {
        int inf = InfiniteTimes.sign(d);
        if (inf != 0) return inf > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE;
        long day = d.toEpochDay();
        if (day != (int) day || day == Integer.MAX_VALUE || day == Integer.MIN_VALUE) throw new SqlException("22008", "date out of range: \"" + d + "\"");
        return (int) day;
    }

    private static long epochMicros(long seconds, int nanos, String what) {
        long micros = nanos / 1000;
        if (seconds < 0 && micros > 0) {
            seconds++;
            micros -= 1_000_000L;
        }
        try {
            long m = Math.addExact(Math.multiplyExact(seconds, 1_000_000L), micros);
            // the extremes are the infinities
            if (m != Long.MAX_VALUE && m != Long.MIN_VALUE) return m;
        } catch (ArithmeticException e) {
            // out of range below
        }
        throw new SqlException("22008", what + " out of range");
    }

    private static long infiniteMicros(int sign) {
        return sign > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    private static String stripTrailingSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') end--;
        return end == s.length() ? s : s.substring(0, end);
    }

    static void writeNumeric(Writer w, BigDecimal v, int declaredScale) {
        int display = Math.max(Math.max(0, declaredScale), v.scale());
        if (v.precision() <= 18) {
            // the common case (money, quantities): from a long, without BigInteger's string
            writeNumeric(w, v.unscaledValue().longValue(), v.scale(), display);
            return;
        }
        BigDecimal s = v.stripTrailingZeros();
        String text = s.unscaledValue().abs().toString();
        int n = text.length();
        byte[] digits = new byte[n];
        for (int i = 0; i < n; i++) digits[i] = (byte) (text.charAt(i) - '0');
        writeDigits(w, v.signum(), digits, n, s.scale(), display);
    }

    /** A NUMERIC of {@code unscaled} x 10^-{@code scale} (of at most 18 digits), shown with {@code display} fraction digits. */
    private static void writeNumeric(Writer w, long unscaled, long scale, int display) {
        if (display > 0xFFFF) throw new SqlException("22003", "value overflows numeric format");
        int sign = Long.signum(unscaled);
        if (sign == 0) {
            w.put(NUM_ZERO);
            w.put(display >>> 8);
            w.put(display & 0xFF);
            return;
        }
        // the significant digits, most significant first, without trailing zeros
        long u = Math.abs(unscaled);
        while (u % 10 == 0) {
            u /= 10;
            scale--;
        }
        int n = 0;
        for (long x = u; x != 0; x /= 10) n++;
        byte[] digits = new byte[n];
        for (int i = n - 1; i >= 0; i--, u /= 10) digits[i] = (byte) (u % 10);
        writeDigits(w, sign, digits, n, scale, display);
    }

    private static void writeDigits(Writer w, int sign, byte[] digits, int n, long scale, int display) {
        if (display > 0xFFFF) throw new SqlException("22003", "value overflows numeric format");
        if (sign == 0) {
            w.put(NUM_ZERO);
            w.put(display >>> 8);
            w.put(display & 0xFF);
            return;
        }
        long exponent = n - scale;
        if (exponent != (int) exponent) throw new SqlException("22003", "value overflows numeric format");
        w.put(sign > 0 ? NUM_POSITIVE : NUM_NEGATIVE);
        int start = w.length;
        w.putInt((int) exponent ^ Integer.MIN_VALUE);
        for (int i = 0; i < n; i += 2) w.put(NUM_DIGIT_BASE + 10 * digits[i] + (i + 1 < n ? digits[i + 1] : 0));
        w.put(NUM_END);
        if (sign < 0) w.invert(start);
        w.put(display >>> 8);
        w.put(display & 0xFF);
    }

    static void writeString(Writer w, String s) {
        int n = s.length();
        w.ensure(n + 2);
        for (int i = 0; i < n; i++) {
            char ch = s.charAt(i);
            if (ch == 0) {
                w.put(0);
                w.put(0xFF);
            } else if (ch < 0x80) {
                w.put(ch);
            } else if (ch < 0x800) {
                w.put(0xC0 | ch >> 6);
                w.put(0x80 | ch & 0x3F);
            } else if (Character.isSurrogate(ch)) {
                if (!Character.isHighSurrogate(ch) || i + 1 == n || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    throw new SqlException("22021", "invalid Unicode string: unpaired surrogate at character " + (i + 1));
                }
                int cp = Character.toCodePoint(ch, s.charAt(++i));
                w.put(0xF0 | cp >> 18);
                w.put(0x80 | cp >> 12 & 0x3F);
                w.put(0x80 | cp >> 6 & 0x3F);
                w.put(0x80 | cp & 0x3F);
            } else {
                w.put(0xE0 | ch >> 12);
                w.put(0x80 | ch >> 6 & 0x3F);
                w.put(0x80 | ch & 0x3F);
            }
        }
        w.put(0);
        w.put(1);
    }

    private static void writeEscaped(Writer w, byte[] bytes) {
        w.ensure(bytes.length + 2);
        for (byte b : bytes) {
            w.put(b);
            if (b == 0) w.put(0xFF);
        }
        w.put(0);
        w.put(1);
    }

    private static void writeInterval(Writer w, Interval v) {
        long days = v.months() * 30L + v.days();
        long hi = Math.multiplyHigh(days, Interval.MICROS_PER_DAY);
        long lo = days * Interval.MICROS_PER_DAY;
        long sum = lo + v.micros();
        hi += (v.micros() >> 63) + (Long.compareUnsigned(sum, lo) < 0 ? 1 : 0);
        w.putLong(hi ^ Long.MIN_VALUE);
        w.putLong(sum);
        w.putLong(((long) v.months() << 32 | v.days() & 0xFFFFFFFFL) ^ (1L << 63 | 1L << 31));
        w.putLong(v.micros() ^ Long.MIN_VALUE);
    }

    // ------------------------------------------------------------------------------------------
    // Decoding

    /** The values of {@code row}, one per column, null for NULL. */
    public Object[] decode(Row row) {
        Object[] out = new Object[kinds.length];
        if (decode(row.bytes, 0, out, 0) != row.bytes.length) throw malformed(row);
        return out;
    }

    /**
     * Decodes row {@code i} of {@code rows} (a column of rows, {@link RowDataType}'s) into
     * {@code out[at .. at + arity())}, one value per column, null for NULL: a row's values read
     * where it is stored, with no {@link Row} or array of its own made.
     */
    public void decode(dev.tributary.arrangements.Column rows, int i, Object[] out, int at) {
        BytesColumn column = (BytesColumn) rows;
        int end = column.start(i + 1);
        if (decode(column.slab(), column.start(i), out, at) != end) {
            throw new IllegalArgumentException("not a row of " + types + ": row " + i + " of a column ends at byte " + end);
        }
    }

    /** Decodes the row encoded in {@code b} from {@code start} on into {@code out[at ..]}; returns where the row ends. */
    private int decode(byte[] b, int start, Object[] out, int at) {
        int pos = start;
        for (int c = 0; c < kinds.length; c++) {
            out[at + c] = read(b, pos, c);
            pos = end(b, pos, c);
        }
        return pos;
    }

    /**
     * The values of {@code row}'s columns up to {@code last} that {@code wanted} holds, one per
     * column of the row (null for NULL and for the columns not wanted, which are skipped, not
     * decoded): what an expression over a few of a wide row's columns needs.
     */
    public Object[] decode(Row row, java.util.BitSet wanted, int last) {
        byte[] b = row.bytes;
        Object[] out = new Object[kinds.length];
        int pos = 0;
        for (int c = 0; c <= last; c++) {
            if (wanted.get(c)) out[c] = read(b, pos, c);
            pos = end(b, pos, c);
        }
        return out;
    }

    /** The value of column {@code column} of {@code row}, decoding only that column. */
    public Object get(Row row, int column) {
        return read(row.bytes, offset(row.bytes, column), column);
    }

    /**
     * Column {@code column} of {@code row}, a timestamp, timestamptz or integer, as a long
     * (microseconds since the epoch for the times), read in place without making a value;
     * {@code ifNull} for NULL. What a stream's event time and a window's end are compared as.
     */
    public long getTicks(Row row, int column, long ifNull) {
        return getTicks(row.bytes, offset(row.bytes, column), column, ifNull);
    }

    /**
     * {@link #getTicks(Row, int, long)} of the column {@code column} that starts (with its tag) at
     * {@code pos} of {@code b} (where {@link #bounds(byte[], int, int)} found it): a row read where
     * it is stored.
     */
    public long getTicks(byte[] b, int pos, int column, long ifNull) {
        if (b[pos] == NULL) return ifNull;
        return switch (kinds[column]) {
            case TIMESTAMP, TIMESTAMPTZ -> getLong(b, pos + 1) ^ Long.MIN_VALUE;
            case SMALLINT, INTEGER, BIGINT -> getInteger(b, pos + 1);
            default -> throw new IllegalArgumentException("column " + column + " of " + types + " is not a time");
        };
    }

    /**
     * Whether column {@code column} of {@code row} holds the same bytes as the one column of
     * {@code value} (encoded with a codec of that column's type), compared in place. For a type
     * whose every value has one encoding (text, integers, booleans, dates), that is whether
     * the two are equal, without decoding either.
     */
    public boolean columnBytesEqual(Row row, int column, Row value) {
        return columnBytesEqual(row.bytes, 0, column, value);
    }

    /** {@link #columnBytesEqual(Row, int, Row)} of the row encoded in {@code b} from {@code start} on (a batch's column of rows). */
    public boolean columnBytesEqual(byte[] b, int start, int column, Row value) {
        int from = offset(b, start, column);
        int to = end(b, from, column);
        byte[] v = value.bytes;
        return to - from == v.length && java.util.Arrays.equals(b, from, to, v, 0, v.length);
    }

    /**
     * The sign of column {@code column} of {@code row} against {@code value} (one value encoded as
     * that column is) in the order of their encodings, or {@link #NULL_COLUMN} when the column is
     * NULL. For kinds whose encoding keeps their order ({@link #orderedEncoding}) that is the
     * order of the values.
     */
    public int compareColumnBytes(Row row, int column, Row value) {
        return compareColumnBytes(row.bytes, 0, column, value);
    }

    /** {@link #compareColumnBytes(Row, int, Row)} of the row encoded in {@code b} from {@code start} on (a batch's column of rows). */
    public int compareColumnBytes(byte[] b, int start, int column, Row value) {
        int from = offset(b, start, column);
        if (b[from] == NULL) return NULL_COLUMN;
        int to = end(b, from, column);
        return Arrays.compareUnsigned(b, from, to, value.bytes, 0, value.bytes.length);
    }

    /** What {@link #compareColumnBytes} returns for a NULL column. */
    public static final int NULL_COLUMN = Integer.MIN_VALUE;

    /**
     * Whether the encodings of {@code kind}'s values, compared as unsigned bytes, are in the order
     * of the values: integers (a header byte saying how many bytes follow, then the value's
     * significant bytes) and dates (four bytes, sign flipped). Not text, whose SQL order is not
     * the order of its UTF-8 bytes for every character.
     */
    public static boolean orderedEncoding(SqlType.Kind kind) {
        return kind == SqlType.Kind.SMALLINT || kind == SqlType.Kind.INTEGER || kind == SqlType.Kind.BIGINT || kind == SqlType.Kind.DATE;
    }

    /**
     * Column {@code c} of {@code row}, an array that is not NULL, as bytes whose unsigned order is
     * PostgreSQL's order of arrays of every shape, for sort keys: the tag, the elements and the
     * terminator as stored, then always the shape (the number of dimensions as a byte, each
     * length, each lower bound), which the stored encoding writes only for a {@link ShapedArray}
     * and so sorts every shaped array after the one-dimensional ones. Prefix-free, like the
     * stored encoding.
     */
    public byte[] arrayOrderBytes(Row row, int c) {
        List<?> a = (List<?>) get(row, c);
        Writer w = new Writer(16 + 4 * a.size());
        w.put(VALUE);
        for (Object e : a) {
            byte[] element = elements[c].encode(e).bytes;
            for (byte b : element) w.put(b);
        }
        w.put(ARRAY_END);
        int n = ShapedArray.dimensions(a);
        w.put(n);
        for (int d = 0; d < n; d++) w.putInteger(ShapedArray.length(a, d));
        for (int d = 0; d < n; d++) w.putInteger(ShapedArray.lower(a, d));
        return w.toArray();
    }

    /** Whether column {@code column} of {@code row} is NULL. */
    public boolean isNull(Row row, int column) {
        return row.bytes[offset(row.bytes, column)] == NULL;
    }

    /** Whether column {@code column} of the row encoded in {@code b} from {@code start} on is NULL. */
    public boolean isNull(byte[] b, int start, int column) {
        return b[offset(b, start, column)] == NULL;
    }

    /** The row of {@code row}'s columns at {@code columns}, in that order (repeats allowed): byte copies. */
    public Row project(Row row, int[] columns) {
        return project(row, columns, lastOf(columns));
    }

    /** A projection onto {@code columns} (in that order, repeats allowed), set up once for the many rows it is applied to. */
    public Projection projection(int[] columns) {
        return new Projection(columns.clone());
    }

    /** {@link #project(Row, int[])} of rows of this codec onto fixed columns, as a row or straight into a column of rows. */
    public final class Projection {
        private final int[] columns;
        private final int last;

        private Projection(int[] columns) {
            this.columns = columns;
            this.last = lastOf(columns);
        }

        /** The projected row (a byte copy). */
        public Row apply(Row row) {
            return project(row, columns, last);
        }

        /**
         * Appends the projection of row {@code i} of {@code rows} (a column of encoded rows, as
         * {@link RowDataType} makes) to {@code into}, as one value, and returns true: a
         * column-to-column map of a dataflow's rows.
         */
        public boolean map(dev.tributary.arrangements.Column rows, int i, dev.tributary.arrangements.Column into) {
            BytesColumn r = (BytesColumn) rows;
            into(r.slab(), r.start(i), (BytesColumn) into);
            return true;
        }

        /** Appends the projection of the row encoded in {@code b} from {@code start} on to {@code into}, as one value. */
        public void into(byte[] b, int start, BytesColumn into) {
            if (columns.length > 0) {
                int[] at = bounds(b, start, last);
                // adjacent columns go as one range
                int runStart = at[columns[0]], runEnd = at[columns[0] + 1];
                for (int k = 1; k < columns.length; k++) {
                    int c = columns[k];
                    if (at[c] != runEnd) {
                        into.addPart(b, runStart, runEnd - runStart);
                        runStart = at[c];
                    }
                    runEnd = at[c + 1];
                }
                into.addPart(b, runStart, runEnd - runStart);
            }
            into.endValue();
        }
    }

    private Row project(Row row, int[] columns, int last) {
        if (columns.length == 0) return Row.EMPTY;
        byte[] b = row.bytes;
        int[] at = bounds(b, 0, last);
        int length = 0;
        for (int c : columns) length += at[c + 1] - at[c];
        byte[] out = new byte[length];
        int to = 0;
        for (int c : columns) {
            int n = at[c + 1] - at[c];
            System.arraycopy(b, at[c], out, to, n);
            to += n;
        }
        return new Row(out);
    }

    /**
     * Where each column up to {@code last} of the row encoded in {@code b} from {@code start} on
     * begins and ends: column {@code c} is {@code [at[c], at[c + 1])}, found in one walk (a text
     * column is stepped over by a scan for its terminator, so a projection that walked from the
     * row's start for each column it takes paid for the long columns before it again and
     * again). The array is this thread's scratch, valid until its next call (of this or a
     * projection): one projection runs on every worker at once.
     */
    public int[] bounds(byte[] b, int start, int last) {
        if (last < -1 || last >= kinds.length) throw new IndexOutOfBoundsException("column " + last + " of a row of " + kinds.length + " columns");
        int[] at = BOUNDS.get();
        if (at.length < last + 2) {
            at = new int[Math.max(last + 2, at.length * 2)];
            BOUNDS.set(at);
        }
        at[0] = start;
        for (int c = 0; c <= last; c++) at[c + 1] = end(b, at[c], c);
        return at;
    }

    private static final ThreadLocal<int[]> BOUNDS = ThreadLocal.withInitial(() -> new int[32]);

    /**
     * Where each column up to {@code last} of {@code row} begins and ends, found in one walk:
     * column {@code c} is the bytes {@code [at[c], at[c + 1])} of {@link Row#toBytes()} (its tag
     * first; a NULL is its tag alone). For reading several columns of a wide row without walking
     * it once per column. The array is this thread's scratch (no allocation per row), valid until
     * its next call of this or a projection.
     */
    public int[] bounds(Row row, int last) {
        return bounds(row.bytes, 0, last);
    }

    /** Whether the column that begins at {@code pos} of {@code row} (a start {@link #bounds} gave) is NULL. */
    public static boolean isNullAt(Row row, int pos) {
        return row.bytes[pos] == NULL;
    }

    /** Whether the column that begins at {@code pos} of {@code b} (a start {@link #bounds} gave) is NULL. */
    public static boolean isNullAt(byte[] b, int pos) {
        return b[pos] == NULL;
    }


    /** The largest of {@code columns} (-1 for none): how far a projection onto them walks. */
    private int lastOf(int[] columns) {
        int last = -1;
        for (int c : columns) {
            if (c < 0 || c >= kinds.length) throw new IndexOutOfBoundsException("column " + c + " of a row of " + kinds.length + " columns");
            last = Math.max(last, c);
        }
        return last;
    }

    /**
     * Whether equal values of {@code kind} are equal bytes in a row, so that an equality can be
     * tested on the encoding: not numeric (1.0 and 1.00), floating point (0 and -0), char(n)
     * (padding) or interval (1 day and 24 hours).
     */
    public static boolean oneEncoding(SqlType.Kind kind) {
        return ONE_ENCODING.contains(kind);
    }

    private static final java.util.Set<SqlType.Kind> ONE_ENCODING = java.util.EnumSet.of(SqlType.Kind.BOOLEAN,
            SqlType.Kind.SMALLINT, SqlType.Kind.INTEGER, SqlType.Kind.BIGINT, SqlType.Kind.TEXT, SqlType.Kind.VARCHAR, SqlType.Kind.DATE);


    /** The columns of {@code row} after its first ones, which are this codec's columns (a byte copy). */
    public Row suffix(Row row) {
        byte[] b = row.bytes;
        int pos = 0;
        for (int c = 0; c < kinds.length; c++) pos = end(b, pos, c);
        return Row.fromBytes(b, pos, b.length - pos);
    }

    /** The row of {@code a}'s columns then {@code b}'s (a byte copy); its codec is {@link #concat(RowCodec)}. */
    public Row concat(Row a, Row b) {
        return Row.concat(a, b);
    }

    /** The row's values as PostgreSQL's row literal roughly shows them, e.g. {@code (1,abc,NULL)}, for debugging. */
    public String format(Row row) {
        StringJoiner j = new StringJoiner(",", "(", ")");
        for (Object v : decode(row)) j.add(v == null ? "NULL" : String.valueOf(v));
        return j.toString();
    }

    /** Where column {@code column} of the row encoded in {@code b} from {@code start} on starts (its tag). */
    public int columnStart(byte[] b, int start, int column) {
        return offset(b, start, column);
    }

    /** Where column {@code column}, which starts (with its tag) at {@code columnStart} in {@code b}, ends. */
    public int columnEnd(byte[] b, int columnStart, int column) {
        return end(b, columnStart, column);
    }

    private int offset(byte[] b, int column) {
        return offset(b, 0, column);
    }

    /** Where column {@code column} starts in the row encoded in {@code b} from {@code start} on. */
    private int offset(byte[] b, int start, int column) {
        if (column < 0 || column >= kinds.length) {
            throw new IndexOutOfBoundsException("column " + column + " of a row of " + kinds.length + " columns");
        }
        int pos = start;
        for (int c = 0; c < column; c++) pos = end(b, pos, c);
        return pos;
    }

    /** The end of column {@code c}, which starts (with its tag) at {@code pos}. */
    private int end(byte[] b, int pos, int c) {
        if (b[pos] == NULL) return pos + 1;
        int w = widths[c];
        if (w >= 0) return pos + 1 + w;
        if (w == INTEGER) return pos + 2 + integerBytes(b[pos + 1]);
        if (kinds[c] == SqlType.Kind.RECORD) {
            int p = pos + 1;
            for (int f = 0; f < elements[c].kinds.length; f++) p = elements[c].end(b, p, f);
            return p;
        }
        if (kinds[c] == SqlType.Kind.ARRAY) {
            int p = pos + 1;
            boolean shaped = b[p] == ARRAY_SHAPE;
            if (shaped) p++;
            while (b[p] != ARRAY_END) p = elements[c].end(b, p, 0);
            p++;
            if (shaped) {
                int n = b[p++];
                for (int k = 0; k < 2 * n; k++) p += 1 + integerBytes(b[p]);
            }
            return p;
        }
        if (kinds[c] == SqlType.Kind.JSONB) return JsonbCodec.end(b, pos + 1);
        return kinds[c] == SqlType.Kind.NUMERIC ? numericEnd(b, pos + 1) : escapedEnd(b, pos + 1);
    }

    static int numericEnd(byte[] b, int pos) {
        byte sign = b[pos];
        if (sign == NUM_ZERO) return pos + 3;
        if (sign == NUM_NEGATIVE_INFINITY || sign == NUM_POSITIVE_INFINITY || sign == NUM_NAN) return pos + 1;
        byte end = sign == NUM_POSITIVE ? NUM_END : (byte) ~NUM_END;
        int i = pos + 5;
        while (b[i] != end) i++;
        return i + 3;
    }

    /** The end of an escaped, terminated payload starting at {@code pos}. */
    static int escapedEnd(byte[] b, int pos) {
        int i = pos;
        while (true) {
            // text holds a 0x00 only escaped, so the next is nearly always the terminator's
            i = firstZero(b, i, b.length);
            if (b[i + 1] == 1) return i + 2;
            i += 2;
        }
    }

    /**
     * Where the first 0x00 of {@code b[from .. to)} is ({@code to} if none), eight bytes at a time:
     * this scan is how a projection steps over a text column (it took a fifth of the workers' time
     * in Nexmark's q4, q5 and q9), and how a COPY's text is copied into a row.
     */
    static int firstZero(byte[] b, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long v = (long) LONGS.get(b, i);
            long zeros = (v - 0x0101010101010101L) & ~v & 0x8080808080808080L; // the lowest flag is the first 0x00
            if (zeros != 0) return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
        }
        while (i < to && b[i] != 0) i++;
        return i;
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private Object read(byte[] b, int pos, int c) {
        if (b[pos] == NULL) return null;
        if (b[pos] != VALUE) throw new IllegalArgumentException("not a row of " + types + ": bad tag at byte " + pos);
        int p = pos + 1;
        return switch (kinds[c]) {
            case BOOLEAN -> b[p] != 0;
            case SMALLINT, INTEGER, BIGINT -> getInteger(b, p);
            case REAL, DOUBLE -> doubleFromKey(getLong(b, p));
            case NUMERIC -> readNumeric(b, p, types.get(c).scale());
            case TEXT, VARCHAR, UNKNOWN, JSON -> new String(unescape(b, p), StandardCharsets.UTF_8);
            case JSONB -> JsonbCodec.read(b, p);
            case CHAR -> padTo(new String(unescape(b, p), StandardCharsets.UTF_8), types.get(c).length());
            case BYTEA -> Bytea.copyOf(unescape(b, p));
            case UUID -> new java.util.UUID(getLong(b, p), getLong(b, p + 8));
            case DATE -> {
                int day = getInt(b, p) ^ Integer.MIN_VALUE;
                yield day == Integer.MAX_VALUE ? LocalDate.MAX : day == Integer.MIN_VALUE ? LocalDate.MIN : LocalDate.ofEpochDay(day);
            }
            case TIME -> LocalTime.ofNanoOfDay((getLong(b, p) ^ Long.MIN_VALUE) * 1000);
            case TIMESTAMP -> {
                long m = getLong(b, p) ^ Long.MIN_VALUE;
                if (m == Long.MAX_VALUE || m == Long.MIN_VALUE) yield InfiniteTimes.of(SqlType.Kind.TIMESTAMP, Long.signum(m));
                yield LocalDateTime.ofEpochSecond(Math.floorDiv(m, 1_000_000L), (int) Math.floorMod(m, 1_000_000L) * 1000,
                        ZoneOffset.UTC);
            }
            case TIMESTAMPTZ -> {
                long m = getLong(b, p) ^ Long.MIN_VALUE;
                if (m == Long.MAX_VALUE || m == Long.MIN_VALUE) yield InfiniteTimes.of(SqlType.Kind.TIMESTAMPTZ, Long.signum(m));
                yield Instant.ofEpochSecond(Math.floorDiv(m, 1_000_000L), Math.floorMod(m, 1_000_000L) * 1000);
            }
            case INTERVAL -> readInterval(b, p);
            case ARRAY -> {
                List<Object> out = new ArrayList<>();
                boolean shaped = b[p] == ARRAY_SHAPE;
                if (shaped) p++;
                while (b[p] != ARRAY_END) {
                    out.add(elements[c].read(b, p, 0));
                    p = elements[c].end(b, p, 0);
                }
                p++;
                if (shaped) {
                    int n = b[p++];
                    int[] lengths = new int[n], lowers = new int[n];
                    for (int d = 0; d < n; d++, p += 1 + integerBytes(b[p])) lengths[d] = (int) getInteger(b, p);
                    for (int d = 0; d < n; d++, p += 1 + integerBytes(b[p])) lowers[d] = (int) getInteger(b, p);
                    yield ShapedArray.of(lengths, lowers, out.toArray());
                }
                yield java.util.Collections.unmodifiableList(out);
            }
            case RECORD -> {
                List<Object> out = new ArrayList<>();
                for (int f = 0; f < elements[c].kinds.length; f++) {
                    out.add(elements[c].read(b, p, f));
                    p = elements[c].end(b, p, f);
                }
                yield java.util.Collections.unmodifiableList(out);
            }
        };
    }

    private static String padTo(String s, int length) {
        int n = s.codePointCount(0, s.length());
        return n >= length ? s : s + " ".repeat(length - n);
    }

    static byte[] unescape(byte[] b, int pos) {
        int end = escapedEnd(b, pos) - 2;
        int zeros = 0;
        for (int i = pos; i < end; i++) if (b[i] == 0) zeros++;
        if (zeros == 0) return Arrays.copyOfRange(b, pos, end);
        byte[] out = new byte[end - pos - zeros];
        int o = 0;
        for (int i = pos; i < end; i++) {
            out[o++] = b[i];
            if (b[i] == 0) i++;
        }
        return out;
    }

    static Object readNumeric(byte[] b, int pos, int declaredScale) {
        byte sign = b[pos];
        if (sign == NUM_NEGATIVE_INFINITY) return NonFiniteNumeric.NEGATIVE_INFINITY;
        if (sign == NUM_POSITIVE_INFINITY) return NonFiniteNumeric.POSITIVE_INFINITY;
        if (sign == NUM_NAN) return NonFiniteNumeric.NAN;
        BigDecimal v;
        int display;
        if (sign == NUM_ZERO) {
            v = BigDecimal.ZERO;
            display = ((b[pos + 1] & 0xFF) << 8) | (b[pos + 2] & 0xFF);
        } else {
            int flip = sign == NUM_NEGATIVE ? 0xFF : 0;
            int exponent = getInt(b, pos + 1) ^ (flip == 0 ? 0 : -1) ^ Integer.MIN_VALUE;
            StringBuilder digits = new StringBuilder();
            int i = pos + 5;
            for (; ; i++) {
                int x = (b[i] ^ flip) & 0xFF;
                if (x == NUM_END) break;
                x -= NUM_DIGIT_BASE;
                digits.append((char) ('0' + x / 10)).append((char) ('0' + x % 10));
            }
            if (digits.charAt(digits.length() - 1) == '0') digits.setLength(digits.length() - 1);
            BigInteger unscaled = new BigInteger(digits.toString());
            v = new BigDecimal(flip == 0 ? unscaled : unscaled.negate(), digits.length() - exponent);
            display = ((b[i + 1] & 0xFF) << 8) | (b[i + 2] & 0xFF);
        }
        int scale = Math.max(Math.max(declaredScale, 0), display);
        return v.scale() < scale ? v.setScale(scale) : v;
    }

    private static Interval readInterval(byte[] b, int pos) {
        long fields = getLong(b, pos + 16) ^ (1L << 63 | 1L << 31);
        return new Interval((int) (fields >> 32), (int) fields, getLong(b, pos + 24) ^ Long.MIN_VALUE);
    }

    /** The payload bytes after an integer's header {@code h}. */
    static int integerBytes(byte h) {
        return h >= 9 ? h - 9 : 8 - h;
    }

    /** The integer whose header is at {@code p}. */
    static long getInteger(byte[] b, int p) {
        byte h = b[p];
        int n = integerBytes(h);
        long v = h >= 9 ? 0 : -1;
        for (int i = 1; i <= n; i++) v = v << 8 | b[p + i] & 0xFF;
        return v;
    }

    private static long getLong(byte[] b, int p) {
        return (long) getInt(b, p) << 32 | getInt(b, p + 4) & 0xFFFFFFFFL;
    }

    private static int getInt(byte[] b, int p) {
        return (b[p] & 0xFF) << 24 | (b[p + 1] & 0xFF) << 16 | (b[p + 2] & 0xFF) << 8 | b[p + 3] & 0xFF;
    }

    private IllegalArgumentException malformed(Row row) {
        return new IllegalArgumentException(row + " is not a row of " + types);
    }

    @Override
    public String toString() {
        return "RowCodec" + types;
    }

    /** A growable byte buffer for one row's encoding. */
    static final class Writer {
        byte[] buf;
        int length;

        Writer(int capacity) {
            buf = new byte[capacity];
        }

        void ensure(int more) {
            if (length + more > buf.length) buf = Arrays.copyOf(buf, Math.max(length + more, 2 * buf.length));
        }

        void put(int b) {
            ensure(1);
            buf[length++] = (byte) b;
        }

        void putInt(int v) {
            ensure(4);
            buf[length] = (byte) (v >>> 24);
            buf[length + 1] = (byte) (v >>> 16);
            buf[length + 2] = (byte) (v >>> 8);
            buf[length + 3] = (byte) v;
            length += 4;
        }

        void putLong(long v) {
            putInt((int) (v >>> 32));
            putInt((int) v);
        }

        /** An integer column's payload: its header and its significant bytes (see the class comment). */
        void putInteger(long v) {
            long magnitude = v < 0 ? ~v : v;
            int n = (71 - Long.numberOfLeadingZeros(magnitude)) >> 3;
            ensure(1 + n);
            buf[length++] = (byte) (v < 0 ? 8 - n : 9 + n);
            for (int i = n - 1; i >= 0; i--) buf[length++] = (byte) (v >>> (i << 3));
        }

        /** Inverts every byte written since {@code from}. */
        void invert(int from) {
            for (int i = from; i < length; i++) buf[i] = (byte) ~buf[i];
        }

        byte[] toArray() {
            return length == buf.length ? buf : Arrays.copyOf(buf, length);
        }
    }
}
