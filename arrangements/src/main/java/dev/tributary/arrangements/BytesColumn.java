package dev.tributary.arrangements;

import java.util.Arrays;

/**
 * A column of byte strings in one slab with offsets, ordered bytewise (unsigned, then by length).
 * Encoded rows whose bytes sort in the order of their SQL values are compared without decoding.
 */
public final class BytesColumn extends Column {
    private byte[] slab;
    private int used;
    private int[] offsets;
    private int size;

    public BytesColumn() {
        this(16, 256);
    }

    public BytesColumn(int capacity, int bytes) {
        slab = new byte[Math.max(1, bytes)];
        offsets = new int[Math.max(2, capacity + 1)];
    }

    /** A column of {@code size} values adopting {@code slab} and {@code offsets} (value {@code i} is {@code slab[offsets[i] .. offsets[i + 1])}, {@code offsets[0] == 0}): no copy, for a decoder. */
    BytesColumn(byte[] slab, int[] offsets, int size) {
        this.slab = slab;
        this.offsets = offsets;
        this.size = size;
        this.used = offsets[size];
    }

    public void add(byte[] value) {
        add(value, 0, value.length);
    }

    public void add(byte[] src, int from, int length) {
        addPart(src, from, length);
        endValue();
    }

    /**
     * Appends {@code src[from .. from + length)} to the value being built: {@link #endValue}
     * completes it, so that a value can be put together from several ranges (a projection's
     * columns) without a copy in between. The value is not in the column until then.
     */
    public void addPart(byte[] src, int from, int length) {
        if (used + length > slab.length) slab = Arrays.copyOf(slab, Math.max(used + length, slab.length * 2));
        System.arraycopy(src, from, slab, used, length);
        used += length;
    }

    /**
     * Makes room for {@code bytes} more bytes of values (growing as {@link #addPart} does, at
     * least doubling), so that a writer that knows about how much is coming grows the slab once,
     * not once per doubling, each copying all of it.
     */
    public void reserve(int bytes) {
        if (used + bytes > slab.length) slab = Arrays.copyOf(slab, (int) Math.min(Math.max((long) used + bytes, slab.length * 2L), Integer.MAX_VALUE - 16));
    }

    /** Completes the value {@link #addPart} built (an empty one if none was added). */
    public void endValue() {
        if (size + 2 > offsets.length) offsets = Arrays.copyOf(offsets, offsets.length * 2);
        offsets[++size] = used;
    }

    /** A copy of value {@code i}. */
    public byte[] getBytes(int i) {
        return Arrays.copyOfRange(slab, offsets[i], offsets[i + 1]);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int compare(int i, Column other, int j) {
        BytesColumn o = (BytesColumn) other;
        return Arrays.compareUnsigned(slab, offsets[i], offsets[i + 1], o.slab, o.offsets[j], o.offsets[j + 1]);
    }

    /** Where string {@code i} starts in {@link #slab()} (string {@code size()}: where the next would). */
    public int start(int i) {
        return offsets[i];
    }

    /** The bytes of every string, back to back, for reading a string in place; never to be written. */
    public byte[] slab() {
        return slab;
    }

    /** The length of string {@code i}. */
    int length(int i) {
        return offsets[i + 1] - offsets[i];
    }

    /**
     * The 8 bytes of string {@code i} from byte {@code from} on, big-endian, past its end zeros:
     * unsigned, prefixes order as the strings do (a smaller prefix, a smaller string), and equal
     * prefixes leave the rest (and the length) to decide.
     */
    long prefix(int i, int from) {
        int start = offsets[i] + from;
        int end = offsets[i + 1];
        long p = 0;
        for (int k = 0; k < 8; k++) p = p << 8 | (start + k < end ? slab[start + k] & 0xFF : 0);
        return p;
    }

    @Override
    public boolean equal(int i, Column other, int j) {
        BytesColumn o = (BytesColumn) other;
        int from = offsets[i];
        int length = offsets[i + 1] - from;
        int otherFrom = o.offsets[j];
        if (o.offsets[j + 1] - otherFrom != length) return false;
        // encoded keys are mostly a few bytes: a plain loop beats the vectorized mismatch's set-up
        if (length <= SHORT) {
            byte[] a = slab;
            byte[] b = o.slab;
            for (int k = 0; k < length; k++) if (a[from + k] != b[otherFrom + k]) return false;
            return true;
        }
        return Arrays.equals(slab, from, from + length, o.slab, otherFrom, otherFrom + length);
    }

    /** Strings up to this long are compared byte by byte. */
    private static final int SHORT = 16;

    @Override
    public void append(Column source, int i) {
        BytesColumn s = (BytesColumn) source;
        add(s.slab, s.offsets[i], s.offsets[i + 1] - s.offsets[i]);
    }

    @Override
    public void appendRange(Column source, int from, int to) {
        BytesColumn s = (BytesColumn) source;
        if (from < 0 || to > s.size || from > to) throw new IndexOutOfBoundsException("values [" + from + ", " + to + ") of a column of " + s.size);
        int n = to - from;
        if (n == 0) return;
        int first = s.offsets[from];
        int bytes = s.offsets[to] - first;
        if (used + bytes > slab.length) slab = Arrays.copyOf(slab, Math.max(used + bytes, slab.length * 2));
        System.arraycopy(s.slab, first, slab, used, bytes);
        if (size + n + 1 > offsets.length) offsets = Arrays.copyOf(offsets, Math.max(size + n + 1, offsets.length * 2));
        int shift = used - first;
        for (int k = 1; k <= n; k++) offsets[size + k] = s.offsets[from + k] + shift;
        used += bytes;
        size += n;
    }

    @Override
    public long hash(int i) {
        long h = 0xcbf29ce484222325L;
        for (int k = offsets[i], e = offsets[i + 1]; k < e; k++) {
            h ^= slab[k];
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** Eight bytes at a time, then a final mix: a long row (a join's output under a group's value index) costs an eighth of {@link #hash}'s byte-by-byte walk. */
    @Override
    public long localHash(int i) {
        int k = offsets[i], e = offsets[i + 1];
        long h = 0x9E3779B97F4A7C15L ^ (e - k);
        for (; k + Long.BYTES <= e; k += Long.BYTES) h = Long.rotateLeft((h ^ (long) LONGS.get(slab, k)) * 0xC2B2AE3D27D4EB4FL, 31);
        for (; k < e; k++) h = (h ^ (slab[k] & 0xff)) * 0x100000001B3L;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    @Override
    public Column emptyLike(int capacity) {
        return new BytesColumn(capacity, Math.max(16, capacity * 8));
    }

    @Override
    public Column emptyLike(int capacity, long bytes) {
        return new BytesColumn(capacity, (int) Math.min(Math.max(bytes, 16), Integer.MAX_VALUE - 16));
    }

    @Override
    public long bytesUsed() {
        return used;
    }

    @Override
    public int bytesOf(int i) {
        return offsets[i + 1] - offsets[i];
    }

    @Override
    public void clear() {
        size = 0;
        used = 0;
    }

    @Override
    public void trim() {
        if (slab.length != used) slab = Arrays.copyOf(slab, Math.max(used, 1));
        if (offsets.length != size + 1) offsets = Arrays.copyOf(offsets, size + 1);
    }

    @Override
    public long heapBytes() {
        return 32 + arrayBytes(slab.length, 1) + arrayBytes(offsets.length, 4);
    }

    @Override
    public Object get(int i) {
        return Arrays.toString(getBytes(i));
    }
}
