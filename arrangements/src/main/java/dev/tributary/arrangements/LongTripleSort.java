package dev.tributary.arrangements;

/**
 * Sorts record indexes by {@code (key, val, time)} when all three are primitive longs (arity-1
 * times): the common case of arranging numeric data, with comparisons read straight from the
 * arrays instead of through columns. Quicksort with median-of-three pivots and insertion sort
 * for short ranges.
 */
final class LongTripleSort {
    private LongTripleSort() {}

    static void sort(int[] idx, int n, long[] k, long[] v, long[] t) {
        sort(idx, 0, n - 1, k, v, t);
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
}
