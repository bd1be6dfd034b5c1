package dev.tributary.bench;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.Trace;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Arranging random {@code (long key, long val)} updates on one worker: batching (sort and
 * consolidate), building batches, and the spine's fueled merges with compaction, as the arrange
 * operator does them, without the dataflow around it.
 *
 * <p>One invocation arranges {@link #BATCH} fresh updates at one new time: push them into the
 * batcher, seal at the next time, insert the batch into the trace (which pays merge fuel). The
 * trace's since follows the time, so merges also compact ({@code insert=false} measures batching
 * alone: sort, consolidate, build). Keys are drawn from {@code keys}
 * distinct values. Score: updates per second; {@code -prof gc} gives bytes allocated per update
 * (the batches themselves included).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms4g", "-Xmx4g"})
@State(Scope.Thread)
public class ArrangeBenchmark {
    static final int BATCH = 100_000;

    @Param({"1000000"})
    public int keys;

    /** Whether sealed batches go into the trace (paying its merges), or only get built. */
    @Param({"true", "false"})
    public boolean insert;

    private Batcher batcher;
    private TraceHandle trace;
    private Updates updates;
    private SplittableRandom random;
    private long time;

    @Setup(Level.Iteration)
    public void setup() {
        batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        trace = Trace.create("bench", new LongColumn(), new LongColumn(), 1);
        updates = new Updates(new LongColumn(BATCH), new LongColumn(BATCH), 1);
        random = new SplittableRandom(42);
        time = 0;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long arrange() {
        updates.clear();
        LongColumn k = (LongColumn) updates.keys();
        LongColumn v = (LongColumn) updates.vals();
        for (int i = 0; i < BATCH; i++) {
            k.add(random.nextInt(keys));
            v.add(random.nextInt(1000));
            updates.push(time, 1);
        }
        batcher.push(updates);
        time++;
        Batch batch = batcher.seal(Antichain.of(time));
        if (insert) {
            trace.trace().insert(batch);
            trace.setLogicalCompaction(Antichain.of(time));
        }
        return batch.updateCount();
    }
}
