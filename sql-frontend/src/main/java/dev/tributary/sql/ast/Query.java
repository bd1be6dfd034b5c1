package dev.tributary.sql.ast;

import java.util.List;

/**
 * A full query: WITH, a body, ORDER BY, LIMIT and OFFSET.
 *
 * <p>{@code limit} is null for no limit and for {@code LIMIT ALL}; {@code FETCH FIRST n ROWS
 * ONLY} is read as {@code LIMIT n}. A parenthesised query inside a set operation is a
 * {@code Query} used as a body; parentheses around a bare body are dropped.
 */
public record Query(int pos, List<Cte> with, QueryBody body, List<OrderItem> orderBy, Expr limit, Expr offset, boolean emitOnWindowClose)
        implements QueryBody {
    public Query {
        with = List.copyOf(with);
        orderBy = List.copyOf(orderBy);
    }

    /** A query without {@code EMIT ON WINDOW CLOSE}. */
    public Query(int pos, List<Cte> with, QueryBody body, List<OrderItem> orderBy, Expr limit, Expr offset) {
        this(pos, with, body, orderBy, limit, offset, false);
    }

    /** A query that is just {@code body}. */
    public static Query of(QueryBody body) {
        return new Query(body.pos(), List.of(), body, List.of(), null, null);
    }

    /** Whether this query adds nothing to its body. */
    public boolean isBare() {
        return with.isEmpty() && orderBy.isEmpty() && limit == null && offset == null && !emitOnWindowClose;
    }
}
