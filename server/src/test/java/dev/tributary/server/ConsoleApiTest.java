package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console's API over HTTP on free ports: a query's results and an error's SQLSTATE and
 * position as JSON, and a SUBSCRIBE streamed as server-sent events that delivers an INSERT's row
 * and whose subscription is dropped once the client goes away; the page and its bundle at
 * {@code /} with their content types.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleApiTest {
    @Test
    void statementsAnswerTheirResultsAsJson() throws Exception {
        try (ServedConsole s = ServedConsole.start(50)) {
            HttpResponse<String> r = s.sql("{\"sql\": \"CREATE TABLE t (id int, v text); INSERT INTO t VALUES (1, 'a\\\"b'), (2, NULL);"
                    + " SELECT id, v FROM t ORDER BY id\"}");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
            assertThat(r.body()).isEqualTo("{\"results\":["
                    + "{\"tag\":\"CREATE TABLE\",\"columns\":[],\"types\":[],\"rows\":[]},"
                    + "{\"tag\":\"INSERT 0 2\",\"columns\":[],\"types\":[],\"rows\":[]},"
                    + "{\"tag\":\"SELECT 2\",\"columns\":[\"id\",\"v\"],\"types\":[\"integer\",\"text\"],\"rows\":[[\"1\",\"a\\\"b\"],[\"2\",null]]}]}");
        }
    }

    @Test
    void anErrorAnswersItsSqlstateAndPosition() throws Exception {
        try (ServedConsole s = ServedConsole.start(50)) {
            HttpResponse<String> r = s.sql("{\"sql\": \"SELECT 1; SELECT nope FROM (VALUES (1)) v(x)\"}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).startsWith("{\"results\":[{\"tag\":\"SELECT 1\"")
                    .contains("\"error\":{\"sqlstate\":\"42703\",\"message\":\"column \\\"nope\\\" does not exist\",\"position\":18,");
            HttpResponse<String> bad = s.sql("not json");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).startsWith("{\"error\":{\"sqlstate\":\"08P01\"");
            try (HttpClient client = HttpClient.newHttpClient()) {
                HttpResponse<String> get = client.send(HttpRequest.newBuilder(s.uri("/api/sql")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(get.statusCode()).isEqualTo(405);
                HttpResponse<String> badSubscribe = client.send(HttpRequest.newBuilder(s.uri("/api/subscribe?sql=" + enc("SUBSCRIBE missing"))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(badSubscribe.statusCode()).isEqualTo(400);
                assertThat(badSubscribe.body()).contains("\"sqlstate\":\"42P01\"");
            }
        }
    }

    @Test
    void aSubscriptionStreamsRowsAndIsDroppedWhenTheClientGoesAway() throws Exception {
        try (ServedConsole s = ServedConsole.start(50)) {
            s.db().execute("CREATE TABLE t (id int, v text)");
            s.db().execute("INSERT INTO t VALUES (1, 'before')");
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(s.uri("/api/subscribe?sql=" + enc("SUBSCRIBE (SELECT id, v FROM t)"))).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/event-stream; charset=utf-8");
            assertThat(s.db().activeSubscriptions()).isEqualTo(1);
            BufferedReader events = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
            String snapshot = nextBatch(events);
            assertThat(snapshot).contains("\"columns\":[\"change_time\",\"change_diff\",\"id\",\"v\"]").contains("\"1\",\"1\",\"before\"]");
            s.db().execute("INSERT INTO t VALUES (2, 'after')");
            assertThat(nextBatch(events)).contains("\"1\",\"2\",\"after\"]").doesNotContain("before");
            s.db().execute("DELETE FROM t WHERE id = 1");
            assertThat(nextBatch(events)).contains("\"-1\",\"1\",\"before\"]");

            events.close();
            client.close();
            // the server notices at its next heartbeat's write; bounded, not a fixed sleep
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (s.db().activeSubscriptions() > 0 && System.nanoTime() < deadline) Thread.onSpinWait();
            assertThat(s.db().activeSubscriptions()).isZero();
        }
    }

    /** The queries the console's dataflow graph runs (console/src/app.js, DataflowGraph) answer a view's operators, channels and arrangements. */
    @Test
    void theDataflowGraphsQueriesAnswerAViewsOperators() throws Exception {
        try (ServedConsole s = ServedConsole.start(50)) {
            s.db().execute("CREATE TABLE t (a int)");
            s.db().execute("CREATE MATERIALIZED VIEW v AS SELECT a, count(*) FROM t GROUP BY a");
            long id = (Long) s.db().query("SELECT oid::int8 FROM pg_class WHERE relname = 'v'").rows().get(0)[0];
            String flow = "dataflow_id IN (SELECT dataflow_id FROM tributary_internal.dataflows WHERE object_id = " + id + ")";
            HttpResponse<String> r = s.sql("{\"sql\": \"SELECT dataflow_id, operator_id, name, records_out, elapsed_ns FROM tributary_internal.operators WHERE "
                    + flow + " ORDER BY operator_id; SELECT from_operator, to_operator, exchange FROM tributary_internal.channels WHERE " + flow
                    + "; SELECT operator_id, name, records, shared_by::text FROM tributary_internal.arrangements WHERE " + flow + "\"}");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"reduce:aggregate\"").contains("\"arrange:byKey\"").contains(",\"{}\"]");
        }
    }

    @Test
    void theConsolePageAndItsBundleAreServed() throws Exception {
        try (ServedConsole s = ServedConsole.start(50); HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> page = client.send(HttpRequest.newBuilder(s.uri("/")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(page.body()).contains("<script src=\"console.js\"></script>").contains("href=\"console.css\"");
            HttpResponse<String> js = client.send(HttpRequest.newBuilder(s.uri("/console.js")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(js.statusCode()).isEqualTo(200);
            assertThat(js.headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
            assertThat(js.body()).startsWith("/* tributary console; sources sha256 ").contains("api/sql").contains("api/subscribe");
            HttpResponse<String> css = client.send(HttpRequest.newBuilder(s.uri("/console.css")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(css.statusCode()).isEqualTo(200);
            assertThat(css.headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
            HttpResponse<String> missing = client.send(HttpRequest.newBuilder(s.uri("/nope.html")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(missing.statusCode()).isEqualTo(404);
        }
    }

    /** A POST of {@code body} to {@code path} with the session cookie {@code cookie} (null: none). */
    private static HttpResponse<String> post(HttpClient client, ServedConsole s, String path, String body, String cookie) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(s.uri(path)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) b.header("Cookie", cookie);
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The string member {@code name} of a JSON answer (none of these hold escapes). */
    private static String member(String json, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
        assertThat(m.find()).as("%s in %s", name, json).isTrue();
        return m.group(1);
    }

    /** Runs SCRAM over the two login POSTs as the page does (with the server's own client side); the final answer. */
    private static HttpResponse<String> logIn(HttpClient client, ServedConsole s, String user, String password) throws IOException, InterruptedException {
        dev.tributary.server.auth.ScramClient scram = new dev.tributary.server.auth.ScramClient(password, new java.security.SecureRandom());
        HttpResponse<String> first = post(client, s, "/api/login/first", "{\"user\": \"" + user + "\", \"client_first\": \"" + scram.clientFirst() + "\"}", null);
        assertThat(first.statusCode()).isEqualTo(200);
        String clientFinal = scram.clientFinal(member(first.body(), "server_first"));
        HttpResponse<String> last = post(client, s, "/api/login/final",
                "{\"exchange\": \"" + member(first.body(), "exchange") + "\", \"client_final\": \"" + clientFinal + "\"}", null);
        if (last.statusCode() == 200) scram.checkServerFinal(member(last.body(), "server_final"));
        return last;
    }

    @Test
    void onceRolesHavePasswordsTheApiRunsAsTheRoleThatLoggedInWithScram() throws Exception {
        try (ServedConsole s = ServedConsole.start(50); HttpClient client = HttpClient.newHttpClient()) {
            // trusted while no role has a password: the bootstrap role, as pgwire's trust
            assertThat(s.sql("{\"sql\": \"SELECT current_user\"}").body()).contains("[[\"tributary\"]]");
            s.db().execute("CREATE TABLE secrets (s text)");
            s.db().execute("CREATE TABLE notes (n text)");
            s.db().execute("INSERT INTO notes VALUES ('hello')");
            s.db().execute("CREATE ROLE alice LOGIN PASSWORD 'wonder land'");
            s.db().execute("GRANT SELECT ON notes TO alice");

            HttpResponse<String> anonymous = s.sql("{\"sql\": \"SELECT 1\"}");
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.body()).contains("\"sqlstate\":\"28000\"");
            HttpResponse<String> stream = client.send(HttpRequest.newBuilder(s.uri("/api/subscribe?sql=" + enc("SUBSCRIBE notes"))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(stream.statusCode()).isEqualTo(401);
            assertThat(client.send(HttpRequest.newBuilder(s.uri("/api/session")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("{\"user\":null,\"logged_in\":false,\"login_required\":true}");

            for (String[] wrong : new String[][] {{"alice", "wonderland"}, {"nobody", "wonder land"}, {"tributary", ""}}) {
                HttpResponse<String> refused = logIn(client, s, wrong[0], wrong[1]);
                assertThat(refused.statusCode()).isEqualTo(401);
                assertThat(refused.body()).contains("\"sqlstate\":\"28P01\",\"message\":\"password authentication failed for user \\\"" + wrong[0] + "\\\"\"");
                assertThat(refused.headers().firstValue("Set-Cookie")).isEmpty();
            }

            HttpResponse<String> in = logIn(client, s, "alice", "wonder land");
            assertThat(in.statusCode()).isEqualTo(200);
            String setCookie = in.headers().firstValue("Set-Cookie").orElseThrow();
            assertThat(setCookie).startsWith("tributary_console=").contains("; HttpOnly").contains("; SameSite=Strict");
            String cookie = setCookie.substring(0, setCookie.indexOf(';'));
            // the password never crossed: only the proof did
            assertThat(in.body()).doesNotContain("wonder");

            HttpResponse<String> mine = post(client, s, "/api/sql", "{\"sql\": \"SELECT current_user, n FROM notes\"}", cookie);
            assertThat(mine.statusCode()).isEqualTo(200);
            assertThat(mine.body()).contains("\"rows\":[[\"alice\",\"hello\"]]");
            HttpResponse<String> denied = post(client, s, "/api/sql", "{\"sql\": \"SELECT * FROM secrets\"}", cookie);
            assertThat(denied.statusCode()).isEqualTo(400);
            assertThat(denied.body()).contains("\"sqlstate\":\"42501\",\"message\":\"permission denied for table secrets\"");
            HttpResponse<String> deniedStream = client.send(HttpRequest.newBuilder(s.uri("/api/subscribe?sql=" + enc("SUBSCRIBE secrets"))).header("Cookie", cookie).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(deniedStream.statusCode()).isEqualTo(400);
            assertThat(deniedStream.body()).contains("\"sqlstate\":\"42501\"");
            assertThat(client.send(HttpRequest.newBuilder(s.uri("/api/session")).header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("{\"user\":\"alice\",\"logged_in\":true,\"login_required\":true}");

            // a page of another site must not act with this browser's session
            HttpResponse<String> foreign = client.send(HttpRequest.newBuilder(s.uri("/api/sql")).header("Cookie", cookie).header("Origin", "http://evil.example")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"sql\": \"SELECT 1\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(foreign.statusCode()).isEqualTo(403);

            HttpResponse<String> out = post(client, s, "/api/logout", "{}", cookie);
            assertThat(out.statusCode()).isEqualTo(200);
            assertThat(out.headers().firstValue("Set-Cookie").orElseThrow()).contains("Max-Age=0");
            assertThat(post(client, s, "/api/sql", "{\"sql\": \"SELECT 1\"}", cookie).statusCode()).isEqualTo(401);

            // a session ends when its role can no longer log in
            String again = logIn(client, s, "alice", "wonder land").headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
            assertThat(post(client, s, "/api/sql", "{\"sql\": \"SELECT 1\"}", again).statusCode()).isEqualTo(200);
            s.db().execute("ALTER ROLE alice NOLOGIN");
            assertThat(post(client, s, "/api/sql", "{\"sql\": \"SELECT 1\"}", again).statusCode()).isEqualTo(401);
        }
    }

    @Test
    void aMalformedLoginIsRefusedWithItsSqlstate() throws Exception {
        try (ServedConsole s = ServedConsole.start(50); HttpClient client = HttpClient.newHttpClient()) {
            s.db().execute("CREATE ROLE alice LOGIN PASSWORD 'x'");
            HttpResponse<String> noNonce = post(client, s, "/api/login/first", "{\"user\": \"alice\", \"client_first\": \"n,,n=\"}", null);
            assertThat(noNonce.statusCode()).isEqualTo(400);
            assertThat(noNonce.body()).contains("\"sqlstate\":\"08P01\",\"message\":\"malformed SCRAM message\"");
            HttpResponse<String> noExchange = post(client, s, "/api/login/final", "{\"exchange\": \"made-up\", \"client_final\": \"c=biws,r=x,p=AAAA\"}", null);
            assertThat(noExchange.statusCode()).isEqualTo(400);
            assertThat(noExchange.body()).contains("\"sqlstate\":\"08P01\"");
            HttpResponse<String> missing = post(client, s, "/api/login/first", "{\"user\": \"alice\"}", null);
            assertThat(missing.statusCode()).isEqualTo(400);
            assertThat(missing.body()).contains("it has no member \\\"client_first\\\"");
        }
    }

    /** The data of the next {@code batch} event, skipping comments. */
    private static String nextBatch(BufferedReader events) throws IOException {
        String event = null;
        for (String line; (line = events.readLine()) != null; ) {
            if (line.startsWith("event: ")) event = line.substring(7);
            else if (line.startsWith("data: ") && "batch".equals(event)) return line.substring(6);
        }
        throw new IOException("the stream ended");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
