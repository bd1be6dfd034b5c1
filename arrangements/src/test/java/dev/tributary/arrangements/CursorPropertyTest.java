package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Histories.History;
import dev.tributary.arrangements.Histories.Op;
import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.KeyVal;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Cursors over a multi-batch trace (a {@link CursorList} of batch cursors) against a model cursor
 * over the sorted {@code (key, val)}s. Diffs are positive, so no pair ever cancels and the pairs a
 * cursor must visit are exactly those of the inserted updates, however the trace was merged.
 */
class CursorPropertyTest {
    /** The highest seek target: a little beyond the largest key and value in a history. */
    private static final long MAX_TARGET = 17;

    @Provide
    Arbitrary<History> histories() {
        return Histories.arity1(Arbitraries.longs().between(1, 3));
    }

    @Provide
    Arbitrary<List<Op>> scripts() {
        return Histories.scripts(1, false);
    }

    @Provide
    Arbitrary<Long> efforts() {
        return Histories.efforts();
    }

    sealed interface Nav permits StepKey, StepVal, SeekKey, SeekVal, RewindVals, RewindKeys {}

    record StepKey() implements Nav {}

    record StepVal() implements Nav {}

    record SeekKey(long target) implements Nav {}

    record SeekVal(long target) implements Nav {}

    record RewindVals() implements Nav {}

    record RewindKeys() implements Nav {}

