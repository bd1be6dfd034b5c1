package dev.tributary.sql.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cases the encoding was designed around, named so a failure says which rule broke. */
class RowCodecTest {
    private static Row one(SqlType type, Object v) {
        return RowCodec.of(type).encode(v);
    }

    @Test
    void nullSortsAfterEveryValue() {
        assertThat(one(SqlType.BIGINT, null)).isGreaterThan(one(SqlType.BIGINT, Long.MAX_VALUE));
        assertThat(one(SqlType.TEXT, null)).isGreaterThan(one(SqlType.TEXT, "\uDBFF\uDFFF\uDBFF\uDFFF"));
        assertThat(one(SqlType.DOUBLE, null)).isGreaterThan(one(SqlType.DOUBLE, Double.NaN));
    }

    @Test
    void integersSortBySignedValue() {
        assertThat(one(SqlType.INTEGER, -1L)).isLessThan(one(SqlType.INTEGER, 0L));
        assertThat(one(SqlType.BIGINT, Long.MIN_VALUE)).isLessThan(one(SqlType.BIGINT, -1L));
    }

    /** A tag, a header, and the bytes the value needs: small integers, the most common ones, take little room. */
    @Test
    void integersTakeTheBytesTheyNeed() {
        assertThat(one(SqlType.INTEGER, 0L).byteLength()).isEqualTo(2);
        assertThat(one(SqlType.INTEGER, -1L).byteLength()).isEqualTo(2);
        assertThat(one(SqlType.INTEGER, 7L).byteLength()).isEqualTo(3);
        assertThat(one(SqlType.INTEGER, -256L).byteLength()).isEqualTo(3);
        assertThat(one(SqlType.INTEGER, 1_000_000L).byteLength()).isEqualTo(5);
        assertThat(one(SqlType.BIGINT, Long.MIN_VALUE).byteLength()).isEqualTo(10);
        assertThat(one(SqlType.BIGINT, Long.MAX_VALUE).byteLength()).isEqualTo(10);
        assertThat(one(SqlType.BIGINT, -257L)).isLessThan(one(SqlType.BIGINT, -256L));
        assertThat(one(SqlType.BIGINT, 255L)).isLessThan(one(SqlType.BIGINT, 256L));
    }

    @Test
    void doublesFollowPostgres() {
        assertThat(one(SqlType.DOUBLE, -0.0)).isEqualTo(one(SqlType.DOUBLE, 0.0));
        assertThat(one(SqlType.DOUBLE, Double.longBitsToDouble(0xfff8000000000001L))).isEqualTo(one(SqlType.DOUBLE, Double.NaN));
        assertThat(one(SqlType.DOUBLE, Double.NaN)).isGreaterThan(one(SqlType.DOUBLE, Double.POSITIVE_INFINITY));
        assertThat(one(SqlType.DOUBLE, Double.NEGATIVE_INFINITY)).isLessThan(one(SqlType.DOUBLE, -Double.MAX_VALUE));
        assertThat(RowCodec.of(SqlType.DOUBLE).decode(one(SqlType.DOUBLE, -0.0))[0]).isEqualTo(0.0);
    }

    @Test
    void numericsKeepTheirDisplayScaleAndTakeTheColumnScale() {
        assertThat(one(SqlType.NUMERIC, new BigDecimal("1.0"))).isLessThan(one(SqlType.NUMERIC, new BigDecimal("1.00")));
        assertThat(one(SqlType.NUMERIC, new BigDecimal("1.00"))).isLessThan(one(SqlType.NUMERIC, new BigDecimal("1.01")));
        assertThat(one(SqlType.NUMERIC, new BigDecimal("0.000"))).isGreaterThan(one(SqlType.NUMERIC, BigDecimal.ZERO));
        assertThat(one(SqlType.NUMERIC, new BigDecimal("0.5"))).isLessThan(one(SqlType.NUMERIC, new BigDecimal("0.505")));
        assertThat(one(SqlType.NUMERIC, new BigDecimal("-0.5"))).isGreaterThan(one(SqlType.NUMERIC, new BigDecimal("-0.505")));
        assertThat(one(SqlType.NUMERIC, new BigDecimal("9.99"))).isLessThan(one(SqlType.NUMERIC, new BigDecimal("10")));
        RowCodec money = RowCodec.of(SqlType.numeric(10, 2));
        assertThat(money.decode(money.encode(new BigDecimal("2.5")))[0]).isEqualTo(new BigDecimal("2.50"));
        RowCodec free = RowCodec.of(SqlType.NUMERIC);
        assertThat(free.decode(free.encode(new BigDecimal("100")))[0]).isEqualTo(new BigDecimal("100"));
        assertThat(free.decode(free.encode(new BigDecimal("2.50")))[0]).isEqualTo(new BigDecimal("2.50"));
    }

