package dev.tributary.server;

import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_36_2.Metrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One scrape of {@code /metrics}, read as Prometheus reads it. The Prometheus Java client has no
 * parser of the text format (it only writes it), so the scrape asks for the protobuf exposition
 * (as a Prometheus server may) and reads it with the client's own {@code MetricFamily} classes,
 * the data model of Prometheus' {@code client_model}; the same handler writes both formats from
 * the same snapshot code. {@link #text} is the text exposition of the same path, for what only
 * the text format shows.
 */
record MetricsScrape(Map<String, Metrics.MetricFamily> families) {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final String PROTOBUF = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    static MetricsScrape of(int port) {
        HttpResponse<InputStream> r = get(port, "/metrics", PROTOBUF, HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) throw new AssertionError("/metrics answered " + r.statusCode());
        Map<String, Metrics.MetricFamily> families = new LinkedHashMap<>();
        try (InputStream in = r.body()) {
            for (Metrics.MetricFamily f; (f = Metrics.MetricFamily.parseDelimitedFrom(in)) != null; ) families.put(f.getName(), f);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return new MetricsScrape(families);
    }

    /** The text exposition of {@code /metrics}, with its content type. */
    static HttpResponse<String> text(int port) {
        return get(port, "/metrics", "text/plain", HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(int port, String path) {
        return get(port, path, "*/*", HttpResponse.BodyHandlers.ofString());
    }

    private static <T> HttpResponse<T> get(int port, String path, String accept, HttpResponse.BodyHandler<T> body) {
        try {
            return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Accept", accept).GET().build(), body);
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    Metrics.MetricFamily family(String name) {
        Metrics.MetricFamily f = families.get(name);
        if (f == null) throw new AssertionError("no metric family " + name + " in " + families.keySet());
        return f;
    }

    /** The series of family {@code name} whose labels include {@code labels} (name, value, ...). */
    Optional<Metrics.Metric> series(String name, String... labels) {
        Metrics.MetricFamily f = families.get(name);
        if (f == null) return Optional.empty();
        return f.getMetricList().stream().filter(m -> {
            for (int i = 0; i < labels.length; i += 2) {
                String k = labels[i];
                String v = labels[i + 1];
                if (m.getLabelList().stream().noneMatch(l -> l.getName().equals(k) && l.getValue().equals(v))) return false;
            }
            return true;
        }).findFirst();
    }

    /** The value of a gauge or counter series, 0 if there is no such series. */
    double value(String name, String... labels) {
        return series(name, labels).map(m -> m.hasCounter() ? m.getCounter().getValue() : m.getGauge().getValue()).orElse(0.0);
    }

    /** How many observations histogram series {@code name}{labels} has counted, 0 if none. */
    long count(String name, String... labels) {
        return series(name, labels).map(m -> m.getHistogram().getSampleCount()).orElse(0L);
    }

    /** Every value of family {@code name}'s series labelled {@code label}. */
    List<String> labelValues(String name, String label) {
        Metrics.MetricFamily f = families.get(name);
        if (f == null) return List.of();
        return f.getMetricList().stream().flatMap(m -> m.getLabelList().stream()).filter(l -> l.getName().equals(label)).map(Metrics.LabelPair::getValue).toList();
    }
}
