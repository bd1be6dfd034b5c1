package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.http.HttpService;
import dev.tributary.server.http.Monitoring;
import dev.tributary.server.pgwire.PgServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /metrics}, {@code /health} and {@code /ready} of a server on free ports, scraped over
 * HTTP and read with the Prometheus client's own classes ({@link MetricsScrape}): the statement
 * counters move by exactly the statements run, the histograms' buckets add up to their counts,
 * objects have lag and size series while they exist, and {@code /ready} is 503 while the
 * database is opened or a view is built.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MonitoringTest {
    private static final String DURATION = "tributary_statement_duration_seconds";

    /** A database behind a wire server and an HTTP port, both on free loopback ports. */
    private record Served(Tributary db, PgServer server, HttpService http) implements AutoCloseable {
        static Served start(Tributary db, Monitoring.Options options) throws IOException {
            PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
            HttpService http = HttpService.bind(InetAddress.getLoopbackAddress(), 0);
            Monitoring.install(http, server, options);
            http.start();
            return new Served(db, server, http);
        }

        Connection jdbc() throws SQLException {
            return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
        }

        MetricsScrape scrape() {
            return MetricsScrape.of(http.port());
        }

        @Override
        public void close() throws IOException {
            http.close();
            server.close();
            if (db != null) db.close();
        }
    }

    @Test
    void statementCountersMoveByExactlyTheStatementsRun() throws Exception {
        try (Served s = Served.start(Tributary.inMemory(Clock.manual(0), 1), new Monitoring.Options(0, 30_000));
             Connection c = s.jdbc(); Statement st = c.createStatement()) {
            MetricsScrape before = s.scrape();
            st.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            st.execute("CREATE MATERIALIZED VIEW mv AS SELECT v, count(*) AS n FROM t GROUP BY v");
            for (int i = 1; i <= 3; i++) st.executeUpdate("INSERT INTO t VALUES (" + i + ", 'x" + i % 2 + "')");
            st.executeUpdate("UPDATE t SET v = 'y' WHERE id = 3");
            for (int i = 0; i < 4; i++) st.executeQuery("SELECT count(*) FROM t").close();
            st.executeQuery("SELECT * FROM mv").close();
            assertThatThrownBy(() -> st.executeQuery("SELECT * FROM missing")).isInstanceOf(SQLException.class);
            // a block: BEGIN, two writes, COMMIT is one commit
            c.setAutoCommit(false);
            st.executeUpdate("INSERT INTO t VALUES (10, 'z')");
            st.executeUpdate("INSERT INTO t VALUES (11, 'z')");
            c.commit();
            c.setAutoCommit(true);
            MetricsScrape after = s.scrape();

            assertThat(after.count(DURATION, "kind", "ddl") - before.count(DURATION, "kind", "ddl")).isEqualTo(2);
            assertThat(after.count(DURATION, "kind", "write") - before.count(DURATION, "kind", "write")).isEqualTo(6);
            assertThat(after.count(DURATION, "kind", "query") - before.count(DURATION, "kind", "query")).isEqualTo(6);
            // the driver's BEGIN, and the COMMIT
            assertThat(after.count(DURATION, "kind", "transaction") - before.count(DURATION, "kind", "transaction")).isEqualTo(2);
            assertThat(after.value("tributary_statement_errors_total", "kind", "query") - before.value("tributary_statement_errors_total", "kind", "query"))
                    .isEqualTo(1);
            assertThat(after.value("tributary_statement_errors_total", "kind", "write")).isZero();
            // three INSERTs and an UPDATE autocommitted, and the block
            assertThat(after.value("tributary_commits_total") - before.value("tributary_commits_total")).isEqualTo(5);
            // 3 inserted, the update's delete and insert, 2 in the block
            assertThat(after.value("tributary_committed_rows_total") - before.value("tributary_committed_rows_total")).isEqualTo(7);
            // every histogram's buckets are cumulative and end at its count
            for (var m : after.family(DURATION).getMetricList()) {
                var h = m.getHistogram();
                long last = 0;
                for (var b : h.getBucketList()) {
                    assertThat(b.getCumulativeCount()).isGreaterThanOrEqualTo(last);
                    last = b.getCumulativeCount();
                }
                assertThat(last).isLessThanOrEqualTo(h.getSampleCount());
                assertThat(h.getSampleSum()).isNotNegative();
            }
            assertThat(after.value("tributary_connections")).isEqualTo(1);
            assertThat(after.value("tributary_ready")).isEqualTo(1);
            // the client's JVM instrumentation: heap and GC
            assertThat(after.series("jvm_memory_used_bytes", "area", "heap")).isPresent();
            assertThat(after.families()).containsKey("jvm_gc_collection_seconds");
        }
    }

    @Test
    void objectsHaveLagAndSizeSeriesWhileTheyExist() throws Exception {
        try (Served s = Served.start(Tributary.inMemory(Clock.manual(0), 2), new Monitoring.Options(0, 30_000))) {
            s.db().execute("CREATE TABLE t (g int, x int)");
            s.db().execute("INSERT INTO t SELECT i % 10, i FROM generate_series(1, 1000) AS s(i)");
            s.db().execute("CREATE MATERIALIZED VIEW sums AS SELECT g, sum(x) AS s FROM t GROUP BY g");
            s.db().execute("CREATE INDEX by_g ON t (g)");
            s.db().execute("CREATE VIEW plain AS SELECT * FROM t");
            MetricsScrape m = s.scrape();
            for (String kind : List.of("tributary_object_lag_seconds", "tributary_object_records", "tributary_object_bytes")) {
                assertThat(m.labelValues(kind, "object")).as(kind).containsExactlyInAnyOrder("t", "sums", "by_g");
            }
            assertThat(m.series("tributary_object_lag_seconds", "object", "sums", "kind", "materialized view", "schema", "public")).isPresent();
            assertThat(m.value("tributary_object_lag_seconds", "object", "t")).isNotNegative();
            // the sizes are the dataflows' own, as tributary_internal and arrangementSize show them
            assertThat((long) m.value("tributary_object_records", "object", "sums")).isEqualTo(s.db().arrangementSize("sums").records());
            assertThat((long) m.value("tributary_object_bytes", "object", "t")).isEqualTo(s.db().arrangementSize("t").bytes()).isPositive();
            assertThat(m.value("tributary_subscriptions")).isZero();

            s.db().execute("DROP MATERIALIZED VIEW sums");
            s.db().execute("DROP INDEX by_g");
            MetricsScrape dropped = s.scrape();
            assertThat(dropped.labelValues("tributary_object_lag_seconds", "object")).containsExactly("t");
            assertThat(dropped.labelValues("tributary_object_bytes", "object")).containsExactly("t");
        }
    }

    @Test
    void readyOnlyOnceOpenAndEveryBuildDone() throws Exception {
        // a server still opening its data: alive, not ready
        try (Served s = Served.start(null, new Monitoring.Options(0, 30_000))) {
            assertThat(MetricsScrape.get(s.http().port(), "/health").statusCode()).isEqualTo(200);
            HttpResponse<String> opening = MetricsScrape.get(s.http().port(), "/ready");
            assertThat(opening.statusCode()).isEqualTo(503);
            assertThat(opening.body()).contains("being opened");
            assertThat(s.scrape().value("tributary_ready")).isZero();
            Tributary db = Tributary.inMemory(Clock.manual(0), 1);
            try {
                s.server().ready(db);
                assertThat(MetricsScrape.get(s.http().port(), "/ready").statusCode()).isEqualTo(200);
            } finally {
                db.close();
            }
        }
    }

    @Test
    void notReadyWhileAMaterializedViewIsBuilt() throws Exception {
        // a short wait for the objects' sample: the CREATE being built holds the coordinator
        try (Served s = Served.start(Tributary.inMemory(Clock.manual(0), 2), new Monitoring.Options(0, 50))) {
            s.db().execute("CREATE TABLE t (id int, g int, x int)");
            s.db().execute("INSERT INTO t SELECT i, i % 1000, i % 7 FROM generate_series(1, 100000) AS s(i)");
            s.db().coordinator().ddl().progressNoticeNanos = 0; // a notice at every look: the build is held on its own thread there
            Tributary.Connection session = s.db().session();
            List<HttpResponse<String>> during = new ArrayList<>();
            List<Double> building = new ArrayList<>();
            session.onNotice(n -> {
                if (!during.isEmpty()) return;
                during.add(MetricsScrape.get(s.http().port(), "/ready"));
                during.add(MetricsScrape.get(s.http().port(), "/health"));
                building.add(s.scrape().value("tributary_hydrations_in_progress"));
            });
            session.execute("CREATE MATERIALIZED VIEW sums AS SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g");
            assertThat(during).as("a progress notice came during the build").hasSize(2);
            assertThat(during.get(0).statusCode()).isEqualTo(503);
            assertThat(during.get(0).body()).startsWith("not ready: building materialized view \"sums\"");
            assertThat(during.get(1).statusCode()).isEqualTo(200);
            assertThat(building).containsExactly(1.0);
            HttpResponse<String> after = MetricsScrape.get(s.http().port(), "/ready");
            assertThat(after.statusCode()).isEqualTo(200);
            assertThat(after.body()).isEqualTo("ready\n");
            assertThat(s.scrape().value("tributary_hydrations_in_progress")).isZero();
        }
    }

    @Test
    void theTextExpositionHasEveryFamily() throws Exception {
        try (Served s = Served.start(Tributary.inMemory(Clock.manual(0), 1), new Monitoring.Options(0, 30_000))) {
            s.db().execute("CREATE TABLE t (x int)");
            s.db().execute("SELECT * FROM t");
            HttpResponse<String> text = MetricsScrape.text(s.http().port());
            assertThat(text.statusCode()).isEqualTo(200);
            assertThat(text.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
            MetricsScrape proto = s.scrape();
            for (String family : proto.families().keySet()) {
                assertThat(text.body()).as(family).contains("# TYPE " + family + " ");
            }
            assertThat(text.body()).contains(DURATION + "_bucket{kind=\"query\",le=\"0.001\"} ")
                    .contains("tributary_object_bytes{kind=\"table\",object=\"t\",schema=\"public\"} ");
        }
    }

    /**
     * The text exposition read by Prometheus' own parser of it: the Python client's
     * {@code text_string_to_metric_families} (Debian's python3-prometheus-client, which
     * {@code .ci/run} installs; the Java client has none), which fails on anything malformed. Every
     * family of the protobuf scrape is there with its type, and the query histogram's count agrees.
     */
    @Test
    void theTextExpositionParsesWithPrometheusOwnParser() throws Exception {
        try (Served s = Served.start(Tributary.inMemory(Clock.manual(0), 1), new Monitoring.Options(0, 30_000))) {
            s.db().execute("CREATE TABLE t (x int)");
            for (int i = 0; i < 3; i++) s.db().execute("SELECT * FROM t");
            // the protobuf scrape first: a family it has series of (a pool's allocations, after a GC) is in the later text too
            MetricsScrape proto = s.scrape();
            String body = MetricsScrape.text(s.http().port()).body();
            String script = String.join("\n",
                    "import sys",
                    "from prometheus_client.parser import text_string_to_metric_families",
                    "for f in text_string_to_metric_families(sys.stdin.read()):",
                    "    print(f.name, f.type, '', '', 0, sep='\\t')",
                    "    for m in f.samples:",
                    "        print(f.name, f.type, m.name, ','.join(k + '=' + v for k, v in sorted(m.labels.items())), m.value, sep='\\t')");
            Process p = new ProcessBuilder(System.getProperty("clients.python", "/usr/bin/python3"), "-c", script).redirectErrorStream(true).start();
            try (var in = p.getOutputStream()) {
                in.write(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as("the parser's exit (python3-prometheus-client installed?):\n%s", out).isZero();
            java.util.Map<String, String> types = new java.util.HashMap<>();
            double queries = -1;
            for (String line : out.split("\n")) {
                String[] f = line.split("\t");
                types.put(f[0], f[1]);
                if (f[2].equals(DURATION + "_count") && f[3].equals("kind=query")) queries = Double.parseDouble(f[4]);
            }
            for (var family : proto.families().values()) {
                if (family.getMetricCount() == 0) continue; // a family without series has no lines
                // the parser names a counter's family without its _total, as the exposition's TYPE line does
                String name = family.getType() == io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_36_2.Metrics.MetricType.COUNTER
                        ? family.getName().replaceFirst("_total$", "") : family.getName();
                assertThat(types).as("family %s in the parsed text", name).containsKey(name);
                assertThat(types.get(name)).as(name).isEqualTo(family.getType().name().toLowerCase(java.util.Locale.ROOT));
            }
            assertThat(types.get(DURATION)).isEqualTo("histogram");
            assertThat(queries).as("queries counted in the text").isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void aPortInUseIsAClearError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> HttpService.bind(InetAddress.getLoopbackAddress(), taken.getLocalPort()))
                    .isInstanceOf(BindException.class)
                    .hasMessageContaining("could not listen for HTTP on 127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("--http-port");
        }
    }
}
