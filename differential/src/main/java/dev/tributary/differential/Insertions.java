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
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What {@link FirstRows} and {@link MonotonicTopK} share: an operator over the insertions of a
 * collection that only grows, exchanged by key, which takes each time's insertions together once
 * the time is complete (so that within a time they can be ordered) and emits at that time. It
 * holds a capability at the earliest time with insertions waiting. A retraction is an error
 * naming the operator and the time: such operators are planned only for inputs that only insert.
 */
final class Insertions {
    private Insertions() {}

    /** One insertion: its key, datum and multiplicity (positive). */
    record Insertion<K, D>(K key, D data, long count) {}

    /** What happens at a complete time: its insertions, and where to append the output at {@code at}. */
    interface Logic<K, D> {
        void time(long[] at, List<Insertion<K, D>> insertions, Updates out);
    }

    static <D, K> Collection<D> build(Collection<D> data, String kind, Function<? super D, ? extends K> keyOf, DataType<K> keyType, String what,
            Logic<K, D> logic) {
        Scope scope = data.scope();
        if (scope.arity() != 1) throw new IllegalArgumentException(kind + " works on top-level times only; scope '" + scope.name() + "' has " + scope.arity());
        DataType<D> dataType = data.type();
        dev.tributary.timely.Stream<Updates> keyed = Collection.keyed(data, keyOf, keyType, kind + ":key");
        OperatorBuilder b = scope.operator(kind);
        InputPort<Updates> in = b.input(keyed, Pact.exchange());
        OutputPort<Updates> out = b.output(Collection.containerType(dataType, 1));
        String name = b.displayName();
        CapabilitySet caps = new CapabilitySet();
        TreeMap<Long, List<Insertion<K, D>>> pending = new TreeMap<>();
        dev.tributary.arrangements.Seed.of(scope).refuse(scope, what);
        b.build(() -> {
            in.forEach((cap, batch) -> {
                caps.insert(cap);
                long[] times = batch.times();
                long[] diffs = batch.diffs();
                for (int i = 0; i < batch.size(); i++) {
                    if (diffs[i] < 0) throw new IllegalStateException("operator '" + name + "' takes rows that only grow, but got a retraction at " + times[i]);
                    pending.computeIfAbsent(times[i], t -> new ArrayList<>())
                            .add(new Insertion<>(keyType.get(batch.keys(), i), dataType.get(batch.vals(), i), diffs[i]));
                }
            });
            Antichain frontier = in.frontier();
            long bound = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            while (!pending.isEmpty() && pending.firstKey() < bound) {
                var e = pending.pollFirstEntry();
                long[] at = {e.getKey()};
                Updates o = out.newContainer();
                logic.time(at, e.getValue(), o);
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
