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
 * {@code view}: the side-by-side workload's views ({@link #query}): {@code v1} counts and sums per
 * customer (accumulable), {@code v2} joins three tables and groups by region and product,
 * {@code v3} is a selective join (a tenth of the orders, a seventh of the customers), {@code v4}
 * takes the min and max price per product (ordered, a top-k per group). The heap is committed and touched up
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

    @Param({"v1", "v2", "v3", "v4"})
    public String view;

    private Tributary db;
    private String expected;

    /** The side-by-side workload's four views (v4 over price rather than qty). */
    static String query(String view) {
        return switch (view) {
            case "v1" -> "SELECT customer_id, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer_id";
            case "v2" -> "SELECT c.region, p.name, count(*) AS n, sum(o.qty * p.price) AS revenue FROM orders o"
                    + " JOIN customers c ON o.customer_id = c.id JOIN products p ON o.product_id = p.id GROUP BY c.region, p.name";
            case "v3" -> "SELECT o.id, o.qty, c.name FROM orders o JOIN customers c ON o.customer_id = c.id WHERE c.region = 'region-3' AND o.qty > 8";
            case "v4" -> "SELECT product_id, min(price) AS lo, max(price) AS hi FROM orders GROUP BY product_id";
            default -> throw new IllegalArgumentException("no view " + view);
        };
    }

    /** The number of rows {@code view} has over the data {@link #load} makes, counted here. */
    static long expectedRows(String view, int rows) {
        java.util.Set<Long> groups = new java.util.HashSet<>();
        long n = 0;
        for (long i = 1; i <= rows; i++) {
            long c = i % 100000, p = i % 10000;
            switch (view) {
                case "v1" -> groups.add(c);
                case "v2" -> groups.add(c % 7 * 100000 + p);
                case "v3" -> n += (i % 10 > 8 && c % 7 == 3) ? 1 : 0;
                default -> groups.add(p);
            }
        }
        return view.equals("v3") ? n : groups.size();
    }

    @Setup(Level.Trial)
    public void load() {
        db = Tributary.inMemory(Clock.manual(0), 2);
        db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, price numeric(10,2))");
        db.execute("INSERT INTO orders SELECT i, i % 100000, i % 10000, i % 10, (i % 1000) / 10.0 FROM generate_series(1, " + rows + ") AS s(i)");
        db.execute("CREATE TABLE customers (id int PRIMARY KEY, name text, region text)");
        db.execute("INSERT INTO customers SELECT i, 'customer-' || i, 'region-' || (i % 7) FROM generate_series(0, 99999) AS s(i)");
        db.execute("CREATE TABLE products (id int PRIMARY KEY, name text, price numeric(10,2))");
        db.execute("INSERT INTO products SELECT i, 'product-' || i, (i % 500) + 0.99 FROM generate_series(0, 9999) AS s(i)");
        expected = Long.toString(expectedRows(view, rows));
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
        db.execute("CREATE MATERIALIZED VIEW bench_view AS " + query(view));
        List<List<String>> n = db.query("SELECT count(*) FROM bench_view").text();
        if (!n.equals(List.of(List.of(expected)))) throw new IllegalStateException(view + " has " + n + " rows, expected " + expected);
    }
}
