package dev.tributary.storage;

/**
 * One blob object of a shard's batch, as the shard's state records it: its key, its size and
 * CRC-32C (checked against the object read, so a part swapped for another is caught too) and
 * how many updates it holds.
 */
public record PartMeta(String key, long bytes, int crc32c, long records) {
    public PartMeta {
        Blob.checkKey(key);
        if (bytes < 0 || records < 0) throw new IllegalArgumentException("part '" + key + "' has " + bytes + " bytes and " + records + " records");
    }
}
