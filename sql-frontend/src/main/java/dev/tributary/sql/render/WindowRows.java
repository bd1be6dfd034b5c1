package dev.tributary.sql.render;

import dev.tributary.sql.row.Row;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * One window partition's positions in window order, each with the function's value last emitted
 * for it: the state of {@link WindowMaintenance} for one partition.
 *
 * <p>A position holds a keyed row (the window's sort key then the row, so that unsigned byte
 * order is window order with ties broken by the row); a row that occurs n times is n positions.
 * Positions are kept in chunks of at most {@code capacity}, split in half when full, so that
 * inserting or removing a row by key costs a binary search over the chunks' first rows and a
 * copy within one chunk, and finding a position by number a binary search over the chunks'
 * starts (recomputed once after a run of changes). Each chunk may carry a summary of its rows
 * (an aggregate's sums) that any change to it drops.
 */
final class WindowRows {
    /** The value of a position whose value has not been computed (nothing is emitted for it). */
    static final Object NONE = new Object() {
        @Override
        public String toString() {
            return "NONE";
        }
    };

    static final class Chunk {
        Row[] rows;
        Object[] values;
        int size;
        /** What the window keeps of the chunk's rows (null: to be made again). */
        Object summary;

        /** A chunk with room for {@code room} positions; it grows to the partition's chunk capacity as it fills. */
        Chunk(int room) {
            rows = new Row[room];
            values = new Object[room];
        }

        void grow(int capacity) {
            int room = Math.min(capacity, rows.length * 2);
            rows = Arrays.copyOf(rows, room);
            values = Arrays.copyOf(values, room);
        }
    }

    /** A new chunk's room: small, since most partitions of a window over many are small. */
    private static final int FIRST_ROOM = 4;

    private final int capacity;
    private final ArrayList<Chunk> chunks = new ArrayList<>();
    /** Per chunk, its first position; valid when {@code startsValid}. */
    private int[] starts = new int[1];
    private boolean startsValid = true;
    private int size;
    /** The bytes of the rows held, for the dataflow's memory accounting. */
    private long rowBytes;

    WindowRows(int capacity) {
        if (capacity < 2) throw new IllegalArgumentException("a chunk holds at least 2 positions, not " + capacity);
        this.capacity = capacity;
    }

    int size() {
        return size;
    }

    long bytes() {
        return rowBytes + (long) size * 40 + chunks.size() * 64L;
    }

    /** The first position whose row is at or after {@code key} ({@code upper}: after it). */
    int bound(Row key, boolean upper) {
        if (chunks.isEmpty()) return 0;
        int c = chunkFor(key, upper);
        Chunk ch = chunks.get(c);
        return start(c) + within(ch, key, upper);
    }

    /** Inserts {@code copies} positions of {@code key} after those equal to it, with no value. */
    void insert(Row key, long copies) {
        for (long k = 0; k < copies; k++) {
            if (chunks.isEmpty()) chunks.add(new Chunk(Math.min(FIRST_ROOM, capacity)));
            int c = chunkFor(key, true);
            Chunk ch = chunks.get(c);
            int at = within(ch, key, true);
            if (ch.size == ch.rows.length && ch.size < capacity) ch.grow(capacity);
            if (ch.size == capacity) {
                Chunk right = split(c);
                if (at > ch.size) {
                    at -= ch.size;
                    ch = right;
                }
            }
            System.arraycopy(ch.rows, at, ch.rows, at + 1, ch.size - at);
            System.arraycopy(ch.values, at, ch.values, at + 1, ch.size - at);
            ch.rows[at] = key;
            ch.values[at] = NONE;
            ch.size++;
            ch.summary = null;
            size++;
            rowBytes += key.byteLength() + 16;
            startsValid = false;
        }
    }

    /** What is told of each position {@link #remove} takes out. */
    @FunctionalInterface
    interface Removed {
        void removed(Row key, Object value);
    }

    /**
     * Removes {@code copies} positions of {@code key}, telling {@code removed} of each.
     *
     * @return how many there were to remove (fewer than {@code copies} when the partition held fewer)
     */
    long remove(Row key, long copies, Removed removed) {
        long done = 0;
        if (copies <= 0) return 0;
        while (done < copies && !chunks.isEmpty()) {
            int c = chunkFor(key, false);
            Chunk ch = chunks.get(c);
            int at = within(ch, key, false);
            if (at == ch.size) {
                // the first equal row, if any, opens the next chunk
                if (c + 1 == chunks.size()) break;
                ch = chunks.get(++c);
                at = 0;
            }
            int end = at;
            while (end < ch.size && done + (end - at) < copies && ch.rows[end].equals(key)) end++;
            if (end == at) break;
            for (int i = at; i < end; i++) {
                removed.removed(ch.rows[i], ch.values[i]);
                rowBytes -= ch.rows[i].byteLength() + 16;
            }
            int n = end - at;
            System.arraycopy(ch.rows, end, ch.rows, at, ch.size - end);
            System.arraycopy(ch.values, end, ch.values, at, ch.size - end);
            Arrays.fill(ch.rows, ch.size - n, ch.size, null);
            Arrays.fill(ch.values, ch.size - n, ch.size, null);
            ch.size -= n;
            ch.summary = null;
            if (ch.size == 0) chunks.remove(c);
            size -= n;
            done += n;
            startsValid = false;
        }
        return done;
    }

    Row row(int position) {
        int c = chunkOf(position);
        return chunks.get(c).rows[position - starts[c]];
    }

    Object value(int position) {
        int c = chunkOf(position);
        return chunks.get(c).values[position - starts[c]];
    }

    /** Forgets every position's value. */
    void clearValues() {
        for (Chunk ch : chunks) Arrays.fill(ch.values, 0, ch.size, NONE);
    }

    int chunks() {
        return chunks.size();
    }

    Chunk chunk(int c) {
        return chunks.get(c);
    }

    /** The first position of chunk {@code c}. */
    int start(int c) {
        validateStarts();
        return starts[c];
    }

    /** The chunk holding {@code position}. */
    int chunkOf(int position) {
        if (position < 0 || position >= size) throw new IndexOutOfBoundsException("position " + position + " of a partition of " + size);
        validateStarts();
        int lo = 0;
        int hi = chunks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= position) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    private void validateStarts() {
        if (startsValid) return;
        if (starts.length < chunks.size() + 1) starts = new int[chunks.size() * 2 + 1];
        int at = 0;
        for (int c = 0; c < chunks.size(); c++) {
            starts[c] = at;
            at += chunks.get(c).size;
        }
        starts[chunks.size()] = at;
        startsValid = true;
    }

    /** The chunk where {@code key}'s lower ({@code upper}: upper) bound lies: the last whose first row is before (at or before) it, else the first. */
    private int chunkFor(Row key, boolean upper) {
        int lo = 0;
        int hi = chunks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            int c = chunks.get(mid).rows[0].compareTo(key);
            if (upper ? c <= 0 : c < 0) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    private static int within(Chunk ch, Row key, boolean upper) {
        int lo = 0;
        int hi = ch.size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = ch.rows[mid].compareTo(key);
            if (upper ? c <= 0 : c < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** Moves the upper half of full chunk {@code c} into a new chunk after it, and returns that. */
    private Chunk split(int c) {
        Chunk left = chunks.get(c);
        Chunk right = new Chunk(capacity);
        int keep = left.size / 2;
        int move = left.size - keep;
        System.arraycopy(left.rows, keep, right.rows, 0, move);
        System.arraycopy(left.values, keep, right.values, 0, move);
        Arrays.fill(left.rows, keep, left.size, null);
        Arrays.fill(left.values, keep, left.size, null);
        left.size = keep;
        right.size = move;
        left.summary = null;
        chunks.add(c + 1, right);
        startsValid = false;
        return right;
    }
}
