package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Session window aggregation of insertions, each session's result once, when it closes.
 *
 * <p>Model: per key, records whose window times lie less than {@code gap} apart, one after
 * another, form a session {@code [first, last + gap)}. Records arrive at times no earlier than
 * their window times' frontier: a session is final once the input frontier passes its last
 * instant {@code last + gap - 1}, since any later record lies at least {@code gap} after it. Each
 * open session keeps one accumulator: a record extends the session within {@code gap} of its
 * time, merges the two it falls between, or starts one. A closed session's result is emitted at
 * {@code last + gap - 1} and retracted at {@code last + gap} (what operators above keep of it then
 * adds up to nothing behind the frontier, as with an expiring delay), and its accumulator goes.
 * Each record costs a few ordered-map steps, however many records its session has: recomputing
 * a session from its rows at each of their times would cost the square of its size.
 *
 * <p>For insertions whose time is their window time (an append-only stream in event time): a
 * record at a time later than its window time joins the sessions still open, and one whose own
 * session would have closed before its time is left out; a retraction is taken from the
 * accumulator of the session holding its window time and does not split it.
 */
public final class SessionWindows {
    private SessionWindows() {}

    /** Window times of records in no session (a NULL time). */
    public static final long NONE = Long.MIN_VALUE;

    /** The sessions' results of {@code data} by {@code keyOf}, as the class describes; {@code time} gives a record's window time. */
    public static <D, K, A, R> Collection<R> aggregate(Collection<D> data, String name, long gap, Function<? super D, ? extends K> keyOf,
            DataType<K> keyType, ToLongFunction<? super D> time, WindowAggregator<K, D, A, R> aggregator, DataType<R> outType) {
        if (gap <= 0) throw new IllegalArgumentException("a session's gap must be positive, not " + gap);
        Open<D, K, A, R> open = new Open<>(gap, data.type(), keyType, time, aggregator, outType);
        return KeyedWindows.build(data, "sessions", name, keyOf, open, SESSION_BYTES, "a session window aggregation's open sessions");
    }

    /** A rough size of an open session, for the dataflow's memory accounting. */
    private static final long SESSION_BYTES = 200;

    private static final class Session<K, A> {
        final K key;
        final long seq;
        long start;
        long last;
        A acc;

        Session(K key, long seq, long start, A acc) {
            this.key = key;
            this.seq = seq;
            this.start = start;
            this.last = start;
            this.acc = acc;
        }
    }

    /** The open sessions on one worker, by key and start, and by end. */
    private static final class Open<D, K, A, R> extends KeyedWindows<D, K, A, R> {
        final long gap;
        final HashMap<K, TreeMap<Long, Session<K, A>>> byKey = new HashMap<>();
        final TreeSet<Session<K, A>> byEnd = new TreeSet<>((x, y) -> x.last != y.last ? Long.compare(x.last, y.last) : Long.compare(x.seq, y.seq));
        long seq;
        /** Scratch: the sessions a record touches. */
        final List<Session<K, A>> touched = new ArrayList<>();

        Open(long gap, DataType<D> dataType, DataType<K> keyType, ToLongFunction<? super D> time, WindowAggregator<K, D, A, R> aggregator, DataType<R> outType) {
            super(dataType, keyType, time, aggregator, outType);
            this.gap = gap;
        }

        @Override
        long held() {
            return byEnd.size();
        }

        /** {@code x + gap}, at most MAX_VALUE. */
        long plusGap(long x) {
            return x > Long.MAX_VALUE - gap ? Long.MAX_VALUE : x + gap;
        }

        @Override
        void add(Updates batch, int i, D d, long w, long time, long diff) {
            // a record whose own session would have closed before it came
            if (time > plusGap(w) - 1) return;
            K key = keyType.get(batch.keys(), i);
            TreeMap<Long, Session<K, A>> sessions = byKey.get(key);
            if (sessions == null) byKey.put(key, sessions = new TreeMap<>());
            // the sessions within gap of w: from the last starting before w + gap, back while they reach w
            touched.clear();
            Map.Entry<Long, Session<K, A>> e = sessions.floorEntry(plusGap(w) - 1);
            while (e != null && plusGap(e.getValue().last) > w) {
                touched.add(e.getValue());
                e = sessions.lowerEntry(e.getKey());
            }
            Session<K, A> s;
            if (touched.isEmpty()) {
                if (diff < 0) return; // a retraction of nothing open
                s = new Session<>(key, seq++, w, aggregator.create());
                sessions.put(w, s);
                byEnd.add(s);
            } else {
                // the earliest absorbs the others
                s = touched.get(touched.size() - 1);
                byEnd.remove(s);
                for (int k = 0; k < touched.size() - 1; k++) {
                    Session<K, A> other = touched.get(k);
                    sessions.remove(other.start);
                    byEnd.remove(other);
                    aggregator.merge(s.acc, other.acc);
                    s.last = Math.max(s.last, other.last);
                }
                if (w < s.start) {
                    sessions.remove(s.start);
                    s.start = w;
                    sessions.put(w, s);
                }
                s.last = Math.max(s.last, w);
                byEnd.add(s);
            }
            aggregator.add(s.acc, d, diff);
        }

        /** Emits every session whose last instant {@code frontier} has passed, and holds the earliest close still to come. */
        @Override
        void close(Antichain frontier) {
            long bound = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            Updates o = null;
            long first = Long.MAX_VALUE;
            long[] times = new long[2];
            while (!byEnd.isEmpty() && plusGap(byEnd.first().last) - 1 < bound) {
                Session<K, A> s = byEnd.pollFirst();
                TreeMap<Long, Session<K, A>> sessions = byKey.get(s.key);
                sessions.remove(s.start);
                if (sessions.isEmpty()) byKey.remove(s.key);
                long end = plusGap(s.last);
                times[0] = end - 1;
                times[1] = end;
                if (o == null) o = out.newContainer();
                Updates into = o;
                first = Math.min(first, end - 1);
                Consumer<R> sink = r -> {
                    Collection.append(into, outType, r, times, 0, 1);
                    Collection.append(into, outType, r, times, 1, -1);
                };
                aggregator.results(s.key, s.start, end, s.acc, sink);
            }
            if (o != null && o.size() > 0) {
                long[] at = {first};
                Capability holder = caps.holder(at);
                if (holder == null) throw new IllegalStateException("operator '" + name + "' holds no capability at or before " + first);
                out.send(holder, at, o);
            }
            caps.downgradeTo(byEnd.isEmpty() ? Antichain.empty(1) : Antichain.of(plusGap(byEnd.first().last) - 1), name);
        }
    }
}
