package dev.tributary.sql.bind;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Plans joins: predicates on one input are pushed below the join, equalities between two sides
 * become join keys (NULL keys are filtered out first, since {@code NULL = NULL} is not true), and
 * the rest are applied as soon as every input they read has been joined. Outer joins are the
 * inner join plus the unmatched rows of the preserved side, padded with NULLs; all of it is
 * incremental.
 */
final class JoinPlanner {
    private JoinPlanner() {}

    /** The inner join of {@code inputs} (their columns concatenated, in order) under {@code conjuncts}. */
    static Plan innerJoin(List<Plan> inputs, List<ScalarExpr> conjuncts) {
        int n = inputs.size();
        int[] offset = new int[n + 1];
        for (int i = 0; i < n; i++) offset[i + 1] = offset[i] + inputs.get(i).arity();
        List<SqlType> allTypes = new ArrayList<>();
        for (Plan p : inputs) allTypes.addAll(p.types());

        List<ScalarExpr> pending = new ArrayList<>();
        List<List<ScalarExpr>> local = new ArrayList<>();
        for (int i = 0; i < n; i++) local.add(new ArrayList<>());
        List<ScalarExpr> constant = new ArrayList<>();
        for (ScalarExpr c : conjuncts) {
            BitSet used = inputsOf(c, offset);
            if (used.isEmpty()) constant.add(c);
            else if (used.cardinality() == 1) {
                int i = used.nextSetBit(0);
                int[] map = shift(allTypes.size(), offset[i], offset[i + 1], -offset[i]);
                local.get(i).add(Sx.remap(c, map));
            } else pending.add(c);
        }
        Plan[] plans = new Plan[n];
        for (int i = 0; i < n; i++) {
            List<ScalarExpr> f = new ArrayList<>(local.get(i));
            if (i == 0) f.addAll(constant);
            plans[i] = f.isEmpty() ? inputs.get(i) : new Plan.Filter(inputs.get(i), f);
        }
        if (n == 1) return plans[0];
        Plan binary = binaryJoins(plans, pending, offset, allTypes);
        return deltaCandidate(inputs, local, constant, pending, offset, binary);
    }

    /**
     * When three or more stored collections are joined on column equalities, the same join as a
     * {@link Plan.DeltaJoin} for a planner that knows the indexes to choose; else {@code binary}.
     */
    private static Plan deltaCandidate(List<Plan> inputs, List<List<ScalarExpr>> local, List<ScalarExpr> constant,
            List<ScalarExpr> pending, int[] offset, Plan binary) {
        int n = inputs.size();
        if (n < 3) return binary;
        List<Plan.Get> gets = new ArrayList<>();
        for (Plan p : inputs) {
            if (!(p instanceof Plan.Get g)) return binary;
            gets.add(g);
        }
        List<Plan.Equality> equalities = new ArrayList<>();
        List<ScalarExpr> residual = new ArrayList<>(constant);
        for (ScalarExpr c : pending) {
            ScalarExpr[] eq = Sx.asEquality(c);
            Integer l = eq == null ? null : Sx.asColumn(eq[0]);
            Integer r = eq == null ? null : Sx.asColumn(eq[1]);
            if (l != null && r != null && eq[0].type().kind() != SqlType.Kind.NUMERIC && inputOf(l, offset) != inputOf(r, offset)) {
                int li = inputOf(l, offset);
                int ri = inputOf(r, offset);
                equalities.add(new Plan.Equality(li, l - offset[li], ri, r - offset[ri]));
            }
            // every conjunct is also checked on the joined rows: lookups use some equalities, and a
            // cycle of equalities has one no lookup enforces
            residual.add(c);
        }
        return new Plan.DeltaJoin(gets, local, equalities, residual, binary, List.of());
    }

    private static int inputOf(int column, int[] offset) {
        for (int i = 0; i + 1 < offset.length; i++) if (column >= offset[i] && column < offset[i + 1]) return i;
        throw new IllegalStateException("column " + column + " is in no input");
    }

