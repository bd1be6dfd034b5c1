package dev.tributary.arrangements;

/**
 * An append-only sequence of values of one type, addressed by index, stored without an object
 * per value where the type allows.
 *
 * <p>Columns are the storage of keys and values in {@link Updates} and {@link Batch}. Values are
 * compared by index, within a column or against another column of the same class, so sorting and
 * merging never materialize a value. Implementations: {@link LongColumn} (primitive),
 * {@link BytesColumn} (one slab plus offsets, compared bytewise: encoded rows sort in SQL order),
 * {@link ObjectColumn} (any type with a comparator), {@link UnitColumn} (no value at all).
 */
public abstract class Column {
    /** The number of values. */
    public abstract int size();

    /** Orders value {@code i} of this column against value {@code j} of {@code other} (same class). */
    public abstract int compare(int i, Column other, int j);

    /** Appends value {@code i} of {@code source} (same class). */
    public abstract void append(Column source, int i);

    /** Appends values {@code [from, to)} of {@code source} (same class), in order. */
    public void appendRange(Column source, int from, int to) {
        for (int i = from; i < to; i++) append(source, i);
    }

    /** A 64-bit hash of value {@code i}, equal for equal values in any column of this class. */
    public abstract long hash(int i);

    /**
     * A 64-bit hash of value {@code i} for tables that live in one process and one operator (a
     * group's value index, a batch's consolidation by hash): equal for equal values in any column
     * of this class, like {@link #hash}, but free to be computed faster and to differ from it, and
     * from one version to the next. {@link #hash} routes records to workers, so it must not change
     * while a checkpoint holds each worker's share; this may.
     */
    public long localHash(int i) {
        return hash(i);
    }

    /** An empty column of the same class and configuration, able to hold {@code capacity} values. */
    public abstract Column emptyLike(int capacity);

    /**
     * {@link #emptyLike(int)}, its storage sized for values taking {@code bytes} in all (see
     * {@link #bytesUsed}): a column filled with values whose sizes are known up front never grows
     * (a batch of hundreds of megabytes grown by doubling copied its bytes twice over, and on this
     * kind of machine touched every new page twice).
     */
    public Column emptyLike(int capacity, long bytes) {
        return emptyLike(capacity);
    }

    /** The bytes its values take where the column keeps them as bytes ({@link BytesColumn}), 0 otherwise. */
    public long bytesUsed() {
        return 0;
    }

    /** The bytes value {@code i} takes where the column keeps values as bytes, 0 otherwise. */
    public int bytesOf(int i) {
        return 0;
    }

    /** Removes all values, keeping capacity. */
    public abstract void clear();

    /** Shrinks storage to the values held (after a batch is built). */
    public abstract void trim();

    /** Approximate heap bytes of the storage (arrays included, headers approximated). */
    public abstract long heapBytes();

    /** Value {@code i} as an object, for debugging and tests. */
    public abstract Object get(int i);

    /** Whether value {@code i} of this column equals value {@code j} of {@code other}. */
    public boolean equal(int i, Column other, int j) {
        return compare(i, other, j) == 0;
    }

    /**
     * For the values {@code which[0 .. count)} of {@code probes} (same class, sorted in this
     * column's order; {@code which == null}: values {@code 0 .. count)}), the index of the first
     * value of this (sorted) column that is {@code >=} each, written to {@code positions[0 .. count)}.
     * The searches run level by level over all the probes at once, so the memory reads of different
     * probes do not wait for each other: where this column is far larger than the cache, a probe's
     * misses overlap with the other probes' instead of coming one after another.
     */
    public void lowerBounds(Column probes, int[] which, int count, int[] positions) {
        java.util.Arrays.fill(positions, 0, count, 0);
        if (size() == 0) return;
        // the branch-free search keeps every probe's range the same length at each level
        for (int len = size(); len > 1; ) {
            int half = len >>> 1;
            for (int p = 0; p < count; p++) {
                int base = positions[p];
                if (compare(base + half, probes, which == null ? p : which[p]) < 0) positions[p] = base + half;
            }
            len -= half;
        }
        for (int p = 0; p < count; p++) {
            if (compare(positions[p], probes, which == null ? p : which[p]) < 0) positions[p]++;
        }
    }

    static long arrayBytes(int length, int elementBytes) {
        return 16 + (long) length * elementBytes;
    }
}
