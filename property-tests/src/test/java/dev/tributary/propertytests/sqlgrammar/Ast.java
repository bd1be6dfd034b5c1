package dev.tributary.propertytests.sqlgrammar;

import dev.tributary.propertytests.sqlgrammar.Schema.Column;
import dev.tributary.propertytests.sqlgrammar.Schema.Table;
import dev.tributary.propertytests.sqlgrammar.Schema.Type;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The generated queries: values that render themselves as PostgreSQL text.
 *
 * <p>Every expression knows its type, so the {@link QueryGen generator} builds only type-correct
 * queries. Every column reference is qualified by a table alias unique in its whole query
 * ({@code x1}, {@code x2}, ...), so a reference means the same thing wherever a subquery puts it
 * and correlation is explicit: a subquery naming an alias of an enclosing query is correlated.
 * Operators are parenthesised, so rendering needs no precedence rules.
 */
final class Ast {
    private Ast() {}

    // ------------------------------------------------------------------ queries

    sealed interface Query permits Select, SetOp, TopK {
        String sql();

        /** The output columns' types, in order. */
        List<Type> types();

        /** The tables the query reads, for pruning a repro script. */
        void tables(Set<String> out);

        default Set<String> tables() {
            Set<String> out = new TreeSet<>();
            tables(out);
            return out;
        }
    }

    /** An output column: an expression and its name {@code c0, c1, ...}. */
    record Item(Expr expr, String alias) {
        String sql() {
            return expr.sql() + " AS " + alias;
        }
    }

    /**
     * {@code SELECT [DISTINCT] items FROM from [WHERE where] [GROUP BY groupBy] [HAVING having]};
     * {@code groupBy} empty and {@code grouped} true is a global aggregate.
     */
    record Select(boolean distinct, List<Item> items, From from, Expr where, boolean grouped, List<Expr> groupBy, Expr having)
            implements Query {
        @Override
        public String sql() {
            StringBuilder b = new StringBuilder("SELECT ");
            if (distinct) b.append("DISTINCT ");
            b.append(items.stream().map(Item::sql).collect(Collectors.joining(", ")));
            b.append(" FROM ").append(from.sql());
            if (where != null) b.append(" WHERE ").append(where.sql());
            if (!groupBy.isEmpty()) b.append(" GROUP BY ").append(groupBy.stream().map(Expr::sql).collect(Collectors.joining(", ")));
            if (having != null) b.append(" HAVING ").append(having.sql());
            return b.toString();
        }

        @Override
        public List<Type> types() {
            return items.stream().map(i -> i.expr().type()).toList();
        }

        @Override
        public void tables(Set<String> out) {
            from.tables(out);
            for (Item i : items) i.expr().tables(out);
            if (where != null) where.tables(out);
            if (having != null) having.tables(out);
        }
    }

    enum SetKind { UNION, INTERSECT, EXCEPT }

    /** {@code (left) op [ALL] (right)}; the right side's types have the left side's kinds. */
    record SetOp(SetKind op, boolean all, Query left, Query right) implements Query {
        @Override
        public String sql() {
            return "(" + left.sql() + ") " + op + (all ? " ALL " : " ") + "(" + right.sql() + ")";
        }

        @Override
        public List<Type> types() {
            List<Type> l = left.types();
            List<Type> r = right.types();
            return java.util.stream.IntStream.range(0, l.size()).mapToObj(i -> wider(l.get(i), r.get(i))).toList();
        }

        @Override
        public void tables(Set<String> out) {
            left.tables(out);
            right.tables(out);
        }
    }

    record Order(int column, boolean desc, boolean nullsFirst) {
        String sql() {
            return "c" + column + (desc ? " DESC" : "") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
        }
    }

    /**
     * {@code query ORDER BY ... LIMIT limit [OFFSET offset]}, ordered by every output column, so
     * that which rows are kept does not depend on how ties are broken.
     */
    record TopK(Query query, List<Order> orders, int limit, int offset) implements Query {
        @Override
        public String sql() {
            return query.sql() + " ORDER BY " + orders.stream().map(Order::sql).collect(Collectors.joining(", "))
                    + " LIMIT " + limit + (offset > 0 ? " OFFSET " + offset : "");
        }

        @Override
        public List<Type> types() {
            return query.types();
        }

        @Override
        public void tables(Set<String> out) {
            query.tables(out);
        }
    }

    // ------------------------------------------------------------------ FROM

    sealed interface From permits TableRef, Derived, Join {
        String sql();

        void tables(Set<String> out);
    }

    record TableRef(Table table, String alias) implements From {
        @Override
        public String sql() {
            return table.name() + " " + alias;
        }

        @Override
        public void tables(Set<String> out) {
            out.add(table.name());
        }
    }

    /** {@code (query) alias}: a subquery in FROM, its columns {@code alias.c0, alias.c1, ...}. */
    record Derived(Query query, String alias) implements From {
        @Override
        public String sql() {
            return "(" + query.sql() + ") " + alias;
        }

        @Override
        public void tables(Set<String> out) {
            query.tables(out);
        }
    }

    enum JoinKind {
        INNER("JOIN"), LEFT("LEFT JOIN"), RIGHT("RIGHT JOIN"), FULL("FULL JOIN");

        final String sql;

        JoinKind(String sql) {
            this.sql = sql;
        }
    }

    record Join(JoinKind kind, From left, From right, Expr on) implements From {
        @Override
        public String sql() {
            return left.sql() + " " + kind.sql + " " + right.sql() + " ON " + on.sql();
        }

        @Override
        public void tables(Set<String> out) {
            left.tables(out);
            right.tables(out);
        }
    }

    // ------------------------------------------------------------------ expressions

