package dev.tributary.server.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.sql.types.SqlType;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An HTTP sink against a receiver in the test that fails its first attempts: every change of a
 * view arrives, in time order, each part under its own idempotency key, and what the receiver
 * accumulated (recomputed with SQL over the bodies it kept) is the view.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpSinkTest {
    private static final long WAIT_MS = 60_000;

    /** A receiver that answers 503 to its first {@code failFirst} requests and keeps the bodies of the others. */
    private static final class Receiver implements AutoCloseable {
        final HttpServer server;
        final List<String> keys = new ArrayList<>();
        final List<String> bodies = new ArrayList<>();
        int failFirst;
        int failed;

        Receiver(int failFirst) throws IOException {
            this.failFirst = failFirst;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/in", exchange -> {
                try (exchange) {
                    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    int status;
                    synchronized (this) {
                        if (failed < this.failFirst) {
                            failed++;
                            status = 503;
                        } else {
                            keys.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
                            bodies.add(body);
                            status = 200;
                        }
                        notifyAll();
                    }
                    exchange.sendResponseHeaders(status, -1);
                    OutputStream out = exchange.getResponseBody();
                    out.close();
                }
            });
            server.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/in");
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

    /** The rows the changes in {@code bodies} add up to, as {@code k|n|count}, recomputed with SQL in a database of their own. */
    private static List<String> accumulated(List<String> bodies) {
        try (Tributary scratch = Tributary.inMemory()) {
            scratch.execute("CREATE TABLE got (body jsonb)");
            for (String b : bodies) scratch.execute("INSERT INTO got VALUES ('" + b.replace("'", "''") + "')");
            List<String> out = new ArrayList<>();
            Result r = scratch.query("SELECT c->'row'->>'k', c->'row'->>'n', sum((c->>'diff')::bigint) FROM got, jsonb_array_elements(body->'changes') AS e(c) "
                    + "GROUP BY 1, 2 HAVING sum((c->>'diff')::bigint) <> 0 ORDER BY 1, 2");
            for (List<String> row : r.text()) out.add(String.join("|", row));
            return out;
        }
    }

    private static List<String> view(Tributary db) {
        List<String> out = new ArrayList<>();
        for (List<String> row : db.query("SELECT k::text, n::text, 1 FROM v ORDER BY 1, 2").text()) out.add(String.join("|", row));
        return out;
    }

    @Test
    void everyChangeArrivesInTimeOrderThroughFailures() throws Exception {
        List<Long> acknowledged = java.util.Collections.synchronizedList(new ArrayList<>());
        List<String> logged = java.util.Collections.synchronizedList(new ArrayList<>());
        try (Receiver receiver = new Receiver(3); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n FROM t GROUP BY k");
            db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
            // two changes per request at most: a time's changes go in several parts
            HttpSink sink = new HttpSink("orders_out", receiver.uri(), new HttpSink.Options(Duration.ofMillis(5), Duration.ofMillis(40), Duration.ofSeconds(10), 2),
                    true, acknowledged::add, logged::add).start();
            try (sink; Subscription sub = db.subscribe("SUBSCRIBE v", sink)) {
                db.execute("INSERT INTO t VALUES (1, 'a2'), (4, 'd')");
                db.execute("DELETE FROM t WHERE k = 2");
                db.execute("UPDATE t SET k = 5 WHERE v = 'c'");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                assertThat(sink.awaitIdle(WAIT_MS)).isTrue();
            }
            HttpSink.Status st = sink.status();
            assertThat(receiver.failed).isEqualTo(3);
            assertThat(st.failures()).isEqualTo(3);
            assertThat(st.lastError()).startsWith("HTTP 503 from " + receiver.uri());
            assertThat(logged).hasSize(1);
            // each part once (no failure after an acknowledgement here), under its own key, in time order
            assertThat(new HashSet<>(receiver.keys)).hasSameSizeAs(receiver.keys);
            long last = -1;
            for (String key : receiver.keys) {
                String[] k = key.split(":");
                assertThat(k[0]).isEqualTo("orders_out");
                assertThat(Long.parseLong(k[1])).isGreaterThanOrEqualTo(last);
                last = Long.parseLong(k[1]);
            }
            assertThat(acknowledged).isSorted().doesNotHaveDuplicates().hasSize(4);
            assertThat(st.acknowledgedTime()).isEqualTo(acknowledged.get(acknowledged.size() - 1));
            // the snapshot's three rows in two parts
            assertThat(receiver.bodies.get(0)).contains("\"snapshot\":true,\"part\":1,\"parts\":2");
            assertThat(receiver.bodies.get(receiver.bodies.size() - 1)).contains("\"snapshot\":false");
        }
    }

    @Test
    void valuesKeepTheirJsonKinds() {
        List<String> columns = List.of("change_time", "change_diff", "i", "x", "b", "j", "s", "nothing");
        List<SqlType> types = List.of(SqlType.TIMESTAMPTZ, SqlType.BIGINT, SqlType.INTEGER, SqlType.DOUBLE, SqlType.BOOLEAN, SqlType.JSONB, SqlType.TEXT, SqlType.TEXT);
        Instant at = Instant.ofEpochMilli(1_765_000_000_000L);
        Object[] row = {at, 1L, 7, Double.NaN, true, dev.tributary.sql.types.Values.fromText("{\"a\": [1]}", SqlType.JSONB), "say \"hi\"", null};
        Object[] gone = {at, -1L, 6, 2.5, false, null, "a", null};
        List<ChangeBatchJson.Part> parts = ChangeBatchJson.parts("s", new Result("SUBSCRIBE", columns, types, List.of(row, gone)), false, 10);
        assertThat(parts).containsExactly(new ChangeBatchJson.Part("s:1765000000000:1",
                "{\"sink\":\"s\",\"time\":1765000000000,\"snapshot\":false,\"part\":1,\"parts\":1,\"changes\":["
                        + "{\"diff\":-1,\"row\":{\"i\":6,\"x\":2.5,\"b\":false,\"j\":null,\"s\":\"a\",\"nothing\":null}},"
                        + "{\"diff\":1,\"row\":{\"i\":7,\"x\":\"NaN\",\"b\":true,\"j\":{\"a\": [1]},\"s\":\"say \\\"hi\\\"\",\"nothing\":null}}]}"));
    }

    /**
     * Without a backlog (a session's INSERT INTO FUNCTION url, whose history nobody holds), a
     * receiver that is away makes the sink refuse the batch past its bound and end with 53400;
     * what it queued never passed the bound.
     */
    @Test
    void withoutABacklogFallingBehindEndsItWith53400() throws Exception {
        try (dev.tributary.server.HttpReceiver receiver = new dev.tributary.server.HttpReceiver(0)) {
            receiver.down(true);
            HttpSink sink = new HttpSink("s", URI.create(receiver.url()), new HttpSink.Options(Duration.ofMillis(5), Duration.ofMillis(40), Duration.ofSeconds(10), 100, 1000),
                    false, at -> {}, m -> {}).start();
            try (sink) {
                for (int t = 1; t <= 50; t++) {
                    Object[] change = {Instant.ofEpochMilli(t), 1L, "x".repeat(100)};
                    sink.onChanges(new Result("SUBSCRIBE", List.of("change_time", "change_diff", "v"), List.of(SqlType.TIMESTAMPTZ, SqlType.BIGINT, SqlType.TEXT),
                            List.<Object[]>of(change)));
                }
                dev.tributary.sql.SqlException e = org.assertj.core.api.Assertions.catchThrowableOfType(() -> sink.awaitEnd(() -> null),
                        dev.tributary.sql.SqlException.class);
                assertThat(e.sqlState()).isEqualTo("53400");
                HttpSink.Status st = sink.status();
                assertThat(st.fellBehind()).isEqualTo(1);
                assertThat(st.peakQueuedBytes()).isPositive().isLessThanOrEqualTo(1000);
                assertThat(st.queuedBatches()).isLessThan(50);
            }
        }
    }
}
