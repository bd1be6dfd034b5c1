package dev.tributary.server.http;

import com.sun.net.httpserver.HttpExchange;
import dev.tributary.server.Tributary;
import dev.tributary.server.pgwire.PgServer;
import dev.tributary.server.source.WebhookConnector;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The webhook sources' endpoint on the HTTP port: {@code POST /webhook/<schema>/<source>} hands
 * the body to the source's {@link WebhookConnector} and answers once its rows are durable,
 * {@code 200 {"rows": n}} ({@code "duplicate": true} for an {@code Idempotency-Key} written
 * before, when nothing was written again).
 *
 * <p>Who may post: to a source made with a {@code SECRET}, a request that presents it as
 * {@code Authorization: Bearer <secret>} or {@code X-Webhook-Secret: <secret>} (401 otherwise);
 * to a source without one, only a client on the server's own machine that is not a page of
 * another site (403 otherwise), as PostgreSQL's default {@code pg_hba.conf} trusts local
 * connections only.
 *
 * <p>Errors are {@code {"error": message, "code": SQLSTATE}}: 404 for no such source (42P01) or a
 * source that is not a webhook (42809), 405 for another method than POST, 400 for a body that
 * does not decode (22P02, nothing of it written) or a bad key, 413 for a body over the source's
 * {@code MAX BODY SIZE} (54000), 503 while the database starts (57P03) and when the source stops
 * before the request was written (57P01: dropped, or the server shutting down; the message says
 * whether it may have been written, and a request sent again with the same key is never written
 * twice).
 */
public final class Webhooks {
    /** The paths served: {@code PREFIX + schema + "/" + source}. */
    public static final String PREFIX = "/webhook/";
    /** How long a request waits for its source to take it before it is answered 503 unwritten. */
    private static final long WAIT_MILLIS = 60_000;

    private final PgServer server;

    private Webhooks(PgServer server) {
        this.server = server;
    }

    /** Serves {@code POST /webhook/<schema>/<source>} for {@code server}'s database on {@code http}. */
    public static void install(HttpService http, PgServer server) {
        http.handle(PREFIX, new Webhooks(server)::post);
    }

