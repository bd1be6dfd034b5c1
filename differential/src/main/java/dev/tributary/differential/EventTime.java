package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.CapabilitySet;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.LongContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OperatorLogic;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * Event time: a collection whose updates come at the system times they committed, reclocked so
 * that each update's time is its data's own event time, with the watermark as the frontier.
 *
 * <p>The model. Take the system times at which the input changes in order, {@code t1 < t2 < ...}.
 * The watermark starts at 0; after {@code tk} it is {@code W(k) = max(W(k-1), watermarkOf(m))}
 * where {@code m} is the largest event time of an insertion committed at or before {@code tk}. An
 * update committed at {@code tk} whose event time is below {@code W(k-1)} (or that has none) is
 * <em>late</em>: it is dropped and counted. Every other update {@code (d, tk, n)} becomes
 * {@code (d, eventTime(d), n)}. The output's frontier is the watermark: once it is {@code W}, no
 * update below {@code W} will ever come, which is what closes a window. Updates of one commit never
 * make each other late, so what is late depends only on the order of commits, not on how the
 * updates were spread over workers or batched: every worker learns every worker's largest event
 * time per system time (broadcast) and processes a system time only once all of them are in.
 *
 * <p>Errors (a second collection, also in system time) come out at the watermark in force when
 * their system time is processed, so that a failing source still fails the stream.
 *
 * <p>The commits are the input's times from a time {@code from} on (given to {@link #assign});
 * everything before {@code from} is one commit at {@code from}. An input read from an arrangement
 * compacted to {@code from} (its since) no longer says in which order those updates came:
 * compaction moved some of them onto later times up to {@code from} and left others where they
 * were, as far as each worker's merges had got. Taken at face value, an update left at its own
 * time could make an earlier one, moved past it, late, on one run and not on the next.
 *
 * <p>Times here are non-negative, as everywhere: an event time below 0 is always late.
 */
public final class EventTime {
    private EventTime() {}

    /** An update's event time, or {@link #NONE} when it has none (a NULL time column). */
    @FunctionalInterface
    public interface TimeOf<D> {
        long of(D data);
    }

    /** What {@link TimeOf} answers for data without an event time: such an update is late. */
    public static final long NONE = Long.MIN_VALUE;

    /**
     * What one stream has done, readable from any thread: how many updates it dropped as late
     * (rows, by their multiplicity) and its watermark (the same on every worker).
     */
    public static final class Stats {
        private final AtomicLong late = new AtomicLong();
        private volatile long watermark;

        public long lateRows() {
            return late.get();
        }

        public long watermark() {
            return watermark;
        }

        void advanced(long w) {
            if (w > watermark) watermark = w;
        }
    }

    /**
     * The reclocked data and errors, and the stream's clock: in system time, at each system time
     * at which the watermark moves, the pair (that system time, the new watermark), on every
     * worker; what {@link #toSystemTime} reads to move event-time results back.
     */
    public record Reclocked<D, E>(Collection<D> data, Collection<E> errors, java.util.function.Supplier<Stream<LongContainer>> clockSource) {
        /** The clock, built on first use (while the dataflow is being built): a stream that no view moves back to system time needs none. */
        public Stream<LongContainer> clock() {
            return clockSource.get();
        }
    }

