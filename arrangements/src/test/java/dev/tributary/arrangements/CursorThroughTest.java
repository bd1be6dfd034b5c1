package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.timely.Antichain;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A reader that holds its physical frontier at the batches it has seen can always read exactly
 * those batches through {@link TraceHandle#cursorThrough}, however much the trace merges; batches
 * beyond that frontier wait, unmerged, until it moves.
 */
class CursorThroughTest {
    private static Batch batchAt(Batcher batcher, SplittableRandom random, long time, int updates) {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (int i = 0; i < updates; i++) {
            ((LongColumn) u.keys()).add(random.nextInt(20));
            ((LongColumn) u.vals()).add(random.nextInt(3));
            u.push(time, random.nextBoolean() ? 1 : -1);
        }
        batcher.push(u);
        return batcher.seal(Antichain.of(time + 1));
    }

    /** The sum of diffs of everything the cursor walks: a checksum weighted by key, value and time. */
    private static long checksum(Cursor c) {
        long[] sum = {0};
        while (c.keyValid()) {
            long k = ((LongColumn) c.keyColumn()).getLong(c.keyIndex());
            while (c.valValid()) {
                long v = ((LongColumn) c.valColumn()).getLong(c.valIndex());
                c.forEachTime((t, off, d) -> sum[0] += d * (1 + k * 7 + v * 131 + t[off] * 1009));
                c.stepVal();
            }
            c.stepKey();
        }
        return sum[0];
    }

    @Test
    void readsExactlyTheAcknowledgedBatchesWhileTheTraceMerges() {
        SplittableRandom random = new SplittableRandom(11);
        TraceHandle writer = Trace.create("through", new LongColumn(), new LongColumn(), 1);
        TraceHandle reader = writer.share();
        writer.setPhysicalCompaction(Antichain.empty(1));
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        java.util.List<Batch> inserted = new java.util.ArrayList<>();
        long acknowledged = 0;
        for (long t = 0; t < 200; t++) {
            Batch b = batchAt(batcher, random, t, 1 + random.nextInt(40));
            writer.trace().insert(b);
            inserted.add(b);
            writer.trace().exert(1 << 20);
            // the reader lags behind by a random amount, then catches up to some inserted batch
            if (random.nextInt(3) == 0) {
                acknowledged = acknowledged + random.nextInt((int) (t + 1 - acknowledged) + 1);
                reader.setPhysicalCompaction(Antichain.of(acknowledged));
            }
            long expected = 0;
            for (Batch seen : inserted) {
                if (seen.upper().get(0)[0] <= acknowledged) expected += checksum(seen.cursor());
            }
            assertThat(checksum(reader.cursorThrough(Antichain.of(acknowledged)))).as("through %d after inserting %d", acknowledged, t).isEqualTo(expected);
        }
        assertThat(writer.trace().batchCount()).as("batches past the reader's frontier wait; the rest merge").isLessThan(inserted.size());
    }

    @Test
    void throughABoundaryThePhysicalFrontierPassedThrowsNamingIt() {
        SplittableRandom random = new SplittableRandom(3);
        TraceHandle h = Trace.create("passed", new LongColumn(), new LongColumn(), 1);
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        for (long t = 0; t < 8; t++) h.trace().insert(batchAt(batcher, random, t, 30));
        h.setPhysicalCompaction(Antichain.of(8));
        h.trace().exert(1 << 20);
        while (h.trace().exert(1 << 20)) {
            // merge until compact
        }
        assertThat(h.trace().batchCount()).isEqualTo(1);
        assertThatThrownBy(() -> h.cursorThrough(Antichain.of(4)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'passed'")
                .hasMessageContaining("{4}");
        assertThat(checksum(h.cursorThrough(Antichain.of(8)))).isEqualTo(checksum(h.cursor()));
    }
}
