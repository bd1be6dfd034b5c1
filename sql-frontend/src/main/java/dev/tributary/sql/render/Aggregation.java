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
final class Aggregation {
    private Aggregation() {}

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