    /**
     * {@code data} and {@code errors} (system time) in event time, as the class describes; the
     * watermark of a largest event time {@code m} is {@code watermarkOf(m)}, which must not
     * decrease as {@code m} grows. Updates before {@code from} count as committed together at
     * {@code from}: pass the since of the arrangements the input is read from, the same on every
     * worker (0 when every update is at its own time).
     */
    public static <D, E> Reclocked<D, E> assign(Collection<D> data, Collection<E> errors, TimeOf<? super D> timeOf, LongUnaryOperator watermarkOf,
            long from, Stats stats) {
        Scope scope = data.scope();
        if (scope.arity() != 1) throw new IllegalArgumentException("event time works on top-level times only; scope '" + scope.name() + "' has " + scope.arity());
        DataType<D> type = data.type();
        // each worker's largest event time of an insertion per system time, to every worker, as
        // (system time, largest) pairs: a message's records may lie at later times than the message
        Stream<LongContainer> maxima = data.stream().unary("eventTime:maxima", Pact.pipeline(), LongContainer.TYPE, (in, out) -> in.forEach((cap, batch) -> {
            TreeMap<Long, Long> largest = new TreeMap<>();
            long[] times = batch.times();
            long[] diffs = batch.diffs();
            for (int i = 0; i < batch.size(); i++) {
                if (diffs[i] <= 0) continue;
                long e = timeOf.of(type.get(batch.keys(), i));
                if (e != NONE) largest.merge(Math.max(times[i], from), e, Math::max);
            }
            if (largest.isEmpty()) return;
            LongContainer pairs = new LongContainer(2 * largest.size());
            for (var m : largest.entrySet()) {
                pairs.add(m.getKey());
                pairs.add(m.getValue());
            }
            out.send(cap, pairs);
        }));
        java.util.List<Stream<LongContainer>> built = new java.util.ArrayList<>(1);
        java.util.function.Supplier<Stream<LongContainer>> clock = () -> {
            if (built.isEmpty()) built.add(clock(maxima, watermarkOf));
            return built.get(0);
        };
        OperatorBuilder b = scope.operator("eventTime");
        InputPort<Updates> dataIn = b.input(data.stream(), Pact.pipeline());
        InputPort<LongContainer> maximaIn = b.input(maxima, Pact.broadcast(LongContainer.TYPE));
        InputPort<Updates> errorsIn = b.input(errors.stream(), Pact.pipeline());
        OutputPort<Updates> dataOut = b.output(data.stream().type());
        OutputPort<Updates> errorsOut = b.output(errors.stream().type());
        // nothing that arrives gives a capability: output comes only at the watermark this holds,
        // so the output frontier is the watermark, not the input's system time
        for (int i = 0; i < 3; i++) {
            b.summary(i, 0, null);
            b.summary(i, 1, null);
        }
        b.build(initial -> new OperatorLogic() {
            Capability cap = initial;
            long watermark;
            final TreeMap<Long, Updates> pendingData = new TreeMap<>();
            final TreeMap<Long, Updates> pendingErrors = new TreeMap<>();
            final TreeMap<Long, Long> pendingMaxima = new TreeMap<>();

            @Override
            public void schedule() {
                dataIn.forEach((c, batch) -> buffer(batch, from, pendingData, data.stream().type()));
                errorsIn.forEach((c, batch) -> buffer(batch, from, pendingErrors, errors.stream().type()));
                maximaIn.forEach((c, pairs) -> {
                    for (int i = 0; i + 1 < pairs.size(); i += 2) pendingMaxima.merge(pairs.get(i), pairs.get(i + 1), Math::max);
                });
                if (cap == null) return;
                Antichain f1 = dataIn.frontier();
                Antichain f2 = maximaIn.frontier();
                Antichain f3 = errorsIn.frontier();
                long complete = Math.min(bound(f1), Math.min(bound(f2), bound(f3)));
                long late = 0;
                while (true) {
                    long t = next(complete);
                    if (t == Long.MAX_VALUE) break;
                    Updates batch = pendingData.remove(t);
                    if (batch != null) late += emit(batch);
                    Updates errs = pendingErrors.remove(t);
                    if (errs != null) errorsOut.send(cap, errs);
                    Long m = pendingMaxima.remove(t);
                    if (m != null) {
                        long w = watermarkOf.applyAsLong(m);
                        if (w > watermark) {
                            watermark = w;
                            stats.advanced(w);
                        }
                    }
                }
                if (late != 0) stats.late.addAndGet(late);
                if (f1.isEmpty() && f2.isEmpty() && f3.isEmpty() && pendingData.isEmpty() && pendingErrors.isEmpty()) {
                    cap.drop();
                    cap = null;
                    return;
                }
                if (watermark > cap.time()[0]) cap.downgrade(watermark);
            }

            /** The least pending system time below {@code complete}, or MAX_VALUE for none. */
            private long next(long complete) {
                long t = Long.MAX_VALUE;
                for (TreeMap<Long, ?> m : java.util.List.of(pendingData, pendingErrors, pendingMaxima)) {
                    if (!m.isEmpty() && m.firstKey() < t) t = m.firstKey();
                }
                return t < complete ? t : Long.MAX_VALUE;
            }

            private long emit(Updates batch) {
                Updates out = dataOut.newContainer(batch.size());
                long[] times = batch.times();
                long[] diffs = batch.diffs();
                long[] at = new long[1];
                long late = 0;
                for (int i = 0; i < batch.size(); i++) {
                    long e = timeOf.of(type.get(batch.keys(), i));
                    if (e == NONE || e < watermark) {
                        late += Math.abs(diffs[i]);
                        continue;
                    }
                    at[0] = e;
                    Collection.appendCopy(out, batch.keys(), i, at, 0, diffs[i]);
                }
                if (out.size() > 0) dataOut.send(cap, out);
                return late;
            }
        });
        return new Reclocked<>(new Collection<>(dataOut.stream(), type), new Collection<>(errorsOut.stream(), errors.type()), clock);
    }

