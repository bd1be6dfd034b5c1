package dev.tributary.differential;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.UnitColumn;
import java.util.Arrays;

/**
 * Finds a value among the values of a column that only grows (until cleared): the index of the
 * entry equal to a probe, or -1.
 *
 * <p>A reduce looks up one key's values once per update of the key, and a key can hold millions
 * of values (a global aggregate), so a linear search made loading a large group quadratic. Up to
 * {@link #LINEAR} values the search is linear (a key's values are usually few, and a table would
 * cost more than it saves); past that, columns whose hash agrees with their equality (longs, byte
 * strings, units) get an open-addressing table of indexes by hash, built once and kept up to date
 * as values are appended. An object column's hash need not agree with its comparator, so its
 * values are searched linearly: no library reducer and no SQL reduce uses one for large groups.
 */
final class ValueIndex {
    /** Up to this many values, a linear search. */
    static final int LINEAR = 16;

    private final Column values;
    private final boolean hashable;
    /** Value indexes + 1 by hash slot (0: empty), or null while not built. */
    private int[] slots;
    /** How many of the column's values are in {@link #slots}. */
    private int indexed;

    ValueIndex(Column values) {
        this.values = values;
        this.hashable = values instanceof LongColumn || values instanceof BytesColumn || values instanceof UnitColumn;
    }

    /** Forgets every value (the column was cleared). */
    void clear() {
        if (slots != null && indexed > 0) Arrays.fill(slots, 0);
        indexed = 0;
    }

    /** The index of the value equal to value {@code i} of {@code column} (of the same class), or -1. */
    int find(Column column, int i) {
        int n = values.size();
        if (n <= LINEAR || !hashable) {
            for (int v = 0; v < n; v++) {
                if (values.equal(v, column, i)) return v;
            }
            return -1;
        }
        catchUp(n);
        int mask = slots.length - 1;
        for (int s = slot(column.localHash(i), mask); ; s = (s + 1) & mask) {
            int e = slots[s];
            if (e == 0) return -1;
            if (values.equal(e - 1, column, i)) return e - 1;
        }
    }

    /** Adds the values appended since the last lookup, growing the table to keep it at most half full. */
    private void catchUp(int n) {
        if (slots == null || n * 2 > slots.length) {
            int capacity = Integer.highestOneBit(Math.max(64, n * 4 - 1)) << 1;
            if (slots == null || capacity > slots.length) {
                slots = new int[capacity];
                indexed = 0;
            }
        }
        int mask = slots.length - 1;
        for (; indexed < n; indexed++) {
            int s = slot(values.localHash(indexed), mask);
            while (slots[s] != 0) s = (s + 1) & mask;
            slots[s] = indexed + 1;
        }
    }

    private static int slot(long hash, int mask) {
        long h = hash * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
