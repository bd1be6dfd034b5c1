package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.List;
import org.junit.jupiter.api.Test;

class OperatorsTest {

    private static final SqlType I2 = SqlType.SMALLINT, I4 = SqlType.INTEGER, I8 = SqlType.BIGINT;

    @Test
    void integerOverflowPerKind() {
        assertError(() -> eval(op(BinaryOp.ADD, i4(Integer.MAX_VALUE), i4(1))), "22003", "integer out of range");
        assertError(() -> eval(op(BinaryOp.SUB, i4(Integer.MIN_VALUE), i4(1))), "22003", "integer out of range");
        assertError(() -> eval(op(BinaryOp.MUL, i4(65536), i4(65536))), "22003", "integer out of range");
        assertThat(eval(op(BinaryOp.ADD, i8(Integer.MAX_VALUE), i4(1)))).isEqualTo(2147483648L);
        assertError(() -> eval(op(BinaryOp.ADD, i8(Long.MAX_VALUE), i8(1))), "22003", "bigint out of range");
        assertError(() -> eval(op(BinaryOp.DIV, i8(Long.MIN_VALUE), i8(-1))), "22003", "bigint out of range");
        assertError(() -> eval(op(BinaryOp.DIV, i4(Integer.MIN_VALUE), i4(-1))), "22003", "integer out of range");
        assertThat(eval(op(BinaryOp.MOD, i8(Long.MIN_VALUE), i8(-1)))).isEqualTo(0L);
        ScalarExpr s = lit("32767", I2);
        assertError(() -> eval(op(BinaryOp.ADD, s, lit("1", I2))), "22003", "smallint out of range");
        assertThat(op(BinaryOp.ADD, s, i4(1)).type()).isEqualTo(I4);
        assertThat(eval(op(BinaryOp.ADD, s, i4(1)))).isEqualTo(32768L);
        assertError(() -> Operators.unary(UnaryOp.NEG, col(0, I2), 1).eval(new Object[] {-32768L}), "22003", "smallint out of range");
    }

    @Test
    void divisionAndModulo() {
        assertThat(eval(op(BinaryOp.DIV, i4(7), i4(2)))).isEqualTo(3L);
        assertThat(eval(op(BinaryOp.DIV, i4(-7), i4(2)))).isEqualTo(-3L);
        assertThat(eval(op(BinaryOp.MOD, i4(7), i4(-3)))).isEqualTo(1L);
        assertThat(eval(op(BinaryOp.MOD, i4(-7), i4(3)))).isEqualTo(-1L);
        assertError(() -> eval(op(BinaryOp.DIV, i4(1), i4(0))), "22012", "division by zero");
        assertError(() -> eval(op(BinaryOp.MOD, i4(1), i4(0))), "22012", "division by zero");
        assertError(() -> eval(op(BinaryOp.DIV, num("1.0"), i4(0))), "22012", "division by zero");
        assertError(() -> eval(op(BinaryOp.DIV, f8(1), f8(0))), "22012", "division by zero");
        assertError(() -> eval(op(BinaryOp.MOD, num("1"), num("0"))), "22012", "division by zero");
        assertThat(show(op(BinaryOp.MOD, num("7.5"), i4(2)))).isEqualTo("1.5");
        assertThat(show(op(BinaryOp.MOD, num("-7.50"), num("2")))).isEqualTo("-1.50");
    }

