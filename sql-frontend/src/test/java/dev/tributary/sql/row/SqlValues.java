package dev.tributary.sql.row;

import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Generators of SQL values and a model of SQL comparison computed on the Java values directly,
 * never through an encoding: the reference the row encoding is checked against.
 *
 * <p>Each type's generator mixes a small pool of tricky values (so that pairs are often equal,
 * or equal in SQL while different in Java: 1.0 and 1.00, -0.0 and 0.0, two NaNs, '1 mon' and
 * '30 days', 'a' and 'a ' in CHAR; NUMERIC's NaN and infinities; infinite dates and timestamps)
 * with values from the whole range.
 */
final class SqlValues {
    private SqlValues() {}

    static final SqlType CHAR4 = SqlType.character(4);
    static final SqlType NUMERIC_20_4 = SqlType.numeric(20, 4);

    static final List<SqlType> ALL_TYPES = List.of(SqlType.BOOLEAN, SqlType.SMALLINT, SqlType.INTEGER, SqlType.BIGINT,
            SqlType.REAL, SqlType.DOUBLE, SqlType.NUMERIC, NUMERIC_20_4, SqlType.TEXT, SqlType.varchar(10), CHAR4,
            SqlType.BYTEA, SqlType.UUID, SqlType.DATE, SqlType.TIME, SqlType.TIMESTAMP, SqlType.TIMESTAMPTZ, SqlType.INTERVAL,
            SqlType.UNKNOWN, SqlType.array(SqlType.INTEGER), SqlType.array(SqlType.TEXT), SqlType.array(SqlType.NUMERIC),
            SqlType.record(List.of("a", "b"), List.of(SqlType.INTEGER, SqlType.TEXT)), SqlType.JSONB);

    static Arbitrary<List<SqlType>> schemas(int maxColumns) {
        return Arbitraries.of(ALL_TYPES).list().ofMaxSize(maxColumns);
    }

    /** Rows of {@code types}, each value null with probability 0.15. */
    static Arbitrary<Object[]> rows(List<SqlType> types) {
        List<Arbitrary<Object>> columns = new ArrayList<>();
        for (SqlType t : types) columns.add(values(t).injectNull(0.15));
        return Combinators.combine(columns).as(List::toArray);
    }

