package dev.tributary.arrangements;

/**
 * Sorts record indexes by their keys' first 16 bytes (two unsigned 64-bit prefixes), then by a
 * full order among records whose prefixes tie. The prefixes are copied into an array beside the
 * indexes and sorted with them, so that a comparison reads two adjacent arrays rather than two
 * records somewhere in a buffer of a million: an index sort through a comparator missed the cache
 * on nearly every comparison, and sorting a view's build of a million random rows by key took
 * most of the build. Ties (equal prefixes: one key's values, or keys longer than 16 bytes that
 * start alike) are usually short runs, ordered in place by the full order. An instance keeps its
 * scratch; each batcher owns one (not thread-safe).
 */
final class PrefixSort {
    private long[] prefixes = new long[0];
    private final IndexSort runSort = new IndexSort();

    /**
     * Sorts the first {@code n} entries of {@code idx} by {@code hi[x]}, then {@code lo[x]} (both
     * unsigned), then {@code order}, which must agree with that prefix order (it decides only
     * among records whose prefixes tie).
     */
    void sort(int[] idx, int n, long[] hi, long[] lo, IndexSort.Order order) {
        sort(idx, n, hi, lo, null, null, false, order);
    }

    /**
     * {@link #sort(int[], int, long[], long[], IndexSort.Order)}, and, when {@code keys} and
     * {@code vals} are given, the runs that tie on 16 bytes by the keys' next 8 bytes, and so on
     * (keys that start alike: a group of a region and a product name), and where a run holds one
     * key, by its values' first 16 bytes (a join's rows by their join key): records are ordered
     * mostly without reading them. {@code whole}: the prefixes are known to be the whole keys
     * (equal prefixes, one key), so no run's keys are looked at for that.
     */
    void sort(int[] idx, int n, long[] hi, long[] lo, BytesColumn keys, BytesColumn vals, boolean whole, IndexSort.Order order) {
        if (prefixes.length < n) prefixes = new long[Math.max(n, prefixes.length * 2)];
        wholeKeys = whole;
        sortLevel(idx, 0, n, true, 0, hi, lo, keys, vals, order);
    }

    /** Whether the sort under way has prefixes that are the whole keys. */
    private boolean wholeKeys;

    /** Key bytes past this many are left to the full order: a run of long keys alike that far is rare. */
    private static final int KEY_BYTES = 64;

    /**
     * Sorts {@code idx[from, to)}, whose records tie on every byte before {@code offset} of their
     * keys ({@code onKeys}) or on their keys and the bytes before {@code offset} of their values,
     * by the 8 bytes there, then the runs that tie there by the next 8 or, where none is left to
     * look at, by {@code order}. The keys' first 16 bytes come from {@code hi} and {@code lo}.
     */
    private void sortLevel(int[] idx, int from, int to, boolean onKeys, int offset, long[] hi, long[] lo, BytesColumn keys, BytesColumn vals,
                           IndexSort.Order order) {
        long[] p = prefixes;
        // flipping the sign bit makes the signed order of a long its unsigned order
        for (int k = from; k < to; k++) {
            int x = idx[k];
            long prefix = !onKeys ? vals.prefix(x, offset) : offset == 0 ? hi[x] : offset == 8 ? lo[x] : keys.prefix(x, offset);
            p[k] = prefix ^ Long.MIN_VALUE;
        }
        // records that come in order (a reduce's output, key by key) need only this look
        if (!ascending(p, from, to)) sortPairs(p, idx, from, to - 1);
        for (int i = from; i < to; ) {
            int j = i + 1;
            while (j < to && p[j] == p[i]) j++;
            if (j - i > 1) {
                int next = offset + 8;
                if (!onKeys) {
                    if (next < 16) sortLevel(idx, i, j, false, next, hi, lo, keys, vals, order);
                    else runSort.sort(idx, i, j, order);
                } else if (offset == 0 || keys != null && !wholeKeys && next < KEY_BYTES && longer(idx, i, j, keys, next)) {
                    sortLevel(idx, i, j, true, next, hi, lo, keys, vals, order);
                } else if (vals != null && (wholeKeys || oneKey(idx, i, j, keys, next))) {
                    sortLevel(idx, i, j, false, 0, hi, lo, keys, vals, order);
                } else {
                    runSort.sort(idx, i, j, order);
                }
            }
            i = j;
        }
    }

    /** Whether a key of {@code idx[from, to)} is longer than {@code bytes}. */
    private static boolean longer(int[] idx, int from, int to, BytesColumn keys, int bytes) {
        for (int k = from; k < to; k++) if (keys.length(idx[k]) > bytes) return true;
        return false;
    }

    /** Whether {@code p[from, to)} is in ascending order already. */
    private static boolean ascending(long[] p, int from, int to) {
        for (int k = from + 1; k < to; k++) if (p[k] < p[k - 1]) return false;
        return true;
    }

    /** The heap bytes of its scratch. */
    long heapBytes() {
        return 8L * prefixes.length;
    }

    /** Lets go of scratch larger than {@code keep} entries. */
    void releaseScratch(long keep) {
        if (prefixes.length > keep) prefixes = new long[0];
        runSort.releaseScratch(keep);
    }

    /** Whether the records {@code idx[from, to)}, whose keys tie on their first {@code bytes} bytes, have one key: all of one length, at most that. */
    private static boolean oneKey(int[] idx, int from, int to, BytesColumn keys, int bytes) {
        int length = keys.length(idx[from]);
        if (length > bytes) return false;
        for (int k = from + 1; k < to; k++) if (keys.length(idx[k]) != length) return false;
        return true;
    }

    /**
     * Sorts {@code keys[lo..hi]} ascending, moving {@code payload} alongside: a quicksort with
     * three-way partitioning (a key repeated many times, one group's rows, is one partition, not
     * a quadratic case), insertion sort below 24 entries.
     */
    private static void sortPairs(long[] keys, int[] payload, int lo, int hi) {
        while (hi - lo >= 24) {
            int mid = (lo + hi) >>> 1;
            long pivot = median(keys[lo], keys[mid], keys[hi]);
            // keys[lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot
            int lt = lo;
            int gt = hi;
            int i = lo;
            while (i <= gt) {
                long k = keys[i];
                if (k < pivot) swap(keys, payload, lt++, i++);
                else if (k > pivot) swap(keys, payload, i, gt--);
                else i++;
            }
            // recurse into the smaller side, loop on the larger: stack depth stays logarithmic
            if (lt - lo < hi - gt) {
                sortPairs(keys, payload, lo, lt - 1);
                lo = gt + 1;
            } else {
                sortPairs(keys, payload, gt + 1, hi);
                hi = lt - 1;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            long k = keys[i];
            int v = payload[i];
            int j = i - 1;
            while (j >= lo && keys[j] > k) {
                keys[j + 1] = keys[j];
                payload[j + 1] = payload[j];
                j--;
            }
            keys[j + 1] = k;
            payload[j + 1] = v;
        }
    }

    private static long median(long a, long b, long c) {
        return a < b ? (b < c ? b : Math.max(a, c)) : (a < c ? a : Math.max(b, c));
    }

    private static void swap(long[] keys, int[] payload, int i, int j) {
        long k = keys[i];
        keys[i] = keys[j];
        keys[j] = k;
        int v = payload[i];
        payload[i] = payload[j];
        payload[j] = v;
    }
}
