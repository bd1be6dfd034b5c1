package dev.tributary.bench;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.InputSession;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;
import dev.tributary.sql.types.SqlType;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Worker;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A subscription's delivery alone: rows per second through {@link ChangeStream} to a sink that
 * makes each row's values, as SUBSCRIBE's does, with nothing in front of the stream but its input.
 *
 * <p>Each of two workers inserts {@link #ROWS} rows shaped like Nexmark's bids (distinct within a
 * time, encoded once at set-up) at a time of their own per round, advances, and steps until the
 * time is delivered (worker 0, which gathers and delivers everything) or has passed its input
 * (worker 1). One invocation is {@link #ROUNDS} rounds; scores are rows delivered per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class SubscribeDeliveryBenchmark {
    static final int WORKERS = 2;
    static final int ROWS = 10_000;
    static final int ROUNDS = 20;

    static final RowCodec BID = new RowCodec(List.of(SqlType.BIGINT, SqlType.BIGINT, SqlType.BIGINT, SqlType.TEXT, SqlType.TEXT,
            SqlType.TIMESTAMP, SqlType.TEXT));

    private RoundDriver driver;
    private long delivered;

    @Setup(Level.Trial)
    public void start() {
        driver = new RoundDriver(WORKERS, this::build);
    }

    private RoundDriver.Batch build(Worker worker) {
        BytesColumn rows = new BytesColumn(ROWS, ROWS * 96);
        LocalDateTime at = LocalDateTime.of(2015, 7, 15, 0, 0);
        for (int i = 0; i < ROWS; i++) {
            long bid = (long) i * WORKERS + worker.index();
            rows.add(BID.encode(1000 + bid % 997, 2000 + bid % 10_007, 100 + bid % 5000, "channel-" + bid % 4,
                    "https://www.nexmark.com/auction/bid?id=" + bid, at.plusNanos(bid * 1000), "").toBytes());
        }
        Delivering sink = new Delivering();
        @SuppressWarnings("unchecked") InputSession<dev.tributary.sql.row.Row>[] in = new InputSession[1];
        Probe probe = worker.dataflow("subscribe", scope -> {
            in[0] = InputSession.create(scope, "bids", RowDataType.INSTANCE);
            ChangeStream.subscribe(in[0].collection(), null, new ChangeStream.Options(-1, false, false, Long.MAX_VALUE), sink);
            return in[0].collection().probe();
        });
        long[] time = {0};
        return number -> {
            for (int r = 0; r < ROUNDS; r++) {
                long t = time[0]++;
                in[0].updateRange(rows, 0, ROWS, 1);
                in[0].advanceTo(t + 1);
                if (worker.index() == 0) worker.stepWhile(() -> sink.last < t);
                else worker.stepWhile(() -> probe.lessEqual(t));
            }
            if (worker.index() == 0) delivered = sink.rows;
        };
    }

    /** Makes each change's row of values as the server's SUBSCRIBE sink does, and counts them. */
    static final class Delivering implements ChangeStream.Sink<dev.tributary.sql.row.Row, dev.tributary.sql.row.Row> {
        long last = -1;
        long rows;
        Object sunk;

        @Override
        public void changes(long time, ChangeStream.Changes<dev.tributary.sql.row.Row> changes) {
            for (int i = 0; i < changes.size(); i++) {
                Object[] r = new Object[3 + BID.arity()];
                r[0] = time;
                r[2] = changes.diff(i);
                BID.decode(changes.column(), changes.index(i), r, 3);
                sunk = r;
            }
            rows += changes.size();
            last = time;
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROUNDS * ROWS * WORKERS)
    public void deliver() {
        driver.runBatch();
    }

    @TearDown(Level.Trial)
    public void stop() {
        driver.close();
        if (delivered % ((long) ROWS * WORKERS) != 0 || delivered == 0) {
            throw new IllegalStateException(delivered + " rows delivered: not whole rounds of " + ROWS * WORKERS);
        }
    }
}
