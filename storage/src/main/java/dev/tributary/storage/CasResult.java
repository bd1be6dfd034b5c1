package dev.tributary.storage;

import java.util.Optional;

/** What a {@link Consensus#compareAndSet} did: wrote the next version, or found another one there. */
public sealed interface CasResult {
    /** The new version is durable under sequence number {@code seqNo}. */
    record Committed(long seqNo) implements CasResult {}

    /** Nothing was written: the key's latest version is {@code current} (empty: the key has none), not the one expected. */
    record Mismatch(Optional<VersionedData> current) implements CasResult {}
}
