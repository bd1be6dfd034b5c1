package dev.tributary.arrangements;

/**
 * Read-only arrays that batches share instead of each holding a copy of the same contents: the
 * offsets {@code 0, 1, 2, ...} of a batch whose every key has one value (or every value one
 * update), and the diffs of a batch whose every update counts once. A table arranged by its
 * primary key, a view's rows arranged by themselves and most compacted batches are such
 * batches, and these arrays were a third of what they held.
 *
 * <p>Nothing writes into a shared array once it is published: a batch only reads its arrays,
 * and the batches that return their arrays to a {@link MergeScratch} for reuse (those of
 * {@link LongColumn}s) never take shared ones. An array is at least as long as asked for;
 * growing publishes a longer one, and the shorter one stays valid for the batches that hold it.
 */
final class SharedArrays {
    private SharedArrays() {}

    private static volatile int[] identity = identityOf(1 << 10);
    private static volatile long[] ones = onesOf(1 << 10);

    /** {@code 0, 1, ..., length - 1} (at least). */
    static int[] identity(int length) {
        int[] a = identity;
        if (a.length >= length) return a;
        a = identityOf(Math.max(length, a.length + (a.length >> 2)));
        identity = a;
        return a;
    }

    /** {@code length} ones (at least). */
    static long[] ones(int length) {
        long[] a = ones;
        if (a.length >= length) return a;
        a = onesOf(Math.max(length, a.length + (a.length >> 2)));
        ones = a;
        return a;
    }

    private static int[] identityOf(int length) {
        int[] a = new int[length];
        for (int i = 0; i < length; i++) a[i] = i;
        return a;
    }

    private static long[] onesOf(int length) {
        long[] a = new long[length];
        java.util.Arrays.fill(a, 1L);
        return a;
    }
}
