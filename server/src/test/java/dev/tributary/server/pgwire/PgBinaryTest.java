package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's binary format for every type: values round-trip through encode and decode and
 * mean what their text form means; known byte images (as PostgreSQL 15 sends them, taken with
 * {@code SELECT int4send(...)} and kin) come out exactly; malformed bytes are 22P03.
 */
class PgBinaryTest {
    /** Each type with values in text form, edge cases included. */
    private static final List<Case> CASES = List.of(
            new Case(SqlType.BOOLEAN, "true", "false"),
            new Case(SqlType.SMALLINT, "0", "-32768", "32767", "42"),
            new Case(SqlType.INTEGER, "0", "-2147483648", "2147483647", "7"),
            new Case(SqlType.BIGINT, "0", "-9223372036854775808", "9223372036854775807"),
            new Case(SqlType.REAL, "0", "1.5", "-3.25", "3.4028235e+38", "1e-45", "Infinity", "-Infinity", "NaN"),
            new Case(SqlType.DOUBLE, "0", "3.141592653589793", "-1e+308", "5e-324", "Infinity", "NaN"),
            new Case(SqlType.NUMERIC, "0", "1", "-1", "0.5", "12345.678", "-0.0001", "10000", "100000000", "0.00000001",
                    "123456789012345678901234567890.123456789", "1.000", "9999.9999", "-10000.0001", "NaN", "Infinity", "-Infinity"),
            new Case(SqlType.TEXT, "", "hello", "it's \"quoted\"", "ünïcødé ✓ 𝄞"),
            new Case(SqlType.VARCHAR, "", "abc"),
            new Case(SqlType.of(SqlType.Kind.CHAR), "x", "ab  "),
            new Case(SqlType.BYTEA, "\\x", "\\x00ff10", "\\xdeadbeef"),
            new Case(SqlType.DATE, "2000-01-01", "1999-12-31", "2024-02-29", "0001-01-01", "9999-12-31", "1970-01-01", "infinity", "-infinity"),
            new Case(SqlType.TIME, "00:00:00", "23:59:59.999999", "12:34:56.5"),
            new Case(SqlType.TIMESTAMP, "2000-01-01 00:00:00", "1999-12-31 23:59:59.999999", "2024-06-01 12:00:00.123456", "1900-03-04 05:06:07", "infinity", "-infinity"),
            new Case(SqlType.TIMESTAMPTZ, "2000-01-01 00:00:00+00", "1969-07-20 20:17:40+00", "2038-01-19 03:14:08.000001+00", "infinity", "-infinity"),
            new Case(SqlType.INTERVAL, "00:00:00", "1 year 2 mons 3 days 04:05:06.789", "-1 days +02:00:00", "-3 mons"),
            new Case(SqlType.array(SqlType.INTEGER), "{}", "{1,2,3}", "{NULL,-7}", "{{1,2},{3,NULL}}", "[0:1]={5,6}", "[-1:0][2:2][1:1]={{{1}},{{2}}}"),
            new Case(SqlType.array(SqlType.TEXT), "{}", "{a,\"b c\",NULL}", "{{a,\"}\"}}"),
            new Case(SqlType.JSONB, "{}", "[]", "null", "[1, \"a\", null]", "{\"b\": 1.50, \"a\": {\"c\": true}}", "\"é\\n\"", "1e3"));

    record Case(SqlType type, String... texts) {}

