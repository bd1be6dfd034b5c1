package dev.tributary.bench;

import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.Trace;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Memory and pauses of a large trace, one shot each.
 *
 * <p>Builds a trace of {@code updates} random (long, long) updates with distinct keys and values,
 * inserted in batches of {@code batch} updates at successive times, timing every insertion. Then
 * exerts the trace until it is one compacted batch and reports its heap bytes per update.
 * {@code effort} is the merge fuel per inserted update ("unfueled" completes each merge as soon
 * as it begins, the baseline). Reported as auxiliary counters (summed over the iterations by JMH:
 * divide by the iteration count): {@code maxPauseMs} and {@code p999PauseMs} of single insertions
 * in wall-clock time (garbage collection pauses included), {@code maxInsertWork}, the most merge
 * work (updates read) any one insertion did, which is the pause the spine itself causes, and
 * {@code bytesPerUpdate} after full merging.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms12g", "-Xmx12g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class ArrangementFootprintBenchmark {
    @Param({"10000000"})
    public int updates;

    @Param({"1000"})
    public int batch;

    @Param({"fueled", "unfueled"})
    public String effort;

    /** What one shot measured. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Result {
        public double maxPauseMs;
        public double p999PauseMs;
        public double bytesPerUpdate;
        public double maxInsertWork;

        @Setup(Level.Iteration)
        public void reset() {
            maxPauseMs = 0;
            p999PauseMs = 0;
            bytesPerUpdate = 0;
            maxInsertWork = 0;
        }
    }

    @Benchmark
    public long build(Result result) {
        TraceHandle trace = Trace.create("footprint", new LongColumn(), new LongColumn(), 1,
                effort.equals("unfueled") ? Trace.UNFUELED : 4);
        // No reader here needs batch boundaries: let every batch into the merges at once.
        trace.setPhysicalCompaction(Antichain.empty(1));
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(batch), new LongColumn(batch), 1);
        SplittableRandom random = new SplittableRandom(7);
        Histogram pauses = new Histogram(3);
        long key = 0;
        for (long t = 0; t * batch < updates; t++) {
            u.clear();
            for (int i = 0; i < batch; i++) {
                // distinct keys in random order: a multiplicative permutation of 0..2^40
                ((LongColumn) u.keys()).add((key++ * 0x9E3779B97F4A7C15L) >>> 24);
                ((LongColumn) u.vals()).add(random.nextLong());
                u.push(t, 1);
            }
            batcher.push(u);
            var b = batcher.seal(Antichain.of(t + 1));
            long start = System.nanoTime();
            trace.trace().insert(b);
            pauses.recordValue(System.nanoTime() - start);
        }
        trace.setLogicalCompaction(trace.upper());
        while (trace.trace().exert(1 << 20)) {
            // merge until one compacted batch remains
        }
        result.maxInsertWork = trace.trace().maxInsertWork();
        result.maxPauseMs = pauses.getMaxValue() / 1e6;
        result.p999PauseMs = pauses.getValueAtPercentile(99.9) / 1e6;
        result.bytesPerUpdate = (double) trace.trace().heapBytes() / trace.trace().updateCount();
        return trace.trace().updateCount();
    }
}
