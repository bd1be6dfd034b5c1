package dev.tributary.differential;

import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.TraceHandle;
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
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The half-join: each update {@code (d, t, diff)} of a stream meets the contents of an
 * arrangement as they were just before {@code t} ({@code strict}) or at {@code t}, and leaves at
 * {@code t}. The arrangement's later changes do not reach the output through this operator.
 *
 * <p>This is the building block of delta joins: the change of {@code A ⋈ B ⋈ C} is
 * {@code dA ⋈ B ⋈ C + A ⋈ dB ⋈ C + A ⋈ B ⋈ dC}, each term a chain of half-joins against
 * arrangements that already exist, with the inputs before a term's own input read at {@code <= t}
 * and those after it at {@code < t}, so that simultaneous changes are counted exactly once. No
 * intermediate result is arranged.
 *
 * <p>An update waits until the arrangement's frontier has passed its time (so every change of the
 * arrangement at or before it is in the trace), holding a capability at its time; the operator
 * holds its own share of the trace, whose logical compaction stays just before the earliest
 * waiting or future update, so the history it reads stays exact. Top-level (one-coordinate) times
 * only.
 */
final class HalfJoin {
    private HalfJoin() {}

    static <D, K, V, R> Collection<R> halfJoin(Collection<D> stream, Function<? super D, ? extends K> keyOf,
            Arrangement<K, V> arranged, boolean strict, BiFunction<? super D, ? super V, ? extends R> f, DataType<R> outType) {
        Scope scope = stream.scope();
        if (scope.arity() != 1) {
            throw new IllegalArgumentException("halfJoin works on top-level times only; scope '" + scope.name() + "' has " + scope.arity() + " coordinates");
        }
        DataType<K> keyType = arranged.keyType();
        DataType<V> valType = arranged.valType();
        DataType<D> dataType = stream.type();
        // key each update, and send it to the worker holding that key's shard of the arrangement
        Updates proto = new Updates(keyType.newColumn(1), dataType.newColumn(1), 1);
        dev.tributary.timely.ContainerType<Updates> keyedType = Updates.type(proto.keys(), proto.vals(), 1);
        OperatorBuilder kb = scope.operator("halfJoin:key");
        InputPort<Updates> raw = kb.input(stream.stream(), Pact.pipeline());
        OutputPort<Updates> keyedOut = kb.output(keyedType);
        kb.build(() -> raw.forEach((cap, data) -> {
            Updates o = keyedOut.newContainer();
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                D d = dataType.get(data.keys(), i);
                keyType.append(o.keys(), keyOf.apply(d));
                dataType.append(o.vals(), d);
                o.push(times, i, diffs[i]);
            }
            keyedOut.send(cap, o);
        }));

        TraceHandle trace = arranged.trace().share();
        trace.setPhysicalCompaction(Antichain.empty(1));
        scope.onDrop(trace::drop);
        OperatorBuilder b = scope.operator("halfJoin");
        InputPort<Updates> updates = b.input(keyedOut.stream(), Pact.exchange());
        InputPort<dev.tributary.timely.ListContainer<dev.tributary.arrangements.Batch>> progress = b.input(arranged.batches(), Pact.pipeline());
        OutputPort<Updates> out = b.output(Collection.containerType(outType, 1));
        String name = b.displayName();
        CapabilitySet caps = new CapabilitySet();
        Updates pending = keyedType.create();
        b.build(() -> {
            updates.forEach((cap, data) -> {
                caps.insert(cap);
                pending.appendAll(data);
            });
            progress.forEach((cap, data) -> {});
            Antichain arrangedFrontier = progress.frontier();
            Updates waiting = keyedType.create();
            Updates o = out.newContainer();
            long[] times = pending.times();
            long[] diffs = pending.diffs();
            Cursor cursor = null;
            long[] probeTime = new long[1];
            for (int i = 0; i < pending.size(); i++) {
                long t = times[i];
                if (arrangedFrontier.lessEqual(t)) {
                    waiting.appendFrom(pending, i);
                    continue;
                }
                if (cursor == null) cursor = trace.cursor();
                cursor.rewindKeys();
                Column keys = pending.keys();
                cursor.seekKey(keys, i);
                if (!cursor.keyValid() || !cursor.keyColumn().equal(cursor.keyIndex(), keys, i)) continue;
                D d = dataType.get(pending.vals(), i);
                long bound = strict ? t - 1 : t;
                probeTime[0] = bound;
                while (cursor.valValid()) {
                    long n = bound < 0 ? 0 : cursor.accumulate(probeTime);
                    if (n != 0) Collection.append(o, outType, f.apply(d, valType.get(cursor.valColumn(), cursor.valIndex())), times, i, diffs[i] * n);
                    cursor.stepVal();
                }
            }
            // send what is ready, each update at its own time
            if (o.size() > 0) sendByTime(o, caps, out, name);
            pending.clear();
            pending.appendAll(waiting);
            // hold capabilities only for waiting updates (future ones bring their own)
            Antichain.Builder hold = new Antichain.Builder(1);
            long[] wt = pending.times();
            for (int i = 0; i < pending.size(); i++) hold.insert(new long[] {wt[i]});
            caps.downgradeTo(hold.build(), name);
            // the trace may forget history up to just before the earliest update still to be joined
            long earliest = Long.MAX_VALUE;
            for (int i = 0; i < pending.size(); i++) earliest = Math.min(earliest, wt[i]);
            Antichain future = updates.frontier();
            for (int e = 0; e < future.size(); e++) earliest = Math.min(earliest, future.get(e)[0]);
            if (trace.isDropped()) return;
            if (earliest == Long.MAX_VALUE) {
                trace.drop();
            } else {
                Antichain since = Antichain.of(Math.max(0, earliest - 1));
                if (trace.logicalCompaction().dominates(since) && !trace.logicalCompaction().equals(since)) trace.setLogicalCompaction(since);
            }
        });
        return new Collection<>(out.stream(), outType);
    }

    /** Sends the records of {@code o} (times in its time column) under held capabilities, one message per time. */
    private static void sendByTime(Updates o, CapabilitySet caps, OutputPort<Updates> out, String name) {
        long[] times = o.times();
        java.util.TreeMap<Long, List<Integer>> byTime = new java.util.TreeMap<>();
        for (int i = 0; i < o.size(); i++) byTime.computeIfAbsent(times[i], k -> new ArrayList<>()).add(i);
        for (var e : byTime.entrySet()) {
            long[] t = {e.getKey()};
            Capability holder = caps.holder(t);
            if (holder == null) throw new IllegalStateException("operator '" + name + "' has no capability at or before " + e.getKey());
            Updates msg = out.newContainer();
            for (int i : e.getValue()) msg.appendFrom(o, i);
            out.send(holder, t, msg);
        }
    }
}
