package dev.tributary.bench;

import dev.tributary.server.Prepared;
import dev.tributary.server.Result;
import dev.tributary.server.Tributary;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The server side of a point select, without the network: a prepared {@code SELECT v FROM
 * kv_view WHERE k = $1} against an indexed materialized view of {@link KvDataset}'s rows, run
 * through the embedded API as the wire server runs an Execute (its implicit transaction begun and
 * ended around it). This is the cost {@code jmh/pgbench-compare.sh} adds on top of the protocol;
 * with {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes one query allocates. Every answer
 * is checked.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class PointReadBenchmark {
    private static final int ROWS = 100_000;

    private Tributary db;

    /** One client: its own session and prepared statement. */
    @State(Scope.Thread)
    public static class Client {
        Tributary.Connection session;
        Prepared select;
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());

        @Setup(Level.Trial)
        public void prepare(PointReadBenchmark bench) {
            session = bench.db.session();
            select = session.prepare("SELECT v FROM kv_view WHERE k = $1", List.of());
        }
    }

    @Setup(Level.Trial)
    public void load() {
        db = Tributary.inMemory();
        db.execute("CREATE TABLE kv (k bigint PRIMARY KEY, v text)");
        for (int from = 0; from < ROWS; from += 1000) {
            StringBuilder insert = new StringBuilder("INSERT INTO kv VALUES ");
            for (int k = from; k < from + 1000; k++) {
                if (k > from) insert.append(", ");
                insert.append('(').append(k).append(", '").append(KvDataset.value(k)).append("')");
            }
            db.execute(insert.toString());
        }
        db.execute("CREATE MATERIALIZED VIEW kv_view AS SELECT k, v FROM kv");
        db.execute("CREATE INDEX kv_view_k ON kv_view (k)");
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
    }

    @Benchmark
    public Result select(Client c) {
        long k = c.random.nextLong(ROWS);
        List<Object> values = new ArrayList<>(1);
        values.add(k);
        c.session.beginImplicitTransaction();
        Result r = c.session.execute(c.select, values);
        c.session.endImplicitTransaction();
        if (r.rows().size() != 1 || !KvDataset.value(k).equals(r.rows().get(0)[0])) {
            throw new AssertionError("key " + k + " gave " + r.text() + ", not " + KvDataset.value(k));
        }
        return r;
    }

    /** The same from four client threads at once: point reads take no shared lock. */
    @Benchmark
    @Threads(4)
    public Result select4(Client c) {
        return select(c);
    }
}
