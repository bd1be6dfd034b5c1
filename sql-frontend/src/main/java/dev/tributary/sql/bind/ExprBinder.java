package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.BinaryOp;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.expr.AggregateFunction;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.AggregateCall;
import dev.tributary.sql.plan.Plan;
import java.util.BitSet;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Binds one parsed expression to a typed {@link ScalarExpr} over a scope's columns. An
 * {@code intercept} (used above GROUP BY) may claim any sub-expression first, turning group keys
 * and aggregates into columns of the grouped relation.
 */
final class ExprBinder {
    private final Binder binder;
    private final Binder.Scope scope;
    private final Function<Expr, ScalarExpr> intercept;
    private final Binder.Rel rel;

    ExprBinder(Binder binder, Binder.Scope scope, Function<Expr, ScalarExpr> intercept, Binder.Rel rel) {
        this.binder = binder;
        this.scope = scope;
        this.intercept = intercept;
        this.rel = rel;
    }

    ScalarExpr bind(Expr e) {
        if (intercept != null) {
            ScalarExpr claimed = intercept.apply(e);
            if (claimed != null) return claimed;
        }
        ScalarExpr bound = resolve(e);
        binder.noteParameters(bound);
        return bound;
    }

    private ScalarExpr resolve(Expr e) {
        return switch (e) {
            case Expr.NullLiteral n -> Sx.literal(null, SqlType.UNKNOWN);
            case Expr.BooleanLiteral b -> Sx.literal(b.value(), SqlType.BOOLEAN);
            case Expr.IntegerLiteral i -> i.value() >= Integer.MIN_VALUE && i.value() <= Integer.MAX_VALUE
                    ? Sx.literal(i.value(), SqlType.INTEGER)
                    : Sx.literal(i.value(), SqlType.BIGINT);
            case Expr.NumericLiteral n -> Sx.literal(n.value(), SqlType.NUMERIC);
            case Expr.StringLiteral s -> Sx.literal(s.value(), SqlType.UNKNOWN);
            case Expr.TypedLiteral t -> Sx.typedLiteral(t.type(), t.text(), t.qualifier(), t.pos());
            case Expr.Param p -> binder.parameter(p);
            case Expr.DefaultValue d -> throw new SqlException("42601", "DEFAULT is not allowed in this context", d.pos());
            case Expr.ColumnRef c -> {
                Binder.Resolved r = scope.resolve(c);
                yield Sx.column(r.index(), r.field().type());
            }
            case Expr.Star s -> throw new SqlException("42601", "\"*\" is not allowed here", s.pos());
            case Expr.QualifiedStar s -> throw new SqlException("42601", "\"" + String.join(".", s.qualifier()) + ".*\" is not allowed here", s.pos());
            case Expr.Unary u -> Sx.unary(u.op(), bind(u.operand()), u.pos());
            case Expr.Binary b -> binary(b);
            // ARRAY[]::t[]: the cast gives the empty array its type, as in PostgreSQL
            case Expr.Cast c when c.operand() instanceof Expr.ArrayConstructor a && a.elements().isEmpty() && c.type().isArray() ->
                    dev.tributary.sql.expr.ArrayExprs.empty(c.type());
            case Expr.Cast c -> Sx.cast(bind(c.operand()), c.type(), c.pos());
            case Expr.Between b -> between(b);
            case Expr.Like l -> Sx.like(bind(l.expr()), bind(l.pattern()), l.escape() == null ? null : bind(l.escape()), l.negated(), l.caseInsensitive(), l.pos());
            case Expr.IsNull i -> Sx.isNull(bind(i.expr()), i.negated());
            case Expr.IsTruth i -> Sx.isTruth(Sx.coerce(bind(i.expr()), SqlType.BOOLEAN, i.pos(), "argument of IS " + i.value()), i.value(), i.negated());
            case Expr.IsDistinctFrom d -> Sx.isDistinctFrom(bind(d.left()), bind(d.right()), d.negated(), d.pos());
            case Expr.InList i when i.expr() instanceof Expr.RowConstructor l && i.list().stream().allMatch(x -> x instanceof Expr.RowConstructor) -> {
                // (a, b) IN ((1, 2), ...): row constructors compared as such, NULL rules and all
                List<ScalarExpr> cmps = new ArrayList<>();
                for (Expr x : i.list()) {
                    cmps.add(dev.tributary.sql.expr.RecordExprs.compareRows(i.negated() ? dev.tributary.sql.expr.BinaryOp.NE : dev.tributary.sql.expr.BinaryOp.EQ,
                            bindAll(l.fields()), bindAll(((Expr.RowConstructor) x).fields()), i.pos()));
                }
                yield i.negated() ? Sx.and(cmps) : Sx.or(cmps);
            }
            case Expr.InList i -> {
                List<ScalarExpr> list = new ArrayList<>();
                for (Expr x : i.list()) list.add(bind(x));
                yield Sx.inList(bind(i.expr()), list, i.negated(), i.pos());
            }
            case Expr.InSubquery i -> {
                ScalarExpr any = subquery(Kind.ANY, i.query(), bind(i.expr()), BinaryOp.EQ, i.pos());
                yield i.negated() ? Sx.not(any) : any;
            }
            case Expr.Quantified q -> subquery(q.quantifier() == Expr.Quantifier.ALL ? Kind.ALL : Kind.ANY, q.query(), bind(q.left()), q.op(), q.pos());
            case Expr.Exists x -> subquery(Kind.EXISTS, x.query(), null, null, x.pos());
            case Expr.ScalarSubquery s -> subquery(Kind.SCALAR, s.query(), null, null, s.pos());
            case Expr.FunctionCall f -> call(f);
            case Expr.Extract x -> Sx.call("extract", List.of(Sx.literal(x.field(), SqlType.TEXT), bind(x.source())), x.pos());
            case Expr.CurrentValue c -> Sx.current(c.kind(), c.pos());
            case Expr.Case k -> caseExpr(k);
            case Expr.QuantifiedArray q -> dev.tributary.sql.expr.ArrayExprs.quantified(Sx.comparison(q.op(), q.pos()), bind(q.left()),
                    bind(q.array()), q.quantifier() == Expr.Quantifier.ALL, q.pos());
            case Expr.ArrayConstructor a -> {
                List<ScalarExpr> elements = new ArrayList<>();
                for (Expr x : a.elements()) elements.add(bind(x));
                yield dev.tributary.sql.expr.ArrayExprs.construct(elements, a.pos());
            }
            case Expr.RowConstructor r -> dev.tributary.sql.expr.RecordExprs.row(bindAll(r.fields()), r.pos());
            case Expr.Subscript x -> {
                boolean slice = x.isSlice();
                List<ScalarExpr> lowers = new ArrayList<>(), uppers = new ArrayList<>();
                for (Expr.Subscript.Index i : x.indexes()) {
                    // among slices a plain index [i] is [1:i], as PostgreSQL reads it
                    lowers.add(i.lower() != null ? bind(i.lower()) : slice && !i.slice() ? new ScalarExpr.Literal(1L, SqlType.INTEGER) : null);
                    uppers.add(i.upper() == null ? null : bind(i.upper()));
                }
                yield dev.tributary.sql.expr.ArrayExprs.subscript(bind(x.array()), lowers, uppers, slice, x.pos());
            }
            case Expr.ArraySubquery a -> arraySubquery(a);
            case Expr.FieldSelection f -> dev.tributary.sql.expr.RecordExprs.field(bind(f.expr()), f.field(), f.pos());
            case Expr.WindowCall w -> throw new SqlException("42P20", "window functions are not allowed here", w.pos(),
                    "Window functions may appear in the select list and ORDER BY of a query without GROUP BY.");
        };
    }