    /**
     * The watermark as a function of system time, computed from every worker's (system time,
     * largest event time) pairs as {@link #assign} does: a pair (s, W(s)) at time s for each system
     * time s at which it moves, sent once every pair at or before s is in.
     */
    private static Stream<LongContainer> clock(Stream<LongContainer> maxima, LongUnaryOperator watermarkOf) {
        OperatorBuilder b = maxima.scope().operator("eventTime:clock");
        InputPort<LongContainer> in = b.input(maxima, Pact.broadcast(LongContainer.TYPE));
        OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
        CapabilitySet caps = new CapabilitySet();
        TreeMap<Long, Long> pending = new TreeMap<>();
        long[] watermark = {0};
        String name = b.displayName();
        b.build(() -> {
            in.forEach((cap, pairs) -> {
                caps.insert(cap);
                for (int i = 0; i + 1 < pairs.size(); i += 2) pending.merge(pairs.get(i), pairs.get(i + 1), Math::max);
            });
            long complete = bound(in.frontier());
            while (!pending.isEmpty() && pending.firstKey() < complete) {
                var e = pending.pollFirstEntry();
                long w = watermarkOf.applyAsLong(e.getValue());
                if (w <= watermark[0]) continue;
                watermark[0] = w;
                LongContainer pair = new LongContainer(2);
                pair.add(e.getKey());
                pair.add(w);
                long[] t = {e.getKey()};
                Capability holder = caps.holder(t);
                if (holder == null) throw new IllegalStateException("operator '" + name + "' has no capability at or before " + e.getKey());
                out.send(holder, t, pair);
            }
            Antichain.Builder hold = new Antichain.Builder(1);
            if (!pending.isEmpty()) hold.insert(new long[] {pending.firstKey()});
            caps.downgradeTo(hold.build(), name);
        });
        return out.stream();
    }

