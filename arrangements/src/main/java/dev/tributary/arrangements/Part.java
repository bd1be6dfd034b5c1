package dev.tributary.arrangements;

import java.nio.ByteBuffer;

/**
 * One piece of a parted {@link Batch}: a plain batch holding a range of the parted batch's keys,
 * kept as its {@link BatchCodec} encoding in a mapped file and on the heap only while
 * {@link Paging} keeps it resident.
 *
 * <p>Invariants: the encoding never changes (a part is immutable like its batch); the counts are
 * those of the encoded batch; the decoded batch, once a reader has it, stays valid for as long as
 * the reader keeps it, whether or not paging lets go of it meanwhile (eviction only drops
 * {@link Paging}'s reference). Safe to read from several threads.
 */
public final class Part {
    /** The part's encoding: a read-only view of a mapped file (or, where no file backs it, of a heap array). */
    final ByteBuffer encoded;
    final int keyCount;
    final int valCount;
    final int updateCount;
    /** The bytes the part's keys and values take (see {@link Column#bytesUsed}), for sizing merges. */
    final long keyBytes;
    final long valBytes;
    /** The greatest time of the part or a bound of it (see {@link Batch#maxTime}). */
    final long maxTime;
    /** The decoded batch while it is resident, else null. */
    volatile Batch resident;
    /** When {@link Paging} last handed the part out (its clock), for evicting the least recently used. */
    long lastUse;
    /** The mapping of the part's own spill file, for {@link Paging#discard} to unmap (null: none, or the mapping is another's, a checkpoint blob's). */
    java.nio.MappedByteBuffer mapping;
    /** Deletes the part's own spill file, at most once: when the part is discarded or unreachable (null: no file of its own). */
    java.lang.ref.Cleaner.Cleanable fileDeleter;

    Part(ByteBuffer encoded, int keyCount, int valCount, int updateCount, long keyBytes, long valBytes, long maxTime) {
        this.encoded = encoded.asReadOnlyBuffer();
        this.keyCount = keyCount;
        this.valCount = valCount;
        this.updateCount = updateCount;
        this.keyBytes = keyBytes;
        this.valBytes = valBytes;
        this.maxTime = maxTime;
    }

    /** The part as a plain batch: resident, or decoded from its file (and made resident). */
    Batch batch() {
        Batch b = resident;
        if (b != null) {
            lastUse = Paging.tick();
            return b;
        }
        return Paging.load(this);
    }

    /** The part's {@link BatchCodec} encoding (a read-only view; the caller may move its position). */
    public ByteBuffer encoding() {
        return encoded.duplicate();
    }

    /** The bytes of the encoding. */
    long encodedBytes() {
        return encoded.remaining();
    }

    @Override
    public String toString() {
        return "Part of " + keyCount + " keys, " + updateCount + " updates (" + encodedBytes() + " bytes" + (resident != null ? ", resident)" : ")");
    }
}
