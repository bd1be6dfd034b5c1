package dev.tributary.bench;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How long the side-by-side workload's views take to build over existing data, in one embedded
 * database on two workers, each view built and dropped {@code rounds} times in turn, with the
 * median of each printed. Unlike {@link ViewBuildBenchmark}, the orders are written as ten
 * statements of 100k rows (ten times, as a load by COPY writes them), and a run is quick enough
 * to compare two builds side by side. Since session 21 the orders' customers and products are
 * scattered (multiplicative hashes of the id), as random data is: the figures of earlier sessions
 * had them in ascending runs.
 *
 * <p>Command: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xms6g -Xmx6g
 * -XX:+AlwaysPreTouch -cp jmh/target/benchmarks.jar dev.tributary.bench.ViewBuildProbe [views]
 * [rounds] [workers]} ({@code views} a string naming those to build, default {@code v1v2v3v4}, with {@code g1} a global count, sum
 * and max, with {@code i1} also the
 * workload's index on v1 after each build of v1; 5
 * rounds; 2 workers, as {@code bin/tributary serve} runs on this machine).
 * Pre-touching the heap keeps the JVM's first use of its memory out of the figures.
 */
public final class ViewBuildProbe {
    private ViewBuildProbe() {}

    private static final String[][] VIEWS = {
            {"v1", "SELECT customer_id, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer_id"},
            {"v2", "SELECT c.region, p.name, count(*) AS n, sum(o.qty * p.price) AS revenue FROM orders o"
                    + " JOIN customers c ON o.customer_id = c.id JOIN products p ON o.product_id = p.id GROUP BY c.region, p.name"},
            {"v3", "SELECT o.id, o.qty, c.name FROM orders o JOIN customers c ON o.customer_id = c.id WHERE c.region = 'region-3' AND o.qty > 8"},
            {"v4", "SELECT product_id, min(qty) AS lo, max(qty) AS hi FROM orders GROUP BY product_id"},
            // not one of the workload's views: the "a global sum or max over 1M rows"
            {"g1", "SELECT count(*) AS n, sum(qty) AS q, max(qty) AS hi FROM orders"}};

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "v1v2v3v4";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        try (Tributary db = Tributary.inMemory(Clock.wall(), workers)) {
            db.execute("CREATE TABLE customers (id int PRIMARY KEY, name text, region text)");
            db.execute("INSERT INTO customers SELECT i, 'customer-' || i, 'region-' || (i % 7) FROM generate_series(1, 100000) AS s(i)");
            db.execute("CREATE TABLE products (id int PRIMARY KEY, name text, price numeric(10,2))");
            db.execute("INSERT INTO products SELECT i, 'product-' || i, (i % 500) + 0.99 FROM generate_series(1, 10000) AS s(i)");
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, placed timestamptz)");
            for (int c = 0; c < 10; c++) {
                // customers and products in no order, as the side-by-side workload's random data has them
                // (a stride like (i * 79) % 100000 arrives in sorted runs, which hid the cost of sorting)
                db.execute("INSERT INTO orders SELECT i, 1 + (i * 2654435761 % 1000003) % 100000, 1 + (i::bigint * 40503 % 1000033) % 10000, 1 + (i * 13) % 10, "
                        + "timestamptz '2025-01-01 00:00:00+00' + (i % 31536000) * interval '1 second' FROM generate_series("
                        + (c * 100_000 + 1) + ", " + ((c + 1) * 100_000) + ") AS s(i)");
            }
            List<long[]> millis = new ArrayList<>();
            for (String[] v : VIEWS) millis.add(new long[rounds]);
            long[] indexMillis = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < VIEWS.length; i++) {
                    if (!which.contains(VIEWS[i][0])) continue;
                    long start = System.nanoTime();
                    db.execute("CREATE MATERIALIZED VIEW " + VIEWS[i][0] + " AS " + VIEWS[i][1]);
                    millis.get(i)[r] = (System.nanoTime() - start) / 1_000_000;
                    if (i == 0 && which.contains("i1")) {
                        // the side-by-side workload's index on v1, built over the view's 100k rows
                        start = System.nanoTime();
                        db.execute("CREATE INDEX v1_customer ON v1 (customer_id)");
                        indexMillis[r] = (System.nanoTime() - start) / 1_000_000;
                    }
                    db.execute("DROP MATERIALIZED VIEW " + VIEWS[i][0]);
                }
            }
            for (int i = 0; i < VIEWS.length; i++) {
                if (!which.contains(VIEWS[i][0])) continue;
                long[] m = millis.get(i).clone();
                Arrays.sort(m);
                System.out.printf("%s built in %s ms; median %d ms%n", VIEWS[i][0], Arrays.toString(millis.get(i)), m[rounds / 2]);
            }
            if (which.contains("i1") && which.contains("v1")) {
                long[] m = indexMillis.clone();
                Arrays.sort(m);
                System.out.printf("i1 (index on v1) built in %s ms; median %d ms%n", Arrays.toString(indexMillis), m[rounds / 2]);
            }
        }
    }
}
