package dev.tributary.server;

import dev.tributary.server.source.Connector;
import dev.tributary.server.source.SourceRunner;
import dev.tributary.sql.catalog.CatalogItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The database's sources (see {@link dev.tributary.server.source}): for each, its table, its
 * progress table, and the runner of its connector. A source made by CREATE SOURCE, or again by
 * a restart's recovery, is pending until the statement (or the recovery) has ended; then
 * {@link #startPending} starts it at the positions its progress table holds. Dropping a source
 * stops its runner without waiting: the runner may be waiting for the coordinator's lock, which
 * the DROP holds; its next commit finds the source gone.
 *
 * <p>Thread-safe: the coordinator calls it under its lock, runners and SHOW SOURCES without.
 */
final class Sources {
    /**
     * A source: its table, its progress table, its primary key (a keyed source's, ENVELOPE UPSERT
     * or DEBEZIUM; null for NONE), its connector's checked options, its format (by name and as the
     * decoder of the columns it fills) and the metadata its connector includes after them
     * (INCLUDE, upper case).
     */
    static final class Source {
        final String schema;
        final CatalogItem.Table table;
        final CatalogItem.Table progress;
        final CatalogItem.Index primaryKey;
        final dev.tributary.sql.ast.Statement.SourceEnvelope envelope;
        final String connector;
        final Map<String, String> options;
        final String formatName;
        final SourceFormat format;
        final List<String> include;
        final boolean stopOnDecodeError;
        volatile SourceRunner runner;
        /** The running connector (the HTTP port hands a webhook's requests to it); null until started. */
        volatile Connector running;

        Source(String schema, CatalogItem.Table table, CatalogItem.Table progress, CatalogItem.Index primaryKey, String connector, Map<String, String> options,
               String formatName, SourceFormat format, List<String> include, boolean stopOnDecodeError, dev.tributary.sql.ast.Statement.SourceEnvelope envelope) {
            this.schema = schema;
            this.table = table;
            this.progress = progress;
            this.primaryKey = primaryKey;
            this.envelope = envelope;
            this.connector = connector;
            this.options = Map.copyOf(options);
            this.formatName = formatName;
            this.format = format;
            this.include = List.copyOf(include);
            this.stopOnDecodeError = stopOnDecodeError;
        }
    }

    private final Map<Long, Source> byTable = new HashMap<>();
    private final Map<Long, Source> byProgress = new HashMap<>();
    private final List<Source> pending = new ArrayList<>();

    /** A source is made (not started yet). */
    synchronized void created(Source s) {
        byTable.put(s.table.id(), s);
        byProgress.put(s.progress.id(), s);
        pending.add(s);
    }

    /** The source whose table is {@code id}, or null. */
    synchronized Source ofTable(long id) {
        return byTable.get(id);
    }

    /** The source whose progress table is {@code id}, or null. */
    synchronized Source ofProgress(long id) {
        return byProgress.get(id);
    }

    /** Object {@code id} is dropped: if it is a source's table, its runner is asked to stop. */
    void dropped(long id) {
        Source s;
        synchronized (this) {
            s = byTable.remove(id);
            if (s == null) return;
            byProgress.remove(s.progress.id());
            pending.remove(s);
        }
        if (s.runner != null) s.runner.stop(0);
    }

    /**
     * Starts every pending source: {@code positions} reads a source's committed positions, and
     * {@code ingest} makes the commit function of a source's runner.
     */
    void startPending(Function<Source, Map<String, String>> positions, Function<Source, SourceRunner.Ingest> ingest) {
        List<Source> start;
        synchronized (this) {
            start = new ArrayList<>(pending);
            pending.clear();
        }
        for (Source s : start) {
            Connector c = dev.tributary.server.source.Connectors.create(s.connector, s.options, s.include, s.formatName);
            s.running = c;
            s.runner = new SourceRunner(s.table.name(), s.options, c, s.format, ingest.apply(s), s.stopOnDecodeError, positions.apply(s), ServerLog::log);
            s.runner.start();
        }
    }

    /** The source named {@code name} in schema {@code schema}, or null. */
    synchronized Source named(String schema, String name) {
        for (Source s : byTable.values()) if (s.schema.equals(schema) && s.table.name().equals(name)) return s;
        return null;
    }

    /** Every source, in name order. */
    synchronized List<Source> all() {
        List<Source> out = new ArrayList<>(byTable.values());
        out.sort(java.util.Comparator.comparing(s -> s.table.name()));
        return out;
    }

    /** Stops every runner, waiting up to {@code millis} ms for each; called without the coordinator's lock. */
    void stopAll(long millis) {
        List<Source> all;
        synchronized (this) {
            all = new ArrayList<>(byTable.values());
            pending.clear();
        }
        for (Source s : all) if (s.runner != null) s.runner.stop(0);
        for (Source s : all) if (s.runner != null && !s.runner.stop(millis)) ServerLog.log("source " + s.table.name() + " did not stop within " + millis + " ms");
    }
}
