package dev.tributary.arrangements;

/**
 * Merging the time runs of one {@code (key, val)} when times are totally ordered (arity 1).
 *
 * <p>Advancing by a one-element since ({@code max(t, floor)}) is monotone, so two runs sorted by
 * time stay sorted after advancing and equal times stay adjacent: one pass merges, advances and
 * consolidates them, dropping sums of zero.
 */
final class TotalRuns {
    private TotalRuns() {}

    /**
     * Writes the merge of {@code (t1, d1)[i, ie)} and {@code (t2, d2)[j, je)} (either may be
     * empty, and {@code t2} {@code null} when it is) to {@code outT}/{@code outD} from {@code pos},
     * which must have room for both runs; returns the end of what was written.
     */
    static int merge(long[] t1, long[] d1, int i, int ie, long[] t2, long[] d2, int j, int je, long floor, long[] outT, long[] outD, int pos) {
        boolean have = false;
        long time = 0;
        long diff = 0;
        while (i < ie || j < je) {
            long t;
            long d;
            if (j >= je || (i < ie && t1[i] <= t2[j])) {
                t = t1[i];
                d = d1[i++];
            } else {
                t = t2[j];
                d = d2[j++];
            }
            if (t < floor) t = floor;
            if (have && t == time) {
                diff += d;
            } else {
                if (have && diff != 0) {
                    outT[pos] = time;
                    outD[pos++] = diff;
                }
                time = t;
                diff = d;
                have = true;
            }
        }
        if (have && diff != 0) {
            outT[pos] = time;
            outD[pos++] = diff;
        }
        return pos;
    }
}
