package dev.tributary.sql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.sql.SqlException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValuesTest {

    private static void assertError(Runnable r, String state, String message) {
        SqlException e = catchThrowableOfType(SqlException.class, r::run);
        assertThat(e).as("expected SqlException " + state).isNotNull();
        assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(state);
        if (message != null) assertThat(e.getMessage()).isEqualTo(message);
    }

    private static String roundTrip(String s, SqlType t) {
        return Values.toText(Values.fromText(s, t), t);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0.1|0.1", "1e100|1e+100", "1.5e-5|1.5e-05", "123456789012345678|1.2345678901234568e+17",
        "1e15|1e+15", "1e14|100000000000000", "0.0001|0.0001", "0.00001|1e-05", "-0|-0", "0|0",
        "100|100", "-2.5|-2.5", "1.7976931348623157e308|1.7976931348623157e+308", "NaN|NaN",
        "Infinity|Infinity", "-inf|-Infinity", "  3.25  |3.25", "4.9e-324|5e-324"})
    void doubleOutputIsShortestRoundTrip(String in, String out) {
        assertThat(roundTrip(in, SqlType.DOUBLE)).isEqualTo(out);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1000000|1e+06", "123456|123456", "0.1|0.1", "3.14159265|3.1415927", "1e-5|1e-05", "-0.5|-0.5"})
    void realOutput(String in, String out) {
        assertThat(roundTrip(in, SqlType.REAL)).isEqualTo(out);
    }

    @Test
    void thirdAsDouble() {
        assertThat(Values.toText(1.0 / 3, SqlType.DOUBLE)).isEqualTo("0.3333333333333333");
    }

    @Test
    void floatInputErrors() {
        assertError(() -> Values.fromText("abc", SqlType.DOUBLE), "22P02", "invalid input syntax for type double precision: \"abc\"");
        assertError(() -> Values.fromText("1e400", SqlType.DOUBLE), "22003", "\"1e400\" is out of range for type double precision");
        assertError(() -> Values.fromText("1e40", SqlType.REAL), "22003", "\"1e40\" is out of range for type real");
        assertError(() -> Values.fromText("", SqlType.DOUBLE), "22P02", null);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1.50|1.50", "1e3|1000", "  -0.001 |-0.001", "1.5e-3|0.0015", "+7|7", ".5|0.5", "5.|5", "0000.10|0.10"})
    void numericKeepsInputScale(String in, String out) {
        assertThat(roundTrip(in, SqlType.NUMERIC)).isEqualTo(out);
    }

    /**
     * NUMERIC within PostgreSQL's limits: 131072 digits before the point and 16383 after; beyond
     * them 22003, found before a long text is parsed (a million digits took 20-36 s) or an
     * exponent expanded, as text input and as a literal.
     */
    @Test
    void numericInputIsLimitedAsPostgreSqlLimitsIt() {
        String most = "9".repeat(131_072);
        assertThat(Values.fromText(most, SqlType.NUMERIC)).isEqualTo(new BigDecimal(most));
        assertThat(Values.fromText("0." + "1".repeat(16_383), SqlType.NUMERIC)).isEqualTo(new BigDecimal("0." + "1".repeat(16_383)));
        assertError(() -> Values.fromText(most + "9", SqlType.NUMERIC), "22003", "value overflows numeric format");
        assertError(() -> Values.fromText("0." + "1".repeat(16_384), SqlType.NUMERIC), "22003", "value overflows numeric format");
        assertError(() -> Values.fromText("1" + "0".repeat(1_000_000), SqlType.NUMERIC), "22003", "value overflows numeric format");
        assertError(() -> Values.fromText("1e1000000", SqlType.NUMERIC), "22003", "value overflows numeric format");
        assertError(() -> Values.fromText("1e-20000", SqlType.NUMERIC), "22003", "value overflows numeric format");
        SqlException literal = catchThrowableOfType(SqlException.class,
                () -> dev.tributary.sql.parser.Parser.parse("SELECT 1" + "0".repeat(1_000_000)));
        assertThat(literal.sqlState()).isEqualTo("22003");
        assertThat(literal.position()).isEqualTo(8);
    }

    @Test
    void numericTypmodRoundsAndChecksPrecision() {
        SqlType t = SqlType.numeric(10, 2);
        assertThat(roundTrip("1.5", t)).isEqualTo("1.50");
        assertThat(roundTrip("1.005", t)).isEqualTo("1.01");
        assertThat(roundTrip("-1.005", t)).isEqualTo("-1.01");
        assertThat(roundTrip("9.994", SqlType.numeric(3, 2))).isEqualTo("9.99");
        assertError(() -> Values.fromText("9.995", SqlType.numeric(3, 2)), "22003", "numeric field overflow");
        assertError(() -> Values.fromText("12.3", SqlType.numeric(3, 2)), "22003", "numeric field overflow");
        assertThat(roundTrip("0.001", SqlType.numeric(3, 2))).isEqualTo("0.00");
        assertError(() -> Values.fromText("1.2.3", SqlType.NUMERIC), "22P02", "invalid input syntax for type numeric: \"1.2.3\"");
    }

    @Test
    void integerInput() {
        assertThat(Values.fromText(" 42 ", SqlType.INTEGER)).isEqualTo(42L);
        assertThat(Values.fromText("-2147483648", SqlType.INTEGER)).isEqualTo(-2147483648L);
        assertThat(Values.fromText("-9223372036854775808", SqlType.BIGINT)).isEqualTo(Long.MIN_VALUE);
        assertThat(Values.fromText("+5", SqlType.SMALLINT)).isEqualTo(5L);
        assertError(() -> Values.fromText("abc", SqlType.INTEGER), "22P02", "invalid input syntax for type integer: \"abc\"");
        assertError(() -> Values.fromText("99999999999", SqlType.INTEGER), "22003",
                "value \"99999999999\" is out of range for type integer");
        assertError(() -> Values.fromText("2147483648", SqlType.INTEGER), "22003", null);
        assertError(() -> Values.fromText("32768", SqlType.SMALLINT), "22003", "value \"32768\" is out of range for type smallint");
        assertError(() -> Values.fromText("9223372036854775808", SqlType.BIGINT), "22003",
                "value \"9223372036854775808\" is out of range for type bigint");
        assertError(() -> Values.fromText("", SqlType.INTEGER), "22P02", "invalid input syntax for type integer: \"\"");
        assertError(() -> Values.fromText("1.5", SqlType.BIGINT), "22P02", "invalid input syntax for type bigint: \"1.5\"");
        assertError(() -> Values.fromText("-", SqlType.INTEGER), "22P02", null);
    }

    @ParameterizedTest
    @CsvSource({"t,true", "TRUE,true", "' yes ',true", "on,true", "1,true", "y,true", "f,false", "of,false", "off,false",
        "no,false", "0,false", "fals,false"})
    void booleanInput(String in, boolean out) {
        assertThat(Values.fromText(in, SqlType.BOOLEAN)).isEqualTo(out);
    }

    @Test
    void booleanInputErrorsAndOutput() {
        assertError(() -> Values.fromText("o", SqlType.BOOLEAN), "22P02", "invalid input syntax for type boolean: \"o\"");
        assertError(() -> Values.fromText("2", SqlType.BOOLEAN), "22P02", null);
        assertThat(Values.toText(true, SqlType.BOOLEAN)).isEqualTo("t");
        assertThat(Values.toText(false, SqlType.BOOLEAN)).isEqualTo("f");
    }

    @Test
    void byteaInputAndOutput() {
        assertThat(roundTrip("\\x0AFF", SqlType.BYTEA)).isEqualTo("\\x0aff");
        assertThat(roundTrip("abc", SqlType.BYTEA)).isEqualTo("\\x616263");
        assertThat(roundTrip("\\\\", SqlType.BYTEA)).isEqualTo("\\x5c");
        assertThat(roundTrip("\\001a", SqlType.BYTEA)).isEqualTo("\\x0161");
        assertThat(roundTrip("\\x", SqlType.BYTEA)).isEqualTo("\\x");
        assertError(() -> Values.fromText("\\x0g", SqlType.BYTEA), "22P02", "invalid hexadecimal digit: \"g\"");
        assertError(() -> Values.fromText("\\x0", SqlType.BYTEA), "22P02", "invalid hexadecimal data: odd number of digits");
        assertError(() -> Values.fromText("a\\9", SqlType.BYTEA), "22P02", "invalid input syntax for type bytea: \"a\\9\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "2024-01-02 03:04:05.123456|2024-01-02 03:04:05.123456", "2024-01-02T03:04:05|2024-01-02 03:04:05",
        "2024-01-02|2024-01-02 00:00:00", "2024-01-02 03:04|2024-01-02 03:04:00", "2024-01-02 03:04:05.5|2024-01-02 03:04:05.5",
        "20240102 10:00|2024-01-02 10:00:00", "1/2/2024|2024-01-02 00:00:00", "2024-01-02 03:04:05+02|2024-01-02 03:04:05",
        "2024-01-02 01:00:00 pm|2024-01-02 13:00:00", "2024-01-02 12:00:00 am|2024-01-02 00:00:00",
        "2024-01-02 03:04:05.1234567|2024-01-02 03:04:05.123457", "epoch|1970-01-01 00:00:00",
        "0044-03-15 12:00 BC|0044-03-15 12:00:00 BC"})
    void timestampInputAndOutput(String in, String out) {
        assertThat(roundTrip(in, SqlType.TIMESTAMP)).isEqualTo(out);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "2024-01-02 03:04:05+02|2024-01-02 01:04:05+00", "2024-01-02 03:04:05Z|2024-01-02 03:04:05+00",
        "2024-01-02 03:04:05|2024-01-02 03:04:05+00", "2024-01-02 03:04:05-05:30|2024-01-02 08:34:05+00",
        "2024-01-02 03:04:05 UTC|2024-01-02 03:04:05+00", "2024-07-01 12:00 Europe/Paris|2024-07-01 10:00:00+00"})
    void timestamptzInUtc(String in, String out) {
        assertThat(roundTrip(in, SqlType.TIMESTAMPTZ)).isEqualTo(out);
    }

    @Test
    void dateAndTime() {
        assertThat(roundTrip("2024-02-29", SqlType.DATE)).isEqualTo("2024-02-29");
        assertThat(roundTrip("2024-02-29 23:59", SqlType.DATE)).isEqualTo("2024-02-29");
        assertThat(roundTrip("0044-03-15 BC", SqlType.DATE)).isEqualTo("0044-03-15 BC");
        assertThat(Values.fromText("0001-01-01 BC", SqlType.DATE)).isEqualTo(LocalDate.of(0, 1, 1));
        assertThat(roundTrip("12345-01-01", SqlType.DATE)).isEqualTo("12345-01-01");
        assertThat(roundTrip("03:04:05.250", SqlType.TIME)).isEqualTo("03:04:05.25");
        assertThat(roundTrip("3:04", SqlType.TIME)).isEqualTo("03:04:00");
        assertThat(roundTrip("11:30 pm", SqlType.TIME)).isEqualTo("23:30:00");
        assertError(() -> Values.fromText("2024-02-30", SqlType.DATE), "22008", "date/time field value out of range: \"2024-02-30\"");
        assertError(() -> Values.fromText("2024-13-01", SqlType.DATE), "22008", null);
        assertError(() -> Values.fromText("garbage", SqlType.DATE), "22007", "invalid input syntax for type date: \"garbage\"");
        assertError(() -> Values.fromText("25:00", SqlType.TIME), "22008", "date/time field value out of range: \"25:00\"");
        assertError(() -> Values.fromText("10:61", SqlType.TIME), "22008", null);
        assertError(() -> Values.fromText("noon", SqlType.TIME), "22007", "invalid input syntax for type time: \"noon\"");
        assertError(() -> Values.fromText("2024-01-02 xx", SqlType.TIMESTAMP), "22007", null);
    }

    @Test
    void intervalOutputPostgresStyle() {
        assertThat(Values.toText(new Interval(14, 3, 14_706_500_000L), SqlType.INTERVAL)).isEqualTo("1 year 2 mons 3 days 04:05:06.5");
        assertThat(Values.toText(new Interval(0, 0, -1_000_000L), SqlType.INTERVAL)).isEqualTo("-00:00:01");
        assertThat(Values.toText(new Interval(0, 0, 0), SqlType.INTERVAL)).isEqualTo("00:00:00");
        assertThat(Values.toText(new Interval(0, 1, -3_600_000_000L), SqlType.INTERVAL)).isEqualTo("1 day -01:00:00");
        assertThat(Values.toText(new Interval(0, -1, 3_600_000_000L), SqlType.INTERVAL)).isEqualTo("-1 days +01:00:00");
        assertThat(Values.toText(new Interval(-14, 0, 0), SqlType.INTERVAL)).isEqualTo("-1 years -2 mons");
        assertThat(Values.toText(new Interval(1, 0, 0), SqlType.INTERVAL)).isEqualTo("1 mon");
        assertThat(Values.toText(new Interval(0, 0, 90_000_000_000L), SqlType.INTERVAL)).isEqualTo("25:00:00");
        assertThat(Values.toText(new Interval(12, 0, 1), SqlType.INTERVAL)).isEqualTo("1 year 00:00:00.000001");
        assertThat(Values.toText(new Interval(-1, 2, 0), SqlType.INTERVAL)).isEqualTo("-1 mons +2 days");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1 year 2 mons 3 days 04:05:06.5|1 year 2 mons 3 days 04:05:06.5", "1.5 days|1 day 12:00:00",
        "1.5 months|1 mon 15 days", "1.5 years|1 year 6 mons", "@ 1 day ago|-1 days", "-1 hour|-01:00:00",
        "P1Y2M3DT4H5M6S|1 year 2 mons 3 days 04:05:06", "2 weeks|14 days", "10|00:00:10", "1 12:00:00|1 day 12:00:00",
        "1 day -01:00:00|1 day -01:00:00", "-1 days +01:00:00|-1 days +01:00:00", "90 minutes|01:30:00",
        "1 hour 30 min|01:30:00", "3 mons ago|-3 mons", "1 century|100 years", "500 ms|00:00:00.5", "0|00:00:00",
        "1 day 2 hours 3 minutes 4 seconds|1 day 02:03:04", "-1 year -2 mons|-1 years -2 mons"})
    void intervalInput(String in, String out) {
        assertThat(roundTrip(in, SqlType.INTERVAL)).isEqualTo(out);
    }

    @Test
    void intervalInputErrors() {
        assertError(() -> Values.fromText("abc", SqlType.INTERVAL), "22007", "invalid input syntax for type interval: \"abc\"");
        assertError(() -> Values.fromText("1 fortnight", SqlType.INTERVAL), "22007", null);
        assertError(() -> Values.fromText("", SqlType.INTERVAL), "22007", null);
    }

    @Test
    void stringsFitTheirLength() {
        assertThat(Values.fromText("ab", SqlType.character(4))).isEqualTo("ab  ");
        assertThat(Values.fromText("abc   ", SqlType.varchar(3))).isEqualTo("abc");
        assertError(() -> Values.fromText("abcd", SqlType.varchar(3)), "22001", "value too long for type character varying(3)");
        assertError(() -> Values.fromText("abcd", SqlType.character(3)), "22001", "value too long for type character(3)");
        assertThat(Values.fitString("abcd", SqlType.varchar(3), true)).isEqualTo("abc");
    }

    @Test
    void sqlOrder() {
        assertThat(Values.compare(Double.NaN, Double.POSITIVE_INFINITY, SqlType.DOUBLE)).isPositive();
        assertThat(Values.compare(Double.NaN, Double.NaN, SqlType.DOUBLE)).isZero();
        assertThat(Values.compare(-0.0, 0.0, SqlType.DOUBLE)).isZero();
        assertThat(Values.compare(new BigDecimal("1.0"), new BigDecimal("1.00"), SqlType.NUMERIC)).isZero();
        assertThat(Values.compare("ab  ", "ab", SqlType.character(4))).isZero();
        assertThat(Values.compare("ab ", "ab", SqlType.TEXT)).isPositive();
        assertThat(Values.compare("B", "a", SqlType.TEXT)).isNegative();
        assertThat(Values.compare("\uFFFF", "\uD83D\uDE00", SqlType.TEXT)).isNegative();
        assertThat(Values.compare(new Interval(1, 0, 0), new Interval(0, 30, 0), SqlType.INTERVAL)).isZero();
        assertThat(Values.compare(LocalTime.of(1, 0), LocalTime.of(0, 59), SqlType.TIME)).isPositive();
        assertThat(Values.compare(Instant.EPOCH, Instant.EPOCH.plusNanos(1000), SqlType.TIMESTAMPTZ)).isNegative();
        assertThat(Values.compare(LocalDateTime.MIN, LocalDateTime.MAX, SqlType.TIMESTAMP)).isNegative();
        assertThat(Values.compare(Bytea.copyOf(new byte[] {(byte) 0xff}), Bytea.copyOf(new byte[] {1}), SqlType.BYTEA)).isPositive();
    }
}
