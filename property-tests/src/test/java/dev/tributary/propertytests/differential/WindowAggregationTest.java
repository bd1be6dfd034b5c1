package dev.tributary.propertytests.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.DataType;
import dev.tributary.differential.Panes;
import dev.tributary.differential.SessionWindows;
import dev.tributary.differential.WindowAggregator;
import dev.tributary.propertytests.differential.EventTimeTest.Upd;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link Panes} and {@link SessionWindows} against their models, recomputed from scratch. Panes: for every window (of every size,
 * slide and offset drawn, gaps between windows included) and key, the count and sum of the
 * updates in it whose time is at or before the window's last instant, delivered at that instant
 * and retracted at the window's end, when the count is positive. Updates come at random times,
 * before and after their windows close, with retractions, on one to three workers; the delivered
 * changes must be the model's at every time. Sessions: per key, the updates' window times in
 * order, cut where two lie {@code gap} or more apart, each session's count and sum delivered at
 * its last instant {@code last + gap - 1} and retracted at {@code last + gap}, for insertions at
 * their window times (as a stream in event time gives them), in any order within a time.
 */
class WindowAggregationTest {
    private static final DataType<Long> L = DataType.longs();

    // an update's datum: key data % 3, window time data / 2, value data

    @Provide
    Arbitrary<List<Upd>> updates() {
        return Combinators.combine(Arbitraries.longs().between(0, 60), Arbitraries.longs().between(0, 30),
                Arbitraries.of(1L, 1L, 1L, -1L, 2L)).as(Upd::new).list().ofMaxSize(60);
    }

    /** Time to row to change, as the model has it. */
    static Map<Long, Map<String, Long>> model(List<Upd> updates, long slide, long size, long offset) {
        Map<String, long[]> windows = new TreeMap<>(); // "key|end" to count, sum
        for (Upd u : updates) {
            long w = u.data() / 2;
            for (long start = w - Math.floorMod(w - offset, slide); start > w - size; start -= slide) {
                long end = start + size;
                if (u.time() > end - 1) continue;
                long[] agg = windows.computeIfAbsent(u.data() % 3 + "|" + end, k -> new long[2]);
                agg[0] += u.diff();
                agg[1] += u.diff() * u.data();
            }
        }
        Map<Long, Map<String, Long>> out = new TreeMap<>();
        windows.forEach((k, agg) -> {
            if (agg[0] <= 0) return;
            long key = Long.parseLong(k.split("\\|")[0]);
            long end = Long.parseLong(k.split("\\|")[1]);
            String row = row(key, end - size, end, agg);
            out.computeIfAbsent(end - 1, t -> new TreeMap<>()).merge(row, 1L, Long::sum);
            out.computeIfAbsent(end, t -> new TreeMap<>()).merge(row, -1L, Long::sum);
        });
        for (Map<String, Long> m : out.values()) m.values().removeIf(n -> n == 0);
        out.values().removeIf(Map::isEmpty);
        return out;
    }

    /** {@link #model} for CUMULATE's windows: every {@code size} a window starts, and its prefixes end every {@code step}. */
    static Map<Long, Map<String, Long>> cumulating(List<Upd> updates, long step, long size, long offset) {
        Map<String, long[]> windows = new TreeMap<>(); // "key|start|end" to count, sum
        for (Upd u : updates) {
            long w = u.data() / 2;
            long start = w - Math.floorMod(w - offset, size);
            for (long end = start + step; end <= start + size; end += step) {
                if (end <= w || u.time() > end - 1) continue;
                long[] agg = windows.computeIfAbsent(u.data() % 3 + "|" + start + "|" + end, k -> new long[2]);
                agg[0] += u.diff();
                agg[1] += u.diff() * u.data();
            }
        }
        Map<Long, Map<String, Long>> out = new TreeMap<>();
        windows.forEach((k, agg) -> {
            if (agg[0] <= 0) return;
            String[] parts = k.split("\\|");
            long end = Long.parseLong(parts[2]);
            String row = row(Long.parseLong(parts[0]), Long.parseLong(parts[1]), end, agg);
            out.computeIfAbsent(end - 1, t -> new TreeMap<>()).merge(row, 1L, Long::sum);
            out.computeIfAbsent(end, t -> new TreeMap<>()).merge(row, -1L, Long::sum);
        });
        for (Map<String, Long> m : out.values()) m.values().removeIf(n -> n == 0);
        out.values().removeIf(Map::isEmpty);
        return out;
    }

