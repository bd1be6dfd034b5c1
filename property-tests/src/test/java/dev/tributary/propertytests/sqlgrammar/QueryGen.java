package dev.tributary.propertytests.sqlgrammar;

import dev.tributary.propertytests.sqlgrammar.Ast.Agg;
import dev.tributary.propertytests.sqlgrammar.Ast.And;
import dev.tributary.propertytests.sqlgrammar.Ast.Call;
import dev.tributary.propertytests.sqlgrammar.Ast.CaseWhen;
import dev.tributary.propertytests.sqlgrammar.Ast.Cmp;
import dev.tributary.propertytests.sqlgrammar.Ast.Col;
import dev.tributary.propertytests.sqlgrammar.Ast.Derived;
import dev.tributary.propertytests.sqlgrammar.Ast.Exists;
import dev.tributary.propertytests.sqlgrammar.Ast.Expr;
import dev.tributary.propertytests.sqlgrammar.Ast.From;
import dev.tributary.propertytests.sqlgrammar.Ast.InList;
import dev.tributary.propertytests.sqlgrammar.Ast.InQuery;
import dev.tributary.propertytests.sqlgrammar.Ast.IsNull;
import dev.tributary.propertytests.sqlgrammar.Ast.Item;
import dev.tributary.propertytests.sqlgrammar.Ast.Join;
import dev.tributary.propertytests.sqlgrammar.Ast.JoinKind;
import dev.tributary.propertytests.sqlgrammar.Ast.Lit;
import dev.tributary.propertytests.sqlgrammar.Ast.Not;
import dev.tributary.propertytests.sqlgrammar.Ast.Op;
import dev.tributary.propertytests.sqlgrammar.Ast.Or;
import dev.tributary.propertytests.sqlgrammar.Ast.Order;
import dev.tributary.propertytests.sqlgrammar.Ast.Query;
import dev.tributary.propertytests.sqlgrammar.Ast.Scalar;
import dev.tributary.propertytests.sqlgrammar.Ast.Select;
import dev.tributary.propertytests.sqlgrammar.Ast.SetKind;
import dev.tributary.propertytests.sqlgrammar.Ast.SetOp;
import dev.tributary.propertytests.sqlgrammar.Ast.TableRef;
import dev.tributary.propertytests.sqlgrammar.Ast.TopK;
import dev.tributary.propertytests.sqlgrammar.Schema.Column;
import dev.tributary.propertytests.sqlgrammar.Schema.Kind;
import dev.tributary.propertytests.sqlgrammar.Schema.Table;
import dev.tributary.propertytests.sqlgrammar.Schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The grammar of generated view queries: reads {@link Choices} and builds a well-typed {@link Ast}
 * query over a {@link Schema}.
 *
 * <p>What it covers: FROM one table or a subquery (any query of the grammar, top-k included,
 * not nesting), or a chain of inner, left, right and full joins of them (ON column
 * equalities of one kind, sometimes a second equality, and, but for FULL JOIN, which PostgreSQL
 * allows only on equalities, a non-equality); WHERE with comparisons, IS [NOT] NULL,
 * IS DISTINCT FROM, AND/OR/NOT, IN lists with NULLs, arithmetic, CASE, coalesce, abs, length,
 * lower, upper and {@code ||}; GROUP BY zero to two columns with count(*), count, count(DISTINCT),
 * sum, sum(DISTINCT), avg, min, max, bool_and, bool_or, string_agg (with ORDER BY, and DISTINCT),
 * FILTER (WHERE ...) and HAVING; DISTINCT; subqueries (scalar, EXISTS, NOT EXISTS, IN, NOT IN; correlated by an
 * equality or a comparison with the enclosing query or not; nested two deep; in WHERE and in the
 * select list); UNION, INTERSECT and EXCEPT, each with and without ALL, chained; and top-k
 * (ORDER BY every output column, LIMIT, OFFSET). Data errors are generated in select lists only
 * (division by zero, a bigint product that overflows, a scalar subquery of two rows), where
 * which rows are evaluated does not depend on the plan.
 *
 * <p>Type tracking: an expression is asked for a {@link Kind}; only types of one kind are
 * compared, joined, unioned or combined. Every alias is fresh ({@code x1, x2, ...}) and every
 * column is qualified, so correlation is by name only where the grammar means it.
 */
