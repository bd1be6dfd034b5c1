package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.CapabilitySet;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What {@link Panes} and {@link SessionWindows} share: a window aggregation's state on one worker,
 * fed the updates of its keys (exchanged by key), which emits the windows its input frontier has
 * closed and holds one capability at the next close. Subclasses decide how windows are cut.
 */
abstract class KeyedWindows<D, K, A, R> {
    final DataType<D> dataType;
    final DataType<K> keyType;
    final ToLongFunction<? super D> time;
    final WindowAggregator<K, D, A, R> aggregator;
    final DataType<R> outType;
    final CapabilitySet caps = new CapabilitySet();
    /** Set when the operator is built. */
    OutputPort<Updates> out;
    String name;

    KeyedWindows(DataType<D> dataType, DataType<K> keyType, ToLongFunction<? super D> time, WindowAggregator<K, D, A, R> aggregator, DataType<R> outType) {
        this.dataType = dataType;
        this.keyType = keyType;
        this.time = time;
        this.aggregator = aggregator;
        this.outType = outType;
    }

    /** Takes in a batch of keyed updates (keys in its keys, data in its values), each with its window time; NULL times are in no window. */
    final void add(Updates batch) {
        long[] times = batch.times();
        long[] diffs = batch.diffs();
        for (int i = 0; i < batch.size(); i++) {
            D d = dataType.get(batch.vals(), i);
            long w = time.applyAsLong(d);
            if (w != Panes.NONE) add(batch, i, d, w, times[i], diffs[i]);
        }
    }

    /** Takes in update {@code i} of {@code batch}: datum {@code d} of window time {@code w}, at {@code time} with {@code diff}. */
    abstract void add(Updates batch, int i, D d, long w, long time, long diff);

    /** Emits the windows {@code frontier} has closed, frees their state, and holds the capability of the next close (or none). */
    abstract void close(Antichain frontier);

    /** How many accumulators are held, for the dataflow's memory accounting. */
    abstract long held();

    /**
     * {@code state} as the operator {@code kind:name} over {@code data}, keyed by {@code keyOf};
     * each held accumulator counted as {@code bytes} in the dataflow's memory. The state cannot
     * be seeded from a checkpoint: {@code what} names it in the refusal.
     */
    static <D, K, A, R> Collection<R> build(Collection<D> data, String kind, String name, Function<? super D, ? extends K> keyOf, KeyedWindows<D, K, A, R> state,
            long bytes, String what) {
        Scope scope = data.scope();
        if (scope.arity() != 1) throw new IllegalArgumentException(kind + " work on top-level times only; scope '" + scope.name() + "' has " + scope.arity());
        dev.tributary.timely.Stream<Updates> keyed = Collection.keyed(data, keyOf, state.keyType, kind + ":key");
        OperatorBuilder b = scope.operator(kind + ":" + name);
        InputPort<Updates> in = b.input(keyed, Pact.exchange());
        state.out = b.output(Collection.containerType(state.outType, 1));
        state.name = b.displayName();
        dev.tributary.arrangements.Seed.of(scope).refuse(scope, what);
        dev.tributary.arrangements.HeldState.of(scope).other(kind + ":" + name, state::held, () -> state.held() * bytes);
        b.build(() -> {
            in.forEach((cap, batch) -> {
                state.caps.insert(cap);
                state.add(batch);
            });
            state.close(in.frontier());
        });
        return new Collection<>(state.out.stream(), state.outType);
    }
}
