package dev.tributary.arrangements;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Output arrays for merges on one thread, reused from one merge to the next.
 *
 * <p>A merge does not know how many updates survive consolidation until it ends, so it writes into
 * arrays of the size it expects (at most its worst case, no consolidation), {@linkplain
 * #grow(long[], int, int) growing} them if that was too little. Taking them from here and
 * {@linkplain #finish(long[], int) finishing} them at the end means: an array that came out
 * exactly full becomes the batch's own (it leaves the pool for good); one that came out shorter
 * is copied once to its exact size and goes back to the pool for the next merge, as does an array
 * left behind by growing. So a merge allocates its batch's final arrays and, only when the pool
 * has nothing large enough, its scratch.
 *
 * <p>Invariant: no array in the pool is, or ever was, part of a batch; batches stay immutable no
 * matter how often the pool is reused. The pool hands out the smallest array large enough, and
 * keeps at most {@link #capacityBytes} bytes (to make room it drops the oldest arrays of the kind
 * it holds more of). A pool belongs to one thread (traces are used from their worker's thread
 * only).
 */
final class MergeScratch {
    private static final ThreadLocal<MergeScratch> OF_THREAD = ThreadLocal.withInitial(
            () -> new MergeScratch(Math.min(Runtime.getRuntime().maxMemory() / 16, 256L << 20)));
    /** Arrays this short are cheap to allocate; pooling them would only cost searches. */
    private static final int MIN_POOLED = 256;

    private final long capacityBytes;
    private final ArrayList<long[]> longs = new ArrayList<>();
    private final ArrayList<int[]> ints = new ArrayList<>();
    private long bytes;

    MergeScratch(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    /** The calling thread's pool. */
    static MergeScratch ofThread() {
        return OF_THREAD.get();
    }

    /** Bytes held for reuse. */
    long pooledBytes() {
        return bytes;
    }

    /** An array of at least {@code n} longs, contents unspecified. */
    long[] longs(int n) {
        long[] a = take(longs, n, 8);
        return a != null ? a : new long[n];
    }

    /** An array of at least {@code n} ints, contents unspecified. */
    int[] ints(int n) {
        int[] a = take(ints, n, 4);
        return a != null ? a : new int[n];
    }

    /** Removes and returns the shortest array in {@code pool} of at least {@code n} elements, or null. */
    private <A> A take(List<A> pool, int n, int elementBytes) {
        if (n < MIN_POOLED) return null;
        int best = -1;
        int bestLength = 0;
        for (int i = 0; i < pool.size(); i++) {
            int length = Array.getLength(pool.get(i));
            if (length >= n && (best < 0 || length < bestLength)) {
                best = i;
                bestLength = length;
            }
        }
        if (best < 0) return null;
        bytes -= (long) elementBytes * bestLength;
        return pool.remove(best);
    }

    /** The first {@code n} values of {@code a} as an array of their own: {@code a} itself if it holds exactly that. */
    long[] finish(long[] a, int n) {
        if (a.length == n) return a;
        long[] out = Arrays.copyOf(a, n);
        give(a);
        return out;
    }

    /** The first {@code n} values of {@code a} as an array of their own: {@code a} itself if it holds exactly that. */
    int[] finish(int[] a, int n) {
        if (a.length == n) return a;
        int[] out = Arrays.copyOf(a, n);
        give(a);
        return out;
    }

    /** An array of at least {@code capacity} longs starting with the first {@code n} of {@code a}, which goes back to the pool. */
    long[] grow(long[] a, int n, int capacity) {
        long[] b = longs(capacity);
        System.arraycopy(a, 0, b, 0, n);
        give(a);
        return b;
    }

    /** An array of at least {@code capacity} ints starting with the first {@code n} of {@code a}, which goes back to the pool. */
    int[] grow(int[] a, int n, int capacity) {
        int[] b = ints(capacity);
        System.arraycopy(a, 0, b, 0, n);
        give(a);
        return b;
    }

    private void give(long[] a) {
        keep(longs, a, a.length, 8);
    }

    private void give(int[] a) {
        keep(ints, a, a.length, 4);
    }

    private <A> void keep(List<A> pool, A a, int length, int elementBytes) {
        long size = (long) elementBytes * length;
        if (length < MIN_POOLED || size > capacityBytes) return;
        makeRoom(size);
        pool.add(a);
        bytes += size;
    }

    private void makeRoom(long needed) {
        while (bytes + needed > capacityBytes) {
            // drop the array returned longest ago, of either kind: the larger list's head
            if (!longs.isEmpty() && (ints.isEmpty() || longs.size() >= ints.size())) {
                bytes -= 8L * longs.remove(0).length;
            } else {
                bytes -= 4L * ints.remove(0).length;
            }
        }
    }
}
