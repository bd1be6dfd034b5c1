package dev.tributary.timely;

import java.util.Arrays;

/**
 * Times as short fixed-arity vectors of non-negative {@code long}s, ordered by the product
 * partial order.
 *
 * <p>A top-level dataflow has arity 1 (a total order); each nested iterative scope appends one
 * coordinate. A time is a {@code long[]} that nobody mutates once it has been handed to the
 * runtime, so the same array may be shared by a capability, its messages and a frontier without
 * copying. Records never carry a time object each: timely messages carry one time per container,
 * and higher layers store record times in primitive columns.
 */
public final class Timestamps {
    private Timestamps() {}

    /** The least time of the given arity: all zeros. */
    public static long[] minimum(int arity) {
        return new long[arity];
    }

    /** A time of arity 1. */
    public static long[] of(long t) {
        return new long[] {t};
    }

    /** A time with the given coordinates. */
    public static long[] of(long... coordinates) {
        return coordinates.clone();
    }

    /** The product partial order: every coordinate of {@code a} is {@code <=} that of {@code b}. */
    public static boolean lessEqual(long[] a, long[] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] > b[i]) return false;
        }
        return true;
    }

    /** {@code a <= b} and {@code a != b}. */
    public static boolean lessThan(long[] a, long[] b) {
        return lessEqual(a, b) && !Arrays.equals(a, b);
    }

    /** Least upper bound: the coordinate-wise maximum. */
    public static long[] join(long[] a, long[] b) {
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) r[i] = Math.max(a[i], b[i]);
        return r;
    }

    /** Greatest lower bound: the coordinate-wise minimum. */
    public static long[] meet(long[] a, long[] b) {
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) r[i] = Math.min(a[i], b[i]);
        return r;
    }

    /** A total order that extends the partial order (lexicographic), for sorting. */
    public static int compare(long[] a, long[] b) {
        return Arrays.compare(a, b);
    }

    /** Renders a time as {@code 5} for arity 1 and {@code (5, 2)} otherwise. */
    public static String toString(long[] t) {
        if (t.length == 1) return Long.toString(t[0]);
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < t.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(t[i]);
        }
        return sb.append(')').toString();
    }

    /** Whether {@code t} has the given arity and no negative coordinate: the cheap check before {@link #checkValid}. */
    static boolean isValid(long[] t, int arity) {
        if (t.length != arity) return false;
        for (long c : t) {
            if (c < 0) return false;
        }
        return true;
    }

    static void checkValid(long[] t, int arity, String what) {
        if (t.length != arity) {
            throw new IllegalArgumentException(what + ": time " + toString(t) + " has arity " + t.length
                    + " but this scope's times have arity " + arity);
        }
        for (long c : t) {
            if (c < 0) throw new IllegalArgumentException(what + ": time " + toString(t) + " has a negative coordinate; times are non-negative");
        }
    }
}
