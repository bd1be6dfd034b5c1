package dev.tributary.changeslog;

import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Consolidation;
import dev.tributary.arrangements.ObjectColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
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
 *
 * <p>Worker 0 is every subscription's critical path, so a row costs it little: a time's updates
 * wait as they were gathered (column ranges copied, nothing decoded), are consolidated once when
 * the time is delivered, and reach the sink as a view of that column ({@link Changes}), not a map
 * of objects. A stream of a million rows through a map of decoded rows spent a third of the
 * workers' time here.
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
        /** All changes at {@code time}, consolidated; {@code changes} is valid only during the call. */
        void changes(long time, Changes<D> changes);

        /** Every change at a time before {@code frontier} has been delivered. */
        default void progressed(long frontier) {}

        /** The collection's errors at {@code time}: each error to its non-zero count; the stream ends. */
        default void failed(long time, Map<E, Long> errors) {}

        /** The stream is over: {@code upTo} reached or the collection complete. */
        default void done() {}
    }

    /**
     * The consolidated changes at one time: change {@code i} (of {@code 0 .. size())} is
     * {@link #data(int) data(i)}, whose multiplicity changed by {@link #diff(int) diff(i)}, never 0;
     * no two changes hold equal data.
     *
     * <p>The data stay where the stream gathered them, value {@link #index(int) index(i)} of
     * {@link #column()}, so a sink that wants something other than a {@code D} (a SQL row's values)
     * reads it there in place; {@link #data(int)} makes a {@code D} only for the change asked for.
     * A stream's changes are a view of its buffers, valid only during {@link Sink#changes}: a sink
     * that keeps them copies them ({@link #toMap()}).
     */
    public interface Changes<D> {
        /** How many changes. */
        int size();

        /** The data of change {@code i}. */
        D data(int i);

        /** The change in multiplicity of change {@code i}'s data: not 0. */
        long diff(int i);

        /** The column holding the changes' data. */
        Column column();

        /** Where in {@link #column()} change {@code i}'s data is. */
        int index(int i);

        /** A copy: each change's data to its diff, in the changes' order. */
        default Map<D, Long> toMap() {
            Map<D, Long> m = LinkedHashMap.newLinkedHashMap(size());
            for (int i = 0; i < size(); i++) m.put(data(i), diff(i));
            return m;
        }

        /**
         * The changes {@code data} with {@code diffs} (aligned, distinct data, no zero diff), for a
         * sink that derives changes of its own ({@link UpsertEnvelope}): their column holds the
         * objects themselves, and is never ordered or compared.
         */
        static <D> Changes<D> of(List<D> data, long[] diffs) {
            if (data.size() != diffs.length) throw new IllegalArgumentException(data.size() + " changes with " + diffs.length + " diffs");
            ObjectColumn<D> column = new ObjectColumn<>(null, data.size());
            for (D d : data) column.add(d);
            return new Changes<>() {
                @Override
                public int size() {
                    return diffs.length;
                }

                @Override
                public D data(int i) {
                    return column.getValue(i);
                }

                @Override
                public long diff(int i) {
                    return diffs[i];
                }

                @Override
                public Column column() {
                    return column;
                }

                @Override
                public int index(int i) {
                    return i;
                }
            };
        }
    }

    /**
     * Delivers the changes of {@code data} (and of {@code errors}, which may be null) to {@code sink}
     * on worker 0.
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
            oks.forEach((cap, batch) -> state.collect(batch, state.pending, state.free));
            if (errs != null) errs.forEach((cap, batch) -> state.collect(batch, state.pendingErrors, null));
            if (delivers) state.deliver(errs == null ? oks.frontier() : meet(oks.frontier(), errs.frontier()));
        });
    }

    private static Antichain meet(Antichain a, Antichain b) {
        Antichain.Builder m = new Antichain.Builder(1);
        for (int i = 0; i < a.size(); i++) m.insert(a.get(i));
        for (int i = 0; i < b.size(); i++) m.insert(b.get(i));
        return m.build();
    }

    /**
     * The updates gathered at one time, as they came: data in a column of the collection's type,
     * diffs beside them. Appending copies ranges of a gathered container's columns; nothing is
     * decoded, hashed or compared until the time is delivered, and then once ({@link Consolidated}).
     */
    private static final class Pending {
        final Column data;
        long[] diffs = new long[16];
        int size;

        Pending(Column data) {
            this.data = data;
        }

        /** Appends records {@code [from, to)} of {@code batch}. */
        void append(Updates batch, int from, int to) {
            int n = to - from;
            data.appendRange(batch.keys(), from, to);
            if (size + n > diffs.length) diffs = Arrays.copyOf(diffs, Math.max(size + n, 2 * diffs.length));
            System.arraycopy(batch.diffs(), from, diffs, size, n);
            size += n;
        }

        void clear() {
            data.clear();
            size = 0;
        }
    }

    /**
     * A pending time's updates consolidated in place, as a sink reads them: one record per distinct
     * datum (its first), its diff the sum, in the order the data first came, those summing to 0
     * left out. Reused for every time a stream delivers, with its scratch arrays, so delivering
     * allocates nothing once they have grown.
     *
     * <p>By a hash table rather than a sort: a time's updates are mostly distinct (a stream of new
     * rows), and one pass that hashes each and compares only on equal hashes costs less than a
     * sort's {@code n log n} comparisons, and keeps the order the data came in.
     */
    private static final class Consolidated<D> implements Changes<D> {
        private final DataType<D> type;
        private Pending pending;
        /** The surviving records of {@link #pending}, in order. */
        private int[] kept = new int[16];
        private int size;
        private final Consolidation consolidation = new Consolidation();

        Consolidated(DataType<D> type) {
            this.type = type;
        }

        /** Consolidates {@code p}'s records (summing the diffs of equal data into the first's) and views them. */
        Consolidated<D> of(Pending p) {
            pending = p;
            int n = p.size;
            if (kept.length < n) kept = new int[Math.max(n, 2 * kept.length)];
            for (int i = 0; i < n; i++) kept[i] = i;
            size = consolidation.addUp(p.data, null, null, 1, p.diffs, kept, n);
            return this;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public D data(int i) {
            return type.get(pending.data, index(i));
        }

        @Override
        public long diff(int i) {
            return pending.diffs[index(i)];
        }

        @Override
        public Column column() {
            return pending.data;
        }

        @Override
        public int index(int i) {
            if (i >= size) throw new IndexOutOfBoundsException("change " + i + " of " + size);
            return kept[i];
        }
    }

    /** Worker 0's undelivered times and how far the stream has gone. */
    private static final class State<D, E> {
        /**
         * Delivered times' buffers kept for times to come: at most this many, each of at most
         * {@link #REUSE_BYTES}, so an idle stream holds a few megabytes at most, not its largest time.
         */
        private static final int REUSE_BUFFERS = 2;
        private static final long REUSE_BYTES = 4 << 20;

        final Options options;
        final Sink<D, E> sink;
        final TreeMap<Long, Pending> pending = new TreeMap<>();
        final TreeMap<Long, Pending> pendingErrors = new TreeMap<>();
        final Consolidated<D> changes;
        final Consolidated<E> errors;
        /** Buffers of delivered times, emptied, for times to come: one per time would be garbage per delivery. */
        final ArrayDeque<Pending> free = new ArrayDeque<>();
        long progressed;
        boolean over;

        State(Options options, DataType<D> dataType, DataType<E> errorType, Sink<D, E> sink) {
            this.options = options;
            this.sink = sink;
            this.changes = new Consolidated<>(dataType);
            this.errors = errorType == null ? null : new Consolidated<>(errorType);
            this.progressed = options.asOf();
            // delivered even when empty, so present from the start
            if (options.snapshot() && options.asOf() < options.upTo()) pending.put(options.asOf(), new Pending(dataType.newColumn(16)));
        }

        /**
         * Adds {@code batch}'s updates to the times they belong to: runs of equal times at once, a
         * range copy each. New times take their buffers from {@code reuse} (null: none, for errors).
         */
        void collect(Updates batch, TreeMap<Long, Pending> into, ArrayDeque<Pending> reuse) {
            if (over) return;
            long[] times = batch.times();
            long asOf = options.asOf();
            int n = batch.size();
            for (int i = 0; i < n; ) {
                long t = times[i];
                int j = i + 1;
                while (j < n && times[j] == t) j++;
                long at = t <= asOf ? asOf : t;
                if ((t > asOf || options.snapshot()) && at < options.upTo()) {
                    Pending p = into.get(at);
                    if (p == null) {
                        // sized for the run at hand: a new time's buffer grown by doubling from 16 values showed in the profile
                        p = reuse == null || reuse.isEmpty() ? new Pending(batch.keys().emptyLike(Math.max(16, j - i), batch.keys().bytesUsed() * (j - i) / n))
                                : reuse.pop();
                        into.put(at, p);
                    }
                    p.append(batch, i, j);
                }
                i = j;
            }
        }

        void deliver(Antichain frontier) {
            if (over) return;
            while (true) {
                long t = Math.min(pending.isEmpty() ? Long.MAX_VALUE : pending.firstKey(),
                        pendingErrors.isEmpty() ? Long.MAX_VALUE : pendingErrors.firstKey());
                if (t == Long.MAX_VALUE || frontier.lessEqual(t)) break;
                Pending e = pendingErrors.remove(t);
                if (e != null && errors.of(e).size() > 0) {
                    over = true;
                    pending.clear();
                    pendingErrors.clear();
                    sink.failed(t, errors.toMap());
                    return;
                }
                Pending p = pending.remove(t);
                if (p == null) continue;
                Consolidated<D> c = changes.of(p);
                if (c.size() > 0 || (options.snapshot() && t == options.asOf())) sink.changes(t, c);
                recycle(p);
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

        private void recycle(Pending p) {
            if (p == null || free.size() >= REUSE_BUFFERS || p.data.heapBytes() + 8L * p.diffs.length > REUSE_BYTES) return;
            p.clear();
            free.push(p);
        }
    }
}
