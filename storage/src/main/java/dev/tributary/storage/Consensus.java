package dev.tributary.storage;

import java.util.List;
import java.util.Optional;

/**
 * A linearizable store of small versioned values by key, changed only by compare-and-set: the
 * state of each shard (its batches, frontiers, readers and writer) and of the catalog.
 *
 * <p>Contract: a key's versions have sequence numbers 0, 1, 2, ... with no gaps; the only way to
 * add one is {@link #compareAndSet} naming the latest, so of two writers racing from the same
 * version exactly one wins and the other learns what won. A version is returned by any call only
 * once it is durable: {@link #compareAndSet} returns {@link CasResult.Committed} after the
 * version survives a crash, and {@link #head} and {@link #scan} never show a version that a crash
 * could still take back. {@link #truncate} forgets versions below a sequence number (history no
 * reader needs); the head is never truncated.
 *
 * <p>Implementations are safe for concurrent use by many threads.
 */
public interface Consensus extends AutoCloseable {
    /** The sequence number to expect for a key that has no version yet. */
    long NO_VERSION = -1;

    /** The latest version of {@code key}, or empty when it has none. */
    Optional<VersionedData> head(String key);

    /**
     * Writes {@code data} as version {@code expected + 1} of {@code key} if its latest version is
     * {@code expected} ({@link #NO_VERSION}: it has none); otherwise writes nothing and returns
     * the latest version.
     */
    CasResult compareAndSet(String key, long expected, byte[] data);

    /** Up to {@code limit} versions of {@code key} from sequence number {@code from} on, in order. */
    List<VersionedData> scan(String key, long from, int limit);

    /** The keys that have a version and start with {@code prefix}, in ascending order. */
    List<String> keys(String prefix);

    /**
     * Forgets the versions of {@code key} below {@code seqNo}, which must be at most the latest
     * one's; returns how many were forgotten.
     */
    int truncate(String key, long seqNo);

    @Override
    void close();

    /** Throws when {@code key} is not a valid consensus key: non-empty, at most 1,000 characters. */
    static String checkKey(String key) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("a consensus key must not be empty");
        if (key.length() > 1000) throw new IllegalArgumentException("a consensus key is at most 1000 characters; this one has " + key.length());
        return key;
    }
}
