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
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.function.Function;

/**
 * A per-key state machine over top-level (totally ordered) times: the output at each time is a
 * function of each key's accumulated input at that time, kept up to date by a {@link Logic} that
 * holds, per key, what it needs of the input so far and emits only what the key's changes at a
 * time change in its result.
 *
 * <p>Model: updates are exchanged by key and buffered until the input frontier passes their time.
 * Then, time by time in order, each key's updates at that time, consolidated (equal data's diffs
 * summed, zeros dropped) and sorted by the data type's order, go to {@link Logic#apply} with the
 * key's state as the earlier times left it; what it emits is the output's change at that time.
 * The operator holds a capability at the earliest buffered time. Unlike a reduce, which
 * recomputes a key's whole result from its arranged input, the logic can make a change cost what
 * it changes; the price is that its state is its own (not a shared arrangement) and that the
 * times must be totally ordered, so it is for the top-level scope only.
 */
public final class KeyedProcess {
    private KeyedProcess() {}

    /**
     * What the operator does per key.
     *
     * @param <K> the key
     * @param <D> the input data
     * @param <S> the key's state
     * @param <R> the output data
     */
    public interface Logic<K, D, S, R> {
        /** The state of a key with no input yet. */
        S create(K key);

        /**
         * Takes in the key's changes at one time: {@code data[0, count)} ascending in the data
         * type's order, distinct, each with its nonzero {@code diffs[i]}. Emits the output's
         * changes at that time through {@code out}.
         *
         * @return whether the state now holds nothing (then it is dropped)
         */
        boolean apply(K key, S state, Object[] data, long[] diffs, int count, Output<R> out);

        /** A rough size of {@code state} in bytes, for the dataflow's memory accounting: asked before and after each apply, so it must be cheap. */
        long bytes(S state);
    }

    /** Where {@link Logic#apply} emits its output's changes. */
    @FunctionalInterface
    public interface Output<R> {
        void emit(R value, long diff);
    }

    /**
     * The operator {@code keyed:name} over {@code data} by {@code keyOf}, as the class describes.
     * Its state cannot be seeded from a checkpoint: a dataflow holding it is rebuilt from its inputs.
     */
    public static <D, K, S, R> Collection<R> process(Collection<D> data, String name, Function<? super D, ? extends K> keyOf, DataType<K> keyType,
            Logic<K, D, S, R> logic, DataType<R> outType) {
        Scope scope = data.scope();
        if (scope.arity() != 1) throw new IllegalArgumentException("keyed process '" + name + "' works on top-level times only; scope '" + scope.name() + "' has " + scope.arity());
        dev.tributary.timely.Stream<Updates> keyed = Collection.keyed(data, keyOf, keyType, "keyed:key");
        OperatorBuilder b = scope.operator("keyed:" + name);
        InputPort<Updates> in = b.input(keyed, Pact.exchange());
        OutputPort<Updates> out = b.output(Collection.containerType(outType, 1));
        Worker<D, K, S, R> worker = new Worker<>(data.type(), keyType, logic, outType, out, b.displayName());
        dev.tributary.arrangements.Seed.of(scope).refuse(scope, "the state of '" + name + "'");
        dev.tributary.arrangements.HeldState.of(scope).other("keyed:" + name, () -> worker.states.size(), worker::bytes);
        b.build(() -> {
            in.forEach((cap, batch) -> {
                worker.caps.insert(cap);
                worker.take(batch);
            });
            worker.close(in.frontier());
        });
        return new Collection<>(out.stream(), outType);
    }

    /** One worker's keys: their states and the updates not yet complete. */
    private static final class Worker<D, K, S, R> {
        final DataType<D> dataType;
        final DataType<K> keyType;
        final Logic<K, D, S, R> logic;
        final DataType<R> outType;
        final OutputPort<Updates> out;
        final String name;
        final CapabilitySet caps = new CapabilitySet();
        final HashMap<K, S> states = new HashMap<>();
        /** Buffered updates, decoded: {@code [0, size)}. */
        Object[] keys = new Object[16];
        Object[] data = new Object[16];
        long[] times = new long[16];
        long[] diffs = new long[16];
        int size;

        Worker(DataType<D> dataType, DataType<K> keyType, Logic<K, D, S, R> logic, DataType<R> outType, OutputPort<Updates> out, String name) {
            this.dataType = dataType;
            this.keyType = keyType;
            this.logic = logic;
            this.outType = outType;
            this.out = out;
            this.name = name;
        }

        /** The states' bytes, kept as they change: the memory accounting asks often, and there may be millions of keys. */
        long bytes;

