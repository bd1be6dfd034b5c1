package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.BinaryOp;
import dev.tributary.sql.ast.Cte;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Query;
import dev.tributary.sql.ast.QueryBody;
import dev.tributary.sql.ast.SelectItem;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.expr.ArrayExprs;
import dev.tributary.sql.expr.RecordExprs;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The SEARCH and CYCLE clauses of a {@code WITH RECURSIVE} query, lowered as PostgreSQL defines
 * them: by rewriting the query into one that carries extra columns, before it is iterated.
 *
 * <p>With {@code n} columns {@code c} in the query and the clause's columns {@code k} among them,
 * the extra columns and how each term computes them from its row (the step also from the row of
 * the query it was reached from, {@code prev}):
 * <ul>
 *   <li>{@code SEARCH DEPTH FIRST BY k SET s}: {@code s} is the path of {@code ROW(k)}s from the
 *       base row, an array: base {@code ARRAY[ROW(k)]}, step {@code prev.s || ROW(k)}. Sorting by
 *       it visits each row's descendants right after the row.</li>
 *   <li>{@code SEARCH BREADTH FIRST BY k SET s}: {@code s} is {@code ROW(depth, k)}: base
 *       {@code ROW(0, k)}, step {@code ROW(prev.s.depth + 1, k)}.</li>
 *   <li>{@code CYCLE k SET m [TO v DEFAULT d] USING p}: {@code p} is the path as for depth
 *       first; {@code m} is {@code d} in the base and {@code v} in a step row whose
 *       {@code ROW(k)} is already on {@code prev.p} ({@code d} otherwise), and the step reads only
 *       rows with {@code m <> v}: a row that closes a cycle is produced, not followed.</li>
 * </ul>
 * Rows compare as whole records there (NULL fields equal), as PostgreSQL's {@code record_eq}.
 *
 * <p>The step reads {@code prev}'s extra columns by name (and they are there for the user's step
 * too, though {@code *} leaves them out): each is added to the recursive term's select list,
 * qualified by the name the recursive reference has in its FROM, and the new values are computed
 * above the bound step. Since that is a map above a row-at-a-time step, a linear step stays
 * linear and so is maintained incrementally like any recursive query.
 */
final class SearchCycle {
    /** An added column: its name and type. */
    private record Extra(String name, SqlType type) {}

    private final Cte cte;
    private final List<SqlType> types;
    private final int[] searchColumns;
    private final int[] cycleColumns;
    private final SqlType searchRow;
    private final SqlType cycleRow;
    private final ScalarExpr markValue;
    private final ScalarExpr markDefault;
    private final List<Extra> extras = new ArrayList<>();

    private SearchCycle(Binder b, Cte cte, List<String> names, List<SqlType> types) {
        this.cte = cte;
        this.types = List.copyOf(types);
        Cte.Search search = cte.search();
        Cte.Cycle cycle = cte.cycle();
        searchColumns = search == null ? null : positions(search.columns(), names, "search", search.pos());
        cycleColumns = cycle == null ? null : positions(cycle.columns(), names, "cycle", cycle.pos());
        if (search != null && cycle != null) {
            if (search.sequenceColumn().equals(cycle.markColumn())) {
                throw new SqlException("42601", "search sequence column name and cycle mark column name are the same", search.pos());
            }
            if (search.sequenceColumn().equals(cycle.pathColumn())) {
                throw new SqlException("42601", "search sequence column name and cycle path column name are the same", search.pos());
            }
        }
        if (cycle != null && cycle.markColumn().equals(cycle.pathColumn())) {
            throw new SqlException("42601", "cycle mark column name and cycle path column name are the same", cycle.pos());
        }
        searchRow = search == null ? null : rowType(searchColumns, search.breadthFirst());
        if (search != null) extras.add(new Extra(search.sequenceColumn(), search.breadthFirst() ? searchRow : SqlType.array(searchRow)));
        cycleRow = cycle == null ? null : rowType(cycleColumns, false);
        if (cycle != null) {
            ScalarExpr v, d;
            if (cycle.markValue() == null) {
                v = Sx.literal(true, SqlType.BOOLEAN);
                d = Sx.literal(false, SqlType.BOOLEAN);
            } else {
                v = b.expr(cycle.markValue(), Binder.Scope.EMPTY);
                d = b.expr(cycle.markDefault(), Binder.Scope.EMPTY);
            }
            SqlType t = Sx.common(List.of(v.type(), d.type()), "CYCLE", cycle.pos());
            markValue = Sx.coerce(v, t, cycle.pos(), "CYCLE");
            markDefault = Sx.coerce(d, t, cycle.pos(), "CYCLE");
            if (t.kind() == SqlType.Kind.JSON) throw new SqlException("42883", "could not identify an equality operator for type json", cycle.pos());
            extras.add(new Extra(cycle.markColumn(), t));
            extras.add(new Extra(cycle.pathColumn(), SqlType.array(cycleRow)));
        } else {
            markValue = null;
            markDefault = null;
        }
    }