    @Property(seed = "2619")
    void eachCumulatingWindowOnceAtItsClose(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 1, max = 4) int step,
            @ForAll @IntRange(min = 1, max = 4) int steps, @ForAll @IntRange(min = 0, max = 3) int offset, @ForAll @IntRange(min = 1, max = 3) int workers) {
        long size = (long) step * steps;
        Map<Long, Map<String, Long>> expected = cumulating(updates, step, size, offset);
        List<EventTimeTest.Event> events = run(updates, workers,
                in -> Panes.aggregate(in, "countSum", step, size, offset, true, d -> d % 3, L, d -> d / 2, new CountSum(), DataType.strings()));
        String context = workers + " workers, step " + step + ", size " + size + ", offset " + offset + ", events " + events;
        assertThat(delivered(events, context)).as(context).isEqualTo(expected);
    }

    static String row(long key, long start, long end, long[] agg) {
        return key + "|" + start + "|" + end + "|" + agg[0] + "|" + agg[1];
    }

    /** Count and sum, the model's aggregate. */
    static final class CountSum implements WindowAggregator<Long, Long, long[], String> {
        @Override
        public long[] create() {
            return new long[2];
        }

        @Override
        public void add(long[] acc, Long data, long diff) {
            acc[0] += diff;
            acc[1] += diff * data;
        }

        @Override
        public void merge(long[] window, long[] pane) {
            window[0] += pane[0];
            window[1] += pane[1];
        }

        @Override
        public void results(Long key, long start, long end, long[] acc, Consumer<String> out) {
            if (acc[0] > 0) out.accept(row(key, start, end, acc));
        }
    }

    @Property(seed = "2614")
    void eachWindowOnceAtItsCloseFromItsPanes(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 1, max = 6) int slide,
            @ForAll @IntRange(min = 1, max = 12) int size, @ForAll @IntRange(min = 0, max = 3) int offset, @ForAll @IntRange(min = 1, max = 3) int workers) {
        Map<Long, Map<String, Long>> expected = model(updates, slide, size, offset);
        List<EventTimeTest.Event> events = run(updates, slide, size, offset, workers);
        String context = workers + " workers, slide " + slide + ", size " + size + ", offset " + offset + ", events " + events;
        assertThat(delivered(events, context)).as(context).isEqualTo(expected);
    }

    /** The changes delivered, by time, each time once. */
    static Map<Long, Map<String, Long>> delivered(List<EventTimeTest.Event> events, String context) {
        Map<Long, Map<String, Long>> delivered = new TreeMap<>();
        for (EventTimeTest.Event e : events) {
            if (e instanceof EventTimeTest.Changes c) {
                assertThat(delivered).as("each time delivered once: " + context).doesNotContainKey(c.time());
                @SuppressWarnings("unchecked")
                Map<String, Long> changes = (Map<String, Long>) (Map<?, Long>) c.changes();
                delivered.put(c.time(), changes);
            }
        }
        return delivered;
    }

    @Provide
    Arbitrary<List<Upd>> insertions() {
        // each at its window time: a stream in event time
        return Arbitraries.longs().between(0, 60).map(d -> new Upd(d, d / 2, 1)).list().ofMaxSize(60);
    }

    /** The sessions' count and sum, time to row to change. */
    static Map<Long, Map<String, Long>> sessions(List<Upd> updates, long gap) {
        Map<Long, Map<String, Long>> out = new TreeMap<>();
        for (long key = 0; key < 3; key++) {
            long k = key;
            List<Upd> mine = new ArrayList<>(updates.stream().filter(u -> u.data() % 3 == k).toList());
            mine.sort(Comparator.comparingLong(u -> u.data() / 2));
            for (int i = 0; i < mine.size(); ) {
                int j = i;
                long[] agg = {mine.get(i).diff(), mine.get(i).diff() * mine.get(i).data()};
                while (j + 1 < mine.size() && mine.get(j + 1).data() / 2 - mine.get(j).data() / 2 < gap) {
                    j++;
                    agg[0] += mine.get(j).diff();
                    agg[1] += mine.get(j).diff() * mine.get(j).data();
                }
                long end = mine.get(j).data() / 2 + gap;
                String row = row(key, mine.get(i).data() / 2, end, agg);
                out.computeIfAbsent(end - 1, t -> new TreeMap<>()).merge(row, 1L, Long::sum);
                out.computeIfAbsent(end, t -> new TreeMap<>()).merge(row, -1L, Long::sum);
                i = j + 1;
            }
        }
        for (Map<String, Long> m : out.values()) m.values().removeIf(n -> n == 0);
        out.values().removeIf(Map::isEmpty);
        return out;
    }

    @Property(seed = "2615")
    void eachSessionOnceAtItsClose(@ForAll("insertions") List<Upd> updates, @ForAll @IntRange(min = 1, max = 8) int gap,
            @ForAll @IntRange(min = 1, max = 3) int workers) {
        Map<Long, Map<String, Long>> expected = sessions(updates, gap);
        List<EventTimeTest.Event> events = run(updates, workers,
                in -> SessionWindows.aggregate(in, "countSum", gap, d -> d % 3, L, d -> d / 2, new CountSum(), DataType.strings()));
        String context = workers + " workers, gap " + gap + ", events " + events;
        assertThat(delivered(events, context)).as(context).isEqualTo(expected);
    }

    /** The operator under test over the input collection. */
    interface Operator {
        dev.tributary.differential.Collection<String> apply(dev.tributary.differential.Collection<Long> in);
    }

    static List<EventTimeTest.Event> run(List<Upd> updates, long slide, long size, long offset, int workers) {
        return run(updates, workers, in -> Panes.aggregate(in, "countSum", slide, size, offset, d -> d % 3, L, d -> d / 2, new CountSum(), DataType.strings()));
    }

    static List<EventTimeTest.Event> run(List<Upd> updates, int workers, Operator operator) {
        return EventTimeTest.run(updates, workers, 30, 4, (data, errors, sink) ->
                ChangeStream.subscribe(operator.apply(data), errors, new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink.<String>of()));
    }
}
