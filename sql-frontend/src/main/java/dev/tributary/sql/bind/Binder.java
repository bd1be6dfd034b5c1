package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Alias;
import dev.tributary.sql.ast.Cte;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.OrderItem;
import dev.tributary.sql.ast.Query;
import dev.tributary.sql.ast.QueryBody;
import dev.tributary.sql.ast.SelectItem;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.ast.WindowSpec;
import dev.tributary.sql.catalog.Catalog;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.expr.AggregateFunction;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.parser.SqlFormatter;
import dev.tributary.sql.plan.AggregateCall;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Turns a parsed query into a {@link Plan}: resolves names with PostgreSQL's scoping rules,
 * types every expression, and lowers joins, aggregation, set operations and ordering to the
 * plan's few operators.
 *
 * <p>Errors are PostgreSQL's: 42P01 for an unknown relation, 42703 for an unknown column,
 * 42702 for an ambiguous one, 42803 for a column outside GROUP BY, 42804 for mismatched types,
 * 0A000 naming a feature not supported yet. A binder is used for one statement.
 */
public final class Binder {
    private static final AtomicInteger LET_IDS = new AtomicInteger();

    private final Catalog catalog;
    final Map<String, Bound> ctes = new HashMap<>();
    /** The recursive WITH bindings being bound, by name: where a reference to one may appear. */
    final Map<String, RecursiveQueries.SelfReference> selfReferences = new HashMap<>();
    /** How deep binding is in expression subqueries, nullable sides of outer joins, INTERSECTs and EXCEPTs' right sides (PostgreSQL's limits on recursive references). */
    int subqueryDepth;
    int nullableDepth;
    int intersectDepth;
    int exceptDepth;
    /** The relations read, in the order the query names them (privilege errors name the first one refused, as PostgreSQL's do). */
    private final java.util.Set<Long> dependencies = new java.util.LinkedHashSet<>();

    private boolean asOfDesugared;
    /** The types given for {@code $1, $2, ...} (null where not given), or null when the statement may have no parameters. */
    private final List<SqlType> declaredParameters;
    /** The system catalogs over {@link #catalog}, snapshotted when the statement first reads them. */
    private dev.tributary.sql.catalog.SystemCatalog system;
    private boolean readsSystemCatalog;

    /** A binder for a statement without parameters: {@code $n} is 42P02. */
    public Binder(Catalog catalog) {
        this(catalog, null);
    }

    /**
     * A binder for a prepared statement whose parameters {@code $i} have the types
     * {@code declared.get(i - 1)}; a parameter beyond the list, or given as null, takes its type
     * from its context as an untyped literal does (see {@link #parameterTypes}).
     */
    public Binder(Catalog catalog, List<SqlType> declared) {
        this.catalog = catalog;
        this.declaredParameters = declared == null ? null : new ArrayList<>(declared);
    }

    /** Types contexts gave untyped parameters so far, by index: later occurrences have that type, as in PostgreSQL. */
    private final Map<Integer, SqlType> deduced = new HashMap<>();
    /** Whether some parameter was bound untyped and no context has typed it yet. */
    private boolean untyped;

    /** {@code $n} as a typed parameter: the declared type, or the one an earlier context gave it, or UNKNOWN until its context decides. */
    ScalarExpr parameter(Expr.Param p) {
        if (declaredParameters == null || p.index() < 1) throw new SqlException("42P02", "there is no parameter $" + p.index(), p.pos());
        SqlType t = p.index() <= declaredParameters.size() ? declaredParameters.get(p.index() - 1) : null;
        if (t == null) t = deduced.get(p.index());
        if (t == null) untyped = true;
        return new ScalarExpr.Param(p.index(), t == null ? SqlType.UNKNOWN : t);
    }

    /** Notes the types that binding {@code e} gave its untyped parameters. */
    void noteParameters(ScalarExpr e) {
        if (!untyped) return;
        List<ScalarExpr.Param> found = new ArrayList<>();
        dev.tributary.sql.expr.ScalarExprs.parameters(e, found);
        for (ScalarExpr.Param p : found) {
            if (p.type().kind() != SqlType.Kind.UNKNOWN) deduced.putIfAbsent(p.index(), p.type());
        }
    }

    /**
     * The type of each parameter of the statement bound into {@code plans}, as PostgreSQL infers
     * them: a declared type stands; otherwise the one type the contexts of its occurrences gave
     * it (42P08 when they disagree), or text when no context asked for one. A parameter below the
     * highest used one that appears nowhere and was not declared is 42P18.
     */
    public List<SqlType> parameterTypes(List<Plan> plans) {
        return parameterTypes(plans, List.of());
    }

