package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class CastsTest {

    private static String cast(String text, SqlType from, SqlType to) {
        return cast(text, from, to, CastContext.EXPLICIT);
    }

    private static String cast(String text, SqlType from, SqlType to, CastContext ctx) {
        Object v = Casts.cast(Values.fromText(text, from), from, to, ctx);
        return v == null ? "NULL" : Values.toText(v, to);
    }

    @Test
    void contexts() {
        assertThat(Casts.castable(SqlType.INTEGER, SqlType.BIGINT, CastContext.IMPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.BIGINT, SqlType.INTEGER, CastContext.IMPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.BIGINT, SqlType.INTEGER, CastContext.ASSIGNMENT)).isTrue();
        assertThat(Casts.castable(SqlType.NUMERIC, SqlType.DOUBLE, CastContext.IMPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.DOUBLE, SqlType.NUMERIC, CastContext.IMPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.DOUBLE, SqlType.NUMERIC, CastContext.ASSIGNMENT)).isTrue();
        assertThat(Casts.castable(SqlType.INTEGER, SqlType.TEXT, CastContext.IMPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.INTEGER, SqlType.TEXT, CastContext.ASSIGNMENT)).isTrue();
        assertThat(Casts.castable(SqlType.TEXT, SqlType.INTEGER, CastContext.ASSIGNMENT)).isFalse();
        assertThat(Casts.castable(SqlType.TEXT, SqlType.INTEGER, CastContext.EXPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.BOOLEAN, SqlType.INTEGER, CastContext.ASSIGNMENT)).isFalse();
        assertThat(Casts.castable(SqlType.BOOLEAN, SqlType.INTEGER, CastContext.EXPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.BOOLEAN, SqlType.BIGINT, CastContext.EXPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.DATE, SqlType.TIMESTAMP, CastContext.IMPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.TIMESTAMP, SqlType.DATE, CastContext.IMPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.TIMESTAMP, SqlType.DATE, CastContext.ASSIGNMENT)).isTrue();
        assertThat(Casts.castable(SqlType.BOOLEAN, SqlType.DATE, CastContext.EXPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.VARCHAR, SqlType.TEXT, CastContext.IMPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.TEXT, SqlType.character(3), CastContext.IMPLICIT)).isFalse();
        assertThat(Casts.castable(SqlType.UNKNOWN, SqlType.DATE, CastContext.IMPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.TIME, SqlType.INTERVAL, CastContext.IMPLICIT)).isTrue();
        assertThat(Casts.castable(SqlType.BYTEA, SqlType.TEXT, CastContext.ASSIGNMENT)).isTrue();
        assertThat(Casts.castable(SqlType.INTEGER, SqlType.BYTEA, CastContext.EXPLICIT)).isFalse();
    }

    @Test
    void integerNarrowingOverflows() {
        assertError(() -> Casts.cast(2147483648L, SqlType.BIGINT, SqlType.INTEGER), "22003", "integer out of range");
        assertError(() -> Casts.cast(32768L, SqlType.INTEGER, SqlType.SMALLINT), "22003", "smallint out of range");
        assertThat(Casts.cast(-32768L, SqlType.INTEGER, SqlType.SMALLINT)).isEqualTo(-32768L);
        assertError(() -> Casts.cast(new BigDecimal("9223372036854775808"), SqlType.NUMERIC, SqlType.BIGINT), "22003", "bigint out of range");
        assertError(() -> Casts.cast(new BigDecimal("2147483647.5"), SqlType.NUMERIC, SqlType.INTEGER), "22003", "integer out of range");
        assertError(() -> Casts.cast(1e10, SqlType.DOUBLE, SqlType.INTEGER), "22003", "integer out of range");
        assertError(() -> Casts.cast(Double.NaN, SqlType.DOUBLE, SqlType.BIGINT), "22003", "bigint out of range");
        assertError(() -> Casts.cast(9.3e18, SqlType.DOUBLE, SqlType.BIGINT), "22003", "bigint out of range");
    }

    @Test
    void roundingToIntegers() {
        assertThat(cast("2.5", SqlType.NUMERIC, SqlType.INTEGER)).isEqualTo("3");
        assertThat(cast("-2.5", SqlType.NUMERIC, SqlType.INTEGER)).isEqualTo("-3");
        assertThat(cast("2.49", SqlType.NUMERIC, SqlType.INTEGER)).isEqualTo("2");
        assertThat(cast("2.5", SqlType.DOUBLE, SqlType.INTEGER)).isEqualTo("2");
        assertThat(cast("3.5", SqlType.DOUBLE, SqlType.INTEGER)).isEqualTo("4");
        assertThat(cast("-2.5", SqlType.DOUBLE, SqlType.BIGINT)).isEqualTo("-2");
        assertThat(cast("2.5", SqlType.REAL, SqlType.SMALLINT)).isEqualTo("2");
    }

    @Test
    void numericConversions() {
        assertThat(cast("1.5", SqlType.NUMERIC, SqlType.numeric(10, 2))).isEqualTo("1.50");
        assertError(() -> cast("123.45", SqlType.NUMERIC, SqlType.numeric(3, 1)), "22003", "numeric field overflow");
        assertThat(cast("1.5", SqlType.DOUBLE, SqlType.NUMERIC)).isEqualTo("1.5");
        assertThat(cast("0.1", SqlType.DOUBLE, SqlType.NUMERIC)).isEqualTo("0.1");
        assertThat(cast("0.1", SqlType.REAL, SqlType.NUMERIC)).isEqualTo("0.1");
        assertThat(Values.toText(Casts.cast(1.0 / 3, SqlType.DOUBLE, SqlType.NUMERIC), SqlType.NUMERIC)).isEqualTo("0.333333333333333");
        assertThat(cast("1e20", SqlType.DOUBLE, SqlType.NUMERIC)).isEqualTo("100000000000000000000");
        assertThat(cast("42", SqlType.INTEGER, SqlType.NUMERIC)).isEqualTo("42");
        assertThat(cast("12.50", SqlType.NUMERIC, SqlType.DOUBLE)).isEqualTo("12.5");
        assertThat(cast("3.14159265358979", SqlType.NUMERIC, SqlType.REAL)).isEqualTo("3.1415927");
        assertThat(cast("16777217", SqlType.INTEGER, SqlType.REAL)).isEqualTo("1.6777216e+07");
        assertError(() -> Casts.cast(1e300, SqlType.DOUBLE, SqlType.REAL), "22003", "value out of range: overflow");
        assertError(() -> Casts.cast(1e-300, SqlType.DOUBLE, SqlType.REAL), "22003", "value out of range: underflow");
    }

    @Test
    void stringLengths() {
        assertThat(cast("abcdef", SqlType.TEXT, SqlType.varchar(3))).isEqualTo("abc");
        assertError(() -> cast("abcdef", SqlType.TEXT, SqlType.varchar(3), CastContext.ASSIGNMENT), "22001",
                "value too long for type character varying(3)");
        assertThat(cast("abc   ", SqlType.TEXT, SqlType.varchar(3), CastContext.ASSIGNMENT)).isEqualTo("abc");
        assertThat(cast("ab", SqlType.TEXT, SqlType.character(5))).isEqualTo("ab   ");
        assertThat(cast("abcdef", SqlType.TEXT, SqlType.character(2))).isEqualTo("ab");
        assertError(() -> cast("abc", SqlType.TEXT, SqlType.character(2), CastContext.ASSIGNMENT), "22001",
                "value too long for type character(2)");
        assertThat(Casts.cast("ab   ", SqlType.character(5), SqlType.TEXT)).isEqualTo("ab");
        assertThat(Casts.cast("ab   ", SqlType.character(5), SqlType.character(3))).isEqualTo("ab ");
        assertThat(Casts.cast(12345L, SqlType.INTEGER, SqlType.varchar(3))).isEqualTo("123");
        assertError(() -> Casts.cast(12345L, SqlType.INTEGER, SqlType.varchar(3), CastContext.ASSIGNMENT), "22001", null);
    }

    @Test
    void booleanAndIntegers() {
        assertThat(Casts.cast(true, SqlType.BOOLEAN, SqlType.INTEGER)).isEqualTo(1L);
        assertThat(Casts.cast(false, SqlType.BOOLEAN, SqlType.INTEGER)).isEqualTo(0L);
        assertThat(Casts.cast(0L, SqlType.INTEGER, SqlType.BOOLEAN)).isEqualTo(false);
        assertThat(Casts.cast(5L, SqlType.INTEGER, SqlType.BOOLEAN)).isEqualTo(true);
        assertThat(Casts.cast(true, SqlType.BOOLEAN, SqlType.TEXT)).isEqualTo("true");
        assertThat(Casts.cast(" yes ", SqlType.TEXT, SqlType.BOOLEAN)).isEqualTo(true);
    }

    @Test
    void textToEverythingAndBack() {
        assertThat(cast("42", SqlType.TEXT, SqlType.INTEGER)).isEqualTo("42");
        assertError(() -> cast("4x", SqlType.TEXT, SqlType.INTEGER), "22P02", "invalid input syntax for type integer: \"4x\"");
        assertThat(cast("2024-01-02", SqlType.TEXT, SqlType.DATE)).isEqualTo("2024-01-02");
        assertThat(cast("1 day", SqlType.TEXT, SqlType.INTERVAL)).isEqualTo("1 day");
        assertThat(cast("\\x01", SqlType.TEXT, SqlType.BYTEA)).isEqualTo("\\x01");
        assertThat(cast("12.50", SqlType.NUMERIC, SqlType.TEXT)).isEqualTo("12.50");
        assertThat(cast("2024-01-02 03:04:05", SqlType.TIMESTAMPTZ, SqlType.TEXT)).isEqualTo("2024-01-02 03:04:05+00");
        assertThat(cast("1e100", SqlType.DOUBLE, SqlType.TEXT)).isEqualTo("1e+100");
        assertThat(cast("1 year 2 mons", SqlType.INTERVAL, SqlType.TEXT)).isEqualTo("1 year 2 mons");
        assertThat(cast("  7 ", SqlType.character(4), SqlType.INTEGER)).isEqualTo("7");
    }

    @Test
    void dateTimeConversions() {
        assertThat(cast("2024-01-02 10:00", SqlType.TIMESTAMP, SqlType.DATE)).isEqualTo("2024-01-02");
        assertThat(cast("2024-01-02", SqlType.DATE, SqlType.TIMESTAMP)).isEqualTo("2024-01-02 00:00:00");
        assertThat(cast("2024-01-02", SqlType.DATE, SqlType.TIMESTAMPTZ)).isEqualTo("2024-01-02 00:00:00+00");
        assertThat(cast("2024-01-02 10:00:01.5", SqlType.TIMESTAMP, SqlType.TIME)).isEqualTo("10:00:01.5");
        assertThat(cast("2024-01-02 10:00+03", SqlType.TIMESTAMPTZ, SqlType.TIMESTAMP)).isEqualTo("2024-01-02 07:00:00");
        assertThat(cast("25:30:00", SqlType.INTERVAL, SqlType.TIME)).isEqualTo("01:30:00");
        assertThat(cast("-01:00:00", SqlType.INTERVAL, SqlType.TIME)).isEqualTo("23:00:00");
        assertThat(Casts.cast(java.time.LocalTime.of(1, 2), SqlType.TIME, SqlType.INTERVAL)).isEqualTo(new Interval(0, 0, 3_720_000_000L));
    }

    @Test
    void coerce() {
        assertError(() -> Casts.coerce(bool(true), SqlType.DATE, CastContext.EXPLICIT, 5), "42846", "cannot cast type boolean to date");
        assertThat(error(() -> Casts.coerce(bool(true), SqlType.DATE, CastContext.EXPLICIT, 5)).position()).isEqualTo(5);
        assertThat(Casts.tryCoerce(col(0, SqlType.TEXT), SqlType.INTEGER, CastContext.ASSIGNMENT, 1)).isNull();
        assertThat(Casts.tryCoerce(col(0, SqlType.INTEGER), SqlType.TEXT, CastContext.IMPLICIT, 1)).isNull();
        ScalarExpr e = Casts.coerce(unknown("42"), SqlType.INTEGER, CastContext.IMPLICIT, 1);
        assertThat(e).isEqualTo(new ScalarExpr.Literal(42L, SqlType.INTEGER));
        SqlException ex = error(() -> Casts.coerce(unknown("abc"), SqlType.INTEGER, CastContext.IMPLICIT, 9));
        assertThat(ex.sqlState()).isEqualTo("22P02");
        assertThat(ex.position()).isEqualTo(9);
        assertThat(Casts.coerce(new ScalarExpr.Literal(null, SqlType.UNKNOWN), SqlType.DATE, CastContext.IMPLICIT, 1))
                .isEqualTo(new ScalarExpr.Literal(null, SqlType.DATE));
        ScalarExpr c = Casts.coerce(col(0, SqlType.INTEGER), SqlType.BIGINT, CastContext.IMPLICIT, 1);
        assertThat(c.type()).isEqualTo(SqlType.BIGINT);
        assertThat(c.eval(new Object[] {7L})).isEqualTo(7L);
        assertThat(c.describe(java.util.List.of("x"))).isEqualTo("(x)::bigint");
        ScalarExpr v = Casts.coerce(col(0, SqlType.TEXT), SqlType.varchar(2), CastContext.ASSIGNMENT, 1);
        assertError(() -> v.eval(new Object[] {"abc"}), "22001", "value too long for type character varying(2)");
        ScalarExpr w = Casts.coerce(col(0, SqlType.TEXT), SqlType.varchar(2), CastContext.EXPLICIT, 1);
        assertThat(w.eval(new Object[] {"abc"})).isEqualTo("ab");
    }
}
