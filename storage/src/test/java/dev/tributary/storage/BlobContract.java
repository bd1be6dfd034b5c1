package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link Blob} promises, run against each implementation by a subclass. */
abstract class BlobContract {
    protected Blob blob;

    /** A fresh, empty store. */
    protected abstract Blob open() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        blob = open();
    }

    @AfterEach
    void tearDown() {
        blob.close();
    }

    @Test
    void whatIsPutIsGotBackByteForByte() {
        byte[] large = new byte[1 << 20];
        new Random(7).nextBytes(large);
        blob.put("shard/s1/part-0", large);
        blob.put("empty", new byte[0]);
        blob.put("one", new byte[] {42});
        assertThat(blob.get("shard/s1/part-0")).hasValueSatisfying(v -> assertThat(v).isEqualTo(large));
        assertThat(blob.get("empty")).hasValueSatisfying(v -> assertThat(v).isEmpty());
        assertThat(blob.get("one")).hasValueSatisfying(v -> assertThat(v).containsExactly(42));
        assertThat(blob.get("missing")).isEmpty();
        // the same bytes as a buffer (a file store maps the file)
        for (String k : List.of("shard/s1/part-0", "empty", "one")) {
            java.nio.ByteBuffer b = blob.getBuffer(k).orElseThrow();
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            assertThat(copy).as(k).isEqualTo(blob.get(k).orElseThrow());
        }
        assertThat(blob.getBuffer("missing")).isEmpty();
    }

    @Test
    void theStoreKeepsItsOwnCopy() {
        byte[] value = {1, 2, 3};
        blob.put("k", value);
        value[0] = 9;
        blob.get("k").orElseThrow()[1] = 9;
        assertThat(blob.get("k")).hasValueSatisfying(v -> assertThat(v).containsExactly(1, 2, 3));
    }

    @Test
    void aRetriedPutOfTheSameBytesIsHarmless() {
        blob.put("k", new byte[] {5, 6});
        blob.put("k", new byte[] {5, 6});
        assertThat(blob.get("k")).hasValueSatisfying(v -> assertThat(v).containsExactly(5, 6));
    }

    @Test
    void deleteIsIdempotent() {
        blob.put("a/b", new byte[] {1});
        blob.delete("a/b");
        blob.delete("a/b");
        blob.delete("never/there");
        assertThat(blob.get("a/b")).isEmpty();
    }

    @Test
    void listsTheKeysWithAPrefixInOrder() {
        for (String k : List.of("s2/p-1", "s1/p-2", "s1/p-1", "s10/p-0", "t")) blob.put(k, new byte[] {1});
        assertThat(blob.list("s1/")).containsExactly("s1/p-1", "s1/p-2");
        assertThat(blob.list("s1")).containsExactly("s1/p-1", "s1/p-2", "s10/p-0");
        assertThat(blob.list("")).containsExactly("s1/p-1", "s1/p-2", "s10/p-0", "s2/p-1", "t");
        assertThat(blob.list("nothing")).isEmpty();
    }

    @Test
    void keysThatCouldEscapeOrCollideAreRefused() {
        for (String bad : List.of("", "/a", "a/", "a//b", "a/../b", "..", "a b", "a~1", "ä")) {
            assertThatThrownBy(() -> blob.put(bad, new byte[] {1}))
                    .as("key '%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("blob key");
        }
    }

    @Test
    void concurrentWritersOfDistinctKeysAllLand() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) blob.put("w" + thread + "/p-" + i, new byte[] {(byte) thread, (byte) i});
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdown();
        }
        assertThat(blob.list("")).hasSize(100);
        assertThat(blob.get("w3/p-24")).hasValueSatisfying(v -> assertThat(v).containsExactly(3, 24));
    }
}