    private List<ScalarExpr> bindAll(List<Expr> exprs) {
        List<ScalarExpr> out = new ArrayList<>(exprs.size());
        for (Expr x : exprs) out.add(bind(x));
        return out;
    }

    private enum Kind { SCALAR, EXISTS, ANY, ALL }

    /**
     * The qualifier of the column a quantified subquery's left-hand value is inside the subquery
     * ({@code lhs}): no SQL can name it (a name holds no NUL), but the binder's own rewrite of an
     * {@code IN} into a semi-join can ({@link Binder}). One per subquery (by its position), so
     * that an IN inside another's subquery names its own.
     */
    static String inLhsQualifier(int pos) {
        return "\0in" + pos;
    }

    /**
     * A subquery as a value of each row of {@code rel}: the subquery is planned per distinct value
     * D of the outer columns it reads (and of {@code lhs}), reduced to one row per D, and
     * left-joined to {@code rel} on D; the value is then an expression over the joined columns.
     * Correlated or not, it is a join, so it is maintained incrementally like any other.
     */
    private ScalarExpr subquery(Kind kind, dev.tributary.sql.ast.Query q, ScalarExpr lhs, BinaryOp cmp, int pos) {
        binder.subqueryDepth++;
        try {
            return unnestedSubquery(kind, q, lhs, cmp, pos);
        } finally {
            binder.subqueryDepth--;
        }
    }

