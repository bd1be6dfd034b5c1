package dev.tributary.sql.plan;

import dev.tributary.sql.expr.AggregateFunction;
import java.util.List;

/**
 * One aggregate of a {@link Plan.Reduce}: the function, the input columns it reads, whether it
 * sees each distinct argument tuple once, the boolean input column of its {@code FILTER}
 * ({@code -1} for none), and the order in which it sees its rows ({@code ORDER BY} inside the
 * call; empty when order does not matter). Arguments are columns, not expressions: the binder
 * computes them with a {@link Plan.Map} below the reduce.
 */
public record AggregateCall(AggregateFunction function, String name, List<Integer> args, boolean distinct, int filter, List<Plan.SortKey> orderBy) {
    public AggregateCall {
        args = List.copyOf(args);
        orderBy = List.copyOf(orderBy);
    }
}