    sealed interface Expr permits Col, Lit, Op, Call, Cmp, IsNull, And, Or, Not, InList, CaseWhen, Agg, Scalar, Exists, InQuery {
        String sql();

        Type type();

        default void tables(Set<String> out) {}
    }

    /** {@code alias.column}. */
    record Col(String alias, Column column) implements Expr {
        @Override
        public String sql() {
            return alias + "." + column.name();
        }

        @Override
        public Type type() {
            return column.type();
        }
    }

    /** A literal of {@code type}; a NULL literal is cast to its type. */
    record Lit(Object value, Type type) implements Expr {
        @Override
        public String sql() {
            return value == null ? "CAST(NULL AS " + type.sql + ")" : Schema.literal(value);
        }
    }

    /** {@code (left op right)}: arithmetic ({@code + - * / %}) or text concatenation ({@code ||}). */
    record Op(String op, Expr left, Expr right, Type type) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(left) + " " + op + " " + right.sql() + ")";
        }

        @Override
        public void tables(Set<String> out) {
            left.tables(out);
            right.tables(out);
        }
    }

    /** {@code fn(args)}. */
    record Call(String fn, List<Expr> args, Type type) implements Expr {
        @Override
        public String sql() {
            return fn + args.stream().map(Expr::sql).collect(Collectors.joining(", ", "(", ")"));
        }

        @Override
        public void tables(Set<String> out) {
            for (Expr a : args) a.tables(out);
        }
    }

    /** {@code (left op right)} for a comparison {@code op}, or {@code IS [NOT] DISTINCT FROM}. */
    record Cmp(String op, Expr left, Expr right) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(left) + " " + op + " " + right.sql() + ")";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            left.tables(out);
            right.tables(out);
        }
    }

    record IsNull(Expr expr, boolean not) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(expr) + (not ? " IS NOT NULL)" : " IS NULL)");
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            expr.tables(out);
        }
    }

    record And(Expr left, Expr right) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(left) + " AND " + right.sql() + ")";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            left.tables(out);
            right.tables(out);
        }
    }

    record Or(Expr left, Expr right) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(left) + " OR " + right.sql() + ")";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            left.tables(out);
            right.tables(out);
        }
    }

    record Not(Expr expr) implements Expr {
        @Override
        public String sql() {
            return "(NOT " + expr.sql() + ")";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            expr.tables(out);
        }
    }

    /** {@code (expr [NOT] IN (items))}; items are literals, NULL among them. */
    record InList(Expr expr, List<Lit> items, boolean not) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(expr) + (not ? " NOT IN " : " IN ")
                    + items.stream().map(l -> l.value() == null ? "NULL" : l.sql()).collect(Collectors.joining(", ", "(", ")")) + ")";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            expr.tables(out);
        }
    }

    /** {@code CASE WHEN when THEN then ELSE otherwise END}. */
    record CaseWhen(Expr when, Expr then, Expr otherwise, Type type) implements Expr {
        @Override
        public String sql() {
            return "CASE WHEN " + when.sql() + " THEN " + then.sql() + " ELSE " + otherwise.sql() + " END";
        }

        @Override
        public void tables(Set<String> out) {
            when.tables(out);
            then.tables(out);
            otherwise.tables(out);
        }
    }

    /**
     * An aggregate: {@code count(*)} when {@code arg} is null; {@code string_agg([DISTINCT] arg,
     * ',' ORDER BY arg)} for string_agg, ordered by its argument so its answer is deterministic;
     * {@code FILTER (WHERE filter)} unless {@code filter} is null.
     */
    record Agg(String fn, Expr arg, boolean distinct, Expr filter, Type type) implements Expr {
        @Override
        public String sql() {
            String f = filter == null ? "" : " FILTER (WHERE " + filter.sql() + ")";
            if (arg == null) return fn + "(*)" + f;
            String d = distinct ? "DISTINCT " : "";
            if (fn.equals("string_agg")) return "string_agg(" + d + arg.sql() + ", ',' ORDER BY " + arg.sql() + ")" + f;
            return fn + "(" + d + arg.sql() + ")" + f;
        }

        @Override
        public void tables(Set<String> out) {
            if (arg != null) arg.tables(out);
        }
    }

    /** A scalar subquery: one column, at most one row (or 21000). */
    record Scalar(Query query) implements Expr {
        @Override
        public String sql() {
            return "(" + query.sql() + ")";
        }

        @Override
        public Type type() {
            return query.types().get(0);
        }

        @Override
        public void tables(Set<String> out) {
            query.tables(out);
        }
    }

    record Exists(Query query, boolean not) implements Expr {
        @Override
        public String sql() {
            return "(" + (not ? "NOT " : "") + "EXISTS (" + query.sql() + "))";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            query.tables(out);
        }
    }

    record InQuery(Expr expr, Query query, boolean not) implements Expr {
        @Override
        public String sql() {
            return "(" + lead(expr) + (not ? " NOT IN (" : " IN (") + query.sql() + "))";
        }

        @Override
        public Type type() {
            return Type.BOOLEAN;
        }

        @Override
        public void tables(Set<String> out) {
            expr.tables(out);
            query.tables(out);
        }
    }

    /**
     * An operand that opens a parenthesised expression, written as it is: a scalar subquery there
     * once made the parser fail ({@code SELECT (((SELECT 1) + 1) = 2)} was 42601), which this
     * generator found.
     */
    static String lead(Expr e) {
        return e.sql();
    }

    /** The type PostgreSQL resolves two types of one kind to (for arithmetic, CASE and set operations). */
    static Type wider(Type a, Type b) {
        if (a == b) return a;
        if (a == Type.NUMERIC || b == Type.NUMERIC) return Type.NUMERIC;
        if (a == Type.BIGINT || b == Type.BIGINT) return Type.BIGINT;
        return a;
    }
}
