package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.bind.Binder.Bound;
import dev.tributary.sql.bind.Binder.Scope;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * {@code repeat_row(n)} in FROM: each row of the items before it, {@code n} times (its
 * multiplicity multiplied by {@code n}, which may be negative or zero; NULL gives no row). It adds
 * no columns. With {@code CHANGES} and a temporal filter it is how {@code AS OF SYSTEM TIME}
 * desugars: {@code SELECT cols FROM (SELECT cols, sum(change_diff) AS c ... GROUP BY cols), repeat_row(c)}.
 */
final class RepeatRows {
    private RepeatRows() {}

    static boolean is(TableRef.FunctionTable f) {
        List<String> name = f.call().name();
        return name.get(name.size() - 1).equals("repeat_row") && (name.size() == 1 || name.get(0).equals("pg_catalog") || name.get(0).equals("mz_catalog"));
    }

    static Bound bind(Binder binder, Bound left, TableRef.FunctionTable f) {
        if (f.call().args().size() != 1 || f.call().distinct() || f.call().star()) {
            throw new SqlException("42883", "function repeat_row takes one bigint argument", f.pos());
        }
        if (f.alias() != null && !f.alias().columns().isEmpty()) {
            throw new SqlException("42601", "repeat_row returns no columns to name", f.alias().pos());
        }
        int n = left.fields().size();
        ScalarExpr arg = binder.expr(f.call().args().get(0), new Scope(left.fields(), null));
        int pos = f.call().args().get(0).pos();
        // sum() of a bigint is a numeric: any integer or numeric count is taken, as a bigint
        ScalarExpr count = arg.type().isInteger() || arg.type().kind() == SqlType.Kind.NUMERIC
                ? Sx.cast(arg, SqlType.BIGINT, pos) : Sx.coerce(arg, SqlType.BIGINT, pos, "argument of repeat_row");
        Plan repeated = new Plan.RepeatRow(new Plan.Map(left.plan(), List.of(count)), n);
        return new Bound(Binder.project(repeated, Binder.range(0, n)), left.fields());
    }
}
