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
 * arrangement as they were at one time, once, and leaves; the arrangement's later changes do not
 * reach the output through this operator. {@link ReadTime} says which time that is.
 *
 * <p>{@link ReadTime.OwnTime} is the building block of delta joins: the change of
 * {@code A ⋈ B ⋈ C} is {@code dA ⋈ B ⋈ C + A ⋈ dB ⋈ C + A ⋈ B ⋈ dC}, each term a chain of
 * half-joins against arrangements that already exist, with the inputs before a term's own input
 * read at {@code < t} and those after it at {@code <= t}, so that simultaneous changes are counted
 * exactly once. No intermediate result is arranged.
 *
 * <p>{@link ReadTime.AsOf} is the correlated {@code AS OF SYSTEM TIME} lookup: each record reads
 * the arrangement at a time it carries, {@code lookup(d)}, and leaves at {@code max(t, lookup(d))};
 * a lookup in the future is held back until the arrangement's frontier passes it. Because the
 * arrangement's history at a passed time never changes, a retraction of {@code d} later reads the
 * same contents and retracts exactly what {@code d} produced.
 *
 * <p>An update waits until the arrangement's frontier has passed its read time (so every change
 * of the arrangement at or before it is in the trace), holding a capability at its output time;
 * then it is looked up once and forgotten. The operator holds its own share of the trace: for
 * {@code OwnTime} its logical compaction follows the earliest update still to come, for
 * {@code AsOf} it stays at the given since for the operator's life, so its state is the
 * arrangement's history since then plus the updates still waiting ({@link Accounting}).
 * Top-level (one-coordinate) times only.
 *
 * <p>An activation looks up updates until it has produced {@link JoinCore#FUEL} outputs; the rest
 * wait as if not yet ready and the operator schedules itself again, so a step's output, and the
 * time between the checks for a cancel, stay bounded.
 */
public final class HalfJoin {
    private HalfJoin() {}

    /** When a record of a half-join reads the arrangement, and when its output leaves. */
    public sealed interface ReadTime<D> {
        /**
         * At the record's own time {@code t} ({@code strict}: just before it); output at {@code t}.
         * The arrangement is taken to begin at {@code asOf}: a record before it is read and output
         * at {@code asOf}, and a read before {@code asOf} finds nothing. A delta join over
         * arrangements whose history is compacted (imported into a later dataflow) gives every
         * half-join of every term the same {@code asOf}, at or after each arrangement's since: each
         * input's history up to then then arrives once, at {@code asOf}, where the strict and
         * non-strict reads count it exactly once (a strict read just before {@code asOf} would
         * otherwise meet whatever history the trace had not compacted yet, and count it twice).
         */
        record OwnTime<D>(boolean strict, long asOf) implements ReadTime<D> {
            /** Over arrangements with all their history: taken to begin at time 0. */
            public OwnTime(boolean strict) {
                this(strict, 0);
            }
        }

        /**
         * At {@code lookup(d)}; a lookup before {@code since} reads nothing (the history there is not
         * kept); output at {@code max(t, lookup(d))}.
         */
        record AsOf<D>(java.util.function.ToLongFunction<? super D> lookup, long since) implements ReadTime<D> {}
    }

    /**
     * The time a delta join over {@code lookups} should take its arrangements to begin at (the
     * {@code asOf} of {@link ReadTime.OwnTime}): the latest of their handles' logical compaction
     * frontiers, where each of them reads exactly from then on.
     */
    public static long asOf(List<? extends Arrangement<?, ?>> lookups) {
        long asOf = 0;
        for (Arrangement<?, ?> a : lookups) {
            Antichain since = a.trace().logicalCompaction();
            for (int e = 0; e < since.size(); e++) asOf = Math.max(asOf, since.get(e)[0]);
        }
        return asOf;
    }

    /**
     * What one worker's half-join holds, readable from any thread: the updates waiting for the
     * arrangement to pass their read time, and the arrangement's history it keeps readable.
     */
    public static final class Accounting {
        private volatile long waiting;
        private volatile TraceHandle history;

        /** Updates received and not yet looked up. */
        public long waiting() {
            return waiting;
        }

        /** Updates of this worker's shard of the arrangement (its history since the operator's since), 0 once released. */
        public long historyUpdates() {
            TraceHandle h = history;
            return h == null || h.isDropped() ? 0 : h.trace().updateCount();
        }

        /** Heap bytes of this worker's shard of the arrangement, 0 once released. */
        public long historyBytes() {
            TraceHandle h = history;
            return h == null || h.isDropped() ? 0 : h.trace().heapBytes();
        }
    }

    /**
     * Builds the half-join of {@code stream} against {@code arranged}: {@code f(d, v)} for each value
     * {@code v} of {@code d}'s key at the read time, with the product of the counts; with
     * {@code outer}, {@code f(d, null)} with {@code d}'s count when the key has no value there.
     */
    static <D, K, V, R> Collection<R> halfJoin(Collection<D> stream, Function<? super D, ? extends K> keyOf,
            Arrangement<K, V> arranged, ReadTime<D> readTime, boolean outer, BiFunction<? super D, ? super V, ? extends R> f,
            DataType<R> outType, Accounting accounting) {
        Scope scope = stream.scope();
        if (scope.arity() != 1) {
            throw new IllegalArgumentException("halfJoin works on top-level times only; scope '" + scope.name() + "' has " + scope.arity() + " coordinates");
        }
        DataType<K> keyType = arranged.keyType();
        DataType<V> valType = arranged.valType();
        DataType<D> dataType = stream.type();
        // key each update, and send it to the worker holding that key's shard of the arrangement
        dev.tributary.timely.Stream<Updates> keyedStream = Collection.keyed(stream, keyOf, keyType, "halfJoin:key");
        dev.tributary.timely.ContainerType<Updates> keyedType = keyedStream.type();

        TraceHandle trace = arranged.trace().share();
        trace.setPhysicalCompaction(Antichain.empty(1));
        if (readTime instanceof ReadTime.AsOf<D> asOf) {
            Antichain since = Antichain.of(Math.max(0, asOf.since()));
            if (!trace.logicalCompaction().dominates(since)) {
                trace.drop();
                throw new IllegalArgumentException("trace '" + trace.trace().name() + "' is compacted to " + trace.logicalCompaction()
                        + ", so it cannot be read as of " + asOf.since() + "; share the arrangement before its history there is compacted");
            }
            trace.setLogicalCompaction(since);
        }
        if (accounting != null) accounting.history = trace;
        scope.onDrop(trace::drop);
        OperatorBuilder b = scope.operator("halfJoin");
        InputPort<Updates> updates = b.input(keyedStream, Pact.exchange());
        InputPort<dev.tributary.timely.ListContainer<dev.tributary.arrangements.Batch>> progress = b.input(arranged.batches(), Pact.pipeline());
        OutputPort<Updates> out = b.output(Collection.containerType(outType, 1));
        String name = b.displayName();
        CapabilitySet caps = new CapabilitySet();
        Updates pending = keyedType.create();
        // the waiting updates are this dataflow's state; the arrangement read is its owner's
        dev.tributary.arrangements.Seed.of(scope).refuse(scope, "a half join (its waiting records)");
        dev.tributary.arrangements.HeldState.of(scope).other("halfJoin:waiting", pending::size,
                () -> pending.keys().heapBytes() + pending.vals().heapBytes() + 8L * pending.size() * (pending.arity() + 1));
        Runnable activate = b.activator();
        b.build(() -> {
            updates.forEach((cap, data) -> {
                caps.insert(cap);
                pending.appendAll(data);
            });
            progress.forEach((cap, data) -> {
                // read only for its frontier
                for (int i = 0; i < data.size(); i++) data.get(i).release();
            });
            Antichain arrangedFrontier = progress.frontier();
            Updates waiting = keyedType.create();
            Updates o = out.newContainer();
            long[] times = pending.times();
            long[] diffs = pending.diffs();
            Cursor cursor = null;
            long[] probeTime = new long[1];
            long[] emitTime = new long[1];
            Antichain.Builder hold = new Antichain.Builder(1);
            // past the fuel, the rest waits for the next activation, held at the earliest of its output times
            long deferredFrom = Long.MAX_VALUE;
            for (int i = 0; i < pending.size(); i++) {
                long t = readTime instanceof ReadTime.OwnTime<D> own ? Math.max(times[i], own.asOf()) : times[i];
                if (o.size() >= JoinCore.FUEL) {
                    waiting.appendFrom(pending, i);
                    long emit = readTime instanceof ReadTime.AsOf<D> asOf ? Math.max(t, asOf.lookup().applyAsLong(dataType.get(pending.vals(), i))) : t;
                    deferredFrom = Math.min(deferredFrom, emit);
                    continue;
                }
                D d = null;
                long readAt;
                long floor;
                switch (readTime) {
                    case ReadTime.OwnTime<D> own -> {
                        readAt = own.strict() ? t - 1 : t;
                        floor = own.asOf();
                        // a delta join's term reads at t - 1 but is counted at t: wait for t, as the other terms do
                        if (arrangedFrontier.lessEqual(t)) {
                            waiting.appendFrom(pending, i);
                            hold.insert(new long[] {t});
                            continue;
                        }
                    }
                    case ReadTime.AsOf<D> asOf -> {
                        d = dataType.get(pending.vals(), i);
                        readAt = asOf.lookup().applyAsLong(d);
                        floor = asOf.since();
                        if (readAt >= floor && arrangedFrontier.lessEqual(readAt)) {
                            waiting.appendFrom(pending, i);
                            hold.insert(new long[] {Math.max(t, readAt)});
                            continue;
                        }
                    }
                }
                emitTime[0] = Math.max(t, readAt);
                boolean found = false;
                if (readAt >= floor) {
                    if (cursor == null) cursor = trace.cursor();
                    cursor.rewindKeys();
                    Column keys = pending.keys();
                    cursor.seekKey(keys, i);
                    if (cursor.keyValid() && cursor.keyColumn().equal(cursor.keyIndex(), keys, i)) {
                        if (d == null) d = dataType.get(pending.vals(), i);
                        probeTime[0] = readAt;
                        while (cursor.valValid()) {
                            long n = cursor.accumulate(probeTime);
                            if (n != 0) {
                                Collection.append(o, outType, f.apply(d, valType.get(cursor.valColumn(), cursor.valIndex())), emitTime, 0, diffs[i] * n);
                                found = true;
                            }
                            cursor.stepVal();
                        }
                    }
                }
                if (outer && !found) {
                    if (d == null) d = dataType.get(pending.vals(), i);
                    Collection.append(o, outType, f.apply(d, null), emitTime, 0, diffs[i]);
                }
            }
            // send what is ready, each update at its output time
            if (o.size() > 0) sendByTime(o, caps, out, name);
            pending.clear();
            pending.appendAll(waiting);
            if (accounting != null) accounting.waiting = pending.size();
            // hold capabilities only for the output times of waiting updates (future ones bring their own)
            if (deferredFrom != Long.MAX_VALUE) {
                hold.insert(new long[] {deferredFrom});
                activate.run();
            }
            caps.downgradeTo(hold.build(), name);
            if (trace.isDropped()) return;
            Antichain future = updates.frontier();
            if (future.isEmpty() && pending.size() == 0) {
                trace.drop();
                return;
            }
            if (readTime instanceof ReadTime.OwnTime<D>) {
                // the trace may forget history up to just before the earliest update still to be joined
                long earliest = Long.MAX_VALUE;
                long[] wt = pending.times();
                for (int i = 0; i < pending.size(); i++) earliest = Math.min(earliest, wt[i]);
                for (int e = 0; e < future.size(); e++) earliest = Math.min(earliest, future.get(e)[0]);
                // records before asOf read at asOf, so history up to just before it may go as well
                long asOf = ((ReadTime.OwnTime<D>) readTime).asOf();
                Antichain since = Antichain.of(Math.max(0, Math.max(earliest, asOf) - 1));
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