    @Test
    void numericTower() {
        assertThat(op(BinaryOp.ADD, i4(1), i8(1)).type()).isEqualTo(I8);
        assertThat(op(BinaryOp.ADD, lit("1", I2), lit("1", I2)).type()).isEqualTo(I2);
        assertThat(op(BinaryOp.ADD, i4(1), num("1")).type()).isEqualTo(SqlType.NUMERIC);
        assertThat(op(BinaryOp.ADD, num("1"), f8(1)).type()).isEqualTo(SqlType.DOUBLE);
        assertThat(op(BinaryOp.ADD, i4(1), f8(1)).type()).isEqualTo(SqlType.DOUBLE);
        assertThat(op(BinaryOp.ADD, i4(1), lit("1", SqlType.REAL)).type()).isEqualTo(SqlType.DOUBLE);
        assertThat(op(BinaryOp.ADD, lit("1", SqlType.REAL), lit("1", SqlType.REAL)).type()).isEqualTo(SqlType.REAL);
        assertThat(op(BinaryOp.MUL, num("1"), lit("1", SqlType.REAL)).type()).isEqualTo(SqlType.DOUBLE);
        assertThat(op(BinaryOp.MOD, i4(5), i8(3)).type()).isEqualTo(I8);
        ScalarExpr pow = op(BinaryOp.POW, i4(2), i4(3));
        assertThat(pow.type()).isEqualTo(SqlType.DOUBLE);
        assertThat(show(pow)).isEqualTo("8");
        ScalarExpr npow = op(BinaryOp.POW, num("2"), i4(3));
        assertThat(npow.type()).isEqualTo(SqlType.NUMERIC);
        assertThat(show(npow)).isEqualTo("8.0000000000000000");
        assertThat(show(op(BinaryOp.POW, num("2"), num("0.5")))).isEqualTo("1.4142135623730950");
        assertThat(show(op(BinaryOp.POW, num("2"), num("-2")))).isEqualTo("0.2500000000000000");
        assertThat(show(op(BinaryOp.POW, num("10"), i4(2)))).isEqualTo("100.00000000000000");
        assertThat(show(op(BinaryOp.POW, num("2"), i4(100)))).isEqualTo("1267650600228229401496703205376");
        assertThat(show(op(BinaryOp.POW, num("0.5"), i4(3)))).isEqualTo("0.1250000000000000");
        assertThat(show(op(BinaryOp.POW, num("-2"), i4(3)))).isEqualTo("-8.0000000000000000");
        assertThat(show(op(BinaryOp.POW, num("0"), i4(0)))).isEqualTo("1.0000000000000000");
        assertThat(show(op(BinaryOp.POW, num("1.5"), num("2.5")))).isEqualTo("2.7556759606310754");
        assertError(() -> eval(op(BinaryOp.POW, num("0"), num("-1"))), "2201F", "zero raised to a negative power is undefined");
        assertError(() -> eval(op(BinaryOp.POW, f8(-8), f8(0.5))), "2201F",
                "a negative number raised to a non-integer power yields a complex result");
        assertError(() -> eval(op(BinaryOp.POW, f8(10), f8(400))), "22003", "value out of range: overflow");
        assertError(() -> eval(op(BinaryOp.MUL, f8(1e300), f8(1e300))), "22003", "value out of range: overflow");
    }

    @Test
    void numericScales() {
        assertThat(show(op(BinaryOp.DIV, num("1"), i4(3)))).isEqualTo("0.33333333333333333333");
        assertThat(show(op(BinaryOp.DIV, num("10"), num("4")))).isEqualTo("2.5000000000000000");
        assertThat(show(op(BinaryOp.DIV, num("2"), num("3")))).isEqualTo("0.66666666666666666667");
        assertThat(show(op(BinaryOp.DIV, num("1.000000000000000000000000"), num("3")))).isEqualTo("0.333333333333333333333333");
        assertThat(show(op(BinaryOp.DIV, num("12345678"), num("0.001")))).isEqualTo("12345678000.00000000");
        assertThat(show(op(BinaryOp.DIV, num("100000"), num("3")))).isEqualTo("33333.333333333333");
        assertThat(show(op(BinaryOp.MUL, num("1.5"), num("2.25")))).isEqualTo("3.375");
        assertThat(show(op(BinaryOp.ADD, num("1.50"), i4(1)))).isEqualTo("2.50");
        assertThat(show(op(BinaryOp.SUB, num("1.5"), num("1.5")))).isEqualTo("0.0");
        assertThat(show(op(BinaryOp.DIV, f8(1), f8(3)))).isEqualTo("0.3333333333333333");
    }

    @Test
    void typmodsDoNotNeedCasts() {
        ScalarExpr a = col(0, SqlType.numeric(10, 2));
        ScalarExpr sum = ScalarExprs.fold(op(BinaryOp.ADD, a, i4(1)));
        assertThat(sum.describe(List.of("a"))).isEqualTo("(a + 1)");
        assertThat(Values.toText(sum.eval(new Object[] {new java.math.BigDecimal("2.50")}), sum.type())).isEqualTo("3.50");
    }

