package dev.tributary.bench;

import dev.tributary.server.Clock;
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
 * Building a materialized view over rows that exist: the side-by-side workload's orders table
 * ({@code rows} orders, 100 000 customers, 10 000 products) on two workers, and the time from
 * CREATE MATERIALIZED VIEW to its return (CREATE waits for the build), the view then dropped.
 * {@code view}: {@code v1} counts and sums per customer (accumulable), {@code v4} takes the min
 * and max price per product (ordered, a top-k per group). The heap is committed and touched up
 * front, so the figure is the build's work, not the first use of the heap's memory (which on a
 * VM can cost more than the build).
 *
 * <p>Command: {@code java -jar jmh/target/benchmarks.jar ViewBuildBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 8)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class ViewBuildBenchmark {
    @Param({"1000000"})
    public int rows;

    @Param({"v1", "v4"})
    public String view;

    private Tributary db;

    @Setup(Level.Trial)
    public void load() {
        db = Tributary.inMemory(Clock.manual(0), 2);
        db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, price numeric(10,2))");
        db.execute("INSERT INTO orders SELECT i, i % 100000, i % 10000, i % 10, (i % 1000) / 10.0 FROM generate_series(1, " + rows + ") AS s(i)");
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
    }

    @TearDown(Level.Invocation)
    public void drop() {
        db.execute("DROP MATERIALIZED VIEW IF EXISTS bench_view");
    }

    @Benchmark
    public void build() {
        String query = view.equals("v1")
                ? "SELECT customer_id, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer_id"
                : "SELECT product_id, min(price) AS lo, max(price) AS hi FROM orders GROUP BY product_id";
        db.execute("CREATE MATERIALIZED VIEW bench_view AS " + query);
        List<List<String>> n = db.query("SELECT count(*) FROM bench_view").text();
        String expected = view.equals("v1") ? Integer.toString(Math.min(rows, 100000)) : Integer.toString(Math.min(rows, 10000));
        if (!n.equals(List.of(List.of(expected)))) throw new IllegalStateException(view + " has " + n + " rows, expected " + expected);
    }
}
