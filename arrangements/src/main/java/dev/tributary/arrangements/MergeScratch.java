package dev.tributary.arrangements;

import java.lang.ref.SoftReference;
import java.util.Arrays;

/**
 * The arrays of merges and merged batches on one thread, reused from one merge to the next.
 *
 * <p>A merge does not know how many updates survive consolidation until it ends, so it writes into
 * arrays of the size it expects (at most its worst case, no consolidation), {@linkplain
 * #grow(long[], int, int) growing} them if that was too little. Taking them from here and
 * {@linkplain #finish(long[], int) finishing} them at the end means: an array that came out
 * nearly full (within {@link #slack}) becomes the batch's own; one that came out shorter is
 * copied once into a pooled array that fits as well and goes back to the pool for the next merge,
 * as does an array left behind by growing; with no such array in the pool it stays the batch's
 * own, room and all, if at most twice as long as needed, and is copied into a new one of the
 * {@link #ladder}'s length only if longer. When a
 * later merge retires a batch that nobody outside its trace can hold, its arrays come back here
 * ({@link #recycle(long[])}, called by {@link Batch#recycle()}). So in a steady state a merge
 * allocates nothing: it writes into the arrays of the batches merged before it.
 *
 * <p>Invariant: no array in the pool is part of a live batch: it came from a merge's scratch or
 * from a batch retired and never shared, which nothing reads any more, so batches stay immutable
 * for as long as anyone can read them. The pool hands out the smallest array large enough (for
 * scratch, at most twice as long; for a batch's own, within the slack), and
 * keeps at most {@link #capacityBytes} bytes of arrays below {@link #SOFT_BYTES} and
 * {@link #softCapacityBytes} of larger ones, held softly (to make room it drops the arrays
 * that came in longest ago). It keeps them in buckets by length class, so that finding one
 * looks at a few arrays however many it holds (a linear search of thousands of pooled arrays
 * was a tenth of a 10^7-key count's time). A pool belongs to one thread (traces are used from their worker's thread
 * only).
 */
final class MergeScratch {
    /**
     * A sixteenth of the heap per thread for arrays below {@link #SOFT_BYTES}, and a quarter for
     * larger ones, which the pool holds {@linkplain SoftReference softly}. The 256 MB cap the pool
     * once had made the merges of a trace of a million keys allocate their arrays again each time
     * (arrange 14 B per update, join 23 B, against 7 and 10 B without it); a sixteenth of a 12 GB
     * heap did the same at 10^7 keys, where the batches a top-level merge retires are more than
     * that and are what the next merges at the levels below need. Held softly, they cost no
     * memory the program needs: the collector clears them before it would run out.
     */
    private static final ThreadLocal<MergeScratch> OF_THREAD = ThreadLocal.withInitial(
            () -> new MergeScratch(Runtime.getRuntime().maxMemory() / 16, Runtime.getRuntime().maxMemory() / 4));
    /** Arrays this short are cheap to allocate; pooling them would only cost searches. */
    private static final int MIN_POOLED = 32;
    /** Arrays of at least this many bytes are held softly. */
    static final long SOFT_BYTES = 4L << 20;

    /** The thread whose pool this is: only it may take or give arrays. */
    final Thread owner = Thread.currentThread();
    private final long capacityBytes;
    private final long softCapacityBytes;
    /** Pooled arrays by kind and tier: longs and ints, held strongly (below {@link #SOFT_BYTES}) or softly. */
    private final Shelf longs = new Shelf();
    private final Shelf ints = new Shelf();
    private final Shelf softLongs = new Shelf();
    private final Shelf softInts = new Shelf();
    private long bytes;
    /** Bytes of the arrays held softly, counting those the collector may have cleared since. */
    private long softBytes;
    /** Stamps arrays as they come in, so that the oldest can be dropped first. */
    private long clock;

    /** Buckets per shelf: eight per doubling (the {@link #ladder}'s classes) up to {@code 2^31}. */
    private static final int CLASSES = (31 - 5) * 8;

    /**
     * The bucket of an array of {@code length >= MIN_POOLED} elements: the ladder class whose
     * lowest length is the greatest at most {@code length}. Every array in a bucket is shorter
     * than every array in the next, so the first bucket from {@code classOf(n)} on holding an
     * array of at least {@code n} holds the shortest such.
     */
    static int classOf(int length) {
        int e = 31 - Integer.numberOfLeadingZeros(length);
        return (e - 5) * 8 + (length >>> (e - 3) & 7);
    }

    /** Pooled arrays of one kind and tier, in buckets by length class, each oldest first. */
    private static final class Shelf {
        private final Bucket[] buckets = new Bucket[CLASSES];

        Bucket bucket(int c) {
            Bucket b = buckets[c];
            if (b == null) buckets[c] = b = new Bucket();
            return b;
        }

