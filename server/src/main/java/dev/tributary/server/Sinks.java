package dev.tributary.server;

import dev.tributary.server.sink.HttpSink;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.CatalogItem;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The database's HTTP sinks ({@code CREATE SINK name FROM relation | (query) INTO HTTP (URL '...')},
 * and {@code CREATE JOB name AS INSERT INTO FUNCTION url('...') query}, which is one): for each,
 * its table (the last time its receiver acknowledged, written by the sink only), what it
 * reads, and, once started, its subscription and delivery. As with sources, a sink made by CREATE
 * SINK or again by a restart's recovery is pending until that has ended; then {@link #startPending}
 * starts it after the time its table holds. Dropping a sink stops its delivery without waiting
 * (the delivery may be waiting for the coordinator's lock, which the DROP holds).
 *
 * <p>Kafka sinks ({@code INTO KAFKA}, exactly once) are not kept here: they are job-like, kept in
 * {@link Jobs} and run by {@link KafkaSinkRunner}, because their progress is a cursor committed
 * as a job's is. SHOW SINKS, DROP SINK and ALTER SINK look in both.
 *
 * <p>Thread-safe: the coordinator calls it under its lock, deliveries and shutdown without.
 */
final class Sinks {
    /** A sink: its table, its statement (what it reads), its receiver, and its running delivery. */
    static final class Sink {
        final CatalogItem.Table table;
        /** Its CREATE SINK: FROM a relation or a query, bound again (with {@link #searchPath}) each time it starts. */
        final Statement.CreateSink statement;
        final String searchPath;
        final URI url;
        /** The most its delivery queues for a receiver that is away (bytes, estimated). */
        final long maxQueuedBytes;
        volatile HttpSink delivery;
        /** The last time acknowledged (epoch ms; -1 for none yet), as its table holds it. */
        volatile long acknowledged = -1;
        /** The stored collections its query reads, transitively (null until it has started: then everything is held). */
        volatile java.util.Set<Long> reads;
        /**
         * The time from which it holds the history of what it reads: the last acknowledged time once
         * that is durable, so that a restart can subscribe AS OF it (-1: none yet).
         */
        volatile long hold = -1;
        volatile Subscription subscription;
        /** The feed of its delivery that {@link #subscription} feeds ({@link HttpSink#feed()}). */
        volatile int feed;
        /** Why it does not deliver, when that is not its own choice (its query no longer binds); null otherwise. */
        volatile String stopped;
        /** Stopped because its owner may no longer read what it reads; a GRANT that lets it read again resumes it. */
        volatile boolean denied;
        /** ALTER SINK PAUSE'd: no subscription, its history held from its last acknowledged time (a {@code paused} part in its table). */
        volatile boolean paused;

        Sink(CatalogItem.Table table, Statement.CreateSink statement, String searchPath, URI url, long maxQueuedBytes) {
            this.table = table;
            this.statement = statement;
            this.searchPath = searchPath;
            this.url = url;
            this.maxQueuedBytes = maxQueuedBytes;
        }

        /** What it reads, as SHOW SINKS shows it: the relation as named, or the query. */
        String reading() {
            return statement.query() != null ? dev.tributary.sql.parser.SqlFormatter.format(statement.query()) : String.join(".", statement.from());
        }
    }

    private final Map<Long, Sink> byTable = new HashMap<>();
    private final List<Sink> pending = new ArrayList<>();

    synchronized void created(Sink s) {
        byTable.put(s.table.id(), s);
        pending.add(s);
    }

    /** The sink whose table is {@code id}, or null. */
    synchronized Sink ofTable(long id) {
        return byTable.get(id);
    }

    /**
     * The holds of the sinks: per stored collection, the earliest time one of them must still read
     * (from its last durable acknowledged time); null while some sink does not know yet what it
     * reads (one made again by a recovery, not started yet): then everything is held.
     */
    synchronized Map<Long, Long> holds() {
        Map<Long, Long> out = new HashMap<>();
        for (Sink s : byTable.values()) {
            if (s.reads == null) return null;
            if (s.hold < 0) continue;
            for (long id : s.reads) out.merge(id, s.hold, Math::min);
        }
        return out;
    }

    /** Every sink, in name order. */
    synchronized List<Sink> all() {
        List<Sink> out = new ArrayList<>(byTable.values());
        out.sort(java.util.Comparator.comparing(s -> s.table.name()));
        return out;
    }

    /** Object {@code id} is dropped: if it is a sink's table, its delivery stops, and the sink is returned (else null). */
    Sink dropped(long id) {
        Sink s;
        synchronized (this) {
            s = byTable.remove(id);
            if (s == null) return null;
            pending.remove(s);
        }
        stop(s);
        return s;
    }

    /** Stops {@code s}'s subscription and delivery, without waiting. */
    static void stop(Sink s) {
        Subscription sub = s.subscription;
        if (sub != null) sub.close();
        s.subscription = null;
        HttpSink d = s.delivery;
        if (d != null) d.stop();
    }

    /** ALTER SINK PAUSE: its delivery stops (without waiting); what it holds stays held. */
    void pause(Sink s) {
        synchronized (this) {
            s.paused = true;
            pending.remove(s);
        }
        stop(s);
    }

    /** ALTER SINK RESUME (or its owner may read again): started again, after its last acknowledged time, once the statement has ended. */
    synchronized void resume(Sink s) {
        s.paused = false;
        if (byTable.get(s.table.id()) == s && !pending.contains(s)) pending.add(s);
    }

    /** Starts every pending sink with {@code start} (which subscribes and starts its delivery). */
    void startPending(Consumer<Sink> start) {
        List<Sink> starting;
        synchronized (this) {
            starting = new ArrayList<>(pending);
            pending.clear();
        }
        for (Sink s : starting) start.accept(s);
    }

    /** Stops every delivery and waits for each; called without the coordinator's lock. */
    void stopAll() {
        List<Sink> all;
        synchronized (this) {
            all = new ArrayList<>(byTable.values());
            pending.clear();
        }
        for (Sink s : all) stop(s);
        for (Sink s : all) if (s.delivery != null) s.delivery.close();
    }
}
