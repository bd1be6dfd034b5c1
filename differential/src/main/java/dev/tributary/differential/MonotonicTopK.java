package dev.tributary.differential;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The first values of every key, in the values' order, of a collection that only grows: what
 * {@link TopK} gives, keeping per key only the values that can still be among them.
 *
 * <p>Model: as {@link TopK}'s: for every key and time {@code t}, the output at {@code t} holds the
 * key's values of the input at {@code t} in order, counted in units, {@code offset} units skipped
 * and then at most {@code limit} taken. When the input only inserts, a value past the first
 * {@code offset + limit} units of its key never comes back into them (later values only push it
 * further down), so the operator forgets it: its state is at most {@code offset + limit} units
 * per key, not the key's every value, which {@link TopK} keeps in its input arrangement (a top
 * bid per auction over every bid). Updates wait for their time to be complete, then each changed
 * key's output changes by the difference of its taken units. A retraction is refused: the
 * planner uses this only for inputs that only insert.
 */
public final class MonotonicTopK {
    private MonotonicTopK() {}

    /** The first values of each key of {@code data}, as the class describes, in {@code order}; {@code limit < 0}: no limit. */
    public static <D, K> Collection<D> topK(Collection<D> data, String name, Function<? super D, ? extends K> keyOf, DataType<K> keyType,
            Comparator<? super D> order, long offset, long limit) {
        if (offset < 0) throw new IllegalArgumentException("topK '" + name + "': offset " + offset + " is negative");
        DataType<D> dataType = data.type();
        long keep = limit < 0 ? Long.MAX_VALUE : offset + limit;
        // per key, its first values (at most keep units) and their counts
        HashMap<K, TreeMap<D, long[]>> tops = new HashMap<>();
        long[] held = {0};
        dev.tributary.arrangements.HeldState.of(data.scope()).other("monotonicTopK:" + name, () -> held[0], () -> 96L * held[0]);
        return Insertions.build(data, "monotonicTopK:" + name, keyOf, keyType, "a top-k over rows that only grow (its kept rows)", (at, rows, out) -> {
            // the time's insertions by key, then each changed key's taken units before and after
            Map<K, List<Insertions.Insertion<K, D>>> byKey = new HashMap<>();
            for (Insertions.Insertion<K, D> r : rows) byKey.computeIfAbsent(r.key(), x -> new ArrayList<>()).add(r);
            for (Map.Entry<K, List<Insertions.Insertion<K, D>>> k : byKey.entrySet()) {
                TreeMap<D, long[]> top = tops.computeIfAbsent(k.getKey(), x -> new TreeMap<>(order));
                Map<D, Long> before = taken(top, offset, limit);
                // once keep units are held, a value not before the last kept one lands past the
                // first keep units (equal values' units are interchangeable) and is never taken:
                // most values of a max or a top bid are, and skip the map (one comparison)
                long full = 0;
                for (long[] c : top.values()) full += c[0];
                for (Insertions.Insertion<K, D> r : k.getValue()) {
                    if (full >= keep && !top.isEmpty() && order.compare(r.data(), top.lastKey()) >= 0) continue;
                    long[] count = top.get(r.data());
                    if (count == null) {
                        top.put(r.data(), count = new long[1]);
                        held[0]++;
                    }
                    count[0] += r.count();
                    full += r.count();
                }
                // forget what is past the first keep units: it cannot come back
                long units = 0;
                var it = top.entrySet().iterator();
                while (it.hasNext()) {
                    var v = it.next();
                    if (units >= keep) {
                        it.remove();
                        held[0]--;
                        continue;
                    }
                    units += v.getValue()[0];
                }
                Map<D, Long> after = taken(top, offset, limit);
                for (Map.Entry<D, Long> v : after.entrySet()) {
                    long was = before.getOrDefault(v.getKey(), 0L);
                    if (v.getValue() != was) Collection.append(out, dataType, v.getKey(), at, 0, v.getValue() - was);
                }
                for (Map.Entry<D, Long> v : before.entrySet()) {
                    if (!after.containsKey(v.getKey())) Collection.append(out, dataType, v.getKey(), at, 0, -v.getValue());
                }
            }
        });
    }

    /** The units taken of each value of {@code top}: {@code offset} skipped, then at most {@code limit}. */
    private static <D> Map<D, Long> taken(TreeMap<D, long[]> top, long offset, long limit) {
        Map<D, Long> out = new HashMap<>();
        long position = 0;
        long end = limit < 0 ? Long.MAX_VALUE : offset + limit;
        for (Map.Entry<D, long[]> v : top.entrySet()) {
            if (position >= end) break;
            long n = v.getValue()[0];
            long from = Math.max(position, offset);
            long to = Math.min(position + n, end);
            if (to > from) out.put(v.getKey(), to - from);
            position += n;
        }
        return out;
    }
}
