package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.types.Interval;

/**
 * An interval join of two streams in event time ({@code a.ts BETWEEN b.ts - x AND b.ts + y}
 * beside the equality keys) keeps of each side only what the other side's watermark still
 * allows. A left row at time {@code a} matches right rows with times in {@code [a - hi, a - lo]}
 * (where {@code lo <= a.ts - b.ts <= hi} is what the conditions say); once the watermark has passed
 * {@code a - lo}, every such right row has come or is late, so the left row is retracted there
 * ({@link Plan.Expire}), and likewise a right row at {@code b + hi}. The join's arrangements then
 * hold a window of each stream, not all of it. The retractions free state only: the streams only
 * insert (append-only tables, through filters, maps and projections), so the join's result only
 * grows, and {@link Plan.Inserts} above keeps the retractions out of it. Any other join stays as
 * it is (correct, holding everything).
 */
final class IntervalJoins {
    private IntervalJoins() {}

    static Plan apply(Plan plan) {
        Plan p = Plans.withInputs(plan, IntervalJoins::apply);
        if (!(p instanceof Plan.Filter f) || !(f.input() instanceof Plan.Join j)) return p;
        int leftArity = j.left().arity();
        int lt = eventTime(j.left());
        int rt = eventTime(j.right());
        if (lt < 0 || rt < 0) return p;
        long lo = Long.MIN_VALUE;
        long hi = Long.MAX_VALUE;
        for (ScalarExpr e : f.predicates()) {
            long[] b = bound(e, leftArity, lt, leftArity + rt);
            if (b == null) continue;
            lo = Math.max(lo, b[0]);
            hi = Math.min(hi, b[1]);
        }
        if (lo == Long.MIN_VALUE && hi == Long.MAX_VALUE) return p;
        Plan left = lo == Long.MIN_VALUE ? j.left() : new Plan.Expire(j.left(), lt, 1 - lo);
        Plan right = hi == Long.MAX_VALUE ? j.right() : new Plan.Expire(j.right(), rt, hi + 1);
        return new Plan.Inserts(new Plan.Filter(new Plan.Join(left, right, j.leftKey(), j.rightKey()), f.predicates()));
    }

    /**
     * The column of {@code p} that is the event time of an append-only stream that {@code p}
     * only filters, maps, projects or windows; -1 if there is none.
     */
    static int eventTime(Plan p) {
        return switch (p) {
            case Plan.EventTime e -> e.appendOnly() ? e.timeColumn() : -1;
            case Plan.Filter f -> eventTime(f.input());
            case Plan.Map m -> eventTime(m.input());
            case Plan.FlatMap m -> eventTime(m.input());
            case Plan.Project pr -> {
                int in = eventTime(pr.input());
                yield in < 0 ? -1 : pr.columns().indexOf(in);
            }
            default -> -1;
        };
    }

    /**
     * What predicate {@code e} says of {@code left - right} (columns of the join's output), as
     * {@code [lo, hi]} in the time's units; null when it is not a comparison of the two times
     * give or take constants.
     */
    private static long[] bound(ScalarExpr e, int leftArity, int left, int right) {
        if (!(e instanceof ScalarExpr.Call c) || c.args().size() != 2) return null;
        String op = c.name();
        if (!(op.equals(">=") || op.equals(">") || op.equals("<=") || op.equals("<"))) return null;
        long[] x = side(c.args().get(0));
        long[] y = side(c.args().get(1));
        if (x == null || y == null) return null;
        // x.col + x.k  op  y.col + y.k
        long d;
        if (x[0] == left && y[0] == right) {
            d = y[1] - x[1]; // left - right op d
        } else if (x[0] == right && y[0] == left) {
            d = x[1] - y[1]; // right - left op -d, so left - right mirrored-op d
            op = dev.tributary.sql.expr.BinaryOp.mirrored(op);
        } else {
            return null;
        }
        return switch (op) {
            case ">=" -> new long[] {d, Long.MAX_VALUE};
            case ">" -> new long[] {d + 1, Long.MAX_VALUE};
            case "<=" -> new long[] {Long.MIN_VALUE, d};
            default -> new long[] {Long.MIN_VALUE, d - 1};
        };
    }

    /** {@code e} as (column, constant): a column plus or minus a constant; null otherwise. */
    private static long[] side(ScalarExpr e) {
        if (e instanceof ScalarExpr.ColumnRef r) return new long[] {r.index(), 0};
        if (!(e instanceof ScalarExpr.Call c) || c.args().size() != 2 || !(c.name().equals("+") || c.name().equals("-"))) return null;
        ScalarExpr a = c.args().get(0);
        ScalarExpr b = c.args().get(1);
        if (a instanceof ScalarExpr.ColumnRef r && b instanceof ScalarExpr.Literal l && units(l) != null) {
            return new long[] {r.index(), c.name().equals("+") ? units(l) : -units(l)};
        }
        if (c.name().equals("+") && b instanceof ScalarExpr.ColumnRef r && a instanceof ScalarExpr.Literal l && units(l) != null) {
            return new long[] {r.index(), units(l)};
        }
        return null;
    }

    /** A constant in a time's units (an interval without months in microseconds, an integer), or null. */
    private static Long units(ScalarExpr.Literal l) {
        return switch (l.value()) {
            case Long v -> v;
            case Interval iv when iv.months() == 0 -> TimeWindows.units(iv, "an interval join", "bound");
            case null, default -> null;
        };
    }
}
