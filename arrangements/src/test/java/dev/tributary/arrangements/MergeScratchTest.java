package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The merge scratch pool: exact arrays leave it, shorter results are copied and their arrays reused, and it stays within its capacity. */
class MergeScratchTest {
    @Test
    void anExactlyFullArrayBecomesTheResultAndLeavesThePool() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] a = s.longs(1000);
        assertThat(s.finish(a, 1000)).isSameAs(a);
        assertThat(s.pooledBytes()).isZero();
    }

    @Test
    void aShorterResultIsCopiedAndItsArrayReused() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] a = s.longs(1000);
        for (int i = 0; i < 1000; i++) a[i] = i;
        long[] out = s.finish(a, 600);
        assertThat(out).hasSize(600).isNotSameAs(a);
        assertThat(out[599]).isEqualTo(599);
        assertThat(s.pooledBytes()).isEqualTo(8000);
        assertThat(s.longs(900)).isSameAs(a);
        assertThat(s.pooledBytes()).isZero();
        int[] b = s.ints(1000);
        assertThat(s.finish(b, 10)).hasSize(10);
        assertThat(s.ints(1000)).isSameAs(b);
    }

    @Test
    void aMuchLargerArrayIsNotHandedOutForASmallMerge() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] a = s.longs(10_000);
        s.finish(a, 1);
        assertThat(s.longs(1000)).isNotSameAs(a).hasSize(1000);
        assertThat(s.pooledBytes()).isEqualTo(80_000);
    }

    @Test
    void thePoolKeepsWithinItsCapacity() {
        MergeScratch s = new MergeScratch(20_000);
        for (int i = 0; i < 10; i++) {
            s.finish(new long[1000], 1);
            s.finish(new int[1000], 1);
            assertThat(s.pooledBytes()).isLessThanOrEqualTo(20_000);
        }
        // an array larger than the whole capacity is never kept
        s.finish(new long[5000], 1);
        assertThat(s.pooledBytes()).isLessThanOrEqualTo(20_000);
    }
}
