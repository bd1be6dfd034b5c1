package dev.tributary.sql.bind;

import dev.tributary.sql.expr.ScalarExpr;
import java.util.List;

/**
 * {@code ON CONFLICT ... DO UPDATE SET ... [WHERE ...]} bound: over a row that is the existing
 * row's columns followed by the proposed row's ({@code excluded}), {@code row} computes each
 * column of the updated row, and {@code where} (null when absent) says whether to update at all.
 */
public record ConflictUpdate(List<ScalarExpr> row, ScalarExpr where) {
    public ConflictUpdate {
        row = List.copyOf(row);
    }

    /** This with {@code f} applied to each expression (parameters' values bound, the statement time fixed). */
    public ConflictUpdate map(java.util.function.UnaryOperator<ScalarExpr> f) {
        List<ScalarExpr> mapped = new java.util.ArrayList<>(row.size());
        for (ScalarExpr e : row) mapped.add(f.apply(e));
        return new ConflictUpdate(mapped, where == null ? null : f.apply(where));
    }

    /** Every expression, the WHERE's last when there is one. */
    public List<ScalarExpr> exprs() {
        List<ScalarExpr> all = new java.util.ArrayList<>(row);
        if (where != null) all.add(where);
        return all;
    }

    /** The updated row for {@code existingThenExcluded}, or null when WHERE is not true of it. */
    public Object[] apply(Object[] existingThenExcluded) {
        if (where != null && !Boolean.TRUE.equals(where.eval(existingThenExcluded))) return null;
        Object[] out = new Object[row.size()];
        for (int i = 0; i < out.length; i++) out[i] = row.get(i).eval(existingThenExcluded);
        return out;
    }
}
