package dev.tributary.arrangements;

import java.util.ArrayList;

/**
 * Output arrays for merges on one thread, reused from one merge to the next.
 *
 * <p>A merge does not know how many updates survive consolidation until it ends, so it writes into
 * arrays of its worst-case size. Taking them from here and {@linkplain #finish(long[], int) finishing}
 * them at the end means: an array that came out exactly full becomes the batch's own (it leaves the
 * pool for good); one that came out shorter is copied once to its exact size and goes back to the
 * pool for the next merge. So a merge allocates only its batch's final arrays, where it used to
 * allocate the worst case and then a trimmed copy of it.
 *
 * <p>Invariant: no array in the pool is, or ever was, part of a batch; batches stay immutable no
 * matter how often the pool is reused. The pool keeps at most {@link #capacityBytes} bytes (to
 * make room it drops the oldest arrays of the kind it holds more of) and hands out an array only if it is at most half
 * again as long as asked, so a small merge does not pin a large array. A pool belongs to one
 * thread (traces are used from their worker's thread only).
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
        if (n >= MIN_POOLED) {
            int best = -1;
            for (int i = 0; i < longs.size(); i++) {
                int len = longs.get(i).length;
                if (len >= n && len - n <= n / 2 && (best < 0 || len < longs.get(best).length)) best = i;
            }
            if (best >= 0) {
                long[] a = longs.remove(best);
                bytes -= 8L * a.length;
                return a;
            }
        }
        return new long[n];
    }

    /** An array of at least {@code n} ints, contents unspecified. */
    int[] ints(int n) {
        if (n >= MIN_POOLED) {
            int best = -1;
            for (int i = 0; i < ints.size(); i++) {
                int len = ints.get(i).length;
                if (len >= n && len - n <= n / 2 && (best < 0 || len < ints.get(best).length)) best = i;
            }
            if (best >= 0) {
                int[] a = ints.remove(best);
                bytes -= 4L * a.length;
                return a;
            }
        }
        return new int[n];
    }

    /** The first {@code n} values of {@code a} as an array of their own: {@code a} itself if it holds exactly that. */
    long[] finish(long[] a, int n) {
        if (a.length == n) return a;
        long[] out = java.util.Arrays.copyOf(a, n);
        if (a.length >= MIN_POOLED && 8L * a.length <= capacityBytes) {
            makeRoom(8L * a.length);
            longs.add(a);
            bytes += 8L * a.length;
        }
        return out;
    }

    /** The first {@code n} values of {@code a} as an array of their own: {@code a} itself if it holds exactly that. */
    int[] finish(int[] a, int n) {
        if (a.length == n) return a;
        int[] out = java.util.Arrays.copyOf(a, n);
        if (a.length >= MIN_POOLED && 4L * a.length <= capacityBytes) {
            makeRoom(4L * a.length);
            ints.add(a);
            bytes += 4L * a.length;
        }
        return out;
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
