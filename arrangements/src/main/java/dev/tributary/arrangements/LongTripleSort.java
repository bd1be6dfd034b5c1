package dev.tributary.arrangements;

/**
 * Sorts record indexes by {@code (key, val, time)} when all three are primitive longs (arity-1
 * times): the common case of arranging numeric data, with comparisons read straight from the
 * arrays instead of through columns. Quicksort with median-of-three pivots and insertion sort
 * for short ranges. An instance keeps its scratch array; each batcher owns one (not thread-safe).
 */
final class LongTripleSort {
    private long[] packed = new long[0];

    void sort(int[] idx, int n, long[] k, long[] v, long[] t) {
        if (n > 64 && sortPacked(idx, n, k, v, t)) return;
        sort(idx, 0, n - 1, k, v, t);
    }

    /**
     * When the keys span a small enough range, sorts {@code (key - min) << bits | index} as plain
     * longs (sequential, no indirection per comparison), with the value packed between key and
     * index when its range fits too; then orders each run of equal keys (or equal key and value)
     * by the rest. Returns false, having done nothing, when the keys do not fit.
     */
    private boolean sortPacked(int[] idx, int n, long[] k, long[] v, long[] t) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long vmin = Long.MAX_VALUE;
        long vmax = Long.MIN_VALUE;
        int maxIndex = 0;
        for (int i = 0; i < n; i++) {
            int x = idx[i];
            long key = k[x];
            if (key < min) min = key;
            if (key > max) max = key;
            long val = v[x];
            if (val < vmin) vmin = val;
            if (val > vmax) vmax = val;
            if (x > maxIndex) maxIndex = x;
        }
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(maxIndex, 1));
        long range = max - min;
        if (range < 0 || (bits < 63 && (range >>> (63 - bits)) != 0)) return false;
        int keyBits = 64 - Long.numberOfLeadingZeros(range);
        long vrange = vmax - vmin;
        int valBits = vrange < 0 ? 64 : 64 - Long.numberOfLeadingZeros(vrange);
        boolean withVals = keyBits + valBits + bits <= 63;
        int low = withVals ? bits + valBits : bits;
        long[] p = packed.length >= n ? packed : (packed = new long[Math.max(n, packed.length * 2)]);
        if (withVals) {
            for (int i = 0; i < n; i++) {
                int x = idx[i];
                p[i] = ((k[x] - min) << low) | ((v[x] - vmin) << bits) | x;
            }
        } else {
            for (int i = 0; i < n; i++) p[i] = ((k[idx[i]] - min) << bits) | idx[i];
        }
        sortLongs(p, n);
        long mask = (1L << bits) - 1;
        for (int i = 0; i < n; i++) idx[i] = (int) (p[i] & mask);
        // runs equal in what was packed are ordered by the rest
        int start = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || (p[i] >>> bits) != (p[start] >>> bits)) {
                if (i - start > 1) sort(idx, start, i - 1, k, v, t);
                start = i;
            }
        }
        return true;
    }

    private static int cmp(int a, int b, long[] k, long[] v, long[] t) {
        int c = Long.compare(k[a], k[b]);
        if (c != 0) return c;
        c = Long.compare(v[a], v[b]);
        if (c != 0) return c;
        return Long.compare(t[a], t[b]);
    }

    private static void sort(int[] idx, int lo, int hi, long[] k, long[] v, long[] t) {
        while (hi - lo > 24) {
            int mid = (lo + hi) >>> 1;
            if (cmp(idx[mid], idx[lo], k, v, t) < 0) swap(idx, mid, lo);
            if (cmp(idx[hi], idx[lo], k, v, t) < 0) swap(idx, hi, lo);
            if (cmp(idx[hi], idx[mid], k, v, t) < 0) swap(idx, hi, mid);
            int pivot = idx[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (cmp(idx[i], pivot, k, v, t) < 0) i++;
                while (cmp(idx[j], pivot, k, v, t) > 0) j--;
                if (i <= j) {
                    swap(idx, i, j);
                    i++;
                    j--;
                }
            }
            // recurse into the smaller side, loop on the larger: stack depth stays logarithmic
            if (j - lo < hi - i) {
                sort(idx, lo, j, k, v, t);
                lo = i;
            } else {
                sort(idx, i, hi, k, v, t);
                hi = j;
            }
        }
        for (int a = lo + 1; a <= hi; a++) {
            int x = idx[a];
            int b = a - 1;
            while (b >= lo && cmp(idx[b], x, k, v, t) > 0) {
                idx[b + 1] = idx[b];
                b--;
            }
            idx[b + 1] = x;
        }
    }

    private static void swap(int[] a, int i, int j) {
        int x = a[i];
        a[i] = a[j];
        a[j] = x;
    }

    /**
     * Sorts {@code p[0, n)}. A nearly sorted array (a reduce's output comes in key order, out of
     * order only within a key) is sorted by insertion, within a budget of moves, then by
     * {@code Arrays.sort} if that ran out; any other goes to {@code Arrays.sort} at once. For an
     * array of long sorted runs {@code Arrays.sort} merges them in arrays it allocates, about
     * 1.3 B per update of a count at 10^4 keys.
     */
    static void sortLongs(long[] p, int n) {
        int descents = 0;
        for (int i = 1; i < n; i++) {
            if (p[i] < p[i - 1]) descents++;
        }
        if (descents == 0) return;
        // random order has a descent at every other element; a reduce's output (old and new value per key) at one in four
        if (descents > n / 3) {
            java.util.Arrays.sort(p, 0, n);
            return;
        }
        long budget = 8L * n;
        for (int i = 1; i < n; i++) {
            long x = p[i];
            int j = i - 1;
            if (p[j] <= x) continue;
            while (j >= 0 && p[j] > x) {
                p[j + 1] = p[j];
                j--;
                budget--;
            }
            p[j + 1] = x;
            if (budget < 0) {
                // far from sorted after all (still a permutation of the input): sort what is left
                java.util.Arrays.sort(p, 0, n);
                return;
            }
        }
    }
}
