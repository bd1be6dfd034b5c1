package dev.tributary.server.http;

import com.sun.net.httpserver.HttpExchange;
import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.server.auth.Roles;
import dev.tributary.server.pgwire.PgServer;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The web console's API on the HTTP port, answered only to clients on this machine and only to
 * pages of this port's own origin (a request whose {@code Origin} is another site's is 403):
 * {@code POST /api/sql} runs the statements of {@code {"sql": "..."}} in a session of its own and
 * answers their results, or the error that stopped them (400) with PostgreSQL's SQLSTATE, message,
 * position and hint; {@code GET /api/subscribe?sql=...} runs a {@code SUBSCRIBE} and streams its
 * batches as server-sent events until the client goes away, when the subscription is dropped.
 *
 * <p>Both run as the role the browser logged in as ({@link ConsoleLogins}: SCRAM-SHA-256 over
 * {@code POST /api/login/first} and {@code /api/login/final}, then a session cookie;
 * {@code POST /api/logout} ends it), so that role's privileges apply. While pgwire would trust a
 * client on this machine (no role has a password) a request without a session runs as the
 * bootstrap role, as a psql without a user name would; otherwise it is 401 with 28000.
 * {@code GET /api/session} tells the page which of the two it is.
 */
public final class ConsoleApi {
    /**
     * How often an idle event stream sends a comment line: a client that has gone away is only
     * noticed when a write to it fails, so this bounds how long its subscription outlives it.
     */
    public record Options(long heartbeatMillis) {
        public Options {
            if (heartbeatMillis <= 0) throw new IllegalArgumentException("the heartbeat interval is positive");
        }

        /** A comment every five seconds. */
        public static Options defaults() {
            return new Options(5_000);
        }
    }

    /** What a stream's listener hands the handler's thread: an event's text, or the end of the stream. */
    private sealed interface Streamed {
        record Event(String text) implements Streamed {}

        record End() implements Streamed {}
    }

    private static final int MAX_BODY = 16 << 20;
    /** The session cookie's name. */
    static final String COOKIE = "tributary_console";

    private final PgServer server;
    private final Options options;
    private final ConsoleLogins logins = new ConsoleLogins();

    private ConsoleApi(PgServer server, Options options) {
        this.server = server;
        this.options = options;
    }

    /** Serves {@code /api/sql} and {@code /api/subscribe} for {@code server}'s database on {@code http}. */
    public static void install(HttpService http, PgServer server, Options options) {
        ConsoleApi api = new ConsoleApi(server, options);
        http.handle("/api/sql", api::sql);
        http.handle("/api/subscribe", api::subscribe);
        http.handle("/api/session", api::session);
        http.handle("/api/login/first", api::loginFirst);
        http.handle("/api/login/final", api::loginFinal);
        http.handle("/api/logout", api::logout);
    }

    /** {@code {"user": role or null, "login_required": bool}}: whom a request of this browser runs as, and whether it must log in. */
    private void session(HttpExchange exchange) throws IOException {
        try (exchange) {
            Tributary db = database(exchange, "GET");
            if (db == null) return;
            String token = cookie(exchange);
            String role = token == null ? null : logins.role(db.roles(), token).orElse(null);
            boolean trusted = server.trusts(true);
            StringBuilder b = new StringBuilder("{\"user\":");
            Json.string(b, role != null ? role : trusted ? Roles.BOOTSTRAP : null).append(",\"logged_in\":").append(role != null)
                    .append(",\"login_required\":").append(!trusted).append('}');
            answer(exchange, 200, b.toString());
        }
    }

    /** {@code {"user", "client_first"}} to {@code {"exchange", "server_first"}}: SCRAM's first round trip. */
    private void loginFirst(HttpExchange exchange) throws IOException {
        try (exchange) {
            Tributary db = database(exchange, "POST");
            if (db == null) return;
            Map<String, String> body = body(exchange, "user", "client_first");
            if (body == null) return;
            try {
                ConsoleLogins.Started started = logins.first(db.roles(), body.get("user"), body.get("client_first"));
                StringBuilder b = new StringBuilder("{\"exchange\":");
                Json.string(b, started.exchange()).append(",\"server_first\":");
                Json.string(b, started.serverFirst()).append('}');
                answer(exchange, 200, b.toString());
            } catch (SqlException e) {
                answer(exchange, 400, errorJson(e, List.of()));
            }
        }
    }