final class QueryGen {
    private final Choices c;
    private final Schema schema;
    private int aliases;
    /** False inside a subquery in FROM: they do not nest. */
    private boolean derivedAllowed = true;
    /** The constructs this query uses, for the run's statistics. */
    final Set<String> features = new TreeSet<>();

    private QueryGen(Schema schema, Choices c) {
        this.schema = schema;
        this.c = c;
    }

    /** The view query {@code choices} select in {@code schema}, with the constructs it uses. */
    static QueryGen.Generated view(Schema schema, List<Integer> choices) {
        QueryGen g = new QueryGen(schema, new Choices(choices));
        Query q = g.query();
        if (g.c.chance(20)) q = g.topK(q);
        return new Generated(q, g.features);
    }

    record Generated(Query query, Set<String> features) {}

    /** Where an expression is generated: the columns in scope, here and in enclosing queries. */
    private record Ctx(List<Col> local, List<Col> outer, int depth, boolean subqueries, boolean errors) {
        List<Col> visible() {
            List<Col> all = new ArrayList<>(local);
            all.addAll(outer);
            return all;
        }

        Ctx local(boolean errors) {
            return new Ctx(local, List.of(), depth, false, errors);
        }
    }

    private record Scoped(From from, List<Col> cols) {}

    // ------------------------------------------------------------------ queries

    private Query query() {
        Query q = select(null);
        if (!c.chance(18)) return q;
        features.add("set-operation");
        do {
            SetKind op = c.pick(List.of(SetKind.UNION, SetKind.INTERSECT, SetKind.EXCEPT));
            boolean all = c.chance(50);
            features.add(op + (all ? " ALL" : ""));
            List<Kind> kinds = q.types().stream().map(t -> t.kind).toList();
            q = new SetOp(op, all, q, select(kinds));
        } while (c.chance(20));
        return q;
    }

    private Query topK(Query q) {
        features.add("top-k");
        int n = q.types().size();
        List<Integer> left = new ArrayList<>();
        for (int i = 0; i < n; i++) left.add(i);
        List<Order> orders = new ArrayList<>();
        while (!left.isEmpty()) {
            int col = left.remove(c.below(left.size()));
            orders.add(new Order(col, c.chance(40), c.chance(30)));
        }
        int limit = 1 + c.below(4);
        int offset = c.chance(20) ? 1 + c.below(2) : 0;
        if (offset > 0) features.add("offset");
        return new TopK(q, orders, limit, offset);
    }

    /** A top-level SELECT, or one side of a set operation (then with items of {@code wanted} kinds). */
    private Select select(List<Kind> wanted) {
        Scoped f = from(2);
        Ctx x = new Ctx(f.cols(), List.of(), 0, true, false);
        Expr where = c.chance(55) ? predicate(x, 3) : null;
        if (where != null) features.add("where");
        if (c.chance(35)) return grouped(f, where, wanted, x);
        int n = wanted != null ? wanted.size() : 1 + c.below(4);
        List<Item> items = new ArrayList<>();
        Ctx itemCtx = new Ctx(f.cols(), List.of(), 0, true, true);
        for (int i = 0; i < n; i++) {
            Kind k = wanted != null ? wanted.get(i) : c.pick(f.cols()).type().kind;
            items.add(new Item(scalar(itemCtx, k, 2), "c" + i));
        }
        boolean distinct = c.chance(20);
        if (distinct) features.add("distinct");
        return new Select(distinct, items, f.from(), where, false, List.of(), null);
    }

