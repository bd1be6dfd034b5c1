package dev.tributary.server;

import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The pull-query fast path: a query that is only maps, filters and projections over one stored
 * collection is answered by reading the collection's arrangement, or, when its filters fix every
 * key column of an index on it to constants ({@code col = c}, {@code col IN (c1, c2, ...)},
 * {@code col = ANY(array)}, an integer column between two constants: {@code BETWEEN}, {@code <},
 * {@code >=}, ...; up to {@link #MAX_KEYS} keys in all), by seeking those keys in the index; the
 * maps and filters then run over just those rows. Otherwise it scans: each worker runs the steps
 * over its part of the arrangement as it reads it ({@link dev.tributary.server.compute.Dataflows#scan}). No dataflow is built.
 * (Index keys are hashed bytes, not ordered, so a range is sought value by value, and one too
 * wide scans.)
 *
 * @param source the stored collection read
 * @param index the index whose keys are looked up, or null to read the whole collection
 * @param keys the distinct keys to look up (encoded with the index's key types), or null
 * @param steps the maps, filters and projections, innermost first
 */
record Peek(long source, CatalogItem.Index index, List<Row> keys, List<Plan> steps) {
    /** The most keys a peek seeks (an IN list's, or the product of several columns' lists); past it, it reads the collection. */
    static final int MAX_KEYS = 10_000;

    /** The peek that answers {@code plan}, or null when it needs a dataflow. */
    static Peek of(Plan plan, Collection<CatalogItem.Index> indexes) {
        List<Plan> steps = stepsOf(plan);
        if (steps == null) return null;
        Plan.Get g = (Plan.Get) steps.remove(0);
        // source column = constant (or one of a list), in any filter of the chain (every filter still runs on the rows found)
        Map<Integer, List<Object>> fixed = new java.util.HashMap<>();
        forEachChoice(steps, g, (source, values) -> {
            List<Object> matching = new ArrayList<>();
            try {
                for (ScalarExpr value : values) {
                    Object v = value.eval(new Object[0]);
                    if (v instanceof List<?> array && value.type().isArray()) {
                        for (Object e : array) if (matches(e, value.type().element(), g.types().get(source))) matching.add(e);
                    } else if (matches(v, value.type(), g.types().get(source))) {
                        matching.add(v);
                    }
                }
            } catch (RuntimeException e) {
                return; // an error in a constant: leave it to the general path to report
            }
            fixed.putIfAbsent(source, matching);
        });
        for (CatalogItem.Index ix : indexes) {
            if (ix.on() != g.id()) continue;
            List<List<Object>> choices = new ArrayList<>();
            long product = 1;
            for (ScalarExpr k : ix.keys()) {
                List<Object> c = k instanceof ScalarExpr.ColumnRef col ? fixed.get(col.index()) : null;
                if (c == null) break;
                choices.add(c);
                product *= Math.max(1, c.size());
            }
            if (choices.size() < ix.keys().size() || product > MAX_KEYS) continue;
            List<SqlType> types = new ArrayList<>();
            for (ScalarExpr k : ix.keys()) types.add(k.type());
            RowCodec codec = new RowCodec(types);
            java.util.LinkedHashSet<Row> keys = new java.util.LinkedHashSet<>();
            addKeys(choices, 0, new Object[choices.size()], codec, keys);
            return new Peek(g.id(), ix, List.copyOf(keys), steps);
        }
        return new Peek(g.id(), null, null, steps);
    }

    /** The rows of {@code rowsByKey} (rows by primary key, as the index holds the key) under {@code keys}. */
    static Map<Row, Long> ofKeys(Map<Row, Map<Row, Long>> rowsByKey, List<Row> keys) {
        Map<Row, Long> out = new java.util.LinkedHashMap<>();
        for (Row k : keys) {
            Map<Row, Long> rows = rowsByKey.get(k);
            if (rows != null) out.putAll(rows);
        }
        return out;
    }

    /**
     * The rows of {@code rows} (of the collection {@code peek} seeks, of {@code sourceTypes})
     * whose index key is one of {@code peek}'s keys; all of them when the index keys are not
     * all columns of types whose equal values are equal bytes (a numeric 1.50 is the key 1.5).
     */
    static Map<Row, Long> withKeys(Map<Row, Long> rows, Peek peek, List<SqlType> sourceTypes) {
        int[] columns = new int[peek.index().keys().size()];
        for (int i = 0; i < columns.length; i++) {
            if (!(peek.index().keys().get(i) instanceof ScalarExpr.ColumnRef c) || !RowCodec.oneEncoding(sourceTypes.get(c.index()).kind())) return rows;
            columns[i] = c.index();
        }
        RowCodec codec = new RowCodec(sourceTypes);
        java.util.Set<Row> keys = new java.util.HashSet<>(peek.keys());
        Map<Row, Long> out = new java.util.LinkedHashMap<>();
        rows.forEach((row, n) -> {
            if (keys.contains(codec.project(row, columns))) out.put(row, n);
        });
        return out;
    }

    /**
     * Whether {@code v} (of {@code type}) can equal a value of a column of {@code column}'s type:
     * not NULL, and an integer within the column's range (integers of every width are Longs; one
     * outside the range matches nothing, so it is no key to seek).
     */
    private static boolean matches(Object v, SqlType type, SqlType column) {
        if (v == null) return false;
        boolean integers = type.isInteger() && column.isInteger();
        return !integers || dev.tributary.sql.types.Values.inRange((Long) v, column);
    }

    /** Every combination of one choice per key column, in key form, encoded: the keys to seek (a set, so no row is found twice). */
    private static void addKeys(List<List<Object>> choices, int column, Object[] key, RowCodec codec, java.util.Set<Row> out) {
        if (column == choices.size()) {
            out.add(codec.encode(key.clone()));
            return;
        }
        for (Object v : choices.get(column)) {
            key[column] = dev.tributary.sql.row.Keys.normalize(v);
            addKeys(choices, column + 1, key, codec, out);
        }
    }

    /** The one key of a peek that seeks exactly one (an equality on every key column). */
    Row key() {
        if (keys == null || keys.size() != 1) throw new IllegalStateException("this peek seeks " + (keys == null ? "no key" : keys.size() + " keys"));
        return keys.get(0);
    }

    /** Receives the constant values a source column is restricted to by a filter: it equals one of {@code values}. */
    private interface ChoiceConsumer {
        void accept(int source, List<ScalarExpr> values);
    }

    /**
     * Every restriction of a source column to constants in the filters of {@code steps}:
     * {@code col = c} (one value), {@code col IN (c1, ...)} and {@code col = ANY(array)} (an
     * array constant, whose elements are the values), seen through projections and maps.
     */
    private static void forEachChoice(List<Plan> steps, Plan.Get g, ChoiceConsumer consumer) {
        forEachEquality(steps, g, (e, source, value) -> {
            if (value.isConstant()) consumer.accept(source, List.of(value));
        });
        int[] source = new int[g.types().size()];
        for (int i = 0; i < source.length; i++) source[i] = i;
        Map<Integer, long[]> ranges = new java.util.TreeMap<>();
        for (Plan st : steps) {
            switch (st) {
                case Plan.Filter f -> {
                    for (ScalarExpr e : conjuncts(f.predicates())) {
                        narrowRange(e, source, ranges);
                        ScalarExpr column;
                        List<ScalarExpr> values;
                        if (e instanceof ScalarExpr.InList in && !in.negated()) {
                            column = in.expr();
                            values = in.list();
                        } else if (e instanceof ScalarExpr.Call c && c.name().equals("= ANY") && c.args().size() == 2) {
                            column = c.args().get(0);
                            values = List.of(c.args().get(1));
                        } else {
                            continue;
                        }
                        if (!(column instanceof ScalarExpr.ColumnRef col) || col.index() >= source.length || source[col.index()] < 0) continue;
                        boolean constant = true;
                        for (ScalarExpr v : values) {
                            SqlType t = v.type().isArray() ? v.type().element() : v.type();
                            constant &= v.isConstant() && (t.kind() == col.type().kind() || (t.isInteger() && col.type().isInteger()));
                        }
                        if (constant) consumer.accept(source[col.index()], values);
                    }
                }
                case Plan.Map m -> {
                    int[] wider = java.util.Arrays.copyOf(source, source.length + m.exprs().size());
                    java.util.Arrays.fill(wider, source.length, wider.length, -1);
                    source = wider;
                }
                case Plan.Project pr -> {
                    int[] projected = new int[pr.columns().size()];
                    for (int i = 0; i < projected.length; i++) projected[i] = source[pr.columns().get(i)];
                    source = projected;
                }
                default -> throw new IllegalStateException("not a peek step: " + st);
            }
        }
        // a range of integers no wider than a seek's keys is the list of its values
        ranges.forEach((column, r) -> {
            List<ScalarExpr> values = new ArrayList<>();
            if (r[0] <= r[1]) { // else no value: the range seeks nothing
                long width = r[1] - r[0]; // negative if it overflowed: far too wide
                if (width < 0 || width >= MAX_KEYS) return;
                // counted, not compared with r[1]: a range ending at Long.MAX_VALUE would never end
                for (long i = 0; i <= width; i++) values.add(new ScalarExpr.Literal(r[0] + i, g.types().get(column)));
            }
            consumer.accept(column, values);
        });
    }

    /**
     * Narrows {@code ranges} (source column to its least and greatest possible integer) by
     * {@code e} when it compares an integer column with an integer constant ({@code <}, {@code <=},
     * {@code >}, {@code >=}, either way round; BETWEEN is two of them).
     */
    private static void narrowRange(ScalarExpr e, int[] source, Map<Integer, long[]> ranges) {
        if (!(e instanceof ScalarExpr.Call c) || c.args().size() != 2) return;
        String op = c.name();
        if (!op.equals("<") && !op.equals("<=") && !op.equals(">") && !op.equals(">=")) return;
        ScalarExpr l = c.args().get(0);
        ScalarExpr r = c.args().get(1);
        if (r instanceof ScalarExpr.ColumnRef && !(l instanceof ScalarExpr.ColumnRef)) {
            ScalarExpr x = l;
            l = r;
            r = x;
            op = dev.tributary.sql.expr.BinaryOp.mirrored(op);
        }
        if (!(l instanceof ScalarExpr.ColumnRef col) || col.index() >= source.length || source[col.index()] < 0) return;
        if (!col.type().isInteger() || !r.type().isInteger() || !r.isConstant()) return;
        Object v;
        try {
            v = r.eval(new Object[0]);
        } catch (RuntimeException x) {
            return; // an error in a constant: leave it to the general path to report
        }
        if (!(v instanceof Long bound)) return;
        long[] range = ranges.computeIfAbsent(source[col.index()], k -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE});
        switch (op) {
            // nothing is below the least long or above the greatest: an empty range
            case "<" -> {
                if (bound == Long.MIN_VALUE) range[0] = Long.MAX_VALUE;
                range[1] = Math.min(range[1], bound == Long.MIN_VALUE ? Long.MIN_VALUE : bound - 1);
            }
            case "<=" -> range[1] = Math.min(range[1], bound);
            case ">" -> {
                if (bound == Long.MAX_VALUE) range[1] = Long.MIN_VALUE;
                range[0] = Math.max(range[0], bound == Long.MAX_VALUE ? Long.MAX_VALUE : bound + 1);
            }
            default -> range[0] = Math.max(range[0], bound);
        }
    }

    /** {@code plan}'s Get first, then its maps, filters and projections, innermost first; null if it is not only those over a Get. */
    private static List<Plan> stepsOf(Plan plan) {
        List<Plan> steps = new ArrayList<>();
        Plan p = plan;
        while (true) {
            switch (p) {
                case Plan.Filter f -> {
                    steps.add(0, f);
                    p = f.input();
                }
                case Plan.Map m -> {
                    steps.add(0, m);
                    p = m.input();
                }
                case Plan.Project pr -> {
                    steps.add(0, pr);
                    p = pr.input();
                }
                case Plan.Get g -> {
                    steps.add(0, g);
                    return steps;
                }
                default -> {
                    return null;
                }
            }
        }
    }

    /** A filter's predicates with every AND taken apart: each must hold of every row that passes. */
    private static List<ScalarExpr> conjuncts(List<ScalarExpr> predicates) {
        List<ScalarExpr> out = new ArrayList<>();
        for (ScalarExpr p : predicates) {
            if (p instanceof ScalarExpr.And and) out.addAll(conjuncts(and.args()));
            else out.add(p);
        }
        return out;
    }

    /** Receives a filter's predicate {@code column = value} on source column {@code source}, {@code value} free of columns. */
    private interface EqualityConsumer {
        void accept(ScalarExpr predicate, int source, ScalarExpr value);
    }

    /**
     * Every equality between a column of the source and a value free of columns (a constant or a
     * parameter) in the filters of {@code steps}, seen through the projections and maps between
     * them and the Get (which renumber columns and add computed ones), with matching kinds.
     */
    private static void forEachEquality(List<Plan> steps, Plan.Get g, EqualityConsumer consumer) {
        int[] source = new int[g.types().size()];
        for (int i = 0; i < source.length; i++) source[i] = i;
        for (Plan st : steps) {
            switch (st) {
                case Plan.Filter f -> {
                    for (ScalarExpr e : conjuncts(f.predicates())) {
                        dev.tributary.sql.expr.ScalarExprs.ColumnEquality eq = dev.tributary.sql.expr.ScalarExprs.columnEquality(e);
                        if (eq == null) continue;
                        ScalarExpr.ColumnRef col = eq.column();
                        ScalarExpr r = eq.other();
                        if (col.index() >= source.length || source[col.index()] < 0) continue;
                        if (!(r instanceof ScalarExpr.Param) && !r.isConstant()) continue;
                        boolean integers = col.type().isInteger() && r.type().isInteger();
                        if (r.type().kind() == col.type().kind() || integers) consumer.accept(e, source[col.index()], r);
                    }
                }
                case Plan.Map m -> {
                    int[] wider = java.util.Arrays.copyOf(source, source.length + m.exprs().size());
                    java.util.Arrays.fill(wider, source.length, wider.length, -1);
                    source = wider;
                }
                case Plan.Project pr -> {
                    int[] projected = new int[pr.columns().size()];
                    for (int i = 0; i < projected.length; i++) projected[i] = source[pr.columns().get(i)];
                    source = projected;
                }
                default -> throw new IllegalStateException("not a peek step: " + st);
            }
        }
    }

    /**
     * A seek compiled once from a prepared plan whose parameters are not bound yet, for runs that
     * differ only in the values: the index's key columns each fixed by an equality to a parameter
     * or a constant, and the other steps, which must read no parameter (the key equalities are
     * left out of them: the seek guarantees them). Null when {@code plan} is not such a seek of
     * {@code index}.
     *
     * @param keyValues per key column of the index, the parameter or constant it equals
     * @param keyTypes the types of the index's key columns
     * @param keyCodec encodes a key as the index holds it
     * @param rest the steps left to run over the rows found
     * @param sourceCodec decodes the rows of the collection indexed
     */
    record Seek(List<ScalarExpr> keyValues, List<SqlType> keyTypes, RowCodec keyCodec, Peek rest, RowCodec sourceCodec) {
        static Seek of(Plan plan, CatalogItem.Index index, List<SqlType> sourceTypes) {
            List<Plan> steps = stepsOf(plan);
            if (steps == null || ((Plan.Get) steps.get(0)).id() != index.on()) return null;
            Plan.Get g = (Plan.Get) steps.remove(0);
            Map<Integer, ScalarExpr> fixed = new java.util.HashMap<>();
            Map<Integer, ScalarExpr> fixedBy = new java.util.HashMap<>();
            forEachEquality(steps, g, (e, source, value) -> {
                if (fixed.putIfAbsent(source, value) == null) fixedBy.put(source, e);
            });
            List<ScalarExpr> keyValues = new ArrayList<>();
            List<SqlType> keyTypes = new ArrayList<>();
            // the equalities that fix the key are true of every row the seek finds; the rest still run
            java.util.Set<ScalarExpr> used = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (ScalarExpr k : index.keys()) {
                if (!(k instanceof ScalarExpr.ColumnRef key) || !fixed.containsKey(key.index())) return null;
                keyValues.add(fixed.get(key.index()));
                keyTypes.add(key.type());
                used.add(fixedBy.get(key.index()));
            }
            List<Plan> rest = new ArrayList<>();
            for (Plan st : steps) {
                Plan r = st instanceof Plan.Filter f
                        ? new Plan.Filter(f.input(), f.predicates().stream().filter(e -> !used.contains(e)).toList())
                        : st;
                List<ScalarExpr.Param> params = new ArrayList<>();
                switch (r) {
                    case Plan.Filter f -> f.predicates().forEach(e -> dev.tributary.sql.expr.ScalarExprs.parameters(e, params));
                    case Plan.Map m -> m.exprs().forEach(e -> dev.tributary.sql.expr.ScalarExprs.parameters(e, params));
                    default -> { }
                }
                if (!params.isEmpty()) return null;
                if (!(r instanceof Plan.Filter f && f.predicates().isEmpty())) rest.add(r);
            }
            return new Seek(keyValues, keyTypes, new RowCodec(keyTypes), new Peek(g.id(), index, null, rest), new RowCodec(sourceTypes));
        }

        /**
         * The key to seek for parameter values {@code values}, or null when the values fix no key
         * (a NULL, or an integer outside the column's range: such an equality holds for no row;
         * the caller then asks the ordinary path, which knows).
         */
        Row key(Object[] values) {
            Object[] key = new Object[keyValues.size()];
            for (int i = 0; i < key.length; i++) {
                ScalarExpr e = keyValues.get(i);
                Object v = e instanceof ScalarExpr.Param p ? values[p.index() - 1] : e.eval(new Object[0]);
                if (v == null) return null;
                if (keyTypes.get(i).isInteger() && !dev.tributary.sql.types.Values.inRange((Long) v, keyTypes.get(i))) return null;
                key[i] = dev.tributary.sql.row.Keys.normalize(v);
            }
            return keyCodec.encode(key);
        }
    }

    /**
     * The rows of {@code plan} when it reads no stored collection, only constants through maps,
     * filters, projections and unions (an INSERT's VALUES with their parameters in place), so it
     * is evaluated here without a dataflow; null for any other plan.
     */
    static List<Object[]> constantRows(Plan plan) {
        return switch (plan) {
            case Plan.Constant c -> c.rows();
            case Plan.Union u -> {
                List<Object[]> out = new ArrayList<>();
                for (Plan in : u.inputs()) {
                    List<Object[]> rows = constantRows(in);
                    if (rows == null) yield null;
                    out.addAll(rows);
                }
                yield out;
            }
            case Plan.Filter f -> {
                List<Object[]> in = constantRows(f.input());
                yield in == null ? null : new Peek(0, null, null, List.of(f)).applyTo(in);
            }
            case Plan.Map m -> {
                List<Object[]> in = constantRows(m.input());
                yield in == null ? null : new Peek(0, null, null, List.of(m)).applyTo(in);
            }
            case Plan.Project p -> {
                List<Object[]> in = constantRows(p.input());
                yield in == null ? null : new Peek(0, null, null, List.of(p)).applyTo(in);
            }
            default -> null;
        };
    }

    /** The steps applied to {@code rows}, in order. */
    private List<Object[]> applyTo(List<Object[]> rows) {
        List<Object[]> out = new ArrayList<>(rows.size());
        FirstError error = new FirstError();
        for (Object[] r : rows) {
            Object[] v = error.step(this, r);
            if (v != null) out.add(v);
        }
        error.throwIfAny();
        return out;
    }

    /**
     * The error a query reports when rows fail: the least in the order of error rows, as a
     * dataflow reports it ({@link dev.tributary.server.compute.Dataflows#firstError}), so that a query answered here and the
     * same query maintained as a view report the same error, whatever order the rows come in.
     */
    private static final class FirstError {
        private dev.tributary.sql.row.Row least;
        private dev.tributary.sql.SqlException error;

        Object[] step(Peek peek, Object[] row) {
            try {
                return peek.step(row);
            } catch (dev.tributary.sql.SqlException e) {
                dev.tributary.sql.row.Row r = dev.tributary.sql.render.Errors.encode(e);
                if (least == null || r.compareTo(least) < 0) {
                    least = r;
                    error = e;
                }
                return null;
            }
        }

        void throwIfAny() {
            if (error != null) throw error;
        }
    }

    /** The row after every step, or null when a filter drops it. */
    private Object[] step(Object[] row) {
        Object[] v = row;
        for (Plan s : steps) {
            switch (s) {
                case Plan.Filter f -> {
                    for (ScalarExpr p : f.predicates()) if (!Boolean.TRUE.equals(p.eval(v))) return null;
                }
                case Plan.Map m -> {
                    Object[] w = Arrays.copyOf(v, v.length + m.exprs().size());
                    for (int i = 0; i < m.exprs().size(); i++) w[v.length + i] = m.exprs().get(i).eval(w);
                    v = w;
                }
                case Plan.Project p -> {
                    Object[] w = new Object[p.columns().size()];
                    for (int i = 0; i < w.length; i++) w[i] = v[p.columns().get(i)];
                    v = w;
                }
                default -> throw new IllegalStateException("not a peek step: " + s);
            }
        }
        return v;
    }

    /** The steps applied to the source's rows (values decoded with {@code sourceTypes}), each repeated by its count. */
    List<Object[]> apply(Map<Row, Long> rows, List<SqlType> sourceTypes) {
        return apply(rows, new RowCodec(sourceTypes));
    }

    /** The steps applied to the source's rows (values decoded with {@code codec}), each repeated by its count. */
    List<Object[]> apply(Map<Row, Long> rows, RowCodec codec) {
        List<Object[]> out = new ArrayList<>();
        FirstError error = new FirstError();
        for (Map.Entry<Row, Long> e : rows.entrySet()) {
            Object[] v = error.step(this, codec.decode(e.getKey()));
            if (v == null) continue;
            for (long i = 0; i < e.getValue(); i++) out.add(v);
        }
        error.throwIfAny();
        return out;
    }
}
