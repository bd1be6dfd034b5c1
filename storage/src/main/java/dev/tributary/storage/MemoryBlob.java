package dev.tributary.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A {@link Blob} in the heap: for tests and for a server run with {@code --in-memory}. */
public final class MemoryBlob implements Blob {
    private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
    private volatile boolean closed;

    @Override
    public Optional<byte[]> get(String key) {
        checkOpen();
        byte[] v = objects.get(Blob.checkKey(key));
        return v == null ? Optional.empty() : Optional.of(v.clone());
    }

    @Override
    public void put(String key, byte[] value) {
        checkOpen();
        objects.put(Blob.checkKey(key), value.clone());
    }

    @Override
    public void delete(String key) {
        checkOpen();
        objects.remove(Blob.checkKey(key));
    }

    @Override
    public List<String> list(String prefix) {
        checkOpen();
        List<String> keys = new ArrayList<>();
        for (String k : objects.tailMap(prefix).keySet()) {
            if (!k.startsWith(prefix)) break;
            keys.add(k);
        }
        return keys;
    }

    @Override
    public void close() {
        closed = true;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the in-memory blob store is closed");
    }
}
