package dev.tributary.timely;

import java.util.Arrays;

/**
 * A multiset of times with signed counts, and the frontier of the times whose count is positive.
 *
 * <p>This is how a location's frontier is computed from pointstamp counts: each capability or
 * message in flight adds one at its time, retiring it subtracts one. Counts may go negative for a
 * moment when a worker learns of a message's consumption before its production; such a time is
 * never in the frontier, and the protocol guarantees that something upstream still holds a time
 * at or below it until the production is known.
 *
 * <p>Distinct times are kept in flat arrays searched linearly: a location rarely has more than a
 * handful of outstanding times, and a scan of a few entries beats hashing a {@code long[]}.
 * The frontier is rebuilt lazily, only when asked after a time entered or left the set of
 * positive counts, into a scratch array: a new {@link Antichain} is made only when its value
 * changed, so reading an unchanged frontier allocates nothing.
 */
public final class MutableAntichain {
    private final int arity;
    private long[][] times = new long[4][];
    private long[] counts = new long[4];
    private int size;
    /** Where {@link #frontier} collects the minimal positive times; grown to {@link #times}' length before it could be short. */
    private long[][] scratch = new long[4][];
    private Antichain frontier;
    private boolean dirty;

    public MutableAntichain(int arity) {
        this.arity = arity;
        this.frontier = Antichain.empty(arity);
    }

    public int arity() {
        return arity;
    }

    /** Adds {@code delta} to the count of {@code time}. */
    public void update(long[] time, long delta) {
        if (delta == 0) return;
        for (int i = 0; i < size; i++) {
            if (Arrays.equals(times[i], time)) {
                long before = counts[i];
                long c = before + delta;
                // The frontier can change only when a time enters or leaves the positive set.
                if ((before > 0) != (c > 0)) dirty = true;
                if (c == 0) {
                    size--;
                    times[i] = times[size];
                    counts[i] = counts[size];
                    times[size] = null;
                } else {
                    counts[i] = c;
                }
                return;
            }
        }
        if (size == times.length) {
            times = Arrays.copyOf(times, size * 2);
            counts = Arrays.copyOf(counts, size * 2);
        }
        times[size] = time;
        counts[size] = delta;
        size++;
        if (delta > 0) dirty = true;
    }

    /** The count of exactly {@code time}. */
    public long count(long[] time) {
        for (int i = 0; i < size; i++) {
            if (Arrays.equals(times[i], time)) return counts[i];
        }
        return 0;
    }

    /** Whether all counts are zero. */
    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * The minimal times with a positive count. While they do not change, the same instance is
     * returned, so a caller may compare with {@code ==} first.
     */
    public Antichain frontier() {
        return frontier(null);
    }

    /**
     * {@link #frontier()}, returning {@code candidate} (rather than a new instance) if the frontier
     * changed to a value equal to it: the progress tracker offers the frontier it propagated, so
     * locations that share a frontier share its instance. A candidate that does not match is
     * ignored, so any candidate (or {@code null}) is correct.
     */
    Antichain frontier(Antichain candidate) {
        if (dirty) {
            dirty = false;
            if (scratch.length < size) scratch = new long[times.length][];
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (counts[i] <= 0) continue;
                int m = Antichain.insertMinimal(scratch, n, times[i]);
                if (m >= 0) n = m;
            }
            Antichain.sortMinimal(scratch, n);
            if (!frontier.hasElements(arity, scratch, n)) {
                frontier = candidate != null && candidate.hasElements(arity, scratch, n) ? candidate : Antichain.ofMinimal(arity, scratch, n);
            }
            // the scratch must not keep times alive that the counts have let go
            Arrays.fill(scratch, 0, n, null);
        }
        return frontier;
    }

    /** Whether some positive-count time is {@code <= t}. */
    public boolean lessEqual(long[] t) {
        return frontier().lessEqual(t);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < size; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Timestamps.toString(times[i])).append(':').append(counts[i]);
        }
        return sb.append('}').toString();
    }
}
