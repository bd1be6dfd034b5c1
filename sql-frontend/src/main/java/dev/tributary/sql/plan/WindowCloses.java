package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code EMIT ON WINDOW CLOSE} done where it is cheap. The binder puts a {@link Plan.Delay} on the
 * query's {@code window_end}; here it moves down towards the rows, through projections, maps
 * (of that column), filters, aggregations, top-k and distinct that group by it, unions, and joins
 * whose key equates it on both sides, as far as it goes, and becomes an expiring delay there: rows
 * are delayed to their window's close, so each window is computed once, not at every event time,
 * and retracted at its end, so that what every operator above keeps of a closed window (an
 * aggregation's rows and result, a join's both sides) adds up to nothing and compaction behind the
 * watermark frees it. A {@link Plan.AtClose} at the top keeps each window's rows at its close and
 * not the retractions that free it. (An expiring delay with nothing stateful above it gives, under
 * the AtClose, what the plain delay gave.) A TUMBLE or HOP window aggregate goes on panes
 * instead ({@link PaneAggregates}), which close and free windows themselves.
 */
final class WindowCloses {
    private WindowCloses() {}

    static Plan apply(Plan plan) {
        if (plan instanceof Plan.Delay d && !d.expire()) return new Plan.AtClose(push(d.input(), d.column()), d.column());
        return Plans.withInputs(plan, WindowCloses::apply);
    }

    /** {@code p} with its rows delayed to column {@code c}'s window close and expired there, as far down as that can go. */
    private static Plan push(Plan p, int c) {
        return switch (p) {
            case Plan.Project pr -> new Plan.Project(push(pr.input(), pr.columns().get(c)), pr.columns());
            case Plan.Map m when c < m.input().arity() -> new Plan.Map(push(m.input(), c), m.exprs());
            // a computed column is followed only when it copies one of the input's
            case Plan.Map m when m.exprs().get(c - m.input().arity()) instanceof ScalarExpr.ColumnRef ref ->
                new Plan.Map(push(m.input(), ref.index()), m.exprs());
            case Plan.Filter f -> new Plan.Filter(push(f.input(), c), f.predicates());
            case Plan.Reduce r when c < r.groupKey().size() -> {
                Plan panes = PaneAggregates.rewrite(r, r.groupKey().get(c));
                yield panes != null ? panes : new Plan.Reduce(push(r.input(), r.groupKey().get(c)), r.groupKey(), r.aggregates(), r.global());
            }
            case Plan.TopK t when t.groupKey().contains(c) -> new Plan.TopK(push(t.input(), c), t.groupKey(), t.order(), t.limit(), t.offset());
            case Plan.Distinct d -> new Plan.Distinct(push(d.input(), c));
            case Plan.Union u -> {
                List<Plan> in = new ArrayList<>();
                for (Plan x : u.inputs()) in.add(push(x, c));
                yield new Plan.Union(in);
            }
            case Plan.Join j -> {
                int leftArity = j.left().arity();
                int k = c < leftArity ? j.leftKey().indexOf(c) : j.rightKey().indexOf(c - leftArity);
                if (k < 0) yield new Plan.Delay(p, c, true);
                yield new Plan.Join(push(j.left(), j.leftKey().get(k)), push(j.right(), j.rightKey().get(k)), j.leftKey(), j.rightKey());
            }
            default -> new Plan.Delay(p, c, true);
        };
    }
}