    private void post(HttpExchange exchange) throws IOException {
        try (exchange) {
            String[] path = exchange.getRequestURI().getRawPath().substring(PREFIX.length()).split("/", -1);
            if (path.length != 2 || path[0].isEmpty() || path[1].isEmpty()) {
                error(exchange, 404, "42P01", "no such webhook: the path is POST " + PREFIX + "<schema>/<source>, as in " + PREFIX + "public/hooks");
                return;
            }
            String schema = URLDecoder.decode(path[0], StandardCharsets.UTF_8), name = URLDecoder.decode(path[1], StandardCharsets.UTF_8);
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.getResponseHeaders().set("Allow", "POST");
                error(exchange, 405, "42601", "a webhook takes POST, not " + exchange.getRequestMethod());
                return;
            }
            Tributary db = server.database();
            if (db == null) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                error(exchange, 503, "57P03", "the database system is starting up");
                return;
            }
            Tributary.SourceEndpoint source = db.source(schema, name);
            String qualified = "\"" + schema + "\".\"" + name + "\"";
            if (source == null) {
                error(exchange, 404, "42P01", "source " + qualified + " does not exist (names are as stored: lower case unless they were quoted)");
                return;
            }
            if (!source.connector().equals("WEBHOOK")) {
                error(exchange, 404, "42809", qualified + " is a source FROM " + source.connector() + ", not FROM WEBHOOK");
                return;
            }
            if (!(source.running() instanceof WebhookConnector hook)) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                error(exchange, 503, "57P03", "source " + qualified + " is starting");
                return;
            }
            if (!allowed(exchange, hook)) return;
            byte[] body = body(exchange, hook.maxBodyBytes());
            if (body == null) return;
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            if (key != null && !validKey(key)) {
                error(exchange, 400, "22023", "an Idempotency-Key is 1 to " + WebhookConnector.MAX_KEY_LENGTH + " printable ASCII characters");
                return;
            }
            answer(exchange, await(hook.submit(body, key)));
        }
    }

    /** Whether the request may post to {@code hook}; answered 401 or 403 when not. */
    private static boolean allowed(HttpExchange exchange, WebhookConnector hook) throws IOException {
        if (hook.hasSecret()) {
            String presented = exchange.getRequestHeaders().getFirst("X-Webhook-Secret");
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            if (presented == null && authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) presented = authorization.substring(7).trim();
            if (hook.admits(presented)) return true;
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"tributary webhook\"");
            error(exchange, 401, "28000", "this webhook needs its secret: send it as Authorization: Bearer <secret> or X-Webhook-Secret: <secret>");
            return false;
        }
        if (!exchange.getRemoteAddress().getAddress().isLoopbackAddress()) {
            error(exchange, 403, "28000", "this webhook has no SECRET, so it takes requests from the server's own machine only; "
                    + "make it with CREATE SOURCE ... FROM WEBHOOK (SECRET '...') to take them from elsewhere");
            return false;
        }
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        if (origin != null && !origin.equals("http://" + exchange.getRequestHeaders().getFirst("Host"))) {
            // a page of another site in a browser on this machine: it can reach loopback, but must not write
            error(exchange, 403, "28000", "this webhook has no SECRET: it takes no requests from web pages of other sites (" + origin + ")");
            return false;
        }
        return true;
    }

    /**
     * The most of a refused body read (and thrown away) before it is answered 413: a client still
     * sending when the server answers and closes sees its connection reset, not the answer.
     * Beyond this the connection is cut.
     */
    private static final long DRAIN_BYTES = 64L << 20;

    /** The request's body, or null once it has been answered 413. */
    private static byte[] body(HttpExchange exchange, long max) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        String tooLarge = "the body is larger than the webhook's MAX BODY SIZE, " + max + " bytes";
        try (InputStream in = exchange.getRequestBody()) {
            boolean announcedTooLarge;
            try {
                announcedTooLarge = length != null && Long.parseLong(length.trim()) > max;
            } catch (NumberFormatException e) {
                announcedTooLarge = false; // the HTTP server refuses a malformed length itself; the read below bounds the body anyway
            }
            byte[] body = announcedTooLarge ? null : in.readNBytes((int) max + 1);
            if (body != null && body.length <= max) return body;
            long skipped = 0;
            while (skipped < DRAIN_BYTES) {
                long n = in.skip(Math.min(1 << 20, DRAIN_BYTES - skipped));
                if (n <= 0) {
                    if (in.read() < 0) break;
                    n = 1;
                }
                skipped += n;
            }
            error(exchange, 413, "54000", tooLarge);
            return null;
        }
    }

    private static boolean validKey(String key) {
        if (key.isEmpty() || key.length() > WebhookConnector.MAX_KEY_LENGTH) return false;
        for (int i = 0; i < key.length(); i++) if (key.charAt(i) < 0x21 || key.charAt(i) > 0x7e) return false;
        return true;
    }

    /** The request's outcome; one that waited too long in the queue is taken back unwritten. */
    private static WebhookConnector.Outcome await(WebhookConnector.Pending pending) {
        try {
            try {
                return pending.outcome().get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (pending.withdraw()) return new WebhookConnector.Outcome.Unavailable("the source did not take the request within " + WAIT_MILLIS / 1000 + " s: nothing was written");
                // taken into a commit meanwhile: that ends soon, one way or the other
                return pending.outcome().get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            boolean unwritten = pending.withdraw();
            return new WebhookConnector.Outcome.Unavailable("the server is shutting down: " + (unwritten ? "nothing was written" : "the request may or may not have been written"));
        } catch (ExecutionException e) {
            return new WebhookConnector.Outcome.Failed(String.valueOf(e.getCause()));
        }
    }

    private static void answer(HttpExchange exchange, WebhookConnector.Outcome outcome) throws IOException {
        switch (outcome) {
            case WebhookConnector.Outcome.Written w -> send(exchange, 200, "{\"rows\":" + w.rows() + (w.duplicate() ? ",\"duplicate\":true}" : "}"));
            case WebhookConnector.Outcome.Refused r -> error(exchange, 400, "22P02", r.message());
            case WebhookConnector.Outcome.Unavailable u -> {
                exchange.getResponseHeaders().set("Retry-After", "1");
                error(exchange, 503, "57P01", u.message());
            }
            case WebhookConnector.Outcome.Failed f -> error(exchange, 500, "XX000", f.message());
        }
    }

    private static void error(HttpExchange exchange, int status, String code, String message) throws IOException {
        StringBuilder b = new StringBuilder("{\"error\":");
        Json.string(b, message).append(",\"code\":");
        Json.string(b, code).append('}');
        send(exchange, status, b.toString());
    }

    private static void send(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