        long bytes() {
            return bytes;
        }

        void take(Updates batch) {
            int n = batch.size();
            if (size + n > times.length) {
                int capacity = Math.max(size + n, times.length * 2);
                keys = Arrays.copyOf(keys, capacity);
                data = Arrays.copyOf(data, capacity);
                times = Arrays.copyOf(times, capacity);
                diffs = Arrays.copyOf(diffs, capacity);
            }
            long[] t = batch.times();
            long[] d = batch.diffs();
            for (int i = 0; i < n; i++) {
                keys[size] = keyType.get(batch.keys(), i);
                data[size] = dataType.get(batch.vals(), i);
                times[size] = t[i];
                diffs[size] = d[i];
                size++;
            }
        }

        @SuppressWarnings("unchecked")
        void close(Antichain frontier) {
            long bound = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            // the complete updates, ordered by time, key and datum
            int ready = 0;
            for (int i = 0; i < size; i++) if (times[i] < bound) ready++;
            if (ready > 0) {
                Integer[] order = new Integer[ready];
                int at = 0;
                for (int i = 0; i < size; i++) if (times[i] < bound) order[at++] = i;
                Comparator<? super K> byKey = keyType.order();
                Comparator<? super D> byDatum = dataType.order();
                Arrays.sort(order, (x, y) -> {
                    int c = Long.compare(times[x], times[y]);
                    if (c != 0) return c;
                    c = byKey.compare((K) keys[x], (K) keys[y]);
                    return c != 0 ? c : byDatum.compare((D) data[x], (D) data[y]);
                });
                Object[] group = new Object[16];
                long[] groupDiffs = new long[16];
                Updates o = null;
                long[] now = new long[1];
                Output<R> sink = null;
                for (int s = 0; s < ready; ) {
                    long time = times[order[s]];
                    if (o == null || now[0] != time) {
                        if (o != null) send(o, now);
                        o = out.newContainer();
                        now[0] = time;
                        Updates into = o;
                        sink = (value, diff) -> {
                            if (diff != 0) Collection.append(into, outType, value, now, 0, diff);
                        };
                    }
                    K key = (K) keys[order[s]];
                    int e = s;
                    int count = 0;
                    while (e < ready && times[order[e]] == time && byKey.compare(key, (K) keys[order[e]]) == 0) {
                        Object datum = data[order[e]];
                        long diff = diffs[order[e]];
                        if (count > 0 && byDatum.compare((D) group[count - 1], (D) datum) == 0) {
                            groupDiffs[count - 1] += diff;
                        } else {
                            if (count > 0 && groupDiffs[count - 1] == 0) count--;
                            if (count == group.length) {
                                group = Arrays.copyOf(group, count * 2);
                                groupDiffs = Arrays.copyOf(groupDiffs, count * 2);
                            }
                            group[count] = datum;
                            groupDiffs[count++] = diff;
                        }
                        e++;
                    }
                    if (count > 0 && groupDiffs[count - 1] == 0) count--;
                    if (count > 0) {
                        S state = states.get(key);
                        long before = 0;
                        if (state == null) state = logic.create(key);
                        else before = logic.bytes(state);
                        if (logic.apply(key, state, group, groupDiffs, count, sink)) {
                            states.remove(key);
                            bytes -= before;
                        } else {
                            states.put(key, state);
                            bytes += logic.bytes(state) - before;
                        }
                    }
                    Arrays.fill(group, 0, count, null);
                    s = e;
                }
                if (o != null) send(o, now);
                // keep the updates still to come
                int w = 0;
                for (int i = 0; i < size; i++) {
                    if (times[i] < bound) continue;
                    keys[w] = keys[i];
                    data[w] = data[i];
                    times[w] = times[i];
                    diffs[w] = diffs[i];
                    w++;
                }
                Arrays.fill(keys, w, size, null);
                Arrays.fill(data, w, size, null);
                size = w;
            }
            long first = Long.MAX_VALUE;
            for (int i = 0; i < size; i++) first = Math.min(first, times[i]);
            if (first == Long.MAX_VALUE) caps.downgradeTo(Antichain.empty(1), name);
            else if (!caps.isEmpty()) caps.downgradeTo(Antichain.of(first), name);
        }

        private void send(Updates o, long[] now) {
            if (o.size() == 0) return;
            Capability holder = caps.holder(now);
            if (holder == null) throw new IllegalStateException("operator '" + name + "' holds no capability at or before " + now[0]);
            // a message keeps its time: not the array reused for the next time
            out.send(holder, new long[] {now[0]}, o);
        }
    }
}