        /** The non-empty bucket whose oldest entry is oldest, or null. */
        Bucket oldest() {
            Bucket best = null;
            for (Bucket b : buckets) {
                if (b != null && b.size > 0 && (best == null || b.seqs[0] < best.seqs[0])) best = b;
            }
            return best;
        }
    }

    /** Arrays (or {@link SoftReference}s to them) of one length class, with their lengths and arrival stamps, oldest first. */
    private static final class Bucket {
        Object[] items = new Object[4];
        int[] lengths = new int[4];
        long[] seqs = new long[4];
        int size;

        void add(Object item, int length, long seq) {
            if (size == items.length) {
                items = Arrays.copyOf(items, size * 2);
                lengths = Arrays.copyOf(lengths, size * 2);
                seqs = Arrays.copyOf(seqs, size * 2);
            }
            items[size] = item;
            lengths[size] = length;
            seqs[size] = seq;
            size++;
        }

        Object removeAt(int i) {
            Object item = items[i];
            int tail = size - i - 1;
            System.arraycopy(items, i + 1, items, i, tail);
            System.arraycopy(lengths, i + 1, lengths, i, tail);
            System.arraycopy(seqs, i + 1, seqs, i, tail);
            items[--size] = null;
            return item;
        }
    }

    MergeScratch(long capacityBytes) {
        this(capacityBytes, capacityBytes);
    }

    MergeScratch(long capacityBytes, long softCapacityBytes) {
        this.capacityBytes = capacityBytes;
        this.softCapacityBytes = softCapacityBytes;
    }

    /** Clears every softly held array, as the collector does when it needs the memory (for tests). */
    void clearSoftlyHeld() {
        for (Shelf shelf : new Shelf[] {softLongs, softInts}) {
            for (Bucket b : shelf.buckets) {
                for (int i = 0; b != null && i < b.size; i++) ((SoftReference<?>) b.items[i]).clear();
            }
        }
    }

    /** The calling thread's pool. */
    static MergeScratch ofThread() {
        return OF_THREAD.get();
    }

    /** Bytes held for reuse (the soft ones as if none had been cleared). */
    long pooledBytes() {
        return bytes + softBytes;
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
        long[] a = (long[]) take(longs, softLongs, n, scratchMax(n), 8);
        return a != null ? a : new long[roomy ? ladder(n + (n >>> 3)) : n];
    }

    /** An array of at least {@code n} ints, contents unspecified. */
    int[] ints(int n) {
        return ints(n, false);
    }

    /** As {@link #longs(int, boolean)}, for ints. */
    int[] ints(int n, boolean roomy) {
        int[] a = (int[]) take(ints, softInts, n, scratchMax(n), 4);
        return a != null ? a : new int[roomy ? ladder(n + (n >>> 3)) : n];
    }

    /**
     * An array of {@code n} to {@code n + slack(n)} longs, contents unspecified: to be a batch's
     * own. One that must be made has the {@linkplain #ladder ladder's} length for {@code n},
     * within the slack: the batches that later take it from the pool may be a little larger or
     * smaller than this one.
     */
    long[] longsFitting(int n) {
        long[] a = pooledLongsFitting(n);
        return a != null ? a : new long[ladder(n)];
    }

    /** As {@link #longsFitting}, for ints. */
    int[] intsFitting(int n) {
        int[] a = pooledIntsFitting(n);
        return a != null ? a : new int[ladder(n)];
    }

    /** A pooled array of {@code n} to {@code n + slack(n)} longs, or null if the pool has none. */
    private long[] pooledLongsFitting(int n) {
        return (long[]) take(longs, softLongs, n, n + slack(n), 8);
    }

    /** As {@link #pooledLongsFitting}, for ints. */
    private int[] pooledIntsFitting(int n) {
        return (int[]) take(ints, softInts, n, n + slack(n), 4);
    }

    /**
     * The length an array made for {@code n} elements gets: {@code n} rounded up to a multiple of
     * an eighth of the largest power of two not above it, so eight lengths per doubling, each
     * less than an eighth above what it was made for (within {@link #slack}). Arrays made for
     * batches of similar sizes (one level's merges, whose results drift by a few percent from one
     * merge to the next) then come out the same length and serve each other's batches, where
     * lengths proportional to each request rarely matched a later one closely enough.
     */
    static int ladder(int n) {
        if (n < MIN_POOLED) return n;
        int step = Integer.highestOneBit(n) >>> 3;
        long length = ((long) n + step - 1) / step * step;
        return length > Integer.MAX_VALUE - 16 ? n : (int) length;
    }

