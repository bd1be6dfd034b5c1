package dev.tributary.sql.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Test helpers: typed literals as PostgreSQL reads them, evaluation, psql output, error checks. */
final class Sql {
    private Sql() {}

    /** A literal of type t read from its PostgreSQL text, as {@code 'text'::t}. */
    static ScalarExpr lit(String text, SqlType t) {
        return new ScalarExpr.Literal(text == null ? null : Values.fromText(text, t), t);
    }

    static ScalarExpr i4(long v) {
        return new ScalarExpr.Literal(v, SqlType.INTEGER);
    }

    static ScalarExpr i8(long v) {
        return new ScalarExpr.Literal(v, SqlType.BIGINT);
    }

    static ScalarExpr num(String v) {
        return lit(v, SqlType.NUMERIC);
    }

    static ScalarExpr f8(double v) {
        return new ScalarExpr.Literal(v, SqlType.DOUBLE);
    }

    static ScalarExpr text(String v) {
        return new ScalarExpr.Literal(v, SqlType.TEXT);
    }

    static ScalarExpr unknown(String v) {
        return new ScalarExpr.Literal(v, SqlType.UNKNOWN);
    }

    static ScalarExpr bool(Boolean v) {
        return new ScalarExpr.Literal(v, SqlType.BOOLEAN);
    }

    static ScalarExpr nul(SqlType t) {
        return new ScalarExpr.Literal(null, t);
    }

    static ScalarExpr col(int i, SqlType t) {
        return new ScalarExpr.ColumnRef(i, t);
    }

    static Object eval(ScalarExpr e) {
        return e.eval(new Object[0]);
    }

    /** The value as psql prints it; "NULL" for NULL. */
    static String show(ScalarExpr e) {
        Object v = eval(e);
        return v == null ? "NULL" : Values.toText(v, e.type());
    }

    static ScalarExpr op(BinaryOp op, ScalarExpr l, ScalarExpr r) {
        return Operators.binary(op, l, r, 1);
    }

    static ScalarExpr fn(String name, ScalarExpr... args) {
        return Functions.call(name, List.of(args), 1);
    }

    static SqlException error(ThrowingCallable c) {
        SqlException e = catchThrowableOfType(SqlException.class, c);
        assertThat(e).as("expected a SqlException").isNotNull();
        return e;
    }

    static void assertError(ThrowingCallable c, String sqlState, String message) {
        SqlException e = error(c);
        assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(sqlState);
        if (message != null) assertThat(e.getMessage()).isEqualTo(message);
    }
}
