package dev.tributary.propertytests.changeslog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.changeslog.UpsertEnvelope;
import dev.tributary.changeslog.UpsertEnvelope.KeyChange;
import dev.tributary.changeslog.UpsertEnvelope.KeyState;
import dev.tributary.differential.DataType;
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
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The change stream against the input it streams: deliveries in increasing time order, the
 * snapshot at the as-of time first, every time whose changes do not cancel delivered once and
 * consolidated, the deliveries summing to the input's contents at each delivered time, progress
 * after the changes it covers, an end exactly once (at UP TO or when the input completes), and the
 * upsert envelope's key states following the contents of each key. Random updates (out of order
 * within a time, with retractions), random options, one to three workers.
 */
class ChangeStreamTest {
    private static final DataType<Long> L = DataType.longs();

    record Upd(long data, long time, long diff) {}

    /** What the sink saw, in order. */
    sealed interface Event {}
    record Changes(long time, Map<Long, Long> changes) implements Event {}
    record Progressed(long frontier) implements Event {}
    record Done() implements Event {}

    @Provide
    Arbitrary<List<Upd>> updates() {
        return Combinators.combine(Arbitraries.longs().between(0, 5), Arbitraries.longs().between(0, 20),
                Arbitraries.of(1L, 1L, -1L, 2L)).as(Upd::new).list().ofMaxSize(40);
    }

