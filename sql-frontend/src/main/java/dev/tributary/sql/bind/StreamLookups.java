package dev.tributary.sql.bind;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * A STREAM joined with a table: each row of the stream meets the table as it is when the row
 * commits, once (a temporal join on the table's current state, as Flink's lookup join and
 * RisingWave's temporal join do): the table side is arranged, the stream side is not stored, and
 * a later change of the table changes no result already given.
 *
 * <p>The stream side is the rows of an {@link Plan.EventTime} under filters, maps, projections
 * and window expansions. The join becomes {@code ops(EventTime(Lookup(maps(rows), table)))}: the
 * lookup runs in system time, below the reclocking, where each row's time is its commit.
 * {@link Plan.Lookup} is a left half join, so every row of the stream still reaches the
 * {@link Plan.EventTime} and the watermark is the stream's own; for an inner join the rows that
 * found nothing are dropped above it. Only the maps right above the reclocking move below it (a
 * map only adds columns, and nothing dropped a row before it, so it fails on no row it would
 * not have); the other operations stay above, in their order, over the joined rows (a filter
 * moved below would keep its dropped rows from moving the watermark). A join this cannot take
 * apart (a stream under an aggregation, keys computed above a filter or window, two streams) is
 * left as it is, and the binder refuses it (0A000).
 */
final class StreamLookups {
    private StreamLookups() {}

    /** {@code plan} with every inner join of a stream with a table done as a {@link Plan.Lookup}. */
    static Plan apply(Plan plan) {
        if (plan instanceof Plan.DeltaJoin d && Streams.inEventTime(d)) return apply(d.fallback());
        Plan p = Plans.withInputs(plan, StreamLookups::apply);
        if (p instanceof Plan.AsOfLookup a && Streams.inEventTime(a.outer()) && !Streams.inEventTime(a.dimension())) {
            // x AS OF SYSTEM TIME e (FOR SYSTEM_TIME AS OF e) looked up by a stream: in system time,
            // below the reclocking, left (so every row moves the watermark), "found" kept
            List<Integer> below = new ArrayList<>(a.outerKey());
            below.add(a.time());
            int k = a.outerKey().size();
            Plan looked = lookup(a.outer(), below, (rows, at) -> {
                List<SqlType> types = new ArrayList<>(rows.types());
                types.addAll(a.dimension().types());
                types.add(SqlType.BOOLEAN);
                return new Plan.AsOfLookup(rows, a.dimension(), at.subList(0, k), a.dimensionKey(), at.get(k), a.since(), true, types);
            }, a.dimension().arity(), a.left(), true);
            return looked == null ? p : looked;
        }
        if (!(p instanceof Plan.Join j)) return p;
        boolean leftStream = Streams.inEventTime(j.left());
        if (leftStream == Streams.inEventTime(j.right())) return p;
        Plan joined = leftStream ? lookup(j.left(), j.right(), j.leftKey(), j.rightKey(), false)
                : lookup(j.right(), j.left(), j.rightKey(), j.leftKey(), false);
        if (joined == null) return p;
        if (leftStream) return joined;
        int ns = j.right().arity();
        return Binder.project(joined, Binder.swap(ns, joined.arity() - ns));
    }

    /**
     * {@code stream LEFT JOIN table ON conjuncts} as a lookup, or null when the ON clause is more
     * than equalities of the stream's columns with the table's and conditions on the table alone
     * (those become the table side's filter): the stream's rows that find nothing then leave
     * once, padded with NULLs, which is what LEFT JOIN gives.
     */
    static Plan leftJoin(Plan stream, Plan table, List<ScalarExpr> conjuncts) {
        if (!Streams.inEventTime(stream) || Streams.inEventTime(table)) return null;
        Plan inner = JoinPlanner.innerJoin(List.of(stream, table), conjuncts);
        // the inner join as planned: projections over Join(keyed stream, keyed table)
        List<List<Integer>> projections = new ArrayList<>();
        Plan q = inner;
        while (q instanceof Plan.Project pr) {
            projections.add(pr.columns());
            q = pr.input();
        }
        if (!(q instanceof Plan.Join j)) return null;
        Plan side = j.left();
        // the keys' NULL filter goes: a row with a NULL key finds nothing, so it is padded
        if (side instanceof Plan.Filter f && f.predicates().stream().allMatch(x -> x instanceof ScalarExpr.IsNull n && n.negated())) side = f.input();
        boolean computedKeys = side instanceof Plan.Map m && m.input().equals(stream);
        if (!computedKeys && !side.equals(stream)) return null; // a condition on the stream's columns alone: not a filter in a LEFT JOIN
        Plan out = lookup(side, j.right(), j.leftKey(), j.rightKey(), true);
        if (out == null) return null;
        for (int i = projections.size() - 1; i >= 0; i--) out = Binder.project(out, projections.get(i));
        return out;
    }

    /**
     * {@code stream} (operations over an {@link Plan.EventTime}) joined with {@code table} on the
     * keys, inner or {@code left}; its columns are the stream side's, then the table's. Null if
     * {@code stream} cannot be taken apart.
     */
    private static Plan lookup(Plan stream, Plan table, List<Integer> streamKey, List<Integer> tableKey, boolean left) {
        return lookup(stream, streamKey, (rows, key) -> new Plan.Lookup(rows, table, key, tableKey), table.arity(), left, false);
    }

    /**
     * The core of {@link #lookup(Plan, Plan, List, List, boolean)}: {@code make} builds the lookup
     * over the rows below the reclocking, given where the stream side's columns {@code below}
     * (keys, a lookup time) are among them; it gives the rows, {@code looked} looked-up columns and
     * a "found" flag. The result: the stream side's columns, the looked-up ones, and with
     * {@code keepFound} the flag.
     */
    private static Plan lookup(Plan stream, List<Integer> below, java.util.function.BiFunction<Plan, List<Integer>, Plan> make, int looked,
            boolean left, boolean keepFound) {
        List<Plan> ops = new ArrayList<>(); // outermost first
        Plan q = stream;
        while (!(q instanceof Plan.EventTime)) {
            Plan in = switch (q) {
                case Plan.Filter f -> f.input();
                case Plan.Map m -> m.input();
                case Plan.Project pr -> pr.input();
                case Plan.FlatMap m -> m.input();
                default -> null;
            };
            if (in == null) return null;
            ops.add(q);
            q = in;
        }
        Plan.EventTime e = (Plan.EventTime) q;
        Plan rows = e.input();
        int next = ops.size() - 1;
        while (next >= 0 && ops.get(next) instanceof Plan.Map m) {
            rows = new Plan.Map(rows, m.exprs());
            next--;
        }
        int nb = rows.arity();
        int nt = looked;
        // where each column of the stream side is among the joined columns, operation by operation
        List<Integer> at = new ArrayList<>(Binder.range(0, nb));
        int width = nb + nt + (keepFound ? 1 : 0);
        List<java.util.function.UnaryOperator<Plan>> above = new ArrayList<>();
        for (int i = next; i >= 0; i--) {
            int[] map = at.stream().mapToInt(Integer::intValue).toArray();
            switch (ops.get(i)) {
                case Plan.Filter f -> {
                    List<ScalarExpr> predicates = f.predicates().stream().map(x -> ScalarExprs.remap(x, map)).toList();
                    above.add(in -> new Plan.Filter(in, predicates));
                }
                case Plan.Map m -> {
                    List<ScalarExpr> exprs = m.exprs().stream().map(x -> ScalarExprs.remap(x, map)).toList();
                    above.add(in -> new Plan.Map(in, exprs));
                    for (int k = 0; k < m.exprs().size(); k++) at.add(width++);
                }
                case Plan.FlatMap m -> {
                    var function = m.function().withArgs(m.function().args().stream().map(x -> ScalarExprs.remap(x, map)).toList());
                    above.add(in -> new Plan.FlatMap(in, function));
                    for (int k = 0; k < m.function().columnTypes().size(); k++) at.add(width++);
                }
                case Plan.Project pr -> {
                    List<Integer> kept = new ArrayList<>();
                    for (int c : pr.columns()) kept.add(at.get(c));
                    at = kept;
                }
                default -> throw new IllegalStateException("not an operation over a stream's rows: " + ops.get(i));
            }
        }
        // the keys (and lookup time) must be columns below the reclocking
        List<Integer> key = new ArrayList<>();
        for (int k : below) {
            int c = at.get(k);
            if (c >= nb) return null;
            key.add(c);
        }
        Plan lookup = make.apply(rows, key);
        int found = nb + nt;
        Plan out = new Plan.EventTime(lookup, e.timeColumn(), e.watermark(), e.fromNow(), e.from(), e.appendOnly());
        if (!left) out = new Plan.Filter(out, List.of(new ScalarExpr.ColumnRef(found, SqlType.BOOLEAN)));
        if (!keepFound) out = Binder.project(out, Binder.range(0, found));
        for (var op : above) out = op.apply(out);
        List<Integer> order = new ArrayList<>(at);
        order.addAll(Binder.range(nb, nb + nt));
        if (keepFound) order.add(found);
        return Binder.project(out, order);
    }
}
