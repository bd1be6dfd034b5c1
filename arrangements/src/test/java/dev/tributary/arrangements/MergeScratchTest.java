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
        assertThat(out.length).as("a new array, a little longer than the result").isBetween(600, 600 + MergeScratch.slack(600));
        assertThat(out).isNotSameAs(a);
        assertThat(out[599]).isEqualTo(599);
        assertThat(s.pooledBytes()).isEqualTo(8000);
        assertThat(s.longs(900)).isSameAs(a);
        assertThat(s.pooledBytes()).isZero();
        int[] b = s.ints(1000);
        assertThat(s.finish(b, 10)).hasSize(10);
        assertThat(s.ints(1000)).isSameAs(b);
    }

    @Test
    void aNearlyFullArrayIsKeptAndAShorterResultGoesIntoAPooledArrayThatFits() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] a = s.longs(1000);
        assertThat(s.finish(a, 900)).as("within the slack").isSameAs(a);
        long[] fits = new long[650];
        s.recycle(fits);
        long[] b = s.longs(1000);
        for (int i = 0; i < 600; i++) b[i] = i;
        long[] out = s.finish(b, 600);
        assertThat(out).as("the recycled array that fits").isSameAs(fits);
        assertThat(out[599]).isEqualTo(599);
        assertThat(s.longs(1000)).as("the scratch array is back").isSameAs(b);
    }

    @Test
    void theSmallestArrayLargeEnoughIsHandedOut() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] big = s.longs(10_000);
        long[] small = s.longs(2000);
        s.finish(big, 1);
        s.finish(small, 1);
        assertThat(s.longs(1000)).isSameAs(small);
        assertThat(s.longs(1000)).isSameAs(big);
        assertThat(s.longs(1000)).isNotSameAs(big).hasSize(1000);
        assertThat(s.pooledBytes()).isZero();
    }

    @Test
    void growingKeepsThePrefixAndPoolsTheOldArray() {
        MergeScratch s = new MergeScratch(1 << 20);
        int[] a = s.ints(300);
        for (int i = 0; i < 300; i++) a[i] = i;
        int[] b = s.grow(a, 300, 600);
        assertThat(b.length).isGreaterThanOrEqualTo(600);
        for (int i = 0; i < 300; i++) assertThat(b[i]).isEqualTo(i);
        assertThat(s.pooledBytes()).isEqualTo(1200);
        assertThat(s.ints(300)).isSameAs(a);
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
