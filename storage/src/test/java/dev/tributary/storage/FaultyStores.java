package dev.tributary.storage;

import java.util.List;
import java.util.Optional;

/**
 * Blob and consensus stores that fail on command, wrapped around real ones: a store that is down
 * (every call fails), a write that fails before it lands (a full disk, a failed fsync), and a
 * compare-and-set that lands and then fails (the reply lost: the writer cannot tell).
 */
final class FaultyStores {
    private FaultyStores() {}

    static final class Blob implements dev.tributary.storage.Blob {
        final dev.tributary.storage.Blob inner;
        volatile boolean down;
        volatile int failPuts;

        Blob(dev.tributary.storage.Blob inner) {
            this.inner = inner;
        }

        private void check(String what) {
            if (down) throw new StorageException("blob store unreachable (injected) while trying to " + what);
        }

        @Override
        public Optional<byte[]> get(String key) {
            check("get " + key);
            return inner.get(key);
        }

        @Override
        public void put(String key, byte[] value) {
            check("put " + key);
            if (failPuts > 0) {
                failPuts--;
                throw new StorageException("no space left on device (injected) writing blob '" + key + "'");
            }
            inner.put(key, value);
        }

        @Override
        public void delete(String key) {
            check("delete " + key);
            inner.delete(key);
        }

        @Override
        public List<String> list(String prefix) {
            check("list " + prefix);
            return inner.list(prefix);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    static class Consensus implements dev.tributary.storage.Consensus {
        final dev.tributary.storage.Consensus inner;
        volatile boolean down;
        /** Compare-and-sets to fail before they reach the store. */
        volatile int failBefore;
        /** Compare-and-sets to fail after they landed. */
        volatile int failAfter;

        Consensus(dev.tributary.storage.Consensus inner) {
            this.inner = inner;
        }

        private void check(String what) {
            if (down) throw new StorageException("consensus store unreachable (injected) while trying to " + what);
        }

        @Override
        public Optional<VersionedData> head(String key) {
            check("read " + key);
            return inner.head(key);
        }

        @Override
        public CasResult compareAndSet(String key, long expected, byte[] data) {
            check("compare-and-set " + key);
            if (failBefore > 0) {
                failBefore--;
                throw new StorageException("fsync failed (injected) on compare-and-set of '" + key + "'");
            }
            CasResult r = inner.compareAndSet(key, expected, data);
            if (failAfter > 0) {
                failAfter--;
                throw new StorageException("connection reset (injected) after compare-and-set of '" + key + "' was sent");
            }
            return r;
        }

        @Override
        public List<VersionedData> scan(String key, long from, int limit) {
            check("scan " + key);
            return inner.scan(key, from, limit);
        }

        @Override
        public List<String> keys(String prefix) {
            check("list keys");
            return inner.keys(prefix);
        }

        @Override
        public int truncate(String key, long seqNo) {
            check("truncate " + key);
            return inner.truncate(key, seqNo);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
