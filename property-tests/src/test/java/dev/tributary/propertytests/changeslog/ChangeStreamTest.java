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
        List<Event> events = run(updates, options, workers, null);
        String context = options + ", " + workers + " workers, events " + events;

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
        if (snapshot && asOf < upTo) expectedTimes.add((long) asOf);
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

    /** Streams {@code updates}; returns worker 0's events (or, with {@code keyEvents}, fills it with the upsert envelope's (time, change)). */
    static List<Event> run(List<Upd> updates, ChangeStream.Options options, int workers, List<Object[]> keyEvents) {
        List<Upd> sorted = new ArrayList<>(updates);
        sorted.sort(Comparator.comparingLong(Upd::time));
        List<Event> events = Collections.synchronizedList(new ArrayList<>());
        ChangeStream.Sink<Long, Long> sink = new ChangeStream.Sink<>() {
            @Override
            public void changes(long time, ChangeStream.Changes<Long> changes) {
                events.add(new Changes(time, new TreeMap<>(changes.toMap())));
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
            int next = 0;
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
