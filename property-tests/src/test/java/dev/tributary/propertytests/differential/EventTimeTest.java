package dev.tributary.propertytests.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.DataType;
import dev.tributary.differential.EventTime;
import dev.tributary.differential.InputSession;
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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link EventTime} against its model, recomputed from scratch: system times taken in order, the
 * watermark raised after each by its largest event time so far less a delay, an update late when
 * its event time is below the watermark before its own commit (or it has none), every other one
 * moved to its event time. Random updates (out of order in event time, with retractions and rows
 * without a time), random delays, one to three workers; the output delivered by a change stream
 * must be the model's, every delivered time final, progress never ahead of the watermark, and the
 * late rows and the watermark counted as the model counts them.
 */
class EventTimeTest {
    private static final DataType<Long> L = DataType.longs();

    /** A datum committed at system time {@code time}; its event time is {@code data / 4}, none when negative. */
    record Upd(long data, long time, long diff) {}

    static long eventTime(long data) {
        return data < 0 ? EventTime.NONE : data / 4;
    }

    @Provide
    Arbitrary<List<Upd>> updates() {
        return Combinators.combine(Arbitraries.longs().between(-3, 120), Arbitraries.longs().between(0, 20),
                Arbitraries.of(1L, 1L, 1L, -1L, 2L)).as(Upd::new).list().ofMaxSize(50);
    }

    /** The model's output (event time to data to diff), late rows and final watermark. */
    record Model(Map<Long, Map<Long, Long>> output, long late, long watermark) {}

    static Model model(List<Upd> given, long delay) {
        return model(given, delay, 0);
    }

    /**
     * {@link #model(List, long)} of a stream whose commits before {@code from} are one, at
     * {@code from}: the updates consolidated per system time as before, then moved there.
     */
    static Model model(List<Upd> given, long delay, long from) {
        // the stream sees each system time's net change per datum (the input is consolidated)
        Map<List<Long>, Long> net = new TreeMap<>(java.util.Comparator.<List<Long>, Long>comparing(k -> k.get(0)).thenComparing(k -> k.get(1)));
        for (Upd u : given) net.merge(List.of(u.time(), u.data()), u.diff(), Long::sum);
        List<Upd> updates = new ArrayList<>();
        // then folded, each counted as it came (a datum inserted and deleted before from is late twice, if at all)
        net.forEach((k, n) -> {
            if (n != 0) updates.add(new Upd(k.get(1), Math.max(k.get(0), from), n));
        });
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        long late = 0;
        long w = 0;
        long max = Long.MIN_VALUE;
        for (long t = 0; t <= 20; t++) {
            for (Upd u : updates) {
                if (u.time() != t) continue;
                long e = eventTime(u.data());
                if (e == EventTime.NONE || e < w) {
                    late += Math.abs(u.diff());
                    continue;
                }
                out.computeIfAbsent(e, k -> new TreeMap<>()).merge(u.data(), u.diff(), Long::sum);
            }
            for (Upd u : updates) {
                if (u.time() == t && u.diff() > 0 && eventTime(u.data()) != EventTime.NONE) max = Math.max(max, eventTime(u.data()));
            }
            if (max != Long.MIN_VALUE) w = Math.max(w, max - delay);
        }
        for (Map<Long, Long> m : out.values()) m.values().removeIf(n -> n == 0);
        out.values().removeIf(Map::isEmpty);
        return new Model(out, late, w);
    }

    sealed interface Event {}
    record Changes(long time, Map<Long, Long> changes) implements Event {}
    record Progressed(long frontier) implements Event {}

