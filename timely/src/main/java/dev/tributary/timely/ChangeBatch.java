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
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) order[i] = i;
            Arrays.sort(order, (a, b) -> {
                int c = Integer.compare(locations[a], locations[b]);
                return c != 0 ? c : Timestamps.compare(times[a], times[b]);
            });
            int[] l = new int[size];
            long[][] t = new long[size][];
            long[] d = new long[size];
            int w = -1;
            for (int k = 0; k < size; k++) {
                int i = order[k];
                if (w >= 0 && l[w] == locations[i] && Arrays.equals(t[w], times[i])) {
                    d[w] += deltas[i];
                } else {
                    w++;
                    l[w] = locations[i];
                    t[w] = times[i];
                    d[w] = deltas[i];
                }
            }
            System.arraycopy(l, 0, locations, 0, w + 1);
            System.arraycopy(t, 0, times, 0, w + 1);
            System.arraycopy(d, 0, deltas, 0, w + 1);
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