    private Select grouped(Scoped f, Expr where, List<Kind> wanted, Ctx x) {
        List<Col> keys = new ArrayList<>();
        int nk = c.below(3);
        for (int i = 0; i < nk; i++) {
            Col k = c.pick(f.cols());
            if (!keys.contains(k)) keys.add(k);
        }
        features.add(keys.isEmpty() ? "global-aggregate" : "group-by");
        Ctx aggCtx = x.local(false);
        List<Expr> exprs = new ArrayList<>();
        if (wanted != null) {
            for (Kind k : wanted) {
                List<Col> ks = keys.stream().filter(col -> col.type().kind == k).toList();
                Expr e = !ks.isEmpty() && c.chance(50) ? c.pick(ks) : agg(aggCtx, k);
                exprs.add(e != null ? e : literal(k));
            }
        } else {
            for (Col k : keys) if (!c.chance(30)) exprs.add(k);
            int na = 1 + c.below(3);
            for (int i = 0; i < na; i++) {
                Expr e = agg(aggCtx, c.pick(List.of(Kind.NUM, Kind.TEXT, Kind.BOOL)));
                exprs.add(e != null ? e : agg(aggCtx, Kind.NUM));
            }
        }
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < exprs.size(); i++) items.add(new Item(exprs.get(i), "c" + i));
        Expr having = c.chance(30) ? having(aggCtx, 2) : null;
        if (having != null) features.add("having");
        boolean distinct = c.chance(15);
        if (distinct) features.add("distinct");
        return new Select(distinct, items, f.from(), where, true, List.copyOf(keys), having);
    }

    private Expr having(Ctx x, int depth) {
        int r = depth <= 0 ? c.below(2) : c.below(4);
        return switch (r) {
            case 0 -> new Cmp(comparison(), agg(x, Kind.NUM), literal(Kind.NUM));
            case 1 -> {
                Expr b = agg(x, Kind.BOOL);
                yield b != null ? b : new Cmp(comparison(), agg(x, Kind.NUM), literal(Kind.NUM));
            }
            case 2 -> new And(having(x, depth - 1), having(x, depth - 1));
            default -> new Or(having(x, depth - 1), having(x, depth - 1));
        };
    }

    /**
     * An aggregate of kind {@code k} over {@code x}'s columns, sometimes with a FILTER clause, or
     * null if there is none (text without a text column).
     */
    private Expr agg(Ctx x, Kind k) {
        Expr e = plainAgg(x, k);
        if (e instanceof Agg a && c.chance(12)) {
            features.add("agg FILTER");
            return new Agg(a.fn(), a.arg(), a.distinct(), predicate(x.local(false), 1), a.type());
        }
        return e;
    }

    private Expr plainAgg(Ctx x, Kind k) {
        List<Col> cols = ofKind(x.local(), k);
        switch (k) {
            case NUM -> {
                int r = c.below(9);
                if (r >= 3 && cols.isEmpty()) r = 0;
                Expr e;
                switch (r) {
                    case 0 -> e = new Agg("count", null, false, null, Type.BIGINT);
                    case 1, 2 -> {
                        Col any = c.pick(x.local());
                        e = new Agg("count", any, r == 2, null, Type.BIGINT);
                    }
                    case 3, 8 -> {
                        Expr a = aggArg(x, Kind.NUM);
                        Type t = switch (a.type()) {
                            case INT -> Type.BIGINT;
                            default -> Type.NUMERIC;
                        };
                        e = new Agg("sum", a, r == 8, null, t);
                    }
                    case 4 -> e = new Agg("avg", aggArg(x, Kind.NUM), false, null, Type.NUMERIC);
                    default -> {
                        Expr a = aggArg(x, Kind.NUM);
                        e = new Agg(r == 5 || r == 7 ? "min" : "max", a, false, null, a.type());
                    }
                }
                features.add("agg " + ((Agg) e).fn() + (((Agg) e).arg() == null ? "(*)" : ((Agg) e).distinct() ? "(DISTINCT)" : ""));
                return e;
            }
            case TEXT -> {
                if (cols.isEmpty()) return null;
                int r = c.below(4);
                Expr a = aggArg(x, Kind.TEXT);
                Agg e = switch (r) {
                    case 0 -> new Agg("min", a, false, null, Type.TEXT);
                    case 1 -> new Agg("max", a, false, null, Type.TEXT);
                    default -> new Agg("string_agg", a, r == 3, null, Type.TEXT);
                };
                features.add("agg " + e.fn() + (e.distinct() ? "(DISTINCT)" : ""));
                return e;
            }
            case BOOL -> {
                if (cols.isEmpty() || c.chance(25)) return new Cmp(comparison(), agg(x, Kind.NUM), literal(Kind.NUM));
                Agg e = new Agg(c.chance(50) ? "bool_or" : "bool_and", aggArg(x, Kind.BOOL), false, null, Type.BOOLEAN);
                features.add("agg " + e.fn());
                return e;
            }
        }
        throw new AssertionError(k);
    }

    /** An aggregate's argument: a column of kind {@code k} (which exists), or an expression over one. */
    private Expr aggArg(Ctx x, Kind k) {
        if (c.chance(75)) return c.pick(ofKind(x.local(), k));
        return scalar(x.local(false), k, 1);
    }

    // ------------------------------------------------------------------ FROM

    private Scoped from(int maxJoins) {
        From from;
        List<Col> cols;
        if (derivedAllowed && c.chance(15)) {
            // A subquery in FROM: any query of the grammar but one with a subquery in its FROM.
            derivedAllowed = false;
            Query q = query();
            if (c.chance(25)) q = topK(q);
            derivedAllowed = true;
            String alias = "x" + (++aliases);
            from = new Derived(q, alias);
            cols = new ArrayList<>();
            List<Type> types = q.types();
            for (int i = 0; i < types.size(); i++) cols.add(new Col(alias, new Column("c" + i, types.get(i))));
            features.add("subquery in FROM");
        } else {
            TableRef first = tableRef();
            from = first;
            cols = new ArrayList<>(cols(first));
        }
        int joins = c.chance(45) ? (c.chance(25) ? 2 : 1) : 0;
        for (int i = 0; i < Math.min(joins, maxJoins); i++) {
            JoinKind kind = c.pick(List.of(JoinKind.INNER, JoinKind.LEFT, JoinKind.RIGHT, JoinKind.FULL));
            TableRef right = tableRef();
            List<Col> rcols = cols(right);
            Expr on = joinCondition(cols, rcols, kind);
            features.add("join " + kind + (on instanceof Lit ? " ON TRUE" : ""));
            from = new Join(kind, from, right, on);
            cols.addAll(rcols);
        }
        return new Scoped(from, cols);
    }

    private TableRef tableRef() {
        Table t = c.pick(schema.tables());
        return new TableRef(t, "x" + (++aliases));
    }

    private static List<Col> cols(TableRef t) {
        return t.table().columns().stream().map(col -> new Col(t.alias(), col)).toList();
    }

    private Expr joinCondition(List<Col> left, List<Col> right, JoinKind kind) {
        List<Col[]> pairs = new ArrayList<>();
        for (Col l : left) for (Col r : right) if (l.type().kind == r.type().kind) pairs.add(new Col[] {l, r});
        if (pairs.isEmpty()) return new Lit(true, Type.BOOLEAN);
        Col[] p = c.pick(pairs);
        Expr on = new Cmp("=", p[0], p[1]);
        if (c.chance(20)) {
            Col[] q = c.pick(pairs);
            on = new And(on, new Cmp("=", q[0], q[1]));
        }
        // PostgreSQL runs FULL JOIN only on merge- or hash-joinable conditions: equalities alone.
        if (kind != JoinKind.FULL && c.chance(30)) {
            features.add("join non-equality");
            if (c.chance(50)) {
                Col[] q = c.pick(pairs);
                on = new And(on, new Cmp(c.pick(List.of("<", "<=", "<>", ">")), q[0], q[1]));
            } else {
                List<Col> both = new ArrayList<>(left);
                both.addAll(right);
                on = new And(on, predicate(new Ctx(both, List.of(), 0, false, false), 1));
            }
        }
        return on;
    }

    // ------------------------------------------------------------------ subqueries

    private enum SubMode { EXISTS, IN, SCALAR }

    /**
     * A subquery of {@code x}: its own FROM, correlated with {@code x}'s columns by an equality or
     * a comparison (often) and by its WHERE (sometimes), returning what {@code mode} needs: any
     * rows, one column of kind {@code k}, or one value of kind {@code k}. Null if it cannot (a
     * text value from tables without text).
     */
    private Query subquery(Ctx x, SubMode mode, Kind k) {
        Scoped f = from(x.depth() == 0 ? 1 : 0);
        List<Col> outer = x.visible();
        Ctx inner = new Ctx(f.cols(), outer, x.depth() + 1, x.depth() + 1 < 2, false);
        if (x.depth() + 1 >= 2) features.add("subquery nested two deep");
        Expr where = null;
        List<Col[]> pairs = new ArrayList<>();
        for (Col l : f.cols()) for (Col o : outer) if (l.type().kind == o.type().kind) pairs.add(new Col[] {l, o});
        if (!pairs.isEmpty() && c.chance(65)) {
            Col[] p = c.pick(pairs);
            String op = c.chance(80) ? "=" : c.pick(List.of("<", ">=", "<>"));
            where = new Cmp(op, p[0], p[1]);
            features.add("correlated " + mode + (op.equals("=") ? " by equality" : " by comparison"));
        } else {
            features.add("uncorrelated " + mode);
        }
        if (c.chance(40)) {
            Expr p = predicate(inner, 2);
            where = where == null ? p : new And(where, p);
        }
        Ctx items = inner.local(false);
        switch (mode) {
            case EXISTS -> {
                return new Select(false, List.of(new Item(new Lit(1L, Type.INT), "c0")), f.from(), where, false, List.of(), null);
            }
            case IN -> {
                Expr e = ofKind(f.cols(), k).isEmpty() ? literal(k) : scalar(items, k, 1);
                return new Select(false, List.of(new Item(e, "c0")), f.from(), where, false, List.of(), null);
            }
            case SCALAR -> {
                int r = c.below(20);
                if (r < 16 || ofKind(f.cols(), k).isEmpty()) {
                    Expr e = agg(items, k);
                    if (e == null) return null;
                    return new Select(false, List.of(new Item(e, "c0")), f.from(), where, true, List.of(), null);
                }
                Select one = new Select(false, List.of(new Item(scalar(items, k, 1), "c0")), f.from(), where, false, List.of(), null);
                if (r < 19 || !x.errors()) {
                    features.add("scalar subquery ORDER BY LIMIT 1");
                    return new TopK(one, List.of(new Order(0, c.chance(50), c.chance(50))), 1, 0);
                }
                features.add("scalar subquery of many rows (21000)");
                return one;
            }
        }
        throw new AssertionError(mode);
    }

    // ------------------------------------------------------------------ expressions

    private static List<Col> ofKind(List<Col> cols, Kind k) {
        return cols.stream().filter(col -> col.type().kind == k).toList();
    }

    private String comparison() {
        return c.pick(List.of("=", "<", "<>", "<=", ">", ">="));
    }

    /** A literal of kind {@code k} from the data's domain (NULL now and then, typed). */
    private Lit literal(Kind k) {
        Type t = switch (k) {
            case NUM -> c.chance(25) ? Type.NUMERIC : Type.INT;
            case TEXT -> Type.TEXT;
            case BOOL -> Type.BOOLEAN;
        };
        List<Object> d = Schema.domain(t);
        return new Lit(c.chance(8) ? null : d.get(c.below(d.size())), t);
    }

    /** An expression of kind {@code k} over {@code x}'s columns; {@code depth} bounds its nesting. */
    private Expr scalar(Ctx x, Kind k, int depth) {
        if (k == Kind.BOOL && depth > 0 && c.chance(40)) return predicate(x, depth - 1);
        List<Col> cols = ofKind(x.visible(), k);
        int r = depth <= 0 ? c.below(10) : c.below(20);
        if (r < 10) return r < 8 && !cols.isEmpty() ? c.pick(cols) : literal(k);
        switch (r) {
            case 10, 11, 12 -> {
                return switch (k) {
                    case NUM -> {
                        Expr l = scalar(x, k, depth - 1);
                        Expr rr = c.chance(50) ? literal(k) : scalar(x, k, depth - 1);
                        String op = c.pick(List.of("+", "-", "*"));
                        // A product of two columns can overflow: a data error, generated only where allowed.
                        if (op.equals("*") && !(rr instanceof Lit) && !x.errors()) op = "+";
                        if (op.equals("*") && !(rr instanceof Lit)) features.add("product (22003)");
                        yield new Op(op, l, rr, Ast.wider(l.type(), rr.type()));
                    }
                    case TEXT -> new Op("||", scalar(x, k, depth - 1), c.chance(50) ? literal(k) : scalar(x, k, depth - 1), Type.TEXT);
                    case BOOL -> predicate(x, depth - 1);
                };
            }
            case 13, 14 -> {
                return switch (k) {
                    case NUM -> {
                        List<Col> texts = ofKind(x.visible(), Kind.TEXT);
                        if (!texts.isEmpty() && c.chance(40)) yield new Call("length", List.of(scalar(x, Kind.TEXT, depth - 1)), Type.INT);
                        Expr a = scalar(x, k, depth - 1);
                        yield new Call("abs", List.of(a), a.type());
                    }
                    case TEXT -> new Call(c.chance(50) ? "lower" : "upper", List.of(scalar(x, k, depth - 1)), Type.TEXT);
                    case BOOL -> predicate(x, depth - 1);
                };
            }
            case 15 -> {
                Expr a = scalar(x, k, depth - 1);
                Lit b = literal(k);
                if (b.value() == null) b = new Lit(Schema.domain(b.type()).get(0), b.type());
                return new Call("coalesce", List.of(a, b), Ast.wider(a.type(), b.type()));
            }
            case 16 -> {
                features.add("case");
                Expr a = scalar(x, k, depth - 1);
                Expr b = scalar(x, k, depth - 1);
                return new CaseWhen(predicate(x, depth - 1), a, b, Ast.wider(a.type(), b.type()));
            }
            case 17 -> {
                if (k != Kind.NUM || !x.errors() || cols.isEmpty()) return cols.isEmpty() ? literal(k) : c.pick(cols);
                features.add("division (22012)");
                Expr a = scalar(x, k, depth - 1);
                Col b = c.pick(cols);
                return new Op(c.chance(70) ? "/" : "%", a, b, Ast.wider(a.type(), b.type()));
            }
            default -> {
                if (!x.subqueries()) return cols.isEmpty() ? literal(k) : c.pick(cols);
                Query q = subquery(x, SubMode.SCALAR, k);
                if (q == null) return cols.isEmpty() ? literal(k) : c.pick(cols);
                features.add("scalar subquery");
                return new Scalar(q);
            }
        }
    }

    /** A boolean expression over {@code x}'s columns. */
    private Expr predicate(Ctx x, int depth) {
        List<Col> cols = x.visible();
        int r = depth <= 0 ? c.below(10) : c.below(20);
        switch (r) {
            case 0, 1, 2, 3, 4, 5 -> {
                Kind k = c.pick(cols).type().kind;
                if (k == Kind.BOOL && c.chance(40)) return c.pick(ofKind(cols, Kind.BOOL));
                Expr l = scalar(x, k, depth - 1);
                Expr rr = c.chance(50) ? literal(k) : scalar(x, k, depth - 1);
                return new Cmp(comparison(), l, rr);
            }
            case 6, 7 -> {
                Kind k = c.pick(cols).type().kind;
                return new IsNull(scalar(x, k, depth - 1), c.chance(50));
            }
            case 8, 9 -> {
                Kind k = c.pick(cols).type().kind;
                Expr e = scalar(x, k, depth - 1);
                List<Lit> items = new ArrayList<>();
                int n = 1 + c.below(3);
                for (int i = 0; i < n; i++) items.add(literal(k));
                boolean not = c.chance(40);
                features.add(not ? "NOT IN list" : "IN list");
                return new InList(e, items, not);
            }
            case 10, 11 -> {
                return new And(predicate(x, depth - 1), predicate(x, depth - 1));
            }
            case 12, 13 -> {
                return new Or(predicate(x, depth - 1), predicate(x, depth - 1));
            }
            case 14 -> {
                return new Not(predicate(x, depth - 1));
            }
            case 15 -> {
                Kind k = c.pick(cols).type().kind;
                return new Cmp(c.chance(50) ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM", scalar(x, k, depth - 1), scalar(x, k, depth - 1));
            }
            default -> {
                if (!x.subqueries()) return predicate(x, 0);
                int m = c.below(5);
                switch (m) {
                    case 0, 1 -> {
                        boolean not = m == 1;
                        features.add(not ? "NOT EXISTS" : "EXISTS");
                        return new Exists(subquery(x, SubMode.EXISTS, null), not);
                    }
                    case 2, 3 -> {
                        boolean not = m == 3;
                        Kind k = c.pick(cols).type().kind;
                        features.add(not ? "NOT IN subquery" : "IN subquery");
                        Expr e = scalar(x.local(false), k, 0);
                        return new InQuery(e, subquery(x, SubMode.IN, k), not);
                    }
                    default -> {
                        Kind k = c.pick(cols).type().kind;
                        Query q = subquery(x, SubMode.SCALAR, k);
                        if (q == null) return predicate(x, 0);
                        features.add("scalar subquery");
                        return new Cmp(comparison(), scalar(x.local(false), k, 0), new Scalar(q));
                    }
                }
            }
        }
    }
}