    /**
     * Checks the form PostgreSQL requires of a query with SEARCH or CYCLE before anything is
     * bound: recursive, a UNION whose left is not itself a set operation and whose right is a
     * SELECT. Returns the right as that SELECT.
     */
    static QueryBody.Select checkForm(Cte cte, boolean recursive, QueryBody.SetOperation union) {
        if (!recursive || union == null) throw notRecursive(cte);
        if (setOperation(union.left())) {
            throw new SqlException("0A000", "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT", union.left().pos());
        }
        QueryBody right = union.right();
        if (right instanceof Query q && q.with().isEmpty() && q.orderBy().isEmpty() && q.limit() == null && q.offset() == null && q.limitBy() == null) right = q.body();
        if (!(right instanceof QueryBody.Select s)) {
            throw new SqlException("42601", "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT", union.right().pos());
        }
        return s;
    }

    static SqlException notRecursive(Cte cte) {
        return new SqlException("42601", "WITH query is not recursive", cte.pos());
    }

    private static boolean setOperation(QueryBody body) {
        return body instanceof QueryBody.SetOperation || body instanceof Query q && setOperation(q.body());
    }

    /** The clauses of {@code cte} over its base term's columns ({@code names}, {@code types}); errors for columns it does not have. */
    static SearchCycle of(Binder b, Cte cte, List<String> names, List<SqlType> types) {
        return new SearchCycle(b, cte, names, types);
    }

