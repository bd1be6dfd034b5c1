package dev.tributary.bench;

import dev.tributary.server.Clock;
import dev.tributary.server.Result;
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
 * One change to a group of {@code rows} values, until a view of an aggregate over the group shows
 * it: a row inserted (a new greatest value, then the next), and read back from the view. Each
 * invocation inserts one row with a larger value than any before and reads the view, checking the
 * answer; the setup (loading the group, building the view) is not timed.
 *
 * <p>{@code agg}: {@code sum} is accumulable (the group's totals change by the row's amounts),
 * {@code max} ordered (a walk to the greatest value), {@code string_agg} basic (the whole group
 * is read again: linear in it, for comparison). The group is the only one, so its size is the
 * table's. Before issue 23, every aggregate was basic, and a change to a group cost a pass over it.
 *
 * <p>Command: {@code java -jar jmh/target/benchmarks.jar AggregateBenchmark -p rows=1000,1000000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms6g", "-Xmx6g"})
@State(Scope.Benchmark)
public class AggregateBenchmark {
    @Param({"1000", "1000000"})
    public int rows;

    @Param({"sum", "max"})
    public String agg;

    private Tributary db;
    private long next;

    @Setup(Level.Trial)
    public void load() {
        db = Tributary.inMemory(Clock.manual(0), 1);
        db.execute("CREATE TABLE t (g int, x bigint)");
        db.execute("INSERT INTO t SELECT 1, i FROM generate_series(1, " + rows + ") AS s(i)");
        db.execute("CREATE MATERIALIZED VIEW v AS SELECT g, " + agg + "(x) AS a FROM t GROUP BY g");
        next = rows + 1;
        check(db.query("SELECT a FROM v"));
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
    }

    @Benchmark
    public Result insertAndRead() {
        db.execute("INSERT INTO t VALUES (1, " + next + ")");
        next++;
        Result r = db.query("SELECT a FROM v");
        check(r);
        return r;
    }

    /** The view holds the aggregate of the rows 1 .. next - 1. */
    private void check(Result r) {
        List<List<String>> text = r.text();
        long n = next - 1;
        String expected = agg.equals("max") ? Long.toString(n) : Long.toString(n * (n + 1) / 2);
        if (text.size() != 1 || !text.get(0).get(0).equals(expected)) {
            throw new IllegalStateException(agg + " over " + n + " rows read " + text + ", expected " + expected);
        }
    }
}