    @Property(seed = "811")
    void deliveriesAreTheInputsChangesOnceInOrder(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 0, max = 10) int asOf,
            @ForAll boolean snapshot, @ForAll boolean progress, @ForAll @IntRange(min = 0, max = 30) int upToOffset,
            @ForAll @IntRange(min = 1, max = 3) int workers) {
        long upTo = upToOffset == 0 ? Long.MAX_VALUE : asOf + upToOffset;
        ChangeStream.Options options = new ChangeStream.Options(asOf, snapshot, progress, upTo);
        check(updates, options, workers, run(updates, options, workers, null));
    }

    /**
     * The same promises when each worker sends its updates in many small containers, in a random
     * order of times (later times reaching worker 0 before earlier ones), all before the times
     * pass, and the updates cancel often: a datum's updates at a time come from several
     * containers of several workers and sum to zero across them (then the time is not delivered,
     * or its snapshot is delivered empty), and equal data from two workers are one change.
     */
    @Property(seed = "813")
    void containersInAnyOrderAndCancellingAcrossWorkers(@ForAll("cancelling") List<Upd> updates, @ForAll @IntRange(min = 0, max = 10) int asOf,
            @ForAll boolean snapshot, @ForAll boolean progress, @ForAll @IntRange(min = 0, max = 30) int upToOffset,
            @ForAll @IntRange(min = 1, max = 3) int workers, @ForAll @IntRange(min = 1, max = 4) int perContainer, @ForAll long shuffle) {
        long upTo = upToOffset == 0 ? Long.MAX_VALUE : asOf + upToOffset;
        ChangeStream.Options options = new ChangeStream.Options(asOf, snapshot, progress, upTo);
        check(updates, options, workers, run(updates, options, workers, null, new Shuffled(perContainer, shuffle)));
    }

    /** A snapshot whose updates (all at or before {@code asOf}) cancel is still delivered, empty, and first. */
    @Property(seed = "814")
    void aSnapshotThatCancelsIsDeliveredEmpty(@ForAll("updates") List<Upd> later, @ForAll("updates") List<Upd> early,
            @ForAll @IntRange(min = 1, max = 10) int asOf, @ForAll @IntRange(min = 1, max = 3) int workers, @ForAll long shuffle) {
        List<Upd> updates = new ArrayList<>();
        for (Upd u : early) {
            // each update and its retraction, at times at or before asOf, dealt to different workers
            updates.add(new Upd(u.data(), u.time() % (asOf + 1), u.diff()));
            updates.add(new Upd(u.data(), (u.time() + 3) % (asOf + 1), -u.diff()));
        }
        for (Upd u : later) updates.add(new Upd(u.data(), Math.max(u.time(), asOf + 1), u.diff()));
        ChangeStream.Options options = new ChangeStream.Options(asOf, true, true, Long.MAX_VALUE);
        List<Event> events = run(updates, options, workers, null, new Shuffled(2, shuffle));
        assertThat(events.get(0)).as("the empty snapshot first: " + events).isEqualTo(new Changes(asOf, Map.of()));
        check(updates, options, workers, events);
    }

    /** Updates of the other generator, about half of them followed by their retraction at the same time (or their double's). */
    @Provide
    Arbitrary<List<Upd>> cancelling() {
        return Combinators.combine(updates(), Arbitraries.integers().between(0, 3).list().ofMaxSize(40)).as((us, how) -> {
            List<Upd> out = new ArrayList<>();
            for (int i = 0; i < us.size(); i++) {
                Upd u = us.get(i);
                out.add(u);
                int h = i < how.size() ? how.get(i) : 0;
                if (h == 1) out.add(new Upd(u.data(), u.time(), -u.diff()));
                if (h == 2) {
                    out.add(u);
                    out.add(new Upd(u.data(), u.time(), -2 * u.diff()));
                }
            }
            return out;
        });
    }

    /** Checks the events of a stream of {@code updates} with {@code options} against the updates themselves. */
    static void check(List<Upd> updates, ChangeStream.Options options, int workers, List<Event> events) {
        long asOf = options.asOf();
        long upTo = options.upTo();
        boolean snapshot = options.snapshot();
        boolean progress = options.progress();
        String context = options + ", " + workers + " workers, updates " + updates + ", events " + events;

        assertThat(events).as(context).isNotEmpty();
        assertThat(events.get(events.size() - 1)).as("the stream ends, once: " + context).isEqualTo(new Done());
        assertThat(events.stream().filter(e -> e instanceof Done).count()).as(context).isEqualTo(1);
        List<Changes> changes = events.stream().filter(e -> e instanceof Changes).map(e -> (Changes) e).toList();
        if (snapshot && asOf < upTo) {
            assertThat(events.get(0)).as("the snapshot first: " + context).isInstanceOf(Changes.class);
            assertThat(((Changes) events.get(0)).time()).as(context).isEqualTo(asOf);
        }
        // every time whose changes do not cancel, in (asOf, upTo) (and asOf itself for the snapshot), delivered once in order
        List<Long> expectedTimes = new ArrayList<>();
        if (snapshot && asOf < upTo) expectedTimes.add(asOf);
        for (long t = asOf + 1; t <= 20 && t < upTo; t++) if (!accumulate(updates, t).equals(accumulate(updates, t - 1))) expectedTimes.add(t);
        assertThat(changes.stream().map(Changes::time).toList()).as("delivered times: " + context).isEqualTo(expectedTimes);
        Map<Long, Long> sum = new TreeMap<>();
        for (Changes c : changes) {
            if (c.time() != asOf) assertThat(c.changes()).as("a delivery at a later time is not empty: " + context).isNotEmpty();
            c.changes().forEach((d, n) -> sum.merge(d, n, Long::sum));
            sum.values().removeIf(n -> n == 0);
            Map<Long, Long> expected = accumulate(updates, c.time());
            if (!snapshot) expected = difference(expected, accumulate(updates, asOf));
            assertThat(sum).as("deliveries summed up to %d: %s", c.time(), context).isEqualTo(expected);
        }
        // progress: increasing, past asOf, at most upTo, after the changes it covers and before those it does not
        long last = asOf;
        for (int i = 0; i < events.size(); i++) {
            if (!(events.get(i) instanceof Progressed p)) continue;
            assertThat(progress).as(context).isTrue();
            assertThat(p.frontier()).as(context).isGreaterThan(last).isLessThanOrEqualTo(upTo);
            last = p.frontier();
            for (int j = 0; j < events.size(); j++) {
                if (!(events.get(j) instanceof Changes c)) continue;
                if (c.time() < p.frontier()) assertThat(j).as("changes at %d before progress %d: %s", c.time(), p.frontier(), context).isLessThan(i);
                else assertThat(j).as("changes at %d after progress %d: %s", c.time(), p.frontier(), context).isGreaterThan(i);
            }
        }
        if (progress && upTo != Long.MAX_VALUE) assertThat(last).as("progress reaches UP TO: " + context).isEqualTo(upTo);
    }

    @Property(seed = "812")
    void upsertStatesFollowEachKeysContents(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 1, max = 3) int workers) {
        // the key of a datum is data / 2: two data share each key, so violations happen
        List<Object[]> keyEvents = new ArrayList<>();
        run(updates, ChangeStream.Options.from(0), workers, keyEvents);
        Map<Long, KeyChange<Long, Long>> lastByKey = new TreeMap<>();
        long lastTime = -1;
        for (Object[] e : keyEvents) {
            long time = (Long) e[0];
            @SuppressWarnings("unchecked") KeyChange<Long, Long> c = (KeyChange<Long, Long>) e[1];
            if (time != lastTime) {
                // at each time, every key's reported state matches its contents there
                lastTime = time;
            }
            lastByKey.put(c.key(), c);
            Map<Long, Long> acc = accumulate(updates, time);
            Map<Long, Long> ofKey = new TreeMap<>();
            acc.forEach((d, n) -> {
                if (d / 2 == c.key()) ofKey.put(d, n);
            });
            KeyState expected = ofKey.isEmpty() ? KeyState.DELETE
                    : ofKey.size() == 1 && ofKey.values().iterator().next() == 1 ? KeyState.UPSERT : KeyState.KEY_VIOLATION;
            assertThat(c.state()).as("key %d at %d holding %s", c.key(), time, ofKey).isEqualTo(expected);
            if (expected == KeyState.UPSERT) assertThat(c.row()).isEqualTo(ofKey.keySet().iterator().next());
        }
        // and every key's final report is its final state (keys never reported hold nothing, or never held anything)
        Map<Long, Long> end = accumulate(updates, 20);
        for (long key = 0; key <= 2; key++) {
            long k = key;
            boolean holds = end.keySet().stream().anyMatch(d -> d / 2 == k);
            KeyChange<Long, Long> c = lastByKey.get(key);
            if (holds) assertThat(c).as("key %d holds rows at the end", key).isNotNull();
            if (c != null && !holds) assertThat(c.state()).isEqualTo(KeyState.DELETE);
        }
    }

    static Map<Long, Long> accumulate(List<Upd> updates, long at) {
        Map<Long, Long> acc = new TreeMap<>();
        for (Upd u : updates) if (u.time() <= at) acc.merge(u.data(), u.diff(), Long::sum);
        acc.values().removeIf(n -> n == 0);
        return acc;
    }

    static Map<Long, Long> difference(Map<Long, Long> a, Map<Long, Long> b) {
        Map<Long, Long> d = new TreeMap<>(a);
        b.forEach((k, n) -> d.merge(k, -n, Long::sum));
        d.values().removeIf(n -> n == 0);
        return d;
    }

    /**
     * How the workers send their updates: each its share all at once before any time passes, in
     * an order shuffled by {@code seed}, flushed every {@code perContainer} updates (and the worker
     * stepped, so that worker 0 gathers the containers of different workers interleaved).
     */
    record Shuffled(int perContainer, long seed) {}

    static List<Event> run(List<Upd> updates, ChangeStream.Options options, int workers, List<Object[]> keyEvents) {
        return run(updates, options, workers, keyEvents, null);
    }

    /**
     * Streams {@code updates}, time by time or, with {@code shuffled}, as it says; returns worker 0's
     * events (or, with {@code keyEvents}, fills it with the upsert envelope's (time, change)).
     */
    static List<Event> run(List<Upd> updates, ChangeStream.Options options, int workers, List<Object[]> keyEvents, Shuffled shuffled) {
        List<Upd> sorted = new ArrayList<>(updates);
        sorted.sort(Comparator.comparingLong(Upd::time));
        List<Event> events = Collections.synchronizedList(new ArrayList<>());
        ChangeStream.Sink<Long, Long> sink = new ChangeStream.Sink<>() {
            @Override
            public void changes(long time, ChangeStream.Changes<Long> changes) {
                // consolidated: distinct data, no zero diff, each datum where the column view says it is
                Map<Long, Long> seen = new TreeMap<>();
                for (int i = 0; i < changes.size(); i++) {
                    assertThat(L.get(changes.column(), changes.index(i))).isEqualTo(changes.data(i));
                    assertThat(changes.diff(i)).as("a zero change at %d: %s", time, changes.toMap()).isNotZero();
                    assertThat(seen.put(changes.data(i), changes.diff(i))).as("two changes of one datum at %d", time).isNull();
                }
                events.add(new Changes(time, seen));
            }

            @Override
            public void progressed(long frontier) {
                events.add(new Progressed(frontier));
            }

            @Override
            public void done() {
                events.add(new Done());
            }
        };
        ChangeStream.Sink<Long, Long> used = keyEvents == null ? sink : new UpsertEnvelope<Long, Long, Long>(d -> d / 2, new ChangeStream.Sink<>() {
            @Override
            public void changes(long time, ChangeStream.Changes<KeyChange<Long, Long>> changes) {
                for (int i = 0; i < changes.size(); i++) keyEvents.add(new Object[] {time, changes.data(i)});
            }
        });
        Guard.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("subscribe", scope -> {
                in[0] = InputSession.create(scope, "t", L);
                ChangeStream.subscribe(in[0].collection(), null, options, used);
                return in[0].collection().probe();
            });
            if (shuffled != null) {
                List<Upd> mine = new ArrayList<>();
                for (int i = 0; i < updates.size(); i++) if (i % w.peers() == w.index()) mine.add(updates.get(i));
                Collections.shuffle(mine, new Random(shuffled.seed() + w.index()));
                for (int i = 0; i < mine.size(); i++) {
                    Upd u = mine.get(i);
                    in[0].updateAt(u.data(), new long[] {u.time()}, u.diff());
                    if ((i + 1) % shuffled.perContainer() == 0) {
                        in[0].flush();
                        w.step();
                    }
                }
            }
            int next = shuffled == null ? 0 : sorted.size();
            for (long t = 0; t <= 20; t++) {
                in[0].advanceTo(t);
                for (; next < sorted.size() && sorted.get(next).time() == t; next++) {
                    Upd u = sorted.get(next);
                    if (next % w.peers() == w.index()) in[0].update(u.data(), u.diff());
                }
                if (t % 3 == 0) {
                    long upTo = t;
                    w.stepWhile(() -> probe.lessThan(upTo));
                }
            }
            in[0].close();
            w.drain();
        }, Duration.ofSeconds(30));
        return events;
    }
}
