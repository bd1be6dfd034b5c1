package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.http.ConsoleApi;
import dev.tributary.server.http.ConsoleFiles;
import dev.tributary.server.http.HttpService;
import dev.tributary.server.pgwire.PgServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.URI;
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
    /** A database behind a wire server and an HTTP port with the console API, on free loopback ports. */
    private record Served(Tributary db, PgServer server, HttpService http) implements AutoCloseable {
        static Served start() throws IOException {
            Tributary db = Tributary.inMemory();
            PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
            HttpService http = HttpService.bind(InetAddress.getLoopbackAddress(), 0);
            ConsoleApi.install(http, server, new ConsoleApi.Options(50));
            ConsoleFiles.install(http);
            http.start();
            return new Served(db, server, http);
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + http.port() + path);
        }

        HttpResponse<String> sql(String body) throws IOException, InterruptedException {
            try (HttpClient client = HttpClient.newHttpClient()) {
                return client.send(HttpRequest.newBuilder(uri("/api/sql")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                        HttpResponse.BodyHandlers.ofString());
            }
        }

        @Override
        public void close() throws IOException {
            http.close();
            server.close();
            db.close();
        }
    }

    @Test
    void statementsAnswerTheirResultsAsJson() throws Exception {
        try (Served s = Served.start()) {
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
        try (Served s = Served.start()) {
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
        try (Served s = Served.start()) {
            s.db.execute("CREATE TABLE t (id int, v text)");
            s.db.execute("INSERT INTO t VALUES (1, 'before')");
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(s.uri("/api/subscribe?sql=" + enc("SUBSCRIBE (SELECT id, v FROM t)"))).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/event-stream; charset=utf-8");
            assertThat(s.db.activeSubscriptions()).isEqualTo(1);
            BufferedReader events = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
            String snapshot = nextBatch(events);
            assertThat(snapshot).contains("\"columns\":[\"change_time\",\"change_diff\",\"id\",\"v\"]").contains("\"1\",\"1\",\"before\"]");
            s.db.execute("INSERT INTO t VALUES (2, 'after')");
            assertThat(nextBatch(events)).contains("\"1\",\"2\",\"after\"]").doesNotContain("before");
            s.db.execute("DELETE FROM t WHERE id = 1");
            assertThat(nextBatch(events)).contains("\"-1\",\"1\",\"before\"]");

            events.close();
            client.close();
            // the server notices at its next heartbeat's write; bounded, not a fixed sleep
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (s.db.activeSubscriptions() > 0 && System.nanoTime() < deadline) Thread.onSpinWait();
            assertThat(s.db.activeSubscriptions()).isZero();
        }
    }

    /** The queries the console's dataflow graph runs (console/src/app.js, DataflowGraph) answer a view's operators, channels and arrangements. */
    @Test
    void theDataflowGraphsQueriesAnswerAViewsOperators() throws Exception {
        try (Served s = Served.start()) {
            s.db.execute("CREATE TABLE t (a int)");
            s.db.execute("CREATE MATERIALIZED VIEW v AS SELECT a, count(*) FROM t GROUP BY a");
            long id = (Long) s.db.query("SELECT oid::int8 FROM pg_class WHERE relname = 'v'").rows().get(0)[0];
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
        try (Served s = Served.start(); HttpClient client = HttpClient.newHttpClient()) {
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
