package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LogicTest {

    private static Boolean b(String s) {
        return s.equals("N") ? null : s.equals("T");
    }

    private static String s(Object v) {
        return v == null ? "N" : ((Boolean) v ? "T" : "F");
    }

    @ParameterizedTest
    @CsvSource({
        "T,T,T,T", "T,F,F,T", "T,N,N,T", "F,T,F,T", "F,F,F,F", "F,N,F,N", "N,T,N,T", "N,F,F,N", "N,N,N,N"})
    void andOrTruthTables(String l, String r, String and, String or) {
        List<ScalarExpr> args = List.of(bool(b(l)), bool(b(r)));
        assertThat(s(eval(Operators.and(args, 1)))).isEqualTo(and);
        assertThat(s(eval(Operators.or(args, 1)))).isEqualTo(or);
    }

    @Test
    void notAndIsNull() {
        assertThat(eval(Operators.unary(UnaryOp.NOT, bool(null), 1))).isNull();
        assertThat(eval(Operators.unary(UnaryOp.NOT, bool(true), 1))).isEqualTo(false);
        assertThat(eval(Operators.unary(UnaryOp.NOT, unknown("f"), 1))).isEqualTo(true);
        assertThat(eval(new ScalarExpr.IsNull(i4(1), false))).isEqualTo(false);
        assertThat(eval(new ScalarExpr.IsNull(nul(SqlType.INTEGER), false))).isEqualTo(true);
        assertThat(eval(new ScalarExpr.IsNull(nul(SqlType.INTEGER), true))).isEqualTo(false);
        assertError(() -> Operators.and(List.of(i4(1), bool(true)), 1), "42804", "argument of AND must be type boolean, not type integer");
    }

    @Test
    void andStopsAtFalse() {
        ScalarExpr boom = op(BinaryOp.EQ, op(BinaryOp.DIV, i4(1), i4(0)), i4(1));
        assertThat(eval(Operators.and(List.of(bool(false), boom), 1))).isEqualTo(false);
        assertThat(eval(Operators.or(List.of(bool(true), boom), 1))).isEqualTo(true);
    }

    @Test
    void inListWithNulls() {
        assertThat(eval(Operators.in(i4(1), List.of(i4(2), nul(SqlType.UNKNOWN)), false, 1))).isNull();
        assertThat(eval(Operators.in(i4(1), List.of(i4(1), nul(SqlType.UNKNOWN)), false, 1))).isEqualTo(true);
        assertThat(eval(Operators.in(i4(1), List.of(i4(2), nul(SqlType.UNKNOWN)), true, 1))).isNull();
        assertThat(eval(Operators.in(i4(1), List.of(i4(1), nul(SqlType.UNKNOWN)), true, 1))).isEqualTo(false);
        assertThat(eval(Operators.in(nul(SqlType.INTEGER), List.of(i4(1)), false, 1))).isNull();
        assertThat(eval(Operators.in(i4(1), List.of(i4(2), i4(3)), true, 1))).isEqualTo(true);
        assertThat(eval(Operators.in(i4(2), List.of(num("1.5"), num("2.0")), false, 1))).isEqualTo(true);
        assertThat(eval(Operators.in(text("b"), List.of(unknown("a"), unknown("b")), false, 1))).isEqualTo(true);
        assertError(() -> Operators.in(text("b"), List.of(i4(1)), false, 1), "42883", "operator does not exist: text = integer");
        ScalarExpr in = Operators.in(col(0, SqlType.INTEGER), List.of(i4(1), i4(2)), false, 1);
        assertThat(in.describe(List.of("x"))).isEqualTo("(x IN (1, 2))");
    }

    @Test
    void isDistinctFrom() {
        assertThat(eval(Operators.isDistinctFrom(nul(SqlType.INTEGER), nul(SqlType.UNKNOWN), false, 1))).isEqualTo(false);
        assertThat(eval(Operators.isDistinctFrom(i4(1), nul(SqlType.UNKNOWN), false, 1))).isEqualTo(true);
        assertThat(eval(Operators.isDistinctFrom(i4(1), num("1.00"), false, 1))).isEqualTo(false);
        assertThat(eval(Operators.isDistinctFrom(i4(1), i8(2), true, 1))).isEqualTo(false);
        assertThat(eval(Operators.isDistinctFrom(nul(SqlType.TEXT), nul(SqlType.TEXT), true, 1))).isEqualTo(true);
    }

    @Test
    void caseCoalesceNullIfGreatest() {
        ScalarExpr cs = new ScalarExpr.Case(List.of(
                new ScalarExpr.When(bool(null), i4(1)),
                new ScalarExpr.When(bool(false), i4(2))), i4(3), SqlType.INTEGER);
        assertThat(eval(cs)).isEqualTo(3L);
        ScalarExpr noElse = new ScalarExpr.Case(List.of(new ScalarExpr.When(bool(false), i4(2))), null, SqlType.INTEGER);
        assertThat(eval(noElse)).isNull();
        ScalarExpr lazy = new ScalarExpr.Case(List.of(new ScalarExpr.When(bool(true), i4(1))),
                op(BinaryOp.DIV, i4(1), i4(0)), SqlType.INTEGER);
        assertThat(eval(lazy)).isEqualTo(1L);
        assertThat(cs.describe(List.of())).isEqualTo("CASE WHEN NULL THEN 1 WHEN false THEN 2 ELSE 3 END");

        ScalarExpr co = fn("coalesce", nul(SqlType.UNKNOWN), i4(1), num("2.5"));
        assertThat(co.type()).isEqualTo(SqlType.NUMERIC);
        assertThat(show(co)).isEqualTo("1");
        assertThat(show(fn("coalesce", nul(SqlType.UNKNOWN), unknown("x")))).isEqualTo("x");
        assertError(() -> fn("coalesce", i4(1), unknown("a")), "22P02", "invalid input syntax for type integer: \"a\"");
        assertError(() -> fn("coalesce", i4(1), text("a")), "42804", "COALESCE types integer and text cannot be matched");

        assertThat(eval(fn("nullif", i4(1), i4(1)))).isNull();
        assertThat(eval(fn("nullif", i4(1), i4(2)))).isEqualTo(1L);
        assertThat(eval(fn("nullif", i4(1), num("1.0")))).isNull();
        assertThat(fn("nullif", i4(1), num("1.0")).type()).isEqualTo(SqlType.INTEGER);
        assertThat(eval(fn("nullif", nul(SqlType.INTEGER), i4(1)))).isNull();
        assertThat(eval(fn("nullif", i4(1), nul(SqlType.UNKNOWN)))).isEqualTo(1L);

        assertThat(show(fn("greatest", i4(1), nul(SqlType.UNKNOWN), i4(3)))).isEqualTo("3");
        assertThat(show(fn("least", i4(5), num("2.5"), i4(3)))).isEqualTo("2.5");
        assertThat(eval(fn("least", nul(SqlType.INTEGER), nul(SqlType.INTEGER)))).isNull();
        assertThat(show(fn("greatest", unknown("apple"), unknown("banana")))).isEqualTo("banana");
    }

    @Test
    void commonTypes() {
        assertThat(Types.common(List.of(SqlType.UNKNOWN, SqlType.UNKNOWN), "UNION", 1)).isEqualTo(SqlType.TEXT);
        assertThat(Types.common(List.of(SqlType.INTEGER, SqlType.BIGINT), "UNION", 1)).isEqualTo(SqlType.BIGINT);
        assertThat(Types.common(List.of(SqlType.BIGINT, SqlType.INTEGER), "UNION", 1)).isEqualTo(SqlType.BIGINT);
        assertThat(Types.common(List.of(SqlType.INTEGER, SqlType.NUMERIC, SqlType.DOUBLE), "CASE", 1)).isEqualTo(SqlType.DOUBLE);
        assertThat(Types.common(List.of(SqlType.DOUBLE, SqlType.NUMERIC), "CASE", 1)).isEqualTo(SqlType.DOUBLE);
        assertThat(Types.common(List.of(SqlType.NUMERIC, SqlType.INTEGER), "CASE", 1)).isEqualTo(SqlType.NUMERIC);
        assertThat(Types.common(List.of(SqlType.numeric(10, 2), SqlType.numeric(10, 2)), "CASE", 1)).isEqualTo(SqlType.numeric(10, 2));
        assertThat(Types.common(List.of(SqlType.numeric(10, 2), SqlType.numeric(5, 1)), "CASE", 1)).isEqualTo(SqlType.NUMERIC);
        // text and varchar convert implicitly both ways, so the first stays (PostgreSQL's select_common_type)
        assertThat(Types.common(List.of(SqlType.varchar(3), SqlType.TEXT), "UNION", 1)).isEqualTo(SqlType.VARCHAR);
        assertThat(Types.common(List.of(SqlType.TEXT, SqlType.varchar(3)), "UNION", 1)).isEqualTo(SqlType.TEXT);
        assertThat(Types.common(List.of(SqlType.UNKNOWN, SqlType.DATE), "VALUES", 1)).isEqualTo(SqlType.DATE);
        assertThat(Types.common(List.of(SqlType.DATE, SqlType.TIMESTAMP), "UNION", 1)).isEqualTo(SqlType.TIMESTAMP);
        assertThat(Types.common(List.of(SqlType.TIMESTAMP, SqlType.TIMESTAMPTZ), "UNION", 1)).isEqualTo(SqlType.TIMESTAMPTZ);
        assertError(() -> Types.common(List.of(SqlType.INTEGER, SqlType.TEXT), "CASE", 1), "42804", "CASE types integer and text cannot be matched");
        assertError(() -> Types.common(List.of(SqlType.TEXT, SqlType.UNKNOWN, SqlType.BOOLEAN), "UNION", 1), "42804",
                "UNION types text and boolean cannot be matched");
        assertError(() -> Types.common(List.of(SqlType.DATE, SqlType.TIME), "CASE", 1), "42846",
                "CASE could not convert type time without time zone to date");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "abc|a%|T", "abc|a_c|T", "abc|ab|F", "abc|%|T", "''|%|T", "''|_|F", "a%c|a\\%c|T", "abc|a\\%c|F",
        "aaa|%a%a%a%|T", "aa|%a%a%a%|F", "abc|%b%|T", "abc|_b_|T", "abc|__|F", "ab|a\\b|T", "mississippi|%iss%ppi|T",
        "mississippi|m%i%s%s%x|F", "héllo|h_llo|T", "a.c|a.c|T", "axc|a.c|F", "a*c|a*c|T"})
    void likePatterns(String s, String p, String expected) {
        assertThat(s(eval(Operators.like(text(s), text(p), null, false, false, 1)))).isEqualTo(expected);
        assertThat(s(eval(Operators.like(text(s), text(p), null, false, true, 1)))).isEqualTo(expected.equals("T") ? "F" : "T");
    }

    @Test
    void likeEscapeIlikeAndNulls() {
        assertThat(eval(Operators.like(text("10%"), text("10#%"), text("#"), false, false, 1))).isEqualTo(true);
        assertThat(eval(Operators.like(text("10x"), text("10#%"), text("#"), false, false, 1))).isEqualTo(false);
        assertThat(eval(Operators.like(text("a\\b"), text("a\\b"), text(""), false, false, 1))).isEqualTo(true);
        assertThat(eval(Operators.like(text("ABC"), text("a%"), null, true, false, 1))).isEqualTo(true);
        assertThat(eval(Operators.like(text("ABC"), text("a%"), null, false, false, 1))).isEqualTo(false);
        assertThat(eval(Operators.like(text("ABC"), text("a%"), null, true, true, 1))).isEqualTo(false);
        assertThat(eval(Operators.like(nul(SqlType.TEXT), text("a"), null, false, false, 1))).isNull();
        assertThat(eval(Operators.like(text("a"), nul(SqlType.TEXT), null, false, true, 1))).isNull();
        assertThat(eval(Operators.like(lit("ab", SqlType.character(4)), unknown("ab"), null, false, false, 1))).isEqualTo(true);
        assertError(() -> eval(Operators.like(text("a"), text("a\\"), null, false, false, 1)), "22025",
                "LIKE pattern must not end with escape character");
        assertError(() -> eval(Operators.like(text("a"), text("a"), text("ab"), false, false, 1)), "22019", "invalid escape string");
        assertError(() -> Operators.like(i4(1), unknown("1%"), null, false, false, 1), "42883", "operator does not exist: integer ~~ unknown");
        ScalarExpr.Like like = (ScalarExpr.Like) Operators.like(col(0, SqlType.TEXT), unknown("a%"), null, false, false, 1);
        assertThat(like.compiled()).isNotNull();
        assertThat(like.eval(new Object[] {"abc"})).isEqualTo(true);
        assertThat(like.describe(List.of("s"))).isEqualTo("(s ~~ 'a%'::text)");
        ScalarExpr dynamic = Operators.like(text("abc"), col(0, SqlType.TEXT), null, false, false, 1);
        assertThat(dynamic.eval(new Object[] {"%c"})).isEqualTo(true);
    }

    @Test
    void foldingLeavesErrorsForEvaluation() {
        ScalarExpr oneDivZero = op(BinaryOp.DIV, i4(1), i4(0));
        assertThat(oneDivZero.isConstant()).isTrue();
        assertThat(ScalarExprs.fold(oneDivZero)).isEqualTo(oneDivZero);
        ScalarExpr x = col(0, SqlType.INTEGER);
        ScalarExpr e = op(BinaryOp.ADD, x, op(BinaryOp.MUL, i4(2), i4(3)));
        assertThat(e.isConstant()).isFalse();
        ScalarExpr folded = ScalarExprs.fold(e);
        assertThat(folded.describe(List.of("x"))).isEqualTo("(x + 6)");
        assertThat(folded.eval(new Object[] {1L})).isEqualTo(7L);
        ScalarExpr mixed = op(BinaryOp.ADD, op(BinaryOp.ADD, i4(1), i4(1)), oneDivZero);
        assertThat(ScalarExprs.fold(mixed).describe(List.of())).isEqualTo("(2 + (1 / 0))");
    }

    @Test
    void describeForExplain() {
        List<String> cols = List.of("a", "b");
        ScalarExpr a = col(0, SqlType.INTEGER), b = col(1, SqlType.TEXT);
        ScalarExpr e = Operators.and(List.of(op(BinaryOp.GT, a, i4(1)), new ScalarExpr.IsNull(b, true)), 1);
        assertThat(e.describe(cols)).isEqualTo("((a > 1) AND (b IS NOT NULL))");
        assertThat(op(BinaryOp.EQ, b, unknown("x")).describe(cols)).isEqualTo("(b = 'x'::text)");
        assertThat(fn("upper", b).describe(cols)).isEqualTo("upper(b)");
        assertThat(op(BinaryOp.ADD, a, num("1.5")).describe(cols)).isEqualTo("((a)::numeric + 1.5)");
        assertThat(fn("coalesce", a, i4(0)).describe(cols)).isEqualTo("COALESCE(a, 0)");
        assertThat(Operators.unary(UnaryOp.NEG, a, 1).describe(cols)).isEqualTo("(- a)");
        assertThat(Operators.isDistinctFrom(a, i4(1), false, 1).describe(cols)).isEqualTo("(a IS DISTINCT FROM 1)");
    }

    @Test
    void nowIsBoundPerStatement() {
        ScalarExpr now = fn("now");
        assertThat(now).isInstanceOf(ScalarExpr.Now.class);
        assertThat(now.isConstant()).isFalse();
        assertThat(ScalarExprs.fold(now)).isSameAs(now);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> eval(now)).isInstanceOf(IllegalStateException.class);
        Instant t = Instant.parse("2024-05-06T07:08:09.123456789Z");
        ScalarExpr e = op(BinaryOp.ADD, fn("current_date"), i4(1));
        assertThat(ScalarExprs.usesStatementTime(e)).isTrue();
        assertThat(show(ScalarExprs.bindStatementTime(e, t))).isEqualTo("2024-05-07");
        assertThat(show(ScalarExprs.bindStatementTime(now, t))).isEqualTo("2024-05-06 07:08:09.123456+00");
        assertThat(show(ScalarExprs.bindStatementTime(fn("localtimestamp"), t))).isEqualTo("2024-05-06 07:08:09.123456");
        assertThat(Arrays.asList(fn("current_timestamp").type(), fn("localtime").type()))
                .containsExactly(SqlType.TIMESTAMPTZ, SqlType.TIME);
    }
}
