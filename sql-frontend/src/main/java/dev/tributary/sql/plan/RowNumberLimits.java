package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;

/**
 * The top-N pattern: a {@code row_number() OVER (PARTITION BY p ORDER BY o)} that a filter keeps
 * at most {@code k} of ({@code rn <= k}, {@code rn < k + 1}, {@code rn = k}) is computed over each
 * partition's first {@code k} rows only: a {@link Plan.TopK} goes beneath the window. The rows
 * the filter keeps are those first {@code k}, numbered as before (the top-k breaks ties by the
 * whole row, as the window does), so the answer is the same; but a change to a partition then
 * renumbers at most {@code k} rows instead of the whole partition, and a partition of a million
 * rows costs its top-k's walk, not a sort of a million. Nexmark's q9, q18 and q19 are this shape.
 */
final class RowNumberLimits {
    private RowNumberLimits() {}

    static Plan apply(Plan plan) {
        Plan p = Plans.withInputs(plan, RowNumberLimits::apply);
        if (!(p instanceof Plan.Filter f)) return p;
        for (ScalarExpr pred : f.predicates()) {
            long[] bound = bound(pred);
            if (bound == null || bound[1] < 1) continue;
            Plan limited = limit(f.input(), (int) bound[0], bound[1]);
            if (limited != null) return new Plan.Filter(limited, f.predicates());
        }
        return p;
    }

    /** For {@code column <= k} (or {@code <}, {@code =}, either way round) with a constant {@code k}: {column, the rows it keeps per partition}; else null. */
    private static long[] bound(ScalarExpr e) {
        ScalarExprs.ColumnEquality eq = ScalarExprs.columnEquality(e);
        if (eq != null) {
            Long k = constant(eq.other());
            return k == null ? null : new long[] {eq.column().index(), k};
        }
        if (!(e instanceof ScalarExpr.Call c) || c.args().size() != 2) return null;
        boolean columnLeft = c.args().get(0) instanceof ScalarExpr.ColumnRef;
        if (!columnLeft && !(c.args().get(1) instanceof ScalarExpr.ColumnRef)) return null;
        ScalarExpr.ColumnRef col = (ScalarExpr.ColumnRef) c.args().get(columnLeft ? 0 : 1);
        Long k = constant(c.args().get(columnLeft ? 1 : 0));
        if (k == null) return null;
        String op = columnLeft ? c.name() : dev.tributary.sql.expr.BinaryOp.mirrored(c.name());
        return switch (op) {
            case "<=" -> new long[] {col.index(), k};
            case "<" -> new long[] {col.index(), k - 1};
            default -> null;
        };
    }

    private static Long constant(ScalarExpr e) {
        return e instanceof ScalarExpr.Literal l && l.value() instanceof Long v ? v : null;
    }

    /**
     * {@code p} with a top-{@code limit} beneath the row_number window whose number is its column
     * {@code column} (followed through projections, maps that copy it, and filters); null if the
     * column is not such a number, or the top-k is there already.
     */
    private static Plan limit(Plan p, int column, long limit) {
        return switch (p) {
            case Plan.Project pr -> {
                Plan in = limit(pr.input(), pr.columns().get(column), limit);
                yield in == null ? null : new Plan.Project(in, pr.columns());
            }
            case Plan.Map m -> {
                int width = m.input().types().size();
                int source = column < width ? column : m.exprs().get(column - width) instanceof ScalarExpr.ColumnRef r ? r.index() : -1;
                Plan in = source < 0 ? null : limit(m.input(), source, limit);
                yield in == null ? null : new Plan.Map(in, m.exprs());
            }
            case Plan.Filter f -> {
                Plan in = limit(f.input(), column, limit);
                yield in == null ? null : new Plan.Filter(in, f.predicates());
            }
            case Plan.Window w when w.function().kind() == Plan.WindowKind.ROW_NUMBER && column == w.input().types().size() -> {
                if (w.input() instanceof Plan.TopK t && t.groupKey().equals(w.partition()) && t.order().equals(w.order()) && t.offset() == 0 && t.limit() <= limit) {
                    yield null;
                }
                yield new Plan.Window(new Plan.TopK(w.input(), w.partition(), w.order(), limit, 0), w.partition(), w.order(), w.function());
            }
            default -> null;
        };
    }
}