    /** {@link #parameterTypes(List)} of plans and expressions outside them (ON CONFLICT DO UPDATE's). */
    public List<SqlType> parameterTypes(List<Plan> plans, List<ScalarExpr> exprs) {
        Map<Integer, SqlType> inferred = new HashMap<>();
        int n = declaredParameters == null ? 0 : declaredParameters.size();
        List<ScalarExpr.Param> params = new ArrayList<>();
        for (Plan plan : plans) params.addAll(dev.tributary.sql.plan.Plans.parameters(plan));
        for (ScalarExpr e : exprs) dev.tributary.sql.expr.ScalarExprs.parameters(e, params);
        {
            for (ScalarExpr.Param p : params) {
                n = Math.max(n, p.index());
                if (p.type().kind() == SqlType.Kind.UNKNOWN) {
                    inferred.putIfAbsent(p.index(), SqlType.UNKNOWN);
                    continue;
                }
                SqlType was = inferred.get(p.index());
                if (was != null && was.kind() != SqlType.Kind.UNKNOWN && !was.equals(p.type())) {
                    // only untyped parameters take a type from their context, so this is two contexts disagreeing
                    throw new SqlException("42P08", "inconsistent types deduced for parameter $" + p.index(), 0)
                            .withDetail(was + " versus " + p.type());
                }
                if (was == null || was.kind() == SqlType.Kind.UNKNOWN) inferred.put(p.index(), p.type());
            }
        }
        List<SqlType> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            SqlType declared = declaredParameters != null && i <= declaredParameters.size() ? declaredParameters.get(i - 1) : null;
            SqlType t = declared != null ? declared : inferred.get(i);
            if (t == null) throw new SqlException("42P18", "could not determine data type of parameter $" + i);
            out.add(t.kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : t);
        }
        return out;
    }

    /** The most rounds a recursive query iterates: the session's {@code max_recursion_iterations}. */
    private long maxRecursionIterations() {
        String v = catalog.settings().get("max_recursion_iterations");
        if (v == null) v = dev.tributary.sql.catalog.Settings.find("max_recursion_iterations").orElseThrow().bootValue();
        try {
            return Math.max(1, Long.parseLong(v.trim()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /**
     * Plans {@code AS OF SYSTEM TIME} lookups by their desugaring over {@code CHANGES}, GROUP BY, a
     * temporal filter and {@code repeat_row} (the reference the half-join is checked against)
     * instead of on the half-join. Error positions inside such a lookup then point into the
     * desugared text.
     */
    public Binder desugarAsOfSystemTime(boolean on) {
        this.asOfDesugared = on;
        return this;
    }

    /**
     * 0A000 when {@code plan} (after its temporal filters are made) reads a stream in event time
     * beside anything in system time; see {@code Streams.checkOneTime}.
     */
    public static void checkOneTime(Plan plan, int pos) {
        Streams.checkOneTime(plan, pos);
    }

    /**
     * Lets the statement read streams ({@code STREAM}): only a continuous query (a subscription)
     * can; a view, a materialized view or a one-off read of one is 0A000.
     */
    public Binder allowStreams() {
        this.streamsAllowed = true;
        return this;
    }

    private boolean streamsAllowed;

    /**
     * Binds for something that keeps reading (a view, a materialized view, a subscription): a
     * system relation the catalog maintains reads its collection, which changes at times, even
     * where a one-off read computes it as it is now (see {@link Catalog#maintained}).
     */
    public Binder maintaining() {
        this.maintaining = true;
        return this;
    }

    private boolean maintaining;

    /**
     * Where a continuous query over streams starts. Without a watermark: at the system time
     * {@code cursor} (a progress time a subscription reported: FROM CURSOR), or with no snapshot
     * (FROM NOW, {@code cursor} null). In event time ({@code eventTime}) {@code cursor} is an event
     * time in its ticks (see {@code TimeWindows.ticks}): the streams are read from their beginning
     * and only the changes at event times from {@code cursor} on are delivered.
     */
    public record StreamStart(Long cursor, int pos, boolean eventTime) {}

    /** A STREAM read by consumer group {@code name} of table {@code table} ({@code ... STREAM CONSUMER GROUP 'name'}). */
    public record ConsumerGroup(long table, String name, int pos) {}

    private ConsumerGroup consumerGroup;

    void consumerGroup(ConsumerGroup g) {
        if (consumerGroup != null) throw new SqlException("0A000", "a query reads one STREAM by a CONSUMER GROUP at most", g.pos());
        consumerGroup = g;
    }

    /** The consumer group the bound query's STREAM is read by, or null. */
    public ConsumerGroup consumerGroup() {
        return consumerGroup;
    }

    private StreamStart streamStart;

    void streamStart(StreamStart start) {
        if (streamStart != null && !streamStart.equals(start) && !java.util.Objects.equals(streamStart.cursor(), start.cursor())) {
            throw new SqlException("0A000", "the streams of one query start from one place: FROM NOW or one FROM CURSOR", start.pos());
        }
        streamStart = start;
    }

    /** Where the query's streams without a watermark start, or null: from the beginning (a snapshot, then changes). */
    public StreamStart streamStart() {
        return streamStart;
    }

    boolean streamsAllowed() {
        return streamsAllowed;
    }

    /** The statement's snapshot of the system catalogs (taken on first use). */
    dev.tributary.sql.catalog.SystemCatalog system() {
        readsSystemCatalog = true;
        if (system == null) system = new dev.tributary.sql.catalog.SystemCatalog(catalog);
        return system;
    }

    /**
     * Whether the bound statement read a system relation or a catalog function: its plan holds
     * constants computed from the catalog as it is now, so it must not be kept (as a view) or
     * maintained (as a materialized view or index).
     */
    public boolean readsSystemCatalog() {
        return readsSystemCatalog;
    }

    /** A bound relation: its plan and the fields names resolve to, one per plan column. */
    record Bound(Plan plan, List<Field> fields) {
        Bound {
            fields = List.copyOf(fields);
            if (plan.arity() != fields.size()) throw new IllegalStateException("plan has " + plan.arity() + " columns but " + fields.size() + " fields");
        }
    }

    // ------------------------------------------------------------------ queries

    /** Binds a top-level query: ORDER BY decides the presentation, LIMIT becomes a top-k. */
    public BoundQuery bindQuery(Query q) {
        return query(q, true);
    }

    /** Binds a query as a relation (a view, a subquery): ORDER BY only matters with LIMIT. */
    Bound relation(Query q) {
        return relation(q, false);
    }

    /** {@link #relation(Query)}, bound as the outermost query if {@code topLevel} (a job's, whose EMIT ON WINDOW CLOSE ends it). */
    private Bound relation(Query q, boolean topLevel) {
        BoundQuery b = query(q, topLevel);
        Plan p = b.plan();
        if (p.arity() > b.visible()) p = project(p, range(0, b.visible()));
        List<Field> fields = new ArrayList<>();
        for (int i = 0; i < b.visible(); i++) fields.add(new Field(null, b.names().get(i), b.types().get(i), false));
        return new Bound(p, fields);
    }

    /** A bound query before presentation: {@code prefix} columns of a correlation's D come first. */
    private record Ordered(Plan plan, List<String> names, List<SqlType> types, List<Plan.SortKey> order, int prefix) {}

    private BoundQuery query(Query q, boolean topLevel) {
        Ordered o = ordered(q);
        Plan plan = o.plan;
        if (topLevel && Streams.inEventTime(plan)) plan = StreamLookups.apply(plan);
        if (topLevel) Streams.checkOneTime(plan, q.pos());
        if (q.emitOnWindowClose()) {
            if (!topLevel) throw new SqlException("0A000", "EMIT ON WINDOW CLOSE ends the outermost query, not a subquery or a view's", q.pos());
            if (!Streams.inEventTime(plan)) {
                throw new SqlException("0A000", "EMIT ON WINDOW CLOSE needs a window over a STREAM with a WATERMARK: windows close when the watermark passes their end",
                        q.pos());
            }
            int end = o.names.indexOf("window_end");
            if (end < 0) {
                throw new SqlException("42P20", "EMIT ON WINDOW CLOSE needs the window's end among the query's columns: select window_end (and group by it)",
                        q.pos());
            }
            plan = new Plan.Delay(plan, end, false);
        }
        return new BoundQuery(plan, o.names, o.types, topLevel ? o.order : List.of());
    }

    private Ordered ordered(Query q) {
        Map<String, Bound> saved = new HashMap<>(ctes);
        Correlation c = corr;
        corr = null;
        try {
            Query.Recursion recursion = q.recursion();
            long limit = recursion.limit() > 0 ? recursion.limit() : maxRecursionIterations();
            List<Plan.Binding> mutual = List.of();
            if (recursion.kind() == Query.Recursion.Kind.MUTUALLY_RECURSIVE) {
                mutual = RecursiveQueries.mutuallyRecursive(this, q.with(), ctes);
            } else {
                for (Cte cte : q.with()) {
                    if (ctes.containsKey(cte.name()) && !saved.containsKey(cte.name())) {
                        throw new SqlException("42712", "WITH query name \"" + cte.name() + "\" specified more than once", cte.pos());
                    }
                    if (recursion.kind() != Query.Recursion.Kind.RECURSIVE && (cte.search() != null || cte.cycle() != null)) throw SearchCycle.notRecursive(cte);
                    Bound b = recursion.kind() == Query.Recursion.Kind.RECURSIVE ? RecursiveQueries.recursive(this, cte, limit) : relation(cte.query());
                    ctes.put(cte.name(), rename(b, cte.name(), cte.columns(), cte.pos()));
                }
            }
            corr = c;
            Ordered o = orderedBody(q);
            if (mutual.isEmpty()) return o;
            return new Ordered(new Plan.LetRec(mutual, o.plan(), limit, recursion.errorAtLimit()), o.names(), o.types(), o.order(), o.prefix());
        } finally {
            corr = null;
            ctes.clear();
            ctes.putAll(saved);
        }
    }

    /** The body with ORDER BY, LIMIT and OFFSET applied (per D row when correlated). */
    private Ordered orderedBody(Query q) {
        // ((SELECT ...)): a parenthesised query is the query, correlation and all
        if (q.isBare() && q.body() instanceof Query inner) return ordered(inner);
        QueryBody body = q.body();
        List<String> names;
        List<SqlType> types;
        Plan plan;
        int prefix;
        List<Plan.SortKey> order = new ArrayList<>();
        // a LIMIT ... BY's expressions are resolved as ORDER BY items are, after them
        List<OrderItem> sorted = new ArrayList<>(q.orderBy());
        if (q.limitBy() != null) for (Expr e : q.limitBy().by()) sorted.add(new OrderItem(e.pos(), e, false, OrderItem.Nulls.DEFAULT));
        if (body instanceof QueryBody.Select s) {
            SelectResult r = select(s, sorted);
            plan = r.plan;
            names = r.names;
            types = r.types;
            order = r.order;
            prefix = r.prefix;
        } else {
            Correlation c = corr;
            corr = null;
            Bound b = body(body);
            plan = b.plan();
            prefix = 0;
            if (c != null) {
                // a correlated VALUES or set operation may not read outer columns: pair it with every D row
                plan = new Plan.Join(c.plan(), plan, List.of(), List.of());
                prefix = c.width();
            }
            names = new ArrayList<>();
            types = new ArrayList<>();
            for (Field f : b.fields()) {
                names.add(f.name());
                types.add(f.type());
            }
            for (OrderItem item : sorted) {
                Plan.SortKey k = outputSortKey(item, b.fields());
                order.add(new Plan.SortKey(k.column() + prefix, k.descending(), k.nullsFirst()));
            }
        }
        List<Integer> by = new ArrayList<>();
        for (Plan.SortKey k : order.subList(q.orderBy().size(), order.size())) by.add(k.column());
        order = new ArrayList<>(order.subList(0, q.orderBy().size()));
        long limit = q.limit() == null ? -1 : constantLong(q.limit(), "LIMIT");
        long offset = q.offset() == null ? 0 : constantLong(q.offset(), "OFFSET");
        boolean limited = limit >= 0 || offset > 0 || q.limitBy() != null;
        // over a stream, the first rows are the earliest: without ORDER BY, by their times; over
        // one that only inserts, counted per group rather than kept
        boolean first = limited && order.isEmpty() && Streams.readsStream(plan);
        boolean counted = first && prefix == 0 && dev.tributary.sql.plan.Plans.insertsOnly(plan);
        List<Plan.SortKey> firstRows = order;
        if (first && !counted) {
            plan = new Plan.TimeColumn(plan);
            firstRows = List.of(new Plan.SortKey(plan.arity() - 1, false, false));
        }
        if (q.limitBy() != null) {
            long n = constantLong(q.limitBy().limit(), "LIMIT");
            long m = q.limitBy().offset() == null ? 0 : constantLong(q.limitBy().offset(), "OFFSET");
            List<Integer> group = new ArrayList<>(range(0, prefix));
            group.addAll(by);
            if (counted) plan = new Plan.FirstRows(plan, group, n, m);
            else if (n >= 0 || m > 0) plan = new Plan.TopK(plan, group, firstRows, n, m);
        }
        if (limit >= 0 || offset > 0) {
            plan = counted ? new Plan.FirstRows(plan, List.of(), limit, offset) : new Plan.TopK(plan, range(0, prefix), firstRows, limit, offset);
        }
        return new Ordered(plan, names, types, order, prefix);
    }

    /**
     * Binds a subquery correlated through {@code c}: its plan has D's columns first, then its own
     * visible columns (nothing else).
     */
    Bound correlated(Query q, Correlation c) {
        corr = c;
        Ordered o = ordered(q);
        int width = o.prefix + o.names.size();
        Plan p = o.plan.arity() > width ? project(o.plan, range(0, width)) : o.plan;
        List<Field> fields = new ArrayList<>(c.fields);
        for (int i = 0; i < o.names.size(); i++) fields.add(new Field(null, o.names.get(i), o.types.get(i), false));
        return new Bound(p, fields);
    }

    private long constantLong(Expr e, String clause) {
        ScalarExpr x = Sx.coerce(expr(e, Scope.EMPTY), SqlType.BIGINT, e.pos(), "argument of " + clause);
        if (!Sx.isConstant(x)) throw new SqlException("42P10", "argument of " + clause + " must not contain variables", e.pos());
        Object v = x.eval(new Object[0]);
        if (v == null) return clause.equals("LIMIT") ? -1 : 0;
        long n = (Long) v;
        if (n < 0) throw new SqlException(clause.equals("LIMIT") ? "2201W" : "2201X", clause + " must not be negative", e.pos());
        return n;
    }

    /** ORDER BY over a body that is not a plain SELECT: names and ordinals of the output only. */
    private Plan.SortKey outputSortKey(OrderItem item, List<Field> fields) {
        int col = -1;
        if (item.expr() instanceof Expr.IntegerLiteral n) {
            if (n.value() < 1 || n.value() > fields.size()) throw new SqlException("42P10", "ORDER BY position " + n.value() + " is not in select list", item.pos());
            col = (int) n.value() - 1;
        } else if (item.expr() instanceof Expr.ColumnRef c && c.parts().size() == 1) {
            for (int i = 0; i < fields.size(); i++) {
                if (fields.get(i).name().equals(c.parts().get(0))) {
                    col = i;
                    break;
                }
            }
            if (col < 0) throw new SqlException("42703", "column \"" + c.parts().get(0) + "\" does not exist", c.pos());
        } else {
            throw new SqlException("0A000", "ORDER BY on a UNION/INTERSECT/EXCEPT result must be on one of the result columns", item.pos());
        }
        return sortKey(col, item);
    }

    private static Plan.SortKey sortKey(int column, OrderItem item) {
        boolean nullsFirst = switch (item.nulls()) {
            case FIRST -> true;
            case LAST -> false;
            case DEFAULT -> item.descending();
        };
        return new Plan.SortKey(column, item.descending(), nullsFirst);
    }

    Bound body(QueryBody body) {
        return switch (body) {
            case QueryBody.Select s -> {
                SelectResult r = select(s, List.of());
                List<Field> fields = new ArrayList<>();
                for (int i = 0; i < r.names.size(); i++) fields.add(new Field(null, r.names.get(i), r.types.get(i), false));
                yield new Bound(r.plan, fields);
            }
            case QueryBody.Values v -> values(v);
            case QueryBody.SetOperation op -> setOperation(op);
            case Query q -> relation(q);
        };
    }

    private Bound values(QueryBody.Values v) {
        int width = v.rows().get(0).size();
        List<List<ScalarExpr>> rows = new ArrayList<>();
        for (List<Expr> row : v.rows()) {
            if (row.size() != width) throw new SqlException("42601", "VALUES lists must all be the same length", row.isEmpty() ? v.pos() : row.get(0).pos());
            List<ScalarExpr> bound = new ArrayList<>();
            for (Expr e : row) bound.add(expr(e, Scope.EMPTY));
            rows.add(bound);
        }
        List<SqlType> types = new ArrayList<>();
        for (int c = 0; c < width; c++) {
            List<SqlType> col = new ArrayList<>();
            for (List<ScalarExpr> row : rows) col.add(row.get(c).type());
            types.add(Sx.common(col, "VALUES", v.pos()));
        }
        List<Plan> parts = new ArrayList<>();
        List<Object[]> constants = new ArrayList<>();
        for (List<ScalarExpr> row : rows) {
            List<ScalarExpr> coerced = new ArrayList<>();
            boolean constant = true;
            for (int c = 0; c < width; c++) {
                ScalarExpr e = Sx.coerce(row.get(c), types.get(c), v.pos(), "VALUES");
                coerced.add(e);
                constant &= Sx.isConstant(e);
            }
            Object[] folded = constant ? tryEvaluate(coerced) : null;
            if (folded != null) constants.add(folded);
            else parts.add(project(new Plan.Map(one(), coerced), range(0, width)));
        }
        if (!constants.isEmpty()) parts.add(0, new Plan.Constant(constants, types));
        Plan plan = parts.size() == 1 ? parts.get(0) : new Plan.Union(parts);
        List<Field> fields = new ArrayList<>();
        for (int c = 0; c < width; c++) fields.add(new Field(null, "column" + (c + 1), types.get(c), false));
        return new Bound(plan, fields);
    }

    /** The values of constant expressions, or null if evaluating one fails (it then fails when run). */
    private static Object[] tryEvaluate(List<ScalarExpr> exprs) {
        Object[] out = new Object[exprs.size()];
        try {
            for (int i = 0; i < out.length; i++) out[i] = exprs.get(i).eval(new Object[0]);
        } catch (SqlException e) {
            return null;
        }
        return out;
    }

    /** One row with no columns: what a SELECT without FROM reads. */
    static Plan one() {
        return new Plan.Constant(List.<Object[]>of(new Object[0]), List.of());
    }

    /** {@code body} bound with the INTERSECT and EXCEPT depths raised by the given amounts while it is. */
    private Bound bodyWithin(QueryBody body, int intersect, int except) {
        intersectDepth += intersect;
        exceptDepth += except;
        try {
            return body(body);
        } finally {
            intersectDepth -= intersect;
            exceptDepth -= except;
        }
    }

    private Bound setOperation(QueryBody.SetOperation op) {
        // where PostgreSQL refuses a recursive reference: either side of INTERSECT ALL, the right
        // of EXCEPT and either side of EXCEPT ALL
        int intersect = op.op() == QueryBody.SetOp.INTERSECT && op.all() ? 1 : 0;
        int exceptLeft = op.op() == QueryBody.SetOp.EXCEPT && op.all() ? 1 : 0;
        int exceptRight = op.op() == QueryBody.SetOp.EXCEPT ? 1 : 0;
        Bound l = bodyWithin(op.left(), intersect, exceptLeft);
        Bound r = bodyWithin(op.right(), intersect, exceptRight);
        String name = op.op().name();
        if (l.fields().size() != r.fields().size()) {
            throw new SqlException("42601", "each " + name + " query must have the same number of columns", op.right().pos());
        }
        List<SqlType> types = new ArrayList<>();
        for (int i = 0; i < l.fields().size(); i++) {
            types.add(Sx.common(List.of(l.fields().get(i).type(), r.fields().get(i).type()), name, op.pos()));
        }
        Plan lp = coerceColumns(l.plan(), types, op.pos(), name);
        Plan rp = coerceColumns(r.plan(), types, op.pos(), name);
        if (!(op.op() == QueryBody.SetOp.UNION && op.all())) {
            // rows are compared: numerically equal NUMERICs must be equal rows
            lp = keyForm(lp);
            rp = keyForm(rp);
        }
        Plan plan = switch (op.op()) {
            case UNION -> op.all() ? new Plan.Union(List.of(lp, rp)) : new Plan.Distinct(new Plan.Union(List.of(lp, rp)));
            case EXCEPT -> op.all()
                    ? new Plan.Threshold(new Plan.Union(List.of(lp, new Plan.Negate(rp))))
                    : new Plan.Threshold(new Plan.Union(List.of(new Plan.Distinct(lp), new Plan.Negate(new Plan.Distinct(rp)))));
            case INTERSECT -> {
                Plan a = op.all() ? lp : new Plan.Distinct(lp);
                Plan b = op.all() ? rp : new Plan.Distinct(rp);
                int id = LET_IDS.incrementAndGet();
                Plan ref = new Plan.LetRef(id, a.types());
                // min(a, b) = a - max(a - b, 0)
                yield new Plan.Let(id, a, new Plan.Union(List.of(ref, new Plan.Negate(new Plan.Threshold(new Plan.Union(List.of(ref, new Plan.Negate(b))))))));
            }
        };
        List<Field> fields = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) fields.add(new Field(null, l.fields().get(i).name(), types.get(i), false));
        return new Bound(plan, fields);
    }

    /**
     * {@code p} with its NUMERIC columns in key form (no trailing fraction zeros), so that rows
     * that SQL calls equal are equal rows for DISTINCT and set operations; a column with a
     * declared scale still shows it.
     */
    static Plan keyForm(Plan p) {
        List<SqlType> types = p.types();
        boolean any = false;
        for (SqlType t : types) any |= t.kind() == SqlType.Kind.NUMERIC;
        if (!any) return p;
        List<ScalarExpr> exprs = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) exprs.add(Sx.keyForm(Sx.column(i, types.get(i))));
        return project(new Plan.Map(p, exprs), range(types.size(), 2 * types.size()));
    }

    static Plan coerceColumns(Plan p, List<SqlType> types, int pos, String context) {
        List<SqlType> have = p.types();
        if (have.equals(types)) return p;
        List<ScalarExpr> exprs = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) exprs.add(Sx.coerce(Sx.column(i, have.get(i)), types.get(i), pos, context));
        return project(new Plan.Map(p, exprs), range(have.size(), have.size() + types.size()));
    }

    // ------------------------------------------------------------------ SELECT

    private record SelectResult(Plan plan, List<String> names, List<SqlType> types, List<Plan.SortKey> order, int prefix) {}

    /**
     * A correlated subquery's window on its enclosing query: relation D, the distinct values of
     * the outer columns it reads. The subquery is planned with D joined in as its first input, so
     * outer references are ordinary columns, and its result keeps D's columns in front, so the
     * enclosing query can join it back on them. {@code plan} is null while a first pass only
     * finds out which outer columns are used.
     */
    static final class Correlation {
        final List<Field> fields;
        final Plan plan;
        final BitSet used = new BitSet();

        Correlation(List<Field> fields, Plan plan) {
            this.fields = fields;
            this.plan = plan;
        }

        int width() {
            return fields.size();
        }

        Plan plan() {
            if (plan != null) return plan;
            List<SqlType> t = new ArrayList<>();
            for (Field f : fields) t.add(f.type());
            return Plan.Constant.empty(t);
        }
    }

    /** The correlation of the subquery being bound; taken (and cleared) by its outermost SELECT. */
    private Correlation corr;

    /** A relation being built up: expressions over it may add columns to it (a subquery's result, joined in). */
    static final class Rel {
        Plan plan;

        Rel(Plan plan) {
            this.plan = plan;
        }
    }

    private SelectResult select(QueryBody.Select s, List<OrderItem> orderBy) {
        // a SELECT that reads PROCTIME() reads its streams in processing time (their commit
        // times), without their declared watermarks: as Flink keeps a processing-time attribute
        // apart from the rowtime one
        boolean outerProcessing = processingTime;
        processingTime = readsProcTime(s);
        try {
            return selectIn(s, orderBy);
        } finally {
            processingTime = outerProcessing;
        }
    }

    /** Whether the select list, WHERE, GROUP BY or HAVING of {@code s} calls PROCTIME() (not looking into subqueries). */
    private static boolean readsProcTime(QueryBody.Select s) {
        List<Expr> exprs = new ArrayList<>();
        for (SelectItem item : s.items()) exprs.add(item.expr());
        exprs.add(s.where());
        exprs.addAll(s.groupBy());
        exprs.add(s.having());
        for (Expr e : exprs) if (callsProcTime(e)) return true;
        return false;
    }

    private static boolean callsProcTime(Expr e) {
        if (e == null) return false;
        if (e instanceof Expr.FunctionCall f && f.args().isEmpty() && f.name().get(f.name().size() - 1).equals("proctime")) return true;
        for (Expr child : Exprs.children(e)) if (callsProcTime(child)) return true;
        return false;
    }

    private boolean processingTime;

    /** Whether the SELECT being bound reads PROCTIME(), so that its streams ignore their declared watermarks. */
    boolean processingTime() {
        return processingTime;
    }

    private SelectResult selectIn(QueryBody.Select s, List<OrderItem> orderBy) {
        Correlation c = corr;
        corr = null;
        int nD = c == null ? 0 : c.width();
        // FROM, with D in front when correlated
        List<Bound> inputs = new ArrayList<>();
        if (c != null) inputs.add(new Bound(c.plan(), c.fields));
        if (s.from().isEmpty()) inputs.add(new Bound(one(), List.of()));
        // inner joins with ON are the same as a comma list with the ON in WHERE: flatten them, so
        // the join planner sees every input at once (and can pick a delta join)
        List<TableRef> fromItems = new ArrayList<>();
        List<Expr> onConditions = new ArrayList<>();
        for (TableRef r : s.from()) flattenInner(r, fromItems, onConditions);
        for (TableRef r : fromItems) {
            if (r instanceof TableRef.FunctionTable f && RepeatRows.is(f)) {
                // repeat_row changes multiplicities rather than adding rows; it sees the items before it
                Bound left = joinedSoFar(inputs);
                inputs.clear();
                inputs.add(RepeatRows.bind(this, left, f));
            } else if (r instanceof TableRef.DerivedTable d && (d.lateral() || c != null)) {
                // in a correlated subquery a subquery in FROM may read the outer query's columns, as in
                // PostgreSQL: it is planned like a LATERAL item (per value of what it reads of D)
                // a LATERAL item sees the items before it: they become one input, joined with it
                Bound left = joinedSoFar(inputs);
                inputs.clear();
                inputs.add(lateral(left, d, c));
            } else if (r instanceof TableRef.FunctionTable f) {
                // a function in FROM is LATERAL: its arguments may read the items before it (and the enclosing query)
                Bound left = joinedSoFar(inputs);
                Scope outer = c == null ? null : new Scope(c.fields, Scope.identityOf(nD), null, c.used);
                List<Field> seen = left.fields().subList(nD, left.fields().size());
                inputs.clear();
                inputs.add(functionTable(left, f, new Scope(seen, Scope.offset(nD, seen.size()), outer, null)));
            } else {
                inputs.add(tableRef(r));
            }
        }
        List<Field> all = new ArrayList<>();
        for (Bound b : inputs) all.addAll(b.fields());
        List<Field> local = new ArrayList<>(all.subList(nD, all.size()));
        checkDuplicateAliases(inputs.subList(c == null || inputs.size() == 1 ? 0 : 1, inputs.size()), fromItems);
        Scope outerScope = c == null ? null : new Scope(c.fields, Scope.identityOf(nD), null, c.used);
        Scope scope = new Scope(local, Scope.offset(nD, local.size()), outerScope, null);

        // WHERE: plain conjuncts plan the joins; those with subqueries apply to the joined result
        List<ScalarExpr> conjuncts = new ArrayList<>();
        List<Expr> withSubqueries = new ArrayList<>();
        for (Expr on : onConditions) {
            if (Exprs.hasSubquery(on)) throw new SqlException("0A000", "subqueries in JOIN ... ON are not supported yet", on.pos());
            if (containsAggregate(List.of(on))) throw new SqlException("42803", "aggregate functions are not allowed in JOIN conditions", on.pos());
            Sx.conjuncts(Sx.coerce(expr(on, scope), SqlType.BOOLEAN, on.pos(), "argument of JOIN/ON"), conjuncts);
        }
        if (s.where() != null) {
            if (containsAggregate(List.of(s.where()))) throw new SqlException("42803", "aggregate functions are not allowed in WHERE", s.where().pos());
            List<Expr> parts = new ArrayList<>();
            splitAnd(s.where(), parts);
            for (Expr part : parts) {
                if (Exprs.hasSubquery(part)) withSubqueries.add(part);
                else Sx.conjuncts(Sx.coerce(expr(part, scope), SqlType.BOOLEAN, part.pos(), "argument of WHERE"), conjuncts);
            }
        }
        List<Plan> plans = new ArrayList<>();
        for (Bound b : inputs) plans.add(b.plan());
        Plan plan = JoinPlanner.innerJoin(plans, conjuncts);
        int width = plan.arity();
        if (!withSubqueries.isEmpty()) {
            Rel rel = new Rel(plan);
            List<ScalarExpr> predicates = new ArrayList<>();
            for (Expr part : withSubqueries) predicates.add(Sx.coerce(expr(semiJoin(part), scope, null, rel), SqlType.BOOLEAN, part.pos(), "argument of WHERE"));
            plan = project(new Plan.Filter(rel.plan, predicates), range(0, width));
        }

        // expand the select list
        List<Expr> items = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (SelectItem item : s.items()) {
            if (item.expr() instanceof Expr.Star star) {
                if (s.from().isEmpty()) throw new SqlException("42601", "SELECT * with no tables specified is not valid", star.pos());
                for (Field f : local) {
                    if (f.hidden() || f.unstarred()) continue;
                    items.add(new Expr.ColumnRef(star.pos(), f.reference()));
                    names.add(f.name());
                }
            } else if (item.expr() instanceof Expr.QualifiedStar qs) {
                ColumnName q = ColumnName.of(qs.qualifier(), "*", qs.pos());
                boolean any = false;
                for (Field f : local) {
                    if (q.qualifier().equals(f.qualifier()) && (q.schema() == null || q.schema().equals(f.schema())) && !f.unstarred()) {
                        items.add(new Expr.ColumnRef(qs.pos(), f.reference()));
                        names.add(f.name());
                        any = true;
                    }
                }
                if (!any) throw new SqlException("42P01", "missing FROM-clause entry for table \"" + q.qualifier() + "\"", qs.pos());
            } else {
                items.add(item.expr());
                names.add(item.alias() != null ? item.alias() : columnName(item.expr()));
            }
        }

        boolean aggregated = !s.groupBy().isEmpty() || s.having() != null || containsAggregate(items) || orderByAggregates(orderBy);
        Grouping grouping = null;
        if (aggregated) {
            grouping = group(s, scope, plan, items, names, orderBy, c);
            plan = grouping.plan;
        }
        // D's columns, the select list, then hidden ORDER BY columns
        int base = plan.arity();
        Rel rel = new Rel(plan);
        java.util.function.Function<Expr, ScalarExpr> windows = either(windows(items, orderBy, scope, rel, grouping, nD, s.windows()),
                setReturning(items, scope, rel, grouping != null));
        List<ScalarExpr> exprs = new ArrayList<>();
        for (int i = 0; i < nD; i++) exprs.add(Sx.column(i, c.fields.get(i).type()));
        for (Expr e : items) exprs.add(grouping == null ? new ExprBinder(this, scope, windows, rel).bind(e) : grouping.bind(e, rel, windows));
        List<Plan.SortKey> order = new ArrayList<>();
        List<String> textOfItem = new ArrayList<>();
        for (Expr e : items) textOfItem.add(SqlFormatter.format(e));
        Map<String, Integer> hidden = new HashMap<>();
        for (OrderItem item : orderBy) {
            int col = orderColumn(item, items, names, textOfItem);
            if (col < 0) col = hidden.getOrDefault(SqlFormatter.format(item.expr()), -1);
            if (col < 0) {
                if (s.distinct() && s.distinctOn().isEmpty()) {
                    throw new SqlException("42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list", item.pos());
                }
                exprs.add(grouping == null ? new ExprBinder(this, scope, windows, rel).bind(item.expr()) : grouping.bind(item.expr(), rel, windows));
                col = exprs.size() - 1 - nD;
                hidden.put(SqlFormatter.format(item.expr()), col);
            }
            order.add(sortKey(col + nD, item));
        }
        // DISTINCT ON keys: select-list columns, or hidden ones like ORDER BY's
        List<Integer> distinctKeys = new ArrayList<>(range(0, nD));
        for (Expr e : s.distinctOn()) {
            int col = orderColumn(new OrderItem(e.pos(), e, false, OrderItem.Nulls.DEFAULT), items, names, textOfItem);
            if (col < 0) col = hidden.getOrDefault(SqlFormatter.format(e), -1);
            if (col < 0) {
                exprs.add(grouping == null ? expr(e, scope, null, rel) : grouping.bind(e, rel));
                col = exprs.size() - 1 - nD;
            }
            distinctKeys.add(col + nD);
        }
        base = rel.plan.arity();
        plan = project(new Plan.Map(rel.plan, exprs), range(base, base + exprs.size()));
        List<SqlType> types = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) types.add(exprs.get(nD + i).type());
        if (!s.distinctOn().isEmpty()) {
            // PostgreSQL: the DISTINCT ON expressions must lead the ORDER BY
            List<Integer> on = distinctKeys.subList(nD, distinctKeys.size());
            for (int i = 0; i < Math.min(order.size(), on.size()); i++) {
                if (!on.contains(order.get(i).column())) {
                    throw new SqlException("42P10", "SELECT DISTINCT ON expressions must match initial ORDER BY expressions", s.distinctOn().get(0).pos());
                }
            }
            // per group, the first row in ORDER BY order
            plan = new Plan.TopK(plan, distinctKeys, order, 1, 0);
        } else if (s.distinct()) {
            plan = new Plan.Distinct(keyForm(plan));
        }
        return new SelectResult(plan, names, types, order, nD);
    }

    /**
     * The window function calls of the select list and ORDER BY, each computed over {@code rel}
     * ({@link Plan.Window}: its PARTITION BY and ORDER BY values and its arguments are added to
     * the relation, then the function's column); the result claims each call as that column, for
     * the select list's binding. Over a GROUP BY ({@code grouping} not null) they read the groups:
     * their expressions are bound as the select list's are. Null when there are none.
     */
    private java.util.function.Function<Expr, ScalarExpr> windows(List<Expr> items, List<OrderItem> orderBy, Scope scope, Rel rel, Grouping grouping, int nD,
                                                                  List<WindowSpec.Named> named) {
        List<Expr.WindowCall> calls = new ArrayList<>();
        List<Expr> roots = new ArrayList<>(items);
        for (OrderItem o : orderBy) roots.add(o.expr());
        for (Expr e : roots) collectWindows(e, calls);
        Map<String, WindowSpec> definitions = windowDefinitions(named);
        if (calls.isEmpty()) return null;
        java.util.function.Function<Expr, ScalarExpr> inner = grouping == null ? e -> new ExprBinder(this, scope, null, rel).bind(e) : e -> grouping.bind(e, rel);
        Map<Expr.WindowCall, Integer> column = new HashMap<>();
        for (Expr.WindowCall w : calls) {
            if (column.containsKey(w)) continue;
            WindowSpec spec = resolveWindow(w.window(), definitions);
            Expr.FunctionCall call = w.call();
            String name = call.name().get(call.name().size() - 1);
            List<ScalarExpr> args = new ArrayList<>();
            for (Expr a : call.args()) {
                if (a instanceof Expr.WindowCall nested) throw new SqlException("42P20", "window function calls cannot be nested", nested.pos());
                args.add(inner.apply(a));
            }
            Plan.WindowKind kind = windowKind(name, call);
            List<ScalarExpr> coerced = new ArrayList<>();
            dev.tributary.sql.expr.AggregateFunction aggregate = null;
            SqlType type;
            switch (kind) {
                case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST -> {
                    if (!args.isEmpty()) throw noWindowFunction(name, args, w.pos());
                    type = kind == Plan.WindowKind.PERCENT_RANK || kind == Plan.WindowKind.CUME_DIST ? SqlType.DOUBLE : SqlType.BIGINT;
                }
                case NTILE -> {
                    if (args.size() != 1) throw noWindowFunction(name, args, w.pos());
                    coerced.add(Sx.coerce(args.get(0), SqlType.INTEGER, call.pos(), "argument of ntile"));
                    type = SqlType.INTEGER;
                }
                case LAG, LEAD -> {
                    if (args.isEmpty() || args.size() > 3) throw noWindowFunction(name, args, w.pos());
                    ScalarExpr value = args.get(0);
                    if (value.type().kind() == SqlType.Kind.UNKNOWN) value = Sx.coerce(value, SqlType.TEXT, call.pos(), "argument of " + name);
                    type = value.type();
                    if (args.size() == 3 && args.get(2).type().kind() != SqlType.Kind.UNKNOWN && !args.get(2).type().equals(type)) {
                        // PostgreSQL resolves the value and the default to their common type
                        type = Sx.common(List.of(value.type(), args.get(2).type()), name, call.pos());
                        value = Sx.coerce(value, type, call.pos(), "argument of " + name);
                    }
                    coerced.add(value);
                    if (args.size() > 1) coerced.add(Sx.coerce(args.get(1), SqlType.INTEGER, call.pos(), "argument of " + name));
                    if (args.size() > 2) coerced.add(Sx.coerce(args.get(2), type, call.pos(), "argument of " + name));
                }
                case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> {
                    if (args.size() != (kind == Plan.WindowKind.NTH_VALUE ? 2 : 1)) throw noWindowFunction(name, args, w.pos());
                    ScalarExpr value = args.get(0);
                    if (value.type().kind() == SqlType.Kind.UNKNOWN) value = Sx.coerce(value, SqlType.TEXT, call.pos(), "argument of " + name);
                    type = value.type();
                    coerced.add(value);
                    if (kind == Plan.WindowKind.NTH_VALUE) coerced.add(Sx.coerce(args.get(1), SqlType.INTEGER, call.pos(), "argument of nth_value"));
                }
                case AGGREGATE -> {
                    if (call.withinGroup()) throw new SqlException("0A000", "OVER is not supported for ordered-set aggregate " + name, call.pos());
                    if (call.distinct()) throw new SqlException("0A000", "DISTINCT is not implemented for window functions", call.pos());
                    if (!call.orderBy().isEmpty()) throw new SqlException("0A000", "aggregate ORDER BY is not implemented for window functions", call.pos());
                    for (Expr a : call.args()) {
                        if (grouping == null && containsAggregate(List.of(a))) throw new SqlException("42803", "aggregate function calls cannot be nested", a.pos());
                    }
                    List<SqlType> argTypes = new ArrayList<>();
                    for (ScalarExpr a : args) argTypes.add(a.type());
                    aggregate = Sx.aggregate(name, argTypes, false, call.star(), call.pos());
                    for (int i = 0; i < args.size(); i++) coerced.add(Sx.coerce(args.get(i), aggregate.argTypes().get(i), call.pos(), "argument of " + name));
                    type = aggregate.resultType();
                }
                default -> throw new IllegalStateException();
            }
            if (call.filter() != null && kind != Plan.WindowKind.AGGREGATE) {
                throw new SqlException("0A000", "FILTER is not implemented for non-aggregate window functions", call.pos());
            }
            List<ScalarExpr> values = new ArrayList<>();
            for (Expr p : spec.partitionBy()) values.add(inner.apply(p));
            for (OrderItem o : spec.orderBy()) values.add(inner.apply(o.expr()));
            values.addAll(coerced);
            if (call.filter() != null) values.add(Sx.coerce(inner.apply(call.filter()), SqlType.BOOLEAN, call.filter().pos(), "argument of FILTER"));
            int first = rel.plan.arity();
            if (!values.isEmpty()) rel.plan = new Plan.Map(rel.plan, values);
            // in a correlated subquery each row of the enclosing query (D's columns) is a partition of its own
            List<Integer> partition = new ArrayList<>(range(0, nD));
            partition.addAll(range(first, first + spec.partitionBy().size()));
            List<Plan.SortKey> order = new ArrayList<>();
            int orderAt = first + spec.partitionBy().size();
            for (int k = 0; k < spec.orderBy().size(); k++) order.add(sortKey(orderAt + k, spec.orderBy().get(k)));
            int argsAt = orderAt + spec.orderBy().size();
            List<Integer> argColumns = range(argsAt, argsAt + coerced.size());
            int filter = call.filter() == null ? -1 : argsAt + coerced.size();
            Plan.WindowFrame frame = frame(spec, rel.plan.types(), order, inner);
            rel.plan = new Plan.Window(rel.plan, partition, order, new Plan.WindowFunction(kind, argColumns, aggregate, filter, frame, type));
            column.put(w, rel.plan.arity() - 1);
        }
        return e -> e instanceof Expr.WindowCall w && column.containsKey(w) ? Sx.column(column.get(w), rel.plan.types().get(column.get(w))) : null;
    }

    private static SqlException noWindowFunction(String name, List<ScalarExpr> args, int pos) {
        return new SqlException("42883", "function " + name + "(" + String.join(", ", args.stream().map(a -> a.type().toString()).toList()) + ") does not exist", pos,
                "No function matches the given name and argument types. You might need to add explicit type casts.");
    }

    /** What a call with OVER computes: a window function, or an aggregate over the frame (42809 for any other function). */
    private static Plan.WindowKind windowKind(String name, Expr.FunctionCall call) {
        return switch (name) {
            case "row_number" -> Plan.WindowKind.ROW_NUMBER;
            case "rank" -> Plan.WindowKind.RANK;
            case "dense_rank" -> Plan.WindowKind.DENSE_RANK;
            case "percent_rank" -> Plan.WindowKind.PERCENT_RANK;
            case "cume_dist" -> Plan.WindowKind.CUME_DIST;
            case "ntile" -> Plan.WindowKind.NTILE;
            case "lag" -> Plan.WindowKind.LAG;
            case "lead" -> Plan.WindowKind.LEAD;
            case "first_value" -> Plan.WindowKind.FIRST_VALUE;
            case "last_value" -> Plan.WindowKind.LAST_VALUE;
            case "nth_value" -> Plan.WindowKind.NTH_VALUE;
            default -> {
                if (Sx.isAggregate(name)) yield Plan.WindowKind.AGGREGATE;
                throw new SqlException("42809", "OVER specified, but " + name + " is not a window function nor an aggregate function", call.pos());
            }
        };
    }

    /** The WINDOW clause's windows by name, each resolved against those before it (42P20 for a name given twice). */
    private static Map<String, WindowSpec> windowDefinitions(List<WindowSpec.Named> named) {
        Map<String, WindowSpec> out = new HashMap<>();
        for (WindowSpec.Named n : named) {
            if (out.containsKey(n.name())) throw new SqlException("42P20", "window \"" + n.name() + "\" is already defined", n.pos());
            WindowSpec spec = n.spec();
            out.put(n.name(), spec.base() == null ? spec : resolveWindow(spec, out));
        }
        return out;
    }

    /**
     * {@code spec} with its base window's clauses, by PostgreSQL's rules: a bare {@code OVER w}
     * is w; otherwise w may not have a frame, and the new window may not give a PARTITION BY, nor
     * an ORDER BY when w has one (42P20); 42704 for a name the WINDOW clause does not define.
     */
    private static WindowSpec resolveWindow(WindowSpec spec, Map<String, WindowSpec> definitions) {
        if (spec.base() == null) return spec;
        WindowSpec base = definitions.get(spec.base());
        if (base == null) throw new SqlException("42704", "window \"" + spec.base() + "\" does not exist", spec.pos());
        boolean bare = spec.partitionBy().isEmpty() && spec.orderBy().isEmpty() && spec.frame() == null;
        if (bare) return base;
        if (!spec.partitionBy().isEmpty()) throw new SqlException("42P20", "cannot override PARTITION BY clause of window \"" + spec.base() + "\"", spec.pos());
        if (!spec.orderBy().isEmpty() && !base.orderBy().isEmpty()) throw new SqlException("42P20", "cannot override ORDER BY clause of window \"" + spec.base() + "\"", spec.pos());
        if (base.frame() != null) throw new SqlException("42P20", "cannot copy window \"" + spec.base() + "\" because it has a frame clause", spec.pos());
        return new WindowSpec(spec.pos(), null, base.partitionBy(), spec.orderBy().isEmpty() ? base.orderBy() : spec.orderBy(), spec.frame());
    }

    /**
     * The frame of {@code spec} (PostgreSQL's default when it has none), its offsets constants of
     * the types their mode needs, with PostgreSQL's errors for what a frame may not be.
     */
    private Plan.WindowFrame frame(WindowSpec spec, List<SqlType> types, List<Plan.SortKey> order, java.util.function.Function<Expr, ScalarExpr> inner) {
        WindowSpec.Frame f = spec.frame();
        if (f == null) return Plan.WindowFrame.DEFAULT;
        boolean offsets = f.start().offset() != null || f.end().offset() != null;
        SqlType offsetType = SqlType.BIGINT;
        if (f.mode() == WindowSpec.Mode.GROUPS && order.isEmpty()) throw new SqlException("42P20", "GROUPS mode requires an ORDER BY clause", f.pos());
        if (f.mode() == WindowSpec.Mode.RANGE && offsets) {
            if (order.size() != 1) throw new SqlException("42P20", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column", f.pos());
            SqlType column = types.get(order.get(0).column());
            offsetType = switch (column.kind()) {
                case SMALLINT, INTEGER, BIGINT, NUMERIC, REAL, DOUBLE -> column;
                case DATE, TIMESTAMP, TIMESTAMPTZ -> SqlType.INTERVAL;
                default -> throw new SqlException("0A000", "RANGE with offset PRECEDING/FOLLOWING is not supported for column type " + column, f.pos());
            };
        }
        boolean range = f.mode() == WindowSpec.Mode.RANGE;
        Object start = frameOffset(f.start(), offsetType, range, "starting", inner);
        Object end = frameOffset(f.end(), offsetType, range, "ending", inner);
        return new Plan.WindowFrame(f.mode(), f.start().kind(), start, f.end().kind(), end, f.exclusion(), offsetType);
    }

    /** A frame bound's offset: a constant of {@code type}, neither NULL (22004) nor negative (22013); null when the bound has none. */
    private static Object frameOffset(WindowSpec.Bound bound, SqlType type, boolean range, String which, java.util.function.Function<Expr, ScalarExpr> inner) {
        if (bound.offset() == null) return null;
        ScalarExpr e = inner.apply(bound.offset());
        if (!e.isConstant()) throw new SqlException("42P10", "argument of " + which + " frame offset must not contain variables", bound.offset().pos());
        Object v = Sx.coerce(e, type, bound.offset().pos(), "frame " + which + " offset").eval(new Object[0]);
        if (v == null) throw new SqlException("22004", "frame " + which + " offset must not be null");
        boolean negative = switch (v) {
            case Long l -> l < 0;
            case java.math.BigDecimal d -> d.signum() < 0;
            // PostgreSQL refuses a NaN size as it does a negative one
            case dev.tributary.sql.types.NonFiniteNumeric n -> n != dev.tributary.sql.types.NonFiniteNumeric.POSITIVE_INFINITY;
            case Double d -> d < 0 || Double.isNaN(d);
            case Float x -> x < 0;
            case dev.tributary.sql.types.Interval iv -> iv.months() < 0 || iv.days() < 0 || iv.micros() < 0;
            default -> false;
        };
        if (negative) {
            throw new SqlException("22013", type.kind() == SqlType.Kind.BIGINT && !range ? "frame " + which + " offset must not be negative" : "invalid preceding or following size in window function");
        }
        if (type.isInteger()) v = ((Number) v).longValue();
        return v;
    }

    /** {@code a}'s claim on an expression, else {@code b}'s (either may be null). */
    private static java.util.function.Function<Expr, ScalarExpr> either(java.util.function.Function<Expr, ScalarExpr> a,
                                                                      java.util.function.Function<Expr, ScalarExpr> b) {
        if (a == null) return b;
        if (b == null) return a;
        return e -> {
            ScalarExpr x = a.apply(e);
            return x != null ? x : b.apply(e);
        };
    }

    /**
     * The set-returning function calls of the select list, run side by side over {@code rel}
     * ({@link dev.tributary.sql.expr.TableFunction#zip}, one {@link Plan.FlatMap}); the result
     * claims each call as its column, or, for a function of several columns, as the record of
     * them. Null when there are none.
     */
    private java.util.function.Function<Expr, ScalarExpr> setReturning(List<Expr> items, Scope scope, Rel rel, boolean grouped) {
        List<Expr.FunctionCall> calls = new ArrayList<>();
        for (Expr e : items) collectSetReturning(e, calls);
        if (calls.isEmpty()) return null;
        if (grouped) throw new SqlException("0A000", "set-returning functions together with GROUP BY or aggregates are not supported yet", calls.get(0).pos());
        List<dev.tributary.sql.expr.TableFunction> functions = new ArrayList<>();
        java.util.Map<Expr.FunctionCall, Integer> offsets = new java.util.IdentityHashMap<>();
        int first = rel.plan.arity();
        int at = first;
        for (Expr.FunctionCall f : calls) {
            String name = f.name().get(f.name().size() - 1);
            if (f.distinct() || f.star() || !f.orderBy().isEmpty() || f.filter() != null) {
                throw new SqlException("42601", "DISTINCT, ORDER BY, FILTER or * in a call of " + name, f.pos());
            }
            List<ScalarExpr> args = new ArrayList<>();
            for (Expr a : f.args()) args.add(new ExprBinder(this, scope, null, rel).bind(a));
            dev.tributary.sql.expr.TableFunction fn = dev.tributary.sql.expr.TableFunction.resolve(name, args, f.pos());
            functions.add(fn);
            offsets.put(f, at);
            at += fn.columnTypes().size();
        }
        rel.plan = new Plan.FlatMap(rel.plan, dev.tributary.sql.expr.TableFunction.zip(functions));
        return e -> {
            if (!(e instanceof Expr.FunctionCall f) || !offsets.containsKey(f)) return null;
            dev.tributary.sql.expr.TableFunction fn = functions.get(calls.indexOf(f));
            int col = offsets.get(f);
            if (fn.columnTypes().size() == 1) return Sx.column(col, fn.columnTypes().get(0));
            List<ScalarExpr> fields = new ArrayList<>();
            for (int i = 0; i < fn.columnTypes().size(); i++) fields.add(Sx.column(col + i, fn.columnTypes().get(i)));
            return dev.tributary.sql.expr.RecordExprs.construct(SqlType.record(fn.columnNames(), fn.columnTypes()), fields);
        };
    }

    private static void collectSetReturning(Expr e, List<Expr.FunctionCall> out) {
        if (e == null) return;
        if (e instanceof Expr.FunctionCall f && dev.tributary.sql.expr.TableFunction.isSetReturning(f.name().get(f.name().size() - 1))) {
            out.add(f);
            return;
        }
        for (Expr child : Exprs.children(e)) collectSetReturning(child, out);
    }

    private static void collectWindows(Expr e, List<Expr.WindowCall> out) {
        if (e == null) return;
        if (e instanceof Expr.WindowCall w) {
            out.add(w);
            return;
        }
        for (Expr child : Exprs.children(e)) collectWindows(child, out);
    }

    /** The leaves of nested inner joins with ON (or CROSS), and their ON conditions; other items as they are. */
    private static void flattenInner(TableRef r, List<TableRef> items, List<Expr> on) {
        if (r instanceof TableRef.Join j && (j.kind() == TableRef.JoinKind.INNER || j.kind() == TableRef.JoinKind.CROSS)
                && (j.condition() instanceof TableRef.On || j.condition() instanceof TableRef.NoCondition)
                && !(j.right() instanceof TableRef.DerivedTable d && d.lateral())) {
            flattenInner(j.left(), items, on);
            flattenInner(j.right(), items, on);
            if (j.condition() instanceof TableRef.On o) on.add(o.condition());
            return;
        }
        items.add(r);
    }

    private static void splitAnd(Expr e, List<Expr> out) {
        if (e instanceof Expr.Binary b && b.op() == dev.tributary.sql.ast.BinaryOp.AND) {
            splitAnd(b.left(), out);
            splitAnd(b.right(), out);
        } else {
            out.add(e);
        }
    }

    /** The select-list column an ORDER BY item names (output name, ordinal, or the same expression), or -1. */
    private int orderColumn(OrderItem item, List<Expr> items, List<String> names, List<String> textOfItem) {
        Expr e = item.expr();
        if (e instanceof Expr.IntegerLiteral n) {
            if (n.value() < 1 || n.value() > items.size()) throw new SqlException("42P10", "ORDER BY position " + n.value() + " is not in select list", e.pos());
            return (int) n.value() - 1;
        }
        if (e instanceof Expr.ColumnRef c && c.parts().size() == 1) {
            int found = -1;
            for (int i = 0; i < names.size(); i++) {
                if (names.get(i).equals(c.parts().get(0))) {
                    if (found >= 0 && !textOfItem.get(found).equals(textOfItem.get(i))) {
                        throw new SqlException("42702", "ORDER BY \"" + c.parts().get(0) + "\" is ambiguous", e.pos());
                    }
                    if (found < 0) found = i;
                }
            }
            if (found >= 0) return found;
        }
        String text = SqlFormatter.format(e);
        for (int i = 0; i < items.size(); i++) if (textOfItem.get(i).equals(text)) return i;
        return -1;
    }

    /** PostgreSQL's name for an unaliased select item: the column's or function's name, else {@code ?column?}. */
    static String columnName(Expr e) {
        return switch (e) {
            case Expr.ColumnRef c -> c.parts().get(c.parts().size() - 1);
            case Expr.FunctionCall f -> f.name().get(f.name().size() - 1);
            case Expr.Cast c -> c.operand() instanceof Expr.ColumnRef || c.operand() instanceof Expr.FunctionCall ? columnName(c.operand()) : Sx.typeName(c.type());
            case Expr.Case c -> "case";
            case Expr.Exists x -> "exists";
            case Expr.ScalarSubquery q when q.query().body() instanceof QueryBody.Select sel && sel.items().size() == 1 ->
                    sel.items().get(0).alias() != null ? sel.items().get(0).alias() : columnName(sel.items().get(0).expr());
            case Expr.Extract x -> "extract";
            case Expr.ArrayConstructor a -> "array";
            case Expr.RowConstructor r -> "row";
            case Expr.ArraySubquery a -> "array";
            case Expr.Subscript s -> columnName(s.array());
            case Expr.WindowCall w -> columnName(w.call());
            case Expr.FieldSelection f -> f.field();
            case Expr.BooleanLiteral b -> "bool";
            // date '...', interval '...': a cast of the string, named by its type
            case Expr.TypedLiteral t -> Sx.typeName(t.type());
            default -> "?column?";
        };
    }

    // ------------------------------------------------------------------ FROM

    /**
     * 42712 when two FROM items answer to one name, as PostgreSQL checks: except two relations
     * named without aliases from different schemas ({@code s.t} and {@code public.t}), which
     * {@code schema.t.column} tells apart.
     */
    private static void checkDuplicateAliases(List<Bound> inputs, List<TableRef> refs) {
        // per name, the FROM items answering to it so far: their input and schema (null: an alias)
        Map<String, Map<Integer, String>> seen = new HashMap<>();
        for (int i = 0; i < inputs.size() && i < refs.size(); i++) {
            for (Field f : inputs.get(i).fields()) {
                if (f.qualifier() == null) continue;
                Map<Integer, String> items = seen.computeIfAbsent(f.qualifier(), k -> new HashMap<>());
                for (Map.Entry<Integer, String> e : items.entrySet()) {
                    boolean apart = e.getValue() != null && f.schema() != null && !e.getValue().equals(f.schema());
                    if (e.getKey() != i && !apart) {
                        throw new SqlException("42712", "table name \"" + f.qualifier() + "\" specified more than once", refs.get(i).pos());
                    }
                }
                items.put(i, f.schema());
            }
        }
    }

    Bound tableRef(TableRef ref) {
        return switch (ref) {
            case TableRef.NamedTable t -> named(t);
            case TableRef.DerivedTable d -> {
                if (d.lateral()) yield lateral(new Bound(one(), List.of()), d, null);
                Bound b = relation(d.query());
                yield d.alias() == null ? rename(b, null, List.of(), d.pos()) : rename(b, d.alias().name(), d.alias().columns(), d.alias().pos());
            }
            case TableRef.ValuesTable v -> {
                Bound b = values(v.values());
                yield v.alias() == null ? rename(b, "*VALUES*", List.of(), v.pos()) : rename(b, v.alias().name(), v.alias().columns(), v.alias().pos());
            }
            case TableRef.FunctionTable f -> functionTable(new Bound(one(), List.of()), f, new Scope(List.of(), null));
            case TableRef.Join j -> join(j);
            case TableRef.WindowTable w -> WindowTables.bind(this, w);
            case TableRef.Stream s -> Streams.bind(this, s);
            case TableRef.AsOfSystemTime a -> throw new SqlException("0A000", "AS OF SYSTEM TIME is supported as the one FROM item of a LATERAL subquery: "
                    + "[LEFT] JOIN LATERAL (SELECT ... FROM x AS OF SYSTEM TIME expr SINCE lit WHERE ...) ON true", a.pos());
            case TableRef.Changes c -> changes(c);
        };
    }

    /** The FROM items before a LATERAL one, as one input (their cross join; the empty row when there are none). */
    private static Bound joinedSoFar(List<Bound> inputs) {
        List<Plan> before = new ArrayList<>();
        List<Field> fields = new ArrayList<>();
        for (Bound b : inputs) {
            before.add(b.plan());
            fields.addAll(b.fields());
        }
        return new Bound(before.isEmpty() ? one() : JoinPlanner.innerJoin(before, List.of()), fields);
    }

    /**
     * {@code left} joined laterally with the set-returning function {@code f}: each row of
     * {@code left} with each row the function gives for it ({@link Plan.FlatMap}). The columns
     * are named as PostgreSQL names them: a one-column function's column takes the alias (or the
     * function's name), a composite one keeps its columns' names unless the alias lists others.
     */
    private Bound functionTable(Bound left, TableRef.FunctionTable f, Scope scope) {
        Expr.FunctionCall call = f.call();
        String name = call.name().get(call.name().size() - 1);
        if (call.name().size() > 1 && !dev.tributary.sql.catalog.SystemCatalog.isSystemSchema(call.name().get(call.name().size() - 2))) {
            throw new SqlException("42883", "function " + String.join(".", call.name()) + " does not exist", f.pos());
        }
        if (!dev.tributary.sql.expr.TableFunction.isSetReturning(name)) {
            throw new SqlException("0A000", "only set-returning functions (generate_series, unnest) are supported in FROM; " + name + " is not one", f.pos());
        }
        if (call.distinct() || call.star() || !call.orderBy().isEmpty() || call.filter() != null) {
            throw new SqlException("42601", "DISTINCT, ORDER BY, FILTER or * in a call of " + name, f.pos());
        }
        List<ScalarExpr> args = new ArrayList<>();
        for (Expr a : call.args()) args.add(expr(a, scope));
        dev.tributary.sql.expr.TableFunction fn = dev.tributary.sql.expr.TableFunction.resolve(name, args, f.pos());
        String qualifier = f.alias() != null ? f.alias().name() : name;
        List<String> names = new ArrayList<>(fn.columnNames());
        if (names.size() == 1 && !dev.tributary.sql.expr.TableFunction.namesItsColumn(name)) names.set(0, qualifier);
        if (f.ordinality()) {
            fn = fn.withOrdinality();
            names.add("ordinality");
        }
        if (f.alias() != null) {
            if (f.alias().columns().size() > names.size()) {
                throw new SqlException("42P10", "too many column aliases specified for function " + name, f.alias().pos());
            }
            for (int i = 0; i < f.alias().columns().size(); i++) names.set(i, f.alias().columns().get(i));
        }
        List<Field> fields = new ArrayList<>(left.fields());
        for (int i = 0; i < names.size(); i++) fields.add(new Field(qualifier, names.get(i), fn.columnTypes().get(i), false));
        return new Bound(new Plan.FlatMap(left.plan(), fn), fields);
    }

    /** Notes that the statement reads catalog object {@code id} (a sequence its nextval names). */
    void dependOn(long id) {
        dependencies.add(id);
    }

    /** The catalog this binds against. */
    dev.tributary.sql.catalog.Catalog catalog() {
        return catalog;
    }

    /** The user catalog's item {@code parts} names: a bare name (found on the search path) or {@code schema.name}. */
    Optional<CatalogItem> catalogItem(List<String> parts) {
        String name = parts.get(parts.size() - 1);
        if (parts.size() == 1) return catalog.lookup(name);
        return parts.size() == 2 ? catalog.lookup(parts.get(0), name) : Optional.empty();
    }

    Bound named(TableRef.NamedTable t) {
        String name = t.name().get(t.name().size() - 1);
        String schema = dev.tributary.sql.catalog.QualifiedName.of(t.name(), t.pos()).schema();
        boolean systemSchema = schema != null && dev.tributary.sql.catalog.SystemCatalog.isSystemSchema(schema);
        // as PostgreSQL answers a query (not DDL) naming a schema that does not exist
        if (schema != null && !systemSchema && !catalog.schemaExists(schema)) {
            throw new SqlException("42P01", "relation \"" + String.join(".", t.name()) + "\" does not exist", t.pos());
        }
        Bound b;
        Bound cte = t.name().size() == 1 ? ctes.get(name) : null;
        // pg_catalog is searched first, as PostgreSQL does when the search path does not name it
        Optional<CatalogItem.SystemRelation> sys = cte != null || (schema != null && !systemSchema) ? Optional.empty()
                : dev.tributary.sql.catalog.SystemCatalog.relation(schema == null ? "pg_catalog" : schema, name);
        if (cte != null) {
            RecursiveQueries.SelfReference self = selfReferences.get(name);
            if (self != null && self.bound == cte) self.seen(this, t.pos());
            b = cte;
        } else if (sys.isPresent()) {
            CatalogItem.SystemRelation r = sys.get();
            List<Field> fields = new ArrayList<>();
            for (Column c : r.columns()) fields.add(new Field(name, c.name(), c.type(), false, schema == null ? "pg_catalog" : schema));
            // asked only by what reads the collection: asking may start the server sampling it
            java.util.OptionalLong stored = maintaining || dev.tributary.sql.catalog.SystemCatalog.onlyMaintained(r) ? catalog.maintained(r)
                    : java.util.OptionalLong.empty();
            if (stored.isPresent()) {
                // a maintained system relation reads as the table the server writes its samples to
                dependencies.add(stored.getAsLong());
                b = new Bound(new Plan.Get(stored.getAsLong(), r.name(), types(r.columns()), false), fields);
            } else {
                b = new Bound(new Plan.Constant(system().rows(r), types(r.columns())), fields);
            }
        } else if (systemSchema) {
            throw new SqlException("42P01", "relation \"" + String.join(".", t.name()) + "\" does not exist", t.pos());
        } else {
            Optional<CatalogItem> item = schema != null ? catalog.lookup(schema, name) : catalog.lookup(name);
            if (item.isEmpty() || item.get() instanceof CatalogItem.Index || item.get() instanceof CatalogItem.ForeignKey) {
                throw new SqlException("42P01", "relation \"" + String.join(".", t.name()) + "\" does not exist", t.pos());
            }
            CatalogItem it = item.get();
            dependencies.add(it.id());
            // a sequence's row is read when the query is planned, as a system catalog's is: never maintained
            if (it instanceof CatalogItem.Sequence) readsSystemCatalog = true;
            List<Field> fields = new ArrayList<>();
            String in = catalog.schemaOf(it.id());
            for (Column c : it.columns()) fields.add(new Field(name, c.name(), c.type(), false, in));
            Plan plan = switch (it) {
                case CatalogItem.View v -> v.plan();
                case CatalogItem.Table x -> new Plan.Get(x.id(), x.name(), types(x.columns()), x.insertsOnly());
                case CatalogItem.MaterializedView m -> new Plan.Get(m.id(), m.name(), types(m.columns()));
                case CatalogItem.Index i -> throw new IllegalStateException();
                case CatalogItem.ForeignKey f -> throw new IllegalStateException();
                // a sequence reads as its one row (last_value, log_cnt, is_called) as it is when bound
                case CatalogItem.Sequence q -> new Plan.Constant(List.<Object[]>of(catalog.sequences().read(q.id())), types(q.columns()));
                case CatalogItem.SystemRelation r -> throw new IllegalStateException("system relations are not in the user catalog");
            };
            b = new Bound(plan, fields);
        }
        if (t.alias() != null) return rename(b, t.alias().name(), t.alias().columns(), t.alias().pos());
        Bound named = rename(b, name, List.of(), t.pos());
        // a relation named without an alias is also reached as schema.name.column
        List<Field> fields = new ArrayList<>();
        for (int i = 0; i < named.fields().size(); i++) fields.add(named.fields().get(i).inSchema(b.fields().get(i).schema()));
        return new Bound(named.plan(), fields);
    }

    /** {@code CHANGES(x AS OF t)}: x bound as a named relation, its history from t on with change_time and change_diff. */
    private Bound changes(TableRef.Changes c) {
        String name = c.name().get(c.name().size() - 1);
        Bound x = named(new TableRef.NamedTable(c.pos(), c.name(), null));
        long since = systemTime(c.asOf(), "CHANGES ... AS OF");
        List<SqlType> types = new ArrayList<>(x.plan().types());
        types.add(SqlType.TIMESTAMPTZ);
        types.add(SqlType.BIGINT);
        List<Field> fields = new ArrayList<>(x.fields());
        fields.add(new Field(name, "change_time", SqlType.TIMESTAMPTZ, false));
        fields.add(new Field(name, "change_diff", SqlType.BIGINT, false));
        Bound b = new Bound(new Plan.Changes(x.plan(), since, types), fields);
        return c.alias() == null ? rename(b, name, List.of(), c.pos()) : rename(b, c.alias().name(), c.alias().columns(), c.alias().pos());
    }

    static List<SqlType> types(List<Column> columns) {
        List<SqlType> t = new ArrayList<>();
        for (Column c : columns) t.add(c.type());
        return t;
    }

    static Bound rename(Bound b, String qualifier, List<String> columns, int pos) {
        if (columns.size() > b.fields().size()) {
            throw new SqlException("42P10", "table \"" + qualifier + "\" has " + b.fields().size() + " columns available but " + columns.size() + " columns specified", pos);
        }
        List<Field> fields = new ArrayList<>();
        for (int i = 0; i < b.fields().size(); i++) {
            Field f = b.fields().get(i);
            fields.add(f.renamed(qualifier, i < columns.size() ? columns.get(i) : f.name()));
        }
        return new Bound(b.plan(), fields);
    }

    /**
     * {@code left} joined with the LATERAL subquery {@code d}, which may read left's columns: the
     * subquery is planned per distinct value D of the left columns it reads (as a correlated
     * subquery is) and joined back on D. Every left row meets every row its subquery gives.
     */
    private Bound lateral(Bound left, TableRef.DerivedTable d, Correlation enclosing) {
        if (AsOfLookups.isLookup(d.query())) {
            if (!asOfDesugared) return new AsOfLookups(this).bind(left, d, false);
            d = new AsOfLookups(this).desugared(left, d);
        }
        List<Field> outer = left.fields();
        Correlation probe = new Correlation(outer, null);
        correlated(d.query(), probe);
        if (enclosing != null) {
            // left begins with the enclosing query's D: what the LATERAL item reads of it, the enclosing subquery reads
            for (int i = probe.used.nextSetBit(0); i >= 0 && i < enclosing.width(); i = probe.used.nextSetBit(i + 1)) enclosing.used.set(i);
        }
        List<Field> dFields = new ArrayList<>();
        List<Integer> dColumns = new ArrayList<>();
        for (int i = probe.used.nextSetBit(0); i >= 0; i = probe.used.nextSetBit(i + 1)) {
            dFields.add(outer.get(i));
            dColumns.add(i);
        }
        int nD = dFields.size();
        int leftId = nextLetId();
        int dId = nextLetId();
        Plan leftRef = new Plan.LetRef(leftId, left.plan().types());
        Plan dValue = new Plan.Distinct(project(leftRef, dColumns));
        Plan dPlan = nD == 0 ? one() : new Plan.LetRef(dId, dValue.types());
        Bound sub = correlated(d.query(), new Correlation(dFields, dPlan));
        int nl = outer.size();
        int width = sub.fields().size() - nD;
        Plan joined = new Plan.Join(leftRef, sub.plan(), dColumns, range(0, nD));
        List<Integer> keep = new ArrayList<>(range(0, nl));
        keep.addAll(range(nl + nD, nl + nD + width));
        Plan body = project(joined, keep);
        if (nD > 0) body = new Plan.Let(dId, dValue, body);
        Plan plan = new Plan.Let(leftId, left.plan(), body);
        List<Field> subFields = sub.fields().subList(nD, sub.fields().size());
        Bound right = d.alias() == null ? rename(new Bound(project(sub.plan(), range(nD, nD + width)), subFields), null, List.of(), d.pos())
                : rename(new Bound(project(sub.plan(), range(nD, nD + width)), subFields), d.alias().name(), d.alias().columns(), d.alias().pos());
        List<Field> fields = new ArrayList<>(outer);
        fields.addAll(right.fields());
        return new Bound(plan, fields);
    }

    private Bound join(TableRef.Join j) {
        if (j.right() instanceof TableRef.DerivedTable d && d.lateral()) return lateralJoin(j, d);
        boolean leftNullable = j.kind() == TableRef.JoinKind.RIGHT || j.kind() == TableRef.JoinKind.FULL;
        boolean rightNullable = j.kind() == TableRef.JoinKind.LEFT || j.kind() == TableRef.JoinKind.FULL;
        Bound l;
        Bound r;
        nullableDepth += leftNullable ? 1 : 0;
        try {
            l = tableRef(j.left());
        } finally {
            nullableDepth -= leftNullable ? 1 : 0;
        }
        nullableDepth += rightNullable ? 1 : 0;
        try {
            r = tableRef(j.right());
        } finally {
            nullableDepth -= rightNullable ? 1 : 0;
        }
        int nl = l.fields().size();
        List<Field> fields = new ArrayList<>(l.fields());
        fields.addAll(r.fields());
        List<ScalarExpr> conjuncts = new ArrayList<>();
        List<String> using = switch (j.condition()) {
            case TableRef.Using u -> u.columns();
            case TableRef.Natural n -> {
                List<String> common = new ArrayList<>();
                for (Field f : l.fields()) {
                    if (f.hidden()) continue;
                    for (Field g : r.fields()) if (!g.hidden() && g.name().equals(f.name()) && !common.contains(f.name())) common.add(f.name());
                }
                yield common;
            }
            default -> List.of();
        };
        // USING columns: the pairs to equate, and the merged column that unqualified names see
        List<int[]> pairs = new ArrayList<>();
        for (String c : using) {
            int li = uniqueField(l.fields(), c, "left", j.pos());
            int ri = uniqueField(r.fields(), c, "right", j.pos());
            pairs.add(new int[] {li, nl + ri});
            SqlType t = Sx.common(List.of(l.fields().get(li).type(), r.fields().get(ri).type()), "JOIN/USING", j.pos());
            conjuncts.add(Sx.binary(dev.tributary.sql.ast.BinaryOp.EQ, Sx.coerce(Sx.column(li, l.fields().get(li).type()), t, j.pos(), "JOIN/USING"),
                    Sx.coerce(Sx.column(nl + ri, r.fields().get(ri).type()), t, j.pos(), "JOIN/USING"), j.pos()));
        }
        if (j.condition() instanceof TableRef.On on) {
            ScalarExpr c = Sx.coerce(expr(on.condition(), new Scope(fields, null)), SqlType.BOOLEAN, on.condition().pos(), "argument of JOIN/ON");
            Sx.conjuncts(c, conjuncts);
        }
        Plan plan = switch (j.kind()) {
            case INNER, CROSS -> JoinPlanner.innerJoin(List.of(l.plan(), r.plan()), conjuncts);
            case LEFT -> {
                Plan lookup = StreamLookups.leftJoin(l.plan(), r.plan(), conjuncts);
                yield lookup != null ? lookup : JoinPlanner.outerJoin(l.plan(), r.plan(), conjuncts, true, false);
            }
            case RIGHT -> {
                Plan lookup = StreamLookups.leftJoin(r.plan(), l.plan(), swapped(conjuncts, nl, fields.size() - nl));
                yield lookup != null ? project(lookup, swap(fields.size() - nl, nl))
                        : JoinPlanner.outerJoin(l.plan(), r.plan(), conjuncts, false, true);
            }
            case FULL -> JoinPlanner.outerJoin(l.plan(), r.plan(), conjuncts, true, true);
            case ASOF, ASOF_LEFT -> {
                if (!(j.condition() instanceof TableRef.On)) {
                    throw new SqlException("0A000", "ASOF JOIN takes ON (keys and one inequality of times), not USING or NATURAL", j.pos());
                }
                yield AsofJoins.plan(l.plan(), r.plan(), conjuncts, j.kind() == TableRef.JoinKind.ASOF_LEFT, j.pos());
            }
        };
        if (pairs.isEmpty()) return new Bound(plan, fields);
        // merged USING columns come first, then the others; the originals stay reachable qualified
        List<ScalarExpr> merged = new ArrayList<>();
        List<Field> mergedFields = new ArrayList<>();
        for (int k = 0; k < pairs.size(); k++) {
            int li = pairs.get(k)[0];
            int ri = pairs.get(k)[1];
            SqlType t = Sx.common(List.of(fields.get(li).type(), fields.get(ri).type()), "JOIN/USING", j.pos());
            ScalarExpr lc = Sx.coerce(Sx.column(li, fields.get(li).type()), t, j.pos(), "JOIN/USING");
            ScalarExpr rc = Sx.coerce(Sx.column(ri, fields.get(ri).type()), t, j.pos(), "JOIN/USING");
            merged.add(switch (j.kind()) {
                case RIGHT -> rc;
                case FULL -> Sx.call("coalesce", List.of(lc, rc), j.pos());
                default -> lc;
            });
            mergedFields.add(new Field(null, using.get(k), t, false));
        }
        List<Field> out = new ArrayList<>(mergedFields);
        for (int i = 0; i < fields.size(); i++) {
            boolean isUsing = false;
            for (int[] p : pairs) isUsing |= p[0] == i || p[1] == i;
            out.add(isUsing ? fields.get(i).hide() : fields.get(i));
        }
        List<Integer> cols = new ArrayList<>();
        int n = fields.size();
        for (int k = 0; k < merged.size(); k++) cols.add(n + k);
        cols.addAll(range(0, n));
        return new Bound(project(new Plan.Map(plan, merged), cols), out);
    }

    /** {@code left [INNER|LEFT|CROSS] JOIN LATERAL (...) [ON ...]}. */
    private Bound lateralJoin(TableRef.Join j, TableRef.DerivedTable d) {
        Bound l = tableRef(j.left());
        if (j.kind() == TableRef.JoinKind.LEFT && AsOfLookups.isLookup(d.query()) && !asOfDesugared) {
            if (!(j.condition() instanceof TableRef.On on && on.condition() instanceof Expr.BooleanLiteral b && b.value())) {
                throw new SqlException("0A000", "LEFT JOIN LATERAL over AS OF SYSTEM TIME takes ON true; put the conditions in the subquery's WHERE", j.pos());
            }
            return new AsOfLookups(this).bind(l, d, true);
        }
        if (j.condition() instanceof TableRef.Using || j.condition() instanceof TableRef.Natural) {
            throw new SqlException("0A000", "USING and NATURAL with a LATERAL subquery are not supported yet", j.pos());
        }
        Bound inner = lateral(l, d, null);
        Plan joined = lateralFiltered(inner, j);
        return switch (j.kind()) {
            case INNER, CROSS -> new Bound(joined, inner.fields());
            case LEFT -> {
                Plan padded = JoinPlanner.padUnmatched(l.plan(), joined);
                // the desugared LEFT lookup pads a row whose time has not come with NULLs; the lookup withholds it
                yield new Bound(AsOfLookups.isLookup(d.query()) && asOfDesugared ? new AsOfLookups(this).untilDue(l, d, padded) : padded, inner.fields());
            }
            case RIGHT, FULL -> throw new SqlException("0A000", j.kind() + " JOIN with a LATERAL subquery is not supported (PostgreSQL refuses it too)", j.pos());
            case ASOF, ASOF_LEFT -> throw new SqlException("0A000", "ASOF JOIN with a LATERAL subquery is not supported", j.pos());
        };
    }

    /** A LATERAL join's result with its ON conditions applied. */
    private Plan lateralFiltered(Bound inner, TableRef.Join j) {
        List<ScalarExpr> conjuncts = new ArrayList<>();
        if (j.condition() instanceof TableRef.On on) {
            ScalarExpr c = Sx.coerce(expr(on.condition(), new Scope(inner.fields(), null)), SqlType.BOOLEAN, on.condition().pos(), "argument of JOIN/ON");
            Sx.conjuncts(c, conjuncts);
        }
        return conjuncts.isEmpty() ? inner.plan() : new Plan.Filter(inner.plan(), conjuncts);
    }

    private static int uniqueField(List<Field> fields, String name, String side, int pos) {
        int found = -1;
        for (int i = 0; i < fields.size(); i++) {
            if (!fields.get(i).hidden() && fields.get(i).name().equals(name)) {
                if (found >= 0) throw new SqlException("42702", "common column name \"" + name + "\" appears more than once in " + side + " table", pos);
                found = i;
            }
        }
        if (found < 0) throw new SqlException("42703", "column \"" + name + "\" specified in USING clause does not exist in " + side + " table", pos);
        return found;
    }

    // ------------------------------------------------------------------ GROUP BY

    private final class Grouping {
        Plan plan;
        final Map<String, Integer> keyColumns = new LinkedHashMap<>();
        final Map<String, Integer> aggColumns = new LinkedHashMap<>();
        /** The key column of each input column grouped by as a bare reference, so {@code col0} finds {@code GROUP BY cor0.col0}'s key. */
        final Map<Integer, Integer> keyOfInput = new HashMap<>();
        Scope inner;
        /** What a subquery above the grouping may see of the enclosing query: only D's columns. */
        Scope subqueryScope = Scope.EMPTY;
        int prefix;

        /** An expression over the groups: group keys and aggregates become columns, other columns are errors. */
        ScalarExpr bind(Expr e, Rel rel) {
            return expr(e, subqueryScope, this, rel);
        }

        /** {@link #bind(Expr, Rel)}, with {@code claims} (window function calls over the groups) claiming what they compute first. */
        ScalarExpr bind(Expr e, Rel rel, java.util.function.Function<Expr, ScalarExpr> claims) {
            return new ExprBinder(Binder.this, subqueryScope, either(claims, this::intercept), rel).bind(e);
        }

        /** The column for {@code e} when it is a group key or an aggregate; null otherwise. */
        ScalarExpr intercept(Expr e) {
            String text = SqlFormatter.format(e);
            Integer k = keyColumns.get(text);
            if (k != null) return Sx.column(k, plan.types().get(k));
            Integer a = aggColumns.get(text);
            if (a != null) return Sx.column(a, plan.types().get(a));
            if (e instanceof Expr.ColumnRef c) {
                Resolved r = inner.resolve(c);
                if (r.index() < prefix) return Sx.column(r.index(), r.field().type()); // an outer column: constant per group
                Integer key = keyOfInput.get(r.index());
                if (key != null) return Sx.column(key, plan.types().get(key));
                throw new SqlException("42803", "column \"" + r.field().qualifiedName() + "\" must appear in the GROUP BY clause or be used in an aggregate function", c.pos());
            }
            return null;
        }
    }

    private Grouping group(QueryBody.Select s, Scope scope, Plan input, List<Expr> items, List<String> names, List<OrderItem> orderBy, Correlation c) {
        for (Expr e : items) unknownFunctions(e, scope);
        unknownFunctions(s.having(), scope);
        Grouping g = new Grouping();
        g.inner = scope;
        int nD = c == null ? 0 : c.width();
        g.prefix = nD;
        List<ScalarExpr> mapped = new ArrayList<>();
        List<Field> groupedFields = new ArrayList<>();
        List<Integer> groupedIndex = new ArrayList<>();
        // a correlated subquery groups per D row first
        List<Integer> keyCols = new ArrayList<>(range(0, nD));
        int base = input.arity();
        Map<String, Integer> keyIndex = new LinkedHashMap<>();
        for (Expr k : s.groupBy()) {
            Expr key = k;
            if (k instanceof Expr.IntegerLiteral n) {
                if (n.value() < 1 || n.value() > items.size()) throw new SqlException("42P10", "GROUP BY position " + n.value() + " is not in select list", k.pos());
                key = items.get((int) n.value() - 1);
            } else if (k instanceof Expr.ColumnRef cr && cr.parts().size() == 1 && !scope.has(cr.parts().get(0)) && names.contains(cr.parts().get(0))) {
                key = items.get(names.indexOf(cr.parts().get(0)));
            }
            if (containsAggregate(List.of(key))) throw new SqlException("42803", "aggregate functions are not allowed in GROUP BY", k.pos());
            String text = SqlFormatter.format(key);
            if (keyIndex.containsKey(text)) continue;
            keyIndex.put(text, keyCols.size());
            if (key instanceof Expr.ColumnRef ref) {
                // a subquery above the grouping may name this column: it is the key's column there
                g.keyOfInput.putIfAbsent(scope.resolve(ref).index(), keyCols.size());
                groupedFields.add(scope.resolve(ref).field());
                groupedIndex.add(keyCols.size());
            }
            mapped.add(Sx.keyForm(expr(key, scope)));
            keyCols.add(base + mapped.size() - 1);
        }
        // aggregates of the select list, HAVING and ORDER BY, each computed once
        List<Expr.FunctionCall> calls = new ArrayList<>();
        for (Expr e : items) collectAggregates(e, calls);
        if (s.having() != null) collectAggregates(s.having(), calls);
        for (OrderItem o : orderBy) collectAggregates(o.expr(), calls);
        List<AggregateCall> aggs = new ArrayList<>();
        Map<String, Integer> aggIndex = new LinkedHashMap<>();
        for (Expr.FunctionCall call : calls) {
            String text = SqlFormatter.format(call);
            if (aggIndex.containsKey(text)) continue;
            String fname = call.name().get(call.name().size() - 1);
            List<ScalarExpr> args = new ArrayList<>();
            List<Expr> argExprs = new ArrayList<>(call.args());
            // an ordered-set aggregate's aggregated arguments are its WITHIN GROUP's sort expressions
            if (call.withinGroup()) for (OrderItem o : call.orderBy()) argExprs.add(o.expr());
            for (Expr a : argExprs) {
                if (containsAggregate(List.of(a))) throw new SqlException("42803", "aggregate function calls cannot be nested", a.pos());
                args.add(expr(a, scope));
            }
            List<SqlType> argTypes = new ArrayList<>();
            for (ScalarExpr a : args) argTypes.add(a.type());
            Sx.checkWithinGroup(fname, call.withinGroup(), argTypes, call.pos());
            AggregateFunction fn = Sx.aggregate(fname, argTypes, call.distinct(), call.star(), call.pos());
            List<Integer> argCols = new ArrayList<>();
            for (int i = 0; i < args.size(); i++) {
                argCols.add(base + mappedColumn(mapped, Sx.coerce(args.get(i), fn.argTypes().get(i), call.pos(), "argument of " + fname)));
            }
            int filter = -1;
            if (call.filter() != null) {
                filter = base + mappedColumn(mapped, Sx.coerce(expr(call.filter(), scope), SqlType.BOOLEAN, call.filter().pos(), "argument of FILTER"));
            }
            List<Plan.SortKey> order = new ArrayList<>();
            for (OrderItem o : call.orderBy()) {
                mapped.add(expr(o.expr(), scope));
                order.add(sortKey(base + mapped.size() - 1, o));
            }
            aggIndex.put(text, aggs.size());
            aggs.add(new AggregateCall(fn, fname, argCols, call.distinct(), filter, order));
        }
        Scope dScope = c == null ? null : new Scope(c.fields, Scope.identityOf(nD), null, c.used);
        g.subqueryScope = new Scope(groupedFields, groupedIndex.stream().mapToInt(Integer::intValue).toArray(), dScope, null);
        Plan withArgs = new Plan.Map(input, mapped);
        boolean global = s.groupBy().isEmpty();
        Plan reduced = new Plan.Reduce(withArgs, keyCols, aggs, global);
        if (global && nD > 0) {
            // per D row, one group even when no row matched: the aggregates of nothing (count 0, others NULL)
            int id = nextLetId();
            Plan ref = new Plan.LetRef(id, reduced.types());
            List<ScalarExpr> defaults = new ArrayList<>();
            for (AggregateCall a : aggs) defaults.add(Sx.literal(a.function().evaluate(List.of(), new long[0]), a.function().resultType()));
            Plan missing = new Plan.Union(List.of(c.plan(), new Plan.Negate(project(ref, range(0, nD)))));
            reduced = new Plan.Let(id, reduced, new Plan.Union(List.of(ref, new Plan.Map(missing, defaults))));
        }
        for (Map.Entry<String, Integer> e : keyIndex.entrySet()) g.keyColumns.put(e.getKey(), e.getValue());
        for (Map.Entry<String, Integer> e : aggIndex.entrySet()) g.aggColumns.put(e.getKey(), keyCols.size() + e.getValue());
        g.plan = reduced;
        if (s.having() != null) {
            int width = reduced.arity();
            Rel rel = new Rel(reduced);
            ScalarExpr h = Sx.coerce(g.bind(s.having(), rel), SqlType.BOOLEAN, s.having().pos(), "argument of HAVING");
            g.plan = project(new Plan.Filter(rel.plan, List.of(h)), range(0, width));
        }
        return g;
    }

    private static boolean orderByAggregates(List<OrderItem> orderBy) {
        for (OrderItem o : orderBy) if (containsAggregate(List.of(o.expr()))) return true;
        return false;
    }

    /**
     * The index in {@code mapped} of a grouping input column computing {@code e}: a column
     * reference mapped already (min(x) beside max(x), or a FILTER shared by several aggregates)
     * is read from its column, so that aggregates over the same column can share the work on it.
     */
    private static int mappedColumn(List<ScalarExpr> mapped, ScalarExpr e) {
        int at = e instanceof ScalarExpr.ColumnRef ? mapped.indexOf(e) : -1;
        if (at >= 0) return at;
        mapped.add(e);
        return mapped.size() - 1;
    }

    /**
     * {@code x IN (SELECT e FROM ... WHERE c)} as a conjunct of WHERE is true exactly when some
     * row has {@code e = x}, and WHERE drops a row whose condition is NULL as it drops one whose
     * condition is false: so the equality may go into the subquery ({@code WHERE c AND x = e}),
     * where it is a join key between the outer values and the subquery's FROM, instead of being
     * compared with every row the correlation leaves (Nexmark's q8 crossed each window's persons
     * with all its auctions). Only a plain SELECT of one expression, without grouping, aggregates,
     * window functions, DISTINCT ON, ORDER BY, LIMIT or OFFSET, for which a filter on its rows is a
     * filter on its answer; NOT IN, and IN anywhere else, keep their three-valued meaning.
     */
    private static Expr semiJoin(Expr part) {
        if (!(part instanceof Expr.InSubquery in) || in.negated()) return part;
        Query q = in.query();
        if (q.limit() != null || q.offset() != null || q.limitBy() != null || !q.orderBy().isEmpty() || !(q.body() instanceof QueryBody.Select s)) return part;
        if (!s.groupBy().isEmpty() || s.having() != null || !s.distinctOn().isEmpty() || s.items().size() != 1) return part;
        Expr e = s.items().get(0).expr();
        List<Expr.WindowCall> windows = new ArrayList<>();
        collectWindows(e, windows);
        if (e instanceof Expr.Star || e instanceof Expr.QualifiedStar || containsAggregate(List.of(e)) || !windows.isEmpty() || Exprs.hasSubquery(e)) return part;
        Expr eq = new Expr.Binary(e.pos(), dev.tributary.sql.ast.BinaryOp.EQ, new Expr.ColumnRef(in.pos(), List.of(ExprBinder.inLhsQualifier(in.pos()), "lhs")), e, e.pos());
        Expr where = s.where() == null ? eq : new Expr.Binary(s.where().pos(), dev.tributary.sql.ast.BinaryOp.AND, s.where(), eq, s.where().pos());
        QueryBody.Select filtered = new QueryBody.Select(s.pos(), s.distinct(), s.distinctOn(), s.items(), s.from(), where, s.groupBy(), s.having());
        return new Expr.InSubquery(in.pos(), in.expr(), new Query(q.pos(), q.recursion(), q.with(), filtered, q.orderBy(), q.limit(), q.offset(), false, null), false);
    }

    static boolean containsAggregate(List<Expr> exprs) {
        List<Expr.FunctionCall> found = new ArrayList<>();
        for (Expr e : exprs) collectAggregates(e, found);
        return !found.isEmpty();
    }

    /**
     * Binds, over the rows before grouping, each call in {@code e} of a function that does not
     * exist, for its error: PostgreSQL looks functions up before it checks grouping, so
     * {@code SELECT foo(x), count(*) FROM t} is 42883 (no function foo(integer)), not 42803.
     */
    private void unknownFunctions(Expr e, Scope scope) {
        if (e == null) return;
        if (e instanceof Expr.FunctionCall f) {
            String name = f.name().get(f.name().size() - 1);
            if (Sx.isAggregate(name)) return;
            if (!dev.tributary.sql.expr.Functions.exists(name) && !dev.tributary.sql.catalog.SystemCatalog.isCatalogFunction(name) && !SequenceFunctions.is(name) && !JsonFunctions.is(name)
                    && !dev.tributary.sql.expr.TableFunction.isSetReturning(name) && !containsAggregate(f.args())) {
                expr(f, scope);
            }
        }
        for (Expr child : Exprs.children(e)) unknownFunctions(child, scope);
    }

    /** The aggregate calls in {@code e}, not looking into subqueries (they aggregate on their own). */
    static void collectAggregates(Expr e, List<Expr.FunctionCall> out) {
        if (e == null) return;
        if (e instanceof Expr.FunctionCall f && Sx.isAggregate(f.name().get(f.name().size() - 1))) {
            out.add(f);
            return;
        }
        for (Expr child : Exprs.children(e)) collectAggregates(child, out);
    }

    // ------------------------------------------------------------------ expressions

    /**
     * The fields visible to an expression: this level's, then the enclosing query's (for a
     * correlated subquery). Each field has the index of its column in the plan the expression is
     * evaluated over; a name is looked up level by level, innermost first, as in PostgreSQL.
     */
    static final class Scope {
        static final Scope EMPTY = new Scope(List.of(), null);
        final List<Field> fields;
        final int[] index;
        final Scope outer;
        /** Marks the fields names resolved to (a correlation's record of the outer columns it reads), or null. */
        final BitSet used;

        Scope(List<Field> fields, Scope outer) {
            this(fields, identityOf(fields.size()), outer, null);
        }

        Scope(List<Field> fields, int[] index, Scope outer, BitSet used) {
            this.fields = fields;
            this.index = index;
            this.outer = outer;
            this.used = used;
        }

        static int[] identityOf(int n) {
            return offset(0, n);
        }

        static int[] offset(int start, int n) {
            int[] a = new int[n];
            for (int i = 0; i < n; i++) a[i] = start + i;
            return a;
        }

        boolean has(String name) {
            for (Field f : fields) if (!f.hidden() && f.name().equals(name)) return true;
            return false;
        }

        /** Every (field, column) of every level, innermost level first. */
        void all(List<Field> fields, List<Integer> columns) {
            for (Scope s = this; s != null; s = s.outer) {
                for (int i = 0; i < s.fields.size(); i++) {
                    fields.add(s.fields.get(i));
                    columns.add(s.index[i]);
                }
            }
        }

        /**
         * Records that field {@code k} of {@link #all}'s listing was read: a level that belongs to
         * an enclosing correlation learns that its subquery reads that outer column too.
         */
        void markUsed(int k) {
            for (Scope s = this; s != null; s = s.outer) {
                if (k < s.fields.size()) {
                    if (s.used != null) s.used.set(k);
                    return;
                }
                k -= s.fields.size();
            }
        }

        private Resolved resolveLocal(Expr.ColumnRef c, ColumnName n) {
            String qualifier = n.qualifier(), name = n.name();
            int found = -1;
            for (int i = 0; i < fields.size(); i++) {
                Field f = fields.get(i);
                if (qualifier == null) {
                    if (f.hidden() || !f.name().equals(name)) continue;
                } else {
                    if (!qualifier.equals(f.qualifier()) || !f.name().equals(name)) continue;
                    if (n.schema() != null && !n.schema().equals(f.schema())) continue;
                }
                if (found >= 0) {
                    Field other = fields.get(found);
                    // t.a over s.t and public.t: two relations answer to t
                    if (qualifier != null && n.schema() == null && f.schema() != null && other.schema() != null && !f.schema().equals(other.schema())) {
                        throw new SqlException("42P09", "table reference \"" + qualifier + "\" is ambiguous", c.pos());
                    }
                    throw new SqlException("42702", "column reference \"" + String.join(".", c.parts()) + "\" is ambiguous", c.pos());
                }
                found = i;
            }
            if (found >= 0 && used != null) used.set(found);
            return found < 0 ? null : new Resolved(index[found], fields.get(found));
        }

        /** The one hidden column {@code name} of this scope's relation (not an outer one's), or null if none or more. */
        ScalarExpr hidden(String name) {
            int found = -1;
            for (int i = 0; i < fields.size(); i++) {
                if (!fields.get(i).hidden() || !fields.get(i).name().equals(name)) continue;
                if (found >= 0) return null;
                found = i;
            }
            if (found < 0) return null;
            if (used != null) used.set(found);
            return new ScalarExpr.ColumnRef(index[found], fields.get(found).type());
        }

        private boolean hasQualifier(String qualifier) {
            for (Field f : fields) if (qualifier.equals(f.qualifier())) return true;
            return false;
        }

        private boolean hasQualifier(String schema, String qualifier) {
            for (Field f : fields) if (qualifier.equals(f.qualifier()) && schema.equals(f.schema())) return true;
            return false;
        }

        Resolved resolve(Expr.ColumnRef c) {
            ColumnName n = ColumnName.of(c.parts().subList(0, c.parts().size() - 1), c.parts().get(c.parts().size() - 1), c.pos());
            String name = n.name(), qualifier = n.qualifier();
            boolean qualifierSeen = false;
            for (Scope s = this; s != null; s = s.outer) {
                Resolved r = s.resolveLocal(c, n);
                if (r != null) return r;
                if (qualifier != null && s.hasQualifier(qualifier)) {
                    if (n.schema() != null && !s.hasQualifier(n.schema(), qualifier)) {
                        throw new SqlException("42P01", "invalid reference to FROM-clause entry for table \"" + qualifier + "\"", c.pos(),
                                "There is an entry for table \"" + qualifier + "\", but it cannot be referenced from this part of the query.");
                    }
                    qualifierSeen = true;
                    break;
                }
            }
            if (qualifier != null && !qualifierSeen) {
                throw new SqlException("42P01", "missing FROM-clause entry for table \"" + qualifier + "\"", c.pos());
            }
            String hint = closestColumns(qualifier, name);
            if (qualifier != null) throw new SqlException("42703", "column " + qualifier + "." + name + " does not exist", c.pos(), hint);
            throw new SqlException("42703", "column \"" + name + "\" does not exist", c.pos(), hint);
        }

        /**
         * PostgreSQL's hint for a misspelt column: the visible columns (of {@code qualifier}'s
         * relation, if given) nearest to {@code name} by edit distance, if at most half of its
         * characters differ: one, or two, as PostgreSQL names them; null if none or more.
         */
        private String closestColumns(String qualifier, String name) {
            int best = name.length() / 2 + 1;
            List<Field> nearest = new ArrayList<>();
            for (Scope s = this; s != null; s = s.outer) {
                for (Field f : s.fields) {
                    if (f.hidden() || f.qualifier() == null || (qualifier != null && !qualifier.equals(f.qualifier()))) continue;
                    int d = editDistance(name, f.name());
                    if (d > name.length() / 2 || d > best) continue;
                    if (d < best) nearest.clear();
                    best = d;
                    if (nearest.stream().noneMatch(n -> n.qualifier().equals(f.qualifier()) && n.name().equals(f.name()))) nearest.add(f);
                }
            }
            if (nearest.isEmpty() || nearest.size() > 2) return null;
            String first = "the column \"" + nearest.get(0).qualifier() + "." + nearest.get(0).name() + "\"";
            return nearest.size() == 1 ? "Perhaps you meant to reference " + first + "."
                    : "Perhaps you meant to reference " + first + " or the column \"" + nearest.get(1).qualifier() + "." + nearest.get(1).name() + "\".";
        }
    }

    /** Levenshtein distance, each insertion, deletion and substitution costing 1. */
    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    record Resolved(int index, Field field) {}

    ScalarExpr expr(Expr e, Scope scope) {
        return expr(e, scope, null);
    }

    ScalarExpr expr(Expr e, Scope scope, Grouping grouping) {
        return expr(e, scope, grouping, null);
    }

    /** Binds {@code e}; subqueries in it are joined into {@code rel} (which must be given for them to be allowed). */
    ScalarExpr expr(Expr e, Scope scope, Grouping grouping, Rel rel) {
        return new ExprBinder(this, scope, grouping == null ? null : grouping::intercept, rel).bind(e);
    }

    // ------------------------------------------------------------------ statements other than queries

    /** The catalog items the bound statements read, directly (a view counts, not what it reads). */
    public java.util.Set<Long> dependencies() {
        return java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(dependencies));
    }

    public static List<SqlType> typesOf(List<Column> columns) {
        return types(columns);
    }

    /** Whether {@code q}'s relation part names DML target {@code t}, named {@code alias}. */
    private boolean isTarget(ColumnName q, String alias, CatalogItem.Table t) {
        return q.qualifier().equals(alias) && (q.schema() == null || alias.equals(t.name()) && q.schema().equals(catalog.schemaOf(t.id())));
    }

    /** The columns of DML target {@code t} named {@code alias}: reached as schema.t.column too when the alias is its own name. */
    private Scope scopeOf(String alias, CatalogItem.Table t) {
        List<Field> fields = new ArrayList<>();
        String schema = alias.equals(t.name()) ? catalog.schemaOf(t.id()) : null;
        for (Column c : t.columns()) fields.add(new Field(alias, c.name(), c.type(), false, schema));
        return new Scope(fields, null);
    }

    private static Scope scopeOf(String qualifier, List<Column> columns) {
        List<Field> fields = new ArrayList<>();
        for (Column c : columns) fields.add(new Field(qualifier, c.name(), c.type(), false));
        return new Scope(fields, null);
    }

    /** The DEFAULT expressions of CREATE TABLE columns, cast to the column types (NULL where none). */
    public List<ScalarExpr> bindDefaults(List<dev.tributary.sql.ast.Statement.ColumnDef> columns) {
        List<ScalarExpr> out = new ArrayList<>();
        for (var c : columns) {
            if (c.defaultExpr() == null) {
                out.add(Sx.literal(null, c.type()));
                continue;
            }
            ScalarExpr e = expr(c.defaultExpr(), Scope.EMPTY);
            out.add(Sx.assign(e, c.type(), c.name(), c.defaultExpr().pos()));
        }
        return out;
    }

    /** Expressions over the columns of relation {@code name} (index keys). */
    /**
     * A CHECK constraint's expression over a row of table {@code name} ({@code columns}), as a
     * boolean; PostgreSQL's refusals: 0A000 for a subquery, 42803 for an aggregate, 0A000 for a
     * volatile function (a row's check must not depend on when it is made).
     */
    public ScalarExpr bindCheck(String name, List<Column> columns, Expr e) {
        if (Exprs.hasSubquery(e)) throw new SqlException("0A000", "cannot use subquery in check constraint", e.pos());
        if (containsAggregate(List.of(e))) throw new SqlException("42803", "aggregate functions are not allowed in check constraints", e.pos());
        ScalarExpr x = Sx.coerce(expr(e, scopeOf(name, columns)), SqlType.BOOLEAN, e.pos(), "argument of CHECK");
        if (dev.tributary.sql.expr.ScalarExprs.isVolatile(x) || dev.tributary.sql.expr.ScalarExprs.usesStatementTime(x)) {
            throw new SqlException("0A000", "a CHECK constraint must not call nextval, now() or other functions whose value changes", e.pos());
        }
        return x;
    }

    public List<ScalarExpr> bindOver(String name, List<Column> columns, List<Expr> exprs) {
        List<ScalarExpr> out = new ArrayList<>();
        for (Expr e : exprs) out.add(expr(e, scopeOf(name, columns)));
        return out;
    }

    /** The rows DELETE removes: those of {@code t} for which {@code where} is true (all when null). */
    /**
     * An INSERT's, UPDATE's or DELETE's RETURNING list over a row of {@code t} (named {@code
     * alias}), {@code *} and {@code alias.*} as all its columns; null when there is none.
     */
    public Returning bindReturning(CatalogItem.Table t, String alias, List<dev.tributary.sql.ast.SelectItem> items) {
        return bindReturning(t, alias, items, false);
    }

    /**
     * {@link #bindReturning(CatalogItem.Table, String, List)} of an UPDATE ... FROM or DELETE ...
     * USING ({@code joined}): its RETURNING reads the table's row only, so a bare {@code *}, which
     * in PostgreSQL also lists the joined tables' columns, is refused (0A000) rather than answered
     * with fewer columns.
     */
    public Returning bindReturning(CatalogItem.Table t, String alias, List<dev.tributary.sql.ast.SelectItem> items, boolean joined) {
        if (items.isEmpty()) return null;
        for (dev.tributary.sql.ast.SelectItem item : items) {
            if (joined && item.expr() instanceof Expr.Star star) {
                throw new SqlException("0A000", "RETURNING * of an UPDATE ... FROM or DELETE ... USING is not supported", star.pos(),
                        "Name the table's columns, or write " + alias + ".*: RETURNING reads the row written, not the rows it was joined with.");
            }
        }
        Scope scope = scopeOf(alias, t);
        List<ScalarExpr> exprs = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (dev.tributary.sql.ast.SelectItem item : items) {
            Expr e = item.expr();
            if (e instanceof Expr.Star || (e instanceof Expr.QualifiedStar q && isTarget(ColumnName.of(q.qualifier(), "*", q.pos()), alias, t))) {
                for (int i = 0; i < t.columns().size(); i++) {
                    exprs.add(Sx.column(i, t.columns().get(i).type()));
                    names.add(t.columns().get(i).name());
                }
                continue;
            }
            if (e instanceof Expr.QualifiedStar q) {
                throw new SqlException("42P01", "missing FROM-clause entry for table \"" + String.join(".", q.qualifier()) + "\"", q.pos());
            }
            if (containsAggregate(List.of(e))) throw new SqlException("42803", "aggregate functions are not allowed in RETURNING", e.pos());
            ScalarExpr x = expr(e, scope, null, null);
            if (x.type().kind() == SqlType.Kind.UNKNOWN) x = Sx.coerce(x, SqlType.TEXT, e.pos(), "RETURNING");
            exprs.add(x);
            names.add(item.alias() != null ? item.alias() : columnName(e));
        }
        List<SqlType> types = new ArrayList<>();
        for (ScalarExpr x : exprs) types.add(x.type());
        return new Returning(exprs, names, types);
    }

    public Plan bindDelete(CatalogItem.Table t, String alias, Expr where) {
        Plan get = new Plan.Get(t.id(), t.name(), types(t.columns()));
        if (where == null) return get;
        if (containsAggregate(List.of(where))) throw new SqlException("42803", "aggregate functions are not allowed in WHERE", where.pos());
        Rel rel = new Rel(get);
        ScalarExpr w = Sx.coerce(expr(where, scopeOf(alias, t), null, rel), SqlType.BOOLEAN, where.pos(), "argument of WHERE");
        return project(new Plan.Filter(rel.plan, List.of(w)), range(0, t.columns().size()));
    }

    /**
     * DELETE ... USING: the rows of {@code t} (named {@code alias}) joined with the rows of
     * {@code using} that make {@code where} true, a row once per row it joins with (the caller
     * deletes each row of {@code t} once).
     */
    public Plan bindDelete(CatalogItem.Table t, String alias, List<TableRef> using, Expr where) {
        if (using.isEmpty()) return bindDelete(t, alias, where);
        return joinedWithTarget(t, alias, List.of(), using, where).plan();
    }

    /**
     * UPDATE ... FROM: for each row of {@code t} joined with a row of {@code from} that makes
     * {@code where} true, the old row's columns followed by the new row's (a row of {@code t}
     * appears once per row it joins with: the caller updates it once).
     */
    public Plan bindUpdate(CatalogItem.Table t, String alias, List<dev.tributary.sql.ast.Statement.Assignment> set, List<TableRef> from, Expr where) {
        if (from.isEmpty()) return bindUpdate(t, alias, set, where);
        int n = t.columns().size();
        int[] target = assignedColumns(t, set);
        // the assigned values are computed by the join's select list, after the target's columns
        List<SelectItem> values = new ArrayList<>();
        for (int k = 0; k < set.size(); k++) {
            Expr v = set.get(k).value();
            if (v instanceof Expr.DefaultValue) continue;
            if (containsAggregate(List.of(v))) throw new SqlException("42803", "aggregate functions are not allowed in UPDATE", v.pos());
            // an untyped literal is of its column's type, as it is without FROM
            values.add(new SelectItem(v.pos(), v instanceof Expr.StringLiteral ? new Expr.Cast(v.pos(), v, t.columns().get(target[k]).type()) : v, null));
        }
        Bound joined = joinedWithTarget(t, alias, values, from, where);
        ScalarExpr[] assigned = new ScalarExpr[n];
        int next = n;
        for (int k = 0; k < set.size(); k++) {
            int i = target[k];
            Column c = t.columns().get(i);
            assigned[i] = set.get(k).value() instanceof Expr.DefaultValue ? t.defaults().get(i)
                    : Sx.assign(Sx.column(next, joined.fields().get(next).type()), c.type(), c.name(), set.get(k).value().pos());
            if (!(set.get(k).value() instanceof Expr.DefaultValue)) next++;
        }
        List<ScalarExpr> newRow = new ArrayList<>();
        for (int i = 0; i < n; i++) newRow.add(assigned[i] != null ? assigned[i] : Sx.column(i, t.columns().get(i).type()));
        int width = joined.plan().arity();
        List<Integer> cols = new ArrayList<>(range(0, n));
        cols.addAll(range(width, width + n));
        return project(new Plan.Map(joined.plan(), newRow), cols);
    }

    /**
     * {@code SELECT alias.*, extra FROM t AS alias, from... WHERE where}: the rows of {@code t}
     * joined with {@code from}'s, with the values of {@code extra} after {@code t}'s columns.
     */
    private Bound joinedWithTarget(CatalogItem.Table t, String alias, List<SelectItem> extra, List<TableRef> from, Expr where) {
        int pos = from.get(0).pos();
        String name = alias != null ? alias : t.name();
        List<SelectItem> items = new ArrayList<>();
        for (Column c : t.columns()) items.add(new SelectItem(pos, new Expr.ColumnRef(pos, List.of(name, c.name())), null));
        items.addAll(extra);
        List<TableRef> tables = new ArrayList<>();
        tables.add(new TableRef.NamedTable(pos, List.of(t.name()), alias == null ? null : new dev.tributary.sql.ast.Alias(pos, alias, List.of())));
        tables.addAll(from);
        QueryBody.Select select = new QueryBody.Select(pos, false, List.of(), items, tables, where, List.of(), null);
        return relation(new Query(pos, List.of(), select, List.of(), null, null));
    }

    /** The column of {@code t} each of UPDATE's assignments {@code set} is to (42703, 42601 for a column twice, 428C9 for GENERATED ALWAYS). */
    private static int[] assignedColumns(CatalogItem.Table t, List<dev.tributary.sql.ast.Statement.Assignment> set) {
        List<Column> columns = t.columns();
        int[] out = new int[set.size()];
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int k = 0; k < set.size(); k++) {
            var a = set.get(k);
            int i = -1;
            for (int c = 0; c < columns.size(); c++) if (columns.get(c).name().equals(a.column())) i = c;
            if (i < 0) throw new SqlException("42703", "column \"" + a.column() + "\" of relation \"" + t.name() + "\" does not exist", a.pos());
            if (!seen.add(i)) throw new SqlException("42601", "multiple assignments to same column \"" + a.column() + "\"", a.pos());
            if (columns.get(i).generatedAlways() && !(a.value() instanceof Expr.DefaultValue)) {
                throw new SqlException("428C9", "column \"" + a.column() + "\" can only be updated to DEFAULT", a.pos())
                        .withDetail("Column \"" + a.column() + "\" is an identity column defined as GENERATED ALWAYS.");
            }
            out[k] = i;
        }
        return out;
    }

    /**
     * What UPDATE changes: for each row of {@code t} where {@code where} holds, the old row's
     * columns followed by the new row's.
     */
    public Plan bindUpdate(CatalogItem.Table t, String alias, List<dev.tributary.sql.ast.Statement.Assignment> set, Expr where) {
        int n = t.columns().size();
        Rel rel = new Rel(new Plan.Get(t.id(), t.name(), types(t.columns())));
        Scope scope = scopeOf(alias, t);
        ScalarExpr w = null;
        if (where != null) {
            if (containsAggregate(List.of(where))) throw new SqlException("42803", "aggregate functions are not allowed in WHERE", where.pos());
            w = Sx.coerce(expr(where, scope, null, rel), SqlType.BOOLEAN, where.pos(), "argument of WHERE");
        }
        List<ScalarExpr> assigned = assignments(alias, t, set, rel);
        Plan filtered = w == null ? rel.plan : new Plan.Filter(rel.plan, List.of(w));
        int width = filtered.arity();
        List<Integer> cols = new ArrayList<>(range(0, n));
        cols.addAll(range(width, width + n));
        return project(new Plan.Map(filtered, assigned), cols);
    }

    /**
     * ON CONFLICT DO UPDATE's SET list and WHERE over the existing row of {@code t} (named
     * {@code alias}) followed by the proposed row (named {@code excluded}), as PostgreSQL binds
     * them. Subqueries are not taken there.
     */
    public ConflictUpdate bindConflictUpdate(CatalogItem.Table t, String alias, List<dev.tributary.sql.ast.Statement.Assignment> set, Expr where) {
        List<Field> fields = new ArrayList<>();
        fields.addAll(scopeOf(alias, t).fields);
        for (Column c : t.columns()) fields.add(new Field("excluded", c.name(), c.type(), false));
        Scope scope = new Scope(fields, null);
        ScalarExpr w = null;
        if (where != null) {
            if (containsAggregate(List.of(where))) throw new SqlException("42803", "aggregate functions are not allowed in WHERE", where.pos());
            w = Sx.coerce(expr(where, scope, null, null), SqlType.BOOLEAN, where.pos(), "argument of WHERE");
        }
        for (var a : set) {
            if (containsAggregate(List.of(a.value()))) throw new SqlException("42803", "aggregate functions are not allowed in UPDATE", a.value().pos());
        }
        return new ConflictUpdate(assignments(scope, t, set, null), w);
    }

    /** The new value of every column of {@code t} under UPDATE's SET list, over the old row (subqueries joined into {@code rel}). */
    private List<ScalarExpr> assignments(String alias, CatalogItem.Table t, List<dev.tributary.sql.ast.Statement.Assignment> set, Rel rel) {
        return assignments(scopeOf(alias, t), t, set, rel);
    }

    private List<ScalarExpr> assignments(Scope scope, CatalogItem.Table t, List<dev.tributary.sql.ast.Statement.Assignment> set, Rel rel) {
        List<Column> columns = t.columns();
        ScalarExpr[] out = new ScalarExpr[columns.size()];
        int[] target = assignedColumns(t, set);
        for (int k = 0; k < set.size(); k++) {
            var a = set.get(k);
            int i = target[k];
            out[i] = a.value() instanceof Expr.DefaultValue
                    ? t.defaults().get(i)
                    : Sx.assign(expr(a.value(), scope, null, rel), columns.get(i).type(), a.column(), a.value().pos());
        }
        List<ScalarExpr> result = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) result.add(out[c] != null ? out[c] : Sx.column(c, columns.get(c).type()));
        return result;
    }

    /** PostgreSQL's 428C9 for a value given to a GENERATED ALWAYS identity column. */
    private static SqlException generatedAlways(String column, int pos) {
        return new SqlException("428C9", "cannot insert a non-DEFAULT value into column \"" + column + "\"", pos,
                "Use OVERRIDING SYSTEM VALUE to override.").withDetail("Column \"" + column + "\" is an identity column defined as GENERATED ALWAYS.");
    }

    /** INSERT's rows as a plan producing whole rows of {@code t}: named columns assigned, the others their defaults. */
    public BoundQuery bindInsert(CatalogItem.Table t, dev.tributary.sql.ast.Statement.Insert ins) {
        InsertSource in = bindInsertSource(t, ins);
        List<Column> columns = t.columns();
        List<Integer> target = in.targets();
        Plan source = in.plan();
        List<SqlType> sourceTypes = source.types();
        // full rows: targeted columns from the source, the rest their defaults
        List<ScalarExpr> full = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            int k = target.indexOf(c);
            full.add(k >= 0 ? Sx.column(k, sourceTypes.get(k)) : t.defaults().get(c));
        }
        int n = sourceTypes.size();
        Plan plan = project(new Plan.Map(source, full), range(n, n + full.size()));
        List<String> names = new ArrayList<>();
        for (Column c : columns) names.add(c.name());
        return new BoundQuery(plan, names, types(columns), List.of());
    }

    /**
     * What an INSERT writes before defaults: {@code plan}'s rows are the values of the columns
     * {@code targets} (indexes into the table's columns), each assigned to its column's type.
     */
    public record InsertSource(Plan plan, List<Integer> targets) {}

    /** The rows of {@code ins} for the columns it names (all, in order, when it names none), as {@link InsertSource}. */
    public InsertSource bindInsertSource(CatalogItem.Table t, dev.tributary.sql.ast.Statement.Insert ins) {
        return bindInsertSource(t, ins, false);
    }

    /** {@link #bindInsertSource(CatalogItem.Table, dev.tributary.sql.ast.Statement.Insert)}; its query bound as the outermost (a job's) if {@code topLevel}. */
    public InsertSource bindInsertSource(CatalogItem.Table t, dev.tributary.sql.ast.Statement.Insert ins, boolean topLevel) {
        List<Column> columns = t.columns();
        List<Integer> target = new ArrayList<>();
        Query q = ins.source();
        Bound bound = null;
        if (ins.columns().isEmpty()) {
            // without a column list the values fill the first columns; the rest take their defaults
            int width;
            if (q.isBare() && q.body() instanceof QueryBody.Values v) {
                width = v.rows().get(0).size();
            } else {
                bound = relation(q, topLevel);
                width = bound.fields().size();
            }
            target.addAll(range(0, Math.min(width, columns.size())));
            if (width > columns.size() && bound != null) throw new SqlException("42601", "INSERT has more expressions than target columns", q.pos());
        } else {
            for (String name : ins.columns()) {
                int i = -1;
                for (int c = 0; c < columns.size(); c++) if (columns.get(c).name().equals(name)) i = c;
                if (i < 0) throw new SqlException("42703", "column \"" + name + "\" of relation \"" + t.name() + "\" does not exist", ins.pos());
                if (target.contains(i)) throw new SqlException("42701", "column \"" + name + "\" specified more than once", ins.pos());
                target.add(i);
            }
        }
        Plan source;
        List<SqlType> sourceTypes;
        if (q.isBare() && q.body() instanceof QueryBody.Values v) {
            // VALUES rows, with DEFAULT allowed and each value assigned straight to its column type
            List<Plan> parts = new ArrayList<>();
            List<Object[]> constants = new ArrayList<>();
            List<SqlType> types = new ArrayList<>();
            for (int i : target) types.add(columns.get(i).type());
            for (List<Expr> row : v.rows()) {
                if (row.size() > target.size()) throw new SqlException("42601", "INSERT has more expressions than target columns", row.get(target.size()).pos());
                if (row.size() < target.size()) throw new SqlException("42601", "INSERT has more target columns than expressions", row.isEmpty() ? v.pos() : row.get(row.size() - 1).pos());
                List<ScalarExpr> exprs = new ArrayList<>();
                boolean constant = true;
                for (int k = 0; k < row.size(); k++) {
                    int col = target.get(k);
                    Expr e = row.get(k);
                    if (columns.get(col).generatedAlways() && !(e instanceof Expr.DefaultValue)) throw generatedAlways(columns.get(col).name(), e.pos());
                    ScalarExpr x = e instanceof Expr.DefaultValue ? t.defaults().get(col)
                            : Sx.assign(expr(e, Scope.EMPTY), columns.get(col).type(), columns.get(col).name(), e.pos());
                    exprs.add(x);
                    constant &= Sx.isConstant(x);
                }
                Object[] folded = constant ? tryEvaluate(exprs) : null;
                if (folded != null) constants.add(folded);
                else parts.add(project(new Plan.Map(one(), exprs), range(0, exprs.size())));
            }
            if (!constants.isEmpty()) parts.add(0, new Plan.Constant(constants, types));
            source = parts.size() == 1 ? parts.get(0) : new Plan.Union(parts);
            sourceTypes = types;
        } else {
            Bound b = bound != null ? bound : relation(q, topLevel);
            if (b.fields().size() > target.size()) throw new SqlException("42601", "INSERT has more expressions than target columns", q.pos());
            if (b.fields().size() < target.size()) throw new SqlException("42601", "INSERT has more target columns than expressions", q.pos());
            List<ScalarExpr> exprs = new ArrayList<>();
            for (int k = 0; k < target.size(); k++) {
                Column c = columns.get(target.get(k));
                if (c.generatedAlways()) throw generatedAlways(c.name(), q.pos());
                exprs.add(Sx.assign(Sx.column(k, b.fields().get(k).type()), c.type(), c.name(), q.pos()));
            }
            int n = b.fields().size();
            source = project(new Plan.Map(b.plan(), exprs), range(n, n + exprs.size()));
            sourceTypes = source.types();
        }
        return new InsertSource(source, List.copyOf(target));
    }

    /** The value of a constant expression cast to {@code type} (ADVANCE CLOCK's argument). */
    public Object constant(Expr e, SqlType type) {
        ScalarExpr x = Sx.cast(expr(e, Scope.EMPTY), type, e.pos());
        if (!Sx.isConstant(x)) throw new SqlException("42601", "a constant is required here", e.pos());
        Object v = x.eval(new Object[0]);
        if (v == null) throw new SqlException("22004", "the value must not be NULL", e.pos());
        return v;
    }

    /**
     * A system time given in SQL ({@code AS OF}, {@code UP TO}): a constant {@code timestamptz}
     * (or anything that casts to one, such as a string) or a number of milliseconds since the
     * epoch; returned as milliseconds since the epoch.
     */
    public long systemTime(Expr e, String clause) {
        ScalarExpr x = expr(e, Scope.EMPTY);
        if (!Sx.isConstant(x)) throw new SqlException("42601", clause + " takes a constant time", e.pos());
        SqlType.Kind kind = x.type().kind();
        boolean millis = switch (kind) {
            case SMALLINT, INTEGER, BIGINT, NUMERIC -> true;
            case TIMESTAMPTZ, TIMESTAMP, DATE, TEXT, VARCHAR, CHAR, UNKNOWN -> false;
            default -> throw new SqlException("42804", clause + " takes a timestamptz or a number of milliseconds since the epoch, not " + x.type(), e.pos());
        };
        Object v = constant(e, millis ? SqlType.BIGINT : SqlType.TIMESTAMPTZ);
        long t = millis ? (Long) v : ((java.time.Instant) v).toEpochMilli();
        if (t < 0) throw new SqlException("22008", clause + " time " + t + " is before the epoch", e.pos());
        return t;
    }

    // ------------------------------------------------------------------ helpers

    static Plan project(Plan p, List<Integer> cols) {
        if (cols.size() == p.arity()) {
            boolean identity = true;
            for (int i = 0; i < cols.size(); i++) identity &= cols.get(i) == i;
            if (identity) return p;
        }
        return new Plan.Project(p, cols);
    }

    /** {@code conjuncts} over (left, right) columns renumbered for (right, left). */
    private static List<ScalarExpr> swapped(List<ScalarExpr> conjuncts, int nl, int nr) {
        int[] map = new int[nl + nr];
        for (int c = 0; c < nl; c++) map[c] = nr + c;
        for (int c = 0; c < nr; c++) map[nl + c] = c;
        return conjuncts.stream().map(x -> Sx.remap(x, map)).toList();
    }

    /** The columns of (a, b) put back as (b, a)'s: b's {@code nb} columns after a's {@code na}, then a's. */
    static List<Integer> swap(int na, int nb) {
        List<Integer> order = new ArrayList<>(range(na, na + nb));
        order.addAll(range(0, na));
        return order;
    }

    static List<Integer> range(int from, int to) {
        List<Integer> r = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) r.add(i);
        return r;
    }

    static int nextLetId() {
        return LET_IDS.incrementAndGet();
    }
}
