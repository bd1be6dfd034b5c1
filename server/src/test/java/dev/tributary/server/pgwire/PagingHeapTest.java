package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;

/**
 * Arrangements several times the heap: a server in a child JVM with a 256 MB heap keeps a table
 * of 1.5M orders of about 250 bytes, a join of it with 200k customers and a GROUP BY over the join,
 * whose arrangements add up to more than twice its heap (paged: {@code Paging}, 128 kB parts),
 * and the view stays exactly right through the load (in COPYs of 25k rows) and through updates and
 * deletes; so does the same view created over the loaded tables (a hydration of every row at one
 * time). With {@code -Dtributary.paging=false} the server runs out of memory part of the way in.
 * The same as {@code jmh/paging-demo.sh} at a test's size.
 */
class PagingHeapTest {
    /**
     * 256 MB. At 192 MB it ran out of memory in most runs in session 36; a heap dump at the
     * failure held no leak but 152 MB live, most of it in flight through the second view's build:
     * the import of the loaded orders sent containers of 16k rows (6 MB at 250 bytes a row), and
     * several of those, the join's output and the reduce's buffers were held at once, each array a
     * humongous allocation in G1. Containers an import sends are now capped at 1 MB
     * ({@code Collection.FLATTEN_CONTAINER_BYTES}), and 4 of 4 runs then passed at 192 MB on a quiet
     * machine, but one beside a build ran out during the load (the first view, fed by COPYs faster
     * than it kept up): what is in flight depends on the machine's pace, so the test keeps 256 MB.
     */
    private static final int HEAP_MB = 256;
    private static final int CUSTOMERS = 200_000;
    private static final int ORDERS = 1_500_000;
    private static final int CHUNK = 25_000;
    private static final String NOTE = "x".repeat(200);

    private static long amount(long i) {
        return (i * 7919) % 100_000;
    }

    /** Per customer: how many orders and their total in cents, after the changes made so far. */
    private static void check(Statement st, boolean changed, String when) throws Exception {
        check(st, "per_customer", changed, when);
        check(st, "per_customer_after", changed, when);
    }

    private static void check(Statement st, String view, boolean changed, String when) throws Exception {
        long[] count = new long[CUSTOMERS];
        long[] total = new long[CUSTOMERS];
        for (long i = 1; i <= ORDERS; i++) {
            if (changed && i % 5000 == 3) continue;
            int c = (int) (i % CUSTOMERS);
            count[c]++;
            total[c] += amount(i) + (changed && i % 1000 == 7 ? 100 : 0);
        }
        int rows = 0;
        int wrong = 0;
        String first = null;
        try (ResultSet r = st.executeQuery("SELECT id, n, total FROM " + view)) {
            while (r.next()) {
                rows++;
                int c = r.getInt(1);
                long cents = r.getBigDecimal(3).movePointRight(2).longValueExact();
                if (count[c] != r.getLong(2) || total[c] != cents) {
                    wrong++;
                    if (first == null) first = "customer " + c + ": " + r.getLong(2) + ", " + cents + " instead of " + count[c] + ", " + total[c];
                }
            }
        }
        long customersWithOrders = java.util.Arrays.stream(count).filter(n -> n > 0).count();
        assertThat(wrong).as("%s: rows of %s unlike the model (first: %s)", when, view, first).isZero();
        assertThat(rows).as("%s: rows of %s", when, view).isEqualTo(customersWithOrders);
    }

