package dev.tributary.bench;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Changing the degree-counting experiment of differential dataflow's README ({@link DegreeProgram})
 * after it has loaded {@code edges} edges over {@code nodes} nodes (once per trial, not timed).
 * As in {@code hello.rs}, worker 0 alone drives the input (the other workers close theirs after
 * loading and keep stepping); one round, at a time of its own, inserts a new random edge and
 * removes a loaded one, so it is two changes. The time is taken on worker 0, from the input's
 * advance (its changes already staged) until its probe has passed the round.
 *
 * <ul>
 *   <li>{@link #single}: rounds one at a time, each waited for (DD: about 120-230 us per round on
 *       1 worker). Score: microseconds per round including the benchmark thread's hand-off
 *       (one per {@value #SINGLE_ROUNDS} rounds). Auxiliary counters, from an HdrHistogram of
 *       the rounds of the iteration: {@code p50Us}, {@code p99Us}, {@code p999Us}, {@code maxUs}
 *       (summed over iterations by JMH: divide by the iteration count; each iteration line shows
 *       its own). At tear-down the trial's measured rounds are printed as one histogram.</li>
 *   <li>{@link #batched}: {@value #BATCH} rounds at consecutive times, staged together, then one
 *       advance past them all (DD: about 0.5 s per batch on 1 worker, 0.27 s on 2: about 5 and
 *       2.7 us per round). Score: microseconds per round, staging included; counter
 *       {@code workerUsPerRound}, from the advance on, is DD's figure.</li>
 * </ul>
 * With {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes per round (two changes).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms16g", "-Xmx16g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class DegreeUpdateBenchmark extends DegreeParams {
    /** Rounds per invocation of {@link #single}. */
    static final int SINGLE_ROUNDS = 1000;
    /** Rounds per batch (one invocation) of {@link #batched}. */
    static final int BATCH = 100_000;

    private RoundDriver driver;
    private DegreeProgram[] programs;
    /** What worker 0 does at the next request: rounds one by one, or one batch. */
    private volatile boolean batchedRequest;
    private final Histogram iteration = new Histogram(3_600_000_000_000L, 3);
    private final Histogram trial = new Histogram(3_600_000_000_000L, 3);
    private boolean measuring;
    private long batchNanos;
    private long batches;
    private double loadSec;

    /** The current iteration's single-round latencies, in microseconds. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Latency {
        public double p50Us;
        public double p99Us;
        public double p999Us;
        public double maxUs;

        @Setup(Level.Iteration)
        public void reset() {
            p50Us = 0;
            p99Us = 0;
            p999Us = 0;
            maxUs = 0;
        }
    }

    /** The current batch's time per round, taken on worker 0 from the advance on (DD's figure), in microseconds. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class BatchTime {
        public double workerUsPerRound;

        @Setup(Level.Iteration)
        public void reset() {
            workerUsPerRound = 0;
        }
    }

    @Setup(Level.Trial)
    public void start() {
        programs = new DegreeProgram[workers];
        driver = new RoundDriver(workers, worker -> {
            DegreeProgram p = new DegreeProgram(worker, nodes, shape);
            programs[worker.index()] = p;
            return n -> {
                if (n == 1) {
                    p.load(DegreeProgram.share(edges, p.index, workers));
                    if (p.index != 0) p.close();
                } else if (p.index == 0) {
                    if (batchedRequest) {
                        batchNanos += p.rounds(BATCH);
                        batches++;
                    } else {
                        for (int r = 0; r < SINGLE_ROUNDS; r++) {
                            long ns = p.round();
                            iteration.recordValue(ns);
                            if (measuring) trial.recordValue(ns);
                        }
                    }
                }
            };
        });
        long start = System.nanoTime();
        driver.runBatch();
        loadSec = (System.nanoTime() - start) / 1e9;
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
        iteration.reset();
        batchNanos = 0;
        batches = 0;
    }

    @Benchmark
    @OperationsPerInvocation(SINGLE_ROUNDS)
    public void single(Latency latency) {
        batchedRequest = false;
        driver.runBatch();
        latency.p50Us = iteration.getValueAtPercentile(50) / 1e3;
        latency.p99Us = iteration.getValueAtPercentile(99) / 1e3;
        latency.p999Us = iteration.getValueAtPercentile(99.9) / 1e3;
        latency.maxUs = iteration.getMaxValue() / 1e3;
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 2)
    @Measurement(iterations = 5)
    @OperationsPerInvocation(BATCH)
    public void batched(BatchTime latency) {
        batchedRequest = true;
        driver.runBatch();
        latency.workerUsPerRound = batchNanos / 1e3 / batches / BATCH;
    }

    @TearDown(Level.Trial)
    public void stop() {
        driver.close();
        long sum = 0;
        for (DegreeProgram p : programs) sum += p.checksum.value;
        if (trial.getTotalCount() > 0) {
            System.out.printf("%nload %.2f s; measured single rounds: %d, p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us, mean %.1f us%n",
                    loadSec, trial.getTotalCount(), trial.getValueAtPercentile(50) / 1e3, trial.getValueAtPercentile(90) / 1e3,
                    trial.getValueAtPercentile(99) / 1e3, trial.getValueAtPercentile(99.9) / 1e3, trial.getMaxValue() / 1e3, trial.getMean() / 1e3);
        } else {
            System.out.printf("%nload %.2f s%n", loadSec);
        }
        if (sum != edges) throw new IllegalStateException("the degrees add up to " + sum + " with " + edges + " edges");
    }
}
