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
 * never mutated. Frontiers almost always hold one element, so one element is kept on its own and
 * more in a small sorted array, never a set. A frontier is a value: compare with {@link #equals};
 * the runtime hands out the same instance again while a frontier does not change, and empty
 * frontiers are shared, so identity says nothing beyond equality.
 */
public final class Antichain {
    private static final long[][] NONE = new long[0][];
    /** Lexicographic order of elements; a constant, so sorting with it allocates no comparator. */
    private static final java.util.Comparator<long[]> LEXICOGRAPHIC = Timestamps::compare;
    /** Shared empty frontiers of the usual arities: an empty frontier is a value, so one per arity suffices. */
    private static final Antichain[] EMPTY = new Antichain[8];

    static {
        for (int a = 0; a < EMPTY.length; a++) EMPTY[a] = new Antichain(a, null, NONE);
    }

    private final int arity;
    /**
     * The element of a one-element frontier, else {@code null}. Almost every frontier has one
     * element, and keeping it without an array around it halves what a new frontier costs.
     */
    private final long[] single;
    /** The elements in lexicographic order when there are not exactly one; {@code null} when {@link #single} is set. */
    private final long[][] elements;

    private Antichain(int arity, long[] single, long[][] elements) {
        this.arity = arity;
        this.single = single;
        this.elements = elements;
    }

    /** The empty frontier of the given arity: nothing more will ever come. */
    public static Antichain empty(int arity) {
        return arity >= 0 && arity < EMPTY.length ? EMPTY[arity] : new Antichain(arity, null, NONE);
    }

    /** A frontier of one element. */
    public static Antichain of(long[] time) {
        return new Antichain(time.length, time, null);
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

    /**
     * Inserts {@code t} into the antichain {@code elems[0, size)} unless an element is {@code <=}
     * it, evicting the elements {@code >= t}; {@code elems} must have room for {@code size + 1}.
     * Shared by {@link Builder} and {@link MutableAntichain}, which keep the scratch array.
     *
     * @return the new size, or {@code -1} if {@code t} was dominated (nothing changed)
     */
    static int insertMinimal(long[][] elems, int size, long[] t) {
        for (int i = 0; i < size; i++) {
            if (Timestamps.lessEqual(elems[i], t)) return -1;
        }
        int w = 0;
        for (int i = 0; i < size; i++) {
            if (!Timestamps.lessEqual(t, elems[i])) elems[w++] = elems[i];
        }
        for (int i = w; i < size; i++) elems[i] = null;
        elems[w] = t;
        return w + 1;
    }

    /** Sorts the antichain {@code elems[0, size)} into the order frontiers keep, in place. */
    static void sortMinimal(long[][] elems, int size) {
        if (size > 1) Arrays.sort(elems, 0, size, LEXICOGRAPHIC);
    }

    /** Whether this frontier's elements are exactly the sorted antichain {@code elems[0, size)}: then it can stand for them. */
    boolean hasElements(int arity, long[][] elems, int size) {
        if (arity != this.arity || size != size()) return false;
        if (single != null) return Arrays.equals(single, elems[0]);
        for (int i = 0; i < size; i++) {
            if (!Arrays.equals(elements[i], elems[i])) return false;
        }
        return true;
    }

    /** A frontier of the sorted antichain {@code elems[0, size)}, which it copies (the element arrays are shared). */
    static Antichain ofMinimal(int arity, long[][] elems, int size) {
        if (size == 0) return empty(arity);
        if (size == 1) return new Antichain(arity, elems[0], null);
        return new Antichain(arity, null, Arrays.copyOf(elems, size));
    }

    /**
     * Builds an antichain by inserting times; dominated times are discarded. A builder may go on
     * inserting after {@link #build}; what it built does not change.
     */
    public static final class Builder {
        private final int arity;
        /**
         * The element while no two incomparable times were inserted, the common case: then the
         * builder needs no array (and, once inlined, often no allocation at all).
         */
        private long[] one;
        /** All elements once two incomparable times were inserted; {@link #one} is then unused. */
        private long[][] elems;
        private int size;

        public Builder(int arity) {
            this.arity = arity;
        }

        /** Adds {@code t} unless some element is {@code <=} it; removes elements {@code >=} it. */
        public boolean insert(long[] t) {
            if (elems == null) {
                if (one != null && Timestamps.lessEqual(one, t)) return false;
                if (one == null || Timestamps.lessEqual(t, one)) {
                    one = t;
                    return true;
                }
                elems = new long[4][];
                elems[0] = one;
                one = null;
                size = 1;
            }
            if (size == elems.length) elems = Arrays.copyOf(elems, size * 2);
            int n = insertMinimal(elems, size, t);
            if (n < 0) return false;
            size = n;
            return true;
        }

        public Antichain build() {
            return build(null);
        }

        /**
         * {@link #build()}, but returns {@code previous} itself when it equals what would be
         * built: a caller that rebuilds a frontier every step and usually gets the same one (a
         * trace's compaction frontier, say) then allocates nothing. {@code null} matches nothing.
         */
        public Antichain build(Antichain previous) {
            if (elems == null) {
                if (one == null) return empty(arity);
                return previous != null && previous.arity == arity && previous.single != null && Arrays.equals(previous.single, one)
                        ? previous : new Antichain(arity, one, null);
            }
            sortMinimal(elems, size);
            return previous != null && previous.hasElements(arity, elems, size) ? previous : ofMinimal(arity, elems, size);
        }
    }

    public int arity() {
        return arity;
    }

    public boolean isEmpty() {
        return single == null && elements.length == 0;
    }

    public int size() {
        return single != null ? 1 : elements.length;
    }

    /** The i-th element (elements are kept in lexicographic order). Do not mutate it. */
    public long[] get(int i) {
        if (single == null) return elements[i];
        java.util.Objects.checkIndex(i, 1);
        return single;
    }

    /** Whether some element is {@code <= t}: a time at {@code t} may still arrive. */
    public boolean lessEqual(long[] t) {
        if (single != null) return Timestamps.lessEqual(single, t);
        for (long[] e : elements) {
            if (Timestamps.lessEqual(e, t)) return true;
        }
        return false;
    }

    /** Whether some element is {@code < t}: updates at times strictly before {@code t} may still arrive. */
    public boolean lessThan(long[] t) {
        if (single != null) return Timestamps.lessThan(single, t);
        for (long[] e : elements) {
            if (Timestamps.lessThan(e, t)) return true;
        }
        return false;
    }

    /** arity-1 convenience for {@link #lessEqual(long[])}. */
    public boolean lessEqual(long t) {
        if (single != null) return single[0] <= t;
        for (long[] e : elements) {
            if (e[0] <= t) return true;
        }
        return false;
    }

    /** arity-1 convenience for {@link #lessThan(long[])}. */
    public boolean lessThan(long t) {
        if (single != null) return single[0] < t;
        for (long[] e : elements) {
            if (e[0] < t) return true;
        }
        return false;
    }

    /** Whether every time {@code >= other} is also {@code >= this}: this frontier is not ahead of {@code other}. */
    public boolean dominates(Antichain other) {
        for (int i = 0, n = other.size(); i < n; i++) {
            if (!lessEqual(other.get(i))) return false;
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (o == this) return true;
        if (!(o instanceof Antichain a) || a.arity != arity) return false;
        int n = size();
        if (a.size() != n) return false;
        for (int i = 0; i < n; i++) {
            if (!Arrays.equals(get(i), a.get(i))) return false;
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = arity;
        for (int i = 0, n = size(); i < n; i++) h = 31 * h + Arrays.hashCode(get(i));
        return h;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0, n = size(); i < n; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Timestamps.toString(get(i)));
        }
        return sb.append('}').toString();
    }
}
