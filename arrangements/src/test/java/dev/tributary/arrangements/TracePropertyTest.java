package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Histories.History;
import dev.tributary.arrangements.Histories.Op;
import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.KeyVal;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Captured;
import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/**
 * Traces against the model: whatever the merges and compaction do, every read a handle may still
 * make ({@code logical <= t}, {@code t} before the upper) reports the model's accumulation at t.
 */
class TracePropertyTest {
    @Provide
    Arbitrary<History> histories() {
        return Histories.arity1(Arbitraries.longs().between(-2, 2));
    }

    @Provide
    Arbitrary<List<Op>> scripts() {
        return Histories.scripts(1, true);
    }

    @Provide
    Arbitrary<Long> efforts() {
        return Histories.efforts();
    }

    /**
     * Batches inserted between random exerts and random logical and physical compaction of two
     * handles (the second sometimes dropped): after every step, each live handle reads the model.
     */
    @Property(seed = "31415926")
    void everyHandleReadsTheModelAtEveryTimeItMayRead(@ForAll("histories") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
    }

    /**
     * Merging and compacting to completion never changes a read that is still allowed. With every
     * batch boundary released (empty physical frontiers), exert eventually reports no more work and
     * the trace ends as at most one non-empty batch, compacted to the trace's since unless
     * compacting could not shrink it (each (key, val) has one update: only its time would move).
     */
    @Property(seed = "27182818")
    void exertingToCompletionNeverChangesWhatCanBeRead(@ForAll("histories") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort, @ForAll @LongRange(min = 1, max = 64) long fuel) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
        d.releasePhysical();
        d.exertToCompletion(fuel);
        List<Batch> left = d.trace().batches();
        assertThat(left).as("batches left").hasSizeLessThanOrEqualTo(1);
        for (Batch b : left) {
            if (!b.isEmpty() && b.valCount() < b.updateCount()) {
                assertThat(b.since()).as("the last batch, with a (key, val) of several updates, is compacted to the trace's since").isEqualTo(d.trace().since());
            }
        }
    }

    /**
     * {@code exert} reports more work only when it can do some: repeatedly exerting an idle trace
     * reaches {@code false}, whatever the handles' physical frontiers. (An arrange operator
     * re-activates itself while exert returns true, so a trace that always claims work keeps its
     * dataflow from ever completing.)
     */
    @Property(seed = "57721566")
    void exertEventuallyReportsNoMoreWork(@ForAll("histories") History h, @ForAll("scripts") List<Op> script,
            @ForAll("efforts") long effort, @ForAll @LongRange(min = 1, max = 64) long fuel) {
        TraceDriver d = new TraceDriver(h, effort);
        d.run(script);
        d.exertToCompletion(fuel);
    }

    /** Two handles whose logical frontiers differ: each reads correctly at its own times, and the trace's since is their meet. */
    @Property(seed = "16180339")
    void handlesWithDifferentFrontiersEachReadAtTheirOwnTimes(@ForAll("histories") History h,
            @ForAll @LongRange(min = 0, max = 12) long first, @ForAll @LongRange(min = 0, max = 12) long second,
            @ForAll("efforts") long effort, @ForAll @LongRange(min = 1, max = 64) long fuel) {
        TraceDriver d = new TraceDriver(h, effort);
        d.handles[0].setLogicalCompaction(Antichain.of(first));
        d.handles[1].setLogicalCompaction(Antichain.of(second));
        assertThat(d.trace().since()).isEqualTo(Antichain.of(Math.min(first, second)));
        d.run(List.of());
        d.releasePhysical();
        d.exertToCompletion(fuel);
        d.handles[Math.min(first, second) == first ? 0 : 1].drop();
        assertThat(d.trace().since()).isEqualTo(Antichain.of(Math.max(first, second)));
        d.exertToCompletion(fuel);
    }

    record Handles(InputHandle<Updates> input, Arrange.Arranged arranged, Probe probe) {}

    record Imported(Arrange.Arranged arranged, Captured<ListContainer<Batch>> captured, Probe probe) {}

    /** Epoch contents, when the import is made, and how far the source handle has compacted by then. */
    record ImportCase(List<List<Update>> epochs, int importAt, long logical, long physical) {}

    @Provide
    Arbitrary<ImportCase> importCases() {
        Arbitrary<Update> update = Combinators.combine(
                        Arbitraries.longs().between(0, 15), Arbitraries.longs().between(0, 3), Arbitraries.longs().between(-2, 2))
                .as((k, v, d) -> new Update(k, v, new long[] {0}, d));
        Arbitrary<List<List<Update>>> epochs = update.list().ofMaxSize(12).list().ofMinSize(1).ofMaxSize(6);
        return epochs.flatMap(es -> Combinators.combine(
                        Arbitraries.integers().between(0, es.size()), Arbitraries.longs().between(0, es.size()), Arbitraries.longs().between(0, es.size()))
                .as((at, logical, physical) -> {
                    List<List<Update>> timed = new ArrayList<>();
                    for (int e = 0; e < es.size(); e++) {
                        List<Update> epoch = new ArrayList<>();
                        for (Update u : es.get(e)) epoch.add(new Update(u.key(), u.val(), new long[] {e}, u.diff()));
                        timed.add(epoch);
                    }
                    return new ImportCase(timed, at, Math.min(logical, at), Math.min(physical, at));
                }));
    }

    /**
     * An arrangement imported into a second dataflow after {@code importAt} epochs reads the same
     * as the handle held from the start, both equal the model, and the batches the import streams
     * (the trace's batches at import, then each new one) accumulate to the model too.
     */
    @Property(seed = "14142135")
    void importedTraceReadsLikeTheHandleHeldFromTheStart(@ForAll("importCases") ImportCase c) {
        int epochs = c.epochs().size();
        List<Update> all = new ArrayList<>();
        c.epochs().forEach(all::addAll);
        List<SortedMap<KeyVal, Long>> fromSource = new ArrayList<>();
        List<SortedMap<KeyVal, Long>> fromImport = new ArrayList<>();
        List<Batch> streamed = new ArrayList<>();
        Dataflows.runWithin(Duration.ofSeconds(20), Config.workers(1), worker -> {
            Handles h = worker.dataflow("arrange", scope -> {
                InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                Arrange.Arranged a = Arrange.arrange(in.stream(), "source", new LongColumn(), new LongColumn());
                return new Handles(in, a, a.batches().probe());
            });
            TraceHandle source = h.arranged().trace();
            Imported imported = null;
            for (int e = 0; e <= epochs; e++) {
                if (e == c.importAt()) {
                    source.setLogicalCompaction(Antichain.of(c.logical()));
                    source.setPhysicalCompaction(Antichain.of(c.physical()));
                    imported = worker.dataflow("import", scope -> {
                        Arrange.Arranged a = Arrange.importTrace(source, scope, "imported");
                        Captured<ListContainer<Batch>> captured = new Captured<>();
                        Probe p = a.batches().capture(captured).probe();
                        return new Imported(a, captured, p);
                    });
                }
                if (e == epochs) break;
                for (Update u : c.epochs().get(e)) {
                    Updates staged = h.input().staged();
                    ((LongColumn) staged.keys()).add(u.key());
                    ((LongColumn) staged.vals()).add(u.val());
                    staged.push(e, u.diff());
                }
                h.input().advanceTo(e + 1);
                long done = e;
                Imported im = imported;
                worker.stepWhile(() -> h.probe().lessEqual(done) || (im != null && im.probe().lessEqual(done)));
            }
            Imported im = imported;
            long epochsDone = epochs;
            worker.stepWhile(() -> im.probe().lessEqual(epochsDone - 1));
            for (long t = c.logical(); t < epochs; t++) {
                fromSource.add(Model.readAt(source, new long[] {t}, Codec.LONG, Codec.LONG));
                fromImport.add(Model.readAt(im.arranged().trace(), new long[] {t}, Codec.LONG, Codec.LONG));
            }
            for (Captured.Event<ListContainer<Batch>> event : im.captured().events()) streamed.addAll(event.data());
            // Give the trace up so the dataflows can complete: while a handle with advanced logical
            // compaction is held, the trace can claim merge work forever (see ExertTerminationTest).
            im.arranged().trace().drop();
            source.drop();
        });
        for (long t = c.logical(); t < epochs; t++) {
            SortedMap<KeyVal, Long> expected = Model.accumulate(all, new long[] {t});
            int i = (int) (t - c.logical());
            assertThat(fromSource.get(i)).as("source handle at %d", t).isEqualTo(expected);
            assertThat(fromImport.get(i)).as("imported handle at %d", t).isEqualTo(expected);
            SortedMap<KeyVal, Long> streamedAt = Model.accumulate(Model.updatesOf(streamed, Codec.LONG, Codec.LONG), new long[] {t});
            assertThat(streamedAt).as("batches streamed by the import, accumulated at %d: %s", t, streamed).isEqualTo(expected);
        }
        for (int i = 1; i < streamed.size(); i++) {
            assertThat(streamed.get(i).lower().get(0)[0])
                    .as("streamed batches do not overlap: %s", streamed)
                    .isGreaterThanOrEqualTo(streamed.get(i - 1).upper().get(0)[0]);
        }
    }
}
