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
 * collection is answered by reading the collection's arrangement, or, when its filter fixes every
 * key column of an index on it to a constant, by seeking that key in the index; the maps and
 * filters then run over just those rows. No dataflow is built.
 *
 * @param source the stored collection read
 * @param index the index whose key is looked up, or null to read the whole collection
 * @param key the key to look up (encoded with the index's key types), or null
 * @param steps the maps, filters and projections, innermost first
 */
record Peek(long source, CatalogItem.Index index, Row key, List<Plan> steps) {

    /** The peek that answers {@code plan}, or null when it needs a dataflow. */
    static Peek of(Plan plan, Collection<CatalogItem.Index> indexes) {
        List<Plan> steps = new ArrayList<>();
        Plan p = plan;
        while (true) {
            if (p instanceof Plan.Filter f) {
                steps.add(0, f);
                p = f.input();
            } else if (p instanceof Plan.Map m) {
                steps.add(0, m);
                p = m.input();
            } else if (p instanceof Plan.Project pr) {
                steps.add(0, pr);
                p = pr.input();
            } else {
                break;
            }
        }
        if (!(p instanceof Plan.Get g)) return null;
        // equalities column = constant in the filters right above the Get
        Map<Integer, Object> fixed = new java.util.HashMap<>();
        for (Plan s : steps) {
            if (!(s instanceof Plan.Filter f)) break;
            for (ScalarExpr e : f.predicates()) {
                if (e instanceof ScalarExpr.Call c && c.name().equals("=") && c.args().size() == 2) {
                    ScalarExpr l = c.args().get(0);
                    ScalarExpr r = c.args().get(1);
                    if (r instanceof ScalarExpr.ColumnRef) {
                        ScalarExpr x = l;
                        l = r;
                        r = x;
                    }
                    boolean integers = col(l) != null && col(l).type().isInteger() && r.type().isInteger();
                    if (l instanceof ScalarExpr.ColumnRef col && r.isConstant() && (r.type().kind() == col.type().kind() || integers)) {
                        try {
                            Object v = r.eval(new Object[0]);
                            // integers of every width are Longs; one outside the column's range matches nothing, so no seek
                            if (v == null || !integers || dev.tributary.sql.types.Values.inRange((Long) v, col.type())) fixed.put(col.index(), v);
                        } catch (RuntimeException ignored) {
                            // an error in the constant: leave it to the general path to report
                        }
                    }
                }
            }
        }
        for (CatalogItem.Index ix : indexes) {
            if (ix.on() != g.id()) continue;
            Object[] key = new Object[ix.keys().size()];
            boolean all = true;
            for (int i = 0; i < key.length && all; i++) {
                if (ix.keys().get(i) instanceof ScalarExpr.ColumnRef col && fixed.containsKey(col.index()) && fixed.get(col.index()) != null) {
                    key[i] = dev.tributary.sql.row.Keys.normalize(fixed.get(col.index()));
                } else {
                    all = false;
                }
            }
            if (all) {
                List<SqlType> types = new ArrayList<>();
                for (ScalarExpr k : ix.keys()) types.add(k.type());
                return new Peek(g.id(), ix, new RowCodec(types).encode(key), steps);
            }
        }
        return new Peek(g.id(), null, null, steps);
    }

    private static ScalarExpr.ColumnRef col(ScalarExpr e) {
        return e instanceof ScalarExpr.ColumnRef c ? c : null;
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
        for (Object[] r : rows) {
            Object[] v = step(r);
            if (v != null) out.add(v);
        }
        return out;
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
        RowCodec codec = new RowCodec(sourceTypes);
        List<Object[]> out = new ArrayList<>();
        for (Map.Entry<Row, Long> e : rows.entrySet()) {
            Object[] v = step(codec.decode(e.getKey()));
            if (v == null) continue;
            for (long i = 0; i < e.getValue(); i++) out.add(v);
        }
        return out;
    }
}
