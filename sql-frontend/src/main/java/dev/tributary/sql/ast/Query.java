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
public record Query(int pos, Recursion recursion, List<Cte> with, QueryBody body, List<OrderItem> orderBy, Expr limit, Expr offset, boolean emitOnWindowClose,
        LimitBy limitBy) implements QueryBody {
    public Query {
        with = List.copyOf(with);
        orderBy = List.copyOf(orderBy);
        if (recursion == null) recursion = Recursion.NONE;
    }

    /**
     * How the WITH clause's bindings may refer to themselves: not at all (a plain WITH);
     * {@code WITH RECURSIVE} (PostgreSQL's: a binding may be {@code non-recursive UNION [ALL]
     * recursive} reading itself once in its recursive term); or {@code WITH MUTUALLY RECURSIVE}
     * (Materialize's: each binding, with declared column types, may read any of them, and all are
     * recomputed together until none changes). {@code limit} caps the rounds of a mutually
     * recursive WITH ({@code [RETURN | ERROR] AT RECURSION LIMIT n}); 0 when not given, and then
     * the session's {@code max_recursion_iterations} applies.
     */
    public record Recursion(Kind kind, long limit, boolean errorAtLimit) {
        public static final Recursion NONE = new Recursion(Kind.NONE, 0, true);
        public static final Recursion RECURSIVE = new Recursion(Kind.RECURSIVE, 0, true);

        public enum Kind { NONE, RECURSIVE, MUTUALLY_RECURSIVE }
    }

    /** A query whose WITH clause, if any, is not recursive. */
    public Query(int pos, List<Cte> with, QueryBody body, List<OrderItem> orderBy, Expr limit, Expr offset, boolean emitOnWindowClose, LimitBy limitBy) {
        this(pos, Recursion.NONE, with, body, orderBy, limit, offset, emitOnWindowClose, limitBy);
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
        return with.isEmpty() && recursion.kind() == Recursion.Kind.NONE && orderBy.isEmpty() && limit == null && offset == null && !emitOnWindowClose && limitBy == null;
    }
}