    @Test
    void dateTimeArithmetic() {
        ScalarExpr d = lit("2024-01-31", SqlType.DATE);
        assertThat(show(op(BinaryOp.ADD, d, i4(1)))).isEqualTo("2024-02-01");
        assertThat(show(op(BinaryOp.ADD, i4(1), d))).isEqualTo("2024-02-01");
        assertThat(show(op(BinaryOp.SUB, d, i4(31)))).isEqualTo("2023-12-31");
        ScalarExpr diff = op(BinaryOp.SUB, lit("2024-03-01", SqlType.DATE), d);
        assertThat(diff.type()).isEqualTo(SqlType.INTEGER);
        assertThat(show(diff)).isEqualTo("30");
        ScalarExpr plusMonth = op(BinaryOp.ADD, d, lit("1 month", SqlType.INTERVAL));
        assertThat(plusMonth.type()).isEqualTo(SqlType.TIMESTAMP);
        assertThat(show(plusMonth)).isEqualTo("2024-02-29 00:00:00");
        assertThat(show(op(BinaryOp.ADD, d, lit("10:30", SqlType.TIME)))).isEqualTo("2024-01-31 10:30:00");
        ScalarExpr ts = lit("2024-01-02 03:00:00", SqlType.TIMESTAMP);
        ScalarExpr span = op(BinaryOp.SUB, ts, lit("2024-01-01", SqlType.TIMESTAMP));
        assertThat(span.type()).isEqualTo(SqlType.INTERVAL);
        assertThat(show(span)).isEqualTo("1 day 03:00:00");
        assertThat(show(op(BinaryOp.SUB, lit("2024-01-01", SqlType.TIMESTAMP), ts))).isEqualTo("-1 days -03:00:00");
        assertThat(show(op(BinaryOp.ADD, ts, lit("1 mon 1 day 2 hours", SqlType.INTERVAL)))).isEqualTo("2024-02-03 05:00:00");
        assertThat(show(op(BinaryOp.SUB, ts, lit("3 hours 0.5 seconds", SqlType.INTERVAL)))).isEqualTo("2024-01-01 23:59:59.5");
        assertThat(show(op(BinaryOp.ADD, ts, unknown("1 day")))).isEqualTo("2024-01-03 03:00:00");
        ScalarExpr tz = lit("2024-01-02 03:00:00+00", SqlType.TIMESTAMPTZ);
        assertThat(show(op(BinaryOp.ADD, tz, lit("1 hour", SqlType.INTERVAL)))).isEqualTo("2024-01-02 04:00:00+00");
        assertThat(show(op(BinaryOp.SUB, tz, ts))).isEqualTo("00:00:00");
        assertThat(show(op(BinaryOp.ADD, lit("23:00", SqlType.TIME), lit("2 hours", SqlType.INTERVAL)))).isEqualTo("01:00:00");
        assertThat(show(op(BinaryOp.SUB, lit("01:00", SqlType.TIME), lit("02:30", SqlType.TIME)))).isEqualTo("-01:30:00");
        ScalarExpr iv = lit("1 mon", SqlType.INTERVAL);
        assertThat(show(op(BinaryOp.MUL, iv, num("1.5")))).isEqualTo("1 mon 15 days");
        assertThat(show(op(BinaryOp.MUL, i4(2), lit("1 day 01:00:00", SqlType.INTERVAL)))).isEqualTo("2 days 02:00:00");
        assertThat(show(op(BinaryOp.DIV, lit("1 day", SqlType.INTERVAL), i4(3)))).isEqualTo("08:00:00");
        assertThat(show(op(BinaryOp.DIV, lit("1 mon", SqlType.INTERVAL), i4(4)))).isEqualTo("7 days 12:00:00");
        assertError(() -> eval(op(BinaryOp.DIV, iv, i4(0))), "22012", "division by zero");
        assertThat(show(op(BinaryOp.ADD, iv, lit("1 day", SqlType.INTERVAL)))).isEqualTo("1 mon 1 day");
        assertThat(show(Operators.unary(UnaryOp.NEG, lit("1 day -01:00", SqlType.INTERVAL), 1))).isEqualTo("-1 days +01:00:00");
    }

