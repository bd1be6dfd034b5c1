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
    void aMuchShorterResultIsCopiedAndItsArrayReused() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] a = s.longs(1000);
        for (int i = 0; i < 1000; i++) a[i] = i;
        long[] out = s.finish(a, 400);
        assertThat(out.length).as("a new array, a little longer than the result").isBetween(400, 400 + MergeScratch.slack(400));
        assertThat(out).isNotSameAs(a);
        assertThat(out[399]).isEqualTo(399);
        assertThat(s.pooledBytes()).isEqualTo(8000);
        assertThat(s.longs(900)).isSameAs(a);
        assertThat(s.pooledBytes()).isZero();
        int[] b = s.ints(1000);
        assertThat(s.finish(b, 10)).hasSize(10);
        assertThat(s.ints(1000)).isSameAs(b);
    }

    /** With nothing pooled that fits, a result at least half its scratch's length keeps the scratch rather than have an array made for it. */
    @Test
    void aShorterResultWithNoPooledFitKeepsItsScratch() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] a = s.longs(1000);
        assertThat(s.finish(a, 600)).isSameAs(a);
        assertThat(s.finish(a, 484)).as("2 x 484 + 32 = 1000").isSameAs(a);
        assertThat(s.pooledBytes()).isZero();
        int[] b = s.ints(1000);
        assertThat(s.finish(b, 483)).as("more than twice as long").isNotSameAs(b).hasSizeBetween(483, 483 + MergeScratch.slack(483));
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
    void scratchIsTheSmallestArrayLargeEnoughAndAtMostTwiceAsLong() {
        MergeScratch s = new MergeScratch(1 << 20);
        long[] huge = new long[10_000];
        long[] larger = new long[1900];
        long[] large = new long[1200];
        s.recycle(huge);
        s.recycle(larger);
        s.recycle(large);
        assertThat(s.longs(1000)).isSameAs(large);
        assertThat(s.longs(1000)).isSameAs(larger);
        assertThat(s.longs(1000)).as("not an array ten times too long: a larger merge needs it").isNotSameAs(huge).hasSize(1000);
        assertThat(s.longs(8000)).isSameAs(huge);
        assertThat(s.pooledBytes()).isZero();
    }

    @Test
    void newArraysComeInEightLengthsPerDoublingWithinTheSlack() {
        java.util.Set<Integer> lengths = new java.util.TreeSet<>();
        for (int n = 1 << 12; n < 1 << 13; n++) {
            int l = MergeScratch.ladder(n);
            assertThat(l).as("length for %d", n).isBetween(n, n + MergeScratch.slack(n));
            lengths.add(l);
        }
        assertThat(lengths).as("8192 is the next doubling's first").containsExactly(4096, 4608, 5120, 5632, 6144, 6656, 7168, 7680, 8192);
        assertThat(MergeScratch.ladder(Integer.MAX_VALUE - 3)).isEqualTo(Integer.MAX_VALUE - 3);
        assertThat(MergeScratch.ladder(10)).isEqualTo(10);
        MergeScratch s = new MergeScratch(1 << 24);
        long[] first = s.finish(new long[20_000], 8_300);
        assertThat(first).hasSize(9216);
        s.recycle(first);
        // a length proportional to the first result (a sixteenth longer, 8818) would be too short for this one
        assertThat(s.finish(new long[20_000], 9_200)).as("a result 11%% larger takes the first one's array").isSameAs(first);
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

    @Test
    void largeArraysAreHeldSoftlyBeyondTheCapacityAndForgottenOnceCleared() {
        int n = (int) (MergeScratch.SOFT_BYTES / 8);
        MergeScratch s = new MergeScratch(1 << 20, 4 * MergeScratch.SOFT_BYTES);
        long[] a = new long[n];
        long[] b = new long[n + 100];
        s.recycle(a);
        s.recycle(b);
        assertThat(s.pooledBytes()).as("beyond the strong capacity of 1 MB").isEqualTo(8L * (2L * n + 100));
        assertThat(s.longs(n)).isSameAs(a);
        s.recycle(a);
        s.clearSoftlyHeld();
        long[] c = s.longs(n);
        assertThat(c).as("a cleared array is never handed out").isNotSameAs(a).isNotSameAs(b).hasSize(n);
        assertThat(s.pooledBytes()).isZero();
        for (int i = 0; i < 6; i++) s.recycle(new long[n]);
        assertThat(s.pooledBytes()).as("the soft capacity holds").isLessThanOrEqualTo(4 * MergeScratch.SOFT_BYTES);
    }

    @Test
    void toMakeRoomTheArrayThatCameInLongestAgoIsDropped() {
        MergeScratch s = new MergeScratch(3 * 8000);
        long[] first = new long[1000];
        int[] second = new int[2000];
        long[] third = new long[1000];
        s.recycle(first);
        s.recycle(second);
        s.recycle(third);
        s.recycle(new long[1000]);
        assertThat(s.pooledBytes()).isEqualTo(3 * 8000);
        assertThat(s.ints(2000)).isSameAs(second);
        assertThat(s.longs(1000)).isNotSameAs(first);
        assertThat(s.longs(1000)).isNotSameAs(first);
        assertThat(s.pooledBytes()).isZero();
    }

    @Test
    void lengthClassesAreOrderedAndEachHoldsOneRungOfTheLadder() {
        int previous = -1;
        for (int n = 32; n < 1 << 16; n++) {
            int c = MergeScratch.classOf(n);
            assertThat(c).as("class of %d", n).isBetween(previous, previous + 1);
            previous = c;
        }
        assertThat(MergeScratch.classOf(Integer.MAX_VALUE)).isLessThan((31 - 5) * 8);
        assertThat(MergeScratch.classOf(4608)).isEqualTo(MergeScratch.classOf(5119)).isEqualTo(MergeScratch.classOf(4096) + 1);
    }
}
