package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/** Whole-plan rewrites and questions: every scalar expression mapped, searched, or given the statement's time. */
public final class Plans {
    private Plans() {}

    /** {@code plan} with each direct input replaced by {@code f} of it (a leaf as it is). */
    public static Plan withInputs(Plan plan, UnaryOperator<Plan> f) {
        return switch (plan) {
            case Plan.Get g -> g;
            case Plan.IndexedGet g -> g;
            case Plan.Constant c -> c;
            case Plan.LetRef r -> r;
            case Plan.Filter x -> new Plan.Filter(f.apply(x.input()), x.predicates());
            case Plan.Map m -> new Plan.Map(f.apply(m.input()), m.exprs());
            case Plan.FlatMap m -> new Plan.FlatMap(f.apply(m.input()), m.function());
            case Plan.Window w -> new Plan.Window(f.apply(w.input()), w.partition(), w.order(), w.function());
            case Plan.Sessions s -> new Plan.Sessions(f.apply(s.input()), s.partition(), s.time(), s.gap());
            case Plan.Project p -> new Plan.Project(f.apply(p.input()), p.columns());
            case Plan.Join j -> new Plan.Join(f.apply(j.left()), f.apply(j.right()), j.leftKey(), j.rightKey());
            case Plan.Reduce r -> new Plan.Reduce(f.apply(r.input()), r.groupKey(), r.aggregates(), r.global());
            case Plan.PaneAggregate a -> new Plan.PaneAggregate(f.apply(a.input()), a.time(), a.slide(), a.size(), a.offset(), a.cumulative(), a.groupKey(),
                    a.aggregates());
            case Plan.SessionAggregate a -> new Plan.SessionAggregate(f.apply(a.input()), a.time(), a.gap(), a.partition(), a.groupKey(),
                    a.aggregates());
            case Plan.Distinct d -> new Plan.Distinct(f.apply(d.input()));
            case Plan.Changes c -> new Plan.Changes(f.apply(c.input()), c.since(), c.types());
            case Plan.RepeatRow r -> new Plan.RepeatRow(f.apply(r.input()), r.count());
            case Plan.TemporalFilter t -> new Plan.TemporalFilter(f.apply(t.input()), t.lower(), t.upper());
            case Plan.EventTime e -> new Plan.EventTime(f.apply(e.input()), e.timeColumn(), e.watermark(), e.fromNow(), e.from(), e.appendOnly());
            case Plan.Expire x -> new Plan.Expire(f.apply(x.input()), x.column(), x.after());
            case Plan.Inserts x -> new Plan.Inserts(f.apply(x.input()));
            case Plan.Delay d -> new Plan.Delay(f.apply(d.input()), d.column(), d.expire());
            case Plan.AtClose a -> new Plan.AtClose(f.apply(a.input()), a.column());
            case Plan.AsofJoin a -> new Plan.AsofJoin(f.apply(a.left()), f.apply(a.right()), a.leftKey(), a.rightKey(), a.leftTime(), a.rightTime(), a.op(),
                    a.leftOuter());
            case Plan.SystemTime x -> new Plan.SystemTime(f.apply(x.input()));
            case Plan.CommitTime x -> new Plan.CommitTime(f.apply(x.input()));
            case Plan.TimeColumn x -> new Plan.TimeColumn(f.apply(x.input()));
            case Plan.FirstRows x -> new Plan.FirstRows(f.apply(x.input()), x.groupKey(), x.limit(), x.offset());
            case Plan.Lookup l -> new Plan.Lookup(f.apply(l.stream()), f.apply(l.table()), l.streamKey(), l.tableKey());
            case Plan.AsOfLookup a -> new Plan.AsOfLookup(f.apply(a.outer()), f.apply(a.dimension()), a.outerKey(), a.dimensionKey(), a.time(),
                    a.since(), a.left(), a.types());
            case Plan.TopK t -> new Plan.TopK(f.apply(t.input()), t.groupKey(), t.order(), t.limit(), t.offset());
            case Plan.Union u -> {
                List<Plan> in = new ArrayList<>();
                for (Plan p : u.inputs()) in.add(f.apply(p));
                yield new Plan.Union(in);
            }
            case Plan.Negate n -> new Plan.Negate(f.apply(n.input()));
            case Plan.Threshold t -> new Plan.Threshold(f.apply(t.input()));
            case Plan.Let l -> new Plan.Let(l.id(), f.apply(l.value()), f.apply(l.body()));
            case Plan.LetRec r -> {
                List<Plan.Binding> bindings = new ArrayList<>();
                for (Plan.Binding b : r.bindings()) bindings.add(new Plan.Binding(b.id(), b.name(), b.initial() == null ? null : f.apply(b.initial()), f.apply(b.value())));
                yield new Plan.LetRec(bindings, f.apply(r.body()), r.limit(), r.errorAtLimit());
            }
            case Plan.DeltaJoin d -> new Plan.DeltaJoin(d.inputs(), d.filters(), d.equalities(), d.residual(), f.apply(d.fallback()), d.paths());
        };
    }

