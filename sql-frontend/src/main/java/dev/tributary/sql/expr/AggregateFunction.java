package dev.tributary.sql.expr;

import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * A resolved aggregate: the argument types the binder must coerce the arguments to, the result
 * type, and the aggregate of a whole group.
 *
 * <p>The group is a multiset: {@code argRows.get(i)} (the evaluated arguments, in
 * {@link #argTypes()} order; empty arrays for {@code count(*)}) occurs {@code multiplicities[i] > 0}
 * times. The caller has applied FILTER and DISTINCT and passes the rows in the order the
 * aggregate's ORDER BY asks (string_agg concatenates in that order). Evaluation is a pure
 * function of the group, so an incremental operator can recompute a changed group from scratch.
 */
public interface AggregateFunction {

    /** The aggregate's name, e.g. {@code sum}, for EXPLAIN. */
    String name();

    /** The types the arguments must be coerced to (implicitly) before evaluation. */
    List<SqlType> argTypes();

    SqlType resultType();

    /** The aggregate of the group; NULL (Java null) when PostgreSQL gives NULL (no non-NULL input, except count). */
    Object evaluate(List<Object[]> argRows, long[] multiplicities);

    /**
     * The aggregate as exact sums that rows add to and retractions subtract from (count, sum and
     * avg of exact types, bool_and, bool_or), or null when it is not one: its result then needs
     * the group's values (min, max, string_agg, sums of floating-point numbers, whose result
     * depends on the order of the additions). Without DISTINCT, its result over a group equals
     * {@link #evaluate}'s.
     */
    default Accumulation accumulation() {
        return null;
    }
}