    /** The join as a chain of binary joins, inputs taken greedily by equalities with those already joined. */
    private static Plan binaryJoins(Plan[] plans, List<ScalarExpr> pending, int[] offset, List<SqlType> allTypes) {
        int n = plans.length;

        // acc holds the joined inputs; position[c] is where original column c sits in acc (-1: not yet)
        int[] position = new int[allTypes.size()];
        java.util.Arrays.fill(position, -1);
        boolean[] joined = new boolean[n];
        Plan acc = plans[0];
        joined[0] = true;
        for (int c = offset[0]; c < offset[1]; c++) position[c] = c;
        for (int step = 1; step < n; step++) {
            int next = -1;
            for (int j = 0; j < n && next < 0; j++) {
                if (joined[j]) continue;
                for (ScalarExpr c : pending) {
                    if (equiKeys(c, offset, joined, j) != null) {
                        next = j;
                        break;
                    }
                }
            }
            if (next < 0) for (int j = 0; j < n && next < 0; j++) if (!joined[j]) next = j;
            // join keys: equalities between acc and next
            List<ScalarExpr> accKeys = new ArrayList<>();
            List<ScalarExpr> nextKeys = new ArrayList<>();
            List<ScalarExpr> rest = new ArrayList<>();
            int[] toNext = shift(allTypes.size(), offset[next], offset[next + 1], -offset[next]);
            for (ScalarExpr c : pending) {
                ScalarExpr[] k = equiKeys(c, offset, joined, next);
                if (k != null) {
                    accKeys.add(Sx.remap(k[0], position));
                    nextKeys.add(Sx.remap(k[1], toNext));
                } else rest.add(c);
            }
            int accArity = acc.arity();
            Plan right = plans[next];
            int rightArity = right.arity();
            KeyedSide a = keyed(acc, accKeys);
            KeyedSide b = keyed(right, nextKeys);
            Plan join = new Plan.Join(a.plan, b.plan, a.keys, b.keys);
            // drop the computed key columns again: acc columns, then next's columns
            List<Integer> keep = new ArrayList<>(Binder.range(0, accArity));
            int rightStart = a.plan.arity();
            for (int c = 0; c < rightArity; c++) keep.add(rightStart + c);
            acc = Binder.project(join, keep);
            for (int c = offset[next]; c < offset[next + 1]; c++) position[c] = accArity + (c - offset[next]);
            joined[next] = true;
            // conjuncts now fully available
            List<ScalarExpr> ready = new ArrayList<>();
            pending = new ArrayList<>();
            for (ScalarExpr c : rest) {
                if (allJoined(inputsOf(c, offset), joined)) ready.add(Sx.remap(c, position));
                else pending.add(c);
            }
            if (!ready.isEmpty()) acc = new Plan.Filter(acc, ready);
        }
        // back to the original column order
        List<Integer> order = new ArrayList<>();
        for (int c = 0; c < allTypes.size(); c++) order.add(position[c]);
        return Binder.project(acc, order);
    }

    record KeyedSide(Plan plan, List<Integer> keys) {}

    /** {@code p} with key expressions computed as extra columns (plain columns are used as they are), NULL keys removed. */
    static KeyedSide keyed(Plan p, List<ScalarExpr> keys) {
        List<ScalarExpr> extra = new ArrayList<>();
        List<Integer> cols = new ArrayList<>();
        List<ScalarExpr> notNull = new ArrayList<>();
        int arity = p.arity();
        for (ScalarExpr key : keys) {
            ScalarExpr k = Sx.joinKeyForm(key);
            Integer col = Sx.asColumn(k);
            if (col == null) {
                extra.add(k);
                col = arity + extra.size() - 1;
            }
            cols.add(col);
        }
        Plan out = extra.isEmpty() ? p : new Plan.Map(p, extra);
        List<SqlType> types = out.types();
        for (int c : cols) notNull.add(Sx.isNull(Sx.column(c, types.get(c)), true));
        if (!notNull.isEmpty()) out = new Plan.Filter(out, notNull);
        return new KeyedSide(out, cols);
    }

    /**
     * If {@code c} is {@code x = y} with one side over the joined inputs and the other over input
     * {@code next} only, the two sides (joined side first, both of one type); else null.
     */
    private static ScalarExpr[] equiKeys(ScalarExpr c, int[] offset, boolean[] joined, int next) {
        ScalarExpr[] eq = Sx.asEquality(c);
        if (eq == null) return null;
        BitSet l = inputsOf(eq[0], offset);
        BitSet r = inputsOf(eq[1], offset);
        if (l.isEmpty() || r.isEmpty()) return null;
        if (allJoined(l, joined) && r.cardinality() == 1 && r.get(next)) return eq;
        if (allJoined(r, joined) && l.cardinality() == 1 && l.get(next)) return new ScalarExpr[] {eq[1], eq[0]};
        return null;
    }

