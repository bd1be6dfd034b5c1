package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.expr.TableFunction;
import dev.tributary.sql.expr.TimeWindows;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A TUMBLE, HOP or CUMULATE window aggregate that {@link WindowCloses} would delay to its windows' close,
 * as a {@link Plan.PaneAggregate} instead (a SESSION one as a {@link Plan.SessionAggregate}): the same rows, with each input row aggregated once
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

    /**
     * {@code r} on panes when column {@code end} of its input is the window end of a TUMBLE, HOP or
     * CUMULATE below it (through projections, maps, and filters that read none of the window's
     * columns, which go below the windows); else null.
     */
    static Plan rewrite(Plan.Reduce r, int end) {
        Over o = over(r.input());
        Plan below = o.base();
        List<ScalarExpr> exprs = o.columns();
        // filters go below the windows when they read none of the window's columns; a session's
        // rows are its partition's, so a filter stays above them
        if (!o.filters().isEmpty() && !(below instanceof Plan.FlatMap)) return null;
        if (below instanceof Plan.Sessions sessions) return sessions(r, end, exprs, sessions);
        if (!(below instanceof Plan.FlatMap m)) return null;
        TableFunction f = m.function();
        boolean hop = f.name().equals("hop");
        boolean cumulate = f.name().equals("cumulate");
        if (!hop && !cumulate && !f.name().equals("tumble")) return null;
        Plan x = m.input();
        if (!o.filters().isEmpty()) {
            BitSet read = new BitSet();
            for (ScalarExpr e : o.filters()) ScalarExprs.columns(e, read);
            if (read.nextSetBit(x.arity()) >= 0) return null;
            x = new Plan.Filter(x, o.filters());
        }
        // the windows' sizes, as the binder wrote them: tumble(time, size[, offset]), hop(time, slide,
        // size[, offset]), cumulate(time, step, size[, offset])
        int sizes = hop || cumulate ? 2 : 1;
        if (f.args().size() < 1 + sizes) return null;
        long[] v = new long[f.args().size() - 1];
        for (int i = 1; i < f.args().size(); i++) {
            if (!(f.args().get(i) instanceof ScalarExpr.Literal l) || l.value() == null) return null;
            v[i - 1] = TimeWindows.units(l.value(), f.name().toUpperCase(java.util.Locale.ROOT), "size");
        }
        long slide = v[0];
        long size = hop || cumulate ? v[1] : v[0];
        long offset = v.length > sizes ? v[sizes] : 0;
        if (slide <= 0 || size <= 0 || cumulate && size % slide != 0) return null;
        Grouping g = grouping(r, end, exprs, x, f.args().get(0));
        return g == null ? null : new Plan.PaneAggregate(g.input(), g.time(), slide, size, offset, cumulate, g.key(), g.aggregates());
    }

    /**
     * {@code r} over {@code SESSION} windows on {@link Plan.SessionAggregate}: when it groups by the
     * sessions' partition (and maybe more) and window, and the sessions are of a stream that only inserts, in its
     * own event time (so that a session is final once the watermark passes its end).
     */
    private static Plan sessions(Plan.Reduce r, int end, List<ScalarExpr> exprs, Plan.Sessions s) {
        Plan x = s.input();
        if (!insertsAtEventTime(x, s.time())) return null;
        Grouping g = grouping(r, end, exprs, x, new ScalarExpr.ColumnRef(s.time(), x.types().get(s.time())));
        if (g == null) return null;
        java.util.Set<Integer> keys = new java.util.HashSet<>();
        for (int k : g.key()) if (k >= 0) keys.add(k);
        if (!keys.containsAll(s.partition())) return null;
        return new Plan.SessionAggregate(g.input(), g.time(), s.gap(), s.partition(), g.key(), g.aggregates());
    }

    /** Whether column {@code c} of {@code p} is the event time of a stream over an append-only table, through projections, maps and filters. */
    private static boolean insertsAtEventTime(Plan p, int c) {
        return switch (p) {
            case Plan.Project pr -> insertsAtEventTime(pr.input(), pr.columns().get(c));
            case Plan.Map m when c < m.input().arity() -> insertsAtEventTime(m.input(), c);
            case Plan.Map m when m.exprs().get(c - m.input().arity()) instanceof ScalarExpr.ColumnRef ref -> insertsAtEventTime(m.input(), ref.index());
            case Plan.Filter f -> insertsAtEventTime(f.input(), c);
            case Plan.EventTime e -> e.appendOnly() && e.timeColumn() == c;
            default -> false;
        };
    }

    /** A plan as projections and maps over the plan they end at: that plan, and the columns as expressions over its columns. */
    private record Over(Plan base, List<ScalarExpr> columns, List<ScalarExpr> filters) {}

    private static Over over(Plan p) {
        return switch (p) {
            case Plan.Project pr -> {
                Over o = over(pr.input());
                List<ScalarExpr> columns = new ArrayList<>();
                for (int c : pr.columns()) columns.add(o.columns().get(c));
                yield new Over(o.base(), columns, o.filters());
            }
            case Plan.Map m -> {
                Over o = over(m.input());
                List<ScalarExpr> columns = new ArrayList<>(o.columns());
                for (ScalarExpr e : m.exprs()) columns.add(ScalarExprs.substitute(e, o.columns()));
                yield new Over(o.base(), columns, o.filters());
            }
            case Plan.Filter f -> {
                // a WHERE over the windows' rows: its predicates over the plan below, kept to be applied there
                Over o = over(f.input());
                List<ScalarExpr> filters = new ArrayList<>(o.filters());
                for (ScalarExpr e : f.predicates()) filters.add(ScalarExprs.substitute(e, o.columns()));
                yield new Over(o.base(), o.columns(), filters);
            }
            default -> {
                List<ScalarExpr> columns = new ArrayList<>();
                for (int c = 0; c < p.arity(); c++) columns.add(new ScalarExpr.ColumnRef(c, p.types().get(c)));
                yield new Over(p, columns, List.of());
            }
        };
    }

    /** A window aggregate's input (x with its window time, then the map's columns), group key and aggregates. */
    private record Grouping(Plan input, int time, List<Integer> key, List<AggregateCall> aggregates) {}

    /**
     * The reduce's grouping over {@code x}'s windows (their start and end appended) mapped by
     * {@code exprs}, in columns of {@code Map(x, time, exprs)} (the time read from x when it is
     * one of its columns); null when something other than
     * the group key reads the window, column {@code end} is not its end, or an aggregate's
     * windows do not merge.
     */
    private static Grouping grouping(Plan.Reduce r, int end, List<ScalarExpr> exprs, Plan x, ScalarExpr time) {
        int n = x.arity();
        // where each column of the reduce's input goes: a copy of one of x's to it, of the window's
        // start or end to those, a computed one to a column of its own after x's and the time
        int width = n + 2;
        int[] to = new int[exprs.size()];
        List<ScalarExpr> columns = new ArrayList<>();
        // a time that is a column of x is read there; a computed one is a column of its own
        boolean copied = time instanceof ScalarExpr.ColumnRef;
        columns.add(copied ? new ScalarExpr.Literal(null, time.type()) : time);
        for (int i = 0; i < exprs.size(); i++) {
            ScalarExpr e = exprs.get(i);
            if (e instanceof ScalarExpr.ColumnRef ref) {
                to[i] = ref.index() < n ? ref.index() : ref.index() == n ? Plan.PaneAggregate.WINDOW_START : Plan.PaneAggregate.WINDOW_END;
                columns.add(new ScalarExpr.Literal(null, e.type()));
                continue;
            }
            BitSet read = new BitSet();
            ScalarExprs.columns(e, read);
            int w = read.nextSetBit(n);
            if (w >= 0 && w < width) return null;
            to[i] = n + 1 + i;
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
        return new Grouping(new Plan.Map(x, columns), copied ? ((ScalarExpr.ColumnRef) time).index() : n, key, aggs);
    }
}
