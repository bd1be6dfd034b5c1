package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Histories.Arrival;
import dev.tributary.arrangements.Histories.History;
import dev.tributary.arrangements.Histories.Op;
import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.Entry;
import dev.tributary.arrangements.Model.KeyVal;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * Logical compaction frees memory: history that cancels disappears, and history that does not
 * collapses to one update per {@code (key, val, time advanced to since)}. Every batch boundary is
 * released (empty physical frontiers) before exerting, since idle merging may erase only
 * boundaries the physical frontier has passed.
 */
class CompactionPropertyTest {
    /** A history in which every insert is later retracted, and the time of the last retraction. */
    record Retracted(History history, long lastRetraction) {}

    @Provide
    Arbitrary<Retracted> retracted() {
        Arbitrary<List<Arrival>> pairs = Combinators.combine(
                        Arbitraries.longs().between(0, 15),
                        Arbitraries.longs().between(0, 4),
                        Arbitraries.longs().between(0, Histories.MAX_TIME),
                        Arbitraries.longs().between(0, 4),
                        Arbitraries.longs().between(-3, 3).filter(d -> d != 0),
                        Arbitraries.integers().between(0, 7),
                        Arbitraries.integers().between(0, 7))
                .as((k, v, t, after, d, s1, s2) -> List.of(
                        new Arrival(new Update(k, v, new long[] {t}, d), s1),
                        new Arrival(new Update(k, v, new long[] {Math.min(t + after, Histories.MAX_TIME)}, -d), s2)));
        Arbitrary<List<Antichain>> uppers = Combinators.combine(
                        Arbitraries.longs().between(0, Histories.MAX_TIME + 1).list().ofMaxSize(5), Arbitraries.of(false, true))
                .as((ts, close) -> {
                    List<Long> sorted = new ArrayList<>(ts);
                    Collections.sort(sorted);
                    List<Antichain> out = new ArrayList<>();
                    for (long t : sorted) out.add(Antichain.of(t));
                    out.add(close ? Antichain.empty(1) : Antichain.of(Histories.MAX_TIME + 1));
                    return out;
                });
        return Combinators.combine(
                        Arbitraries.of(Codec.LONG, Codec.BYTES, Codec.STRINGS),
                        Arbitraries.of(Codec.LONG, Codec.BYTES, Codec.STRINGS),
                        pairs.list().ofMinSize(1).ofMaxSize(30),
                        uppers,
                        Arbitraries.integers().between(1, 9))
                .as((kc, vc, ps, us, chunk) -> {
                    List<Arrival> arrivals = new ArrayList<>();
                    long last = 0;
                    for (List<Arrival> p : ps) {
                        arrivals.addAll(p);
                        last = Math.max(last, p.get(1).update().time()[0]);
                    }
                    return new Retracted(new History(kc, vc, 1, arrivals, us, chunk), last);
                });
    }

    @Provide
    Arbitrary<History> growing() {
        return Histories.arity1(Arbitraries.longs().between(1, 3));
    }

    @Provide
    Arbitrary<List<Op>> scripts() {
        return Histories.scripts(1, true);
    }

    @Provide
    Arbitrary<Long> efforts() {
        return Histories.efforts();
    }

    /** Moves every live handle's logical compaction to at least {@code t}. */
    private static void compactTo(TraceDriver d, long t) {
        for (TraceHandle h : d.handles) {
            if (h.isDropped()) continue;
            long current = h.logicalCompaction().get(0)[0];
            h.setLogicalCompaction(Antichain.of(Math.max(current, t)));
        }
    }

    @Property(seed = "86753090")
    void fullyRetractedCollectionCompactsToNothing(@ForAll("retracted") Retracted r, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort, @ForAll @LongRange(min = 0, max = 3) long beyond, @ForAll @LongRange(min = 1, max = 64) long fuel) {
        TraceDriver d = new TraceDriver(r.history(), effort);
        d.run(script);
        compactTo(d, r.lastRetraction() + beyond);
        d.checkReads();
        d.releasePhysical();
        d.exertToCompletion(fuel);
        assertThat(d.trace().updateCount()).as("updates left in %s: %s", d.trace(), d.trace().batches()).isZero();
        assertThat(d.handles[0].cursor().keyValid()).as("a cursor over the compacted trace has a key").isFalse();
    }

    @Property(seed = "16807000")
    void historyThatDoesNotCancelCollapsesToOneUpdatePerAdvancedTime(@ForAll("growing") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort, @ForAll @LongRange(min = 0, max = 12) long compactTo, @ForAll @LongRange(min = 1, max = 64) long fuel) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
        compactTo(d, compactTo);
        d.releasePhysical();
        d.exertToCompletion(fuel);
        long since = d.trace().since().get(0)[0];
        List<Update> held = Model.within(d.updates, Antichain.of(0), d.trace().upper());
        Set<Entry> advanced = new HashSet<>();
        Set<KeyVal> pairs = new HashSet<>();
        long latest = 0;
        for (Update u : held) {
            advanced.add(new Entry(u.key(), u.val(), new long[] {Math.max(u.time()[0], since)}));
            pairs.add(new KeyVal(u.key(), u.val()));
            latest = Math.max(latest, u.time()[0]);
        }
        assertThat(d.trace().updateCount())
                .as("updates in %s compacted to %d: %s", d.trace(), since, d.trace().batches())
                .isEqualTo(advanced.size());
        if (since >= latest) assertThat(d.trace().updateCount()).isLessThanOrEqualTo(pairs.size());
    }

    @Test
    void insertsRetractedInLaterBatchesVanishOnceCompactedPastTheRetractions() {
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        TraceHandle h = Trace.create("t", new LongColumn(), new LongColumn(), 1);
        long[][] epochs = {{1, 2, 3}, {4}, {}, {1, 2}, {3, 4}};
        for (int e = 0; e < epochs.length; e++) {
            Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
            for (long key : epochs[e]) {
                ((LongColumn) u.keys()).add(key);
                ((LongColumn) u.vals()).add(key * 10);
                u.push(e, e < 2 ? 1 : -1);
            }
            batcher.push(u);
            h.trace().insert(batcher.seal(Antichain.of(e + 1)));
        }
        assertThat(h.trace().updateCount()).isEqualTo(8);
        h.setLogicalCompaction(Antichain.of(4));
        h.setPhysicalCompaction(Antichain.of(5));
        int calls = 0;
        while (h.trace().exert(3)) assertThat(++calls).isLessThan(1_000);
        assertThat(h.trace().updateCount()).isZero();
        assertThat(h.cursor().keyValid()).isFalse();
        assertThat(Model.readAt(h, new long[] {4}, Codec.LONG, Codec.LONG)).isEmpty();
    }
}
