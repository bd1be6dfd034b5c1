package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites a bound plan into a cheaper one with the same meaning: constant subexpressions are
 * folded (an expression that fails is left to fail at run time, for the rows that reach it), a
 * filter that is always true disappears, one that is never true makes its input empty, and a
 * cross join with one row of no columns is its other side, and a row_number() kept to its first
 * k is computed over a top-k ({@link RowNumberLimits}).
 * Then {@link Pruner} pushes projections down, so joins and reductions arrange only the columns
 * that are read above them, and {@link CommonSubplans} computes a subplan read twice once. (Predicate pushdown and join key extraction happen as the binder
 * plans joins.)
 */
public final class Optimizer {
    private Optimizer() {}

    public static Plan optimize(Plan plan) {
        return prune(fold(plan));
    }

    /** Constant folding, filter simplification and top-N, the first half of {@link #optimize}. */
    public static Plan fold(Plan plan) {
        return IntervalJoins.apply(WindowCloses.apply(RowNumberLimits.apply(simplify(Plans.mapExprs(plan, ScalarExprs::fold)))));
    }

    /** Projection pushdown, then a subplan that occurs twice computed once ({@link CommonSubplans}): the second half of {@link #optimize}. */
    public static Plan prune(Plan plan) {
        return CommonSubplans.share(Pruner.prune(plan));
    }

    private static boolean noColumnsOneRow(Plan p) {
        return p instanceof Plan.Constant c && c.types().isEmpty() && c.rows().size() == 1;
    }

    private static Plan simplify(Plan plan) {
        return switch (plan) {
            case Plan.Filter f -> {
                Plan input = simplify(f.input());
                List<ScalarExpr> kept = new ArrayList<>();
                for (ScalarExpr p : f.predicates()) {
                    if (p instanceof ScalarExpr.Literal l) {
                        if (Boolean.TRUE.equals(l.value())) continue;
                        yield Plan.Constant.empty(f.types()); // false or NULL: no row passes
                    }
                    kept.add(p);
                }
                yield kept.isEmpty() ? input : new Plan.Filter(input, kept);
            }
            case Plan.Join j when j.leftKey().isEmpty() && (noColumnsOneRow(j.left()) || noColumnsOneRow(j.right())) -> {
                // crossed with one row of no columns (what an uncorrelated subquery is planned
                // against): the other side as it is, not arranged under the empty key
                yield simplify(noColumnsOneRow(j.left()) ? j.right() : j.left());
            }
            default -> Plans.withInputs(plan, Optimizer::simplify);
        };
    }
}
