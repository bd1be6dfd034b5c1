package dev.tributary.sql.ast;

import java.util.List;

/**
 * A full query: WITH, a body, ORDER BY, LIMIT and OFFSET.
 *
 * <p>{@code limit} is null for no limit and for {@code LIMIT ALL}; {@code FETCH FIRST n ROWS
 * ONLY} is read as {@code LIMIT n}. A parenthesised query inside a set operation is a
 * {@code Query} used as a body; parentheses around a bare body are dropped. {@code limitBy}
 * (ClickHouse's {@code LIMIT n [OFFSET m] BY expr, ...}, null when absent) keeps the first
 * {@code n} rows of each group of equal {@code by} values, in ORDER BY's order, before
 * {@code limit} and {@code offset} apply to the whole.
 */
public record Query(int pos, List<Cte> with, QueryBody body, List<OrderItem> orderBy, Expr limit, Expr offset, boolean emitOnWindowClose, LimitBy limitBy)
        implements QueryBody {
    public Query {
        with = List.copyOf(with);
        orderBy = List.copyOf(orderBy);
    }

    /** {@code LIMIT limit [OFFSET offset] BY by}: the first rows of each group of {@code by}'s values. */
    public record LimitBy(int pos, Expr limit, Expr offset, List<Expr> by) implements Node {
        public LimitBy {
            by = List.copyOf(by);
        }
    }

    /** A query without {@code LIMIT ... BY}. */
    public Query(int pos, List<Cte> with, QueryBody body, List<OrderItem> orderBy, Expr limit, Expr offset, boolean emitOnWindowClose) {
        this(pos, with, body, orderBy, limit, offset, emitOnWindowClose, null);
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
        return with.isEmpty() && orderBy.isEmpty() && limit == null && offset == null && !emitOnWindowClose && limitBy == null;
    }
}
