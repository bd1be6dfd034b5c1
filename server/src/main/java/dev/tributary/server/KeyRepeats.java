package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.row.RowCodec;

/**
 * The first row of a growing slab whose primary key repeats an earlier row's, found as the rows
 * arrive: a COPY checks its keys while it reads, not all at its end (where the check held up the
 * COPY's answer by half a second per 3M rows). The key is one column of one encoding, so a row's
 * key is a byte range of the row ({@link RowCodec#columnStart}, {@link RowCodec#columnEnd}); the
 * set is open addressing over row indices with a tag byte per slot and each row's 32-bit hash
 * kept for growing, no object per row.
 *
 * <p>Invariant: rows {@code [0, added)} are in the set, except that once a repeat is found
 * ({@link #firstRepeat} not -1) nothing more is added.
 */
final class KeyRepeats {
    private final RowCodec codec;
    private final int column;
    private int[] slots = new int[1 << 12]; // row + 1; 0: empty
    private byte[] tags = new byte[1 << 12];
    private int[] hashes = new int[1 << 10];
    private int added;
    private int firstRepeat = -1;

    KeyRepeats(RowCodec codec, int column) {
        this.codec = codec;
        this.column = column;
    }

    /** Adds row {@code row} of {@code rows} (the next row: rows are added in order). */
    void add(BytesColumn rows, int row) {
        if (firstRepeat >= 0) return;
        if (row != added) throw new IllegalStateException("row " + row + " added after " + added + " rows");
        byte[] b = rows.slab();
        int from = codec.columnStart(b, rows.start(row), column);
        int to = codec.columnEnd(b, from, column);
        int h = 0x811c9dc5;
        for (int k = from; k < to; k++) h = (h ^ b[k]) * 0x01000193;
        if (added == hashes.length) hashes = java.util.Arrays.copyOf(hashes, added * 2);
        if (2L * (added + 1) > slots.length) grow();
        hashes[added] = h;
        if (insert(h, row, rows, from, to)) {
            firstRepeat = row;
            return;
        }
        added++;
    }

    /** The first row whose key repeats an earlier one's, or -1. */
    int firstRepeat() {
        return firstRepeat;
    }

    /** Rows added so far (all rows, unless a repeat stopped it). */
    int added() {
        return added;
    }

    /** Inserts {@code row}; true if a row with an equal key was there. */
    private boolean insert(int h, int row, BytesColumn rows, int from, int to) {
        long mixed = h * 0x9E3779B97F4A7C15L;
        int mask = slots.length - 1;
        int slot = (int) (mixed >>> (64 - Integer.numberOfTrailingZeros(slots.length)));
        byte tag = (byte) mixed;
        while (slots[slot] != 0) {
            if (tags[slot] == tag && rows != null && sameKey(rows, slots[slot] - 1, from, to)) return true;
            slot = (slot + 1) & mask;
        }
        slots[slot] = row + 1;
        tags[slot] = tag;
        return false;
    }

    private boolean sameKey(BytesColumn rows, int other, int from, int to) {
        byte[] b = rows.slab();
        int oFrom = codec.columnStart(b, rows.start(other), column);
        int oTo = codec.columnEnd(b, oFrom, column);
        return java.util.Arrays.equals(b, from, to, b, oFrom, oTo);
    }

    /** Doubles the table, re-placing every row by its kept hash (keys are distinct: no comparing). */
    private void grow() {
        slots = new int[slots.length * 2];
        tags = new byte[tags.length * 2];
        for (int r = 0; r < added; r++) insert(hashes[r], r, null, 0, 0);
    }
}