    /**
     * {@code {"exchange", "client_final"}} to {@code {"user", "server_final"}} and the session
     * cookie (HttpOnly, SameSite=Strict: the page's script never sees it and no other site's
     * request carries it); 401 with 28P01 for a wrong password.
     */
    private void loginFinal(HttpExchange exchange) throws IOException {
        try (exchange) {
            Tributary db = database(exchange, "POST");
            if (db == null) return;
            Map<String, String> body = body(exchange, "exchange", "client_final");
            if (body == null) return;
            ConsoleLogins.LoggedIn in;
            try {
                in = logins.last(body.get("exchange"), body.get("client_final"));
            } catch (SqlException e) {
                answer(exchange, e.sqlState().equals("28P01") ? 401 : 400, errorJson(e, List.of()));
                return;
            }
            exchange.getResponseHeaders().add("Set-Cookie", COOKIE + "=" + in.token() + "; Path=/; HttpOnly; SameSite=Strict");
            StringBuilder b = new StringBuilder("{\"user\":");
            Json.string(b, in.role()).append(",\"server_final\":");
            Json.string(b, in.serverFinal()).append('}');
            answer(exchange, 200, b.toString());
        }
    }

    /** Ends this browser's session and clears its cookie. */
    private void logout(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (refused(exchange, "POST")) return;
            String token = cookie(exchange);
            if (token != null) logins.logout(token);
            exchange.getResponseHeaders().add("Set-Cookie", COOKIE + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
            answer(exchange, 200, "{}");
        }
    }

    /**
     * The role a request runs as: its session's, else the bootstrap role while pgwire would trust
     * a local client; null once it has been answered 401.
     */
    private String role(HttpExchange exchange, Tributary db) throws IOException {
        String token = cookie(exchange);
        if (token != null) {
            var role = logins.role(db.roles(), token);
            if (role.isPresent()) return role.get();
        }
        if (server.trusts(true)) return Roles.BOOTSTRAP;
        answer(exchange, 401, errorJson(new SqlException("28000", "the console needs a login: roles have passwords, so log in with a role's name and password"), List.of()));
        return null;
    }

