package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * NUMERIC's NaN and infinities and the infinite dates and timestamps: every expected answer is
 * what PostgreSQL 15 printed for the same expression.
 */
class NonFiniteValuesTest {

    private static final SqlType D = SqlType.DATE, TS = SqlType.TIMESTAMP, TZ = SqlType.TIMESTAMPTZ;

    @Test
    void numericInputAndOutput() {
        assertThat(show(num("NaN"))).isEqualTo("NaN");
        assertThat(show(num(" -INF "))).isEqualTo("-Infinity");
        assertThat(show(num("+infinity"))).isEqualTo("Infinity");
        assertError(() -> num("+nan"), "22P02", "invalid input syntax for type numeric: \"+nan\"");
        assertThat(show(lit("nan", SqlType.numeric(5, 2)))).isEqualTo("NaN");
        assertThat(error(() -> lit("inf", SqlType.numeric(5, 2))).detail()).isEqualTo("A field with precision 5, scale 2 cannot hold an infinite value.");
    }

    @Test
    void numericArithmetic() {
        assertThat(show(op(BinaryOp.SUB, num("inf"), num("inf")))).isEqualTo("NaN");
        assertThat(show(op(BinaryOp.ADD, num("inf"), i4(1)))).isEqualTo("Infinity");
        assertThat(show(op(BinaryOp.MUL, num("inf"), i4(-2)))).isEqualTo("-Infinity");
        assertThat(show(op(BinaryOp.MUL, num("inf"), i4(0)))).isEqualTo("NaN");
        assertThat(show(op(BinaryOp.DIV, i4(1), num("inf")))).isEqualTo("0");
        assertThat(show(op(BinaryOp.DIV, num("-5.5"), num("inf")))).isEqualTo("0");
        assertThat(show(op(BinaryOp.DIV, num("nan"), i4(0)))).isEqualTo("NaN");
        assertError(() -> eval(op(BinaryOp.DIV, num("inf"), i4(0))), "22012", "division by zero");
        assertThat(show(op(BinaryOp.MOD, num("inf"), i4(2)))).isEqualTo("NaN");
        assertThat(show(op(BinaryOp.MOD, num("2.5"), num("inf")))).isEqualTo("2.5");
        assertThat(show(Operators.unary(UnaryOp.NEG, num("inf"), 1))).isEqualTo("-Infinity");
    }

    @Test
    void numericFunctions() {
        assertThat(show(fn("abs", num("-inf")))).isEqualTo("Infinity");
        assertThat(show(fn("sign", num("-inf")))).isEqualTo("-1");
        assertThat(show(fn("sign", num("nan")))).isEqualTo("NaN");
        assertThat(show(fn("round", num("inf"), i4(2)))).isEqualTo("Infinity");
        assertThat(show(fn("floor", num("nan")))).isEqualTo("NaN");
        assertThat(show(fn("sqrt", num("inf")))).isEqualTo("Infinity");
        assertThat(show(fn("exp", num("-inf")))).isEqualTo("0");
        assertThat(show(fn("power", num("1"), num("nan")))).isEqualTo("1");
        assertThat(show(fn("power", num("-1"), num("inf")))).isEqualTo("1");
        assertThat(show(fn("power", num("0.5"), num("inf")))).isEqualTo("0");
        assertThat(show(fn("power", num("-inf"), num("3")))).isEqualTo("-Infinity");
        assertThat(show(fn("div", num("inf"), num("2")))).isEqualTo("Infinity");
        assertError(() -> eval(fn("sqrt", num("-inf"))), "2201F", "cannot take square root of a negative number");
        assertError(() -> eval(fn("ln", num("-inf"))), "2201E", "cannot take logarithm of a negative number");
        assertError(() -> eval(fn("power", num("0"), num("-inf"))), "2201F", "zero raised to a negative power is undefined");
        assertError(() -> eval(fn("power", num("-inf"), num("0.5"))), "2201F", "a negative number raised to a non-integer power yields a complex result");
    }

