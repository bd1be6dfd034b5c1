package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A receiver of HTTP sinks' and {@code INSERT INTO FUNCTION url}'s POSTs, for tests: it answers
 * 503 to its first {@code failFirst} requests and to every request while it is {@link #down},
 * 200 otherwise, and keeps every request it answered (idempotency key, body, status), so a test
 * can check what was accepted, and that a key sent again came with the same body.
 */
public final class HttpReceiver implements AutoCloseable {
    /** How long {@link #await} waits before failing the test. */
    public static final long WAIT_MS = 60_000;

    /** One request as answered. */
    public record Request(String key, String body, int status) {}

    private final HttpServer server;
    private final List<Request> requests = new ArrayList<>();
    private int toRefuse;
    private boolean down;

    public HttpReceiver(int failFirst) throws IOException {
        this(failFirst, 0);
    }

    /** A receiver on loopback port {@code port} (0: a free one). */
    public HttpReceiver(int failFirst, int port) throws IOException {
        this.toRefuse = failFirst;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/in", exchange -> {
            try (exchange) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                int status;
                synchronized (this) {
                    status = down || toRefuse > 0 ? 503 : 200;
                    if (toRefuse > 0) toRefuse--;
                    requests.add(new Request(exchange.getRequestHeaders().getFirst("Idempotency-Key"), body, status));
                    notifyAll();
                }
                exchange.sendResponseHeaders(status, -1);
            }
        });
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/in";
    }

    /** While down, every request is answered 503. */
    public synchronized void down(boolean isDown) {
        down = isDown;
    }

    /** Every request answered so far, in order. */
    public synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    /** The bodies it accepted (200), in order. */
    public synchronized List<String> bodies() {
        return accepted(requests);
    }

    /** How many requests it refused. */
    public synchronized long refused() {
        return requests.stream().filter(r -> r.status() != 200).count();
    }

    private static List<String> accepted(List<Request> requests) {
        return requests.stream().filter(r -> r.status() == 200).map(Request::body).toList();
    }

    /** Waits until {@code condition} holds of the accepted bodies (checked at every request), failing the test after {@link #WAIT_MS}. */
    public synchronized void await(Predicate<List<String>> condition) throws InterruptedException {
        awaitRequests(all -> condition.test(accepted(all)));
    }

    /** Waits until {@code condition} holds of every request so far, failing the test after {@link #WAIT_MS}. */
    public synchronized void awaitRequests(Predicate<List<Request>> condition) throws InterruptedException {
        long until = System.nanoTime() + WAIT_MS * 1_000_000;
        while (!condition.test(requests)) {
            long left = until - System.nanoTime();
            assertThat(left).as("the receiver got what was expected within " + WAIT_MS + " ms; it has " + requests).isPositive();
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** Every key that was sent more than once came with the same body each time. */
    public synchronized void assertRetriesIdentical() {
        java.util.Map<String, String> byKey = new java.util.HashMap<>();
        for (Request r : requests) {
            String first = byKey.putIfAbsent(r.key(), r.body());
            if (first != null) assertThat(r.body()).as("the body sent again under key " + r.key()).isEqualTo(first);
        }
    }

    /**
     * What the changes in {@code bodies} add up to: the rows of columns {@code columns} (as
     * text, {@code a|b}) whose diffs do not sum to 0, with their sum, recomputed with SQL in a
     * database of their own; each body counted once however often it was accepted, as a receiver
     * deduplicating by key counts it.
     */
    public static List<String> accumulated(List<String> bodies, String... columns) {
        try (Tributary scratch = Tributary.inMemory()) {
            scratch.execute("CREATE TABLE got (body jsonb)");
            for (String b : new java.util.LinkedHashSet<>(bodies)) scratch.execute("INSERT INTO got VALUES ('" + b.replace("'", "''") + "')");
            StringBuilder select = new StringBuilder();
            for (int i = 0; i < columns.length; i++) select.append(i > 0 ? ", " : "").append("c->'row'->>'").append(columns[i]).append("'");
            String group = String.join(", ", java.util.stream.IntStream.rangeClosed(1, columns.length).mapToObj(Integer::toString).toList());
            List<String> out = new ArrayList<>();
            for (List<String> r : scratch.query("SELECT " + select + ", sum((c->>'diff')::bigint) FROM got, jsonb_array_elements(body->'changes') AS e(c) GROUP BY "
                    + group + " HAVING sum((c->>'diff')::bigint) <> 0 ORDER BY " + group).text()) {
                out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
            }
            return out;
        }
    }

    /** The {@code time} of a POSTed body. */
    public static long time(String body) {
        int at = body.indexOf("\"time\":") + 7;
        return Long.parseLong(body.substring(at, body.indexOf(',', at)));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