    private static int[] positions(List<String> columns, List<String> names, String clause, int pos) {
        int[] at = new int[columns.size()];
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i);
            at[i] = names.indexOf(c);
            if (at[i] < 0) throw new SqlException("42601", clause + " column \"" + c + "\" not in WITH query column list", pos);
            if (!seen.add(c)) throw new SqlException("42701", clause + " column \"" + c + "\" specified more than once", pos);
        }
        return at;
    }

    /** The record of the columns at {@code at}, led by a depth for breadth-first search. */
    private SqlType rowType(int[] at, boolean depth) {
        List<String> names = new ArrayList<>();
        List<SqlType> fieldTypes = new ArrayList<>();
        if (depth) {
            names.add("depth");
            fieldTypes.add(SqlType.BIGINT);
        }
        for (int c : at) {
            names.add("f" + (names.size() + 1));
            fieldTypes.add(types.get(c));
        }
        return SqlType.record(names, fieldTypes);
    }

    /** The added columns' types, in order (search's column, then cycle's mark and path). */
    List<SqlType> extraTypes() {
        return extras.stream().map(Extra::type).toList();
    }

    /** The added columns as fields qualified by {@code qualifier}; {@code unstarred} for the recursive term's view. */
    List<Field> extraFields(String qualifier, boolean unstarred) {
        return extras.stream().map(e -> new Field(qualifier, e.name(), e.type(), false, unstarred)).toList();
    }

    /**
     * The recursive term bound by {@code bind}: when an added column's name is one of the
     * query's own, the added column itself is ambiguous there, and what PostgreSQL reports is
     * the user's own ambiguous reference (42702) if there is one, else the clash (42601).
     */
    Binder.Bound bindStep(QueryBody.Select step, List<String> names, java.util.function.Function<QueryBody, Binder.Bound> bind) {
        try {
            return bind.apply(rewriteStep(step));
        } catch (SqlException e) {
            if (e.sqlState().equals("42702") && e.position() == step.pos()) checkNames(names);
            throw e;
        }
    }

    /** 42601 when an added column's name is one of the query's own ({@code names}). */
    void checkNames(List<String> names) {
        Cte.Search search = cte.search();
        Cte.Cycle cycle = cte.cycle();
        if (search != null && names.contains(search.sequenceColumn())) {
            throw new SqlException("42601", "search sequence column name \"" + search.sequenceColumn() + "\" already used in WITH query column list", search.pos());
        }
        if (cycle != null && names.contains(cycle.markColumn())) {
            throw new SqlException("42601", "cycle mark column name \"" + cycle.markColumn() + "\" already used in WITH query column list", cycle.pos());
        }
        if (cycle != null && names.contains(cycle.pathColumn())) {
            throw new SqlException("42601", "cycle path column name \"" + cycle.pathColumn() + "\" already used in WITH query column list", cycle.pos());
        }
    }

    /** The base term's plan with the added columns' starting values after its own. */
    Plan extendBase(Plan base) {
        List<ScalarExpr> added = new ArrayList<>();
        if (searchColumns != null) {
            added.add(cte.search().breadthFirst()
                    ? row(searchRow, Sx.literal(0L, SqlType.BIGINT), searchColumns)
                    : ArrayExprs.construct(List.of(row(searchRow, null, searchColumns)), cte.search().pos()));
        }
        if (cycleColumns != null) {
            added.add(markDefault);
            added.add(ArrayExprs.construct(List.of(row(cycleRow, null, cycleColumns)), cte.cycle().pos()));
        }
        return new Plan.Map(base, added);
    }

    /**
     * The recursive term reading {@code prev}'s added columns: each appended to its select list,
     * and (with CYCLE) only rows not marked as closing a cycle read. Unchanged when the recursive
     * reference is not directly in its FROM (it is then refused elsewhere, or is not there).
     */
    QueryBody.Select rewriteStep(QueryBody.Select step) {
        String self = null;
        for (TableRef t : step.from()) {
            self = selfName(t);
            if (self != null) break;
        }
        if (self == null) return step;
        int pos = step.pos();
        List<SelectItem> items = new ArrayList<>(step.items());
        for (Extra e : extras) items.add(new SelectItem(pos, new Expr.ColumnRef(pos, List.of(self, e.name())), null));
        Expr where = step.where();
        if (cte.cycle() != null) {
            Expr open = new Expr.Binary(pos, BinaryOp.NE, new Expr.ColumnRef(pos, List.of(self, cte.cycle().markColumn())),
                    cte.cycle().markValue() == null ? new Expr.BooleanLiteral(pos, true) : cte.cycle().markValue(), pos);
            where = where == null ? open : new Expr.Binary(pos, BinaryOp.AND, where, open, pos);
        }
        return new QueryBody.Select(step.pos(), step.distinct(), step.distinctOn(), items, step.from(), where, step.groupBy(), step.having(), step.windows());
    }

    /** The name the recursive reference goes by in {@code t}, or null when {@code t} does not hold it directly. */
    private String selfName(TableRef t) {
        return switch (t) {
            case TableRef.NamedTable n when n.name().size() == 1 && n.name().get(0).equals(cte.name()) -> n.alias() != null ? n.alias().name() : cte.name();
            case TableRef.Join j -> {
                String l = selfName(j.left());
                yield l != null ? l : selfName(j.right());
            }
            default -> null;
        };
    }

    /**
     * The bound recursive term (the query's {@code n} columns, then {@code prev}'s added ones,
     * all of the query's types) with the added columns' new values in place of {@code prev}'s.
     */
    Plan extendStep(Plan step) {
        int n = types.size();
        int k = extras.size();
        List<ScalarExpr> added = new ArrayList<>();
        int prev = n;
        if (searchColumns != null) {
            ScalarExpr before = Sx.column(prev++, extras.get(0).type());
            int pos = cte.search().pos();
            if (cte.search().breadthFirst()) {
                ScalarExpr depth = Sx.binary(BinaryOp.ADD, RecordExprs.field(before, "depth", pos), Sx.literal(1L, SqlType.BIGINT), pos);
                added.add(row(searchRow, depth, searchColumns));
            } else {
                added.add(Sx.binary(BinaryOp.CONCAT, before, row(searchRow, null, searchColumns), pos));
            }
        }
        if (cycleColumns != null) {
            int pos = cte.cycle().pos();
            prev++; // the previous row's mark: only unmarked rows were read
            ScalarExpr path = Sx.column(prev, SqlType.array(cycleRow));
            ScalarExpr here = row(cycleRow, null, cycleColumns);
            ScalarExpr seen = ArrayExprs.quantified(dev.tributary.sql.expr.BinaryOp.EQ, here, path, false, pos);
            added.add(Sx.caseWhen(List.of(seen), List.of(markValue), markDefault));
            added.add(Sx.binary(BinaryOp.CONCAT, path, here, pos));
        }
        List<Integer> keep = Binder.range(0, n);
        keep.addAll(Binder.range(n + k, n + 2 * k));
        return Binder.project(new Plan.Map(step, added), keep);
    }

    /** {@code ROW([lead,] columns at)} of type {@code t}, over the query's columns. */
    private ScalarExpr row(SqlType t, ScalarExpr lead, int[] at) {
        List<ScalarExpr> fields = new ArrayList<>();
        if (lead != null) fields.add(lead);
        for (int c : at) fields.add(Sx.column(c, types.get(c)));
        return RecordExprs.construct(t, fields);
    }
}
