package dev.tributary.storage;

import java.util.List;
import java.util.Optional;

/**
 * A store of immutable objects by key: the parts of a shard's batches.
 *
 * <p>Contract: {@link #put} returns once the object is durable, and is atomic: a reader sees
 * the whole object or none (never a prefix, also after a crash). An object is written once and
 * never changed; putting a key again replaces it only with the same bytes (a retried write), so
 * a key names one content for good. {@link #get} verifies what it reads and throws
 * {@link CorruptDataException} naming the key rather than return bytes that differ from those
 * put. {@link #delete} is idempotent. Keys are non-empty strings of {@code [A-Za-z0-9._-]} and
 * {@code /} separating non-empty segments; {@code ..} is not a segment.
 *
 * <p>Implementations are safe for concurrent use by many threads.
 */
public interface Blob extends AutoCloseable {
    /** The object under {@code key}, or empty when there is none. */
    Optional<byte[]> get(String key);

    /**
     * {@link #get} as a read-only buffer, verified the same way, for a reader that decodes it
     * once and keeps nothing of it: a store that can serve the object without a copy on the heap
     * (a file, mapped) does.
     */
    default Optional<java.nio.ByteBuffer> getBuffer(String key) {
        return get(key).map(java.nio.ByteBuffer::wrap);
    }

    /** Stores {@code value} under {@code key}, durably, before returning. */
    void put(String key, byte[] value);

    /** Removes the object under {@code key}, if any. */
    void delete(String key);

    /** The keys that start with {@code prefix}, in ascending order. */
    List<String> list(String prefix);

    @Override
    void close();

    /** Throws when {@code key} is not a valid blob key (see the class comment). */
    static String checkKey(String key) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("a blob key must not be empty");
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/';
            if (!ok) throw new IllegalArgumentException("blob key '" + key + "' has character '" + c + "' at " + i + "; keys are made of [A-Za-z0-9._-] and '/'");
        }
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals("..") || segment.equals(".")) {
                throw new IllegalArgumentException("blob key '" + key + "' has an empty, '.' or '..' segment");
            }
        }
        return key;
    }
}
