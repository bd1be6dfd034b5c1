package dev.tributary.timely;

import java.util.Arrays;

/**
 * What a path through the dataflow graph does to a time: the least time a message at {@code t}
 * can become once it has travelled that path.
 *
 * <p>A summary maps times of arity {@code inputArity} to times of arity {@code outputArity}. The
 * first {@code kept} coordinates are carried over and incremented; the coordinates from
 * {@code kept} on are created fresh (by entering nested scopes) and set to their increment. This
 * form is closed under composition and covers every edge there is: the identity, a loop's
 * feedback (increment the innermost coordinate), entering a scope (append a zero) and leaving it
 * (drop the innermost coordinate).
 *
 * <p>Summaries are partially ordered: {@code a <= b} when {@code a(t) <= b(t)} for every {@code t}.
 * Reachability keeps, per pair of locations, only the minimal summaries.
 */
public final class PathSummary {
    private final int inputArity;
    private final int kept;
    private final long[] increments;

    private PathSummary(int inputArity, int kept, long[] increments) {
        if (kept > inputArity || kept > increments.length) throw new IllegalArgumentException("kept " + kept + " exceeds an arity");
        for (long i : increments) {
            if (i < 0) throw new IllegalArgumentException("path summary increments must be non-negative: " + Arrays.toString(increments));
        }
        this.inputArity = inputArity;
        this.kept = kept;
        this.increments = increments;
    }

    /** Leaves times of the given arity unchanged. */
    public static PathSummary identity(int arity) {
        return new PathSummary(arity, arity, new long[arity]);
    }

    /** Adds {@code increment} to the innermost coordinate: the summary of a loop's feedback edge. */
    public static PathSummary feedback(int arity, long increment) {
        long[] inc = new long[arity];
        inc[arity - 1] = increment;
        return new PathSummary(arity, arity, inc);
    }

    /** Adds the given increments coordinate-wise. */
    public static PathSummary increment(long... increments) {
        return new PathSummary(increments.length, increments.length, increments.clone());
    }

    /** Entering a nested scope: {@code t -> (t, 0)}. */
    public static PathSummary enter(int outerArity) {
        return new PathSummary(outerArity, outerArity, new long[outerArity + 1]);
    }

    /** Leaving a nested scope: {@code (t, i) -> t}. */
    public static PathSummary leave(int innerArity) {
        return new PathSummary(innerArity, innerArity - 1, new long[innerArity - 1]);
    }

    public int inputArity() {
        return inputArity;
    }

    public int outputArity() {
        return increments.length;
    }

    /** The least time reachable from {@code t}, or {@code null} if a coordinate would overflow. */
    public long[] apply(long[] t) {
        if (kept == inputArity && kept == increments.length && isZero()) return t;
        long[] r = new long[increments.length];
        for (int i = 0; i < r.length; i++) {
            if (i < kept) {
                long v = t[i] + increments[i];
                if (v < t[i]) return null;
                r[i] = v;
            } else {
                r[i] = increments[i];
            }
        }
        return r;
    }

    private boolean isZero() {
        for (long i : increments) {
            if (i != 0) return false;
        }
        return true;
    }

    /**
     * This path followed by {@code next}, or {@code null} when the combined increment of some
     * coordinate overflows: such a path yields no representable time, so it reaches nothing.
     */
    public PathSummary followedBy(PathSummary next) {
        if (next.inputArity != outputArity()) {
            throw new IllegalArgumentException("cannot compose a summary to arity " + outputArity() + " with one from arity " + next.inputArity);
        }
        int k = Math.min(kept, next.kept);
        long[] inc = new long[next.increments.length];
        for (int i = 0; i < inc.length; i++) {
            if (i < next.kept) {
                long sum = increments[i] + next.increments[i];
                if (sum < increments[i]) return null;
                inc[i] = sum;
            } else {
                inc[i] = next.increments[i];
            }
        }
        return new PathSummary(inputArity, k, inc);
    }

    /**
     * Whether {@code this(t) <= other(t)} for every time {@code t}. A coordinate this summary keeps
     * but {@code other} creates fresh is unbounded here and bounded there, so it never compares;
     * one this summary creates fresh compares by increment, as times are non-negative.
     */
    public boolean lessEqual(PathSummary other) {
        if (inputArity != other.inputArity || increments.length != other.increments.length || kept > other.kept) return false;
        for (int i = 0; i < increments.length; i++) {
            if (increments[i] > other.increments[i]) return false;
        }
        return true;
    }

    /** Whether the summary maps every time to itself. */
    public boolean isIdentity() {
        return inputArity == increments.length && kept == inputArity && isZero();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathSummary p && p.inputArity == inputArity && p.kept == kept && Arrays.equals(p.increments, increments);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * inputArity + kept) + Arrays.hashCode(increments);
    }

    @Override
    public String toString() {
        return "PathSummary[in=" + inputArity + ", kept=" + kept + ", +" + Arrays.toString(increments) + "]";
    }
}
