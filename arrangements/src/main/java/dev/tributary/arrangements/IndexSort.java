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

    /** Lets go of scratch larger than {@code keep} entries (sized for an earlier, larger sort). */
    void releaseScratch(long keep) {
        if (scratch.length > keep) scratch = new int[16];
    }

    void sort(int[] idx, int n, Order order) {
        final int run = 16;
        for (int lo = 0; lo < n; lo += run) {
            int hi = Math.min(n, lo + run);
            for (int i = lo + 1; i < hi; i++) {
                int v = idx[i];
                int j = i - 1;
                while (j >= lo && order.compare(idx[j], v) > 0) {
                    idx[j + 1] = idx[j];
                    j--;
                }
                idx[j + 1] = v;
            }
        }
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
