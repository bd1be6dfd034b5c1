package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Histories.History;
import dev.tributary.arrangements.Histories.Op;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/**
 * Times of arity 2 under the product order, as in an iterative scope: frontiers and since have
 * several incomparable elements, and reads at any time at or beyond the since stay exact after
 * the merger advances times by it.
 */
class ProductTimePropertyTest {
    @Provide
    Arbitrary<History> histories() {
        return Histories.arity2(Arbitraries.longs().between(-2, 2));
    }

    @Provide
    Arbitrary<List<Op>> scripts() {
        return Histories.scripts(2, true);
    }

    @Provide
    Arbitrary<Long> efforts() {
        return Histories.efforts();
    }

    /** Two incomparable times {@code (x, y1)} and {@code (x + 1 + dx, y2)} with {@code y1 > y2}. */
    @Provide
    Arbitrary<Antichain> twoElementFrontiers() {
        return Combinators.combine(
                        Arbitraries.longs().between(0, 3), Arbitraries.longs().between(0, 2),
                        Arbitraries.longs().between(0, 3), Arbitraries.longs().between(0, 2))
                .as((x, dx, y2, dy) -> {
                    Antichain a = Antichain.fromTimes(2, List.of(new long[] {x, y2 + 1 + dy}, new long[] {x + 1 + dx, y2}));
                    if (a.size() != 2) throw new AssertionError("not an antichain of two: " + a);
                    return a;
                });
    }

    @Property(seed = "2002")
    void batcherSealsProductTimesIntoExactBatches(@ForAll("histories") History h) {
        Batcher batcher = new Batcher(h.keys().column(), h.vals().column(), 2);
        List<Batch> batches = Histories.feed(h, batcher, (step, batch, b, pushed) -> {
            Model.checkBatch(batch, h.keys(), h.vals());
            assertThat(batch.lower()).isEqualTo(h.lowerAt(step));
            assertThat(batch.upper()).isEqualTo(h.uppers().get(step));
            assertThat(Model.consolidate(Model.updatesOf(batch, h.keys(), h.vals())))
                    .as("batch %s holds the consolidated updates of its range", batch)
                    .isEqualTo(Model.consolidate(Model.within(h.updates(), batch.lower(), batch.upper())));
            long waiting = pushed.stream().filter(u -> batch.upper().lessEqual(u.time())).count();
            assertThat((long) b.buffered()).isEqualTo(waiting);
        });
        List<Update> all = new ArrayList<>(Model.updatesOf(batches, h.keys(), h.vals()));
        all.addAll(Model.updatesOf(batcher.seal(Antichain.empty(2)), h.keys(), h.vals()));
        assertThat(Model.consolidate(all)).isEqualTo(Model.consolidate(h.updates()));
    }

    /** A two-element since from the start, then random scripts (whose moves split frontiers further): reads stay exact. */
    @Property(seed = "2003")
    void traceReadsExactlyAtProductTimesBeyondATwoElementSince(@ForAll("histories") History h, @ForAll("twoElementFrontiers") Antichain since,
            @ForAll("scripts") List<Op> script, @ForAll("efforts") long effort, @ForAll @LongRange(min = 1, max = 64) long fuel) {
        TraceDriver d = new TraceDriver(h, effort);
        d.handles[0].setLogicalCompaction(since);
        d.run(script);
        d.releasePhysical();
        d.exertToCompletion(fuel);
    }

    /**
     * The merger over all of a history's batches at once (a spine merges up to four and more when
     * it rolls levels up): keys, values and times shared by several inputs are merged in one pass,
     * with work given in random amounts, and every read beyond the since is the inputs' own.
     */
    @Property(seed = "2005")
    void mergerOfSeveralBatchesKeepsReadsBeyondTheSince(@ForAll("histories") History h, @ForAll("twoElementFrontiers") Antichain since,
            @ForAll @LongRange(min = 1, max = 8) long fuel) {
        List<Batch> batches = Histories.feed(h);
        if (batches.size() < 2) return;
        Merger m = new Merger(new ArrayList<>(batches), since);
        while (!m.isDone()) {
            long left = m.work(fuel);
            assertThat(left).as("fuel left over").isLessThanOrEqualTo(fuel);
        }
        Batch merged = m.result();
        Model.checkBatch(merged, h.keys(), h.vals(), false);
        assertThat(merged.lower()).isEqualTo(batches.get(0).lower());
        assertThat(merged.upper()).isEqualTo(batches.get(batches.size() - 1).upper());
        List<Update> inputs = Model.updatesOf(batches, h.keys(), h.vals());
        List<Update> output = Model.updatesOf(merged, h.keys(), h.vals());
        for (long[] t : h.grid()) {
            if (!since.lessEqual(t)) continue;
            assertThat(Model.accumulate(output, t)).as("%d batches merged under %s, read at %s", batches.size(), since, Timestamps.toString(t))
                    .isEqualTo(Model.accumulate(inputs, t));
        }
    }

    /** The merger itself: two adjacent batches merged under a two-element since, with work given in random amounts. */
    @Property(seed = "2004")
    void mergerWithATwoElementSinceKeepsReadsBeyondIt(@ForAll("histories") History h, @ForAll("twoElementFrontiers") Antichain since,
            @ForAll @LongRange(min = 1, max = 8) long fuel) {
        List<Batch> batches = Histories.feed(h);
        if (batches.size() < 2) return;
        Batch older = batches.get(0);
        Batch newer = batches.get(1);
        Merger m = new Merger(older, newer, since);
        int calls = 0;
        while (!m.isDone()) {
            long left = m.work(fuel);
            assertThat(left).as("fuel left over").isLessThanOrEqualTo(fuel);
            assertThat(++calls).as("merge still not done").isLessThan(10_000);
        }
        Batch merged = m.result();
        Model.checkBatch(merged, h.keys(), h.vals(), false);
        assertThat(merged.lower()).isEqualTo(older.lower());
        assertThat(merged.upper()).isEqualTo(newer.upper());
        assertThat(merged.since()).isEqualTo(since);
        List<Update> inputs = new ArrayList<>(Model.updatesOf(older, h.keys(), h.vals()));
        inputs.addAll(Model.updatesOf(newer, h.keys(), h.vals()));
        List<Update> output = Model.updatesOf(merged, h.keys(), h.vals());
        assertThat(output.stream().mapToLong(Update::diff).sum()).isEqualTo(inputs.stream().mapToLong(Update::diff).sum());
        for (long[] t : h.grid()) {
            if (!since.lessEqual(t)) continue;
            assertThat(Model.accumulate(output, t)).as("merged under %s, read at %s", since, Timestamps.toString(t)).isEqualTo(Model.accumulate(inputs, t));
        }
        assertThat(Model.consolidate(output)).as("fueled and unfueled merges agree").isEqualTo(
                Model.consolidate(Model.updatesOf(new Merger(older, newer, since).finish(), h.keys(), h.vals())));
    }
}
