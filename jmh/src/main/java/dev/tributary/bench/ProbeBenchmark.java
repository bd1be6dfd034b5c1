package dev.tributary.bench;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.Arrays;
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
 * Sparse probes of one large batch, the lookup half of a join or reduce whose few new keys meet
 * a trace of millions: {@value #PROBES} sorted random keys (all present) looked up in a batch of
 * {@code keys} (long, long) records with one value and one update per key, reading each found
 * key's value, time and diff. {@code prepared}: the probes are first handed to
 * {@link Cursor#prepareSeeks} and looked up with {@link Cursor#seekKeyExact}; otherwise each is a
 * plain {@link Cursor#seekKey} from the first key. Score: nanoseconds per probe.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class ProbeBenchmark {
    static final int PROBES = 100;
    private static final int ROUNDS = 1024;

    @Param({"10000", "10000000"})
    public int keys;

    @Param({"true", "false"})
    public boolean prepared;

    private Batch batch;
    private LongColumn[] rounds;
    private int round;
    private final LongColumn target = new LongColumn(1);
    private long sum;
    private final Cursor.TimeDiffConsumer add = (t, off, diff) -> sum += t[off] + diff;

    @Setup
    public void build() {
        SplittableRandom random = new SplittableRandom(7);
        Updates u = new Updates(new LongColumn(keys), new LongColumn(keys), 1);
        for (int k = 0; k < keys; k++) {
            ((LongColumn) u.keys()).add(3L * k);
            ((LongColumn) u.vals()).add(random.nextInt());
            u.push(0, 1);
        }
        Batcher batcher = new Batcher(new LongColumn(1), new LongColumn(1), 1);
        batcher.push(u);
        batch = batcher.seal(Antichain.of(new long[] {1}));
        rounds = new LongColumn[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long[] p = new long[PROBES];
            for (int i = 0; i < PROBES; i++) p[i] = 3L * random.nextInt(keys);
            Arrays.sort(p);
            rounds[r] = new LongColumn(PROBES);
            for (long x : p) rounds[r].add(x);
        }
    }

    @Benchmark
    @OperationsPerInvocation(PROBES)
    public long probe() {
        LongColumn probes = rounds[round++ & (ROUNDS - 1)];
        Cursor c = batch.cursor();
        if (prepared) c.prepareSeeks(probes);
        for (int i = 0; i < probes.size(); i++) {
            boolean found;
            if (prepared) {
                found = c.seekKeyExact(probes, i);
            } else {
                c.rewindKeys();
                target.clear();
                target.add(probes.getLong(i));
                c.seekKey(target, 0);
                found = c.keyValid() && c.keyColumn().equal(c.keyIndex(), probes, i);
            }
            if (!found) continue;
            sum += ((LongColumn) c.valColumn()).getLong(c.valIndex());
            c.forEachTime(add);
        }
        return sum;
    }
}
