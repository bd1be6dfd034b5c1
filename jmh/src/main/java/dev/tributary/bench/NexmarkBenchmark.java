package dev.tributary.bench;

import dev.tributary.nexmark.NexmarkGenerator;
import dev.tributary.nexmark.NexmarkLoader;
import dev.tributary.nexmark.NexmarkQueries;
import dev.tributary.nexmark.NexmarkRunner;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One Nexmark query per family, each run as {@link NexmarkRunner#run} runs it: a fresh database
 * with two workers, the query's SUBSCRIBE as the sink, and the time to load {@code events} events
 * (the tables it reads, 10,000 events a COPY) until the sink has every change. Families:
 * {@code q0} pass-through, {@code q2} a selection, {@code q3} a join of dimensions, {@code q20} a
 * join of bids with auctions, {@code q4} an aggregate over a join, {@code q5} sliding windows,
 * {@code q7} tumbling windows with a join to their maximum, {@code q17} aggregates with FILTER,
 * {@code q19} a top-10 per group, {@code q11} session windows; and streams in event time with
 * {@code EMIT ON WINDOW CLOSE}: {@code q5s}, {@code q7s}, {@code q11s} (timed until the watermark
 * has passed the last event less its delay). The figure is milliseconds per load; events/s is
 * {@code events / time}. The side-by-side figures against Flink come from
 * {@code jmh/nexmark-compare.sh}; this is for before-and-after on one query.
 *
 * <p>Command: {@code java -jar jmh/target/benchmarks.jar NexmarkBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class NexmarkBenchmark {
    @Param({"q0", "q2", "q3", "q20", "q4", "q5", "q7", "q17", "q19", "q11", "q5s", "q7s", "q11s"})
    public String query;

    @Param({"200000"})
    public long events;

    private List<NexmarkGenerator.Lines> chunks;
    private NexmarkQueries.Query q;

    @Setup(Level.Trial)
    public void generate() {
        q = NexmarkQueries.get(query);
        chunks = NexmarkLoader.chunks(new NexmarkGenerator(), events, 10_000);
    }

    @Benchmark
    public long load() throws InterruptedException {
        return NexmarkRunner.run(q, chunks, 2, false).rows();
    }
}
