package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Query;
import dev.tributary.sql.ast.QueryBody;
import dev.tributary.sql.ast.SelectItem;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.bind.Binder.Bound;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.parser.SqlFormatter;
import dev.tributary.sql.bind.Binder.Scope;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Binds the correlated lookup {@code [LEFT] JOIN LATERAL (SELECT items FROM x AS OF SYSTEM TIME
 * expr SINCE lit WHERE conds) ON true} to a {@link Plan.AsOfLookup}, not by decorrelation: each
 * outer row looks x up once, as x was at the time {@code expr} gives for it.
 *
 * <p>The WHERE is split into equalities between an expression over x and one over the outer row
 * (the lookup key), conditions over x alone (applied to x before it is arranged), and conditions
 * over the outer row alone (a row failing them looks nothing up); anything else is refused with
 * 0A000. {@code expr} reads only the outer row and is a timestamptz (or timestamp, read as UTC) or
 * a number of milliseconds since the epoch; a NULL time looks nothing up. The select items may read
 * both sides; under LEFT, a row that found nothing gets NULL for every item, as PostgreSQL gives
 * for an empty LATERAL subquery.
 */
final class AsOfLookups {
    private final Binder binder;

    AsOfLookups(Binder binder) {
        this.binder = binder;
    }

    /** Whether {@code q} is a SELECT whose one FROM item is {@code x AS OF SYSTEM TIME ...}. */
    static boolean isLookup(Query q) {
        return q.body() instanceof QueryBody.Select s && s.from().size() == 1 && s.from().get(0) instanceof TableRef.AsOfSystemTime;
    }

    /**
     * The lookup's desugaring, as a LATERAL subquery of its own: x's changes since lit, at or before
     * the lookup time, summed per row of x, present once the lookup time has passed, each row
     * repeated by its count:
     * <pre>
     * SELECT items FROM (SELECT cols, sum(change_diff) AS c FROM CHANGES(x AS OF lit) AS x
     *                    WHERE change_time <= t AND t <= now() AND conds GROUP BY cols) AS x, repeat_row(x.c)
     * </pre>
     * (an integer lookup time {@code e} in milliseconds is {@code t = to_timestamp(e / 1000.0)}).
     */
    TableRef.DerivedTable desugared(Bound left, TableRef.DerivedTable d) {
        QueryBody.Select sel = (QueryBody.Select) d.query().body();
        TableRef.AsOfSystemTime a = (TableRef.AsOfSystemTime) sel.from().get(0);
        if (a.alias() != null && !a.alias().columns().isEmpty()) {
            throw new SqlException("0A000", "column aliases on an AS OF SYSTEM TIME relation are not supported in its desugaring", a.alias().pos());
        }
        if (a.since() == null) throw new SqlException("0A000", "the desugaring of an AS OF SYSTEM TIME lookup needs its SINCE", a.pos());
        Bound x = binder.named(new TableRef.NamedTable(a.pos(), a.name(), a.alias()));
        String alias = SqlFormatter.ident(a.alias() != null ? a.alias().name() : a.name().get(a.name().size() - 1));
        String e = "(" + SqlFormatter.format(a.asOf()) + ")";
        SqlType.Kind kind = binder.expr(a.asOf(), new Scope(left.fields(), Scope.identityOf(left.fields().size()), null, null)).type().kind();
        String t = switch (kind) {
            case SMALLINT, INTEGER, BIGINT -> "to_timestamp(" + e + " / 1000.0)";
            default -> e + "::timestamptz";
        };
        StringBuilder cols = new StringBuilder();
        for (Field f : x.fields()) {
            if (f.hidden()) continue;
            if (!cols.isEmpty()) cols.append(", ");
            cols.append(alias).append('.').append(SqlFormatter.ident(f.name()));
        }
        StringBuilder items = new StringBuilder();
        for (SelectItem item : sel.items()) {
            if (!items.isEmpty()) items.append(", ");
            items.append(SqlFormatter.format(item.expr()));
            if (item.alias() != null) items.append(" AS ").append(SqlFormatter.ident(item.alias()));
        }
        String sql = "SELECT " + items + " FROM (SELECT " + cols + ", sum(" + alias + ".change_diff) AS change_count FROM CHANGES("
                + SqlFormatter.format(new TableRef.NamedTable(a.pos(), a.name(), null)) + " AS OF " + SqlFormatter.format(a.since()) + ") AS " + alias
                + " WHERE " + alias + ".change_time <= " + t + " AND " + t + " <= now()"
                + (sel.where() == null ? "" : " AND (" + SqlFormatter.format(sel.where()) + ")")
                + " GROUP BY " + cols + ") AS " + alias + ", repeat_row(" + alias + ".change_count)";
        return new TableRef.DerivedTable(d.pos(), true, Parser.parseQuery(sql), d.alias());
    }

