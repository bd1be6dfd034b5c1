package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileConsensusTest extends ConsensusContract {
    @TempDir
    Path dir;

    @Override
    protected Consensus open() {
        return new FileConsensus(dir);
    }

    private Path log() {
        return dir.resolve("consensus.log");
    }

    @Test
    void versionsAndTruncationsOutliveTheStore() {
        for (int i = 0; i < 5; i++) consensus.compareAndSet("a", i - 1, bytes(i));
        consensus.compareAndSet("b", Consensus.NO_VERSION, bytes(42));
        consensus.truncate("a", 3);
        consensus.close();
        consensus = open();
        assertThat(consensus.scan("a", 0, 10)).extracting(VersionedData::seqNo).containsExactly(3L, 4L);
        assertThat(value(consensus.head("b").orElseThrow())).isEqualTo(42);
        assertThat(consensus.compareAndSet("a", 4, bytes(5))).isEqualTo(new CasResult.Committed(5));
    }

    @Test
    void aRecordTornByACrashAtTheEndIsCutOffAndWritingGoesOn() throws IOException {
        consensus.compareAndSet("a", Consensus.NO_VERSION, bytes(1));
        consensus.compareAndSet("a", 0, bytes(2));
        consensus.close();
        long whole = Files.size(log());
        // the first bytes of a third record, as a crash in the middle of its write leaves them
        Files.write(log(), new byte[] {0, 0, 0, 40, 1, 2, 3}, StandardOpenOption.APPEND);
        consensus = open();
        assertThat(consensus.head("a").orElseThrow().seqNo()).isEqualTo(1);
        assertThat(Files.size(log())).isEqualTo(whole);
        assertThat(consensus.compareAndSet("a", 1, bytes(3))).isEqualTo(new CasResult.Committed(2));
        consensus.close();
        // a whole record whose bytes did not all reach the disk: its checksum fails, and it is last
        byte[] bytes = Files.readAllBytes(log());
        bytes[bytes.length - 1] ^= 0x55;
        Files.write(log(), bytes);
        consensus = open();
        assertThat(consensus.head("a").orElseThrow().seqNo()).isEqualTo(1);
    }

    @Test
    void damageBeforeTheEndIsAnErrorNotSilentlyLostVersions() throws IOException {
        consensus.compareAndSet("a", Consensus.NO_VERSION, bytes(1));
        consensus.compareAndSet("a", 0, bytes(2));
        consensus.close();
        byte[] bytes = Files.readAllBytes(log());
        bytes[8 + 8 + 3] ^= 1; // in the first record's key
        Files.write(log(), bytes);
        assertThatThrownBy(this::open).isInstanceOf(CorruptDataException.class).hasMessageContaining("damaged at byte 8");
        Files.write(log(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
        assertThatThrownBy(this::open).isInstanceOf(CorruptDataException.class).hasMessageContaining("header");
        consensus = new MemoryConsensus(); // for tearDown
    }

    @Test
    void aSecondStoreOnTheSameDirectoryIsRefusedInThisProcess() {
        assertThatThrownBy(this::open).isInstanceOf(StorageException.class).hasMessageContaining("in use");
        // and the first goes on working
        assertThat(consensus.compareAndSet("a", Consensus.NO_VERSION, bytes(1))).isEqualTo(new CasResult.Committed(0));
    }

    @Test
    void aSecondProcessIsRefusedWhileTheFirstHoldsTheDirectory() throws Exception {
        assertThat(runChild()).as("child while held").isEqualTo(3);
        consensus.close();
        assertThat(runChild()).as("child once released").isZero();
        consensus = open();
        assertThat(value(consensus.head("child").orElseThrow())).isEqualTo(7);
    }

    /** Opens the store in another JVM and writes a version: 0 if it could, 3 if refused. */
    private int runChild() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Child.class.getName(), dir.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        if (p.exitValue() == 3) assertThat(out).contains("in use");
        return p.exitValue();
    }

    /** The other process of {@link #aSecondProcessIsRefusedWhileTheFirstHoldsTheDirectory}. */
    public static final class Child {
        public static void main(String[] args) {
            try (FileConsensus c = new FileConsensus(Path.of(args[0]))) {
                c.compareAndSet("child", Consensus.NO_VERSION, bytes(7));
            } catch (StorageException e) {
                System.out.println(e.getMessage());
                System.exit(3);
            }
            System.exit(0);
        }
    }

    @Test
    void aLogMostlyOfForgottenVersionsIsRewrittenAndKeepsWhatIsRetained() throws IOException {
        byte[] big = new byte[4096];
        for (int i = 0; i < 600; i++) {
            big[0] = (byte) i;
            consensus.compareAndSet("s", i - 1, big.clone());
        }
        consensus.compareAndSet("t", Consensus.NO_VERSION, bytes(1));
        long before = Files.size(log());
        assertThat(before).isGreaterThan(2_000_000);
        consensus.truncate("s", 598);
        assertThat(Files.size(log())).as("rewritten").isLessThan(before / 10);
        assertThat(consensus.scan("s", 0, 10)).extracting(VersionedData::seqNo).containsExactly(598L, 599L);
        assertThat(consensus.compareAndSet("s", 599, bytes(9))).isEqualTo(new CasResult.Committed(600));
        consensus.close();
        consensus = open();
        assertThat(consensus.scan("s", 0, 10)).extracting(VersionedData::seqNo).containsExactly(598L, 599L, 600L);
        assertThat(value(consensus.head("s").orElseThrow())).isEqualTo(9);
        assertThat(value(consensus.head("t").orElseThrow())).isEqualTo(1);
        assertThat(Files.list(dir).map(p -> p.getFileName().toString())).doesNotContain("consensus.log~rewrite");
    }

    /** Commits that arrive while a force is pending share it: eight writers, one force. */
    @Test
    void commitsThatArriveTogetherShareOneForce() throws Exception {
        consensus.close();
        int writers = 8;
        FileConsensus[] log = new FileConsensus[1];
        // the first force waits until every writer has appended: then it covers them all
        log[0] = new FileConsensus(dir, () -> {
            while (log[0].appended() < writers) Thread.onSpinWait();
        });
        consensus = log[0];
        long before = log[0].forces();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        try {
            List<java.util.concurrent.Future<CasResult>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                String key = "shard/w" + w;
                results.add(pool.submit(() -> log[0].compareAndSet(key, Consensus.NO_VERSION, bytes(1))));
            }
            for (var r : results) assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(new CasResult.Committed(0));
        } finally {
            pool.shutdown();
        }
        assertThat(log[0].forces() - before).isEqualTo(1);
    }

    /**
     * Writers waiting for their commit's force while truncations rewrite the log: a rewrite once
     * made the log's offsets smaller than those waited for, and the waiters never returned.
     */
    @Test
    void writersKeepCommittingWhileTheLogIsRewritten() throws Exception {
        int writers = 4;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        long[] sizes = new long[1];
        try {
            List<java.util.concurrent.Future<Integer>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                String key = "shard/w" + w;
                done.add(pool.submit(() -> {
                    byte[] value = new byte[4096];
                    for (int i = 0; i < 400; i++) {
                        value[0] = (byte) i;
                        assertThat(consensus.compareAndSet(key, i - 1, value.clone())).isEqualTo(new CasResult.Committed(i));
                        if (i % 50 == 49) consensus.truncate(key, i);
                    }
                    return 400;
                }));
            }
            for (var d : done) assertThat(d.get(120, TimeUnit.SECONDS)).isEqualTo(400);
            sizes[0] = Files.size(log());
        } finally {
            pool.shutdownNow();
        }
        // 6.5 MB of versions were written; a log that was never rewritten would hold them all
        assertThat(sizes[0]).isLessThan(3_000_000);
        consensus.close();
        consensus = open();
        for (int w = 0; w < writers; w++) assertThat(consensus.head("shard/w" + w).orElseThrow().seqNo()).isEqualTo(399);
    }

    /** A damaged length looks like a record cut short; whole records after it show it is not the end. */
    @Test
    void aDamagedLengthBeforeTheEndIsAnErrorNotACut() throws IOException {
        for (int i = 0; i < 5; i++) consensus.compareAndSet("k", i - 1, bytes(i));
        consensus.close();
        byte[] bytes = Files.readAllBytes(log());
        bytes[8] |= (byte) 0x80; // the first record's length, now negative
        Files.write(log(), bytes);
        assertThatThrownBy(this::open).isInstanceOf(CorruptDataException.class).hasMessageContaining("whole records after it");
        assertThat(Files.size(log())).isEqualTo(bytes.length);
        consensus = new MemoryConsensus(); // for tearDown
    }

    /** A record whose checksum is right but whose fields do not fit is damage, not an exception of another kind. */
    @Test
    void aRecordWhoseKeyRunsPastItIsCorruptData() throws IOException {
        consensus.close();
        java.nio.ByteBuffer r = java.nio.ByteBuffer.allocate(8 + 12);
        r.position(8);
        r.put((byte) 1).putShort((short) 5).put(new byte[9]);
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(r.array(), 8, 12);
        r.putInt(0, 12).putInt(4, (int) c.getValue());
        Files.write(log(), r.array(), StandardOpenOption.APPEND);
        assertThatThrownBy(this::open).isInstanceOf(CorruptDataException.class).hasMessageContaining("key runs past it");
        consensus = new MemoryConsensus(); // for tearDown
    }

    /**
     * A caller whose thread is interrupted (a cancelled task) commits, keeps its interrupt, and
     * leaves the store working for everyone: an interrupted thread's I/O used to close the log's
     * channel and fail the store for good.
     */
    @Test
    void anInterruptedCallerNeitherFailsTheStoreNorLosesItsInterrupt() throws Exception {
        Thread.currentThread().interrupt();
        CasResult r = consensus.compareAndSet("k", Consensus.NO_VERSION, bytes(1));
        assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
        assertThat(r).isEqualTo(new CasResult.Committed(0));
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            assertThat(other.submit(() -> consensus.compareAndSet("k", 0, bytes(2))).get(60, TimeUnit.SECONDS)).isEqualTo(new CasResult.Committed(1));
        } finally {
            other.shutdown();
        }
        Thread.currentThread().interrupt();
        consensus.truncate("k", 1);
        assertThat(Thread.interrupted()).isTrue();
        consensus.close();
        consensus = open();
        assertThat(value(consensus.head("k").orElseThrow())).isEqualTo(2);
    }
}
