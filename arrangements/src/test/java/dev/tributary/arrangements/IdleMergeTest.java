package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an idle trace merges ({@code Trace.exert}): batches of comparable sizes, down to one, but
 * not a small batch into one many times its size, which would rewrite the large one to take in a
 * little (under a trickle of single-row writes, every trace's largest batch once per write). In
 * both cases exert stops claiming work, so an idle operator stops re-activating itself.
 */
class IdleMergeTest {
    /** A trace holding a batch of {@code sizes[i]} distinct keys at time {@code i}, each sealed and inserted, its frontiers at the end. */
    private static TraceHandle trace(int... sizes) {
        TraceHandle h = Trace.create("t", new LongColumn(), new LongColumn(), 1);
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        long key = 0;
        for (int t = 0; t < sizes.length; t++) {
            Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
            for (int i = 0; i < sizes[t]; i++) {
                ((LongColumn) u.keys()).add(key++);
                ((LongColumn) u.vals()).add(0);
                u.push(t, 1);
            }
            batcher.push(u);
            h.trace().insert(batcher.seal(Antichain.of(t + 1)));
        }
        h.setLogicalCompaction(Antichain.of(sizes.length));
        h.setPhysicalCompaction(Antichain.of(sizes.length));
        return h;
    }

    private static int exertUntilDone(TraceHandle h) {
        int calls = 0;
        while (h.trace().exert(1_000) && calls < 10_000) calls++;
        return calls;
    }

    @Test
    void aSmallBatchIsNotMergedIntoOneManyTimesItsSize() {
        TraceHandle h = trace(10_000, 1);
        Batch large = h.trace().batches().stream().filter(b -> b.updateCount() == 10_000).findFirst().orElseThrow();
        assertThat(exertUntilDone(h)).isLessThan(10_000);
        List<Batch> batches = h.trace().batches();
        assertThat(batches).hasSize(2).contains(large);
        assertThat(h.trace().updateCount()).isEqualTo(10_001);
    }

    @Test
    void batchesOfComparableSizesMergeToOne() {
        TraceHandle h = trace(3_000, 2_000);
        assertThat(h.trace().batches()).hasSize(2);
        assertThat(exertUntilDone(h)).isLessThan(10_000);
        assertThat(h.trace().batches()).hasSize(1);
        assertThat(h.trace().batches().get(0).updateCount()).isEqualTo(5_000);
    }
}