    private ScalarExpr unnestedSubquery(Kind kind, dev.tributary.sql.ast.Query q, ScalarExpr lhs, BinaryOp cmp, int pos) {
        if (rel == null) throw new SqlException("0A000", "subqueries are not supported in this part of a statement yet", pos);
        List<Field> outer = new ArrayList<>();
        List<Integer> columns = new ArrayList<>();
        scope.all(outer, columns);
        int lhsField = -1;
        if (lhs != null) {
            int col = rel.plan.arity();
            rel.plan = new Plan.Map(rel.plan, List.of(lhs));
            lhsField = outer.size();
            outer.add(new Field(inLhsQualifier(pos), "lhs", lhs.type(), true));
            columns.add(col);
        }
        // first pass: which outer columns does it read?
        Binder.Correlation probe = new Binder.Correlation(outer, null);
        binder.correlated(q, probe);
        BitSet used = probe.used;
        for (int i = used.nextSetBit(0); i >= 0; i = used.nextSetBit(i + 1)) {
            if (i != lhsField) scope.markUsed(i);
        }
        if (lhsField >= 0) used.set(lhsField);
        List<Field> dFields = new ArrayList<>();
        List<Integer> dColumns = new ArrayList<>();
        int lhsD = -1;
        for (int i = used.nextSetBit(0); i >= 0; i = used.nextSetBit(i + 1)) {
            if (i == lhsField) lhsD = dFields.size();
            dFields.add(outer.get(i));
            dColumns.add(columns.get(i));
        }
        int nD = dFields.size();
        Plan p = rel.plan;
        int pId = Binder.nextLetId();
        int dId = Binder.nextLetId();
        Plan pRef = new Plan.LetRef(pId, p.types());
        Plan dValue = new Plan.Distinct(Binder.project(pRef, dColumns));
        Plan dPlan = nD == 0 ? Binder.one() : new Plan.LetRef(dId, dValue.types());
        Binder.Bound sub = binder.correlated(q, new Binder.Correlation(dFields, dPlan));
        int width = sub.fields().size() - nD;
        Plan r;
        List<Integer> dKeys = Binder.range(0, nD);
        AggregateFunction count = Sx.aggregate("count", List.of(), false, true, pos);
        // an uncorrelated subquery of exactly one row (a global aggregate, say): no row of p
        // misses it and none meets two, so the left join is a cross join with that row, and the
        // count of its rows that was there to catch a second one is not made at all
        boolean oneRow = kind == Kind.SCALAR && nD == 0 && dev.tributary.sql.plan.Plans.exactlyOneRow(sub.plan());
        switch (kind) {
            case SCALAR -> {
                if (width != 1) throw new SqlException("42601", "subquery must return only one column", pos);
                if (oneRow) {
                    r = sub.plan();
                    break;
                }
                SqlType t = sub.fields().get(nD).type();
                int sId = Binder.nextLetId();
                Plan s = new Plan.LetRef(sId, sub.plan().types());
                Plan counts = new Plan.Reduce(s, dKeys, List.of(new AggregateCall(count, "count", List.of(), false, -1, List.of())), false);
                ScalarExpr tooMany = Sx.binary(dev.tributary.sql.ast.BinaryOp.GT, Sx.column(nD, SqlType.BIGINT), Sx.literal(1L, SqlType.BIGINT), pos);
                Plan failing = new Plan.Map(new Plan.Filter(counts, List.of(tooMany)),
                        List.of(new ScalarExpr.Call("more than one row", List.of(), t, args -> {
                            throw new SqlException("21000", "more than one row returned by a subquery used as an expression");
                        }, false)));
                List<Integer> keep = new ArrayList<>(dKeys);
                keep.add(nD + 1);
                r = new Plan.Let(sId, sub.plan(), new Plan.Union(List.of(s, Binder.project(failing, keep))));
            }
            case EXISTS -> r = new Plan.Reduce(sub.plan(), dKeys, List.of(new AggregateCall(count, "count", List.of(), false, -1, List.of())), false);
            case ANY, ALL -> {
                if (width > 1 && lhs.type().kind() == SqlType.Kind.RECORD) {
                    throw new SqlException("0A000", "comparing a row with a subquery of several columns is not supported", pos,
                            "Compare it with a subquery of one record column instead, e.g. (a, b) IN (SELECT ROW(x, y) FROM t).");
                }
                if (width != 1) throw new SqlException("42601", width > 1 ? "subquery has too many columns" : "subquery has too few columns", pos);
                ScalarExpr c = Sx.binary(cmp, Sx.column(lhsD, dFields.get(lhsD).type()), Sx.column(nD, sub.fields().get(nD).type()), pos);
                c = Sx.coerce(c, SqlType.BOOLEAN, pos, "a subquery comparison");
                int base = sub.plan().arity();
                Plan flagged = new Plan.Map(sub.plan(), List.of(
                        Sx.isTruth(c, Expr.Truth.TRUE, false), Sx.isTruth(c, Expr.Truth.UNKNOWN, false), Sx.isTruth(c, Expr.Truth.FALSE, false)));
                List<AggregateCall> aggs = new ArrayList<>();
                for (int k = 0; k < 3; k++) aggs.add(new AggregateCall(count, "count", List.of(), false, base + k, List.of()));
                r = new Plan.Reduce(flagged, dKeys, aggs, false);
            }
            default -> throw new IllegalStateException();
        }
        int pArity = p.arity();
        Plan joined = oneRow ? new Plan.Join(pRef, r, List.of(), List.of()) : leftJoinOnKeys(pRef, r, dColumns, dKeys);
        if (nD > 0) joined = new Plan.Let(dId, dValue, joined);
        rel.plan = new Plan.Let(pId, p, joined);
        int v = pArity + nD;
        return switch (kind) {
            case SCALAR -> Sx.column(v, r.types().get(nD));
            case EXISTS -> Sx.isNull(Sx.column(v, SqlType.BIGINT), true);
            case ANY -> tristate(Sx.column(v, SqlType.BIGINT), Sx.column(v + 1, SqlType.BIGINT), true, pos);
            case ALL -> tristate(Sx.column(v + 2, SqlType.BIGINT), Sx.column(v + 1, SqlType.BIGINT), false, pos);
        };
    }