    @Test
    void numericCasts() {
        assertError(() -> Casts.cast(NonFiniteNumeric.NAN, SqlType.NUMERIC, SqlType.INTEGER, CastContext.EXPLICIT), "0A000", "cannot convert NaN to integer");
        assertError(() -> Casts.cast(NonFiniteNumeric.NEGATIVE_INFINITY, SqlType.NUMERIC, SqlType.BIGINT, CastContext.EXPLICIT), "0A000",
                "cannot convert infinity to bigint");
        assertThat(Casts.cast(NonFiniteNumeric.POSITIVE_INFINITY, SqlType.NUMERIC, SqlType.DOUBLE, CastContext.EXPLICIT)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(Casts.cast(Double.NaN, SqlType.DOUBLE, SqlType.NUMERIC, CastContext.EXPLICIT)).isEqualTo(NonFiniteNumeric.NAN);
        assertThat(Casts.cast(Double.NEGATIVE_INFINITY, SqlType.REAL, SqlType.NUMERIC, CastContext.EXPLICIT)).isEqualTo(NonFiniteNumeric.NEGATIVE_INFINITY);
        assertThat(Casts.cast(NonFiniteNumeric.NAN, SqlType.NUMERIC, SqlType.TEXT, CastContext.EXPLICIT)).isEqualTo("NaN");
    }

    @Test
    void infiniteDatesAndTimestamps() {
        assertThat(show(lit("infinity", D))).isEqualTo("infinity");
        assertThat(show(lit(" -Infinity ", TS))).isEqualTo("-infinity");
        assertThat(show(lit("infinity", TZ))).isEqualTo("infinity");
        assertError(() -> lit("+infinity", D), "22007", "invalid input syntax for type date: \"+infinity\"");
        assertError(() -> lit("infinity", SqlType.TIME), "22007", null);
        assertThat(show(op(BinaryOp.ADD, lit("infinity", D), i4(1)))).isEqualTo("infinity");
        assertThat(show(op(BinaryOp.SUB, lit("-infinity", TZ), lit("1 month", SqlType.INTERVAL)))).isEqualTo("-infinity");
        assertThat(show(op(BinaryOp.ADD, lit("infinity", D), lit("10:00", SqlType.TIME)))).isEqualTo("infinity");
        assertError(() -> eval(op(BinaryOp.SUB, lit("infinity", TS), lit("2020-01-01", TS))), "22008", "cannot subtract infinite timestamps");
        assertError(() -> eval(op(BinaryOp.SUB, lit("infinity", D), lit("infinity", D))), "22008", "cannot subtract infinite dates");
        assertThat(show(fn("isfinite", lit("infinity", D)))).isEqualTo("f");
        assertThat(show(fn("isfinite", lit("2024-01-01", TS)))).isEqualTo("t");
        assertThat(show(fn("date_trunc", text("month"), lit("-infinity", TZ)))).isEqualTo("-infinity");
        assertThat(show(fn("extract", text("year"), lit("-infinity", D)))).isEqualTo("-Infinity");
        assertThat(show(fn("extract", text("day"), lit("infinity", TS)))).isEqualTo("NULL");
        assertThat(show(fn("date_part", text("epoch"), lit("infinity", D)))).isEqualTo("Infinity");
        assertError(() -> eval(fn("extract", text("hour"), lit("infinity", D))), "0A000", "unit \"hour\" not supported for type date");
        for (SqlType from : List.of(D, TS, TZ)) {
            for (SqlType to : List.of(D, TS, TZ, SqlType.TEXT)) {
                assertThat(Values.toText(Casts.cast(Values.fromText("-infinity", from), from, to, CastContext.EXPLICIT), to)).isEqualTo("-infinity");
            }
        }
        assertThat(Casts.cast(Values.fromText("infinity", TS), TS, SqlType.TIME, CastContext.EXPLICIT)).isNull();
    }

    // ------------------------------------------------------------------------------ order

    @Provide
    Arbitrary<List<Object>> numerics() {
        Arbitrary<Object> finite = Arbitraries.bigIntegers().between(java.math.BigInteger.valueOf(-10_000), java.math.BigInteger.valueOf(10_000))
                .flatMap(u -> Arbitraries.integers().between(0, 3).map(s -> (Object) new BigDecimal(u, s)));
        Arbitrary<Object> special = Arbitraries.of(NonFiniteNumeric.values()).map(n -> (Object) n);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(2, finite), net.jqwik.api.Tuple.of(1, special)).list().ofMinSize(1).ofMaxSize(8);
    }

    /** SQL order is a total order: -Infinity first, NaN last (equal to itself), like a double's with NaN greatest. */
    @Property(seed = "41", tries = 500)
    void numericOrderIsTheDoubleOrderWithNaNGreatest(@ForAll("numerics") List<Object> values) {
        List<Object> sorted = new ArrayList<>(values);
        sorted.sort((a, b) -> Values.compare(a, b, SqlType.NUMERIC));
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(Double.compare(asDouble(sorted.get(i - 1)), asDouble(sorted.get(i)))).isLessThanOrEqualTo(0);
        }
    }

    /** Adding and multiplying agree with IEEE arithmetic wherever an operand is not finite. */
    @Property(seed = "42", tries = 500)
    void nonFiniteArithmeticIsIeee(@ForAll("numerics") List<Object> values) {
        Object a = values.get(0), b = values.get(values.size() - 1);
        if (a instanceof BigDecimal && b instanceof BigDecimal) return;
        assertThat(Numerics.add(a, b)).isEqualTo(NonFiniteNumeric.of(asDouble(a) + asDouble(b)));
        assertThat(Numerics.subtract(a, b)).isEqualTo(NonFiniteNumeric.of(asDouble(a) - asDouble(b)));
        // only a finite operand's sign counts (0 * Infinity is NaN)
        assertThat(Numerics.multiply(a, b)).isEqualTo(NonFiniteNumeric.of(signed(a) * signed(b)));
    }

    private static double signed(Object v) {
        return v instanceof NonFiniteNumeric n ? n.asDouble() : ((BigDecimal) v).signum();
    }

    private static double asDouble(Object v) {
        return v instanceof NonFiniteNumeric n ? n.asDouble() : ((BigDecimal) v).doubleValue();
    }
}
