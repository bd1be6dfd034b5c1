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
 * can go: the other input has no NULL keys, so NULL keys find nothing either way.
 */
final class IndexSelection {
    private IndexSelection() {}

    static Plan apply(Plan plan, Collection<CatalogItem.Index> indexes, Set<Long> used) {
        return switch (plan) {
            case Plan.Join j -> new Plan.Join(side(j.left(), j.leftKey(), indexes, used), side(j.right(), j.rightKey(), indexes, used), j.leftKey(), j.rightKey());
            default -> Plans.withInputs(plan, in -> apply(in, indexes, used));
        };
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
