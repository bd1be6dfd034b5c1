package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import org.junit.jupiter.api.Test;

/**
 * What a batcher is about to allocate, for a dataflow's memory limit to be checked before it does
 * (issue 25: a view over a cross join ran the heap out growing its buffer from 96 to 192 MB, its
 * 192 MB limit checked only after): a push that makes the buffer grow allocates twice what the
 * buffer holds, one that fits allocates nothing, and a seal about the buffer again and the sort's
 * scratch.
 */
class BatcherGrowthTest {
    private static Updates updates(int n, long from) {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (long k = from; k < from + n; k++) {
            ((LongColumn) u.keys()).add(k);
            ((LongColumn) u.vals()).add(k);
            u.push(0, 1);
        }
        return u;
    }

    @Test
    void aPushThatGrowsTheBufferIsAnnouncedBeforeIt() {
        Batcher b = new Batcher(new LongColumn(), new LongColumn(), 1);
        long pushed = 0;
        int growths = 0;
        for (int round = 0; round < 40; round++) {
            Updates u = updates(1000, pushed);
            long before = b.heapBytes();
            long announced = b.growthBytes(u.size());
            b.push(u);
            pushed += u.size();
            long grew = b.heapBytes() - before;
            if (announced > 0) {
                growths++;
                // the new arrays take at least what was there, and no more than what was announced
                assertThat(grew).as("round %d", round).isPositive().isLessThanOrEqualTo(announced);
            } else {
                assertThat(grew).as("round %d: a push that fits allocates nothing", round).isZero();
            }
        }
        assertThat(growths).as("the buffer grew several times").isGreaterThan(3);
        assertThat(b.sealBytes()).as("a seal: the batch and the sort's scratch").isGreaterThanOrEqualTo(24 * pushed);
        b.seal(Antichain.of(1));
        assertThat(b.sealBytes()).as("nothing left to seal").isZero();
    }
}