    /**
     * The desugared LEFT lookup {@code joined} (outer's columns first) present only once its lookup
     * time has come ({@code coalesce(t, epoch) <= now()}: a temporal filter; a NULL time is due at
     * once, as the half-join answers it at once), which is when the half-join lets it out.
     */
    Plan untilDue(Bound left, TableRef.DerivedTable d, Plan joined) {
        TableRef.AsOfSystemTime a = (TableRef.AsOfSystemTime) ((QueryBody.Select) d.query().body()).from().get(0);
        ScalarExpr ms = lookupMillis(a, new Scope(left.fields(), Scope.identityOf(left.fields().size()), null, null));
        ScalarExpr t = new ScalarExpr.Call("to_timestamp_ms", List.of(ms), SqlType.TIMESTAMPTZ,
                args -> java.time.Instant.ofEpochMilli((Long) args[0]), true);
        ScalarExpr due = Sx.call("coalesce", List.of(t, Sx.literal(java.time.Instant.EPOCH, SqlType.TIMESTAMPTZ)), a.pos());
        return new Plan.Filter(joined, List.of(Sx.binary(dev.tributary.sql.ast.BinaryOp.LE, due,
                new ScalarExpr.Now(SqlType.TIMESTAMPTZ), a.pos())));
    }

    /** The lookup time of {@code a} over {@code outer}, in milliseconds since the epoch (bigint). */
    private ScalarExpr lookupMillis(TableRef.AsOfSystemTime a, Scope outer) {
        ScalarExpr time = binder.expr(a.asOf(), outer);
        return switch (time.type().kind()) {
            case SMALLINT, INTEGER, BIGINT -> Sx.cast(time, SqlType.BIGINT, a.asOf().pos());
            case TIMESTAMPTZ, TIMESTAMP, DATE, UNKNOWN -> epochMillis(Sx.cast(time, SqlType.TIMESTAMPTZ, a.asOf().pos()));
            default -> throw new SqlException("42804", "AS OF SYSTEM TIME takes a timestamptz or a number of milliseconds since the epoch, not "
                    + time.type(), a.asOf().pos());
        };
    }

