package dev.tributary.server;

import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Makes joins use existing indexes: an input of a join that reads a stored collection directly
 * (perhaps through the binder's filter of NULL keys), where an index on that collection is keyed
 * by exactly the join's key columns, becomes a read through that index, so the join uses the
 * index's arrangement instead of building another copy of the collection. The NULL-key filter
 * can go while the other input keeps its own: NULL keys then find nothing either way. Only one
 * input of a join drops it.
 */
final class IndexSelection {
    private IndexSelection() {}

    static Plan apply(Plan plan, Collection<CatalogItem.Index> indexes, Set<Long> used) {
        return apply(plan, indexes, used, id -> Long.MAX_VALUE);
    }

    /**
     * {@link #apply(Plan, Collection, Set)}, and an AS OF SYSTEM TIME lookup reads its dimension
     * through an index keyed by the lookup key whose retained history ({@code sinceOf} an index:
     * the earliest time it is readable at) reaches the lookup's since, instead of arranging its
     * own copy of that history.
     */
    static Plan apply(Plan plan, Collection<CatalogItem.Index> indexes, Set<Long> used, java.util.function.LongUnaryOperator sinceOf) {
        return switch (plan) {
            case Plan.Join j -> {
                Plan left = side(j.left(), j.leftKey(), indexes, used);
                Set<Long> rightUsed = new java.util.HashSet<>();
                Plan right = side(j.right(), j.rightKey(), indexes, rightUsed);
                // A side read through an index keeps its NULL keys (the binder's filter of them goes),
                // which is right only while the other side has none: where both would, the right one
                // keeps its filter and is arranged anew, or NULL would meet NULL.
                if (left instanceof Plan.IndexedGet && right instanceof Plan.IndexedGet && j.left() instanceof Plan.Filter && j.right() instanceof Plan.Filter) {
                    rightUsed.clear();
                    right = apply(j.right(), indexes, rightUsed, sinceOf);
                }
                used.addAll(rightUsed);
                yield new Plan.Join(left, right, j.leftKey(), j.rightKey());
            }
            case Plan.DeltaJoin d -> delta(d, indexes, used);
            case Plan.AsOfLookup a -> {
                List<CatalogItem.Index> reaching = indexes.stream().filter(ix -> a.since() == Plan.AsOfLookup.READABLE || sinceOf.applyAsLong(ix.id()) <= a.since()).toList();
                Plan dim = side(a.dimension(), a.dimensionKey(), reaching, used);
                if (!(dim instanceof Plan.IndexedGet)) dim = apply(a.dimension(), indexes, used, sinceOf);
                yield new Plan.AsOfLookup(apply(a.outer(), indexes, used, sinceOf), dim, a.outerKey(), a.dimensionKey(), a.time(), a.since(), a.left(), a.types());
            }
            default -> Plans.withInputs(plan, in -> apply(in, indexes, used, sinceOf));
        };
    }

    /** {@code plan} with every delta-join candidate replaced by its binary plan (no indexes to choose from). */
    static Plan binaryOnly(Plan plan) {
        return plan instanceof Plan.DeltaJoin d ? binaryOnly(d.fallback()) : Plans.withInputs(plan, IndexSelection::binaryOnly);
    }

    /**
     * A delta join when, for every input, the others can be looked up one after another in indexes
     * keyed by exactly the columns that join them to the inputs already there; otherwise the
     * binary plan.
     */
    private static Plan delta(Plan.DeltaJoin d, Collection<CatalogItem.Index> indexes, Set<Long> used) {
        int n = d.inputs().size();
        List<Plan.DeltaPath> paths = new ArrayList<>();
        Set<Long> mine = new java.util.HashSet<>();
        for (int start = 0; start < n && paths.size() == start; start++) {
            List<Integer> present = new ArrayList<>(List.of(start));
            List<Plan.DeltaStep> steps = new ArrayList<>();
            while (present.size() < n) {
                Plan.DeltaStep step = null;
                for (int j = 0; j < n && step == null; j++) {
                    if (!present.contains(j)) step = lookup(d, j, present, indexes);
                }
                if (step == null) break;
                steps.add(step);
                present.add(step.input());
                mine.add(step.index());
            }
            if (present.size() == n) paths.add(new Plan.DeltaPath(start, steps));
        }
        if (paths.size() < n) return apply(d.fallback(), indexes, used);
        used.addAll(mine);
        return new Plan.DeltaJoin(d.inputs(), d.filters(), d.equalities(), d.residual(), d.fallback(), paths);
    }

    /** A step that looks input {@code j} up by an index whose key columns all equal columns of {@code present} inputs, or null. */
    private static Plan.DeltaStep lookup(Plan.DeltaJoin d, int j, List<Integer> present, Collection<CatalogItem.Index> indexes) {
        // for each column of j, a joined column equal to it
        java.util.Map<Integer, Integer> equalTo = new java.util.HashMap<>();
        for (Plan.Equality e : d.equalities()) {
            if (e.left() == j && present.contains(e.right())) equalTo.putIfAbsent(e.leftColumn(), d.offset(e.right()) + e.rightColumn());
            if (e.right() == j && present.contains(e.left())) equalTo.putIfAbsent(e.rightColumn(), d.offset(e.left()) + e.leftColumn());
        }
        if (equalTo.isEmpty()) return null;
        for (CatalogItem.Index ix : indexes) {
            if (ix.on() != d.inputs().get(j).id()) continue;
            List<Integer> probe = new ArrayList<>();
            for (ScalarExpr k : ix.keys()) {
                if (!(k instanceof ScalarExpr.ColumnRef c) || c.type().kind() == SqlType.Kind.NUMERIC || !equalTo.containsKey(c.index())) {
                    probe = null;
                    break;
                }
                probe.add(equalTo.get(c.index()));
            }
            // the index must use every equality to j, or the lookup finds rows the join would not match
            if (probe != null && probe.size() == equalTo.size()) return new Plan.DeltaStep(j, ix.id(), ix.name(), probe);
        }
        return null;
    }

    private static Plan side(Plan input, List<Integer> key, Collection<CatalogItem.Index> indexes, Set<Long> used) {
        Plan.Get get = null;
        if (input instanceof Plan.Get g) {
            get = g;
        } else if (input instanceof Plan.Filter f && f.input() instanceof Plan.Get g && onlyKeysNotNull(f, key)) {
            get = g;
        }
        if (get == null || key.isEmpty()) return apply(input, indexes, used);
        for (CatalogItem.Index ix : indexes) {
            if (ix.on() != get.id() || ix.keys().size() != key.size()) continue;
            boolean match = true;
            for (int i = 0; i < key.size() && match; i++) {
                match = ix.keys().get(i) instanceof ScalarExpr.ColumnRef c && c.index() == key.get(i)
                        // NUMERIC keys are compared in key form by joins but stored as written by indexes
                        && c.type().kind() != SqlType.Kind.NUMERIC;
            }
            if (match) {
                used.add(ix.id());
                return new Plan.IndexedGet(ix.id(), ix.name(), get.id(), key, get.types());
            }
        }
        return apply(input, indexes, used);
    }

    private static boolean onlyKeysNotNull(Plan.Filter f, List<Integer> key) {
        for (ScalarExpr p : f.predicates()) {
            if (!(p instanceof ScalarExpr.IsNull n && n.negated() && n.arg() instanceof ScalarExpr.ColumnRef c && key.contains(c.index()))) return false;
        }
        return true;
    }
}
