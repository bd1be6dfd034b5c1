package dev.tributary.sql.ast;

import java.util.List;

/** The part of a query that produces rows: a SELECT, VALUES, a set operation or a nested query. */
public sealed interface QueryBody extends Node permits QueryBody.Select, QueryBody.SetOperation, QueryBody.Values, Query {

    /**
     * {@code SELECT [DISTINCT [ON (distinctOn)]] items FROM from WHERE where GROUP BY groupBy HAVING having
     * WINDOW windows}.
     * {@code distinctOn} is empty for plain DISTINCT; {@code from} is empty without FROM.
     */
    record Select(int pos, boolean distinct, List<Expr> distinctOn, List<SelectItem> items, List<TableRef> from,
                  Expr where, List<Expr> groupBy, Expr having, List<WindowSpec.Named> windows) implements QueryBody {
        public Select {
            distinctOn = List.copyOf(distinctOn);
            items = List.copyOf(items);
            from = List.copyOf(from);
            groupBy = List.copyOf(groupBy);
            windows = List.copyOf(windows);
        }

        /** A SELECT without a WINDOW clause. */
        public Select(int pos, boolean distinct, List<Expr> distinctOn, List<SelectItem> items, List<TableRef> from,
                      Expr where, List<Expr> groupBy, Expr having) {
            this(pos, distinct, distinctOn, items, from, where, groupBy, having, List.of());
        }
    }

    enum SetOp { UNION, INTERSECT, EXCEPT }

    /** {@code left op [ALL] right}; {@code all} false means DISTINCT, the default. */
    record SetOperation(int pos, SetOp op, boolean all, QueryBody left, QueryBody right) implements QueryBody {}

    /** {@code VALUES (..), (..)}; in INSERT a row may hold {@link Expr.DefaultValue}. */
    record Values(int pos, List<List<Expr>> rows) implements QueryBody {
        public Values {
            rows = rows.stream().map(List::copyOf).toList();
        }
    }
}