    /** {@code CASE WHEN decisive > 0 THEN answer WHEN unknown > 0 THEN NULL ELSE NOT answer END}. */
    private static ScalarExpr tristate(ScalarExpr decisive, ScalarExpr unknown, boolean answer, int pos) {
        ScalarExpr zero = Sx.literal(0L, SqlType.BIGINT);
        return Sx.caseWhen(
                List.of(Sx.binary(BinaryOp.GT, decisive, zero, pos), Sx.binary(BinaryOp.GT, unknown, zero, pos)),
                List.of(Sx.literal(answer, SqlType.BOOLEAN), Sx.literal(null, SqlType.BOOLEAN)),
                Sx.literal(!answer, SqlType.BOOLEAN));
    }

    /**
     * Every row of {@code p} with the row of {@code r} whose key columns equal its own (NULL
     * equal to NULL), or NULLs where there is none; {@code r} has at most one row per key.
     */
    private static Plan leftJoinOnKeys(Plan p, Plan r, List<Integer> pKeys, List<Integer> rKeys) {
        int rId = Binder.nextLetId();
        int jId = Binder.nextLetId();
        Plan rRef = new Plan.LetRef(rId, r.types());
        Plan join = new Plan.Join(p, rRef, pKeys, rKeys);
        Plan j = new Plan.LetRef(jId, join.types());
        List<Integer> all = Binder.range(0, p.arity());
        Plan matched = Binder.project(new Plan.Join(p, new Plan.Distinct(Binder.project(j, all)), all, all), all);
        Plan unmatched = new Plan.Union(List.of(p, new Plan.Negate(matched)));
        List<ScalarExpr> nulls = new ArrayList<>();
        for (SqlType t : r.types()) nulls.add(Sx.literal(null, t));
        return new Plan.Let(rId, r, new Plan.Let(jId, join, new Plan.Union(List.of(j, new Plan.Map(unmatched, nulls)))));
    }

