package dev.tributary.sql.render;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A chain of filters, maps and projections over rows of one type, run as one pass per encoded
 * row (the map-filter-project of Materialize's plans): the input row's columns that some step
 * reads are decoded once, each step works on the values, and the output row is encoded once, or,
 * when every output column is an input column, cut out of the input row's bytes. The steps run
 * in their order, so a map's expression is not evaluated for a row an earlier filter dropped,
 * and its errors are those the steps one by one would give. Immutable and stateless: one
 * instance may run on every worker at once.
 */
public final class MapFilterProject {
    private final RowCodec inCodec;
    private final RowCodec outCodec;
    private final Step[] chain;
    /**
     * The leading equalities of input columns with constants, comparisons of integer and date
     * columns with constants, and {@code IS [NOT] NULL} of input columns, tested on the row's
     * bytes before anything is decoded ({@link RowCodec#columnBytesEqual},
     * {@link RowCodec#compareColumnBytes}, {@link RowCodec#isNull}): a scan for
     * {@code name = 'x'} or {@code qty > 11} decodes no row that fails it, and a join's
     * {@code key IS NOT NULL} over picked columns runs column to column.
     */
    private final int[] byteColumns;
    private final Row[] byteValues;
    /** Per byte test, its operator: {@link #EQ}, {@link #LT}, {@link #LE}, {@link #GT}, {@link #GE} (the column on the left), {@link #NOT_NULL} or {@link #IS_NULL}. */
    private final int[] byteOps;
    private static final int EQ = 0;
    private static final int LT = 1;
    private static final int LE = 2;
    private static final int GT = 3;
    private static final int GE = 4;
    /** {@code column IS NOT NULL} and {@code column IS NULL}: the column's tag byte (its byte value is unused). */
    private static final int NOT_NULL = 5;
    private static final int IS_NULL = 6;
    /** Which input columns some step or the output reads, and the last of them. */
    private final BitSet needed;
    private final int last;
    /** The most values the row holds at any step. */
    private final int width;
    /** Per output column, the input column it is a copy of, or -1 if computed. */
    private final int[] outColumns;
    /** Whether some step filters or computes (else the chain is a projection of the input). */
    private final boolean computes;
    /** Whether every output column is a copy of an input column. */
    private final boolean copied;
    /** Some output columns are copies of input columns, spliced from the input row's bytes, and some are computed. */
    private final boolean spliced;
    /** The last input column an output column copies (-1: none). */
    private final int lastCopied;
    /** Whether the output row is the input row. */
    private final boolean identity;
    /** Whether the leading equalities are the only steps that read values (the rest pick columns). */
    private final boolean bytesOnly;
    /** The projection onto {@link #outColumns} when every output column is a copy of an input column, else null. */
    private final RowCodec.Projection projection;

    /**
     * The chain of {@code steps} (each a {@link Plan.Filter}, {@link Plan.Map} or
     * {@link Plan.Project}, innermost first) over rows of {@code inputTypes}.
     *
     * @throws IllegalArgumentException if a step is of another kind
     */
    public static MapFilterProject of(List<Plan> steps, List<SqlType> inputTypes) {
        return new MapFilterProject(steps, inputTypes);
    }

    private MapFilterProject(List<Plan> steps, List<SqlType> inputTypes) {
        inCodec = new RowCodec(inputTypes);
        List<SqlType> outTypes = steps.isEmpty() ? inputTypes : steps.get(steps.size() - 1).types();
        outCodec = new RowCodec(outTypes);
        // where each column comes from as the steps run: an input column, or -1 (computed)
        int size = inputTypes.size();
        int[] origin = new int[size];
        for (int c = 0; c < size; c++) origin[c] = c;
        boolean computing = false;
        chain = new Step[steps.size()];
        List<Integer> columns = new java.util.ArrayList<>();
        List<Row> values = new java.util.ArrayList<>();
        List<Integer> ops = new java.util.ArrayList<>();
        boolean leading = true; // nothing that may fail so far: no other predicate, no computed column
        for (int k = 0; k < chain.length; k++) {
            switch (steps.get(k)) {
                case Plan.Filter f -> {
                    computing |= !f.predicates().isEmpty();
                    List<ScalarExpr> rest = new java.util.ArrayList<>();
                    for (ScalarExpr e : f.predicates()) {
                        Row v = leading ? byteTest(e, origin, inputTypes, columns, ops) : null;
                        if (v == null) {
                            leading = false;
                            rest.add(e);
                        } else {
                            values.add(v);
                        }
                    }
                    chain[k] = new Step.Keep(rest.toArray(ScalarExpr[]::new));
                }
                case Plan.Map m -> {
                    int n = m.input().types().size();
                    origin = Arrays.copyOf(origin, n + m.exprs().size());
                    for (int e = 0; e < m.exprs().size(); e++) {
                        origin[n + e] = m.exprs().get(e) instanceof ScalarExpr.ColumnRef ref ? origin[ref.index()] : -1;
                        computing |= origin[n + e] < 0;
                        leading &= origin[n + e] >= 0; // a computed column may fail: what follows waits for it
                    }
                    size = Math.max(size, origin.length);
                    chain[k] = new Step.Append(n, m.exprs().toArray(ScalarExpr[]::new));
                }
                case Plan.Project p -> {
                    int[] next = new int[p.columns().size()];
                    for (int c = 0; c < next.length; c++) next[c] = origin[p.columns().get(c)];
                    origin = next;
                    size = Math.max(size, next.length);
                    chain[k] = new Step.Pick(p.columns().stream().mapToInt(Integer::intValue).toArray());
                }
                default -> throw new IllegalArgumentException("not a map, filter or projection: " + steps.get(k));
            }
        }
        byteColumns = columns.stream().mapToInt(Integer::intValue).toArray();
        byteValues = values.toArray(Row[]::new);
        byteOps = ops.stream().mapToInt(Integer::intValue).toArray();
        outColumns = origin;
        width = size;
        computes = computing;
        copied = Arrays.stream(outColumns).allMatch(c -> c >= 0);
        identity = copied && outColumns.length == inCodec.arity()
                && java.util.stream.IntStream.range(0, outColumns.length).allMatch(c -> outColumns[c] == c);
        // which input columns some step needs, from the output down
        // (an output column cut from the input row's bytes is not decoded)
        needed = new BitSet();
        // an output column that copies an input column is spliced from the input's bytes, not decoded
        for (int c = 0; c < outColumns.length; c++) if (outColumns[c] < 0) needed.set(c);
        spliced = !copied && Arrays.stream(outColumns).anyMatch(c -> c >= 0);
        lastCopied = Arrays.stream(outColumns).max().orElse(-1);
        for (int k = steps.size() - 1; k >= 0; k--) {
            switch (steps.get(k)) {
                case Plan.Filter f -> {
                    for (ScalarExpr e : ((Step.Keep) chain[k]).predicates()) ScalarExprs.columns(e, needed);
                }
                case Plan.Map m -> {
                    int n = m.input().types().size();
                    needed.clear(n, Math.max(n, needed.length()));
                    BitSet read = new BitSet();
                    m.exprs().forEach(e -> ScalarExprs.columns(e, read));
                    read.clear(n, Math.max(n, read.length()));
                    needed.or(read);
                }
                case Plan.Project p -> {
                    BitSet below = new BitSet();
                    for (int c = needed.nextSetBit(0); c >= 0; c = needed.nextSetBit(c + 1)) below.set(p.columns().get(c));
                    needed.clear();
                    needed.or(below);
                }
                default -> throw new IllegalArgumentException("not a map, filter or projection: " + steps.get(k));
            }
        }
        last = needed.length() - 1;
        projection = copied ? inCodec.projection(outColumns) : null;
        bytesOnly = copied && Arrays.stream(chain).allMatch(st -> st instanceof Step.Pick || st instanceof Step.Keep k && k.predicates().length == 0);
    }

    /** Whether the chain only picks input columns: no filter, no computed column. */
    public boolean isProjection() {
        return !computes && copied;
    }

    /** For a chain that {@link #isProjection}, the input column each output column is a copy of. */
    public int[] pickedColumns() {
        if (!isProjection()) throw new IllegalStateException("this chain filters or computes; it is not a projection");
        return outColumns.clone();
    }

    /** The codec of the rows {@link #apply} returns. */
    public RowCodec outCodec() {
        return outCodec;
    }

    /** Whether the chain begins with tests of the row's bytes ({@link #passesByteTests}). */
    public boolean hasByteTests() {
        return byteColumns.length > 0 && !isProjection();
    }

    /**
     * Whether the input row encoded in {@code b} from {@code start} on passes the chain's leading
     * tests of its bytes (equalities and comparisons of columns with constants): a row that does
     * not is dropped by {@link #apply} too, which tests them first, before any step that could
     * fail, so a reader may drop such rows before they are even copied out of a batch.
     */
    public boolean passesByteTests(byte[] b, int start) {
        return byteTestsPass(null, b, start);
    }

    /** The byte tests of {@code row}, or (null) of the row encoded in {@code b} from {@code start} on. */
    private boolean byteTestsPass(Row row, byte[] b, int start) {
        for (int i = 0; i < byteColumns.length; i++) {
            if (byteOps[i] >= NOT_NULL) {
                boolean isNull = row != null ? inCodec.isNull(row, byteColumns[i]) : inCodec.isNull(b, start, byteColumns[i]);
                if (isNull != (byteOps[i] == IS_NULL)) return false;
                continue;
            }
            if (byteOps[i] == EQ) {
                boolean equal = row != null ? inCodec.columnBytesEqual(row, byteColumns[i], byteValues[i])
                        : inCodec.columnBytesEqual(b, start, byteColumns[i], byteValues[i]);
                if (!equal) return false;
                continue;
            }
            int c = row != null ? inCodec.compareColumnBytes(row, byteColumns[i], byteValues[i])
                    : inCodec.compareColumnBytes(b, start, byteColumns[i], byteValues[i]);
            // a NULL column makes the comparison NULL: the row does not pass
            if (c == RowCodec.NULL_COLUMN) return false;
            boolean holds = switch (byteOps[i]) {
                case LT -> c < 0;
                case LE -> c <= 0;
                case GT -> c > 0;
                default -> c >= 0;
            };
            if (!holds) return false;
        }
        return true;
    }

    /**
     * Whether the chain only tests bytes and picks columns ({@link #applyInto} runs it): it cannot
     * fail, and needs no value decoded.
     */
    public boolean picksBytes() {
        return isProjection() || bytesOnly;
    }

    /**
     * {@link #apply} of the row that is value {@code i} of {@code from}, appended to {@code into}
     * (and true), or nothing appended when a byte test drops it (false); for a chain that
     * {@link #picksBytes}, with no object made.
     */
    public boolean applyInto(BytesColumn from, int i, BytesColumn into) {
        if (!picksBytes()) throw new IllegalStateException("this chain computes values; use apply");
        byte[] b = from.slab();
        int start = from.start(i);
        if (!isProjection() && !byteTestsPass(null, b, start)) return false;
        if (identity) into.add(b, start, from.start(i + 1) - start);
        else projection.into(b, start, into);
        return true;
    }

    /**
     * {@code row} after every step, or null when a filter drops it.
     *
     * @throws dev.tributary.sql.SqlException what a step's expression throws for this row
     */
    public Row apply(Row row) {
        if (isProjection()) return identity ? row : projection.apply(row);
        if (!byteTestsPass(row, null, 0)) return null;
        if (bytesOnly) return identity ? row : projection.apply(row);
        Object[] values = inCodec.decode(row, needed, last);
        if (values.length < width) values = Arrays.copyOf(values, width);
        for (Step st : chain) {
            switch (st) {
                case Step.Keep k -> {
                    for (ScalarExpr p : k.predicates()) {
                        if (!Boolean.TRUE.equals(p.eval(values))) return null;
                    }
                }
                case Step.Append a -> {
                    ScalarExpr[] exprs = a.exprs();
                    for (int e = 0; e < exprs.length; e++) values[a.at() + e] = exprs[e].eval(values);
                }
                case Step.Pick p -> {
                    Object[] next = new Object[width];
                    int[] columns = p.columns();
                    for (int c = 0; c < columns.length; c++) next[c] = values[columns[c]];
                    values = next;
                }
            }
        }
        if (identity) return row;
        if (copied) return projection.apply(row);
        if (spliced) return outCodec.splice(row, inCodec.bounds(row, lastCopied), outColumns, values);
        return outCodec.encode(values.length == outColumns.length ? values : Arrays.copyOf(values, outColumns.length));
    }

    /**
     * If {@code e} is {@code column = constant}, or {@code column < constant} (or {@code <=},
     * {@code >}, {@code >=}) for a column of an order-keeping encoding ({@link
     * RowCodec#orderedEncoding}), either way round, where the column is a copy of an input column
     * ({@code origin} maps the step's columns to the input's) of a type whose values each have one
     * encoding, and the constant is of its type and not NULL: the constant encoded as that column
     * is, with the input column added to {@code columns} and the operator (column on the left) to
     * {@code ops}; else null.
     */
    private static Row byteTest(ScalarExpr e, int[] origin, List<SqlType> inputTypes, List<Integer> columns, List<Integer> ops) {
        // a column's NULL is its tag byte, whatever its type, but for a record, which PostgreSQL
        // calls NULL also when every field is
        if (e instanceof ScalarExpr.IsNull n && n.arg() instanceof ScalarExpr.ColumnRef c && c.index() < origin.length && origin[c.index()] >= 0
                && c.type().kind() != SqlType.Kind.RECORD) {
            columns.add(origin[c.index()]);
            ops.add(n.negated() ? NOT_NULL : IS_NULL);
            return Row.EMPTY;
        }
        ScalarExpr.ColumnRef col;
        ScalarExpr r;
        int op;
        ScalarExprs.ColumnEquality eq = ScalarExprs.columnEquality(e);
        if (eq != null) {
            col = eq.column();
            r = eq.other();
            op = EQ;
        } else if (e instanceof ScalarExpr.Call c && c.args().size() == 2 && comparison(c.name()) >= 0) {
            boolean left = c.args().get(0) instanceof ScalarExpr.ColumnRef;
            if (!left && !(c.args().get(1) instanceof ScalarExpr.ColumnRef)) return null;
            col = (ScalarExpr.ColumnRef) c.args().get(left ? 0 : 1);
            r = c.args().get(left ? 1 : 0);
            op = comparison(left ? c.name() : dev.tributary.sql.expr.BinaryOp.mirrored(c.name()));
            if (!RowCodec.orderedEncoding(col.type().kind())) return null;
        } else {
            return null;
        }
        if (col.index() >= origin.length || origin[col.index()] < 0 || !r.isConstant()) return null;
        int input = origin[col.index()];
        SqlType type = inputTypes.get(input);
        if (!type.equals(col.type()) || !r.type().equals(type) || !RowCodec.oneEncoding(type.kind())) return null;
        Object v;
        try {
            v = r.eval(new Object[0]);
        } catch (RuntimeException x) {
            return null; // an error in the constant: the expression reports it
        }
        if (v == null) return null;
        columns.add(input);
        ops.add(op);
        return RowCodec.of(type).encode(v);
    }

    /** The operator {@code name} as a byte test's, or -1 if it is not a comparison. */
    private static int comparison(String name) {
        return switch (name) {
            case "<" -> LT;
            case "<=" -> LE;
            case ">" -> GT;
            case ">=" -> GE;
            default -> -1;
        };
    }

    /** One step of the chain over a row's values. */
    private sealed interface Step {
        /** A filter: the row goes on if every predicate is true. */
        record Keep(ScalarExpr[] predicates) implements Step {}

        /** A map: the values of {@code exprs} written from column {@code at} on. */
        record Append(int at, ScalarExpr[] exprs) implements Step {}

        /** A projection: the values at {@code columns}, in that order. */
        record Pick(int[] columns) implements Step {}
    }
}
