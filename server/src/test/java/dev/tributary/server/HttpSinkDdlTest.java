package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CREATE SINK name FROM relation INTO HTTP (URL '...')}: a relation's changes delivered to
 * a receiver that fails its first attempts, what the receiver accumulated (recomputed with SQL
 * over the bodies it kept) equal to the relation, the acknowledged time kept in the sink's table,
 * and a restart resuming after it without sending anything acknowledged again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpSinkDdlTest {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    /** A receiver that answers 503 to its first {@code failFirst} requests and keeps the bodies of the others. */
    private static final class Receiver implements AutoCloseable {
        final HttpServer server;
        final List<String> bodies = new ArrayList<>();
        final int failFirst;
        int failed;

        Receiver(int failFirst) throws IOException {
            this(failFirst, 0);
        }

        Receiver(int failFirst, int port) throws IOException {
            this.failFirst = failFirst;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            server.createContext("/in", exchange -> {
                try (exchange) {
                    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    int status;
                    synchronized (this) {
                        status = failed < this.failFirst ? 503 : 200;
                        if (status == 503) failed++;
                        else bodies.add(body);
                        notifyAll();
                    }
                    exchange.sendResponseHeaders(status, -1);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/in";
        }

        synchronized List<String> bodies() {
            return List.copyOf(bodies);
        }

        /** Waits until {@code condition} holds of the bodies kept so far (checked at every request). */
        synchronized void await(Predicate<List<String>> condition) throws InterruptedException {
            long until = System.nanoTime() + WAIT_MS * 1_000_000;
            while (!condition.test(bodies)) {
                long left = until - System.nanoTime();
                assertThat(left).as("the receiver got what was expected within " + WAIT_MS + " ms; it has " + bodies).isPositive();
                wait(Math.max(1, left / 1_000_000));
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    /** The rows the changes in {@code bodies} add up to, as {@code k|n}, recomputed with SQL in a database of their own. */
    private static List<String> accumulated(List<String> bodies) {
        try (Tributary scratch = Tributary.inMemory()) {
            scratch.execute("CREATE TABLE got (body jsonb)");
            for (String b : bodies) scratch.execute("INSERT INTO got VALUES ('" + b.replace("'", "''") + "')");
            return rows(scratch, "SELECT c->'row'->>'k', c->'row'->>'n' FROM got, jsonb_array_elements(body->'changes') AS e(c) "
                    + "GROUP BY 1, 2 HAVING sum((c->>'diff')::bigint) <> 0 ORDER BY 1, 2");
        }
    }

    private static List<String> view(Tributary db) {
        return rows(db, "SELECT k::text, n::text FROM v ORDER BY 1, 2");
    }

    private static long snapshots(List<String> bodies) {
        return bodies.stream().filter(b -> b.contains("\"snapshot\":true")).count();
    }

    @Test
    void changesArriveThroughFailuresAndARestartResumesAfterTheAcknowledgedTime() throws Exception {
        Path data = dir.resolve("data");
        try (Receiver receiver = new Receiver(2)) {
            try (Tributary db = Tributary.open(data)) {
                db.execute("CREATE TABLE t (k int, v text)");
                db.execute("CREATE MATERIALIZED VIEW v WITH (RETAIN HISTORY FOR '1 hour') AS SELECT k, count(*) AS n FROM t GROUP BY k");
                db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
                db.execute("CREATE SINK out FROM v INTO HTTP (URL '" + receiver.url() + "')");
                // the snapshot acknowledged before the next write (see awaitFirstBatch)
                awaitFirstBatch(db);
                db.execute("INSERT INTO t VALUES (1, 'c'), (3, 'd')");
                db.execute("DELETE FROM t WHERE k = 2");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                assertThat(receiver.failed).isEqualTo(2);
                // the acknowledged time reaches the sink's table once the last batch is acknowledged
                long last = lastTime(receiver.bodies());
                awaitAcknowledged(db, last);
                fails("42809", () -> db.execute("INSERT INTO out VALUES (now())"));
                fails("2BP01", () -> db.execute("DROP MATERIALIZED VIEW v"));
            }
            int before = receiver.bodies().size();
            try (Tributary db = Tributary.open(data)) {
                db.execute("INSERT INTO t VALUES (4, 'e'), (1, 'f')");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                List<String> all = receiver.bodies();
                // resumed after the acknowledged time: no snapshot again, and the one new change's batch only
                assertThat(snapshots(all)).isEqualTo(1);
                assertThat(all.subList(before, all.size())).allSatisfy(b -> assertThat(b).contains("\"snapshot\":false"));
                awaitAcknowledged(db, lastTime(all));
                assertThat(rows(db, "SHOW SINKS")).singleElement().asString()
                        .startsWith("out|http|v|" + receiver.url() + "|running|")
                        .endsWith("|0|NULL");
                db.execute("DROP SINK out");
                assertThat(rows(db, "SELECT count(*) FROM pg_class WHERE relname = 'out'")).containsExactly("0");
            }
        }
    }

    @Test
    void aSinkHoldsTheHistoryItResumesFromWithoutRetainHistory() throws Exception {
        Path data = dir.resolve("held");
        try (Receiver receiver = new Receiver(0)) {
            for (int run = 0; run < 3; run++) {
                try (Tributary db = Tributary.open(data)) {
                    if (run == 0) {
                        // no RETAIN HISTORY: the sink holds what it reads from its acknowledged time on
                        db.execute("CREATE TABLE t (k int, v text)");
                        db.execute("CREATE VIEW v AS SELECT k, count(*) AS n FROM t GROUP BY k");
                        db.execute("INSERT INTO t VALUES (100, 'x')");
                        db.execute("CREATE SINK out FROM v INTO HTTP (URL '" + receiver.url() + "')");
                        awaitFirstBatch(db);
                    }
                    db.execute("INSERT INTO t VALUES (" + run + ", 'a'), (10, 'b')");
                    if (run == 2) db.execute("DELETE FROM t WHERE k = 0");
                    List<String> expected = view(db);
                    receiver.await(bodies -> accumulated(bodies).equals(expected));
                    awaitAcknowledged(db, lastTime(receiver.bodies()));
                }
            }
            // one snapshot (the first batch), and no batch sent twice across the restarts
            List<String> all = receiver.bodies();
            assertThat(snapshots(all)).isEqualTo(1);
            assertThat(new java.util.HashSet<>(all)).hasSameSizeAs(all);
        }
    }

    @Test
    void aReceiverThatIsDownIsRetriedUntilItIsUp() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n FROM t GROUP BY k");
            db.execute("INSERT INTO t VALUES (1, 'a')");
            db.execute("CREATE SINK out FROM v INTO HTTP (URL 'http://127.0.0.1:" + port + "/in')");
            db.execute("INSERT INTO t VALUES (2, 'b')");
            // nothing listens: refused connections, retried with growing pauses, shown by SHOW SINKS
            long until = System.nanoTime() + WAIT_MS * 1_000_000;
            List<String> shown = rows(db, "SHOW SINKS");
            while (!(shown.get(0).contains("|retrying in ") && shown.get(0).contains("no answer from http://127.0.0.1:" + port))) {
                assertThat(System.nanoTime()).as("SHOW SINKS: " + shown).isLessThan(until);
                Thread.onSpinWait();
                shown = rows(db, "SHOW SINKS");
            }
            // the receiver comes up on that port: everything arrives, the first batch the snapshot
            try (Receiver receiver = new Receiver(0, port)) {
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                assertThat(receiver.bodies().get(0)).contains("\"snapshot\":true");
                assertThat(snapshots(receiver.bodies())).isEqualTo(1);
            }
        }
    }

    @Test
    void whatCreateSinkRefuses() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int)");
            fails("42704", () -> db.execute("CREATE SINK s FROM t INTO S3 (URL 'http://x')"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO KAFKA (URL 'http://x') FORMAT JSON ENVELOPE UPSERT"));
            // what only INTO KAFKA takes
            fails("0A000", () -> db.execute("CREATE SINK s FROM (SELECT k FROM t) INTO HTTP (URL 'http://x')"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x') FORMAT JSON ENVELOPE UPSERT"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x') KEY (k)"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x', TOPIC 'y')"));
            fails("22023", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'ftp://x/y')"));
            fails("22023", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'not a url')"));
            fails("42P01", () -> db.execute("CREATE SINK s FROM nothing INTO HTTP (URL 'http://x')"));
            fails("25001", () -> db.execute("BEGIN; CREATE SINK s FROM t INTO HTTP (URL 'http://x')"));
            db.execute("ROLLBACK");
            db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://127.0.0.1:1/nothing')");
            fails("42809", () -> db.execute("DROP TABLE s"));
            fails("42809", () -> db.execute("INSERT INTO s VALUES (now())"));
            fails("0A000", () -> db.execute("ALTER SINK s PAUSE"));
            fails("0A000", () -> db.execute("ALTER SINK s RESUME"));
            db.execute("DROP TABLE t CASCADE");
            assertThat(rows(db, "SELECT count(*) FROM pg_class WHERE relname = 's'")).containsExactly("0");
        }
    }

    /**
     * Waits (with a deadline) until the sink has its first batch, the snapshot, acknowledged.
     * Once, under heavy load, a write committed right after CREATE SINK came both inside the
     * snapshot (labelled with the time before it) and again as its own batch (ARCHITECTURE,
     * "Sinks", open question); the tests write after the snapshot until that is understood.
     */
    private static void awaitFirstBatch(Tributary db) {
        long until = System.nanoTime() + WAIT_MS * 1_000_000;
        while (rows(db, "SELECT count(*) FROM out").equals(List.of("0"))) {
            assertThat(System.nanoTime()).as("the sink's snapshot acknowledged").isLessThan(until);
            Thread.onSpinWait();
        }
    }

    private static long lastTime(List<String> bodies) {
        String b = bodies.get(bodies.size() - 1);
        int at = b.indexOf("\"time\":") + 7;
        return Long.parseLong(b.substring(at, b.indexOf(',', at)));
    }

    /** Waits (with a deadline) until the sink's table says {@code time} was acknowledged. */
    private static void awaitAcknowledged(Tributary db, long time) throws InterruptedException {
        long until = System.nanoTime() + WAIT_MS * 1_000_000;
        String expected = String.valueOf(time);
        while (!rows(db, "SELECT (extract(epoch FROM acknowledged) * 1000)::bigint FROM out").equals(List.of(expected))) {
            assertThat(System.nanoTime()).as("sink table shows " + time + ": " + rows(db, "SELECT * FROM out")).isLessThan(until);
            Thread.onSpinWait();
        }
    }
}
