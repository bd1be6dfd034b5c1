package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.expr.TableFunction;
import dev.tributary.sql.expr.TimeWindows;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A TUMBLE or HOP window aggregate that {@link WindowCloses} would delay to its windows' close,
 * as a {@link Plan.PaneAggregate} instead: the same rows, with each input row aggregated once
 * into its pane rather than expanded into every window that holds it, delayed, and arranged.
 *
 * <pre>
 *   Reduce(keys, window_start?, window_end, aggs)
 *     Map(exprs)                                   the keys and arguments as columns
 *       FlatMap(hop or tumble of time)
 *         x
 * = PaneAggregate(time = #n, keys, aggs)
 *     Map(time, exprs with the window's columns left NULL)
 *       x
 * </pre>
 *
 * Only when nothing but the group key reads the window's columns (a map may copy them), and
 * every aggregate's panes merge exactly: count, sum and avg of exact types, bool_and and bool_or
 * (their state is exact sums), min and max; none DISTINCT or with an ORDER BY.
 */
final class PaneAggregates {
    private PaneAggregates() {}

    /** {@code r} on panes when column {@code end} of its input is the window end of a TUMBLE or HOP right below it; else null. */
    static Plan rewrite(Plan.Reduce r, int end) {
        Plan below = r.input();
        List<ScalarExpr> exprs = List.of();
        if (below instanceof Plan.Map mapped) {
            exprs = mapped.exprs();
            below = mapped.input();
        }
        if (!(below instanceof Plan.FlatMap m)) return null;
        TableFunction f = m.function();
        boolean hop = f.name().equals("hop");
        if (!hop && !f.name().equals("tumble")) return null;
        Plan x = m.input();
        int n = x.arity();
        // the windows' sizes, as the binder wrote them: tumble(time, size[, offset]), hop(time, slide, size[, offset])
        int sizes = hop ? 2 : 1;
        if (f.args().size() < 1 + sizes) return null;
        long[] v = new long[f.args().size() - 1];
        for (int i = 1; i < f.args().size(); i++) {
            if (!(f.args().get(i) instanceof ScalarExpr.Literal l) || l.value() == null) return null;
            v[i - 1] = TimeWindows.units(l.value(), f.name().toUpperCase(java.util.Locale.ROOT), "size");
        }
        long slide = v[0];
        long size = hop ? v[1] : v[0];
        long offset = v.length > sizes ? v[sizes] : 0;
        if (slide <= 0 || size <= 0) return null;
        // where each column of the reduce's input goes: x's stay, the time is #n, the map's follow it
        int width = n + 2;
        int[] to = new int[width + exprs.size()];
        for (int c = 0; c < n; c++) to[c] = c;
        to[n] = Plan.PaneAggregate.WINDOW_START;
        to[n + 1] = Plan.PaneAggregate.WINDOW_END;
        List<ScalarExpr> columns = new ArrayList<>();
        ScalarExpr time = f.args().get(0);
        columns.add(time);
        for (int i = 0; i < exprs.size(); i++) {
            ScalarExpr e = exprs.get(i);
            if (e instanceof ScalarExpr.ColumnRef ref && ref.index() >= n) {
                to[width + i] = to[ref.index()];
                columns.add(new ScalarExpr.Literal(null, e.type()));
                continue;
            }
            BitSet read = new BitSet();
            ScalarExprs.columns(e, read);
            int w = read.nextSetBit(n);
            if (w >= 0 && w < width) return null;
            to[width + i] = n + 1 + i;
            columns.add(e);
        }
        if (to[end] != Plan.PaneAggregate.WINDOW_END) return null;
        List<Integer> key = new ArrayList<>();
        for (int k : r.groupKey()) key.add(to[k]);
        List<AggregateCall> aggs = new ArrayList<>();
        for (AggregateCall a : r.aggregates()) {
            String name = a.function().name();
            boolean ordered = (name.equals("min") || name.equals("max")) && a.args().size() == 1;
            if (a.distinct() || !a.orderBy().isEmpty() || a.function().accumulation() == null && !ordered) return null;
            List<Integer> args = new ArrayList<>();
            for (int c : a.args()) {
                if (to[c] < 0) return null;
                args.add(to[c]);
            }
            if (a.filter() >= 0 && to[a.filter()] < 0) return null;
            aggs.add(new AggregateCall(a.function(), a.name(), args, false, a.filter() >= 0 ? to[a.filter()] : -1, List.of()));
        }
        return new Plan.PaneAggregate(new Plan.Map(x, columns), n, slide, size, offset, key, aggs);
    }
}
