package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Projection pushdown: every operator is given only the columns something above it reads, so
 * joins and reductions arrange narrower rows. A node asked for some of its columns returns a plan
 * with exactly those (in their old order) and where each old column went.
 *
 * <p>Distinct, threshold and top-k keep every column of their input (what they compare is the
 * whole row), and the value of a {@code Let} is kept whole since its uses may need different
 * columns (the value of a {@code LetRec}'s binding too).
 */
final class Pruner {
    private Pruner() {}

    /** {@code plan} and, for each of its old columns, the new column or -1. */
    private record Pruned(Plan plan, int[] map) {}

    static Plan prune(Plan plan) {
        BitSet all = new BitSet();
        all.set(0, plan.arity());
        return prune(plan, all).plan();
    }

    private static int[] identityMap(int n) {
        int[] m = new int[n];
        for (int i = 0; i < n; i++) m[i] = i;
        return m;
    }

    /** {@code plan} narrowed to {@code needed} by a projection on top (or as it is if it has just those). */
    private static Pruned project(Plan plan, BitSet needed) {
        int n = plan.arity();
        if (needed.cardinality() == n) return new Pruned(plan, identityMap(n));
        List<Integer> cols = new ArrayList<>();
        int[] map = new int[n];
        java.util.Arrays.fill(map, -1);
        for (int c = needed.nextSetBit(0); c >= 0; c = needed.nextSetBit(c + 1)) {
            map[c] = cols.size();
            cols.add(c);
        }
        return new Pruned(new Plan.Project(plan, cols), map);
    }

    /** {@code p} (whose columns are old columns mapped by {@code inner}) reduced to {@code needed} of the old columns. */
    private static Pruned finish(Plan p, int[] inner, BitSet needed, int oldArity) {
        List<Integer> cols = new ArrayList<>();
        int[] map = new int[oldArity];
        java.util.Arrays.fill(map, -1);
        for (int c = needed.nextSetBit(0); c >= 0; c = needed.nextSetBit(c + 1)) {
            map[c] = cols.size();
            cols.add(inner[c]);
        }
        boolean identity = cols.size() == p.arity();
        for (int i = 0; i < cols.size() && identity; i++) identity = cols.get(i) == i;
        return new Pruned(identity ? p : new Plan.Project(p, cols), map);
    }

    private static void columnsOf(ScalarExpr e, BitSet into) {
        ScalarExprs.columns(e, into);
    }

    /** A window aggregate's input pruned to what it reads, and its columns renumbered. */
    private record Windowed(Plan input, int time, List<Integer> groupKey, List<AggregateCall> aggregates, int[] map) {}

    private static Windowed windowed(Plan input, int time, List<Integer> groupKey, List<AggregateCall> aggregates) {
        BitSet required = new BitSet();
        required.set(time);
        for (int k : groupKey) if (k >= 0) required.set(k);
        for (AggregateCall a : aggregates) {
            for (int c : a.args()) required.set(c);
            if (a.filter() >= 0) required.set(a.filter());
        }
        Pruned in = prune(input, required);
        int[] m = in.map();
        List<Integer> key = new ArrayList<>();
        for (int k : groupKey) key.add(k >= 0 ? m[k] : k);
        List<AggregateCall> aggs = new ArrayList<>();
        for (AggregateCall a : aggregates) {
            aggs.add(new AggregateCall(a.function(), a.name(), remap(a.args(), m), false, a.filter() >= 0 ? m[a.filter()] : -1, List.of()));
        }
        return new Windowed(in.plan(), m[time], key, aggs, m);
    }

    /** Two sides joined on keys, each pruned to what is needed of it above and its keys; {@code inner} maps the first {@code width} columns. */
    private record Sides(Pruned left, Pruned right, List<Integer> leftKey, List<Integer> rightKey, int[] inner) {}

    private static Sides sides(Plan left, Plan right, List<Integer> leftKey, List<Integer> rightKey, BitSet needed, int width) {
        int nl = left.arity();
        BitSet l = new BitSet();
        BitSet r = new BitSet();
        for (int c = needed.nextSetBit(0); c >= 0 && c < width; c = needed.nextSetBit(c + 1)) {
            if (c < nl) l.set(c);
            else r.set(c - nl);
        }
        for (int k : leftKey) l.set(k);
        for (int k : rightKey) r.set(k);
        // an index read must keep its columns: its arrangement holds whole rows
        if (left instanceof Plan.IndexedGet) l = all(nl);
        if (right instanceof Plan.IndexedGet) r = all(right.arity());
        Pruned pl = prune(left, l);
        Pruned pr = prune(right, r);
        int[] inner = new int[width];
        java.util.Arrays.fill(inner, -1);
        int newL = pl.plan().arity();
        for (int c = 0; c < nl; c++) inner[c] = pl.map()[c];
        for (int c = nl; c < width; c++) inner[c] = pr.map()[c - nl] < 0 ? -1 : newL + pr.map()[c - nl];
        return new Sides(pl, pr, remap(leftKey, pl.map()), remap(rightKey, pr.map()), inner);
    }

    private static ScalarExpr remap(ScalarExpr e, int[] map) {
        return ScalarExprs.remap(e, map);
    }

    private static List<Integer> remap(List<Integer> cols, int[] map) {
        List<Integer> out = new ArrayList<>(cols.size());
        for (int c : cols) out.add(map[c]);
        return out;
    }

    /** A row-wise node over {@code input} that reads its column {@code column}: what it needs and that column, pruned below it. */
    private static Pruned withColumn(Plan input, int column, BitSet needed, int arity, java.util.function.BiFunction<Plan, Integer, Plan> make) {
        BitSet required = (BitSet) needed.clone();
        required.set(column);
        Pruned in = prune(input, required);
        return finish(make.apply(in.plan(), in.map()[column]), in.map(), needed, arity);
    }

    private static BitSet all(int n) {
        BitSet b = new BitSet();
        b.set(0, n);
        return b;
    }

    private static Pruned prune(Plan plan, BitSet needed) {
        int arity = plan.arity();
        return switch (plan) {
            case Plan.Get g -> project(g, needed);
            case Plan.IndexedGet g -> project(g, needed);
            case Plan.Constant c -> project(c, needed);
            case Plan.LetRef r -> project(r, needed);
            case Plan.Project p -> {
                BitSet required = new BitSet();
                for (int c = needed.nextSetBit(0); c >= 0; c = needed.nextSetBit(c + 1)) required.set(p.columns().get(c));
                Pruned in = prune(p.input(), required);
                List<Integer> cols = new ArrayList<>();
                int[] map = new int[arity];
                java.util.Arrays.fill(map, -1);
                for (int c = needed.nextSetBit(0); c >= 0; c = needed.nextSetBit(c + 1)) {
                    map[c] = cols.size();
                    cols.add(in.map()[p.columns().get(c)]);
                }
                boolean identity = cols.size() == in.plan().arity();
                for (int i = 0; i < cols.size() && identity; i++) identity = cols.get(i) == i;
                yield new Pruned(identity ? in.plan() : new Plan.Project(in.plan(), cols), map);
            }
            case Plan.Map m -> {
                int n = m.input().arity();
                BitSet required = new BitSet();
                List<Integer> kept = new ArrayList<>();
                for (int c = needed.nextSetBit(0); c >= 0; c = needed.nextSetBit(c + 1)) {
                    if (c < n) required.set(c);
                    else kept.add(c - n);
                }
                // an expression may read earlier expressions' columns? no: a Map's expressions read only its input
                for (int e : kept) columnsOf(m.exprs().get(e), required);
                Pruned in = prune(m.input(), required);
                List<ScalarExpr> exprs = new ArrayList<>();
                for (int e : kept) exprs.add(remap(m.exprs().get(e), in.map()));
                Plan mapped = exprs.isEmpty() ? in.plan() : new Plan.Map(in.plan(), exprs);
                int[] inner = new int[arity];
                java.util.Arrays.fill(inner, -1);
                for (int c = 0; c < n; c++) inner[c] = in.map()[c];
                for (int k = 0; k < kept.size(); k++) inner[n + kept.get(k)] = in.plan().arity() + k;
                yield finish(mapped, inner, needed, arity);
            }
            case Plan.Window w -> {
                // the function reads every input column (a row's number depends on the whole row), so nothing below is pruned
                int n = w.input().arity();
                Pruned in = prune(w.input(), all(n));
                int[] inner = new int[arity];
                for (int c = 0; c < n; c++) inner[c] = in.map()[c];
                inner[n] = in.plan().arity();
                Plan window = new Plan.Window(in.plan(), remap(w.partition(), in.map()),
                        w.order().stream().map(k -> new Plan.SortKey(in.map()[k.column()], k.descending(), k.nullsFirst())).toList(), w.function().remap(in.map()));
                yield finish(window, inner, needed, arity);
            }
            case Plan.Sessions s -> {
                // a session depends on its partition's times only: other columns not needed above go
                // (rows then equal add up, and a row's session is its count's)
                int n = s.input().arity();
                BitSet required = new BitSet();
                for (int c = needed.nextSetBit(0); c >= 0 && c < n; c = needed.nextSetBit(c + 1)) required.set(c);
                for (int c : s.partition()) required.set(c);
                required.set(s.time());
                Pruned in = prune(s.input(), required);
                int[] inner = new int[arity];
                for (int c = 0; c < n; c++) inner[c] = in.map()[c];
                inner[n] = in.plan().arity();
                inner[n + 1] = in.plan().arity() + 1;
                yield finish(new Plan.Sessions(in.plan(), remap(s.partition(), in.map()), in.map()[s.time()], s.gap()), inner, needed, arity);
            }
            case Plan.FlatMap m -> {
                // the function's columns are kept; its arguments and the needed input columns are read
                int n = m.input().arity();
                BitSet required = new BitSet();
                for (int c = needed.nextSetBit(0); c >= 0 && c < n; c = needed.nextSetBit(c + 1)) required.set(c);
                for (ScalarExpr a : m.function().args()) columnsOf(a, required);
                Pruned in = prune(m.input(), required);
                List<ScalarExpr> args = new ArrayList<>();
                for (ScalarExpr a : m.function().args()) args.add(remap(a, in.map()));
                Plan mapped = new Plan.FlatMap(in.plan(), m.function().withArgs(args));
                int[] inner = new int[arity];
                for (int c = 0; c < n; c++) inner[c] = in.map()[c];
                for (int k = 0; k < arity - n; k++) inner[n + k] = in.plan().arity() + k;
                yield finish(mapped, inner, needed, arity);
            }
            case Plan.Filter f -> {
                BitSet required = (BitSet) needed.clone();
                for (ScalarExpr p : f.predicates()) columnsOf(p, required);
                Pruned in = prune(f.input(), required);
                List<ScalarExpr> preds = new ArrayList<>();
                for (ScalarExpr p : f.predicates()) preds.add(remap(p, in.map()));
                yield finish(new Plan.Filter(in.plan(), preds), in.map(), needed, arity);
            }
            case Plan.Join j -> {
                Sides sides = sides(j.left(), j.right(), j.leftKey(), j.rightKey(), needed, arity);
                yield finish(new Plan.Join(sides.left().plan(), sides.right().plan(), sides.leftKey(), sides.rightKey()), sides.inner(), needed, arity);
            }
            case Plan.Reduce r -> {
                BitSet required = new BitSet();
                for (int k : r.groupKey()) required.set(k);
                for (AggregateCall a : r.aggregates()) {
                    for (int c : a.args()) required.set(c);
                    if (a.filter() >= 0) required.set(a.filter());
                    for (Plan.SortKey s : a.orderBy()) required.set(s.column());
                }
                Pruned in = prune(r.input(), required);
                int[] m = in.map();
                List<AggregateCall> aggs = new ArrayList<>();
                for (AggregateCall a : r.aggregates()) {
                    List<Plan.SortKey> order = new ArrayList<>();
                    for (Plan.SortKey s : a.orderBy()) order.add(new Plan.SortKey(m[s.column()], s.descending(), s.nullsFirst()));
                    aggs.add(new AggregateCall(a.function(), a.name(), remap(a.args(), m), a.distinct(), a.filter() >= 0 ? m[a.filter()] : -1, order));
                }
                yield finish(new Plan.Reduce(in.plan(), remap(r.groupKey(), m), aggs, r.global()), identityMap(arity), needed, arity);
            }
            case Plan.PaneAggregate r -> {
                Windowed w = windowed(r.input(), r.time(), r.groupKey(), r.aggregates());
                yield finish(new Plan.PaneAggregate(w.input(), w.time(), r.slide(), r.size(), r.offset(), r.cumulative(), w.groupKey(), w.aggregates()), identityMap(arity),
                        needed, arity);
            }
            case Plan.SessionAggregate r -> {
                Windowed w = windowed(r.input(), r.time(), r.groupKey(), r.aggregates());
                yield finish(new Plan.SessionAggregate(w.input(), w.time(), r.gap(), remap(r.partition(), w.map()), w.groupKey(), w.aggregates()),
                        identityMap(arity), needed, arity);
            }
            case Plan.Negate n -> {
                Pruned in = prune(n.input(), needed);
                yield new Pruned(new Plan.Negate(in.plan()), in.map());
            }
            case Plan.Union u -> {
                List<Plan> in = new ArrayList<>();
                int[] map = null;
                for (Plan p : u.inputs()) {
                    Pruned x = prune(p, needed);
                    in.add(x.plan());
                    map = x.map();
                }
                yield new Pruned(new Plan.Union(in), map);
            }
            case Plan.Distinct d -> finish(new Plan.Distinct(prune(d.input(), all(arity)).plan()), identityMap(arity), needed, arity);
            // every input column decides which rows are distinct changes, so all are kept
            case Plan.AsofJoin a -> finish(new Plan.AsofJoin(prune(a.left(), all(a.left().arity())).plan(), prune(a.right(), all(a.right().arity())).plan(),
                    a.leftKey(), a.rightKey(), a.leftTime(), a.rightTime(), a.op(), a.leftOuter()), identityMap(arity), needed, arity);
            case Plan.CommitTime x -> {
                int n = x.input().arity();
                BitSet below = (BitSet) needed.clone();
                below.clear(n);
                Pruned in = prune(x.input(), below);
                int[] inner = java.util.Arrays.copyOf(in.map(), arity);
                if (!needed.get(n)) {
                    // nobody reads the commit time: no node
                    inner[n] = -1;
                    yield new Pruned(in.plan(), inner);
                }
                inner[n] = in.plan().arity();
                yield new Pruned(new Plan.CommitTime(in.plan()), inner);
            }
            case Plan.TimeColumn x -> {
                int n = x.input().arity();
                BitSet below = (BitSet) needed.clone();
                below.clear(n);
                Pruned in = prune(x.input(), below);
                int[] inner = java.util.Arrays.copyOf(in.map(), arity);
                inner[n] = in.plan().arity();
                yield new Pruned(new Plan.TimeColumn(in.plan()), inner);
            }
            case Plan.SystemTime x -> {
                Pruned in = prune(x.input(), needed);
                yield new Pruned(new Plan.SystemTime(in.plan()), in.map());
            }
            case Plan.Lookup l -> {
                // the stream's and the table's columns as a join's, then the "found" flag, always kept
                Sides sides = sides(l.stream(), l.table(), l.streamKey(), l.tableKey(), needed, arity - 1);
                int[] inner = java.util.Arrays.copyOf(sides.inner(), arity);
                inner[arity - 1] = sides.left().plan().arity() + sides.right().plan().arity();
                yield finish(new Plan.Lookup(sides.left().plan(), sides.right().plan(), sides.leftKey(), sides.rightKey()), inner, needed, arity);
            }
            case Plan.AsOfLookup a -> finish(new Plan.AsOfLookup(prune(a.outer(), all(a.outer().arity())).plan(),
                    prune(a.dimension(), all(a.dimension().arity())).plan(), a.outerKey(), a.dimensionKey(), a.time(), a.since(), a.left(), a.types()),
                    identityMap(arity), needed, arity);
            case Plan.TemporalFilter t -> finish(new Plan.TemporalFilter(prune(t.input(), all(t.input().arity())).plan(), t.lower(), t.upper()),
                    identityMap(arity), needed, arity);
            case Plan.EventTime e -> {
                BitSet required = (BitSet) needed.clone();
                required.set(e.timeColumn());
                Pruned in = prune(e.input(), required);
                ScalarExpr w = dev.tributary.sql.expr.ScalarExprs.remap(e.watermark(), in.map());
                yield finish(new Plan.EventTime(in.plan(), in.map()[e.timeColumn()], w, e.fromNow(), e.from(), e.appendOnly()), in.map(), needed, arity);
            }
            case Plan.Expire x -> withColumn(x.input(), x.column(), needed, arity, (in, c) -> new Plan.Expire(in, c, x.after()));
            case Plan.Inserts x -> {
                Pruned in = prune(x.input(), needed);
                yield new Pruned(new Plan.Inserts(in.plan()), in.map());
            }
            case Plan.Delay x -> withColumn(x.input(), x.column(), needed, arity, (in, c) -> new Plan.Delay(in, c, x.expire()));
            case Plan.AtClose x -> withColumn(x.input(), x.column(), needed, arity, Plan.AtClose::new);
            case Plan.RepeatRow r -> {
                BitSet required = (BitSet) needed.clone();
                required.set(r.count());
                Pruned in = prune(r.input(), required);
                yield finish(new Plan.RepeatRow(in.plan(), in.map()[r.count()]), in.map(), needed, arity);
            }
            case Plan.Changes c -> finish(new Plan.Changes(prune(c.input(), all(c.input().arity())).plan(), c.since(), c.types()),
                    identityMap(arity), needed, arity);
            case Plan.Threshold t -> finish(new Plan.Threshold(prune(t.input(), all(arity)).plan()), identityMap(arity), needed, arity);
            case Plan.TopK t -> finish(new Plan.TopK(prune(t.input(), all(arity)).plan(), t.groupKey(), t.order(), t.limit(), t.offset()),
                    identityMap(arity), needed, arity);
            case Plan.FirstRows x -> finish(new Plan.FirstRows(prune(x.input(), all(arity)).plan(), x.groupKey(), x.limit(), x.offset()), identityMap(arity),
                    needed, arity);
            case Plan.DeltaJoin d -> finish(d, identityMap(arity), needed, arity);
            case Plan.Let l -> {
                Plan value = prune(l.value(), all(l.value().arity())).plan();
                Pruned body = prune(l.body(), needed);
                yield new Pruned(new Plan.Let(l.id(), value, body.plan()), body.map());
            }
            case Plan.LetRec r -> {
                // a binding's value is read with all its columns (by itself, round after round)
                List<Plan.Binding> bindings = new ArrayList<>();
                for (Plan.Binding b : r.bindings()) bindings.add(new Plan.Binding(b.id(), b.name(), b.initial() == null ? null : prune(b.initial(), all(b.initial().arity())).plan(),
                        prune(b.value(), all(b.value().arity())).plan()));
                Pruned body = prune(r.body(), needed);
                yield new Pruned(new Plan.LetRec(bindings, body.plan(), r.limit(), r.errorAtLimit()), body.map());
            }
        };
    }
}