    private ScalarExpr between(Expr.Between b) {
        ScalarExpr x = bind(b.expr());
        ScalarExpr lo = bind(b.low());
        ScalarExpr hi = bind(b.high());
        ScalarExpr inside = Sx.and(List.of(Sx.binary(BinaryOp.GE, x, lo, b.pos()), Sx.binary(BinaryOp.LE, x, hi, b.pos())));
        if (b.symmetric()) {
            ScalarExpr swapped = Sx.and(List.of(Sx.binary(BinaryOp.GE, x, hi, b.pos()), Sx.binary(BinaryOp.LE, x, lo, b.pos())));
            inside = Sx.or(List.of(inside, swapped));
        }
        return b.negated() ? Sx.not(inside) : inside;
    }

    private ScalarExpr call(Expr.FunctionCall f) {
        String name = f.name().get(f.name().size() - 1);
        if (Sx.isAggregate(name)) {
            throw new SqlException("42803", "aggregate functions are not allowed here", f.pos());
        }
        if (f.distinct() || f.star() || !f.orderBy().isEmpty() || f.filter() != null) {
            throw new SqlException("42809", (f.star() ? name + "(*)" : "DISTINCT, ORDER BY or FILTER") + " specified, but " + name + " is not an aggregate function", f.pos());
        }
        if (f.name().size() > 1 && !dev.tributary.sql.catalog.SystemCatalog.isSystemSchema(f.name().get(f.name().size() - 2))) {
            throw new SqlException("42883", "function " + String.join(".", f.name()) + " does not exist", f.pos());
        }
        if (name.equals("proctime") && f.args().isEmpty()) {
            // a STREAM's processing time: the commit time of the row, a hidden column of the stream
            ScalarExpr t = scope.hidden(Streams.PROCTIME);
            if (t == null) throw new SqlException("0A000", "PROCTIME() is the commit time of a STREAM's row: use it over one table STREAM", f.pos());
            return t;
        }
        if (SequenceFunctions.is(name)) return SequenceFunctions.bind(binder, this, name, f);
        List<ScalarExpr> args = new ArrayList<>();
        for (Expr a : f.args()) args.add(bind(a));
        if (dev.tributary.sql.catalog.SystemCatalog.isCatalogFunction(name)) return binder.system().call(name, args, f.pos());
        if (JsonFunctions.is(name)) return JsonFunctions.bind(name, args, f.pos());
        if (dev.tributary.sql.expr.TableFunction.isSetReturning(name)) {
            throw new SqlException("0A000", "set-returning functions such as " + name + " are supported in FROM, not here yet", f.pos(),
                    "Write SELECT ... FROM " + name + "(...) AS alias.");
        }
        return Sx.call(name, args, f.pos());
    }

    /**
     * {@code ARRAY(query)}: the scalar subquery {@code SELECT array_agg(v ORDER BY ...) FROM (query) AS a(v)},
     * with the empty array for no rows; the query has one column and orders by it (if at all).
     */
    private ScalarExpr arraySubquery(Expr.ArraySubquery a) {
        binder.subqueryDepth++;
        try {
            return arrayOfSubquery(a);
        } finally {
            binder.subqueryDepth--;
        }
    }

