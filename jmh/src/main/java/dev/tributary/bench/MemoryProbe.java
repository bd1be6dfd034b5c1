package dev.tributary.bench;

import dev.tributary.server.ArrangementSize;
import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Where the heap goes: the side-by-side workload's tables (1M orders, 100k customers, 10k
 * products, made with generate_series) and its four views in one embedded database on two
 * workers, then, per relation, what its own dataflow holds (each arrangement and other state,
 * {@link Tributary#arrangementSize}) and the heap live after a full collection. Compare the
 * totals with PostgreSQL's {@code pg_total_relation_size} of the same tables and views.
 *
 * <p>Command: {@code java -Xmx6g -cp jmh/target/benchmarks.jar dev.tributary.bench.MemoryProbe [orders]}.
 */
public final class MemoryProbe {
    private MemoryProbe() {}

    public static void main(String[] args) {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            long base = liveHeap();
            db.execute("CREATE TABLE customers (id int PRIMARY KEY, name text, region text)");
            db.execute("INSERT INTO customers SELECT i, 'customer-' || i, 'region-' || (i % 10) FROM generate_series(1, 100000) AS s(i)");
            db.execute("CREATE TABLE products (id int PRIMARY KEY, name text, price numeric(10,2))");
            db.execute("INSERT INTO products SELECT i, 'product-' || i, (i % 500) + 0.99 FROM generate_series(1, 10000) AS s(i)");
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, placed timestamptz)");
            db.execute("INSERT INTO orders SELECT i, 1 + i % 100000, 1 + (i * 7) % 10000, 1 + i % 10, "
                    + "timestamptz '2025-01-01 00:00:00+00' + (i % 31536000) * interval '1 second' FROM generate_series(1, " + orders + ") AS s(i)");
            long tables = liveHeap();
            report(db, List.of("customers", "products", "orders"));
            System.out.printf("live heap: tables %d MB%n", (tables - base) >> 20);
            for (String[] v : new String[][] {
                    {"v1", "SELECT customer_id, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer_id"},
                    {"v2", "SELECT c.region, p.name, count(*) AS n, sum(o.qty * p.price) AS revenue FROM orders o"
                            + " JOIN customers c ON o.customer_id = c.id JOIN products p ON o.product_id = p.id GROUP BY c.region, p.name"},
                    {"v3", "SELECT o.id, o.qty, c.name FROM orders o JOIN customers c ON o.customer_id = c.id WHERE c.region = 'region-3' AND o.qty > 8"},
                    {"v4", "SELECT product_id, min(qty) AS lo, max(qty) AS hi FROM orders GROUP BY product_id"}}) {
                long before = liveHeap();
                db.execute("CREATE MATERIALIZED VIEW " + v[0] + " AS " + v[1]);
                long after = liveHeap();
                report(db, List.of(v[0]));
                System.out.printf("live heap: %s adds %d MB%n", v[0], (after - before) >> 20);
            }
            System.out.printf("live heap: everything %d MB%n", (liveHeap() - base) >> 20);
            // -Dprobe.pause=SECONDS: time to take a class histogram (jcmd PID GC.class_histogram)
            long pause = Long.getLong("probe.pause", 0);
            if (pause > 0) {
                System.out.println("pausing " + pause + " s: jcmd " + ProcessHandle.current().pid() + " GC.class_histogram");
                try {
                    Thread.sleep(pause * 1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static void report(Tributary db, List<String> names) {
        for (String name : names) {
            ArrangementSize s = db.arrangementSize(name);
            System.out.printf("%-10s %,12d records %,8d kB%n", name, s.records(), s.bytes() >> 10);
            for (ArrangementSize.Part p : s.parts()) System.out.printf("    %-28s %,12d records %,8d kB%n", p.name(), p.records(), p.bytes() >> 10);
        }
    }

    private static long liveHeap() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