    @Test
    void comparisons() {
        assertThat(eval(op(BinaryOp.EQ, i4(1), num("1.0")))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.LT, i4(1), i8(2)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.GT, f8(1.5), i4(1)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.NE, num("0.1"), lit("0.1", SqlType.REAL)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.LT, text("abc"), text("abd")))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.EQ, lit("ab", SqlType.character(4)), unknown("ab")))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.EQ, lit("ab", SqlType.character(4)), text("ab")))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.EQ, lit("2024-01-01", SqlType.DATE), lit("2024-01-01 00:00", SqlType.TIMESTAMP)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.LT, lit("2024-01-01", SqlType.DATE), lit("2024-01-01 00:00:01+00", SqlType.TIMESTAMPTZ))))
                .isEqualTo(true);
        assertThat(eval(op(BinaryOp.EQ, lit("1 mon", SqlType.INTERVAL), lit("30 days", SqlType.INTERVAL)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.GE, bool(true), bool(false)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.EQ, unknown("a"), unknown("a")))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.EQ, i4(1), nul(SqlType.UNKNOWN)))).isNull();
        assertThat(eval(op(BinaryOp.GT, f8(Double.NaN), f8(Double.POSITIVE_INFINITY)))).isEqualTo(true);
        assertThat(eval(op(BinaryOp.LE, lit("varchar", SqlType.varchar(10)), text("varchar")))).isEqualTo(true);
    }

    @Test
    void untypedLiteralTakesTheOtherSidesType() {
        ScalarExpr e = op(BinaryOp.EQ, col(0, SqlType.INTEGER), unknown("5"));
        ScalarExpr.Call c = (ScalarExpr.Call) e;
        assertThat(c.args().get(1)).isEqualTo(new ScalarExpr.Literal(5L, SqlType.INTEGER));
        assertThat(e.eval(new Object[] {5L})).isEqualTo(true);
        assertThat(e.describe(List.of("x"))).isEqualTo("(x = 5)");
        SqlException ex = error(() -> op(BinaryOp.EQ, col(0, SqlType.INTEGER), unknown("five")));
        assertThat(ex.sqlState()).isEqualTo("22P02");
        assertThat(ex.getMessage()).isEqualTo("invalid input syntax for type integer: \"five\"");
        assertError(() -> op(BinaryOp.ADD, lit("2024-01-01", SqlType.DATE), unknown("1 day")), "42725",
                "operator is not unique: date + unknown");
    }

    @Test
    void missingAndAmbiguousOperators() {
        SqlException e = error(() -> Operators.binary(BinaryOp.ADD, i4(1), bool(true), 10));
        assertThat(e.sqlState()).isEqualTo("42883");
        assertThat(e.getMessage()).isEqualTo("operator does not exist: integer + boolean");
        assertThat(e.hint()).isEqualTo("No operator matches the given name and argument types. You might need to add explicit type casts.");
        assertThat(e.position()).isEqualTo(10);
        assertError(() -> op(BinaryOp.ADD, unknown("1"), unknown("2")), "42725", "operator is not unique: unknown + unknown");
        assertError(() -> op(BinaryOp.MOD, f8(1), f8(2)), "42883", "operator does not exist: double precision % double precision");
        assertError(() -> op(BinaryOp.EQ, text("1"), i4(1)), "42883", "operator does not exist: text = integer");
        assertError(() -> op(BinaryOp.CONCAT, i4(1), i4(2)), "42883", "operator does not exist: integer || integer");
        assertError(() -> Operators.unary(UnaryOp.NEG, bool(true), 1), "42883", "operator does not exist: - boolean");
        assertError(() -> op(BinaryOp.ADD, lit("2024-01-01", SqlType.DATE), i8(1)), "42883", "operator does not exist: date + bigint");
    }

    @Test
    void concatenation() {
        assertThat(show(op(BinaryOp.CONCAT, unknown("a"), unknown("b")))).isEqualTo("ab");
        ScalarExpr mixed = op(BinaryOp.CONCAT, text("a"), i4(1));
        assertThat(mixed.type()).isEqualTo(SqlType.TEXT);
        assertThat(show(mixed)).isEqualTo("a1");
        assertThat(show(op(BinaryOp.CONCAT, i4(1), unknown("a")))).isEqualTo("1a");
        assertThat(show(op(BinaryOp.CONCAT, text("x"), bool(true)))).isEqualTo("xtrue");
        assertThat(show(op(BinaryOp.CONCAT, text("n="), num("1.50")))).isEqualTo("n=1.50");
        assertThat(show(op(BinaryOp.CONCAT, text("a"), nul(SqlType.TEXT)))).isEqualTo("NULL");
        assertThat(show(op(BinaryOp.CONCAT, lit("ab", SqlType.character(4)), text("c")))).isEqualTo("abc");
        ScalarExpr b = op(BinaryOp.CONCAT, lit("\\x01", SqlType.BYTEA), unknown("\\x02ff"));
        assertThat(b.type()).isEqualTo(SqlType.BYTEA);
        assertThat(show(b)).isEqualTo("\\x0102ff");
    }

    @Test
    void unaryMinusOfLiteralsFolds() {
        assertThat(Operators.unary(UnaryOp.NEG, i4(5), 1)).isEqualTo(new ScalarExpr.Literal(-5L, SqlType.INTEGER));
        assertThat(show(Operators.unary(UnaryOp.NEG, num("1.50"), 1))).isEqualTo("-1.50");
        assertThat(show(Operators.unary(UnaryOp.PLUS, f8(2), 1))).isEqualTo("2");
        assertError(() -> eval(Operators.unary(UnaryOp.NEG, i8(Long.MIN_VALUE), 1)), "22003", "bigint out of range");
    }
}
