package dev.tributary.arrangements;

/**
 * Sorts an {@code int[]} of record indexes by an order on the records, without boxing: a
 * bottom-up merge sort with insertion-sorted runs, reusing a scratch array.
 */
final class IndexSort {
    @FunctionalInterface
    interface Order {
        int compare(int a, int b);
    }

    private int[] scratch = new int[16];
    private int[] range = new int[16];

    /** Sorts {@code idx[from, to)}: in place for a few entries, through a copy for more. */
    void sort(int[] idx, int from, int to, Order order) {
        int n = to - from;
        if (n <= 16) {
            insertionSort(idx, from, to, order);
            return;
        }
        if (range.length < n) range = new int[Math.max(n, range.length * 2)];
        System.arraycopy(idx, from, range, 0, n);
        sort(range, n, order);
        System.arraycopy(range, 0, idx, from, n);
    }

    private static void insertionSort(int[] idx, int from, int to, Order order) {
        for (int i = from + 1; i < to; i++) {
            int v = idx[i];
            int j = i - 1;
            while (j >= from && order.compare(idx[j], v) > 0) {
                idx[j + 1] = idx[j];
                j--;
            }
            idx[j + 1] = v;
        }
    }

    /** Lets go of scratch larger than {@code keep} entries (sized for an earlier, larger sort). */
    void releaseScratch(long keep) {
        if (scratch.length > keep) scratch = new int[16];
        if (range.length > keep) range = new int[16];
    }

    void sort(int[] idx, int n, Order order) {
        final int run = 16;
        for (int lo = 0; lo < n; lo += run) insertionSort(idx, lo, Math.min(n, lo + run), order);
        if (n <= run) return;
        if (scratch.length < n) scratch = new int[Math.max(n, scratch.length * 2)];
        int[] src = idx;
        int[] dst = scratch;
        for (int width = run; width < n; width <<= 1) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(n, lo + width);
                int hi = Math.min(n, lo + 2 * width);
                int i = lo;
                int j = mid;
                int k = lo;
                if (mid >= hi || order.compare(src[mid - 1], src[mid]) <= 0) {
                    System.arraycopy(src, lo, dst, lo, hi - lo);
                    continue;
                }
                while (i < mid && j < hi) dst[k++] = order.compare(src[i], src[j]) <= 0 ? src[i++] : src[j++];
                while (i < mid) dst[k++] = src[i++];
                while (j < hi) dst[k++] = src[j++];
            }
            int[] t = src;
            src = dst;
            dst = t;
        }
        if (src != idx) System.arraycopy(src, 0, idx, 0, n);
    }
}