    @Provide
    Arbitrary<List<Nav>> navigations() {
        Arbitrary<Long> target = Arbitraries.longs().between(0, MAX_TARGET);
        Arbitrary<Nav> nav = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.<Nav>just(new StepKey())),
                Tuple.of(5, Arbitraries.<Nav>just(new StepVal())),
                Tuple.of(4, target.map(t -> (Nav) new SeekKey(t))),
                Tuple.of(3, target.map(t -> (Nav) new SeekVal(t))),
                Tuple.of(1, Arbitraries.<Nav>just(new RewindVals())),
                Tuple.of(1, Arbitraries.<Nav>just(new RewindKeys())));
        return nav.list().ofMaxSize(40);
    }

    /** The model: distinct keys in order, and each key's distinct values in order. */
    static TreeMap<Long, List<Long>> pairs(List<Update> updates) {
        TreeMap<Long, TreeSet<Long>> sets = new TreeMap<>();
        for (Update u : updates) sets.computeIfAbsent(u.key(), k -> new TreeSet<>()).add(u.val());
        TreeMap<Long, List<Long>> out = new TreeMap<>();
        sets.forEach((k, vs) -> out.put(k, new ArrayList<>(vs)));
        return out;
    }

    /** The cursor the properties read: here the trace's own, over its batches as the script left them. */
    Cursor cursor(TraceDriver d) {
        return d.handles[0].cursor();
    }

    /** A trace built by the script, all batches inserted; the updates it holds. */
    private static List<Update> inTrace(TraceDriver d) {
        return Model.within(d.updates, Antichain.of(0), d.trace().upper());
    }

    @Property(seed = "11235813")
    void steppingVisitsExactlyTheModelsKeysAndValuesInOrder(@ForAll("histories") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
        List<KeyVal> expected = new ArrayList<>();
        pairs(inTrace(d)).forEach((k, vs) -> vs.forEach(v -> expected.add(new KeyVal(k, v))));

        List<KeyVal> visited = new ArrayList<>();
        Cursor c = cursor(d);
        while (c.keyValid()) {
            assertThat(c.valValid()).as("key %s has no value", c.keyColumn().get(c.keyIndex())).isTrue();
            while (c.valValid()) {
                visited.add(new KeyVal(h.keys().decode(c.keyColumn(), c.keyIndex()), h.vals().decode(c.valColumn(), c.valIndex())));
                c.stepVal();
            }
            c.stepKey();
        }
        assertThat(visited).as("pairs visited by a cursor over %s", d.trace().batches()).isEqualTo(expected);
    }

    @Property(seed = "21345589")
    void seekKeyLandsOnTheFirstKeyAtOrAfterTheTarget(@ForAll("histories") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
        TreeMap<Long, List<Long>> model = pairs(inTrace(d));
        for (long target = 0; target <= MAX_TARGET; target++) {
            Cursor c = cursor(d);
            c.seekKey(h.keys().single(target), 0);
            Long key = model.ceilingKey(target);
            assertThat(c.keyValid()).as("seekKey(%d) over keys %s", target, model.keySet()).isEqualTo(key != null);
            if (key == null) continue;
            assertThat(h.keys().decode(c.keyColumn(), c.keyIndex())).as("seekKey(%d) over keys %s", target, model.keySet()).isEqualTo(key);
            assertThat(c.valValid()).isTrue();
            assertThat(h.vals().decode(c.valColumn(), c.valIndex())).as("first value of key %d", key).isEqualTo(model.get(key).get(0));
            // and seekVal from the key's first value lands on the first value >= each target
            for (long vt = 0; vt <= 6; vt++) {
                c.rewindVals();
                c.seekVal(h.vals().single(h.vals() == Codec.UNIT ? 0 : vt), 0);
                Long val = new TreeSet<>(model.get(key)).ceiling(h.vals() == Codec.UNIT ? 0 : vt);
                assertThat(c.valValid()).as("seekVal(%d) under key %d, values %s", vt, key, model.get(key)).isEqualTo(val != null);
                if (val != null) assertThat(h.vals().decode(c.valColumn(), c.valIndex())).isEqualTo(val);
            }
        }
    }

    /**
     * Random navigation against a model cursor, following the {@link Cursor} contract: seeks only
     * move forward, and stepping or seeking a key resets the values to the key's first. At each
     * position, the value's accumulation at every readable time equals the model's.
     */
    @Property(seed = "34558914")
    void navigationFollowsTheModelCursor(@ForAll("histories") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort, @ForAll("navigations") List<Nav> navigations) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
        List<Update> held = inTrace(d);
        TreeMap<Long, List<Long>> model = pairs(held);
        List<Long> keys = new ArrayList<>(model.keySet());
        Cursor c = cursor(d);
        int k = 0;
        int v = 0;
        List<Nav> done = new ArrayList<>();
        for (Nav nav : navigations) {
            boolean keyValid = k < keys.size();
            boolean valValid = keyValid && v < model.get(keys.get(k)).size();
            switch (nav) {
                case StepKey s -> {
                    c.stepKey();
                    if (keyValid) {
                        k++;
                        v = 0;
                    }
                }
                case StepVal s -> {
                    c.stepVal();
                    if (valValid) v++;
                }
                case SeekKey s -> {
                    c.seekKey(h.keys().single(s.target()), 0);
                    if (keyValid) {
                        while (k < keys.size() && keys.get(k) < s.target()) k++;
                        v = 0;
                    }
                }
                case SeekVal s -> {
                    long target = h.vals() == Codec.UNIT ? 0 : s.target();
                    c.seekVal(h.vals().single(target), 0);
                    if (valValid) {
                        List<Long> vals = model.get(keys.get(k));
                        while (v < vals.size() && vals.get(v) < target) v++;
                    }
                }
                case RewindVals r -> {
                    c.rewindVals();
                    v = 0;
                }
                case RewindKeys r -> {
                    c.rewindKeys();
                    k = 0;
                    v = 0;
                }
            }
            done.add(nav);
            keyValid = k < keys.size();
            valValid = keyValid && v < model.get(keys.get(k)).size();
            assertThat(c.keyValid()).as("keyValid after %s over %s", done, model).isEqualTo(keyValid);
            if (!keyValid) continue;
            long key = keys.get(k);
            assertThat(h.keys().decode(c.keyColumn(), c.keyIndex())).as("key after %s over %s", done, model).isEqualTo(key);
            assertThat(c.valValid()).as("valValid after %s over %s", done, model).isEqualTo(valValid);
            if (!valValid) continue;
            long val = model.get(key).get(v);
            assertThat(h.vals().decode(c.valColumn(), c.valIndex())).as("value after %s over %s", done, model).isEqualTo(val);
            checkTimes(d, held, c, new KeyVal(key, val));
        }
    }

    /** The shrunk counterexample of {@link #navigationFollowsTheModelCursor}: seeking the current key must rewind its values. */
    @org.junit.jupiter.api.Test
    void seekingTheCurrentKeyRewindsItsValues() {
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (long val = 0; val < 2; val++) {
            ((LongColumn) u.keys()).add(0);
            ((LongColumn) u.vals()).add(val);
            u.push(0, 1);
        }
        batcher.push(u);
        TraceHandle h = Trace.create("t", new LongColumn(), new LongColumn(), 1);
        h.trace().insert(batcher.seal(Antichain.empty(1)));
        Cursor c = h.cursor();
        c.stepVal();
        assertThat(Codec.LONG.decode(c.valColumn(), c.valIndex())).isEqualTo(1);
        c.seekKey(Codec.LONG.single(0), 0);
        assertThat(c.valValid()).isTrue();
        assertThat(Codec.LONG.decode(c.valColumn(), c.valIndex())).as("value after seekKey to the current key").isEqualTo(0);
    }

    /** The current value's {@code (time, diff)}s sum to the model's total, and accumulate to the model at every readable time. */
    private static void checkTimes(TraceDriver d, List<Update> held, Cursor c, KeyVal kv) {
        List<Update> mine = held.stream().filter(u -> u.key() == kv.key() && u.val() == kv.val()).toList();
        long[] total = new long[1];
        c.forEachTime((times, off, diff) -> total[0] += diff);
        assertThat(total[0]).as("sum of the diffs of %s", kv).isEqualTo(mine.stream().mapToLong(Update::diff).sum());
        for (long[] t : d.history.grid()) {
            if (!d.handles[0].logicalCompaction().lessEqual(t) || d.trace().upper().lessEqual(t)) continue;
            SortedMap<KeyVal, Long> expected = Model.accumulate(mine, t);
            assertThat(c.accumulate(t)).as("accumulation of %s at %s", kv, t[0]).isEqualTo(expected.getOrDefault(kv, 0L));
        }
    }
}
