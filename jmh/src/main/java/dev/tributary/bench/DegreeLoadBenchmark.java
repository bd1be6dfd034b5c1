package dev.tributary.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Loading the degree-counting experiment of differential dataflow's README ({@link DegreeProgram}):
 * {@code edges} random edges over {@code nodes} nodes, all at time 0, split over the workers;
 * one shot is from the first edge generated until every worker's probe has passed time 0 (DD's
 * "round 0 finished after ... (loading)": 15.5 s on 1 worker, 8.1 s on 2 for 10 M nodes and 50 M
 * edges). Each iteration starts a fresh computation (not timed) and stops it after.
 *
 * <p>Score: seconds per load. Auxiliary counters (summed over iterations by JMH: divide by the
 * iteration count): {@code feedSec}, the part spent generating and feeding the edges (worker 0,
 * stepping every 64 k edges), and {@code settleSec}, the rest, from the advance to time 1 until
 * the probe passed 0. After each load, every worker's checksum must add up to {@code edges}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms16g", "-Xmx16g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class DegreeLoadBenchmark extends DegreeParams {
    private RoundDriver driver;
    private DegreeProgram[] programs;

    /** Where one load's time went. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Phases {
        public double feedSec;
        public double settleSec;

        @Setup(Level.Iteration)
        public void reset() {
            feedSec = 0;
            settleSec = 0;
        }
    }

    @Setup(Level.Iteration)
    public void start() {
        programs = new DegreeProgram[workers];
        driver = new RoundDriver(workers, worker -> {
            DegreeProgram p = new DegreeProgram(worker, nodes, shape);
            programs[worker.index()] = p;
            return n -> p.load(DegreeProgram.share(edges, p.index, workers));
        });
    }

    @Benchmark
    public void load(Phases phases) {
        driver.runBatch();
        phases.feedSec = programs[0].feedNanos / 1e9;
        phases.settleSec = programs[0].settleNanos / 1e9;
    }

    @TearDown(Level.Iteration)
    public void stop() {
        driver.close();
        long sum = 0;
        for (DegreeProgram p : programs) sum += p.checksum.value;
        if (sum != edges) throw new IllegalStateException("the degrees add up to " + sum + " after loading " + edges + " edges");
        driver = null;
        programs = null;
    }
}
