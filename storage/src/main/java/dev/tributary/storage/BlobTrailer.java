package dev.tributary.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The 16 bytes every stored blob object ends in: the value's length, its CRC-32C and a magic
 * number. Whatever store holds the object (files, S3), a read checks them, so that a torn,
 * truncated or damaged object is a {@link CorruptDataException} and never wrong bytes.
 */
final class BlobTrailer {
    private BlobTrailer() {}

    private static final int MAGIC = 0x54424C42; // "TBLB"
    static final int BYTES = 16;

    /** The trailer of {@code value}, ready to be written after it. */
    static ByteBuffer of(byte[] value) {
        return ByteBuffer.allocate(BYTES).putLong(value.length).putInt(crc(value, value.length)).putInt(MAGIC).flip();
    }

    /** {@code value} with its trailer after it: the object to store. */
    static byte[] seal(byte[] value) {
        byte[] out = java.util.Arrays.copyOf(value, value.length + BYTES);
        of(value).get(out, value.length, BYTES);
        return out;
    }

    /** The value of a stored object, checked against its trailer; {@code what} names the object in an error. */
    static byte[] open(byte[] stored, String what) {
        if (stored.length < BYTES) throw corrupt(what, "it has " + stored.length + " bytes, less than its " + BYTES + "-byte trailer");
        ByteBuffer trailer = ByteBuffer.wrap(stored, stored.length - BYTES, BYTES);
        long length = trailer.getLong();
        int crc = trailer.getInt();
        int magic = trailer.getInt();
        if (magic != MAGIC) throw corrupt(what, "its trailer is not a Tributary blob trailer");
        if (length != stored.length - BYTES) throw corrupt(what, "its trailer says " + length + " bytes and it has " + (stored.length - BYTES));
        int actual = crc(stored, stored.length - BYTES);
        if (actual != crc) throw corrupt(what, String.format("its checksum is %08x, written as %08x", actual, crc));
        return java.util.Arrays.copyOf(stored, stored.length - BYTES);
    }

    /** {@link #open(byte[], String)} of a stored object in a buffer (position 0 to its limit): the value as a slice, not copied. */
    static ByteBuffer open(ByteBuffer stored, String what) {
        int n = stored.limit();
        if (n < BYTES) throw corrupt(what, "it has " + n + " bytes, less than its " + BYTES + "-byte trailer");
        long length = stored.getLong(n - BYTES);
        int crc = stored.getInt(n - BYTES + 8);
        int magic = stored.getInt(n - BYTES + 12);
        if (magic != MAGIC) throw corrupt(what, "its trailer is not a Tributary blob trailer");
        if (length != n - BYTES) throw corrupt(what, "its trailer says " + length + " bytes and it has " + (n - BYTES));
        ByteBuffer value = stored.slice(0, n - BYTES);
        CRC32C c = new CRC32C();
        c.update(value.duplicate());
        if ((int) c.getValue() != crc) throw corrupt(what, String.format("its checksum is %08x, written as %08x", (int) c.getValue(), crc));
        return value.asReadOnlyBuffer();
    }

    static int crc(byte[] bytes, int length) {
        CRC32C c = new CRC32C();
        c.update(bytes, 0, length);
        return (int) c.getValue();
    }

    private static CorruptDataException corrupt(String what, String why) {
        return new CorruptDataException(what + " is corrupt: " + why + "; restore it from a backup or drop the object that refers to it");
    }
}
