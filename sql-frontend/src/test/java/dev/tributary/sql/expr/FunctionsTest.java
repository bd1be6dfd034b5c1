package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FunctionsTest {

    private static final ScalarExpr TS = lit("2024-03-15 10:20:30.5", SqlType.TIMESTAMP);

    @Test
    void strings() {
        assertThat(show(fn("length", text("héllo")))).isEqualTo("5");
        assertThat(show(fn("length", unknown("abc")))).isEqualTo("3");
        assertThat(show(fn("length", lit("ab", SqlType.character(4))))).isEqualTo("2");
        assertThat(show(fn("char_length", lit("ab", SqlType.varchar(4))))).isEqualTo("2");
        assertThat(show(fn("octet_length", text("é")))).isEqualTo("2");
        assertThat(show(fn("length", lit("\\x0102", SqlType.BYTEA)))).isEqualTo("2");
        assertThat(show(fn("lower", text("ÀBC")))).isEqualTo("àbc");
        assertThat(show(fn("upper", unknown("abc")))).isEqualTo("ABC");
        assertThat(show(fn("initcap", text("hello wORLD-foo")))).isEqualTo("Hello World-Foo");
        assertThat(show(fn("strpos", text("hello"), text("lo")))).isEqualTo("4");
        assertThat(show(fn("position", text("lo"), text("hello")))).isEqualTo("4");
        assertThat(show(fn("strpos", text("hello"), text("z")))).isEqualTo("0");
        assertThat(show(fn("btrim", text("  x  ")))).isEqualTo("x");
        assertThat(show(fn("trim", text("xxaxx"), text("x")))).isEqualTo("a");
        assertThat(show(fn("ltrim", text("zzab"), text("z")))).isEqualTo("ab");
        assertThat(show(fn("rtrim", text("abyx"), text("xy")))).isEqualTo("ab");
        assertThat(show(fn("replace", text("abcabc"), text("b"), text("X")))).isEqualTo("aXcaXc");
        assertThat(show(fn("replace", text("abc"), text(""), text("X")))).isEqualTo("abc");
        assertThat(show(fn("left", text("hello"), i4(2)))).isEqualTo("he");
        assertThat(show(fn("left", text("hello"), i4(-2)))).isEqualTo("hel");
        assertThat(show(fn("right", text("hello"), i4(2)))).isEqualTo("lo");
        assertThat(show(fn("right", text("hello"), i4(-2)))).isEqualTo("llo");
        assertThat(show(fn("right", text("hello"), i4(-9)))).isEqualTo("");
        assertThat(show(fn("repeat", text("ab"), i4(3)))).isEqualTo("ababab");
        assertThat(show(fn("repeat", text("ab"), i4(-1)))).isEqualTo("");
        assertThat(show(fn("reverse", text("abc")))).isEqualTo("cba");
        assertThat(show(fn("lpad", text("hi"), i4(5)))).isEqualTo("   hi");
        assertThat(show(fn("lpad", text("hi"), i4(5), text("xy")))).isEqualTo("xyxhi");
        assertThat(show(fn("lpad", text("hello"), i4(2)))).isEqualTo("he");
        assertThat(show(fn("rpad", text("hi"), i4(5), text("xy")))).isEqualTo("hixyx");
        assertThat(show(fn("rpad", text("hi"), i4(5), text("")))).isEqualTo("hi");
        assertThat(show(fn("split_part", text("a,b,c"), text(","), i4(2)))).isEqualTo("b");
        assertThat(show(fn("split_part", text("a,b,c"), text(","), i4(-1)))).isEqualTo("c");
        assertThat(show(fn("split_part", text("a,b,c"), text(","), i4(4)))).isEqualTo("");
        assertThat(show(fn("starts_with", text("alphabet"), text("alph")))).isEqualTo("t");
        assertThat(show(fn("ascii", text("x")))).isEqualTo("120");
        assertThat(show(fn("chr", i4(65)))).isEqualTo("A");
        assertThat(show(fn("upper", nul(SqlType.TEXT)))).isEqualTo("NULL");
    }

    @ParameterizedTest
    @CsvSource({"2,3,ell", "0,3,he", "-1,3,h", "-5,3,''", "4,10,lo", "6,1,''", "1,0,''"})
    void substringIsOneBasedAndClamped(int start, int count, String expected) {
        assertThat(show(fn("substring", text("hello"), i4(start), i4(count)))).isEqualTo(expected);
        assertThat(show(fn("substr", text("hello"), i4(start), i4(count)))).isEqualTo(expected);
    }

    @Test
    void substringEdges() {
        assertThat(show(fn("substring", text("hello"), i4(3)))).isEqualTo("llo");
        assertThat(show(fn("substring", text("hello"), i4(10)))).isEqualTo("");
        assertThat(show(fn("substring", text("hello"), i4(-10)))).isEqualTo("hello");
        assertThat(show(fn("substring", text("hello"), i4(2), i4(Integer.MAX_VALUE)))).isEqualTo("ello");
        assertError(() -> eval(fn("substring", text("hello"), i4(2), i4(-1))), "22011", "negative substring length not allowed");
        assertThat(show(fn("substring", lit("\\x01020304", SqlType.BYTEA), i4(2), i4(2)))).isEqualTo("\\x0203");
    }

    /** {@code substring(s FROM pattern)} with a text pattern is PostgreSQL's regular-expression substring. */
    @Test
    void substringFromAPatternTakesTheFirstGroupOrTheMatch() {
        assertThat(show(fn("substring", text("https://x/item?a=1&ch=42&b"), unknown("[&?]ch=([^&]*)")))).isEqualTo("42");
        assertThat(show(fn("substring", text("Thomas"), unknown("...$")))).isEqualTo("mas");
        assertThat(show(fn("substring", text("https://x/item?a=1"), unknown("[&?]ch=([^&]*)")))).isEqualTo("NULL");
        assertThat(show(fn("substring", text("abc"), unknown("(x)|b")))).as("the group took no part in the match").isEqualTo("NULL");
        assertError(() -> eval(fn("substring", text("abc"), unknown("("))), "2201B", "invalid regular expression: Unclosed group");
    }

    @Test
    void concatFunctions() {
        assertThat(show(fn("concat", unknown("a"), nul(SqlType.UNKNOWN), i4(1), bool(true), num("1.50")))).isEqualTo("a1t1.50");
        assertThat(show(fn("concat_ws", unknown(","), unknown("a"), nul(SqlType.TEXT), unknown("b")))).isEqualTo("a,b");
        assertThat(show(fn("concat_ws", nul(SqlType.TEXT), unknown("a")))).isEqualTo("NULL");
        assertThat(show(fn("concat"))).isEqualTo("");
    }

    @Test
    void math() {
        assertThat(fn("abs", i4(-5)).type()).isEqualTo(SqlType.INTEGER);
        assertThat(show(fn("abs", i4(-5)))).isEqualTo("5");
        assertError(() -> eval(fn("abs", i4(Integer.MIN_VALUE))), "22003", "integer out of range");
        assertError(() -> eval(fn("abs", i8(Long.MIN_VALUE))), "22003", "bigint out of range");
        assertThat(show(fn("abs", num("-1.50")))).isEqualTo("1.50");
        assertThat(show(fn("round", num("2.5")))).isEqualTo("3");
        assertThat(show(fn("round", num("-2.5")))).isEqualTo("-3");
        assertThat(show(fn("round", f8(2.5)))).isEqualTo("2");
        assertThat(fn("round", i4(1)).type()).isEqualTo(SqlType.DOUBLE);
        assertThat(show(fn("round", num("1234.5678"), i4(2)))).isEqualTo("1234.57");
        assertThat(show(fn("round", num("1234.5678"), i4(-2)))).isEqualTo("1200");
        assertThat(show(fn("round", num("1.5"), i4(3)))).isEqualTo("1.500");
        assertThat(show(fn("trunc", num("1234.5678"), i4(2)))).isEqualTo("1234.56");
        assertThat(show(fn("trunc", num("-1.7")))).isEqualTo("-1");
        assertThat(show(fn("trunc", f8(-1.7)))).isEqualTo("-1");
        assertThat(show(fn("floor", num("-1.5")))).isEqualTo("-2");
        assertThat(show(fn("ceil", num("1.2")))).isEqualTo("2");
        assertThat(show(fn("ceiling", f8(-0.5)))).isEqualTo("-0");
        assertThat(show(fn("mod", i4(7), i4(3)))).isEqualTo("1");
        assertThat(show(fn("mod", num("7.5"), i4(2)))).isEqualTo("1.5");
        assertThat(show(fn("div", num("7.5"), i4(2)))).isEqualTo("3");
        assertThat(show(fn("power", i4(2), i4(10)))).isEqualTo("1024");
        assertThat(fn("power", i4(2), i4(10)).type()).isEqualTo(SqlType.DOUBLE);
        assertThat(show(fn("sqrt", num("2")))).isEqualTo("1.414213562373095");
        assertThat(show(fn("sqrt", num("100")))).isEqualTo("10.000000000000000");
        assertThat(show(fn("sqrt", f8(16)))).isEqualTo("4");
        assertError(() -> eval(fn("sqrt", f8(-1))), "2201F", "cannot take square root of a negative number");
        assertError(() -> eval(fn("sqrt", num("-1"))), "2201F", "cannot take square root of a negative number");
        assertThat(show(fn("exp", num("1.0")))).isEqualTo("2.7182818284590452");
        assertThat(show(fn("ln", num("2.0")))).isEqualTo("0.6931471805599453");
        assertThat(show(fn("ln", num("10")))).isEqualTo("2.3025850929940457");
        assertThat(show(fn("log", num("100.0")))).isEqualTo("2.0000000000000000");
        assertThat(show(fn("log", num("2"), num("64")))).isEqualTo("6.0000000000000000");
        assertThat(show(fn("log", f8(1000)))).isEqualTo("3");
        assertThat(show(fn("ln", f8(Math.E)))).isEqualTo("1");
        assertError(() -> eval(fn("ln", num("0"))), "2201E", "cannot take logarithm of zero");
        assertError(() -> eval(fn("ln", f8(-1))), "2201E", "cannot take logarithm of a negative number");
        assertThat(show(fn("sign", num("-3.5")))).isEqualTo("-1");
        assertThat(show(fn("sign", f8(0)))).isEqualTo("0");
        assertThat(show(fn("pi"))).isEqualTo("3.141592653589793");
    }

    @Test
    void extractIsNumericInPg15() {
        assertThat(fn("extract", unknown("year"), TS).type()).isEqualTo(SqlType.NUMERIC);
        assertThat(show(fn("extract", unknown("year"), TS))).isEqualTo("2024");
        assertThat(show(fn("extract", unknown("month"), TS))).isEqualTo("3");
        assertThat(show(fn("extract", unknown("day"), TS))).isEqualTo("15");
        assertThat(show(fn("extract", unknown("hour"), TS))).isEqualTo("10");
        assertThat(show(fn("extract", unknown("minute"), TS))).isEqualTo("20");
        assertThat(show(fn("extract", unknown("second"), TS))).isEqualTo("30.500000");
        assertThat(show(fn("extract", unknown("milliseconds"), TS))).isEqualTo("30500.000");
        assertThat(show(fn("extract", unknown("microseconds"), TS))).isEqualTo("30500000");
        assertThat(show(fn("extract", unknown("epoch"), TS))).isEqualTo("1710498030.500000");
        assertThat(show(fn("extract", unknown("dow"), TS))).isEqualTo("5");
        assertThat(show(fn("extract", unknown("isodow"), TS))).isEqualTo("5");
        assertThat(show(fn("extract", unknown("doy"), TS))).isEqualTo("75");
        assertThat(show(fn("extract", unknown("quarter"), TS))).isEqualTo("1");
        assertThat(show(fn("extract", unknown("week"), TS))).isEqualTo("11");
        assertThat(show(fn("extract", unknown("century"), TS))).isEqualTo("21");
        assertThat(show(fn("extract", unknown("decade"), TS))).isEqualTo("202");
        assertThat(show(fn("extract", unknown("millennium"), TS))).isEqualTo("3");
        assertThat(show(fn("extract", unknown("YEARS"), TS))).isEqualTo("2024");
        assertThat(show(fn("extract", unknown("year"), lit("0044-03-15 BC", SqlType.DATE)))).isEqualTo("-44");
        assertThat(show(fn("extract", unknown("century"), lit("0044-03-15 BC", SqlType.DATE)))).isEqualTo("-1");
        assertThat(show(fn("extract", unknown("timezone"), lit("2024-01-01 00:00+00", SqlType.TIMESTAMPTZ)))).isEqualTo("0");
        assertError(() -> eval(fn("extract", unknown("timezone"), TS)), "0A000",
                "unit \"timezone\" not supported for type timestamp without time zone");
        assertError(() -> eval(fn("extract", unknown("foo"), TS)), "22023",
                "unit \"foo\" not recognized for type timestamp without time zone");
    }

    @Test
    void extractFromDateTimeAndInterval() {
        ScalarExpr d = lit("2024-03-15", SqlType.DATE);
        assertThat(show(fn("extract", unknown("day"), d))).isEqualTo("15");
        assertThat(show(fn("extract", unknown("epoch"), lit("1970-01-02", SqlType.DATE)))).isEqualTo("86400");
        assertError(() -> eval(fn("extract", unknown("hour"), d)), "0A000", "unit \"hour\" not supported for type date");
        ScalarExpr t = lit("10:20:30.25", SqlType.TIME);
        assertThat(show(fn("extract", unknown("second"), t))).isEqualTo("30.250000");
        assertThat(show(fn("extract", unknown("epoch"), t))).isEqualTo("37230.250000");
        assertError(() -> eval(fn("extract", unknown("day"), t)), "0A000", "unit \"day\" not supported for type time without time zone");
        assertThat(show(fn("extract", unknown("epoch"), lit("1 day", SqlType.INTERVAL)))).isEqualTo("86400.000000");
        assertThat(show(fn("extract", unknown("epoch"), lit("1 year", SqlType.INTERVAL)))).isEqualTo("31557600.000000");
        assertThat(show(fn("extract", unknown("epoch"), lit("1 mon", SqlType.INTERVAL)))).isEqualTo("2592000.000000");
        assertThat(show(fn("extract", unknown("hour"), lit("25 hours", SqlType.INTERVAL)))).isEqualTo("25");
        assertThat(show(fn("extract", unknown("month"), lit("14 mons", SqlType.INTERVAL)))).isEqualTo("2");
        assertThat(show(fn("extract", unknown("year"), lit("14 mons", SqlType.INTERVAL)))).isEqualTo("1");
        assertThat(show(fn("extract", unknown("minute"), lit("-01:30:00", SqlType.INTERVAL)))).isEqualTo("-30");
        assertThat(show(fn("extract", unknown("second"), lit("00:00:01.5", SqlType.INTERVAL)))).isEqualTo("1.500000");
    }

    @Test
    void datePartIsDouble() {
        ScalarExpr e = fn("date_part", unknown("second"), TS);
        assertThat(e.type()).isEqualTo(SqlType.DOUBLE);
        assertThat(show(e)).isEqualTo("30.5");
        assertThat(show(fn("date_part", unknown("epoch"), TS))).isEqualTo("1710498030.5");
        assertThat(show(fn("date_part", unknown("day"), lit("2024-03-15", SqlType.DATE)))).isEqualTo("15");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "microseconds|2024-03-15 10:20:30.123456", "milliseconds|2024-03-15 10:20:30.123", "second|2024-03-15 10:20:30",
        "minute|2024-03-15 10:20:00", "hour|2024-03-15 10:00:00", "day|2024-03-15 00:00:00", "week|2024-03-11 00:00:00",
        "month|2024-03-01 00:00:00", "quarter|2024-01-01 00:00:00", "year|2024-01-01 00:00:00",
        "decade|2020-01-01 00:00:00", "century|2001-01-01 00:00:00", "millennium|2001-01-01 00:00:00"})
    void dateTrunc(String field, String expected) {
        ScalarExpr ts = lit("2024-03-15 10:20:30.123456", SqlType.TIMESTAMP);
        ScalarExpr e = fn("date_trunc", unknown(field), ts);
        assertThat(e.type()).isEqualTo(SqlType.TIMESTAMP);
        assertThat(show(e)).isEqualTo(expected);
    }

    @Test
    void dateTruncOtherTypes() {
        ScalarExpr onDate = fn("date_trunc", unknown("month"), lit("2024-03-15", SqlType.DATE));
        assertThat(onDate.type()).isEqualTo(SqlType.TIMESTAMPTZ);
        assertThat(show(onDate)).isEqualTo("2024-03-01 00:00:00+00");
        assertThat(show(fn("date_trunc", unknown("hour"), lit("1 day 02:34:56", SqlType.INTERVAL)))).isEqualTo("1 day 02:00:00");
        assertThat(show(fn("date_trunc", unknown("year"), lit("3 years 4 mons 5 days", SqlType.INTERVAL)))).isEqualTo("3 years");
        assertError(() -> eval(fn("date_trunc", unknown("fortnight"), lit("2024-03-15 10:00", SqlType.TIMESTAMP))), "22023",
                "unit \"fortnight\" not recognized for type timestamp without time zone");
        assertThat(show(fn("make_date", i4(2024), i4(2), i4(29)))).isEqualTo("2024-02-29");
    }

    @Test
    void missingFunctions() {
        SqlException e = error(() -> Functions.call("foo", java.util.List.of(i4(1)), 7));
        assertThat(e.sqlState()).isEqualTo("42883");
        assertThat(e.getMessage()).isEqualTo("function foo(integer) does not exist");
        assertThat(e.hint()).isEqualTo("No function matches the given name and argument types. You might need to add explicit type casts.");
        assertThat(e.position()).isEqualTo(7);
        assertError(() -> fn("length", i4(1)), "42883", "function length(integer) does not exist");
        assertError(() -> fn("upper", text("a"), text("b")), "42883", "function upper(text, text) does not exist");
        assertError(() -> fn("now", i4(1)), "42883", "function now(integer) does not exist");
    }
}
