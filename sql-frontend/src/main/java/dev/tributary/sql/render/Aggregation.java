package dev.tributary.sql.render;

import dev.tributary.sql.plan.AggregateCall;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One aggregate over one group, from scratch: {@code FILTER}, then {@code DISTINCT}, then the
 * call's {@code ORDER BY}, then the function. Groups are recomputed only when they change, so
 * this is the whole per-group cost of a maintained aggregate.
 */
public final class Aggregation {
    private Aggregation() {}

    /**
     * What {@code reduce} gives over {@code rows}, its input's rows, row {@code i} with
     * multiplicity {@code counts[i]} (positive), with no dataflow: per group, in the order groups first appear, the group key's values then each
     * aggregate's; for an aggregate without GROUP BY over no rows, the one row of defaults. The
     * rendered reduce ({@link Grouping}) gives the same rows, since what it keeps per group is
     * what {@link #evaluate} computes. Throws what an aggregate throws for a group (which group
     * is then not chosen as the dataflow would choose it: a caller that must report the same
     * error runs the dataflow instead).
     */
    public static List<Object[]> reduce(dev.tributary.sql.plan.Plan.Reduce reduce, List<Object[]> rows, long[] counts) {
        List<SqlType> inTypes = reduce.input().types();
        int[] key = reduce.groupKey().stream().mapToInt(Integer::intValue).toArray();
        List<SqlType> keyTypes = new ArrayList<>();
        for (int k : key) keyTypes.add(inTypes.get(k));
        dev.tributary.sql.row.RowCodec keyCodec = new dev.tributary.sql.row.RowCodec(keyTypes);
        // grouped by the key's encoding, as the dataflow groups: equal values (1.0 and 1.00) are one group
        Map<dev.tributary.sql.row.Row, List<Integer>> groups = new LinkedHashMap<>();
        for (int r = 0; r < rows.size(); r++) {
            Object[] k = new Object[key.length];
            for (int i = 0; i < key.length; i++) k[i] = rows.get(r)[key[i]];
            groups.computeIfAbsent(keyCodec.encode(k), x -> new ArrayList<>()).add(r);
        }
        if (groups.isEmpty() && reduce.global() && key.length == 0) groups.put(keyCodec.encode(new Object[0]), List.of());
        List<AggregateCall> aggs = reduce.aggregates();
        List<Object[]> out = new ArrayList<>(groups.size());
        for (Map.Entry<dev.tributary.sql.row.Row, List<Integer>> g : groups.entrySet()) {
            List<Integer> at = g.getValue();
            Object[][] members = new Object[at.size()][];
            long[] memberCounts = new long[at.size()];
            for (int m = 0; m < members.length; m++) {
                members[m] = rows.get(at.get(m));
                memberCounts[m] = counts[at.get(m)];
            }
            Object[] result = Arrays.copyOf(keyCodec.decode(g.getKey()), key.length + aggs.size());
            for (int a = 0; a < aggs.size(); a++) result[key.length + a] = evaluate(aggs.get(a), inTypes, members, memberCounts);
            out.add(result);
        }
        return out;
    }

    static Object evaluate(AggregateCall call, List<SqlType> inputTypes, Object[][] rows, long[] counts) {
        List<Object[]> selected = new ArrayList<>(rows.length);
        List<Object[]> full = new ArrayList<>(rows.length);
        List<Long> mult = new ArrayList<>(rows.length);
        int[] args = call.args().stream().mapToInt(Integer::intValue).toArray();
        for (int i = 0; i < rows.length; i++) {
            if (call.filter() >= 0 && !Boolean.TRUE.equals(rows[i][call.filter()])) continue;
            Object[] a = new Object[args.length];
            for (int j = 0; j < args.length; j++) a[j] = rows[i][args[j]];
            selected.add(a);
            full.add(rows[i]);
            mult.add(counts[i]);
        }
        if (call.distinct()) {
            Map<List<Object>, Object[]> seen = new LinkedHashMap<>();
            Map<List<Object>, Object[]> fullOf = new LinkedHashMap<>();
            for (int i = 0; i < selected.size(); i++) {
                Object[] normalized = selected.get(i).clone();
                for (int j = 0; j < normalized.length; j++) normalized[j] = dev.tributary.sql.row.Keys.normalize(normalized[j]);
                List<Object> k = Arrays.asList(normalized);
                if (seen.putIfAbsent(k, selected.get(i)) == null) fullOf.put(k, full.get(i));
            }
            selected = new ArrayList<>(seen.values());
            full = new ArrayList<>(fullOf.values());
            mult = new ArrayList<>();
            for (int i = 0; i < selected.size(); i++) mult.add(1L);
        }
        if (!call.orderBy().isEmpty()) {
            Integer[] idx = new Integer[selected.size()];
            for (int i = 0; i < idx.length; i++) idx[i] = i;
            List<Object[]> f = full;
            var order = Renderer.rowOrder(call.orderBy(), inputTypes);
            Arrays.sort(idx, (a, b) -> order.compare(f.get(a), f.get(b)));
            List<Object[]> s2 = new ArrayList<>(idx.length);
            List<Long> m2 = new ArrayList<>(idx.length);
            for (int i : idx) {
                s2.add(selected.get(i));
                m2.add(mult.get(i));
            }
            selected = s2;
            mult = m2;
        }
        long[] m = new long[mult.size()];
        for (int i = 0; i < m.length; i++) m[i] = mult.get(i);
        return call.function().evaluate(selected, m);
    }
}
