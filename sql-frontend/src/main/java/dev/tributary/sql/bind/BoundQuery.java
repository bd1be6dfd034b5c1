package dev.tributary.sql.bind;

import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * A bound query: the plan, the names and types of its visible columns, and how a one-off answer
 * is presented. The plan may carry extra columns after the visible ones, used only by
 * {@code order} (ORDER BY an expression that is not selected); a maintained view ignores the
 * order (it is a set), a one-off SELECT sorts by it.
 */
public record BoundQuery(Plan plan, List<String> names, List<SqlType> types, List<Plan.SortKey> order) {
    public BoundQuery {
        names = List.copyOf(names);
        types = List.copyOf(types);
        order = List.copyOf(order);
    }

    public int visible() {
        return names.size();
    }
}