    @Test
    void stringsSortByCodePointWithPrefixFirst() {
        assertThat(one(SqlType.TEXT, "a")).isLessThan(one(SqlType.TEXT, "a\0"));
        assertThat(one(SqlType.TEXT, "a\0")).isLessThan(one(SqlType.TEXT, "a\u0001"));
        assertThat(one(SqlType.TEXT, "a\0")).isLessThan(one(SqlType.TEXT, "ab"));
        assertThat(one(SqlType.TEXT, "")).isLessThan(one(SqlType.TEXT, "\0"));
        // UTF-16 order puts U+FFFF after U+10000; code point order (PostgreSQL's C collation) does not
        assertThat(one(SqlType.TEXT, "\uffff")).isLessThan(one(SqlType.TEXT, "\uD800\uDC00"));
        assertThat(RowCodec.of(SqlType.TEXT).decode(one(SqlType.TEXT, "x\0y\0"))[0]).isEqualTo("x\0y\0");
    }

    @Test
    void charIgnoresTrailingSpacesAndIsPaddedBack() {
        RowCodec codec = RowCodec.of(SqlType.character(3));
        assertThat(codec.encode("a")).isEqualTo(codec.encode("a  "));
        assertThat(codec.encode("a")).isLessThan(codec.encode("a\t"));
        assertThat(codec.decode(codec.encode("a"))[0]).isEqualTo("a  ");
    }

    @Test
    void unpairedSurrogateIsAnError() {
        assertThatThrownBy(() -> one(SqlType.TEXT, "a\uD800b")).isInstanceOf(SqlException.class)
                .extracting(e -> ((SqlException) e).sqlState()).isEqualTo("22021");
    }

    @Test
    void byteaSortsBytewiseWithPrefixFirst() {
        Row empty = one(SqlType.BYTEA, Bytea.copyOf(new byte[0]));
        Row zero = one(SqlType.BYTEA, Bytea.copyOf(new byte[] {0}));
        Row zeroOne = one(SqlType.BYTEA, Bytea.copyOf(new byte[] {0, 1}));
        Row one = one(SqlType.BYTEA, Bytea.copyOf(new byte[] {1}));
        Row high = one(SqlType.BYTEA, Bytea.copyOf(new byte[] {(byte) 0x80}));
        assertThat(empty).isLessThan(zero);
        assertThat(zero).isLessThan(zeroOne);
        assertThat(zeroOne).isLessThan(one);
        assertThat(one).isLessThan(high);
    }

