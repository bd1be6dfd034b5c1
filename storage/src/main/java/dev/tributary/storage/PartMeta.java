package dev.tributary.storage;

/**
 * One blob object of a shard's batch, as the shard's state records it: its key, its size and
 * CRC-32C (checked against the object read, so a part swapped for another is caught too), how
 * many updates it holds, and the greatest time among them ({@link Long#MAX_VALUE}: not known,
 * for parts written before it was recorded, or with times of several coordinates); and, where
 * {@code at} is not {@link #NO_TIME}, the time every update of the part is at, whatever time
 * its bytes say (a part written before its transaction had a time: {@link #at(long)}).
 */
public record PartMeta(String key, long bytes, int crc32c, long records, long maxTime, long at) {
    /** {@link #at}: the part's updates are at the times its bytes give. */
    public static final long NO_TIME = -1;

    public PartMeta {
        Blob.checkKey(key);
        if (bytes < 0 || records < 0) throw new IllegalArgumentException("part '" + key + "' has " + bytes + " bytes and " + records + " records");
        if (at < NO_TIME) throw new IllegalArgumentException("part '" + key + "' is at time " + at);
    }

    public PartMeta(String key, long bytes, int crc32c, long records, long maxTime) {
        this(key, bytes, crc32c, records, maxTime, NO_TIME);
    }

    /** This part with every update at {@code time} (a time of one coordinate, not negative), whatever its bytes say. */
    public PartMeta at(long time) {
        if (time < 0) throw new IllegalArgumentException("part '" + key + "' cannot be put at time " + time);
        return new PartMeta(key, bytes, crc32c, records, time, time);
    }

    /** The part of {@code bytes} (encoded {@code updates}) under {@code key}. */
    static PartMeta of(String key, byte[] bytes, dev.tributary.arrangements.Updates updates) {
        long max = updates.arity() == 1 ? Long.MIN_VALUE : Long.MAX_VALUE;
        if (updates.arity() == 1) for (int i = 0; i < updates.size(); i++) max = Math.max(max, updates.time(i));
        return new PartMeta(key, bytes.length, BlobTrailer.crc(bytes, bytes.length), updates.size(), max);
    }

    static PartMeta fromProto(dev.tributary.storage.proto.ProtoPart p) {
        long m = p.getMaxTimePlusOne();
        return new PartMeta(p.getKey(), p.getBytes(), p.getCrc32C(), p.getRecords(), m == 0 ? Long.MAX_VALUE : m - 1, p.getAtPlusOne() - 1);
    }

    dev.tributary.storage.proto.ProtoPart toProto() {
        var b = dev.tributary.storage.proto.ProtoPart.newBuilder().setKey(key).setBytes(bytes).setCrc32C(crc32c).setRecords(records);
        if (maxTime != Long.MAX_VALUE && maxTime >= 0) b.setMaxTimePlusOne(maxTime + 1);
        if (at != NO_TIME) b.setAtPlusOne(at + 1);
        return b.build();
    }

    /** Whether the part may hold an update at a time after {@code t}. */
    boolean mayHoldAfter(long t) {
        return maxTime > t;
    }
}
