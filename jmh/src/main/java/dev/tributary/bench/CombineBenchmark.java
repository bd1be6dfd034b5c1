package dev.tributary.bench;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * A view build's batching, alone: {@link #RECORDS} byte-string records at one time, drawn from
 * {@code distinct} (key, value) pairs at random, pushed into a {@link Batcher} in messages of
 * {@link #MESSAGE} and sealed into one batch. This is what arranging a grouping's input costs a
 * worker over existing data (v1 of the side-by-side workload: 500k rows a worker, two records a
 * row onto 100k groups' sums), where the batcher combines repeats as they come and its table is
 * larger than the cache. Keys are 4-byte strings (an encoded integer key), values 2 bytes. Score:
 * nanoseconds per record.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms4g", "-Xmx4g"})
@State(Scope.Thread)
public class CombineBenchmark {
    static final int RECORDS = 1 << 20;
    static final int MESSAGE = 4096;

    @Param({"10000", "200000"})
    public int distinct;

    private Updates[] messages;
    private long time;

    @Setup
    public void setup() {
        SplittableRandom random = new SplittableRandom(42);
        messages = new Updates[RECORDS / MESSAGE];
        for (int m = 0; m < messages.length; m++) {
            Updates u = new Updates(new BytesColumn(MESSAGE, MESSAGE * 4), new BytesColumn(MESSAGE, MESSAGE * 2), 1);
            BytesColumn k = (BytesColumn) u.keys();
            BytesColumn v = (BytesColumn) u.vals();
            for (int i = 0; i < MESSAGE; i++) {
                int pair = random.nextInt(distinct);
                int key = pair / 2;
                k.add(new byte[] {(byte) 0x80, (byte) (key >>> 16), (byte) (key >>> 8), (byte) key});
                v.add(new byte[] {(byte) 0x81, (byte) (pair & 1)});
                u.push(0, 1);
            }
            messages[m] = u;
        }
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long combine() {
        Batcher batcher = new Batcher(new BytesColumn(), new BytesColumn(), 1);
        // every invocation at a new time, as separate builds are
        time++;
        for (Updates m : messages) {
            long[] times = m.times();
            for (int i = 0; i < m.size(); i++) times[i] = time;
            batcher.push(m);
        }
        Batch batch = batcher.seal(Antichain.of(time + 1));
        return batch.updateCount();
    }
}