    private static boolean allJoined(BitSet inputs, boolean[] joined) {
        for (int i = inputs.nextSetBit(0); i >= 0; i = inputs.nextSetBit(i + 1)) if (!joined[i]) return false;
        return true;
    }

    private static BitSet inputsOf(ScalarExpr e, int[] offset) {
        BitSet cols = Sx.columnsOf(e);
        BitSet inputs = new BitSet();
        for (int c = cols.nextSetBit(0); c >= 0; c = cols.nextSetBit(c + 1)) {
            for (int i = 0; i + 1 < offset.length; i++) {
                if (c >= offset[i] && c < offset[i + 1]) inputs.set(i);
            }
        }
        return inputs;
    }

    /** A column map moving {@code [from, to)} by {@code delta}; other columns map to -1. */
    private static int[] shift(int width, int from, int to, int delta) {
        int[] m = new int[width];
        java.util.Arrays.fill(m, -1);
        for (int c = from; c < to; c++) m[c] = c + delta;
        return m;
    }

    /** {@code left} [LEFT|RIGHT|FULL] OUTER JOIN {@code right} ON {@code conjuncts}. */
    static Plan outerJoin(Plan left, Plan right, List<ScalarExpr> conjuncts, boolean keepLeft, boolean keepRight) {
        int lid = Binder.nextLetId();
        int rid = Binder.nextLetId();
        int jid = Binder.nextLetId();
        Plan l = new Plan.LetRef(lid, left.types());
        Plan r = new Plan.LetRef(rid, right.types());
        Plan inner = innerJoin(List.of(l, r), conjuncts);
        Plan j = new Plan.LetRef(jid, inner.types());
        int nl = left.arity();
        int nr = right.arity();
        List<Plan> parts = new ArrayList<>();
        parts.add(j);
        if (keepLeft) {
            Plan unmatched = unmatched(l, Binder.project(j, Binder.range(0, nl)));
            List<ScalarExpr> nulls = new ArrayList<>();
            for (SqlType t : right.types()) nulls.add(Sx.literal(null, t));
            parts.add(new Plan.Map(unmatched, nulls));
        }
        if (keepRight) {
            Plan unmatched = unmatched(r, Binder.project(j, Binder.range(nl, nl + nr)));
            List<ScalarExpr> nulls = new ArrayList<>();
            for (SqlType t : left.types()) nulls.add(Sx.literal(null, t));
            parts.add(Binder.project(new Plan.Map(unmatched, nulls), Binder.swap(nr, nl)));
        }
        return new Plan.Let(lid, left, new Plan.Let(rid, right, new Plan.Let(jid, inner, new Plan.Union(parts))));
    }

    /**
     * {@code joined} (rows of {@code left} followed by columns of some right side, each row
     * beginning with a row of {@code left}) plus every row of {@code left} that begins none of
     * them, padded with NULLs: a left outer join given its inner part.
     */
    static Plan padUnmatched(Plan left, Plan joined) {
        int lid = Binder.nextLetId();
        int jid = Binder.nextLetId();
        Plan l = new Plan.LetRef(lid, left.types());
        Plan j = new Plan.LetRef(jid, joined.types());
        int nl = left.arity();
        Plan unmatched = unmatched(l, Binder.project(j, Binder.range(0, nl)));
        List<ScalarExpr> nulls = new ArrayList<>();
        List<SqlType> types = joined.types();
        for (int c = nl; c < types.size(); c++) nulls.add(Sx.literal(null, types.get(c)));
        return new Plan.Let(lid, left, new Plan.Let(jid, joined, new Plan.Union(List.of(j, new Plan.Map(unmatched, nulls)))));
    }

    /** The rows of {@code side} (with their multiplicities) that do not occur in {@code matched}. */
    private static Plan unmatched(Plan side, Plan matched) {
        List<Integer> all = Binder.range(0, side.arity());
        Plan semi = Binder.project(new Plan.Join(side, new Plan.Distinct(matched), all, all), all);
        return new Plan.Union(List.of(side, new Plan.Negate(semi)));
    }
}
