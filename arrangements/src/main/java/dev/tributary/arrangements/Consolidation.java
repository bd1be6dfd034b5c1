package dev.tributary.arrangements;

/**
 * Equal records added up in the order they first came, through an open-addressing table of their
 * indices: the first copy of each distinct record takes the sum of all its copies' diffs, and the
 * records whose sum is zero are dropped. Records are named by their index in columns (keys, and
 * optionally values and times), so nothing is moved or copied and nothing is decoded: it adds up
 * a batcher's buffer before its sort, an explode's records of one time, and a subscription's
 * changes at a time. A slot of the table holds a record's hash (high half) and its index plus one
 * (low half), so a probe reads the columns only where the hashes match. The table is scratch kept
 * between calls (up to {@link #KEEP_SLOTS}): an instance belongs to one thread.
 */
public final class Consolidation {
    /** Tables up to this many slots are kept for the next call; larger ones are garbage after it. */
    static final int KEEP_SLOTS = 1 << 16;

    private long[] table = new long[64];

    /**
     * Adds up the records {@code records[0, count)} (indices into the columns): records are equal
     * when their keys are, their values are ({@code vals} null: no values) and their times are
     * ({@code times} null: all at one time; else {@code arity} coordinates each). Each distinct
     * record's first copy gets the sum in {@code diffs}; returns how many survive, whose indices
     * are then {@code records[0, result)} in the order of their first copies.
     */
    public int addUp(Column keys, Column vals, long[] times, int arity, long[] diffs, int[] records, int count) {
        int out = 0;
        if (count == 1) {
            out = 1;
        } else if (count > 1) {
            int slots = Integer.highestOneBit(count - 1) << 2;
            long[] t = slots <= table.length ? table : slots <= KEEP_SLOTS ? (table = new long[slots]) : new long[slots];
            java.util.Arrays.fill(t, 0, slots, 0L);
            int mask = slots - 1;
            for (int i = 0; i < count; i++) {
                int x = records[i];
                long hx = hash(keys, vals, times, arity, x);
                long high = hx & 0xFFFFFFFF00000000L;
                int slot = (int) hx & mask;
                long e;
                while ((e = t[slot]) != 0) {
                    int y = (int) e - 1;
                    if ((e & 0xFFFFFFFF00000000L) == high && keys.equal(y, keys, x) && (vals == null || vals.equal(y, vals, x))
                            && (times == null || Times.equal(times, y * arity, times, x * arity, arity))) {
                        diffs[y] += diffs[x];
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
                if (e == 0) {
                    t[slot] = high | (x + 1L);
                    records[out++] = x;
                }
            }
        }
        int kept = 0;
        for (int i = 0; i < out; i++) if (diffs[records[i]] != 0) records[kept++] = records[i];
        return kept;
    }

    /**
     * A hash of record {@code x}'s key, value and time (as {@link #addUp} takes them), every bit
     * mixed into every other (murmur3's finalizer): a table takes its low bits, a sample by hash
     * its high ones, and a row's column hashes alone vary in few bits (linear probing then walked
     * long runs of filled slots).
     */
    public static long hash(Column keys, Column vals, long[] times, int arity, int x) {
        long h = keys.localHash(x);
        if (vals != null) h = h * 0x9E3779B97F4A7C15L + vals.localHash(x);
        if (times != null) for (int k = 0; k < arity; k++) h = h * 0x9E3779B97F4A7C15L + times[x * arity + k];
        h = (h ^ h >>> 33) * 0xff51afd7ed558ccdL;
        h = (h ^ h >>> 33) * 0xc4ceb9fe1a85ec53L;
        return h ^ h >>> 33;
    }
}