    /** The ids of the {@code LetRef}s in {@code p} that no {@code Let} or {@code LetRec} inside {@code p} binds. */
    public static java.util.Set<Integer> freeRefs(Plan p) {
        java.util.Set<Integer> out = new java.util.HashSet<>();
        switch (p) {
            case Plan.LetRef r -> out.add(r.id());
            case Plan.Let l -> {
                out.addAll(freeRefs(l.value()));
                java.util.Set<Integer> body = freeRefs(l.body());
                body.remove(l.id());
                out.addAll(body);
            }
            case Plan.LetRec r -> {
                java.util.Set<Integer> inside = freeRefs(r.body());
                for (Plan.Binding b : r.bindings()) {
                    inside.addAll(freeRefs(b.value()));
                    if (b.initial() != null) inside.addAll(freeRefs(b.initial()));
                }
                inside.removeAll(r.ids());
                out.addAll(inside);
            }
            default -> Plans.withInputs(p, in -> {
                out.addAll(freeRefs(in));
                return in;
            });
        }
        return out;
    }

    /**
     * Whether {@code plan}'s rows are only ever inserted, never retracted: it reads only APPEND
     * ONLY tables (and streams of them), through maps, filters, projections, expansions, joins,
     * unions and a stream's lookups. Such rows let a top-k forget what falls out of it.
     */
    public static boolean insertsOnly(Plan plan) {
        return switch (plan) {
            case Plan.Get g -> g.appendOnly();
            case Plan.Map m -> insertsOnly(m.input());
            case Plan.Filter f -> insertsOnly(f.input());
            case Plan.Project p -> insertsOnly(p.input());
            case Plan.FlatMap m -> insertsOnly(m.input());
            case Plan.Join j -> insertsOnly(j.left()) && insertsOnly(j.right());
            case Plan.Union u -> u.inputs().stream().allMatch(Plans::insertsOnly);
            case Plan.EventTime e -> e.appendOnly() && insertsOnly(e.input());
            case Plan.CommitTime c -> insertsOnly(c.input());
            case Plan.TimeColumn t -> insertsOnly(t.input());
            case Plan.Lookup l -> insertsOnly(l.stream());
            default -> false;
        };
    }

    /**
     * The catalog ids of the stored collections and indexes {@code plan} reads: its Gets, and
     * the indexes and collections of its index reads and delta joins.
     */
    public static java.util.Set<Long> reads(Plan plan) {
        java.util.Set<Long> out = new java.util.TreeSet<>();
        collectReads(plan, out);
        return out;
    }

    private static void collectReads(Plan plan, java.util.Set<Long> out) {
        switch (plan) {
            case Plan.Get g -> out.add(g.id());
            case Plan.IndexedGet g -> {
                out.add(g.index());
                out.add(g.source());
            }
            case Plan.DeltaJoin d -> {
                for (Plan.Get g : d.inputs()) out.add(g.id());
                for (Plan.DeltaPath p : d.paths()) for (Plan.DeltaStep s : p.steps()) out.add(s.index());
            }
            default -> { }
        }
        withInputs(plan, in -> {
            collectReads(in, out);
            return in;
        });
    }

