package dev.tributary.sql.catalog;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows of {@code tributary_internal}'s relations about the running engine (builds under way,
 * arrangement sizes, subscriptions, dataflows, operators, channels, arrangements), from what the
 * engine reports through {@link Catalog}.
 *
 * <p>One place for both ways they are read: a one-off query computes them as it is planned
 * ({@link SystemCatalog#rows}), and the server's sampler writes them into the collections that
 * views, materialized views and subscriptions read. So the two always have the same columns and
 * values.
 */
public final class EngineRows {
    private EngineRows() {}

    /** {@code hydration_progress}: a row per build under way. */
    public static List<Object[]> hydrationProgress(List<Catalog.HydrationProgress> builds) {
        List<Object[]> out = new ArrayList<>(builds.size());
        for (Catalog.HydrationProgress h : builds) {
            out.add(SystemCatalog.row(SystemCatalog.oid(h.id()), h.kind(), h.name(), h.phase(), h.rowsDone(), h.rowsTotal(),
                    java.time.Instant.ofEpochMilli(h.startedMillis())));
        }
        return out;
    }

    /** {@code server_metrics}: one row, the counters {@code m} read at {@code at}; none without counters (no server). */
    public static List<Object[]> serverMetrics(Catalog.ServerMetrics m, java.time.Instant at) {
        if (m == null) return List.of();
        List<Object[]> out = new ArrayList<>(1);
        out.add(SystemCatalog.row(at, m.statements(), m.statementErrors(), m.commits(), m.committedRows(), m.latencyP50Millis(),
                m.latencyP99Millis(), m.heapUsedBytes(), m.heapCommittedBytes(), m.arrangementRecords(), m.arrangementBytes(),
                m.connections(), m.subscriptions()));
        return out;
    }

    /** {@code arrangement_sizes}: a row per part of every relation's own dataflow. */
    public static List<Object[]> arrangementSizes(List<Catalog.ArrangementPart> parts) {
        List<Object[]> out = new ArrayList<>(parts.size());
        for (Catalog.ArrangementPart a : parts) out.add(SystemCatalog.row(SystemCatalog.oid(a.id()), a.name(), a.part(), a.records(), a.bytes(), a.pagedBytes()));
        return out;
    }

    /** {@code subscriptions}: a row per running subscription. */
    public static List<Object[]> subscriptions(List<Catalog.SubscriptionState> running) {
        List<Object[]> out = new ArrayList<>(running.size());
        for (Catalog.SubscriptionState s : running) out.add(SystemCatalog.row(s.id(), s.pid(), s.query(), s.records(), s.lateRows(), s.watermark()));
        return out;
    }

    /** {@code dataflows}: a row per running dataflow, its operators' records out and time summed. */
    public static List<Object[]> dataflows(List<Catalog.DataflowInfo> dataflows) {
        List<Object[]> out = new ArrayList<>(dataflows.size());
        for (Catalog.DataflowInfo d : dataflows) {
            long sent = 0;
            long elapsed = 0;
            for (var o : d.graph().operators()) {
                sent += o.recordsOut();
                elapsed += o.elapsedNanos();
            }
            out.add(SystemCatalog.row(d.graph().index(), d.graph().name(), objectOid(d.objectId()), d.graph().operators().size(),
                    d.graph().channels().size(), d.arrangements().size(), sent, elapsed));
        }
        return out;
    }

    /** {@code operators}: a row per operator of every running dataflow, its counts summed over the workers. */
    public static List<Object[]> operators(List<Catalog.DataflowInfo> dataflows) {
        List<Object[]> out = new ArrayList<>();
        for (Catalog.DataflowInfo d : dataflows) {
            for (var o : d.graph().operators()) {
                out.add(SystemCatalog.row(d.graph().index(), o.id(), o.name(), o.scope(), o.inputs(), o.outputs(), o.recordsIn(), o.recordsOut(),
                        o.messagesIn(), o.messagesOut(), o.activations(), o.elapsedNanos()));
            }
        }
        return out;
    }

    /** {@code channels}: a row per edge of every running dataflow's graph. */
    public static List<Object[]> channels(List<Catalog.DataflowInfo> dataflows) {
        List<Object[]> out = new ArrayList<>();
        for (Catalog.DataflowInfo d : dataflows) {
            for (var c : d.graph().channels()) out.add(SystemCatalog.row(d.graph().index(), c.from(), c.fromPort(), c.to(), c.toPort(), c.exchange()));
        }
        return out;
    }

    /** {@code arrangements}: a row per arrangement a running dataflow built, with the dataflows importing it now. */
    public static List<Object[]> arrangements(List<Catalog.DataflowInfo> dataflows) {
        List<Object[]> out = new ArrayList<>();
        for (Catalog.DataflowInfo d : dataflows) {
            for (Catalog.ArrangementInfo a : d.arrangements()) {
                List<Object> shared = new ArrayList<>(a.sharedBy().size());
                for (int i : a.sharedBy()) shared.add((long) i);
                out.add(SystemCatalog.row(d.graph().index(), a.operator() < 0 ? null : a.operator(), objectOid(d.objectId()), a.name(), a.batches(),
                        a.records(), a.bytes(), a.pagedBytes(), shared));
            }
        }
        return out;
    }

    /** The OID of catalog object {@code id} (-1: none, null). */
    private static Long objectOid(long id) {
        return id < 0 ? null : SystemCatalog.oid(id);
    }
}
