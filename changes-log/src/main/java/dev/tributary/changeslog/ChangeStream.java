package dev.tributary.changeslog;

import dev.tributary.arrangements.Updates;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A collection's changes as a subscriber receives them: what {@code SUBSCRIBE} sends.
 *
 * <p>Promises, for a stream started with {@link Options} {@code (asOf, snapshot, progress, upTo)}:
 * <ul>
 *   <li>With {@code snapshot}, the first delivery is the collection's contents at {@code asOf}
 *       (every update at or before it, folded to {@code asOf}; delivered even when empty); without
 *       it, updates at or before {@code asOf} are not delivered at all.</li>
 *   <li>Then each later time {@code t < upTo} whose changes do not cancel out is delivered once,
 *       consolidated, in increasing time order, and only when the collection's frontier has passed
 *       {@code t}, so a delivered time is never revised and nothing is missed: the sum of the
 *       deliveries up to any delivered time is the collection's contents there.</li>
 *   <li>With {@code progress}, {@link Sink#progressed(long) progressed(f)} says that every change
 *       at a time {@code < f} has been delivered; it comes after those changes and before any change
 *       at {@code f} or later, only when {@code f} moved past {@code asOf} and past the last one.</li>
 *   <li>Once every time before {@code upTo} is delivered, or the collection is complete, {@link
 *       Sink#done()} is called once and nothing follows. An error at a time (a non-empty error
 *       collection there) is delivered instead of that time's changes, and ends the stream.</li>
 * </ul>
 * Every worker's updates are gathered to worker 0, which holds the undelivered times and calls the
 * sink on its own thread; the other workers' sinks are never called.
 */
public final class ChangeStream {
    private ChangeStream() {}

    /** Where the stream starts and ends; {@code upTo} is exclusive, {@link Long#MAX_VALUE} for no end. */
    public record Options(long asOf, boolean snapshot, boolean progress, long upTo) {
        /** From {@code asOf} on, with its snapshot and without progress, forever. */
        public static Options from(long asOf) {
            return new Options(asOf, true, false, Long.MAX_VALUE);
        }
    }

    /** Receives a stream's deliveries; see {@link ChangeStream} for their order. */
    public interface Sink<D, E> {
        /** All changes at {@code time}: data to its non-zero change in multiplicity. */
        void changes(long time, Map<D, Long> changes);

        /** Every change at a time before {@code frontier} has been delivered. */
        default void progressed(long frontier) {}

        /** The collection's errors at {@code time}; the stream ends. */
        default void failed(long time, Map<E, Long> errors) {}

        /** The stream is over: {@code upTo} reached or the collection complete. */
        default void done() {}
    }

    /**
     * Delivers the changes of {@code data} (and of {@code errors}, which may be null) to {@code sink}
     * on worker 0. Data must have value equality ({@code equals}/{@code hashCode}).
     */
    public static <D, E> void subscribe(Collection<D> data, Collection<E> errors, Options options, Sink<D, E> sink) {
        Scope scope = data.scope();
        if (scope.arity() != 1) throw new IllegalArgumentException("a change stream reads top-level times; scope '" + scope.name() + "' has " + scope.arity());
        OperatorBuilder b = scope.operator("changeStream");
        InputPort<Updates> oks = b.input(data.stream(), Pact.gather(data.stream().type()));
        InputPort<Updates> errs = errors == null ? null : b.input(errors.stream(), Pact.gather(errors.stream().type()));
        boolean delivers = scope.worker() == 0;
        State<D, E> state = new State<>(options, data.type(), errors == null ? null : errors.type(), sink);
        b.build(() -> {
            oks.forEach((cap, batch) -> state.collect(batch, state.pending, state.dataType));
            if (errs != null) errs.forEach((cap, batch) -> state.collect(batch, state.pendingErrors, state.errorType));
            if (delivers) state.deliver(errs == null ? oks.frontier() : meet(oks.frontier(), errs.frontier()));
        });
    }

    private static Antichain meet(Antichain a, Antichain b) {
        Antichain.Builder m = new Antichain.Builder(1);
        for (int i = 0; i < a.size(); i++) m.insert(a.get(i));
        for (int i = 0; i < b.size(); i++) m.insert(b.get(i));
        return m.build();
    }

    /** Worker 0's undelivered times and how far the stream has gone. */
    private static final class State<D, E> {
        final Options options;
        final DataType<D> dataType;
        final DataType<E> errorType;
        final Sink<D, E> sink;
        final TreeMap<Long, Map<D, Long>> pending = new TreeMap<>();
        final TreeMap<Long, Map<E, Long>> pendingErrors = new TreeMap<>();
        long progressed;
        boolean over;

        State(Options options, DataType<D> dataType, DataType<E> errorType, Sink<D, E> sink) {
            this.options = options;
            this.dataType = dataType;
            this.errorType = errorType;
            this.sink = sink;
            this.progressed = options.asOf();
            if (options.snapshot() && options.asOf() < options.upTo()) pending.put(options.asOf(), new LinkedHashMap<>());
        }

        <X> void collect(Updates batch, TreeMap<Long, Map<X, Long>> into, DataType<X> type) {
            if (over) return;
            long[] times = batch.times();
            long[] diffs = batch.diffs();
            for (int i = 0; i < batch.size(); i++) {
                long t = times[i];
                if (t <= options.asOf()) {
                    if (!options.snapshot()) continue;
                    t = options.asOf();
                }
                if (t >= options.upTo()) continue;
                into.computeIfAbsent(t, k -> new LinkedHashMap<>()).merge(type.get(batch.keys(), i), diffs[i], Long::sum);
            }
        }

        void deliver(Antichain frontier) {
            if (over) return;
            while (true) {
                long t = Math.min(pending.isEmpty() ? Long.MAX_VALUE : pending.firstKey(),
                        pendingErrors.isEmpty() ? Long.MAX_VALUE : pendingErrors.firstKey());
                if (t == Long.MAX_VALUE || frontier.lessEqual(t)) break;
                Map<E, Long> e = pendingErrors.remove(t);
                if (e != null) {
                    e.values().removeIf(n -> n == 0);
                    if (!e.isEmpty()) {
                        over = true;
                        pending.clear();
                        pendingErrors.clear();
                        sink.failed(t, e);
                        return;
                    }
                }
                Map<D, Long> changes = pending.remove(t);
                if (changes == null) continue;
                changes.values().removeIf(n -> n == 0);
                if (!changes.isEmpty() || (options.snapshot() && t == options.asOf())) sink.changes(t, changes);
            }
            long reached = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            for (int i = 1; i < frontier.size(); i++) reached = Math.min(reached, frontier.get(i)[0]);
            long bound = Math.min(reached, options.upTo());
            if (options.progress() && bound > progressed && bound != Long.MAX_VALUE) {
                progressed = bound;
                sink.progressed(bound);
            }
            if (reached >= options.upTo() || frontier.isEmpty()) {
                over = true;
                sink.done();
            }
        }
    }
}
