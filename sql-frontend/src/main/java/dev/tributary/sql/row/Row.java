package dev.tributary.sql.row;

import java.util.Arrays;

/**
 * A row of SQL values in its encoded form: the one data type the SQL layer moves through
 * dataflows and keeps in arrangements.
 *
 * <p>The bytes are made by a {@link RowCodec}, and for rows of the same column types their
 * unsigned bytewise order is the order of the SQL values, column by column with NULL last. So
 * arrangements sort, merge, compare and hash rows without decoding them, and equal SQL values
 * (1.0 and 1.00, 0.0 and -0.0, {@code '1 month'} and {@code '30 days'}) are equal rows.
 *
 * <p>A row does not know its column types; the codec that made it does. Each column's encoding
 * is self-delimiting, so the concatenation of two rows' bytes is the row of both rows' columns
 * ({@link #concat}), and a row that is a prefix of another sorts before it.
 *
 * <p>Immutable: the byte array is never exposed or changed after construction.
 */
public final class Row implements Comparable<Row> {
    /** The row with no columns. */
    public static final Row EMPTY = new Row(new byte[0]);

    final byte[] bytes;
    /** {@link #hashCode()}, computed when first asked for (0: not yet): rows are hashed again and again as keys of maps. */
    private int hashCode;

    Row(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The row whose encoding is a copy of {@code bytes}, as stored by a {@link RowCodec}. */
    public static Row fromBytes(byte[] bytes) {
        return bytes.length == 0 ? EMPTY : new Row(bytes.clone());
    }

    /** The row whose encoding is {@code bytes[from, from + length)}, copied. */
    public static Row fromBytes(byte[] bytes, int from, int length) {
        return length == 0 ? EMPTY : new Row(Arrays.copyOfRange(bytes, from, from + length));
    }

    /** The row of {@code a}'s columns followed by {@code b}'s: a byte copy. */
    public static Row concat(Row a, Row b) {
        if (a.bytes.length == 0) return b;
        if (b.bytes.length == 0) return a;
        byte[] out = Arrays.copyOf(a.bytes, a.bytes.length + b.bytes.length);
        System.arraycopy(b.bytes, 0, out, a.bytes.length, b.bytes.length);
        return new Row(out);
    }

    /** A copy of the encoding. */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** A copy of bytes {@code [from, to)} of the encoding. */
    public byte[] slice(int from, int to) {
        return Arrays.copyOfRange(bytes, from, to);
    }

    /** The length of the encoding in bytes. */
    public int byteLength() {
        return bytes.length;
    }

    /** Byte {@code i} of the encoding. */
    public byte byteAt(int i) {
        return bytes[i];
    }

    /** Copies the encoding into {@code dst} at {@code offset}. */
    public void copyTo(byte[] dst, int offset) {
        System.arraycopy(bytes, 0, dst, offset, bytes.length);
    }

    /**
     * A 64-bit hash of the encoding, the same as {@link dev.tributary.arrangements.BytesColumn#hash}
     * gives for these bytes, so rows routed by it reach the worker their arrangement exchanges them to.
     */
    public long hash() {
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= b;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** Unsigned bytewise order of the encodings: for rows of the same types, the SQL order. */
    @Override
    public int compareTo(Row o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Row r && Arrays.equals(bytes, r.bytes);
    }

    @Override
    public int hashCode() {
        int c = hashCode;
        if (c == 0) {
            long h = hash();
            c = (int) (h ^ (h >>> 32));
            hashCode = c;
        }
        return c;
    }

    /** The encoding in hex, e.g. {@code Row[0180000000000000ff]}; a codec's {@link RowCodec#format} shows the values. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(6 + 2 * bytes.length).append("Row[");
        for (byte x : bytes) b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        return b.append(']').toString();
    }
}
