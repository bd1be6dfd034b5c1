package dev.tributary.propertytests.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.Panes;
import dev.tributary.propertytests.Guard;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
 * {@link Panes} against its model, recomputed from scratch: for every window (of every size,
 * slide and offset drawn, gaps between windows included) and key, the count and sum of the
 * updates in it whose time is at or before the window's last instant, delivered at that instant
 * and retracted at the window's end, when the count is positive. Updates come at random times,
 * before and after their windows close, with retractions, on one to three workers; the delivered
 * changes must be the model's at every time.
 */
class PanesTest {
    private static final DataType<Long> L = DataType.longs();

    /** A datum at time {@code time}: key {@code data % 3}, window time {@code data / 2}, value {@code data}. */
    record Upd(long data, long time, long diff) {}

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

    static String row(long key, long start, long end, long[] agg) {
        return key + "|" + start + "|" + end + "|" + agg[0] + "|" + agg[1];
    }

    /** Count and sum, the model's aggregate. */
    static final class CountSum implements Panes.Aggregator<Long, Long, long[], String> {
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
        Map<Long, Map<String, Long>> delivered = new TreeMap<>();
        for (EventTimeTest.Event e : events) {
            if (e instanceof EventTimeTest.Changes c) {
                assertThat(delivered).as("each time delivered once: " + context).doesNotContainKey(c.time());
                @SuppressWarnings("unchecked")
                Map<String, Long> changes = (Map<String, Long>) (Map<?, Long>) c.changes();
                delivered.put(c.time(), changes);
            }
        }
        assertThat(delivered).as(context).isEqualTo(expected);
    }

    static List<EventTimeTest.Event> run(List<Upd> updates, long slide, long size, long offset, int workers) {
        List<Upd> sorted = new ArrayList<>(updates);
        sorted.sort(Comparator.comparingLong(Upd::time));
        List<EventTimeTest.Event> events = Collections.synchronizedList(new ArrayList<>());
        ChangeStream.Sink<String, Long> sink = new ChangeStream.Sink<>() {
            @Override
            @SuppressWarnings("unchecked")
            public void changes(long time, Map<String, Long> changes) {
                events.add(new EventTimeTest.Changes(time, (Map<Long, Long>) (Map<?, Long>) new TreeMap<>(changes)));
            }

            @Override
            public void progressed(long frontier) {
                events.add(new EventTimeTest.Progressed(frontier));
            }
        };
        Guard.run(Config.workers(workers), w -> {
            @SuppressWarnings("unchecked")
            InputSession<Long>[] in = new InputSession[2];
            Probe probe = w.dataflow("panes", scope -> {
                in[0] = InputSession.create(scope, "t", L);
                in[1] = InputSession.create(scope, "errors", L);
                ChangeStream.subscribe(Panes.aggregate(in[0].collection(), "countSum", slide, size, offset, d -> d % 3, L, d -> d / 2, new CountSum(),
                        DataType.strings()), in[1].collection(), new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink);
                return in[0].collection().probe();
            });
            int next = 0;
            for (long t = 0; t <= 30; t++) {
                in[0].advanceTo(t);
                in[1].advanceTo(t);
                for (; next < sorted.size() && sorted.get(next).time() == t; next++) {
                    Upd u = sorted.get(next);
                    if (next % w.peers() == w.index()) in[0].update(u.data(), u.diff());
                }
                if (t % 4 == 0) {
                    long upTo = t;
                    w.stepWhile(() -> probe.lessThan(upTo));
                }
            }
            in[0].close();
            in[1].close();
            w.drain();
        }, Duration.ofSeconds(30));
        return events;
    }
}
