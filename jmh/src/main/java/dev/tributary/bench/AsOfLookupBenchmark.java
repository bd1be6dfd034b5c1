package dev.tributary.bench;

import dev.tributary.server.Tributary;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 8: a point-in-time lookup of {@code orders} orders in a {@code changes}-version price
 * history ({@link AsOfWorkload}), three ways ({@code way}): the half-join operator
 * ({@code half_join}), its desugaring over CHANGES ({@code desugared}, planned after
 * {@code SET asof_join = desugared}) and a hand-written SCD-2 lookup over an explicit history
 * table ({@code scd2}: a correlated scalar subquery with {@code ORDER BY valid_from DESC LIMIT 1}).
 *
 * <p>One shot each, over data loaded once per trial: {@code shot = view} times
 * {@code CREATE MATERIALIZED VIEW v AS <query>} followed by {@code SELECT * FROM v} (the view is
 * complete when that returns), then (untimed) checks the rows against the answer computed
 * independently of the engine, prints what the view's dataflow and its source tables hold
 * ({@link Tributary#arrangementSize}) as an {@code [asof]} line, and drops the view;
 * {@code shot = select} times the query run once as a SELECT and checks its rows. Any wrong
 * answer fails the run.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 7)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms4g", "-Xmx4g"})
@State(Scope.Benchmark)
public class AsOfLookupBenchmark {
    @Param({"half_join", "half_join_index", "desugared", "scd2"})
    public String way;

    @Param({"view", "select"})
    public String shot;

    @Param({"10000"})
    public int orders;

    @Param({"21000"})
    public int changes;

    @Param({"300"})
    public int symbols;

    @Param({"1"})
    public int workers;

    private AsOfWorkload workload;
    private Tributary db;
    private Tributary.Connection session;
    private List<List<String>> rows;

    @Setup(Level.Trial)
    public void load() {
        workload = new AsOfWorkload(orders, changes, symbols);
        db = workload.load(workers);
        session = AsOfWorkload.session(db, way);
    }

    @Benchmark
    public int oneShot() {
        String q = AsOfWorkload.query(way);
        if (shot.equals("view")) {
            session.execute("CREATE MATERIALIZED VIEW v AS " + q);
            rows = session.execute("SELECT * FROM v").get(0).text();
        } else {
            rows = session.execute(q).get(0).text();
        }
        return rows.size();
    }

    @TearDown(Level.Invocation)
    public void checkAndDrop() {
        workload.check(way, rows);
        if (shot.equals("view")) {
            System.out.println(AsOfWorkload.sizes(db, way, "v"));
            session.execute("DROP MATERIALIZED VIEW v");
        }
        rows = null;
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
    }
}
