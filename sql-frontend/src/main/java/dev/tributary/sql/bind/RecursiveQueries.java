package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Cte;
import dev.tributary.sql.ast.Query;
import dev.tributary.sql.ast.QueryBody;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code WITH RECURSIVE} and {@code WITH MUTUALLY RECURSIVE} bound onto {@link Plan.LetRec}.
 *
 * <p>PostgreSQL's {@code WITH RECURSIVE t AS (base UNION [ALL] step)} evaluates with a working
 * table: {@code W0 = base}, {@code W(i+1) = step(W(i))} (under UNION less the rows already
 * produced, and without duplicates), and {@code t} is all the {@code W(i)} together. When the step
 * is linear in its one reference to {@code t} (maps, filters, joins, unions, expansions: no
 * grouping, DISTINCT, window, top-k or negation above it), that is the least fixed point of
 * {@code t = base + step(t)} (under UNION: {@code distinct(base + step(t))}), which is what the
 * plan iterates: one variable, and a change to the inputs moves only the rows it reaches. Any
 * other step keeps PostgreSQL's working table literally: a variable for the working table and one
 * for what has been produced, so DISTINCT, GROUP BY or a window in the step mean per round what
 * they mean there. The forms PostgreSQL refuses (a reference in the base term, twice, in a
 * subquery, on the nullable side of an outer join, in INTERSECT or EXCEPT's right, aggregates in
 * the step, ORDER BY or LIMIT on the union, a step whose type differs from the base's) are refused
 * with its SQLSTATEs and messages.
 *
 * <p>Materialize's {@code WITH MUTUALLY RECURSIVE} declares each binding's columns and types;
 * every binding may read every binding, all start empty, and all are recomputed from the
 * previous round's values until none changes.
 */
final class RecursiveQueries {
    private RecursiveQueries() {}

    /**
     * A recursive binding whose references to itself are being watched: while its base term is
     * bound any reference is an error; while its step is bound references are counted and
     * checked for where they appear.
     */
    static final class SelfReference {
        final String name;
        final Binder.Bound bound;
        /** The error a reference raises, or null when references are allowed (the step). */
        private final String forbidden;
        private final int forbiddenPos;
        private final int subqueries;
        private final int nullable;
        private final int intersect;
        private final int except;
        int count;

        private SelfReference(Binder b, String name, Binder.Bound bound, String forbidden, int forbiddenPos) {
            this.name = name;
            this.bound = bound;
            this.forbidden = forbidden;
            this.forbiddenPos = forbiddenPos;
            this.subqueries = b.subqueryDepth;
            this.nullable = b.nullableDepth;
            this.intersect = b.intersectDepth;
            this.except = b.exceptDepth;
        }

        /** A reference at {@code pos}, while {@code b} binds. */
        void seen(Binder b, int pos) {
            if (forbidden != null) throw new SqlException("42P19", forbidden, forbiddenPos < 0 ? pos : forbiddenPos);
            String where = b.subqueryDepth > subqueries ? "within a subquery"
                    : b.nullableDepth > nullable ? "within an outer join"
                    : b.intersectDepth > intersect ? "within INTERSECT"
                    : b.exceptDepth > except ? "within EXCEPT"
                    : ++count > 1 ? "more than once" : null;
            if (where != null) throw new SqlException("42P19", "recursive reference to query \"" + name + "\" must not appear " + where, pos);
        }
    }

    /**
     * Binds {@code cte} of a {@code WITH RECURSIVE}: a plain binding when it does not read itself,
     * otherwise its {@link Plan.LetRec}.
     */
    static Binder.Bound recursive(Binder b, Cte cte, long limit) {
        Query q = cte.query();
        QueryBody.SetOperation union = q.with().isEmpty() && q.body() instanceof QueryBody.SetOperation s && s.op() == QueryBody.SetOp.UNION ? s : null;
        Binder.Bound trap = new Binder.Bound(Plan.Constant.empty(List.of()), List.of());
        boolean searchOrCycle = cte.search() != null || cte.cycle() != null;
        QueryBody.Select stepSelect = searchOrCycle ? SearchCycle.checkForm(cte, true, union) : null;
        if (union == null) {
            SelfReference watch = watch(b, cte.name(), trap,
                    "recursive query \"" + cte.name() + "\" does not have the form non-recursive-term UNION [ALL] recursive-term", cte.pos());
            try {
                return b.relation(q);
            } finally {
                unwatch(b, cte.name(), watch);
            }
        }
        Binder.Bound base;
        SelfReference inBase = watch(b, cte.name(), trap, "recursive reference to query \"" + cte.name() + "\" must not appear within its non-recursive term", -1);
        try {
            base = b.body(union.left());
        } finally {
            unwatch(b, cte.name(), inBase);
        }
        // an untyped literal in the base term is text, as PostgreSQL resolves a CTE's output
        List<SqlType> types = new ArrayList<>(base.plan().types());
        if (types.contains(SqlType.UNKNOWN)) {
            types.replaceAll(t -> t.kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : t);
            List<Field> fields = new ArrayList<>();
            for (int i = 0; i < types.size(); i++) fields.add(new Field(base.fields().get(i).qualifier(), base.fields().get(i).name(), types.get(i), base.fields().get(i).hidden()));
            base = new Binder.Bound(Binder.coerceColumns(base.plan(), types, union.pos(), "WITH RECURSIVE"), fields);
        }
        int n = types.size();
        List<Field> baseFields = Binder.rename(base, cte.name(), cte.columns(), cte.pos()).fields();
        List<Field> outFields = new ArrayList<>(baseFields);
        List<Field> selfFields = new ArrayList<>(baseFields);
        SearchCycle sc = null;
        if (searchOrCycle) {
            sc = SearchCycle.of(b, cte, baseFields.stream().map(Field::name).toList(), types);
            types.addAll(sc.extraTypes());
            outFields.addAll(sc.extraFields(cte.name(), false));
            base = new Binder.Bound(sc.extendBase(base.plan()), outFields);
            selfFields.addAll(sc.extraFields(cte.name(), true));
        }
        int id = Binder.nextLetId();
        Binder.Bound self = new Binder.Bound(new Plan.LetRef(id, types), selfFields);
        SelfReference inStep = watch(b, cte.name(), self, null, -1);
        Binder.Bound step;
        try {
            step = sc == null ? b.body(union.right()) : sc.bindStep(stepSelect, baseFields.stream().map(Field::name).toList(), b::body);
        } finally {
            unwatch(b, cte.name(), inStep);
        }
        if (inStep.count == 0) {
            if (sc != null) throw SearchCycle.notRecursive(cte);
            return b.relation(q); // an ordinary union after all
        }
        if (sc != null) sc.checkNames(baseFields.stream().map(Field::name).toList());
        if (!q.orderBy().isEmpty()) throw new SqlException("0A000", "ORDER BY in a recursive query is not implemented", q.orderBy().get(0).pos());
        if (q.limit() != null) throw new SqlException("0A000", "LIMIT in a recursive query is not implemented", q.limit().pos());
        if (q.offset() != null) throw new SqlException("0A000", "OFFSET in a recursive query is not implemented", q.offset().pos());
        if (q.limitBy() != null) throw new SqlException("0A000", "LIMIT ... BY in a recursive query is not implemented", q.limitBy().pos());
        Plan stepPlan = step.plan();
        if (Plans.anyNode(stepPlan, p -> p instanceof Plan.Reduce r && !r.aggregates().isEmpty() && Plans.freeRefs(r).contains(id))) {
            throw new SqlException("42P19", "aggregate functions are not allowed in a recursive query's recursive term", union.right().pos());
        }
        if (step.fields().size() != types.size()) {
            if (sc != null && step.fields().size() == n) {
                throw new SqlException("0A000", "a SEARCH or CYCLE clause needs the recursive reference in the recursive term's FROM, outside any function", union.right().pos());
            }
            throw new SqlException("42601", "each UNION query must have the same number of columns", union.right().pos());
        }
        for (int i = 0; i < n; i++) {
            SqlType overall = Sx.common(List.of(types.get(i), step.fields().get(i).type()), "UNION", union.pos());
            if (!overall.equals(types.get(i))) {
                throw new SqlException("42804", "recursive query \"" + cte.name() + "\" column " + (i + 1) + " has type " + types.get(i)
                        + " in non-recursive term but type " + overall + " overall", cte.pos(), "Cast the output of the non-recursive term to the correct type.");
            }
        }
        Plan basePlan = base.plan();
        stepPlan = Binder.coerceColumns(stepPlan, types, union.pos(), "UNION");
        if (sc != null) stepPlan = sc.extendStep(stepPlan);
        boolean all = union.all();
        if (!all) {
            // rows are compared: numerically equal NUMERICs must be equal rows
            basePlan = Binder.keyForm(basePlan);
            stepPlan = Binder.keyForm(stepPlan);
        }
        List<Plan.Binding> bindings = new ArrayList<>();
        Plan value;
        if (linear(stepPlan, id)) {
            Plan both = new Plan.Union(List.of(basePlan, stepPlan));
            bindings.add(new Plan.Binding(id, cte.name(), null, all ? both : new Plan.Distinct(both)));
            value = new Plan.LetRef(id, types);
        } else {
            // the working table (id, what the step reads) and what has been produced before it
            int produced = Binder.nextLetId();
            Plan w = new Plan.LetRef(id, types);
            Plan done = new Plan.LetRef(produced, types);
            Plan next = all ? stepPlan : new Plan.Threshold(new Plan.Union(List.of(new Plan.Distinct(stepPlan), new Plan.Negate(done), new Plan.Negate(w))));
            bindings.add(new Plan.Binding(id, cte.name(), all ? basePlan : new Plan.Distinct(basePlan), next));
            bindings.add(new Plan.Binding(produced, cte.name(), null, new Plan.Union(List.of(done, w))));
            // once the working table is empty, what was produced is the result
            value = new Plan.Union(List.of(done, w));
        }
        return new Binder.Bound(new Plan.LetRec(bindings, value, limit, true), outFields);
    }

    /**
     * Binds the bindings of a {@code WITH MUTUALLY RECURSIVE}, each visible to all of them and to
     * the query after; the caller wraps that query's plan in a {@link Plan.LetRec} of them.
     */
    static List<Plan.Binding> mutuallyRecursive(Binder b, List<Cte> with, java.util.Map<String, Binder.Bound> ctes) {
        List<Integer> ids = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Cte cte : with) {
            if (!names.add(cte.name())) throw new SqlException("42712", "WITH query name \"" + cte.name() + "\" specified more than once", cte.pos());
            if (cte.search() != null || cte.cycle() != null) {
                throw new SqlException("0A000", "SEARCH and CYCLE clauses in WITH MUTUALLY RECURSIVE are not supported", cte.pos(),
                        "Use WITH RECURSIVE, or compute the path or depth as a column of the binding.");
            }
            int id = Binder.nextLetId();
            ids.add(id);
            List<Field> fields = new ArrayList<>();
            for (int i = 0; i < cte.columns().size(); i++) fields.add(new Field(cte.name(), cte.columns().get(i), cte.types().get(i), false));
            ctes.put(cte.name(), new Binder.Bound(new Plan.LetRef(id, cte.types()), fields));
        }
        List<Plan.Binding> bindings = new ArrayList<>();
        for (int i = 0; i < with.size(); i++) {
            Cte cte = with.get(i);
            Binder.Bound v = b.relation(cte.query());
            if (v.fields().size() != cte.types().size()) {
                throw new SqlException("42601", "WITH MUTUALLY RECURSIVE binding \"" + cte.name() + "\" declares " + cte.types().size() + " columns but its query returns "
                        + v.fields().size(), cte.query().pos());
            }
            Plan value = v.plan();
            for (int c = 0; c < cte.types().size(); c++) {
                SqlType have = v.fields().get(c).type();
                SqlType declared = cte.types().get(c);
                if (!have.equals(declared) && !Sx.common(List.of(declared, have), "WITH MUTUALLY RECURSIVE", cte.pos()).equals(declared)) {
                    throw new SqlException("42804", "WITH MUTUALLY RECURSIVE binding \"" + cte.name() + "\" column \"" + cte.columns().get(c) + "\" is declared " + declared
                            + " but its query returns " + have, cte.query().pos(), "Cast the column to the declared type.");
                }
            }
            value = Binder.coerceColumns(value, cte.types(), cte.pos(), "WITH MUTUALLY RECURSIVE");
            bindings.add(new Plan.Binding(ids.get(i), cte.name(), null, value));
        }
        return bindings;
    }

    /**
     * Whether {@code step} is linear in its reference to {@code id}: no node above the reference
     * groups, deduplicates, ranks, negates or otherwise reads more than one row at a time, so the
     * step of a union of rows is the union of the steps of each.
     */
    static boolean linear(Plan step, int id) {
        return !Plans.anyNode(step, n -> !rowAtATime(n) && Plans.freeRefs(n).contains(id));
    }

    /** Whether {@code p} maps each input row (or pair of rows, for a join) on its own. */
    private static boolean rowAtATime(Plan p) {
        return p instanceof Plan.LetRef || p instanceof Plan.Filter || p instanceof Plan.Map || p instanceof Plan.Project || p instanceof Plan.FlatMap
                || p instanceof Plan.Join || p instanceof Plan.Union;
    }

    private static SelfReference watch(Binder b, String name, Binder.Bound bound, String forbidden, int forbiddenPos) {
        SelfReference s = new SelfReference(b, name, bound, forbidden, forbiddenPos);
        b.ctes.put(name, bound);
        b.selfReferences.put(name, s);
        return s;
    }

    private static void unwatch(Binder b, String name, SelfReference s) {
        if (b.selfReferences.get(name) == s) b.selfReferences.remove(name);
        b.ctes.remove(name);
    }
}
