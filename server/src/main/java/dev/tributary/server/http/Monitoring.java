package dev.tributary.server.http;

import com.sun.net.httpserver.HttpExchange;
import dev.tributary.server.Tributary;
import dev.tributary.server.pgwire.PgServer;
import dev.tributary.sql.catalog.Catalog;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a server answers its operators over HTTP: {@code /metrics} in the Prometheus exposition
 * formats (the client library's handler: text by default, OpenMetrics or protobuf as the scraper
 * asks) with the {@link DatabaseMetrics} and the client's JVM metrics (heap, GC, threads);
 * {@code /health}, 200 while the process serves; {@code /ready}, 200 once the database is open
 * and no materialized view or index is being built, else 503 with a line for each thing it
 * waits for.
 */
public final class Monitoring {
    /**
     * How a scrape reads the objects: a sample no older than {@code sampleMaxAgeMillis} (0: a new one
     * each scrape), waited for at most {@code sampleWaitMillis} before the last one is shown instead.
     */
    public record Options(long sampleMaxAgeMillis, long sampleWaitMillis) {
        public Options {
            if (sampleMaxAgeMillis < 0 || sampleWaitMillis < 0) throw new IllegalArgumentException("sample ages and waits are not negative");
        }

        /** A sample at most a second old (scrapes are seconds apart), waited for up to two seconds. */
        public static Options defaults() {
            return new Options(1_000, 2_000);
        }
    }

    private Monitoring() {}

    /** Serves {@code /metrics}, {@code /health} and {@code /ready} for {@code server} on {@code http}. */
    public static void install(HttpService http, PgServer server, Options options) {
        ObjectSampler sampler = new ObjectSampler(server::database, options.sampleMaxAgeMillis() * 1_000_000L, options.sampleWaitMillis() * 1_000_000L);
        http.own(sampler);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new DatabaseMetrics(server, sampler));
        JvmMetrics.builder().register(registry);
        http.handle("/metrics", new MetricsHandler(registry));
        http.handle("/health", exchange -> answer(exchange, 200, "ok\n"));
        http.handle("/ready", exchange -> {
            String waiting = notReady(server.database());
            answer(exchange, waiting == null ? 200 : 503, waiting == null ? "ready\n" : waiting);
        });
    }

    /** What {@code db} is not ready for, a line each, or null if it is ready. */
    private static String notReady(Tributary db) {
        if (db == null) return "not ready: the database is being opened (recovery)\n";
        List<Catalog.HydrationProgress> building = db.hydrations();
        if (building.isEmpty()) return null;
        StringBuilder b = new StringBuilder();
        for (Catalog.HydrationProgress h : building) {
            b.append("not ready: building ").append(h.kind()).append(" \"").append(h.name()).append("\" (")
                    .append(h.phase()).append(", ").append(h.rowsDone()).append(" of ").append(h.rowsTotal()).append(" rows read)\n");
        }
        return b.toString();
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        try (exchange) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            boolean head = exchange.getRequestMethod().equals("HEAD");
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }
}