    /**
     * The longest pooled array scratch for {@code n} elements may take: twice as long. A small
     * merge that took the smallest array at least as long as it needs took a large merge's (the
     * pool's only arrays at times) and held it for as long as it ran, so that the large merge it
     * was returned for found nothing, and the small merge's own result, copied out at its size,
     * found nothing either: at 10^7 keys most merge results were new arrays. Half again as long
     * was too tight the other way: a trace's top merge guesses its output from what the last one
     * kept, and the last one's scratch, made for a guess from the level's first merge (which
     * keeps everything), was often more than half again as long as the next guess.
     */
    private static int scratchMax(int n) {
        return n > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : 2 * n;
    }

    /** Removes and returns the shortest array of at least {@code n} and at most {@code max} elements, held strongly or softly, or null. */
    private Object take(Shelf strong, Shelf soft, int n, int max, int elementBytes) {
        if (n < MIN_POOLED) return null;
        boolean large = (long) elementBytes * max >= SOFT_BYTES;
        for (int c = classOf(n), last = classOf(max); c <= last; c++) {
            Bucket sb = strong.buckets[c];
            Bucket hb = large ? soft.buckets[c] : null;
            int si = shortest(sb, n, max);
            int hi = shortest(hb, n, max);
            if (hi >= 0 && (si < 0 || hb.lengths[hi] < sb.lengths[si])) {
                softBytes -= (long) elementBytes * hb.lengths[hi];
                Object a = ((SoftReference<?>) hb.removeAt(hi)).get();
                // cleared by the collector (it needed the memory): look again
                return a != null ? a : take(strong, soft, n, max, elementBytes);
            }
            if (si >= 0) {
                bytes -= (long) elementBytes * sb.lengths[si];
                return sb.removeAt(si);
            }
        }
        return null;
    }

    /** The index of the shortest entry of {@code b} of {@code n} to {@code max} elements, or -1. */
    private static int shortest(Bucket b, int n, int max) {
        if (b == null) return -1;
        int best = -1;
        for (int i = 0; i < b.size; i++) {
            int length = b.lengths[i];
            if (length >= n && length <= max && (best < 0 || length < b.lengths[best])) best = i;
        }
        return best;
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
     * if it is within {@link #slack} of full; else a copy in a pooled array that is, {@code a}
     * going back to the pool; else {@code a} itself if it is at most twice as long as needed
     * ({@link #keepsLonger}); else a copy in a new one (see {@link #longsFitting}).
     */
    long[] finish(long[] a, int n) {
        if (a.length - n <= slack(n)) return a;
        long[] out = pooledLongsFitting(n);
        if (out == null) {
            if (keepsLonger(a.length, n)) return a;
            out = new long[ladder(n)];
        }
        System.arraycopy(a, 0, out, 0, n);
        recycle(a);
        return out;
    }

    /** As {@link #finish(long[], int)}, for ints. */
    int[] finish(int[] a, int n) {
        if (a.length - n <= slack(n)) return a;
        int[] out = pooledIntsFitting(n);
        if (out == null) {
            if (keepsLonger(a.length, n)) return a;
            out = new int[ladder(n)];
        }
        System.arraycopy(a, 0, out, 0, n);
        recycle(a);
        return out;
    }

    /**
     * Whether a merge's scratch of {@code length} holding {@code n} values becomes the batch's
     * own, room and all, when no pooled array fits: a merge whose trace cancels (a count's output,
     * retractions meeting their insertions) comes out shorter than its scratch by more than the
     * slack, and a new array of the right size for each such result was most of what a 10^7-key
     * count allocated. Up to twice the length needed, as scratch is: the room goes back to the pool
     * with the batch when a later merge retires it.
     */
    private static boolean keepsLonger(int length, int n) {
        return length <= 2L * n + 32;
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
        keep(longs, softLongs, a, a.length, 8);
    }

    /** As {@link #recycle(long[])}, for ints. */
    void recycle(int[] a) {
        keep(ints, softInts, a, a.length, 4);
    }

    private void keep(Shelf strong, Shelf soft, Object a, int length, int elementBytes) {
        long size = (long) elementBytes * length;
        if (length < MIN_POOLED) return;
        if (size >= SOFT_BYTES) {
            if (size > softCapacityBytes) return;
            while (softBytes + size > softCapacityBytes) softBytes -= drop(softLongs, softInts);
            soft.bucket(classOf(length)).add(new SoftReference<>(a), length, clock++);
            softBytes += size;
            return;
        }
        if (size > capacityBytes) return;
        while (bytes + size > capacityBytes) bytes -= drop(longs, ints);
        strong.bucket(classOf(length)).add(a, length, clock++);
        bytes += size;
    }

    /** Drops the array that came in longest ago of either shelf, and returns its bytes. */
    private static long drop(Shelf longShelf, Shelf intShelf) {
        Bucket l = longShelf.oldest();
        Bucket i = intShelf.oldest();
        if (l != null && (i == null || l.seqs[0] < i.seqs[0])) {
            long size = 8L * l.lengths[0];
            l.removeAt(0);
            return size;
        }
        long size = 4L * i.lengths[0];
        i.removeAt(0);
        return size;
    }
}