    @Test
    void aJoinAndGroupByViewSeveralTimesTheHeapStaysRight(@TempDir Path dir) throws Exception {
        ChildServer.Server server = ChildServer.start(dir.resolve("data"),
                List.of("-Xmx" + HEAP_MB + "m", "-Dtributary.paging.part.bytes=131072"));
        try (Connection conn = server.connect(); Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL)");
            st.execute("CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2), note text)");
            st.execute("CREATE MATERIALIZED VIEW per_customer AS SELECT c.id, c.name, count(*) AS n, sum(o.amount) AS total"
                    + " FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.id, c.name");
            var copy = conn.unwrap(PGConnection.class).getCopyAPI();
            StringBuilder b = new StringBuilder();
            for (int c = 0; c < CUSTOMERS; c++) b.append(c).append("\tcustomer ").append(c).append('\n');
            copy.copyIn("COPY customers FROM STDIN", new StringReader(b.toString()));
            for (long lo = 1; lo <= ORDERS; lo += CHUNK) {
                b.setLength(0);
                for (long i = lo; i < lo + CHUNK; i++) {
                    long a = amount(i);
                    b.append(i).append('\t').append(i % CUSTOMERS).append('\t').append(a / 100).append('.').append(String.format("%02d", a % 100))
                            .append('\t').append(NOTE).append(i).append('\n');
                }
                copy.copyIn("COPY orders FROM STDIN", new StringReader(b.toString()));
            }
            // the same view built over the loaded tables: a hydration, every row at one time (the
            // arrangements' batchers spill it in sorted runs, the reduce hands its output on as it goes)
            st.execute("CREATE MATERIALIZED VIEW per_customer_after AS SELECT c.id, c.name, count(*) AS n, sum(o.amount) AS total"
                    + " FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.id, c.name");
            check(st, false, "after the load");
            st.execute("UPDATE orders SET amount = amount + 1 WHERE id % 1000 = 7");
            st.execute("DELETE FROM orders WHERE id % 5000 = 3");
            check(st, true, "after updates and deletes");
            try (ResultSet r = st.executeQuery("SELECT sum(paged_bytes), sum(bytes) FROM tributary_internal.arrangement_sizes")) {
                r.next();
                long paged = r.getLong(1);
                assertThat(paged).as("bytes of paged arrangement batches, against a heap of %d MB", HEAP_MB).isGreaterThan(2L * HEAP_MB << 20);
                assertThat(r.getLong(2)).as("heap bytes of the arrangements").isLessThan((long) HEAP_MB << 20);
            }
        } catch (Throwable e) {
            throw new AssertionError(e.getMessage() + "\nserver log:\n" + server.log(), e);
        } finally {
            server.kill();
        }
        assertThat(server.log().toString()).doesNotContain("OutOfMemoryError");
    }

    /**
     * A table larger than the heap merges its shard's batches in parts: 2 x 500k rows of about
     * 250 bytes, each half made its own batch by a restart (a restart flushes the tables' log into
     * the shards), so the second restart merges two batches of 125 MB each in a 128 MB heap. The
     * merge sorts through the paged batcher and writes bounded parts; held as one array, it ran
     * the heap out of memory and the server did not start.
     */
    @Test
    void aTableShardLargerThanTheHeapMergesInBoundedParts(@TempDir Path dir) throws Exception {
        int rows = 500_000;
        List<String> options = List.of("-Xmx128m", "-Dtributary.paging.part.bytes=131072");
        ChildServer.Server server = ChildServer.start(dir.resolve("data"), options);
        try {
            for (int half = 0; half < 2; half++) {
                try (Connection conn = server.connect(); Statement st = conn.createStatement()) {
                    if (half == 0) st.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)");
                    var copy = conn.unwrap(PGConnection.class).getCopyAPI();
                    StringBuilder b = new StringBuilder();
                    for (long lo = (long) half * rows; lo < (half + 1L) * rows; lo += CHUNK) {
                        b.setLength(0);
                        for (long i = lo; i < lo + CHUNK; i++) b.append(i).append('\t').append(NOTE).append(i).append('\n');
                        copy.copyIn("COPY events FROM STDIN", new StringReader(b.toString()));
                    }
                }
                server.kill();
                server = ChildServer.start(dir.resolve("data"), options);
            }
            try (Connection conn = server.connect(); Statement st = conn.createStatement();
                    ResultSet r = st.executeQuery("SELECT count(*), sum(id), sum(length(note)) FROM events")) {
                r.next();
                long n = 2L * rows;
                assertThat(r.getLong(1)).isEqualTo(n);
                assertThat(r.getLong(2)).isEqualTo(n * (n - 1) / 2);
            }
        } catch (Throwable e) {
            throw new AssertionError(e.getMessage() + "\nserver log:\n" + server.log(), e);
        } finally {
            server.kill();
        }
        assertThat(server.log().toString()).doesNotContain("OutOfMemoryError");
    }
}
