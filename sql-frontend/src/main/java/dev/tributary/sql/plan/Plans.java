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

    /** {@code plan} with {@code f} applied to every scalar expression in it. */
    public static Plan mapExprs(Plan plan, UnaryOperator<ScalarExpr> f) {
        return switch (plan) {
            case Plan.Get g -> g;
            case Plan.IndexedGet g -> g;
            case Plan.Constant c -> c;
            case Plan.Filter x -> new Plan.Filter(mapExprs(x.input(), f), map(x.predicates(), f));
            case Plan.Map m -> new Plan.Map(mapExprs(m.input(), f), map(m.exprs(), f));
            case Plan.Project p -> new Plan.Project(mapExprs(p.input(), f), p.columns());
            case Plan.Join j -> new Plan.Join(mapExprs(j.left(), f), mapExprs(j.right(), f), j.leftKey(), j.rightKey());
            case Plan.Reduce r -> new Plan.Reduce(mapExprs(r.input(), f), r.groupKey(), r.aggregates(), r.global());
            case Plan.Distinct d -> new Plan.Distinct(mapExprs(d.input(), f));
            case Plan.TopK t -> new Plan.TopK(mapExprs(t.input(), f), t.groupKey(), t.order(), t.limit(), t.offset());
            case Plan.Union u -> {
                List<Plan> in = new ArrayList<>();
                for (Plan p : u.inputs()) in.add(mapExprs(p, f));
                yield new Plan.Union(in);
            }
            case Plan.Negate n -> new Plan.Negate(mapExprs(n.input(), f));
            case Plan.Threshold t -> new Plan.Threshold(mapExprs(t.input(), f));
            case Plan.Let l -> new Plan.Let(l.id(), mapExprs(l.value(), f), mapExprs(l.body(), f));
            case Plan.LetRef r -> r;
        };
    }

    private static List<ScalarExpr> map(List<ScalarExpr> exprs, UnaryOperator<ScalarExpr> f) {
        List<ScalarExpr> out = new ArrayList<>(exprs.size());
        for (ScalarExpr e : exprs) out.add(f.apply(e));
        return out;
    }

    /** {@code plan} with each {@link Plan.Get} replaced by what {@code f} gives for it (itself when null). */
    public static Plan mapGets(Plan plan, java.util.function.Function<Plan.Get, Plan> f) {
        return switch (plan) {
            case Plan.Get g -> {
                Plan r = f.apply(g);
                yield r == null ? g : r;
            }
            case Plan.IndexedGet g -> {
                Plan r = f.apply(new Plan.Get(g.source(), g.indexName(), g.types()));
                yield r == null ? g : r;
            }
            case Plan.Constant c -> c;
            case Plan.Filter x -> new Plan.Filter(mapGets(x.input(), f), x.predicates());
            case Plan.Map m -> new Plan.Map(mapGets(m.input(), f), m.exprs());
            case Plan.Project p -> new Plan.Project(mapGets(p.input(), f), p.columns());
            case Plan.Join j -> new Plan.Join(mapGets(j.left(), f), mapGets(j.right(), f), j.leftKey(), j.rightKey());
            case Plan.Reduce r -> new Plan.Reduce(mapGets(r.input(), f), r.groupKey(), r.aggregates(), r.global());
            case Plan.Distinct d -> new Plan.Distinct(mapGets(d.input(), f));
            case Plan.TopK t -> new Plan.TopK(mapGets(t.input(), f), t.groupKey(), t.order(), t.limit(), t.offset());
            case Plan.Union u -> {
                List<Plan> in = new ArrayList<>();
                for (Plan p : u.inputs()) in.add(mapGets(p, f));
                yield new Plan.Union(in);
            }
            case Plan.Negate n -> new Plan.Negate(mapGets(n.input(), f));
            case Plan.Threshold t -> new Plan.Threshold(mapGets(t.input(), f));
            case Plan.Let l -> new Plan.Let(l.id(), mapGets(l.value(), f), mapGets(l.body(), f));
            case Plan.LetRef r -> r;
        };
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

    public static boolean usesStatementTime(Plan plan) {
        return anyExpr(plan, ScalarExprs::usesStatementTime);
    }
}
