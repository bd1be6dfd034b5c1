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
 * <p>Steady state: the collection is a sliding window. One invocation, at a new time, inserts
 * {@link #BATCH} fresh random records and retracts the {@code BATCH} inserted {@code window}
 * invocations earlier, so the trace holds about {@code window * BATCH} live records and every
 * invocation does the same work; that is {@code 2 * BATCH} updates. They are pushed into the
 * batcher, sealed at the next time, and the batch inserted into the trace (which pays merge fuel). The
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

    /** Invocations a record lives before it is retracted. */
    @Param({"10"})
    public int window;

    private long[][] windowKeys;
    private long[][] windowVals;
    private Batcher batcher;
    private TraceHandle trace;
    private Updates updates;
    private SplittableRandom random;
    private long time;

    @Setup(Level.Iteration)
    public void setup() {
        batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        trace = Trace.create("bench", new LongColumn(), new LongColumn(), 1);
        // No reader here needs batch boundaries: let every batch into the merges at once.
        trace.setPhysicalCompaction(Antichain.empty(1));
        updates = new Updates(new LongColumn(2 * BATCH), new LongColumn(2 * BATCH), 1);
        random = new SplittableRandom(42);
        time = 0;
        windowKeys = new long[window][BATCH];
        windowVals = new long[window][BATCH];
        // fill the window before measuring, so every measured invocation retracts as much as it adds
        for (int i = 0; i < window; i++) arrange();
    }

    @Benchmark
    @OperationsPerInvocation(2 * BATCH)
    public long arrange() {
        updates.clear();
        LongColumn k = (LongColumn) updates.keys();
        LongColumn v = (LongColumn) updates.vals();
        int slot = (int) (time % window);
        long[] oldKeys = windowKeys[slot];
        long[] oldVals = windowVals[slot];
        boolean retract = time >= window;
        for (int i = 0; i < BATCH; i++) {
            if (retract) {
                k.add(oldKeys[i]);
                v.add(oldVals[i]);
                updates.push(time, -1);
            }
            long key = random.nextInt(keys);
            long val = random.nextInt(1000);
            oldKeys[i] = key;
            oldVals[i] = val;
            k.add(key);
            v.add(val);
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
