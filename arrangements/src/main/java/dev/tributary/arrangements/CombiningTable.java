package dev.tributary.arrangements;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Updates {@code (key, val, time, diff)} whose keys are byte strings and whose values are byte
 * strings or units, each distinct {@code (key, val, time)} held once with the sum of its diffs
 * as they arrive: the hash aggregation of a grouping's build (a million rows onto a hundred
 * thousand groups' sums).
 *
 * <p>A record lives in one place, a run of longs in an arena: its diff, its time, a header with
 * the key's and the value's lengths, then the key's bytes and the value's bytes, each packed
 * eight to a long and zero-padded. Looking up an update reads two cache lines, its slot and the
 * record, where columns (offsets and bytes of the key, of the value, the time, the diff) read
 * seven; a table of a worker's hundred thousand groups is larger than its cache, so the lines
 * read are the cost. Updates are packed a chunk at a time into the same layout, hashed, and
 * looked up while the slots and records of the lookups a few ahead are read, so that their
 * misses overlap.
 *
 * <p>Records keep the order in which they first arrived; {@link #drainTo} appends them to
 * columns in that order. A record whose diffs sum to zero stays (a seal's consolidation drops it).
 */
final class CombiningTable {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** How many updates are packed and hashed at a time. */
    private static final int CHUNK = 256;
    /** How far ahead a lookup reads the record in its slot (and twice as far, the slot). */
    private static final int AHEAD = 8;
    /** The smallest table (in slots: 512 kB) worth reading ahead in: smaller ones stay in the cache. */
    private static final int AHEAD_MIN_SLOTS = 1 << 16;

    private final int arity;
    private final boolean unitVals;
    /** The records, back to back from 0 to {@link #used}. */
    private long[] arena;
    private int used;
    /** Open addressing, at most half full: a record's hash (high half) and its start in the arena plus one (low half). */
    private long[] slots;
    private int size;
    // the chunk being added, packed: record c at packed[starts[c] .. starts[c + 1])
    private long[] packed = new long[CHUNK * 8];
    private final int[] starts = new int[CHUNK + 1];
    private final long[] hashes = new long[CHUNK];
    private byte[] bytes = new byte[64];
    /** The sum of what was read ahead: never used. */
    private long touchedSink;

    /** Whether records of these columns can be combined here. */
    static boolean supports(Column keys, Column vals) {
        return keys instanceof BytesColumn && (vals instanceof BytesColumn || vals instanceof UnitColumn);
    }

    /** An empty table for records of {@code arity}-long times, sized for the distinct records of {@code expected} buffered updates. */
    CombiningTable(Column vals, int arity, int expected) {
        this.arity = arity;
        this.unitVals = vals instanceof UnitColumn;
        this.slots = new long[Integer.highestOneBit(Math.max(16, expected)) << 1];
        // a batcher starts combining when at most half of its records are distinct
        this.arena = new long[Math.max(64, expected / 2 * (arity + 4))];
    }

    /** The number of distinct records held. */
    int size() {
        return size;
    }

    long heapBytes() {
        return 8L * (arena.length + slots.length + packed.length) + bytes.length + 4L * starts.length + 8L * hashes.length;
    }

    /** Adds every update of {@code from} (columns this table {@link #supports}) to its record, or as a new one. */
    void add(Updates from) {
        BytesColumn fk = (BytesColumn) from.keys();
        BytesColumn fv = unitVals ? null : (BytesColumn) from.vals();
        long[] ft = from.times();
        long[] fd = from.diffs();
        long touched = 0;
        for (int start = 0, n = from.size(); start < n; start += CHUNK) {
            int end = Math.min(n, start + CHUNK);
            pack(fk, fv, ft, fd, start, end);
            long[] p = packed;
            // a table that fits in the cache gains nothing from reading ahead
            int aheadEnd = slots.length >= AHEAD_MIN_SLOTS ? end - start : 0;
            for (int c = 0, count = end - start; c < count; c++) {
                long[] table = slots;
                int mask = table.length - 1;
                if (c + 2 * AHEAD < aheadEnd) touched += table[(int) hashes[c + 2 * AHEAD] & mask];
                if (c + AHEAD < aheadEnd) {
                    long ahead = table[(int) hashes[c + AHEAD] & mask];
                    if (ahead != 0) touched += arena[(int) ahead - 1];
                }
                long hx = hashes[c];
                long high = hx & 0xFFFFFFFF00000000L;
                int s = starts[c];
                int length = starts[c + 1] - s;
                int slot = (int) hx & mask;
                long e;
                while ((e = table[slot]) != 0) {
                    int r = (int) e - 1;
                    if ((e & 0xFFFFFFFF00000000L) == high && sameRecord(r, p, s, length)) {
                        arena[r] += p[s];
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
                if (e != 0) continue;
                if (used + length > arena.length) arena = Arrays.copyOf(arena, Math.max(used + length, arena.length * 2));
                System.arraycopy(p, s, arena, used, length);
                table[slot] = high | (used + 1L);
                used += length;
                if (2L * ++size > table.length) grow();
            }
        }
        // kept, so that the reads ahead are not optimized away
        touchedSink += touched;
    }

    /** Whether the arena's record at {@code r} has the time, lengths and bytes of {@code p[s .. s + length)} (whose diff is not compared). */
    private boolean sameRecord(int r, long[] p, int s, int length) {
        long[] a = arena;
        // the header (lengths) first: equal headers make equal lengths
        int h = 1 + arity;
        if (a[r + h] != p[s + h]) return false;
        for (int k = 1; k < length; k++) if (a[r + k] != p[s + k]) return false;
        return true;
    }

    /** Packs updates {@code [start, end)} into {@link #packed} in the arena's layout, and hashes them. */
    private void pack(BytesColumn fk, BytesColumn fv, long[] ft, long[] fd, int start, int end) {
        int a = arity;
        int p = 0;
        for (int i = start; i < end; i++) {
            int keyFrom = fk.start(i);
            int keyLength = fk.start(i + 1) - keyFrom;
            int valFrom = fv == null ? 0 : fv.start(i);
            int valLength = fv == null ? 0 : fv.start(i + 1) - valFrom;
            int need = 2 + a + words(keyLength) + words(valLength);
            if (p + need > packed.length) packed = Arrays.copyOf(packed, Math.max(p + need, packed.length * 2));
            long[] out = packed;
            int c = i - start;
            starts[c] = p;
            out[p] = fd[i];
            System.arraycopy(ft, i * a, out, p + 1, a);
            int q = p + 1 + a;
            out[q++] = (long) keyLength << 32 | valLength;
            q = packBytes(fk.slab(), keyFrom, keyLength, out, q);
            if (fv != null) q = packBytes(fv.slab(), valFrom, valLength, out, q);
            hashes[c] = hash(out, p + 1, q);
            p = q;
        }
        starts[end - start] = p;
    }

    private static int words(int bytes) {
        return (bytes + 7) >>> 3;
    }

    /** Writes {@code length} bytes from {@code slab[from ..)} into longs from {@code out[q]} on, little-endian and zero-padded; the next free index. */
    private static int packBytes(byte[] slab, int from, int length, long[] out, int q) {
        int full = length >>> 3;
        for (int w = 0; w < full; w++) out[q++] = (long) LONGS.get(slab, from + 8 * w);
        int rest = length & 7;
        if (rest != 0) {
            int at = from + 8 * full;
            long v;
            if (at + 8 <= slab.length) {
                v = (long) LONGS.get(slab, at) & (-1L >>> (64 - 8 * rest));
            } else {
                v = 0;
                for (int k = 0; k < rest; k++) v |= (slab[at + k] & 0xFFL) << (8 * k);
            }
            out[q++] = v;
        }
        return q;
    }

    /** A hash of the longs {@code w[from .. to)}: a record's time, header and bytes. */
    private static long hash(long[] w, int from, int to) {
        long h = 0x9E3779B97F4A7C15L;
        for (int k = from; k < to; k++) h = (h ^ w[k]) * 0xff51afd7ed558ccdL + 0x632BE59BD9B4E019L;
        h = (h ^ h >>> 33) * 0xc4ceb9fe1a85ec53L;
        return h ^ h >>> 33;
    }

    /** The length in longs of the record at {@code r}. */
    private int recordLength(int r) {
        long header = arena[r + 1 + arity];
        return 2 + arity + words((int) (header >>> 32)) + words((int) header);
    }

    /** Doubles the table, placing every record again by its hash. */
    private void grow() {
        long[] table = new long[slots.length * 2];
        int mask = table.length - 1;
        for (int r = 0; r < used; r += recordLength(r)) {
            long hx = hash(arena, r + 1, r + recordLength(r));
            int slot = (int) hx & mask;
            while (table[slot] != 0) slot = (slot + 1) & mask;
            table[slot] = (hx & 0xFFFFFFFF00000000L) | (r + 1L);
        }
        slots = table;
    }

    /** Appends every record to {@code into} (columns this table {@link #supports}), in the order they first arrived, and empties the table, letting its arrays go. */
    void drainTo(Updates into) {
        BytesColumn keys = (BytesColumn) into.keys();
        int a = arity;
        for (int r = 0; r < used; ) {
            long header = arena[r + 1 + a];
            int keyLength = (int) (header >>> 32);
            int valLength = (int) header;
            int q = r + 2 + a;
            q = unpack(arena, q, keyLength);
            keys.add(bytes, 0, keyLength);
            if (unitVals) {
                ((UnitColumn) into.vals()).add();
            } else {
                q = unpack(arena, q, valLength);
                ((BytesColumn) into.vals()).add(bytes, 0, valLength);
            }
            into.push(arena, r + 1, arena[r]);
            r = q;
        }
        used = 0;
        size = 0;
        // a drained table is dropped (a batcher makes a new one when it combines again): its
        // arrays go, rather than being cleared for nothing
        slots = new long[16];
        arena = new long[64];
    }

    /** Copies {@code length} bytes packed from {@code w[q]} on into {@link #bytes}; the index past their longs. */
    private int unpack(long[] w, int q, int length) {
        if (bytes.length < words(length) * 8) bytes = new byte[Math.max(words(length) * 8, bytes.length * 2)];
        for (int k = 0, n = words(length); k < n; k++) LONGS.set(bytes, 8 * k, w[q + k]);
        return q + words(length);
    }
}
