package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.CapabilitySet;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The first rows of each key of a collection that only grows: {@code LIMIT n [OFFSET m]} over an
 * infinite stream, per key.
 *
 * <p>Model: order each key's insertions by time, and within a time by the data's order; the
 * output holds the insertions at positions {@code [offset, offset + limit)} of that order, each
 * at its own time. Since the input only inserts, a row in the output is never displaced by a
 * later one, so the operator needs no record of the rows it passed: per key, how many rows it has
 * seen. Updates wait until the frontier has passed their time (so a time's rows are all in and
 * ordered), then go through; a key that is full passes nothing more. State: a count per key and
 * the updates of times not yet complete. A retraction is refused: the input must only insert.
 */
public final class FirstRows {
    private FirstRows() {}

    /** The first rows of {@code data} per key, as the class describes; {@code limit} -1 for no limit. */
    public static <D, K> Collection<D> of(Collection<D> data, Function<? super D, ? extends K> keyOf, DataType<K> keyType, long limit, long offset) {
        Scope scope = data.scope();
        if (scope.arity() != 1) throw new IllegalArgumentException("first rows work on top-level times only; scope '" + scope.name() + "' has " + scope.arity());
        DataType<D> dataType = data.type();
        dev.tributary.timely.Stream<Updates> keyed = KeyedWindows.keyed(data, keyOf, keyType, "firstRows:key");
        OperatorBuilder b = scope.operator("firstRows");
        InputPort<Updates> in = b.input(keyed, Pact.exchange());
        OutputPort<Updates> out = b.output(Collection.containerType(dataType, 1));
        String name = b.displayName();
        CapabilitySet caps = new CapabilitySet();
        HashMap<K, long[]> seen = new HashMap<>();
        // the updates of each time not yet complete, as (key, datum, diff)
        TreeMap<Long, List<Object[]>> pending = new TreeMap<>();
        dev.tributary.arrangements.Seed.of(scope).refuse(scope, "a LIMIT over a stream (its count of rows per key)");
        dev.tributary.arrangements.HeldState.of(scope).other("firstRows", seen::size, () -> 64L * seen.size());
        long end = limit < 0 ? Long.MAX_VALUE : offset + limit;
        b.build(() -> {
            in.forEach((cap, batch) -> {
                caps.insert(cap);
                long[] times = batch.times();
                long[] diffs = batch.diffs();
                for (int i = 0; i < batch.size(); i++) {
                    if (diffs[i] < 0) {
                        throw new IllegalStateException("operator '" + name + "' takes the first rows of a stream that only inserts, but got a retraction at "
                                + times[i]);
                    }
                    pending.computeIfAbsent(times[i], t -> new ArrayList<>()).add(new Object[] {keyType.get(batch.keys(), i), dataType.get(batch.vals(), i), diffs[i]});
                }
            });
            Antichain frontier = in.frontier();
            long bound = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            while (!pending.isEmpty() && pending.firstKey() < bound) {
                var e = pending.pollFirstEntry();
                long[] at = {e.getKey()};
                List<Object[]> rows = e.getValue();
                @SuppressWarnings("unchecked")
                java.util.Comparator<Object[]> byData = (x, y) -> ((java.util.Comparator<Object>) (java.util.Comparator<?>) dataType.order()).compare(x[1], y[1]);
                rows.sort(byData);
                Updates o = out.newContainer();
                for (Object[] r : rows) {
                    @SuppressWarnings("unchecked")
                    K key = (K) r[0];
                    long[] count = seen.computeIfAbsent(key, k -> new long[1]);
                    long n = (Long) r[2];
                    // the positions [count, count + n) of this row's copies, cut to [offset, end)
                    long from = Math.max(count[0], offset);
                    long to = Math.min(count[0] + n, end);
                    count[0] = Math.min(count[0] + n, end);
                    if (to > from) {
                        @SuppressWarnings("unchecked")
                        D d = (D) r[1];
                        Collection.append(o, dataType, d, at, 0, to - from);
                    }
                }
                if (o.size() > 0) {
                    Capability holder = caps.holder(at);
                    if (holder == null) throw new IllegalStateException("operator '" + name + "' holds no capability at or before " + at[0]);
                    out.send(holder, at, o);
                }
            }
            caps.downgradeTo(pending.isEmpty() ? Antichain.empty(1) : Antichain.of(pending.firstKey()), name);
        });
        return new Collection<>(out.stream(), dataType);
    }
}
