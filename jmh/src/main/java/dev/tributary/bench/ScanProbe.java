package dev.tributary.bench;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.util.Arrays;

/**
 * How long scans with a filter take over a million orders in an embedded database on two
 * workers: an equality and two ranges over integer columns, each query run 15 times, the median
 * and least printed. No index serves them: every worker runs the filter over its part of the
 * table's arrangement.
 *
 * <p>Command: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xmx6g
 * -XX:MaxNewSize=1g -cp jmh/target/benchmarks.jar dev.tributary.bench.ScanProbe}.
 */
public final class ScanProbe {
    private ScanProbe() {}

    public static void main(String[] args) {
        try (Tributary db = Tributary.inMemory(Clock.wall(), 2)) {
            db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, placed timestamptz)");
            for (int c = 0; c < 10; c++) {
                db.execute("INSERT INTO orders SELECT i, 1 + (i * 79) % 100000, 1 + (i * 7) % 10000, 1 + (i * 13) % 10, "
                        + "timestamptz '2025-01-01 00:00:00+00' FROM generate_series(" + (c * 100_000 + 1) + ", " + ((c + 1) * 100_000) + ") AS s(i)");
            }
            for (String q : new String[] {"SELECT id FROM orders WHERE qty > 11", "SELECT id FROM orders WHERE qty = 11",
                    "SELECT id FROM orders WHERE customer_id < 3"}) {
                long[] micros = new long[15];
                for (int r = 0; r < micros.length; r++) {
                    long start = System.nanoTime();
                    db.execute(q);
                    micros[r] = (System.nanoTime() - start) / 1_000;
                }
                Arrays.sort(micros);
                System.out.printf("%s: median %.1f ms, least %.1f ms%n", q, micros[micros.length / 2] / 1000.0, micros[0] / 1000.0);
            }
        }
    }
}
