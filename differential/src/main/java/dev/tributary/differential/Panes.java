package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Window aggregation on panes, each window's result once, when its window closes.
 *
 * <p>Model: windows of {@code size} start every {@code slide}, aligned to {@code offset}; a
 * record whose window time is {@code w} belongs to every window {@code [s, s + size)} that holds
 * {@code w} (a tumble is a hop whose slide is its size). The time line is cut into panes of
 * {@code gcd(slide, size)}: every window is a whole number of panes, and each record falls into
 * exactly one pane, where it updates its key's accumulator once (not once per window, as
 * expanding each record into its windows would). When the input frontier passes a window's last
 * instant {@code end - 1}, the window's result for each key is its panes' accumulators merged; it
 * is emitted at {@code end - 1} and retracted at {@code end}, so that what operators above keep
 * of a closed window adds up to nothing and compaction behind the frontier frees it (the same
 * updates as delaying each record to {@code end - 1}, aggregating, and expiring at {@code end}).
 * A pane's accumulators are dropped as soon as the last window holding the pane has been emitted.
 *
 * <p>An update at time {@code t} counts only in the windows whose last instant is at or after
 * {@code t}: a window emitted before the update could come has its result without it (an update
 * that lies past its window's close is, under a delay to the close, no change to what the window
 * gave there). Updates are exchanged by key, so each key's panes live on one worker. Times are
 * the top-level, totally ordered ones of event time.
 */
public final class Panes {
    private Panes() {}

    /** Window times of records in no window (a NULL time). */
    public static final long NONE = Long.MIN_VALUE;

    /**
     * The windows' results of {@code data} by {@code keyOf}, as the class describes; {@code time}
     * gives a record's window time ({@link #NONE}: in no window).
     */
    public static <D, K, A, R> Collection<R> aggregate(Collection<D> data, String name, long slide, long size, long offset,
            Function<? super D, ? extends K> keyOf, DataType<K> keyType, ToLongFunction<? super D> time, WindowAggregator<K, D, A, R> aggregator,
            DataType<R> outType) {
        return aggregate(data, name, slide, size, offset, false, keyOf, keyType, time, aggregator, outType);
    }

    /**
     * {@link #aggregate}, and with {@code cumulative} CUMULATE's windows instead: every {@code size}
     * a window starts, and its prefixes ending every {@code slide} (the step, which divides the
     * size) are windows too, on panes of the step.
     */
    public static <D, K, A, R> Collection<R> aggregate(Collection<D> data, String name, long slide, long size, long offset, boolean cumulative,
            Function<? super D, ? extends K> keyOf, DataType<K> keyType, ToLongFunction<? super D> time, WindowAggregator<K, D, A, R> aggregator,
            DataType<R> outType) {
        if (slide <= 0 || size <= 0) throw new IllegalArgumentException("panes need a positive slide and size, not " + slide + " and " + size);
        if (cumulative && size % slide != 0) throw new IllegalArgumentException("a cumulating window's step " + slide + " must divide its size " + size);
        Windows<D, K, A, R> w = new Windows<>(new Layout(slide, size, offset, cumulative), data.type(), keyType, time, aggregator, outType);
        return KeyedWindows.build(data, "panes", name, keyOf, w, ACCUMULATOR_BYTES, "a window aggregation's panes");
    }

    /** A rough size of a key's accumulator in a pane, for the dataflow's memory accounting. */
    private static final long ACCUMULATOR_BYTES = 160;

    /** Where windows and panes lie on the time line. */
    record Layout(long slide, long size, long offset, long pane, boolean cumulative) {
        Layout(long slide, long size, long offset, boolean cumulative) {
            this(slide, size, offset, gcd(slide, size), cumulative);
        }

        /** The start of the window that ends at {@code end}: a cumulating window's start is the last multiple of its size before it. */
        long startOf(long end) {
            if (!cumulative) return end - size;
            long last = end - 1;
            return last - Math.floorMod(last - offset, size);
        }

        /** The start of the pane holding {@code w}. */
        long paneOf(long w) {
            return Math.subtractExact(w, Math.floorMod(Math.subtractExact(w, offset), pane));
        }

        /** The least window end after {@code x}: window ends lie at {@code offset + size} plus multiples of the slide. */
        long endAfter(long x) {
            long phase = Math.floorMod(Math.addExact(offset, size), slide);
            long next = Math.addExact(x, 1);
            return Math.addExact(next, Math.floorMod(phase - Math.floorMod(next, slide), slide));
        }

        /** The end of the first window holding pane {@code p} (past {@link #lastEnd} when a gap between windows holds it). */
        long firstEnd(long p) {
            return endAfter(p);
        }

        /**
         * The end of the last window holding pane {@code p}: the one that starts at the last window
         * start at or before it (a cumulating window's: the whole window of its start).
         */
        long lastEnd(long p) {
            return Math.addExact(Math.subtractExact(p, Math.floorMod(Math.subtractExact(p, offset), cumulative ? size : slide)), size);
        }

        private static long gcd(long a, long b) {
            return b == 0 ? a : gcd(b, a % b);
        }
    }

    /** A pane's accumulators: those whose first window is the pane's first, and those of updates that came later, by their first window. */
    private static final class Pane<K, A> {
        final long start;
        final long first;
        final long last;
        final HashMap<K, A> main = new HashMap<>();
        /** Accumulators of updates at times past the pane's first window's close, by the end of the first window they count in. */
        TreeMap<Long, HashMap<K, A>> later;

        Pane(long start, long first, long last) {
            this.start = start;
            this.first = first;
            this.last = last;
        }