    /**
     * {@code data} in event time (its frontier at most the combined watermark of {@code clocks},
     * the clocks of the streams it is computed from) back in system time: each update leaves at
     * the first system time at which every stream's watermark had passed its event time, which is
     * when it became final; an update at a time no watermark has passed yet waits. The result's
     * frontier follows the clocks' (system time), so a reader at a system time sees exactly what
     * the streams had settled by then. What a materialized view over streams keeps.
     */
    public static <D> Collection<D> toSystemTime(Collection<D> data, java.util.List<Stream<LongContainer>> clocks) {
        Scope scope = data.scope();
        if (clocks.isEmpty()) throw new IllegalArgumentException("toSystemTime needs the clock of at least one stream");
        dev.tributary.arrangements.Seed.of(scope).refuse(scope, "results in event time waiting for their streams' watermarks");
        OperatorBuilder b = scope.operator("eventTime:toSystemTime");
        InputPort<Updates> dataIn = b.input(data.stream(), Pact.pipeline());
        java.util.List<InputPort<LongContainer>> clockIns = new java.util.ArrayList<>();
        for (Stream<LongContainer> c : clocks) clockIns.add(b.input(c, Pact.pipeline()));
        OutputPort<Updates> out = b.output(data.stream().type());
        // event time does not become system time by a path summary: data waits for the clocks
        b.summary(0, 0, null);
        CapabilitySet caps = new CapabilitySet();
        TreeMap<Long, Updates> pending = new TreeMap<>(); // by event time
        java.util.List<TreeMap<Long, Long>> ticks = new java.util.ArrayList<>();
        long[] watermarks = new long[clocks.size()];
        java.util.Arrays.fill(watermarks, Long.MIN_VALUE);
        for (int i = 0; i < clocks.size(); i++) ticks.add(new TreeMap<>());
        String name = b.displayName();
        dev.tributary.timely.ContainerType<Updates> type = data.stream().type();
        b.build(() -> {
            dataIn.forEach((cap, batch) -> buffer(batch, Long.MIN_VALUE, pending, type));
            for (int i = 0; i < clockIns.size(); i++) {
                TreeMap<Long, Long> mine = ticks.get(i);
                clockIns.get(i).forEach((cap, pairs) -> {
                    caps.insert(cap);
                    for (int k = 0; k + 1 < pairs.size(); k += 2) mine.merge(pairs.get(k), pairs.get(k + 1), Math::max);
                });
            }
            long complete = Long.MAX_VALUE;
            for (InputPort<LongContainer> c : clockIns) complete = Math.min(complete, bound(c.frontier()));
            long settled = bound(dataIn.frontier());
            while (true) {
                long s = Long.MAX_VALUE;
                for (TreeMap<Long, Long> t : ticks) if (!t.isEmpty()) s = Math.min(s, t.firstKey());
                if (s >= complete) break;
                long[] next = watermarks.clone();
                for (int i = 0; i < ticks.size(); i++) {
                    Long w = ticks.get(i).get(s);
                    if (w != null) next[i] = Math.max(next[i], w);
                }
                long combined = Long.MAX_VALUE;
                for (long w : next) combined = Math.min(combined, w);
                // what the watermark passes at s must all be in before it leaves at s
                if (settled < combined) break;
                for (TreeMap<Long, Long> t : ticks) t.remove(s);
                System.arraycopy(next, 0, watermarks, 0, next.length);
                long[] at = {s};
                Capability holder = caps.holder(at);
                if (holder == null) throw new IllegalStateException("operator '" + name + "' has no capability at or before " + s);
                while (!pending.isEmpty() && pending.firstKey() < combined) {
                    Updates batch = pending.pollFirstEntry().getValue();
                    long[] times = batch.times();
                    java.util.Arrays.fill(times, 0, batch.size(), s);
                    out.send(holder, at, batch);
                }
            }
            Antichain.Builder hold = new Antichain.Builder(1);
            for (TreeMap<Long, Long> t : ticks) if (!t.isEmpty()) hold.insert(new long[] {t.firstKey()});
            caps.downgradeTo(hold.build(), name);
        });
        return new Collection<>(out.stream(), data.type());
    }

    /** Adds {@code batch} to {@code pending} by time, times before {@code from} taken as {@code from}. */
    private static void buffer(Updates batch, long from, TreeMap<Long, Updates> pending, dev.tributary.timely.ContainerType<Updates> type) {
        long[] times = batch.times();
        long[] diffs = batch.diffs();
        long[] at = new long[1];
        for (int i = 0; i < batch.size(); i++) {
            at[0] = Math.max(times[i], from);
            Updates into = pending.get(at[0]);
            if (into == null) pending.put(at[0], into = type.create());
            Collection.appendCopy(into, batch.keys(), i, at, 0, diffs[i]);
        }
    }

    /** The least time a frontier of arity 1 still allows, MAX_VALUE when it is empty. */
    private static long bound(Antichain f) {
        return f.isEmpty() ? Long.MAX_VALUE : f.get(0)[0];
    }
}
