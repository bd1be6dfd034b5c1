package dev.tributary.storage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A {@link Consensus} in the heap: for tests and for a server run with {@code --in-memory}. */
public final class MemoryConsensus implements Consensus {
    /** Each key's retained versions, oldest first; guarded by {@code this}. */
    private final Map<String, List<VersionedData>> versions = new HashMap<>();
    private boolean closed;

    @Override
    public synchronized Optional<VersionedData> head(String key) {
        checkOpen();
        List<VersionedData> vs = versions.get(Consensus.checkKey(key));
        return vs == null || vs.isEmpty() ? Optional.empty() : Optional.of(vs.get(vs.size() - 1));
    }

    @Override
    public synchronized CasResult compareAndSet(String key, long expected, byte[] data) {
        checkOpen();
        Optional<VersionedData> head = head(key);
        long current = head.map(VersionedData::seqNo).orElse(NO_VERSION);
        if (current != expected) return new CasResult.Mismatch(head);
        versions.computeIfAbsent(key, k -> new ArrayList<>()).add(new VersionedData(expected + 1, data.clone()));
        return new CasResult.Committed(expected + 1);
    }

    @Override
    public synchronized List<VersionedData> scan(String key, long from, int limit) {
        checkOpen();
        List<VersionedData> out = new ArrayList<>();
        for (VersionedData v : versions.getOrDefault(Consensus.checkKey(key), List.of())) {
            if (out.size() >= limit) break;
            if (v.seqNo() >= from) out.add(v);
        }
        return out;
    }

    @Override
    public synchronized List<String> keys(String prefix) {
        checkOpen();
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<VersionedData>> e : versions.entrySet()) if (e.getKey().startsWith(prefix) && !e.getValue().isEmpty()) out.add(e.getKey());
        out.sort(null);
        return out;
    }

    @Override
    public synchronized int truncate(String key, long seqNo) {
        checkOpen();
        long head = head(key).map(VersionedData::seqNo).orElse(NO_VERSION);
        if (seqNo > head) throw new IllegalArgumentException("cannot truncate '" + key + "' below " + seqNo + ": its latest version is " + head);
        List<VersionedData> vs = versions.get(key);
        if (vs == null) return 0;
        int before = vs.size();
        vs.removeIf(v -> v.seqNo() < seqNo);
        return before - vs.size();
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the in-memory consensus store is closed");
    }
}