        HashMap<K, A> from(long end) {
            if (end == first) return main;
            if (later == null) later = new TreeMap<>();
            return later.computeIfAbsent(end, e -> new HashMap<>());
        }
    }

    /** The operator's state on one worker: the open panes, and the capabilities for the windows not yet emitted. */
    private static final class Windows<D, K, A, R> extends KeyedWindows<D, K, A, R> {
        final Layout layout;
        final TreeMap<Long, Pane<K, A>> panes = new TreeMap<>();
        /** The end of the last window emitted; windows are emitted in order of their ends. */
        long emitted = Long.MIN_VALUE;
        /** Accumulators held. */
        long accumulators;
        /** The pane the last update went to: updates mostly come in time order. */
        Pane<K, A> recent;

        Windows(Layout layout, DataType<D> dataType, DataType<K> keyType, ToLongFunction<? super D> time, WindowAggregator<K, D, A, R> aggregator,
                DataType<R> outType) {
            super(dataType, keyType, time, aggregator, outType);
            this.layout = layout;
        }

        @Override
        long held() {
            return accumulators;
        }

        @Override
        void add(Updates batch, int i, D d, long w, long time, long diff) {
            Pane<K, A> pane;
            try {
                long p = layout.paneOf(w);
                pane = recent != null && recent.start == p ? recent : panes.get(p);
                if (pane == null) {
                    long first = layout.firstEnd(p);
                    long last = layout.lastEnd(p);
                    // in a gap between windows, or in windows all emitted already
                    if (first > last || last <= emitted) return;
                    pane = new Pane<>(p, first, last);
                    panes.put(p, pane);
                }
            } catch (ArithmeticException e) {
                // a time at the very end of the range has no window that ends within it
                return;
            }
            recent = pane;
            // the first window the update counts in: the first whose last instant is not before it
            long from = time < pane.first ? pane.first : layout.endAfter(time);
            if (from > pane.last || from <= emitted) return;
            HashMap<K, A> accs = pane.from(from);
            K key = keyType.get(batch.keys(), i);
            A acc = accs.get(key);
            if (acc == null) {
                accs.put(key, acc = aggregator.create());
                accumulators++;
            }
            aggregator.add(acc, d, diff);
        }

        /** Emits every window whose last instant {@code frontier} has passed, frees the panes no open window holds, and holds what is left. */
        @Override
        void close(Antichain frontier) {
            long bound = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            while (true) {
                long end = next();
                if (end == Long.MAX_VALUE || end - 1 >= bound) break;
                emit(end);
                emitted = end;
                while (!panes.isEmpty() && panes.firstEntry().getValue().last <= end) {
                    Pane<K, A> gone = panes.pollFirstEntry().getValue();
                    accumulators -= gone.main.size();
                    if (gone.later != null) for (HashMap<K, A> m : gone.later.values()) accumulators -= m.size();
                    if (gone == recent) recent = null;
                }
            }
            long end = next();
            caps.downgradeTo(end == Long.MAX_VALUE ? Antichain.empty(1) : Antichain.of(end - 1), name);
        }

        /** The end of the next window to emit: the least one past {@link #emitted} that holds accumulators, or MAX_VALUE. */
        private long next() {
            long next = Long.MAX_VALUE;
            long after = emitted == Long.MIN_VALUE ? Long.MIN_VALUE : layout.endAfter(emitted);
            for (Pane<K, A> p : panes.values()) {
                if (!p.main.isEmpty()) next = Math.min(next, Math.max(p.first, after));
                if (p.later != null) for (Map.Entry<Long, HashMap<K, A>> e : p.later.entrySet()) {
                    if (!e.getValue().isEmpty()) next = Math.min(next, Math.max(e.getKey(), after));
                }
                // panes are in time order, and a later pane's windows end later
                if (next != Long.MAX_VALUE && p.start >= next) break;
            }
            return next;
        }

        private void emit(long end) {
            long start = layout.startOf(end);
            java.util.List<HashMap<K, A>> parts = new java.util.ArrayList<>();
            for (Pane<K, A> p : panes.subMap(start, true, end, false).values()) {
                if (p.first <= end && !p.main.isEmpty()) parts.add(p.main);
                if (p.later != null) for (Map.Entry<Long, HashMap<K, A>> e : p.later.headMap(end, true).entrySet()) parts.add(e.getValue());
            }
            if (parts.isEmpty()) return;
            long[] at = {end - 1};
            Capability holder = caps.holder(at);
            if (holder == null) throw new IllegalStateException("operator '" + name + "' holds no capability at or before " + at[0]);
            Updates o = out.newContainer();
            long[] times = {end - 1, end};
            Consumer<R> sink = r -> {
                Collection.append(o, outType, r, times, 0, 1);
                Collection.append(o, outType, r, times, 1, -1);
            };
            if (parts.size() == 1) {
                // one pane (a tumble's window): its accumulators are the window's
                for (Map.Entry<K, A> e : parts.get(0).entrySet()) aggregator.results(e.getKey(), start, end, e.getValue(), sink);
            } else {
                HashMap<K, A> window = new HashMap<>();
                for (HashMap<K, A> part : parts) {
                    for (Map.Entry<K, A> e : part.entrySet()) {
                        A acc = window.get(e.getKey());
                        if (acc == null) window.put(e.getKey(), acc = aggregator.create());
                        aggregator.merge(acc, e.getValue());
                    }
                }
                for (Map.Entry<K, A> e : window.entrySet()) aggregator.results(e.getKey(), start, end, e.getValue(), sink);
            }
            if (o.size() > 0) out.send(holder, at, o);
        }
    }
}
