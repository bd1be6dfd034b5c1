package dev.tributary.arrangements;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The arrays of merges and merged batches on one thread, reused from one merge to the next.
 *
 * <p>A merge does not know how many updates survive consolidation until it ends, so it writes into
 * arrays of the size it expects (at most its worst case, no consolidation), {@linkplain
 * #grow(long[], int, int) growing} them if that was too little. Taking them from here and
 * {@linkplain #finish(long[], int) finishing} them at the end means: an array that came out
 * nearly full (within {@link #slack}) becomes the batch's own; one that came out shorter is
 * copied once into a pooled array that fits as well, or else into a new one a sixteenth longer,
 * and goes back to the pool for the next merge, as does an array left behind by growing. When a
 * later merge retires a batch that nobody outside its trace can hold, its arrays come back here
 * ({@link #recycle(long[])}, called by {@link Batch#recycle()}). So in a steady state a merge
 * allocates nothing: it writes into the arrays of the batches merged before it.
 *
 * <p>Invariant: no array in the pool is part of a live batch: it came from a merge's scratch or
 * from a batch retired and never shared, which nothing reads any more, so batches stay immutable
 * for as long as anyone can read them. The pool hands out the smallest array large enough, and
 * keeps at most {@link #capacityBytes} bytes (to make room it drops the oldest arrays of the kind
 * it holds more of). A pool belongs to one thread (traces are used from their worker's thread
 * only).
 */
final class MergeScratch {
    /**
     * A sixteenth of the heap per thread. The 256 MB cap it had made the merges of a trace of a
     * million keys allocate their arrays again each time (arrange 14 B per update, join 23 B,
     * against 7 and 10 B without it); the cost is memory held idle, at most this much per worker,
     * that the collector cannot take back.
     */
    private static final ThreadLocal<MergeScratch> OF_THREAD = ThreadLocal.withInitial(
            () -> new MergeScratch(Runtime.getRuntime().maxMemory() / 16));
    /** Arrays this short are cheap to allocate; pooling them would only cost searches. */
    private static final int MIN_POOLED = 32;

    /** The thread whose pool this is: only it may take or give arrays. */
    final Thread owner = Thread.currentThread();
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
        return longs(n, false);
    }

    /**
     * An array of at least {@code n} longs; {@code roomy}: if it must be made, an eighth longer.
     * A merge whose output size is a guess (its trace cancels) asks for roomy scratch: the next
     * merge at its level guesses a little more or less, and an array of exactly this guess would
     * be too short for it half the time.
     */
    long[] longs(int n, boolean roomy) {
        long[] a = take(longs, n, Integer.MAX_VALUE, 8);
        return a != null ? a : new long[roomy ? n + (n >>> 3) : n];
    }

    /** An array of at least {@code n} ints, contents unspecified. */
    int[] ints(int n) {
        return ints(n, false);
    }

    /** As {@link #longs(int, boolean)}, for ints. */
    int[] ints(int n, boolean roomy) {
        int[] a = take(ints, n, Integer.MAX_VALUE, 4);
        return a != null ? a : new int[roomy ? n + (n >>> 3) : n];
    }

    /**
     * An array of {@code n} to {@code n + slack(n)} longs, contents unspecified: to be a batch's
     * own. One that must be made is a sixteenth longer than {@code n}, within the slack: the batch
     * that later takes it from the pool may be a little larger than this one.
     */
    long[] longsFitting(int n) {
        long[] a = take(longs, n, n + slack(n), 8);
        return a != null ? a : new long[n + (n >>> 4)];
    }

    /** As {@link #longsFitting}, for ints. */
    int[] intsFitting(int n) {
        int[] a = take(ints, n, n + slack(n), 4);
        return a != null ? a : new int[n + (n >>> 4)];
    }

    /** Removes and returns the shortest array in {@code pool} of at least {@code n} and at most {@code max} elements, or null. */
    private <A> A take(List<A> pool, int n, int max, int elementBytes) {
        if (n < MIN_POOLED) return null;
        int best = -1;
        int bestLength = 0;
        for (int i = 0; i < pool.size(); i++) {
            int length = Array.getLength(pool.get(i));
            if (length >= n && length <= max && (best < 0 || length < bestLength)) {
                best = i;
                bestLength = length;
            }
        }
        if (best < 0) return null;
        bytes -= (long) elementBytes * bestLength;
        return pool.remove(best);
    }

    /**
     * Room a finished array may have beyond its {@code n} values: an eighth, plus a little for
     * small arrays. It bounds what pooling adds to a trace's footprint (at most 12.5% plus 32
     * elements per array), where exact sizes would make every result a fresh allocation.
     */
    static int slack(int n) {
        return (n >>> 3) + 32;
    }

    /**
     * The first {@code n} values of {@code a} in an array that becomes a batch's: {@code a} itself
     * if it is within {@link #slack} of full, else a copy in a pooled array that is, else a copy
     * in a new one (see {@link #longsFitting}); {@code a} then goes back to the pool.
     */
    long[] finish(long[] a, int n) {
        if (a.length - n <= slack(n)) return a;
        long[] out = longsFitting(n);
        System.arraycopy(a, 0, out, 0, n);
        recycle(a);
        return out;
    }

    /** As {@link #finish(long[], int)}, for ints. */
    int[] finish(int[] a, int n) {
        if (a.length - n <= slack(n)) return a;
        int[] out = intsFitting(n);
        System.arraycopy(a, 0, out, 0, n);
        recycle(a);
        return out;
    }


    /** An array of at least {@code capacity} longs starting with the first {@code n} of {@code a}, which goes back to the pool. */
    long[] grow(long[] a, int n, int capacity) {
        long[] b = longs(capacity);
        System.arraycopy(a, 0, b, 0, n);
        recycle(a);
        return b;
    }

    /** An array of at least {@code capacity} ints starting with the first {@code n} of {@code a}, which goes back to the pool. */
    int[] grow(int[] a, int n, int capacity) {
        int[] b = ints(capacity);
        System.arraycopy(a, 0, b, 0, n);
        recycle(a);
        return b;
    }

    /** Takes back an array nothing reads any more: scratch, or an array of a retired batch. */
    void recycle(long[] a) {
        keep(longs, a, a.length, 8);
    }

    /** As {@link #recycle(long[])}, for ints. */
    void recycle(int[] a) {
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