    /** The session cookie's value, or null. */
    private static String cookie(HttpExchange exchange) {
        for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
            for (String pair : header.split(";")) {
                String p = pair.trim();
                if (p.startsWith(COOKIE + "=")) return p.substring(COOKIE.length() + 1);
            }
        }
        return null;
    }

    /** The body as a JSON object of string members that has each of {@code required}; null once it has been answered 400. */
    private static Map<String, String> body(HttpExchange exchange, String... required) throws IOException {
        byte[] raw;
        try (InputStream in = exchange.getRequestBody()) {
            raw = in.readNBytes(MAX_BODY + 1);
        }
        try {
            if (raw.length > MAX_BODY) throw new Json.Malformed("the body is longer than " + MAX_BODY + " bytes");
            Map<String, String> members = Json.stringObject(new String(raw, StandardCharsets.UTF_8));
            for (String r : required) if (members.get(r) == null) throw new Json.Malformed("it has no member \"" + r + "\"");
            return members;
        } catch (Json.Malformed e) {
            String shape = String.join(", ", java.util.Arrays.stream(required).map(r -> "\"" + r + "\": \"...\"").toList());
            answer(exchange, 400, errorJson(new SqlException("08P01", "the body is not a JSON object {" + shape + "}: " + e.getMessage()), List.of()));
            return null;
        }
    }

    private void sql(HttpExchange exchange) throws IOException {
        try (exchange) {
            Tributary db = database(exchange, "POST");
            if (db == null) return;
            String role = role(exchange, db);
            if (role == null) return;
            Map<String, String> body = body(exchange, "sql");
            if (body == null) return;
            String sql = body.get("sql");
            List<Result> results = new ArrayList<>();
            Tributary.Connection session = db.session();
            session.authenticatedAs(role);
            try {
                session.executeEach(sql, results::add);
            } catch (SqlException e) {
                answer(exchange, 400, errorJson(e, results));
                return;
            } catch (RuntimeException e) {
                // a bug, not bad input: said as PostgreSQL says one, rather than a dropped connection
                dev.tributary.server.ServerLog.warn("console API statement failed: " + e);
                answer(exchange, 500, errorJson(new SqlException("XX000", "internal error: " + e), results));
                return;
            } finally {
                session.close();
            }
            StringBuilder b = new StringBuilder("{\"results\":");
            results(b, results);
            answer(exchange, 200, b.append('}').toString());
        }
    }

    private void subscribe(HttpExchange exchange) throws IOException {
        try (exchange) {
            Tributary db = database(exchange, "GET");
            if (db == null) return;
            String role = role(exchange, db);
            if (role == null) return;
            String sql = queryParameter(exchange.getRequestURI().getRawQuery(), "sql");
            if (sql == null) {
                answer(exchange, 400, errorJson(new SqlException("08P01", "the query string has no parameter \"sql\""), List.of()));
                return;
            }
            // the session lives as long as its subscription: closed after it, when the request ends
            Tributary.Connection session = db.session();
            session.authenticatedAs(role);
            try {
                stream(exchange, session, sql);
            } finally {
                session.close();
            }
        }
    }

    /** Runs {@code sql} as a subscription of {@code session} and writes its batches to {@code exchange} until it ends or the client goes away. */
    private void stream(HttpExchange exchange, Tributary.Connection session, String sql) throws IOException {
        BlockingQueue<Streamed> events = new LinkedBlockingQueue<>();
        Subscription subscription;
        try {
            subscription = session.subscribe(sql, new Subscription.Listener() {
                @Override
                public void onChanges(Result batch) {
                    StringBuilder b = new StringBuilder();
                    result(b, batch);
                    events.add(new Streamed.Event("event: batch\ndata: " + b + "\n\n"));
                }

                @Override
                public void onError(SqlException error) {
                    events.add(new Streamed.Event("event: error\ndata: " + errorJson(error, List.of()) + "\n\n"));
                    events.add(new Streamed.End());
                }

                @Override
                public void onDone() {
                    events.add(new Streamed.Event("event: done\ndata: {}\n\n"));
                    events.add(new Streamed.End());
                }
            });
        } catch (SqlException e) {
            answer(exchange, 400, errorJson(e, List.of()));
            return;
        }
        try (subscription) {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            send(out, ": subscribed\n\n");
            while (true) {
                Streamed next = events.poll(options.heartbeatMillis(), TimeUnit.MILLISECONDS);
                switch (next) {
                    case null -> send(out, ": idle\n\n");
                    case Streamed.Event e -> send(out, e.text());
                    case Streamed.End end -> {
                        out.close();
                        return;
                    }
                }
            }
        } catch (IOException gone) {
            // the client went away: closing the subscription (above) is all there is to do
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
        }
    }

    private static void send(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The database to answer {@code exchange} from, or null once it has been refused or told the database is not open yet. */
    private Tributary database(HttpExchange exchange, String method) throws IOException {
        if (refused(exchange, method)) return null;
        Tributary db = server.database();
        if (db == null) answer(exchange, 503, errorJson(new SqlException("57P03", "the database system is starting up"), List.of()));
        return db;
    }

    /** Answers 405 for another method, 403 for a client not on this machine or a page of another origin; whether it did. */
    private static boolean refused(HttpExchange exchange, String method) throws IOException {
        if (!exchange.getRemoteAddress().getAddress().isLoopbackAddress()) {
            answer(exchange, 403, errorJson(new SqlException("28000", "the console API answers only clients on the server's own machine"), List.of()));
            return true;
        }
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        String host = exchange.getRequestHeaders().getFirst("Host");
        if (origin != null && !origin.equals("http://" + host)) {
            // a page of another site on this machine's browser: it may reach loopback, but must not act as the console
            answer(exchange, 403, errorJson(new SqlException("28000", "the console API answers only the console's own pages, not " + origin), List.of()));
            return true;
        }
        if (!exchange.getRequestMethod().equals(method)) {
            exchange.getResponseHeaders().set("Allow", method);
            answer(exchange, 405, errorJson(new SqlException("08P01", exchange.getRequestURI().getPath() + " takes " + method + ", not " + exchange.getRequestMethod()), List.of()));
            return true;
        }
        return false;
    }

    private static String queryParameter(String rawQuery, String name) {
        if (rawQuery == null) return null;
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (key.equals(name)) return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        }
        return null;
    }

    private static void results(StringBuilder b, List<Result> results) {
        b.append('[');
        for (int i = 0; i < results.size(); i++) {
            if (i > 0) b.append(',');
            result(b, results.get(i));
        }
        b.append(']');
    }

    /** A result as {@code {"tag", "columns", "types", "rows"}}, values in PostgreSQL's text output. */
    private static void result(StringBuilder b, Result r) {
        b.append("{\"tag\":");
        Json.string(b, r.tag()).append(",\"columns\":");
        Json.strings(b, r.columns()).append(",\"types\":");
        Json.strings(b, r.types().stream().map(SqlType::toString).toList()).append(",\"rows\":[");
        List<List<String>> rows = r.text();
        for (int i = 0; i < rows.size(); i++) {
            if (i > 0) b.append(',');
            Json.strings(b, rows.get(i));
        }
        b.append("]}");
    }

    /** {@code {"error": {...}}}, after the results of the statements that ran before it if any. */
    private static String errorJson(SqlException e, List<Result> before) {
        StringBuilder b = new StringBuilder("{");
        if (!before.isEmpty()) {
            b.append("\"results\":");
            results(b, before);
            b.append(',');
        }
        b.append("\"error\":{\"sqlstate\":");
        Json.string(b, e.sqlState()).append(",\"message\":");
        Json.string(b, e.getMessage()).append(",\"position\":").append(e.position() > 0 ? Integer.toString(e.position()) : "null").append(",\"hint\":");
        Json.string(b, e.hint()).append(",\"detail\":");
        Json.string(b, e.detail());
        return b.append("}}").toString();
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
