package dev.tributary.asofjoin;

import dev.tributary.differential.Collection;

/**
 * A temporal filter: each record present exactly while the system time lies in its validity
 * interval {@code [lower, upper)}, as {@code WHERE now() >= lower AND now() < upper} says.
 *
 * <p>What holds: the output accumulated at {@code T} is the input accumulated at {@code T},
 * restricted to the records whose interval contains {@code T}. An update {@code (d, t, n)} becomes
 * {@code (d, max(t, lower), n)} and, for a finite upper bound, {@code (d, max(t, upper), -n)}
 * (nothing at all when {@code max(t, lower) >= upper}), so the row is inserted when its interval
 * starts and retracted when it ends, by the dataflow's own frontier, with no work in between.
 */
public final class TemporalFilter {
    private TemporalFilter() {}

    /** A record's validity interval, or none (a NULL bound: never present). */
    @FunctionalInterface
    public interface Bounds<D> {
        /** Writes {@code [lower, upper)} into {@code out} ({@link Long#MIN_VALUE} / {@link Long#MAX_VALUE} for unbounded); false for no interval. */
        boolean of(D data, long[] out);
    }

    public static <D> Collection<D> apply(Collection<D> input, Bounds<? super D> bounds) {
        long[] interval = new long[2];
        return input.flatMapUpdates((d, t, n, out) -> {
            if (!bounds.of(d, interval)) return;
            long start = Math.max(t, interval[0]);
            if (start >= interval[1]) return;
            out.update(d, start, n);
            if (interval[1] != Long.MAX_VALUE) out.update(d, interval[1], -n);
        }, input.type());
    }
}
