package dev.tributary.server.http;

import dev.tributary.server.ObjectSample;
import dev.tributary.server.Tributary;
import dev.tributary.server.pgwire.PgServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The {@code tributary_*} metrics of a server at a scrape: whether it is ready, its connections,
 * its builds under way, each object's lag and size ({@link ObjectSampler}, labelled
 * {@code schema}, {@code object}, {@code kind}; an object dropped is gone from the next sample),
 * the subscriptions running, and the database's {@link dev.tributary.server.StatementMetrics}.
 * While the database is being opened only the first two are there.
 */
final class DatabaseMetrics implements MultiCollector {
    private final PgServer server;
    private final ObjectSampler objects;

    DatabaseMetrics(PgServer server, ObjectSampler objects) {
        this.server = server;
        this.objects = objects;
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> out = new ArrayList<>();
        Tributary db = server.database();
        int building = db == null ? 0 : db.hydrations().size();
        out.add(gauge("tributary_ready", "1 once the database is open and no materialized view or index is being built (what /ready answers 200 to)",
                db != null && building == 0 ? 1 : 0));
        out.add(gauge("tributary_connections", "Client connections being served now", server.connections()));
        out.add(CounterSnapshot.builder().name("tributary_connections_rejected").help("Clients refused with 53300 (too many clients)")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(server.rejectedConnections()).build()).build());
        if (db == null) return new MetricSnapshots(out);
        out.add(gauge("tributary_hydrations_in_progress", "CREATE MATERIALIZED VIEW and CREATE INDEX builds under way", building));
        db.statementMetrics().collect().forEach(out::add);
        ObjectSample.Samples s = objects.sample(db);
        if (s != null) {
            out.add(gauge("tributary_object_sample_age_seconds", "How old the objects' lag and sizes below are (a busy coordinator keeps the last sample)",
                    (System.nanoTime() - s.takenAtNanos()) / 1e9));
            out.add(gauge("tributary_subscriptions", "Subscriptions running: SUBSCRIBE, COPY streams, cursors over them", s.subscriptions()));
            out.add(perObject(s, "tributary_object_lag_seconds", "How far the time an object is complete up to trails the clock", o -> o.lagMillis(), 1e-3));
            out.add(perObject(s, "tributary_object_records", "Updates held in an object's own arrangements, over all workers", ObjectSample::records, 1));
            out.add(perObject(s, "tributary_object_bytes", "Heap bytes of an object's own arrangements, over all workers", ObjectSample::bytes, 1));
            out.add(perObject(s, "tributary_object_paged_bytes", "Bytes of an object's arrangement batches paged out to files", ObjectSample::pagedBytes, 1));
        }
        return new MetricSnapshots(out);
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder().name(name).help(help).dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build()).build();
    }

    private static GaugeSnapshot perObject(ObjectSample.Samples s, String name, String help, ToLongFunction<ObjectSample> value, double scale) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        for (ObjectSample o : s.objects()) {
            b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("schema", o.schema(), "object", o.name(), "kind", o.kind()))
                    .value(value.applyAsLong(o) * scale).build());
        }
        return b.build();
    }
}