    Bound bind(Bound left, TableRef.DerivedTable d, boolean leftJoin) {
        Query q = d.query();
        QueryBody.Select sel = (QueryBody.Select) q.body();
        TableRef.AsOfSystemTime a = (TableRef.AsOfSystemTime) sel.from().get(0);
        if (!q.with().isEmpty() || !q.orderBy().isEmpty() || q.limit() != null || q.offset() != null || q.limitBy() != null || sel.distinct()
                || !sel.groupBy().isEmpty() || sel.having() != null) {
            throw new SqlException("0A000", "a LATERAL subquery over AS OF SYSTEM TIME is SELECT ... FROM x AS OF SYSTEM TIME expr SINCE lit [WHERE ...], "
                    + "without WITH, DISTINCT, GROUP BY, HAVING, ORDER BY, LIMIT or OFFSET", d.pos());
        }
        Bound x = binder.named(new TableRef.NamedTable(a.pos(), a.name(), a.alias()));
        // no SINCE (FOR SYSTEM_TIME AS OF): as far back as the table is readable when the query starts
        long since = a.since() == null ? Plan.AsOfLookup.READABLE : binder.systemTime(a.since(), "AS OF SYSTEM TIME ... SINCE");
        int nl = left.fields().size();
        int nx = x.fields().size();
        // bound first over [outer | x]; x's columns are moved once the layout is known
        Scope outerScope = new Scope(left.fields(), Scope.identityOf(nl), null, null);
        Scope scope = new Scope(x.fields(), Scope.offset(nl, nx), outerScope, null);

        ScalarExpr time = lookupMillis(a, outerScope);

        List<ScalarExpr> outerKeys = new ArrayList<>();
        List<ScalarExpr> dimKeys = new ArrayList<>();
        List<ScalarExpr> dimFilters = new ArrayList<>();
        List<ScalarExpr> outerFilters = new ArrayList<>();
        if (sel.where() != null) {
            List<ScalarExpr> conjuncts = new ArrayList<>();
            Sx.conjuncts(Sx.coerce(binder.expr(sel.where(), scope), SqlType.BOOLEAN, sel.where().pos(), "argument of WHERE"), conjuncts);
            int[] toX = shift(nl + nx, nl, -nl);
            for (ScalarExpr c : conjuncts) {
                BitSet cols = Sx.columnsOf(c);
                boolean readsOuter = cols.nextSetBit(0) >= 0 && cols.nextSetBit(0) < nl;
                boolean readsX = cols.nextSetBit(nl) >= 0;
                ScalarExpr[] eq = Sx.asEquality(c);
                if (!readsOuter) {
                    dimFilters.add(Sx.remap(c, toX));
                } else if (!readsX) {
                    outerFilters.add(c);
                } else if (eq != null && side(eq[0], nl) != side(eq[1], nl) && side(eq[0], nl) != 0 && side(eq[1], nl) != 0) {
                    boolean xFirst = side(eq[0], nl) == 2;
                    dimKeys.add(Sx.joinKeyForm(Sx.remap(xFirst ? eq[0] : eq[1], toX)));
                    outerKeys.add(Sx.joinKeyForm(xFirst ? eq[1] : eq[0]));
                } else {
                    throw new SqlException("0A000", "the WHERE of an AS OF SYSTEM TIME lookup may compare " + String.join(".", a.name())
                            + "'s columns with the outer row's only by =", sel.where().pos());
                }
            }
        }
        // a row failing its own conditions looks nothing up: its lookup time becomes NULL
        if (!outerFilters.isEmpty()) {
            time = Sx.caseWhen(List.of(Sx.and(outerFilters)), List.of(time), Sx.literal(null, SqlType.BIGINT));
        }
        int k = outerKeys.size();
        List<ScalarExpr> outerExtra = new ArrayList<>(outerKeys);
        outerExtra.add(time);
        Plan outer = new Plan.Map(left.plan(), outerExtra);
        Plan dimBase = dimFilters.isEmpty() ? x.plan() : new Plan.Filter(x.plan(), dimFilters);
        JoinPlanner.KeyedSide dim = JoinPlanner.keyed(dimBase, dimKeys);
        int outerWidth = nl + k + 1;
        int dimWidth = dim.plan().arity();
        List<SqlType> types = new ArrayList<>(outer.types());
        types.addAll(dim.plan().types());
        types.add(SqlType.BOOLEAN);
        Plan lookup = new Plan.AsOfLookup(outer, dim.plan(), Binder.range(nl, nl + k), dim.keys(), nl + k, since, leftJoin, types);

        // the select items over the joined row: outer columns stay, x's follow the outer row's extras
        int[] layout = new int[nl + nx];
        for (int i = 0; i < nl; i++) layout[i] = i;
        for (int j = 0; j < nx; j++) layout[nl + j] = outerWidth + j;
        ScalarExpr matched = Sx.column(outerWidth + dimWidth, SqlType.BOOLEAN);
        List<ScalarExpr> items = new ArrayList<>();
        List<Field> fields = new ArrayList<>();
        String qualifier = d.alias() == null ? null : d.alias().name();
        for (SelectItem item : sel.items()) {
            if (item.expr() instanceof Expr.Star || item.expr() instanceof Expr.QualifiedStar) {
                for (int j = 0; j < nx; j++) {
                    Field f = x.fields().get(j);
                    items.add(Sx.column(nl + j, f.type()));
                    fields.add(new Field(qualifier, f.name(), f.type(), false));
                }
                continue;
            }
            ScalarExpr e = binder.expr(item.expr(), scope);
            items.add(e);
            fields.add(new Field(qualifier, item.alias() != null ? item.alias() : Binder.columnName(item.expr()), e.type(), false));
        }
        List<ScalarExpr> mapped = new ArrayList<>();
        for (ScalarExpr e : items) {
            ScalarExpr m = Sx.remap(e, layout);
            mapped.add(leftJoin ? Sx.caseWhen(List.of(matched), List.of(m), Sx.literal(null, m.type())) : m);
        }
        int joinedWidth = lookup.arity();
        List<Integer> keep = new ArrayList<>(Binder.range(0, nl));
        keep.addAll(Binder.range(joinedWidth, joinedWidth + mapped.size()));
        Plan plan = Binder.project(new Plan.Map(lookup, mapped), keep);
        if (d.alias() != null && !d.alias().columns().isEmpty()) {
            Bound renamed = Binder.rename(new Bound(Binder.project(plan, Binder.range(nl, nl + fields.size())), fields), qualifier, d.alias().columns(), d.alias().pos());
            fields = renamed.fields();
        }
        List<Field> all = new ArrayList<>(left.fields());
        all.addAll(fields);
        return new Bound(plan, all);
    }

    /** 1 if {@code e} reads only outer columns (below {@code nl}), 2 if only x's, 0 if both or none. */
    private static int side(ScalarExpr e, int nl) {
        BitSet cols = Sx.columnsOf(e);
        if (cols.isEmpty()) return 0;
        boolean outer = cols.nextSetBit(0) < nl;
        boolean x = cols.nextSetBit(nl) >= 0;
        return outer && x ? 0 : outer ? 1 : 2;
    }

    /** A column map for {@code n} columns moving those from {@code from} on by {@code by} (earlier ones unused). */
    private static int[] shift(int n, int from, int by) {
        int[] m = new int[n];
        for (int i = 0; i < n; i++) m[i] = i >= from ? i + by : -1;
        return m;
    }

    private static ScalarExpr epochMillis(ScalarExpr timestamptz) {
        return new ScalarExpr.Call("epoch_ms", List.of(timestamptz), SqlType.BIGINT, args -> ((java.time.Instant) args[0]).toEpochMilli(), true);
    }
}