    @Test
    void intervalsOrderBySpanKeepTheirFieldsAndMeetAsKeys() {
        RowCodec codec = RowCodec.of(SqlType.INTERVAL);
        assertThat(codec.encode(new Interval(0, 0, -1))).isLessThan(codec.encode(new Interval(0, 0, 0)));
        assertThat(codec.encode(new Interval(0, 29, 0))).isLessThan(codec.encode(new Interval(1, 0, 0)));
        assertThat(codec.encode(new Interval(1, 0, 1))).isGreaterThan(codec.encode(new Interval(0, 30, 0)));
        // shown as written: '1 mon 2 days' is not '32 days', nor '36 hours' '1 day 12:00:00'
        Interval written = (Interval) codec.decode(codec.encode(new Interval(1, 2, 3)))[0];
        assertThat(List.of(written.months(), written.days(), written.micros())).containsExactly(1, 2, 3L);
        Interval hours = (Interval) codec.decode(codec.encode(new Interval(0, 0, 36 * 3_600_000_000L)))[0];
        assertThat(hours.days()).isZero();
        Interval huge = new Interval(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
        Interval tiny = new Interval(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE);
        assertThat((Interval) codec.decode(codec.encode(huge))[0]).extracting(Interval::months, Interval::days, Interval::micros)
                .containsExactly(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
        assertThat((Interval) codec.decode(codec.encode(tiny))[0]).extracting(Interval::months, Interval::days, Interval::micros)
                .containsExactly(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE);
        // equal intervals written differently meet as keys (joins, groups, index lookups)
        assertThat(codec.encode(new Interval(1, 0, 0))).isNotEqualTo(codec.encode(new Interval(0, 30, 0)));
        assertThat(codec.encode(Keys.normalize(new Interval(1, 0, 0)))).isEqualTo(codec.encode(Keys.normalize(new Interval(0, 30, 0))));
        assertThat(codec.encode(Keys.normalize(new Interval(0, 1, 0)))).isEqualTo(codec.encode(Keys.normalize(new Interval(0, 0, Interval.MICROS_PER_DAY))));
        assertThat(((Interval) Keys.normalize(new Interval(1, 2, 3))).months()).isZero();
        assertThat(((Interval) Keys.normalize(new Interval(0, 0, -3_600_000_000L))).days()).isZero();
        assertThat(Keys.normalize(huge)).isEqualTo(huge);
        assertThat(Keys.normalize(tiny)).isEqualTo(tiny);
    }

    @Test
    void datesOutsidePostgresRangeAreErrors() {
        assertThatThrownBy(() -> one(SqlType.DATE, LocalDate.MAX.minusDays(1))).isInstanceOf(SqlException.class)
                .extracting(e -> ((SqlException) e).sqlState()).isEqualTo("22008");
        // the long's extremes are the infinities, so a finite timestamp there cannot be stored
        java.time.Instant top = java.time.Instant.ofEpochSecond(Math.floorDiv(Long.MAX_VALUE, 1_000_000L), Math.floorMod(Long.MAX_VALUE, 1_000_000L) * 1000);
        assertThatThrownBy(() -> one(SqlType.TIMESTAMPTZ, top)).isInstanceOf(SqlException.class)
                .extracting(e -> ((SqlException) e).sqlState()).isEqualTo("22008");
    }

    @Test
    void infinitiesDecodeAsThemselvesAndSortAtTheEnds() {
        record Case(SqlType type, Object below, Object finite, Object above) {}
        List<Case> cases = List.of(
                new Case(SqlType.DATE, LocalDate.MIN, LocalDate.of(-4713, 11, 24), LocalDate.MAX),
                new Case(SqlType.TIMESTAMP, java.time.LocalDateTime.MIN, java.time.LocalDateTime.of(294000, 12, 31, 23, 59), java.time.LocalDateTime.MAX),
                new Case(SqlType.TIMESTAMPTZ, InfiniteTimes.INSTANT_MIN, java.time.Instant.EPOCH, InfiniteTimes.INSTANT_MAX),
                new Case(SqlType.NUMERIC, NonFiniteNumeric.NEGATIVE_INFINITY, new BigDecimal("-1000.5"), NonFiniteNumeric.POSITIVE_INFINITY),
                new Case(SqlType.NUMERIC, new BigDecimal("12345.25"), NonFiniteNumeric.POSITIVE_INFINITY, NonFiniteNumeric.NAN));
        for (Case c : cases) {
            RowCodec codec = RowCodec.of(c.type());
            for (Object v : List.of(c.below(), c.finite(), c.above())) assertThat(codec.decode(codec.encode(v))[0]).isEqualTo(v);
            assertThat(codec.encode(c.below()).compareTo(codec.encode(c.finite()))).as("%s", c).isNegative();
            assertThat(codec.encode(c.finite()).compareTo(codec.encode(c.above()))).as("%s", c).isNegative();
            assertThat(Values.compare(c.below(), c.finite(), c.type())).isNegative();
            assertThat(Values.compare(c.finite(), c.above(), c.type())).isNegative();
        }
        // beside other columns: a non-finite numeric is one byte, and the next column follows it
        RowCodec two = RowCodec.of(SqlType.NUMERIC, SqlType.TEXT);
        assertThat(two.decode(two.encode(NonFiniteNumeric.NAN, "x"))).containsExactly(NonFiniteNumeric.NAN, "x");
        assertThat(two.get(two.encode(NonFiniteNumeric.NEGATIVE_INFINITY, "y"), 1)).isEqualTo("y");
    }

    @Test
    void wrongJavaClassNamesTheColumn() {
        assertThatThrownBy(() -> RowCodec.of(SqlType.TEXT, SqlType.INTEGER).encode("a", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column 2 is integer; its value must be a Long, got Integer 1");
    }

    @Test
    void concatAndProjectWorkOnBytes() {
        RowCodec ab = RowCodec.of(SqlType.TEXT, SqlType.BIGINT);
        RowCodec c = RowCodec.of(SqlType.NUMERIC);
        Row joined = ab.concat(ab.encode("x", 7L), c.encode(new BigDecimal("-1.5")));
        RowCodec abc = ab.concat(c);
        assertThat(abc.decode(joined)).containsExactly("x", 7L, new BigDecimal("-1.5"));
        assertThat(abc.get(joined, 2)).isEqualTo(new BigDecimal("-1.5"));
        assertThat(abc.project(joined, new int[] {2, 0, 0})).isEqualTo(RowCodec.of(SqlType.NUMERIC, SqlType.TEXT, SqlType.TEXT)
                .encode(new BigDecimal("-1.5"), "x", "x"));
        assertThat(Row.concat(Row.EMPTY, joined)).isSameAs(joined);
        assertThat(RowCodec.of().encode()).isSameAs(Row.EMPTY);
        assertThat(abc.format(joined)).isEqualTo("(x,7,-1.5)");
    }

    /**
     * A column after an escaped one is found wherever the escaped value's zero bytes and its end
     * fall among the eight-byte words the scan reads (values of 0 to 40 bytes, a zero at each place).
     */
    @Test
    void columnsAfterEscapedValuesOfEveryLengthAndZeroPlace() {
        RowCodec codec = RowCodec.of(SqlType.BYTEA, SqlType.TEXT, SqlType.BIGINT);
        for (int length = 0; length <= 40; length++) {
            for (int zero = -1; zero < length; zero++) {
                byte[] b = new byte[length];
                for (int k = 0; k < length; k++) b[k] = (byte) ('a' + k % 26);
                if (zero >= 0) b[zero] = 0;
                String text = "t".repeat(length);
                Object[] values = {Bytea.copyOf(b), text, (long) length * 1000 + zero};
                Row row = codec.encode(values);
                assertThat(codec.decode(row)).as("length %d, zero at %d", length, zero).containsExactly(values);
                assertThat(codec.project(row, new int[] {2})).isEqualTo(RowCodec.of(SqlType.BIGINT).encode(new Object[] {values[2]}));
            }
        }
    }

    /**
     * A shaped array (more dimensions, or other lower bounds) keeps its shape through a row; the
     * one-dimensional arrays from 1 keep the encoding they always had; among shaped arrays the
     * order is PostgreSQL's, and no encoding is a prefix of another (a sort key complements them).
     */
    @Test
    void shapedArraysKeepTheirShapeAndOrder() {
        SqlType ints = SqlType.array(SqlType.INTEGER);
        RowCodec codec = RowCodec.of(ints, SqlType.INTEGER);
        for (String text : List.of("{{1,2},{3,NULL}}", "[0:1]={5,6}", "[-1:0][2:2][1:1]={{{1}},{{2}}}", "{1,2}", "{}")) {
            Object a = Values.fromText(text, ints);
            Object[] back = codec.decode(codec.encode(a, 7L));
            assertThat(Values.toText(back[0], ints)).isEqualTo(text);
            assertThat(back[1]).isEqualTo(7L);
        }
        assertThat(one(ints, Values.fromText("{1,2}", ints)).toBytes()).containsExactly(0x01, 0x01, 0x0A, 0x01, 0x01, 0x0A, 0x02, 0x00);
        List<String> ordered = List.of("{{1}}", "[0:0][1:2]={{1,2}}", "{{1,2}}", "{{1},{2}}", "{{{1,2}}}", "{{1,3}}", "{{2}}");
        for (int i = 0; i + 1 < ordered.size(); i++) {
            Object x = Values.fromText(ordered.get(i), ints), y = Values.fromText(ordered.get(i + 1), ints);
            assertThat(Values.compare(x, y, ints)).as(ordered.get(i) + " < " + ordered.get(i + 1)).isNegative();
            byte[] bx = one(ints, x).toBytes(), by = one(ints, y).toBytes();
            assertThat(one(ints, x)).as(ordered.get(i) + " < " + ordered.get(i + 1)).isLessThan(one(ints, y));
            assertThat(java.util.Arrays.equals(bx, 0, Math.min(bx.length, by.length), by, 0, Math.min(bx.length, by.length))).isFalse();
        }
    }
}
