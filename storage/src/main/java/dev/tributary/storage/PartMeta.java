package dev.tributary.storage;

/**
 * One blob object of a shard's batch, as the shard's state records it: its key, its size and
 * CRC-32C (checked against the object read, so a part swapped for another is caught too), how
 * many updates it holds, and the greatest time among them ({@link Long#MAX_VALUE}: not known,
 * for parts written before it was recorded, or with times of several coordinates).
 */
public record PartMeta(String key, long bytes, int crc32c, long records, long maxTime) {
    public PartMeta {
        Blob.checkKey(key);
        if (bytes < 0 || records < 0) throw new IllegalArgumentException("part '" + key + "' has " + bytes + " bytes and " + records + " records");
    }

    /** The part of {@code bytes} (encoded {@code updates}) under {@code key}. */
    static PartMeta of(String key, byte[] bytes, dev.tributary.arrangements.Updates updates) {
        long max = updates.arity() == 1 ? Long.MIN_VALUE : Long.MAX_VALUE;
        if (updates.arity() == 1) for (int i = 0; i < updates.size(); i++) max = Math.max(max, updates.time(i));
        return new PartMeta(key, bytes.length, BlobTrailer.crc(bytes, bytes.length), updates.size(), max);
    }

    static PartMeta fromProto(dev.tributary.storage.proto.ProtoPart p) {
        long m = p.getMaxTimePlusOne();
        return new PartMeta(p.getKey(), p.getBytes(), p.getCrc32C(), p.getRecords(), m == 0 ? Long.MAX_VALUE : m - 1);
    }

    dev.tributary.storage.proto.ProtoPart toProto() {
        var b = dev.tributary.storage.proto.ProtoPart.newBuilder().setKey(key).setBytes(bytes).setCrc32C(crc32c).setRecords(records);
        if (maxTime != Long.MAX_VALUE && maxTime >= 0) b.setMaxTimePlusOne(maxTime + 1);
        return b.build();
    }

    /** Whether the part may hold an update at a time after {@code t}. */
    boolean mayHoldAfter(long t) {
        return maxTime > t;
    }
}
