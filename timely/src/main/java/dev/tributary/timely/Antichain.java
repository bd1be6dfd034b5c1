package dev.tributary.timely;

import java.util.Arrays;

/**
 * The minimal elements of a set of times: a frontier.
 *
 * <p>Invariant: no element is {@code <=} another, and all elements have one arity. A frontier
 * promises that no future update has a time that is not {@code >=} some element; the empty
 * frontier promises that no update will ever come (the stream is complete).
 *
 * <p>Immutable: operators may keep a frontier they were shown. Elements are arrays that are
 * never mutated. Frontiers almost always hold one element, so they are kept in a small array
 * rather than a set.
 */
public final class Antichain {
    private static final long[][] NONE = new long[0][];
    private final int arity;
    private final long[][] elements;

    private Antichain(int arity, long[][] elements) {
        this.arity = arity;
        this.elements = elements;
    }

    /** The empty frontier of the given arity: nothing more will ever come. */
    public static Antichain empty(int arity) {
        return new Antichain(arity, NONE);
    }

    /** A frontier of one element. */
    public static Antichain of(long[] time) {
        return new Antichain(time.length, new long[][] {time});
    }

    /** A frontier of one arity-1 element. */
    public static Antichain of(long time) {
        return of(new long[] {time});
    }

    /** The minimal elements of the given times (which may be comparable to each other). */
    public static Antichain fromTimes(int arity, Iterable<long[]> times) {
        Builder b = new Builder(arity);
        for (long[] t : times) b.insert(t);
        return b.build();
    }

    /** Builds an antichain by inserting times; dominated times are discarded. */
    public static final class Builder {
        private final int arity;
        private long[][] elems = new long[2][];
        private int size;

        public Builder(int arity) {
            this.arity = arity;
        }

        /** Adds {@code t} unless some element is {@code <=} it; removes elements {@code >=} it. */
        public boolean insert(long[] t) {
            for (int i = 0; i < size; i++) {
                if (Timestamps.lessEqual(elems[i], t)) return false;
            }
            int w = 0;
            for (int i = 0; i < size; i++) {
                if (!Timestamps.lessEqual(t, elems[i])) elems[w++] = elems[i];
            }
            size = w;
            if (size == elems.length) elems = Arrays.copyOf(elems, size * 2);
            elems[size++] = t;
            return true;
        }

        public Antichain build() {
            if (size == 0) return empty(arity);
            long[][] out = Arrays.copyOf(elems, size);
            Arrays.sort(out, Timestamps::compare);
            return new Antichain(arity, out);
        }
    }

    public int arity() {
        return arity;
    }

    public boolean isEmpty() {
        return elements.length == 0;
    }

    public int size() {
        return elements.length;
    }

    /** The i-th element (elements are kept in lexicographic order). Do not mutate it. */
    public long[] get(int i) {
        return elements[i];
    }

    /** Whether some element is {@code <= t}: a time at {@code t} may still arrive. */
    public boolean lessEqual(long[] t) {
        for (long[] e : elements) {
            if (Timestamps.lessEqual(e, t)) return true;
        }
        return false;
    }

    /** Whether some element is {@code < t}: updates at times strictly before {@code t} may still arrive. */
    public boolean lessThan(long[] t) {
        for (long[] e : elements) {
            if (Timestamps.lessThan(e, t)) return true;
        }
        return false;
    }

    /** arity-1 convenience for {@link #lessEqual(long[])}. */
    public boolean lessEqual(long t) {
        for (long[] e : elements) {
            if (e[0] <= t) return true;
        }
        return false;
    }

    /** arity-1 convenience for {@link #lessThan(long[])}. */
    public boolean lessThan(long t) {
        for (long[] e : elements) {
            if (e[0] < t) return true;
        }
        return false;
    }

    /** Whether every time {@code >= other} is also {@code >= this}: this frontier is not ahead of {@code other}. */
    public boolean dominates(Antichain other) {
        for (long[] o : other.elements) {
            if (!lessEqual(o)) return false;
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Antichain a) || a.arity != arity || a.elements.length != elements.length) return false;
        for (int i = 0; i < elements.length; i++) {
            if (!Arrays.equals(elements[i], a.elements[i])) return false;
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = arity;
        for (long[] e : elements) h = 31 * h + Arrays.hashCode(e);
        return h;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < elements.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Timestamps.toString(elements[i]));
        }
        return sb.append('}').toString();
    }
}
