package dev.tributary.bench;

import dev.tributary.storage.CasResult;
import dev.tributary.storage.Consensus;
import dev.tributary.storage.FileConsensus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Durable commits of the local consensus log: each thread compare-and-sets its own key (a shard's
 * state, as a table's writer would on every commit) with a 200-byte value, forced to disk before
 * it returns. Threads that commit together share a force (group commit), so the commits per
 * second grow with the threads while one commit's latency stays about one {@code fsync}. Run with
 * {@code -t 1}, {@code -t 4} and {@code -t 16}; the data directory is a fresh one under
 * {@code java.io.tmpdir} (on the machine's disk, not a tmpfs, for the figure to mean anything).
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class ConsensusCommitBenchmark {
    @State(Scope.Benchmark)
    public static class Log {
        Path dir;
        Consensus consensus;
        final AtomicInteger threads = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "consensus-bench");
            consensus = new FileConsensus(dir);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            consensus.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @State(Scope.Thread)
    public static class Writer {
        String key;
        long seqNo = Consensus.NO_VERSION;
        final byte[] value = new byte[200];

        @Setup(Level.Trial)
        public void name(Log log) {
            key = "shard/bench-" + log.threads.incrementAndGet();
        }
    }

    @Benchmark
    public long commit(Log log, Writer w) {
        CasResult r = log.consensus.compareAndSet(w.key, w.seqNo, w.value);
        if (!(r instanceof CasResult.Committed c)) throw new IllegalStateException("lost a race on its own key: " + r);
        w.seqNo = c.seqNo();
        // the state's history is not kept: as a shard forgets the states before its latest
        if (w.seqNo % 1000 == 999) log.consensus.truncate(w.key, w.seqNo);
        return w.seqNo;
    }
}
