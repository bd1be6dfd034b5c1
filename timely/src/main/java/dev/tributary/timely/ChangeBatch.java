package dev.tributary.timely;

import java.util.Arrays;

/**
 * Pending changes to pointstamp counts {@code (location, time, delta)}, accumulated by a worker
 * during a step and then shared with every worker.
 *
 * <p>A message that is produced and consumed in one step adds {@code +1} and {@code -1} at the
 * same pointstamp; {@link #compact()} cancels them so only net changes travel. Recent entries are
 * searched on insert because consecutive updates usually hit the same pointstamp; the rest is
 * merged by sorting when the batch is compacted.
 */
final class ChangeBatch {
    private static final int RECENT = 8;
    int[] locations = new int[16];
    long[][] times = new long[16][];
    long[] deltas = new long[16];
    int size;
    // reused by compact(): a permutation, merge scratch, and the merged columns
    private int[] order = new int[16];
    private int[] scratch = new int[16];
    private int[] sortedLocations = new int[16];
    private long[][] sortedTimes = new long[16][];
    private long[] sortedDeltas = new long[16];

    private int compareEntries(int a, int b) {
        int c = Integer.compare(locations[a], locations[b]);
        return c != 0 ? c : Timestamps.compare(times[a], times[b]);
    }

    /** Merge sort of {@code order[from, to)} by (location, time), without boxing. */
    private void sortOrder(int from, int to) {
        if (to - from <= 8) {
            for (int i = from + 1; i < to; i++) {
                int v = order[i];
                int j = i - 1;
                while (j >= from && compareEntries(order[j], v) > 0) {
                    order[j + 1] = order[j];
                    j--;
                }
                order[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        sortOrder(from, mid);
        sortOrder(mid, to);
        int i = from;
        int j = mid;
        int k = from;
        while (i < mid && j < to) scratch[k++] = compareEntries(order[i], order[j]) <= 0 ? order[i++] : order[j++];
        while (i < mid) scratch[k++] = order[i++];
        while (j < to) scratch[k++] = order[j++];
        System.arraycopy(scratch, from, order, from, to - from);
    }

    void update(int location, long[] time, long delta) {
        int stop = Math.max(0, size - RECENT);
        for (int i = size - 1; i >= stop; i--) {
            if (locations[i] == location && (times[i] == time || Arrays.equals(times[i], time))) {
                long d = deltas[i] + delta;
                if (d == 0) {
                    // The common case: a message consumed in the step that sent it. Removing the
                    // entry keeps the batch as small as the net change.
                    size--;
                    locations[i] = locations[size];
                    times[i] = times[size];
                    deltas[i] = deltas[size];
                    times[size] = null;
                } else {
                    deltas[i] = d;
                }
                return;
            }
        }
        if (size == locations.length) {
            locations = Arrays.copyOf(locations, size * 2);
            times = Arrays.copyOf(times, size * 2);
            deltas = Arrays.copyOf(deltas, size * 2);
        }
        locations[size] = location;
        times[size] = time;
        deltas[size] = delta;
        size++;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Merges entries with equal pointstamps and drops those that cancel. */
    void compact() {
        if (size > RECENT) {
            if (order.length < size) {
                order = new int[Math.max(size, order.length * 2)];
                scratch = new int[order.length];
            }
            for (int i = 0; i < size; i++) order[i] = i;
            sortOrder(0, size);
            if (sortedLocations.length < size) {
                sortedLocations = new int[order.length];
                sortedTimes = new long[order.length][];
                sortedDeltas = new long[order.length];
            }
            int w = -1;
            for (int k = 0; k < size; k++) {
                int i = order[k];
                if (w >= 0 && sortedLocations[w] == locations[i] && Arrays.equals(sortedTimes[w], times[i])) {
                    sortedDeltas[w] += deltas[i];
                } else {
                    w++;
                    sortedLocations[w] = locations[i];
                    sortedTimes[w] = times[i];
                    sortedDeltas[w] = deltas[i];
                }
            }
            System.arraycopy(sortedLocations, 0, locations, 0, w + 1);
            System.arraycopy(sortedTimes, 0, times, 0, w + 1);
            System.arraycopy(sortedDeltas, 0, deltas, 0, w + 1);
            Arrays.fill(sortedTimes, 0, w + 1, null);
            Arrays.fill(times, w + 1, size, null);
            size = w + 1;
        }
        int w = 0;
        for (int i = 0; i < size; i++) {
            if (deltas[i] != 0) {
                locations[w] = locations[i];
                times[w] = times[i];
                deltas[w] = deltas[i];
                w++;
            }
        }
        Arrays.fill(times, w, size, null);
        size = w;
    }

    /** An immutable copy of the current contents, to send to other workers. */
    ProgressBatch snapshot(int dataflow, int fromWorker) {
        return new ProgressBatch(dataflow, fromWorker, Arrays.copyOf(locations, size), Arrays.copyOf(times, size), Arrays.copyOf(deltas, size));
    }

    void clear() {
        Arrays.fill(times, 0, size, null);
        size = 0;
    }
}
