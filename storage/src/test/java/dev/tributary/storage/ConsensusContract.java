package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link Consensus} promises, run against each implementation by a subclass. */
abstract class ConsensusContract {
    protected Consensus consensus;

    /** A fresh, empty store. */
    protected abstract Consensus open() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        consensus = open();
    }

    @AfterEach
    void tearDown() {
        consensus.close();
    }

    static byte[] bytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static long value(VersionedData d) {
        return ByteBuffer.wrap(d.data()).getLong();
    }

    @Test
    void versionsAreNumberedFromZeroWithoutGaps() {
        assertThat(consensus.head("s")).isEmpty();
        assertThat(consensus.compareAndSet("s", Consensus.NO_VERSION, bytes(10))).isEqualTo(new CasResult.Committed(0));
        assertThat(consensus.compareAndSet("s", 0, bytes(11))).isEqualTo(new CasResult.Committed(1));
        assertThat(consensus.head("s")).hasValueSatisfying(v -> {
            assertThat(v.seqNo()).isEqualTo(1);
            assertThat(value(v)).isEqualTo(11);
        });
        assertThat(consensus.head("other")).isEmpty();
    }

    @Test
    void aWriterThatExpectsAnOlderVersionIsFencedAndToldWhatWon() {
        consensus.compareAndSet("s", Consensus.NO_VERSION, bytes(1));
        long seenByA = consensus.head("s").orElseThrow().seqNo();
        assertThat(consensus.compareAndSet("s", seenByA, bytes(2))).isInstanceOf(CasResult.Committed.class);
        CasResult a = consensus.compareAndSet("s", seenByA, bytes(3));
        assertThat(a).isInstanceOfSatisfying(CasResult.Mismatch.class, m -> {
            assertThat(m.current()).hasValueSatisfying(v -> assertThat(value(v)).isEqualTo(2));
            assertThat(m.current().orElseThrow().seqNo()).isEqualTo(1);
        });
        // a writer that thinks the key is new is fenced too
        assertThat(consensus.compareAndSet("s", Consensus.NO_VERSION, bytes(4))).isInstanceOf(CasResult.Mismatch.class);
        // and one that expects a version from the future
        assertThat(consensus.compareAndSet("s", 7, bytes(4))).isInstanceOf(CasResult.Mismatch.class);
        assertThat(consensus.compareAndSet("new", 0, bytes(4))).isEqualTo(new CasResult.Mismatch(java.util.Optional.empty()));
        assertThat(value(consensus.head("s").orElseThrow())).isEqualTo(2);
    }

    @Test
    void racingWritersEachWinExactlyOnceForEveryVersion() throws Exception {
        int threads = 4;
        int increments = 150;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Long>>> won = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                won.add(pool.submit(() -> {
                    start.await();
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < increments; i++) {
                        while (true) {
                            var head = consensus.head("counter");
                            long seq = head.map(VersionedData::seqNo).orElse(Consensus.NO_VERSION);
                            long next = head.map(ConsensusContract::value).orElse(0L) + 1;
                            if (consensus.compareAndSet("counter", seq, bytes(next)) instanceof CasResult.Committed c) {
                                mine.add(c.seqNo());
                                break;
                            }
                        }
                    }
                    return mine;
                }));
            }
            start.countDown();
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> f : won) for (long s : f.get()) assertThat(all.add(s)).as("version %d won twice", s).isTrue();
            assertThat(all).hasSize(threads * increments);
        } finally {
            pool.shutdown();
        }
        VersionedData head = consensus.head("counter").orElseThrow();
        assertThat(head.seqNo()).isEqualTo(threads * increments - 1);
        assertThat(value(head)).isEqualTo(threads * increments);
        List<VersionedData> history = consensus.scan("counter", 0, Integer.MAX_VALUE);
        assertThat(history).hasSize(threads * increments);
        for (int i = 0; i < history.size(); i++) {
            assertThat(history.get(i).seqNo()).isEqualTo(i);
            assertThat(value(history.get(i))).as("each version adds one to the one before it").isEqualTo(i + 1);
        }
    }

    @Test
    void scansAVersionRangeAndTruncationForgetsOnlyWhatIsBelow() {
        for (int i = 0; i < 10; i++) consensus.compareAndSet("s", i - 1, bytes(100 + i));
        assertThat(consensus.scan("s", 3, 4)).extracting(VersionedData::seqNo).containsExactly(3L, 4L, 5L, 6L);
        assertThat(consensus.scan("s", 8, 100)).extracting(VersionedData::seqNo).containsExactly(8L, 9L);
        assertThat(consensus.scan("s", 20, 100)).isEmpty();
        assertThat(consensus.scan("nothing", 0, 100)).isEmpty();
        assertThat(consensus.truncate("s", 5)).isEqualTo(5);
        assertThat(consensus.truncate("s", 5)).isZero();
        assertThat(consensus.scan("s", 0, 100)).extracting(VersionedData::seqNo).containsExactly(5L, 6L, 7L, 8L, 9L);
        assertThatThrownBy(() -> consensus.truncate("s", 11)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latest version is 9");
        assertThat(consensus.truncate("s", 9)).isEqualTo(4);
        assertThat(consensus.head("s")).hasValueSatisfying(v -> assertThat(value(v)).isEqualTo(109));
        // truncation does not disturb writing on
        assertThat(consensus.compareAndSet("s", 9, bytes(110))).isEqualTo(new CasResult.Committed(10));
    }

    @Test
    void listsTheKeysThatHaveVersions() {
        for (String k : List.of("shard/b", "shard/a", "catalog", "shard/c")) consensus.compareAndSet(k, Consensus.NO_VERSION, bytes(1));
        consensus.compareAndSet("shard/a", 0, bytes(2));
        consensus.truncate("shard/a", 1);
        assertThat(consensus.keys("shard/")).containsExactly("shard/a", "shard/b", "shard/c");
        assertThat(consensus.keys("")).containsExactly("catalog", "shard/a", "shard/b", "shard/c");
        assertThat(consensus.keys("none")).isEmpty();
    }

    @Test
    void theStoreKeepsItsOwnCopy() {
        byte[] data = bytes(5);
        consensus.compareAndSet("s", Consensus.NO_VERSION, data);
        data[7] = 99;
        assertThat(value(consensus.head("s").orElseThrow())).isEqualTo(5);
    }

    @Test
    void badKeysAndArgumentsAreRefusedWithAReason() {
        assertThatThrownBy(() -> consensus.head("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("consensus key");
        assertThatThrownBy(() -> consensus.compareAndSet("x".repeat(1001), Consensus.NO_VERSION, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000");
    }
}
