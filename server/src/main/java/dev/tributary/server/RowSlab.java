package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowDataType;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Changes that add each row of a column of encoded rows once (a COPY's rows, back to back in one
 * slab): a map from row to 1 as far as iterating it goes, a row repeated in the slab coming once
 * per copy. A table's input takes the column itself, in ranges, with no object per row
 * ({@link dev.tributary.server.compute.Dataflows#write}); anything else iterates it. Lookups by row are linear searches: this
 * map is for writing, not for asking.
 */
public final class RowSlab extends AbstractMap<Row, Long> {
    private final BytesColumn rows;
    /** Parts holding rows {@code [0, writtenRows)}, durable already (a COPY wrote them as they came); empty if none. */
    private final java.util.List<dev.tributary.storage.PartMeta> written;
    private final int writtenRows;

    RowSlab(BytesColumn rows) {
        this(rows, java.util.List.of(), 0);
    }

    /** The slab {@code rows} whose first {@code writtenRows} rows are durable in {@code written} (parts of the tables' log not yet named by it). */
    RowSlab(BytesColumn rows, java.util.List<dev.tributary.storage.PartMeta> written, int writtenRows) {
        if (writtenRows < 0 || writtenRows > rows.size()) throw new IllegalArgumentException(writtenRows + " rows of " + rows.size() + " written");
        this.rows = rows;
        this.written = java.util.List.copyOf(written);
        this.writtenRows = writtenRows;
    }

    /**
     * Rows {@code [from, to)} of {@code rows} as updates each at {@code time} with diff 1, as the
     * stores take them: the column itself when that is all of it (nothing writes to it once
     * committed), else a copy of the range.
     */
    static dev.tributary.arrangements.Updates updates(BytesColumn rows, int from, int to, long time) {
        int n = to - from;
        BytesColumn keys = rows;
        if (from != 0 || to != rows.size()) {
            keys = new BytesColumn(n, Math.max(16, rows.start(to) - rows.start(from)));
            keys.appendRange(rows, from, to);
        }
        dev.tributary.arrangements.UnitColumn units = new dev.tributary.arrangements.UnitColumn();
        units.add(n);
        dev.tributary.arrangements.Updates u = new dev.tributary.arrangements.Updates(keys, units, 1, n);
        u.pushAll(new long[] {time}, 1, n);
        return u;
    }

    /** Parts already holding the first {@link #writtenRows} rows (the log names them with the commit). */
    java.util.List<dev.tributary.storage.PartMeta> written() {
        return written;
    }

    int writtenRows() {
        return writtenRows;
    }

    /** The rows, one encoded row per value. */
    public BytesColumn column() {
        return rows;
    }

    @Override
    public int size() {
        return rows.size();
    }

    @Override
    public Set<Map.Entry<Row, Long>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<Row, Long>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < rows.size();
                    }

                    @Override
                    public Map.Entry<Row, Long> next() {
                        if (next >= rows.size()) throw new NoSuchElementException();
                        return Map.entry(RowDataType.INSTANCE.get(rows, next++), 1L);
                    }
                };
            }

            @Override
            public int size() {
                return rows.size();
            }
        };
    }

    /**
     * The first value of {@code values} equal to an earlier one, or -1 if all are distinct: one
     * open-addressing table of indices over the values' hashes, no object per value.
     */
    static int firstRepeat(BytesColumn values) {
        int n = values.size();
        int capacity = Integer.highestOneBit(Math.max(8, n) * 2 - 1) << 1;
        int mask = capacity - 1;
        int shift = 64 - Integer.numberOfTrailingZeros(capacity);
        int[] slots = new int[capacity]; // index + 1; 0: empty
        // eight more bits of each slot's hash: a probe compares values only when they match, not
        // at every occupied slot (two cache misses each: most of a 3M-row COPY's key check)
        byte[] tags = new byte[capacity];
        for (int i = 0; i < n; i++) {
            long h = values.hash(i) * 0x9E3779B97F4A7C15L;
            int slot = (int) (h >>> shift);
            byte tag = (byte) h;
            while (slots[slot] != 0) {
                if (tags[slot] == tag && values.equal(slots[slot] - 1, values, i)) return i;
                slot = (slot + 1) & mask;
            }
            slots[slot] = i + 1;
            tags[slot] = tag;
        }
        return -1;
    }
}