    /** {@code plan} with {@code f} applied to every scalar expression in it. */
    public static Plan mapExprs(Plan plan, UnaryOperator<ScalarExpr> f) {
        Plan p = withInputs(plan, in -> mapExprs(in, f));
        return switch (p) {
            case Plan.Filter x -> new Plan.Filter(x.input(), map(x.predicates(), f));
            case Plan.Map m -> new Plan.Map(m.input(), map(m.exprs(), f));
            case Plan.FlatMap m -> new Plan.FlatMap(m.input(), m.function().withArgs(map(m.function().args(), f)));
            case Plan.DeltaJoin d -> {
                List<List<ScalarExpr>> filters = new ArrayList<>();
                for (List<ScalarExpr> x : d.filters()) filters.add(map(x, f));
                yield new Plan.DeltaJoin(d.inputs(), filters, d.equalities(), map(d.residual(), f), d.fallback(), d.paths());
            }
            default -> p;
        };
    }

    private static List<ScalarExpr> map(List<ScalarExpr> exprs, UnaryOperator<ScalarExpr> f) {
        List<ScalarExpr> out = new ArrayList<>(exprs.size());
        for (ScalarExpr e : exprs) out.add(f.apply(e));
        return out;
    }

    /** {@code plan} with each {@link Plan.Get} replaced by what {@code f} gives for it (itself when null). */
    public static Plan mapGets(Plan plan, java.util.function.Function<Plan.Get, Plan> f) {
        Plan.Get get = plan instanceof Plan.Get g ? g
                : plan instanceof Plan.IndexedGet g ? new Plan.Get(g.source(), g.indexName(), g.types()) : null;
        if (get != null) {
            Plan r = f.apply(get);
            return r == null ? plan : r;
        }
        if (plan instanceof Plan.DeltaJoin d) {
            // replacing an input by something else than a stored collection leaves the binary plan
            for (Plan.Get g : d.inputs()) if (f.apply(g) != null) return mapGets(d.fallback(), f);
        }
        return withInputs(plan, in -> mapGets(in, f));
    }

    /**
     * Whether {@code plan} has exactly one row at every time, whatever its inputs hold: a global
     * aggregate (no GROUP BY, no HAVING), a constant of one row, or maps and projections of one.
     * (A failing expression makes an error instead, as it would for any row.)
     */
    public static boolean exactlyOneRow(Plan plan) {
        return switch (plan) {
            case Plan.Reduce r -> r.global() && r.groupKey().isEmpty();
            case Plan.Constant c -> c.rows().size() == 1;
            case Plan.Map m -> exactlyOneRow(m.input());
            case Plan.Project p -> exactlyOneRow(p.input());
            case Plan.Let l -> exactlyOneRow(l.body());
            default -> false;
        };
    }

    /** Whether {@code plan} or some plan below it satisfies {@code p}. */
    public static boolean anyNode(Plan plan, Predicate<Plan> p) {
        if (p.test(plan)) return true;
        boolean[] found = {false};
        withInputs(plan, in -> {
            found[0] |= !found[0] && anyNode(in, p);
            return in;
        });
        return found[0];
    }

    /** Whether some scalar expression of {@code plan} satisfies {@code p}. */
    public static boolean anyExpr(Plan plan, Predicate<ScalarExpr> p) {
        boolean[] found = {false};
        mapExprs(plan, e -> {
            if (p.test(e)) found[0] = true;
            return e;
        });
        return found[0];
    }

    /** {@code plan} with {@code now()} and its kin fixed to {@code time}, as PostgreSQL fixes them per statement. */
    public static Plan atStatementTime(Plan plan, Instant time) {
        if (!usesStatementTime(plan)) return plan;
        return mapExprs(plan, e -> ScalarExprs.bindStatementTime(e, time));
    }

    /** {@code plan} with each parameter {@code $i} replaced by {@code values[i - 1]} (see {@link ScalarExprs#bindParameters}). */
    public static Plan withParameters(Plan plan, Object[] values, List<dev.tributary.sql.types.SqlType> types) {
        if (values.length == 0) return plan;
        return mapExprs(plan, e -> ScalarExprs.bindParameters(e, values, types));
    }

    /** Every parameter occurrence in {@code plan}'s expressions. */
    public static List<ScalarExpr.Param> parameters(Plan plan) {
        List<ScalarExpr.Param> out = new ArrayList<>();
        mapExprs(plan, e -> {
            ScalarExprs.parameters(e, out);
            return e;
        });
        return out;
    }

    public static boolean usesStatementTime(Plan plan) {
        return anyExpr(plan, ScalarExprs::usesStatementTime);
    }
}
