package dev.tributary.sql.plan;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns {@code now()} in the WHERE of a maintained query into temporal filters: conjuncts
 * {@code now() op e} (op one of {@code = < <= > >=}, either way round, BETWEEN included) with
 * {@code e} a timestamptz that does not read {@code now()} bound each row's validity interval;
 * the row is present exactly while the system time is inside it. Any other use of {@code now()}
 * in a maintained query is refused with 0A000.
 */
public final class TemporalFilters {
    private TemporalFilters() {}

    /** {@code plan} with its temporal conjuncts as {@link Plan.TemporalFilter}s; fails on other uses of now(). */
    public static Plan extract(Plan plan) {
        Plan out = rewrite(plan);
        if (Plans.usesStatementTime(out)) {
            throw new SqlException("0A000", "now() in a materialized view or subscription can only bound rows in WHERE, as now() <op> expr with "
                    + "<op> one of =, <, <=, >, >=, or now() BETWEEN a AND b, and expr a timestamptz that does not use now()", 0,
                    "To compute with the current time, query the view with a one-off SELECT.");
        }
        return out;
    }

    private static Plan rewrite(Plan plan) {
        Plan p = Plans.withInputs(plan, TemporalFilters::rewrite);
        if (!(p instanceof Plan.Filter f)) return p;
        List<ScalarExpr> rest = new ArrayList<>();
        List<ScalarExpr> lower = new ArrayList<>();
        List<ScalarExpr> upper = new ArrayList<>();
        List<ScalarExpr> conjuncts = new ArrayList<>();
        for (ScalarExpr c : f.predicates()) flatten(c, conjuncts);
        for (ScalarExpr c : conjuncts) {
            if (!bound(c, lower, upper)) rest.add(c);
        }
        if (lower.isEmpty() && upper.isEmpty()) return p;
        Plan base = rest.isEmpty() ? f.input() : new Plan.Filter(f.input(), rest);
        int n = base.arity();
        List<ScalarExpr> bounds = new ArrayList<>(lower);
        bounds.addAll(upper);
        Plan mapped = new Plan.Map(base, bounds);
        List<Integer> lo = new ArrayList<>();
        List<Integer> hi = new ArrayList<>();
        for (int i = 0; i < lower.size(); i++) lo.add(n + i);
        for (int i = 0; i < upper.size(); i++) hi.add(n + lower.size() + i);
        List<Integer> keep = new ArrayList<>();
        for (int i = 0; i < n; i++) keep.add(i);
        return new Plan.Project(new Plan.TemporalFilter(mapped, lo, hi), keep);
    }

    private static void flatten(ScalarExpr e, List<ScalarExpr> out) {
        if (e instanceof ScalarExpr.And a) {
            for (ScalarExpr c : a.args()) flatten(c, out);
        } else {
            out.add(e);
        }
    }

    /** If {@code c} is {@code now() op e} (or {@code e op now()}), adds its bound in milliseconds and returns true. */
    private static boolean bound(ScalarExpr c, List<ScalarExpr> lower, List<ScalarExpr> upper) {
        if (!(c instanceof ScalarExpr.Call call) || call.args().size() != 2) return false;
        String op = call.name();
        ScalarExpr l = call.args().get(0);
        ScalarExpr r = call.args().get(1);
        if (isNow(r) && !isNow(l)) {
            ScalarExpr t = l;
            l = r;
            r = t;
            op = dev.tributary.sql.expr.BinaryOp.mirrored(op);
        }
        if (!isNow(l) || ScalarExprs.usesStatementTime(r) || r.type().kind() != SqlType.Kind.TIMESTAMPTZ) return false;
        ScalarExpr ms = millis(r);
        switch (op) {
            case ">=" -> lower.add(ms);
            case ">" -> lower.add(plusOne(ms));
            case "<" -> upper.add(ms);
            case "<=" -> upper.add(plusOne(ms));
            case "=" -> {
                lower.add(ms);
                upper.add(plusOne(ms));
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private static boolean isNow(ScalarExpr e) {
        return e instanceof ScalarExpr.Now n && n.type().kind() == SqlType.Kind.TIMESTAMPTZ;
    }

    /** Milliseconds since the epoch; the long's extremes for the infinities (a row of infinite time is valid for ever, or never). */
    private static ScalarExpr millis(ScalarExpr timestamptz) {
        return new ScalarExpr.Call("epoch_ms", List.of(timestamptz), SqlType.BIGINT, args -> switch (InfiniteTimes.sign(args[0])) {
            case 1 -> Long.MAX_VALUE;
            case -1 -> Long.MIN_VALUE;
            default -> ((Instant) args[0]).toEpochMilli();
        }, true);
    }

    private static ScalarExpr plusOne(ScalarExpr ms) {
        return new ScalarExpr.Call("next_ms", List.of(ms), SqlType.BIGINT, args -> (Long) args[0] == Long.MAX_VALUE ? Long.MAX_VALUE : (Long) args[0] + 1, true);
    }
}