    @Test
    void everyTypeRoundTripsAndKeepsItsTextForm() {
        for (Case c : CASES) {
            for (String text : c.texts()) {
                Object v = Values.fromText(text, c.type());
                byte[] bytes = PgBinary.encode(v, c.type());
                Object back = PgBinary.decode(bytes, c.type(), 1);
                assertThat(Values.toText(back, c.type())).as(c.type() + " " + text).isEqualTo(Values.toText(v, c.type()));
                assertThat(Values.compare(back, v, c.type())).as(c.type() + " " + text).isZero();
                // and through the parameter path in both formats
                assertThat(Values.toText(PgParams.value(bytes, 1, c.type(), 1), c.type())).isEqualTo(Values.toText(v, c.type()));
                byte[] textBytes = Values.toText(v, c.type()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                assertThat(Values.toText(PgParams.value(textBytes, 0, c.type(), 1), c.type())).isEqualTo(Values.toText(v, c.type()));
            }
        }
    }

    @Test
    void randomValuesRoundTrip() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            long n = r.nextLong();
            assertThat(PgBinary.decode(PgBinary.encode(n, SqlType.BIGINT), SqlType.BIGINT, 1)).isEqualTo(n);
            double d = Double.longBitsToDouble(r.nextLong());
            Object dd = PgBinary.decode(PgBinary.encode(d, SqlType.DOUBLE), SqlType.DOUBLE, 1);
            assertThat(Double.doubleToLongBits((Double) dd)).isEqualTo(Double.doubleToLongBits(d));
            java.math.BigDecimal dec = new java.math.BigDecimal(java.math.BigInteger.valueOf(r.nextLong()), r.nextInt(0, 30));
            Object back = PgBinary.decode(PgBinary.encode(dec, SqlType.NUMERIC), SqlType.NUMERIC, 1);
            assertThat(back).isEqualTo(dec);
        }
    }

    @Test
    void bytesAreWhatPostgresqlSends() {
        assertThat(hex(SqlType.INTEGER, "1")).isEqualTo("00000001");
        assertThat(hex(SqlType.SMALLINT, "-2")).isEqualTo("fffe");
        assertThat(hex(SqlType.BOOLEAN, "true")).isEqualTo("01");
        assertThat(hex(SqlType.DOUBLE, "1.5")).isEqualTo("3ff8000000000000");
        assertThat(hex(SqlType.REAL, "1.5")).isEqualTo("3fc00000");
        // numeric_send: ndigits, weight, sign, dscale, then base-10000 digits
        assertThat(hex(SqlType.NUMERIC, "12345.678")).isEqualTo("0003" + "0001" + "0000" + "0003" + "0001" + "0929" + "1a7c");
        assertThat(hex(SqlType.NUMERIC, "-0.0001")).isEqualTo("0001" + "ffff" + "4000" + "0004" + "0001");
        assertThat(hex(SqlType.NUMERIC, "0")).isEqualTo("0000" + "0000" + "0000" + "0000");
        assertThat(hex(SqlType.NUMERIC, "100000000")).isEqualTo("0001" + "0002" + "0000" + "0000" + "0001");
        assertThat(hex(SqlType.NUMERIC, "1.50")).isEqualTo("0002" + "0000" + "0000" + "0002" + "0001" + "1388");
        // NaN and the infinities: numeric_send's special sign words, the int and long extremes
        assertThat(hex(SqlType.NUMERIC, "NaN")).isEqualTo("0000" + "0000" + "c000" + "0000");
        assertThat(hex(SqlType.NUMERIC, "Infinity")).isEqualTo("0000" + "0000" + "d000" + "0020");
        assertThat(hex(SqlType.NUMERIC, "-Infinity")).isEqualTo("0000" + "0000" + "f000" + "0020");
        assertThat(hex(SqlType.DATE, "infinity")).isEqualTo("7fffffff");
        assertThat(hex(SqlType.DATE, "-infinity")).isEqualTo("80000000");
        assertThat(hex(SqlType.TIMESTAMP, "infinity")).isEqualTo("7fffffffffffffff");
        assertThat(hex(SqlType.TIMESTAMPTZ, "-infinity")).isEqualTo("8000000000000000");
        assertThat(hex(SqlType.DATE, "2000-01-02")).isEqualTo("00000001");
        assertThat(hex(SqlType.DATE, "1999-12-31")).isEqualTo("ffffffff");
        assertThat(hex(SqlType.TIME, "00:00:01")).isEqualTo("00000000000f4240");
        assertThat(hex(SqlType.TIMESTAMP, "2000-01-01 00:00:01")).isEqualTo("00000000000f4240");
        assertThat(hex(SqlType.TIMESTAMPTZ, "1999-12-31 23:59:59+00")).isEqualTo("fffffffffff0bdc0");
        assertThat(hex(SqlType.INTERVAL, "1 mon 2 days 00:00:03")).isEqualTo("00000000002dc6c0" + "00000002" + "00000001");
        assertThat(hex(SqlType.TEXT, "é")).isEqualTo("c3a9");
        assertThat(hex(SqlType.BYTEA, "\\x0aff")).isEqualTo("0aff");
        // jsonb_send: the version (1), then the text
        assertThat(hex(SqlType.JSONB, "{\"a\":1}")).isEqualTo("01" + "7b2261223a20317d");
        // array_send of '{1,NULL}'::int4[]: one dimension, has NULLs, int4, size 2 from 1, then 1 and NULL
        assertThat(hex(SqlType.array(SqlType.INTEGER), "{1,NULL}"))
                .isEqualTo("00000001" + "00000001" + "00000017" + "00000002" + "00000001" + "00000004" + "00000001" + "ffffffff");
        assertThat(hex(SqlType.array(SqlType.INTEGER), "{}")).isEqualTo("00000000" + "00000000" + "00000017");
        // array_send of '[0:1][1:1]={{1},{NULL}}'::int4[]: two dimensions, has NULLs, int4, sizes and lower bounds, then the elements flat
        assertThat(hex(SqlType.array(SqlType.INTEGER), "[0:1][1:1]={{1},{NULL}}"))
                .isEqualTo("00000002" + "00000001" + "00000017" + "00000002" + "00000000" + "00000001" + "00000001" + "00000004" + "00000001" + "ffffffff");
    }

    private static String hex(SqlType t, String text) {
        return HexFormat.of().formatHex(PgBinary.encode(Values.fromText(text, t), t));
    }

    @Test
    void malformedBinaryIsIncorrectBinaryDataFormat() {
        assertMalformed(SqlType.INTEGER, "000001");
        assertMalformed(SqlType.INTEGER, "0000000001");
        assertMalformed(SqlType.SMALLINT, "00");
        assertMalformed(SqlType.BIGINT, "");
        assertMalformed(SqlType.BOOLEAN, "");
        assertMalformed(SqlType.BOOLEAN, "0101");
        assertMalformed(SqlType.DOUBLE, "3ff8");
        assertMalformed(SqlType.DATE, "00");
        assertMalformed(SqlType.TIME, "ffffffffffffffff");
        assertMalformed(SqlType.TIME, "000000141dd76000"); // 24:00:00 exactly
        assertMalformed(SqlType.INTERVAL, "00000000002dc6c000000002");
        assertMalformed(SqlType.NUMERIC, "0001000000000000"); // one digit announced, none sent
        assertMalformed(SqlType.NUMERIC, "00010000000000002710"); // digit 10000
        assertMalformed(SqlType.NUMERIC, "0000000012340000"); // bad sign
        assertMalformed(SqlType.NUMERIC, "ffff000000000000"); // negative count
        assertMalformed(SqlType.NUMERIC, "000000");
        assertMalformed(SqlType.NUMERIC, "00010000c00000000001"); // NaN with a digit
        assertThatThrownBy(() -> PgBinary.decode(HexFormat.of().parseHex("027b7d"), SqlType.JSONB, 1)) // version 2
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).isEqualTo("unsupported jsonb version number 2"));
        assertThatThrownBy(() -> PgBinary.decode(HexFormat.of().parseHex("c328"), SqlType.TEXT, 1))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22021"));
        assertThatThrownBy(() -> PgParams.value(new byte[] {1}, 2, SqlType.INTEGER, 1))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22023"));
        assertThatThrownBy(() -> PgParams.value("12x".getBytes(), 0, SqlType.INTEGER, 1))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22P02"));
    }

    @Test
    void randomBytesNeverEscapeAsAnythingButSqlErrors() {
        SplittableRandom r = new SplittableRandom(11);
        for (int i = 0; i < 5000; i++) {
            byte[] b = new byte[r.nextInt(20)];
            for (int k = 0; k < b.length; k++) b[k] = (byte) r.nextInt(256);
            SqlType t = CASES.get(r.nextInt(CASES.size())).type();
            try {
                Object v = PgBinary.decode(b, t, 1);
                // whatever decodes is a value of the type: it prints and encodes again
                Values.toText(v, t);
                PgBinary.encode(v, t);
            } catch (SqlException expected) {
                // a jsonb's text after its version byte fails as text input does
                assertThat(expected.sqlState()).isIn("22P03", "22021", "22008", "0A000", "22P02", "22P05", "22003");
            }
        }
    }

    private static void assertMalformed(SqlType t, String hex) {
        assertThatThrownBy(() -> PgBinary.decode(HexFormat.of().parseHex(hex), t, 3))
                .as(t + " " + hex)
                .isInstanceOfSatisfying(SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo("22P03");
                    assertThat(e.getMessage()).isEqualTo("incorrect binary data format in bind parameter 3");
                });
    }
}