    static Arbitrary<Object> values(SqlType type) {
        Arbitrary<?> a = switch (type.kind()) {
            case BOOLEAN -> Arbitraries.of(true, false);
            // the edges of each payload length (integers take as many bytes as they need), and small values
            case SMALLINT, INTEGER, BIGINT -> mix(Arbitraries.of(-1L, 0L, 1L, 2L, -2L, 255L, 256L, -255L, -256L, -257L, 65535L, 65536L,
                            -65536L, -65537L, (1L << 56) - 1, 1L << 56, -(1L << 56), -(1L << 56) - 1, Long.MIN_VALUE, Long.MAX_VALUE),
                    mix(Arbitraries.longs(), Arbitraries.longs().between(-70_000, 70_000)));
            case REAL, DOUBLE -> mix(Arbitraries.of(0.0, -0.0, 1.5, -1.5, Double.NaN, Double.longBitsToDouble(0xfff0000000000123L),
                    Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE),
                    Arbitraries.doubles());
            // a numeric(p,s) holds NaN but no infinity
            case NUMERIC -> Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(8, numerics(type.scale() >= 0 ? type.scale() : -1).map(d -> (Object) d)),
                    net.jqwik.api.Tuple.of(2, Arbitraries.of(type.length() >= 0 ? new Object[] {NonFiniteNumeric.NAN} : NonFiniteNumeric.values())));
            case TEXT, VARCHAR, UNKNOWN -> strings(6);
            case JSON -> strings(6).map(x -> dev.tributary.sql.types.Json.of(x, SqlType.TEXT));
            case CHAR -> strings(type.length());
            case JSONB -> dev.tributary.sql.types.JsonbDocuments.documents();
            case BYTEA -> Arbitraries.integers().between(0, 255)
                    .injectDuplicates(0.3).map(Integer::byteValue)
                    .list().ofMaxSize(5).map(l -> {
                        byte[] b = new byte[l.size()];
                        for (int i = 0; i < b.length; i++) b[i] = l.get(i);
                        return Bytea.copyOf(b);
                    }).edgeCases(c -> c.add(Bytea.copyOf(new byte[] {0}), Bytea.copyOf(new byte[] {0, 0}),
                            Bytea.copyOf(new byte[] {0, 1}), Bytea.copyOf(new byte[] {(byte) 0xff})));
            // the sign bits of both halves, where signed and unsigned order part
            case UUID -> mix(Arbitraries.of(new java.util.UUID(0, 0), new java.util.UUID(-1, -1), new java.util.UUID(Long.MIN_VALUE, 0),
                    new java.util.UUID(Long.MAX_VALUE, -1), new java.util.UUID(0, Long.MIN_VALUE)),
                    Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(java.util.UUID::new));
            case DATE -> mix(Arbitraries.of(LocalDate.of(2000, 1, 1), LocalDate.of(1999, 12, 31), LocalDate.of(1970, 1, 1), LocalDate.MAX, LocalDate.MIN),
                    Arbitraries.longs().between(-2_500_000, 2_500_000).map(LocalDate::ofEpochDay));
            case TIME -> mix(Arbitraries.of(LocalTime.MIDNIGHT, LocalTime.NOON, LocalTime.of(23, 59, 59, 999_999_000)),
                    Arbitraries.longs().between(0, 86_399_999_999L).map(m -> LocalTime.ofNanoOfDay(m * 1000)));
            // the long's extremes stand for the infinities
            case TIMESTAMP -> mix(Arbitraries.of(-1L, 0L, 1L, 1_000_000L, Long.MAX_VALUE, Long.MIN_VALUE), Arbitraries.longs().between(-(1L << 62), 1L << 62))
                    .map(m -> m == Long.MAX_VALUE ? LocalDateTime.MAX : m == Long.MIN_VALUE ? LocalDateTime.MIN
                            : LocalDateTime.ofEpochSecond(Math.floorDiv(m, 1_000_000L), (int) Math.floorMod(m, 1_000_000L) * 1000, ZoneOffset.UTC));
            case TIMESTAMPTZ -> mix(Arbitraries.of(-1L, 0L, 1L, 1_000_000L, Long.MAX_VALUE, Long.MIN_VALUE), Arbitraries.longs())
                    .map(m -> m == Long.MAX_VALUE ? InfiniteTimes.INSTANT_MAX : m == Long.MIN_VALUE ? InfiniteTimes.INSTANT_MIN
                            : Instant.ofEpochSecond(Math.floorDiv(m, 1_000_000L), Math.floorMod(m, 1_000_000L) * 1000));
            case INTERVAL -> mix(Arbitraries.of(new Interval(1, 0, 0), new Interval(0, 30, 0), new Interval(0, 29, Interval.MICROS_PER_DAY),
                    new Interval(0, 0, -1), new Interval(0, -1, Interval.MICROS_PER_DAY - 1), new Interval(-1, 30, 0),
                    new Interval(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE),
                    new Interval(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE)),
                    Combinators.combine(Arbitraries.integers(), Arbitraries.integers(), Arbitraries.longs()).as(Interval::new));
            case ARRAY -> values(type.element()).injectNull(0.2).list().ofMaxSize(4)
                    .map(l -> java.util.Collections.unmodifiableList(new ArrayList<>(l)));
            case RECORD -> Combinators.combine(values(type.fieldTypes().get(0)).injectNull(0.2), values(type.fieldTypes().get(1)).injectNull(0.2))
                    .as((x, y) -> java.util.Collections.unmodifiableList(java.util.Arrays.asList(x, y)));
        };
        return a.map(v -> (Object) v);
    }

    private static <T> Arbitrary<T> mix(Arbitrary<T> pool, Arbitrary<T> wide) {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, pool), net.jqwik.api.Tuple.of(2, wide));
    }

    /** NUMERIC values; with {@code maxScale >= 0}, none has more fraction digits than that. */
    private static Arbitrary<BigDecimal> numerics(int maxScale) {
        int lo = maxScale >= 0 ? 0 : -6;
        int hi = maxScale >= 0 ? maxScale : 30;
        Arbitrary<BigDecimal> pool = Arbitraries.of("0", "0.000", "1", "1.0", "1.00", "-1", "-1.0", "10", "100", "0.5", "-0.5",
                "0.05", "0.505", "2.5", "-2.50").map(BigDecimal::new).filter(d -> maxScale < 0 || d.scale() <= maxScale);
        Arbitrary<BigDecimal> wide = Combinators.combine(
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(25).negate(), BigInteger.TEN.pow(25)),
                Arbitraries.integers().between(lo, hi)).as(BigDecimal::new);
        return mix(pool, wide);
    }

    /** Strings of up to {@code maxCodePoints} code points, often NUL, space and the UTF-8 length boundaries. */
    private static Arbitrary<String> strings(int maxCodePoints) {
        Arbitrary<Integer> codePoints = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.of(0, 1, (int) ' ', (int) 'a', (int) 'b', 0x7f, 0x80, 0x7ff, 0x800, 0xe9, 0xffff, 0xe000,
                        0x10000, 0x10ffff)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 0x10ffff)
                        .filter(c -> c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE)));
        return codePoints.list().ofMaxSize(maxCodePoints).map(l -> {
            StringBuilder b = new StringBuilder();
            for (int c : l) b.appendCodePoint(c);
            return b.toString();
        });
    }

    // ------------------------------------------------------------------------------------------
    // The model: SQL comparison on Java values

    /** SQL order of two rows of {@code types}, column by column, NULL after every value. */
    static int compareRows(List<SqlType> types, Object[] a, Object[] b) {
        for (int c = 0; c < types.size(); c++) {
            int r = compareNullsLast(types.get(c), a[c], b[c]);
            if (r != 0) return r;
        }
        return 0;
    }

    private static byte[] uuidBytes(java.util.UUID u) {
        return java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }

    static int compareNullsLast(SqlType type, Object a, Object b) {
        if (a == null || b == null) return a == null ? (b == null ? 0 : 1) : -1;
        return compare(type, a, b);
    }

    /** SQL order of two non-null values of {@code type}. */
    static int compare(SqlType type, Object a, Object b) {
        return switch (type.kind()) {
            case BOOLEAN -> Boolean.compare((Boolean) a, (Boolean) b);
            case SMALLINT, INTEGER, BIGINT -> Long.compare((Long) a, (Long) b);
            // Double.compare has NaN greatest and all NaNs equal, but -0.0 < 0.0; SQL has -0.0 = 0.0
            case REAL, DOUBLE -> Double.compare((Double) a + 0.0, (Double) b + 0.0);
            // numerically equal values order by the number of fraction digits shown
            // -Infinity, the finite values, Infinity, NaN
            case NUMERIC -> {
                if (a instanceof NonFiniteNumeric || b instanceof NonFiniteNumeric) yield Integer.compare(numericRank(a), numericRank(b));
                int c = ((BigDecimal) a).compareTo((BigDecimal) b);
                int floor = Math.max(0, type.scale());
                yield c != 0 ? c : Integer.compare(Math.max(floor, ((BigDecimal) a).scale()), Math.max(floor, ((BigDecimal) b).scale()));
            }
            case TEXT, VARCHAR, UNKNOWN, JSON -> Arrays.compare(((String) a).codePoints().toArray(), ((String) b).codePoints().toArray());
            // numerically equal numbers order by their scale, as NUMERIC's do
            case JSONB -> dev.tributary.sql.types.JsonbDocuments.modelCompare((dev.tributary.sql.types.Jsonb) a, (dev.tributary.sql.types.Jsonb) b, true);
            case CHAR -> Arrays.compare(stripTrailingSpaces((String) a).codePoints().toArray(),
                    stripTrailingSpaces((String) b).codePoints().toArray());
            case BYTEA -> ((Bytea) a).compareTo((Bytea) b);
            // PostgreSQL compares a uuid's bytes as unsigned
            case UUID -> Arrays.compareUnsigned(uuidBytes((java.util.UUID) a), uuidBytes((java.util.UUID) b));
            case DATE -> ((LocalDate) a).compareTo((LocalDate) b);
            case TIME -> ((LocalTime) a).compareTo((LocalTime) b);
            case TIMESTAMP -> ((LocalDateTime) a).compareTo((LocalDateTime) b);
            case TIMESTAMPTZ -> ((Instant) a).compareTo((Instant) b);
            // equal spans (1 mon, 30 days) order by the fields they were written with
            case INTERVAL -> {
                Interval x = (Interval) a, y = (Interval) b;
                int c = x.compareTo(y);
                if (c == 0) c = Integer.compare(x.months(), y.months());
                if (c == 0) c = Integer.compare(x.days(), y.days());
                yield c != 0 ? c : Long.compare(x.micros(), y.micros());
            }
            // element by element, NULL elements last, then the shorter array first
            case ARRAY -> {
                List<?> x = (List<?>) a, y = (List<?>) b;
                int c = 0;
                for (int i = 0; i < Math.min(x.size(), y.size()) && c == 0; i++) c = compareNullsLast(type.element(), x.get(i), y.get(i));
                yield c != 0 ? c : Integer.compare(x.size(), y.size());
            }
            // field by field, NULL fields last
            case RECORD -> {
                List<?> x = (List<?>) a, y = (List<?>) b;
                int c = 0;
                for (int i = 0; i < type.fieldTypes().size() && c == 0; i++) c = compareNullsLast(type.fieldTypes().get(i), x.get(i), y.get(i));
                yield c;
            }
        };
    }

    private static int numericRank(Object v) {
        return v == NonFiniteNumeric.NEGATIVE_INFINITY ? 0 : v instanceof BigDecimal ? 1 : v == NonFiniteNumeric.POSITIVE_INFINITY ? 2 : 3;
    }

    static String stripTrailingSpaces(String s) {
        // \z, not $: $ also matches before a final line break, so " \n" would lose its space
        return s.replaceFirst(" +\\z", "");
    }

    /** The value a row of {@code type} must decode {@code v} to, exactly (by {@code equals}). */
    static Object decodedForm(SqlType type, Object v) {
        if (v == null) return null;
        return switch (type.kind()) {
            case REAL, DOUBLE -> (Double) v + 0.0;
            case NUMERIC -> {
                if (v instanceof NonFiniteNumeric) yield v;
                // the value as written (its fraction digits kept), at least the column's scale, never a negative scale
                BigDecimal d = (BigDecimal) v;
                int scale = Math.max(Math.max(type.scale(), 0), d.scale());
                yield d.setScale(scale);
            }
            case CHAR -> {
                String s = stripTrailingSpaces((String) v);
                int n = s.codePointCount(0, s.length());
                yield n >= type.length() ? s : s + " ".repeat(type.length() - n);
            }
            case ARRAY -> {
                List<Object> out = new ArrayList<>();
                for (Object e : (List<?>) v) out.add(decodedForm(type.element(), e));
                yield out;
            }
            case RECORD -> {
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < type.fieldTypes().size(); i++) out.add(decodedForm(type.fieldTypes().get(i), ((List<?>) v).get(i)));
                yield out;
            }
            default -> v;
        };
    }
}
