package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Snapshots: what a trace held at one moment stays readable, unchanged, while the trace goes on
 * inserting, merging and compacting; asking again with nothing changed gives the same snapshot.
 * And a settled trace is not rewritten each time its since moves.
 */
class TraceSnapshotTest {
    private static Batch seal(Batcher batcher, List<Update> updates, long upper) {
        batcher.push(Model.longUpdates(updates));
        return batcher.seal(Antichain.of(upper));
    }

    private static Map<Model.KeyVal, Long> read(TraceSnapshot s, long t) {
        Map<Model.KeyVal, Long> out = new java.util.TreeMap<>();
        Cursor c = s.cursor();
        while (c.keyValid()) {
            while (c.valValid()) {
                long n = c.accumulate(new long[] {t});
                if (n != 0) out.put(new Model.KeyVal(((LongColumn) c.keyColumn()).getLong(c.keyIndex()), ((LongColumn) c.valColumn()).getLong(c.valIndex())), n);
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    @Test
    void aSnapshotReadsTheSameWhateverTheTraceDoesAfterwards() {
        TraceHandle h = Trace.create("t", new LongColumn(), new LongColumn(), 1);
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        SplittableRandom random = new SplittableRandom(11);
        List<Update> all = new ArrayList<>();
        List<TraceSnapshot> snapshots = new ArrayList<>();
        List<Map<Model.KeyVal, Long>> expected = new ArrayList<>();
        for (long t = 0; t < 60; t++) {
            List<Update> step = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                step.add(new Update(random.nextLong(30), random.nextLong(3), new long[] {t}, random.nextBoolean() ? 1 : -1));
            }
            all.addAll(step);
            h.trace().insert(seal(batcher, step, t + 1));
            if (t % 7 == 3) h.setLogicalCompaction(Antichain.of(t - 2));
            h.trace().exert(200);
            TraceSnapshot s = h.snapshot();
            assertThat(h.snapshot()).as("nothing changed: the same snapshot").isSameAs(s);
            assertThat(s.readableAt(new long[] {t})).isTrue();
            assertThat(s.readableAt(new long[] {t + 1})).as("not complete at its upper").isFalse();
            snapshots.add(s);
            expected.add(read(s, t));
            assertThat(expected.get(expected.size() - 1)).isEqualTo(Model.accumulate(all, new long[] {t}));
        }
        // merge and compact everything away, then read every old snapshot again
        h.setLogicalCompaction(Antichain.of(59));
        while (h.trace().exert(1_000_000)) {
            // until the trace is compact
        }
        assertThat(h.snapshot()).isNotSameAs(snapshots.get(snapshots.size() - 1));
        for (int i = 0; i < snapshots.size(); i++) assertThat(read(snapshots.get(i), i)).as("snapshot at %d", i).isEqualTo(expected.get(i));
    }

    @Test
    void aSettledTraceIsNotRewrittenWhenItsSinceMoves() {
        TraceHandle h = Trace.create("t", new LongColumn(), new LongColumn(), 1);
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        List<Update> rows = new ArrayList<>();
        for (long k = 0; k < 1000; k++) rows.add(new Update(k, k, new long[] {0}, 1));
        rows.add(new Update(5, 5, new long[] {1}, -1));
        h.trace().insert(seal(batcher, rows, 2));
        h.setLogicalCompaction(Antichain.of(2));
        h.setPhysicalCompaction(Antichain.empty(1)); // a reader that never needs batch boundaries
        while (h.trace().exert(1_000_000)) {
            // compacts: times 0 and 1 become 2, the retraction cancels its row
        }
        assertThat(h.trace().updateCount()).isEqualTo(999);
        List<Batch> settled = h.trace().batches();
        for (long since = 3; since < 50; since++) {
            h.trace().insert(seal(batcher, List.of(), since + 1)); // time passes, nothing is written
            h.setLogicalCompaction(Antichain.of(since));
            while (h.trace().exert(1_000_000)) {
                // nothing to do
            }
            List<Batch> now = h.trace().batches();
            assertThat(now).as("at since %d", since).hasSize(1);
            assertThat(now.get(0).keys).as("the settled data is shared, not rewritten").isSameAs(settled.get(0).keys);
        }
        assertThat(Model.readAt(h, new long[] {49}, Codec.LONG, Codec.LONG)).hasSize(999);
    }
}