    private ScalarExpr arrayOfSubquery(Expr.ArraySubquery a) {
        dev.tributary.sql.ast.Query q = a.query();
        if (!(q.body() instanceof dev.tributary.sql.ast.QueryBody.Select sel) || sel.items().size() != 1
                || sel.items().get(0).expr() instanceof Expr.Star || sel.items().get(0).expr() instanceof Expr.QualifiedStar) {
            throw new SqlException("0A000", "ARRAY(subquery) is supported for a SELECT of one column", a.pos());
        }
        String name = sel.items().get(0).alias() != null ? sel.items().get(0).alias()
                : sel.items().get(0).expr() instanceof Expr.ColumnRef c ? c.parts().get(c.parts().size() - 1) : null;
        int pos = a.pos();
        Expr value = new Expr.ColumnRef(pos, List.of("array", "value"));
        List<dev.tributary.sql.ast.OrderItem> order = new ArrayList<>();
        for (dev.tributary.sql.ast.OrderItem o : q.orderBy()) {
            boolean byPosition = o.expr() instanceof Expr.IntegerLiteral i && i.value() == 1;
            boolean byName = name != null && o.expr() instanceof Expr.ColumnRef c && c.parts().size() == 1 && c.parts().get(0).equals(name);
            if (!byPosition && !byName) throw new SqlException("0A000", "ORDER BY in ARRAY(subquery) must name its one column", o.pos());
            order.add(new dev.tributary.sql.ast.OrderItem(o.pos(), value, o.descending(), o.nulls()));
        }
        boolean limited = q.limit() != null || q.offset() != null || q.limitBy() != null;
        dev.tributary.sql.ast.Query inner = limited ? q : new dev.tributary.sql.ast.Query(q.pos(), q.with(), q.body(), List.of(), null, null);
        Expr agg = new Expr.FunctionCall(pos, List.of("array_agg"), List.of(value), false, false, order, null);
        var select = new dev.tributary.sql.ast.QueryBody.Select(pos, false, List.of(), List.of(new dev.tributary.sql.ast.SelectItem(pos, agg, null)),
                List.of(new dev.tributary.sql.ast.TableRef.DerivedTable(pos, true, inner, new dev.tributary.sql.ast.Alias(pos, "array", List.of("value")))),
                null, List.of(), null);
        ScalarExpr sub = subquery(Kind.SCALAR, new dev.tributary.sql.ast.Query(pos, List.of(), select, List.of(), null, null), null, null, pos);
        return new ScalarExpr.Coalesce(List.of(sub, dev.tributary.sql.expr.ArrayExprs.empty(sub.type())), sub.type());
    }

    private ScalarExpr caseExpr(Expr.Case k) {
        ScalarExpr operand = k.operand() == null ? null : bind(k.operand());
        List<ScalarExpr> conditions = new ArrayList<>();
        List<ScalarExpr> results = new ArrayList<>();
        for (Expr.When w : k.whens()) {
            ScalarExpr c = bind(w.condition());
            conditions.add(operand == null
                    ? Sx.coerce(c, SqlType.BOOLEAN, w.condition().pos(), "argument of CASE/WHEN")
                    : Sx.binary(BinaryOp.EQ, operand, c, w.pos()));
            results.add(bind(w.result()));
        }
        ScalarExpr otherwise = k.elseExpr() == null ? null : bind(k.elseExpr());
        List<SqlType> types = new ArrayList<>();
        for (ScalarExpr r : results) types.add(r.type());
        if (otherwise != null) types.add(otherwise.type());
        SqlType t = Sx.common(types, "CASE", k.pos());
        List<ScalarExpr> coerced = new ArrayList<>();
        for (ScalarExpr r : results) coerced.add(Sx.coerce(r, t, k.pos(), "CASE"));
        return Sx.caseWhen(conditions, coerced, otherwise == null ? Sx.literal(null, t) : Sx.coerce(otherwise, t, k.pos(), "CASE"));
    }

    /**
     * A binary operator; when an untyped string operand cannot be read as the other operand's type
     * (22P02), the error points at that string, as PostgreSQL's does, not at the operator.
     */
    private ScalarExpr binary(Expr.Binary b) {
        if (b.left() instanceof Expr.RowConstructor l && b.right() instanceof Expr.RowConstructor r && b.op().isComparison()) {
            return dev.tributary.sql.expr.RecordExprs.compareRows(Sx.comparison(b.op(), b.opPos()), bindAll(l.fields()), bindAll(r.fields()), b.opPos());
        }
        ScalarExpr l = bind(b.left());
        ScalarExpr r = bind(b.right());
        try {
            return Sx.binary(b.op(), l, r, b.opPos());
        } catch (SqlException e) {
            if (!e.sqlState().equals("22P02") || e.position() != b.opPos()) throw e;
            Expr.StringLiteral culprit = b.right() instanceof Expr.StringLiteral s && e.getMessage().endsWith("\"" + s.value() + "\"") ? s
                    : b.left() instanceof Expr.StringLiteral s && e.getMessage().endsWith("\"" + s.value() + "\"") ? s : null;
            if (culprit == null) throw e;
            throw new SqlException(e.sqlState(), e.getMessage(), culprit.pos(), e.hint());
        }
    }
}
