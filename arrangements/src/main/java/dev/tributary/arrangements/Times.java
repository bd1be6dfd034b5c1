package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;

/**
 * Operations on times stored flat in {@code long[]} columns with a stride of {@code arity}: the
 * product partial order, lexicographic comparison for sorting, and advancing a time by a frontier
 * (logical compaction).
 */
public final class Times {
    private Times() {}

    static int compare(long[] a, int ai, long[] b, int bi, int arity) {
        for (int k = 0; k < arity; k++) {
            int c = Long.compare(a[ai + k], b[bi + k]);
            if (c != 0) return c;
        }
        return 0;
    }

    static boolean equal(long[] a, int ai, long[] b, int bi, int arity) {
        for (int k = 0; k < arity; k++) {
            if (a[ai + k] != b[bi + k]) return false;
        }
        return true;
    }

    static boolean lessEqual(long[] a, int ai, long[] b, int bi, int arity) {
        for (int k = 0; k < arity; k++) {
            if (a[ai + k] > b[bi + k]) return false;
        }
        return true;
    }

    /** Whether the time at {@code t[off..]} is {@code >=} some element of {@code frontier}. */
    static boolean beyond(Antichain frontier, long[] t, int off) {
        int arity = frontier.arity();
        for (int e = 0; e < frontier.size(); e++) {
            if (lessEqual(frontier.get(e), 0, t, off, arity)) return true;
        }
        return false;
    }

    /**
     * Replaces the time at {@code t[off..]} by the least time that compares to every time
     * {@code >= since} as the original did: the meet over {@code f} in {@code since} of
     * {@code t join f}. An empty frontier leaves the time as it is. {@code scratch} has room for a
     * time (a shard's compaction advances its updates with it).
     */
    public static void advance(long[] t, int off, Antichain since, long[] scratch) {
        int n = since.size();
        if (n == 0) return;
        int arity = since.arity();
        if (n == 1) {
            long[] f = since.get(0);
            for (int k = 0; k < arity; k++) t[off + k] = Math.max(t[off + k], f[k]);
            return;
        }
        for (int k = 0; k < arity; k++) scratch[k] = Long.MAX_VALUE;
        for (int e = 0; e < n; e++) {
            long[] f = since.get(e);
            for (int k = 0; k < arity; k++) scratch[k] = Math.min(scratch[k], Math.max(t[off + k], f[k]));
        }
        System.arraycopy(scratch, 0, t, off, arity);
    }
}