    @Property(seed = "2612")
    void updatesMoveToTheirEventTimesAndLateOnesAreDropped(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 0, max = 12) int delay,
            @ForAll @IntRange(min = 1, max = 3) int workers) {
        Model expected = model(updates, delay);
        EventTime.Stats stats = new EventTime.Stats();
        List<Event> events = run(updates, delay, workers, stats);
        String context = workers + " workers, delay " + delay + ", events " + events;

        assertThat(delivered(events, expected.watermark(), context)).as(context).isEqualTo(expected.output());
        assertThat(stats.lateRows()).as("late rows: " + context).isEqualTo(expected.late());
        assertThat(stats.watermark()).as("watermark: " + context).isEqualTo(expected.watermark());
    }

    /**
     * An input read from an arrangement compacted to {@code from}, where compaction moved some
     * updates before {@code from} onto later times up to it and left others (as each worker's
     * merges had got): updates before {@code from} are one commit, at {@code from}, whatever
     * times they arrive at. Here every update before {@code from} arrives at a time of its own,
     * the worst such a trace can do: taken in that order, the largest event time among them made
     * the others late (a view over a stream came back from a restart without rows).
     */
    @Property(seed = "2641")
    void updatesBeforeTheInputsSinceAreOneCommit(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 0, max = 12) int delay,
            @ForAll @IntRange(min = 0, max = 20) int from, @ForAll @IntRange(min = 1, max = 3) int workers) {
        Model expected = model(updates, delay, from);
        EventTime.Stats stats = new EventTime.Stats();
        List<Event> events = run(updates, workers, 20, 3, (data, errors, sink) -> {
            EventTime.Reclocked<Long, Long> r = EventTime.assign(data.consolidate(), errors, EventTimeTest::eventTime, m -> m - delay, from, stats);
            ChangeStream.subscribe(r.data(), r.errors(), new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink.<Long>of());
        });
        String context = workers + " workers, delay " + delay + ", since " + from + ", events " + events;

        assertThat(delivered(events, expected.watermark(), context)).as(context).isEqualTo(expected.output());
        assertThat(stats.lateRows()).as("late rows: " + context).isEqualTo(expected.late());
        assertThat(stats.watermark()).as("watermark: " + context).isEqualTo(expected.watermark());
    }

    /**
     * The model of {@link EventTime#toSystemTime}: each update that is not late leaves at the first
     * system time after whose commit the watermark is past its event time (system time to data to
     * diff); one the watermark never passes never leaves.
     */
    static Map<Long, Map<Long, Long>> settled(List<Upd> given, long delay) {
        Map<List<Long>, Long> net = new TreeMap<>(java.util.Comparator.<List<Long>, Long>comparing(k -> k.get(0)).thenComparing(k -> k.get(1)));
        for (Upd u : given) net.merge(List.of(u.time(), u.data()), u.diff(), Long::sum);
        Map<Long, Map<Long, Long>> byEventTime = new TreeMap<>();
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        long w = 0;
        long max = Long.MIN_VALUE;
        for (long t = 0; t <= 20; t++) {
            for (var e : net.entrySet()) {
                if (e.getKey().get(0) != t || e.getValue() == 0) continue;
                long data = e.getKey().get(1);
                long et = eventTime(data);
                if (et == EventTime.NONE || et < w) continue;
                byEventTime.computeIfAbsent(et, k -> new TreeMap<>()).merge(data, e.getValue(), Long::sum);
                if (e.getValue() > 0) max = Math.max(max, et);
            }
            if (max != Long.MIN_VALUE) w = Math.max(w, max - delay);
            while (!byEventTime.isEmpty() && ((TreeMap<Long, Map<Long, Long>>) byEventTime).firstKey() < w) {
                var first = ((TreeMap<Long, Map<Long, Long>>) byEventTime).pollFirstEntry();
                Map<Long, Long> at = out.computeIfAbsent(t, k -> new TreeMap<>());
                first.getValue().forEach((d, n) -> at.merge(d, n, Long::sum));
            }
        }
        for (Map<Long, Long> m : out.values()) m.values().removeIf(n -> n == 0);
        out.values().removeIf(Map::isEmpty);
        return out;
    }

    /**
     * {@link EventTime#toSystemTime} against {@link #settled}: the stream's output moved back to
     * system time by its clock leaves each update once, at the system time its event time became
     * final, on one to three workers.
     */
    @Property(seed = "2613")
    void backInSystemTimeEachUpdateLeavesWhenTheWatermarkPassesIt(@ForAll("updates") List<Upd> updates,
            @ForAll @IntRange(min = 0, max = 12) int delay, @ForAll @IntRange(min = 1, max = 3) int workers) {
        Map<Long, Map<Long, Long>> expected = settled(updates, delay);
        List<Event> events = run(updates, delay, workers, new EventTime.Stats(), true);
        String context = workers + " workers, delay " + delay + ", events " + events;
        assertThat(delivered(events, Long.MAX_VALUE, context)).as(context).isEqualTo(expected);
    }

    /**
     * The changes delivered, by time, checked as they come: each time once, none at or after a
     * time progress has passed, and progress (until the end) never past {@code bound}.
     */
    static Map<Long, Map<Long, Long>> delivered(List<Event> events, long bound, String context) {
        Map<Long, Map<Long, Long>> delivered = new TreeMap<>();
        long progressed = -1;
        for (Event e : events) {
            switch (e) {
                case Changes c -> {
                    assertThat(c.time()).as("a change after progress past its time: " + context).isGreaterThanOrEqualTo(progressed);
                    assertThat(delivered).as("each time delivered once: " + context).doesNotContainKey(c.time());
                    delivered.put(c.time(), c.changes());
                }
                case Progressed p -> {
                    if (p.frontier() != Long.MAX_VALUE) {
                        assertThat(p.frontier()).as("progress never passes the watermark: " + context).isLessThanOrEqualTo(bound);
                    }
                    progressed = p.frontier();
                }
            }
        }
        return delivered;
    }

    static List<Event> run(List<Upd> updates, long delay, int workers, EventTime.Stats stats) {
        return run(updates, delay, workers, stats, false);
    }

    static List<Event> run(List<Upd> updates, long delay, int workers, EventTime.Stats stats, boolean backToSystemTime) {
        return run(updates, workers, 20, 3, (data, errors, sink) -> {
            // consolidated first: batches of an arrangement, as a table's import sends them, whose
            // records lie at later times than their messages
            EventTime.Reclocked<Long, Long> r = EventTime.assign(data.consolidate(), errors, EventTimeTest::eventTime, m -> m - delay, 0, stats);
            if (backToSystemTime) {
                List<dev.tributary.timely.Stream<dev.tributary.timely.LongContainer>> clocks = List.of(r.clock());
                ChangeStream.subscribe(EventTime.toSystemTime(r.data(), clocks), EventTime.toSystemTime(r.errors(), clocks),
                        new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink.<Long>of());
            } else {
                ChangeStream.subscribe(r.data(), r.errors(), new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink.<Long>of());
            }
        });
    }

    /** Where a dataflow under test delivers its changes: a change stream's sink of any data type, recording events. */
    interface Events {
        <D> ChangeStream.Sink<D, Long> of();
    }

    /** The dataflow under test over the data and error inputs, subscribed to {@code sink}. */
    interface Dataflow {
        void build(dev.tributary.differential.Collection<Long> data, dev.tributary.differential.Collection<Long> errors, Events sink);
    }

    /**
     * The events a change stream delivers of {@code dataflow}, fed {@code updates} at their times
     * 0 to {@code last} (dealt out among the workers), stepping until the probe passes every
     * {@code every}th time.
     */
    @SuppressWarnings("unchecked")
    static List<Event> run(List<Upd> updates, int workers, long last, int every, Dataflow dataflow) {
        List<Upd> sorted = new ArrayList<>(updates);
        sorted.sort(Comparator.comparingLong(Upd::time));
        List<Event> events = Collections.synchronizedList(new ArrayList<>());
        Events sink = new Events() {
            @Override
            public <D> ChangeStream.Sink<D, Long> of() {
                return new ChangeStream.Sink<>() {
                    @Override
                    public void changes(long time, ChangeStream.Changes<D> changes) {
                        events.add(new Changes(time, (Map<Long, Long>) (Map<?, Long>) new TreeMap<>(changes.toMap())));
                    }

                    @Override
                    public void progressed(long frontier) {
                        events.add(new Progressed(frontier));
                    }
                };
            }
        };
        Guard.run(Config.workers(workers), w -> {
            @SuppressWarnings("unchecked")
            InputSession<Long>[] in = new InputSession[2];
            Probe probe = w.dataflow("stream", scope -> {
                in[0] = InputSession.create(scope, "t", L);
                in[1] = InputSession.create(scope, "errors", L);
                dataflow.build(in[0].collection(), in[1].collection(), sink);
                return in[0].collection().probe();
            });
            int next = 0;
            for (long t = 0; t <= last; t++) {
                in[0].advanceTo(t);
                in[1].advanceTo(t);
                for (; next < sorted.size() && sorted.get(next).time() == t; next++) {
                    Upd u = sorted.get(next);
                    if (next % w.peers() == w.index()) in[0].update(u.data(), u.diff());
                }
                if (t % every == 0) {
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
