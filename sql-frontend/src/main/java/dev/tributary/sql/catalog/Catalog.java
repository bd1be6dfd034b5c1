package dev.tributary.sql.catalog;

import dev.tributary.sql.SqlException;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the binder needs of the catalog: objects by (already case-folded) name, and, for the
 * system catalogs ({@link SystemCatalog}), all of them and the session's settings.
 */
public interface Catalog {
    /** The user object named {@code name} in schema {@code schema} (names already case-folded); empty when there is none (or no such schema). */
    Optional<CatalogItem> lookup(String schema, String name);

    /**
     * The cursor ({@code FROM CURSOR}'s system time) at which source {@code source}'s stream
     * resumes after {@code positions} ({@code part=position, ...}, as its progress rows and SHOW
     * SOURCES write them: for Kafka, partition=offset): the time after the commit that left the
     * source there. 0A000 where there are no sources; 22023 when no retained commit did.
     */
    default long sourceCursor(long source, String positions, int pos) {
        throw new SqlException("0A000", "a cursor of positions is for a STREAM over a source", pos);
    }

    /**
     * The schemas an unqualified name is looked for in, in order: the session's
     * {@code search_path} with {@code $user} replaced and the schemas that do not exist (and the
     * system ones, which hold no user objects) left out. The first is where an unqualified
     * CREATE puts its object; empty when none of them exists.
     */
    default List<String> searchPath() {
        return List.of("public");
    }

    /** The user object an unqualified {@code name} finds: the first schema of {@link #searchPath} that has one. */
    default Optional<CatalogItem> lookup(String name) {
        for (String schema : searchPath()) {
            Optional<CatalogItem> item = lookup(schema, name);
            if (item.isPresent()) return item;
        }
        return Optional.empty();
    }

    /**
     * A schema of the database that holds user objects: {@code public} and those CREATE SCHEMA
     * made. {@code oid} as pg_namespace shows it; {@code owner} the role that owns it.
     */
    record Namespace(long oid, String name, String owner) {}

    /** The user schemas, {@code public} first, then by name. */
    default List<Namespace> schemas() {
        return List.of(new Namespace(SystemCatalog.PUBLIC, "public", "pg_database_owner"));
    }

    /** Whether user schema {@code name} exists. */
    default boolean schemaExists(String name) {
        for (Namespace n : schemas()) if (n.name().equals(name)) return true;
        return false;
    }

    /** The schema object {@code id} is in. */
    default String schemaOf(long id) {
        return "public";
    }

    /** Every user object (tables, views, materialized views, indexes), in creation order. */
    default Collection<CatalogItem> items() {
        return List.of();
    }

    /** The session's role and what roles may do (pg_roles, relacl, has_table_privilege, ...). */
    /** The values of the catalog's sequences; a catalog without them refuses nextval and its kin (0A000). */
    default Sequences sequences() {
        throw new dev.tributary.sql.SqlException("0A000", "sequences are not available here");
    }

    /** The objects' descriptions (COMMENT ON): by object id, by column number (1 on; 0 for the object itself). */
    default Map<Long, Map<Integer, String>> comments() {
        return Map.of();
    }

    default Access access() {
        return Access.BOOTSTRAP_ONLY;
    }

    /** The process id the session's client knows it by (BackendKeyData), as {@code pg_backend_pid()} answers; 0 for a session with no client connection. */
    default int backendPid() {
        return 0;
    }

    /**
     * {@code pg_cancel_backend(pid)} ({@code terminate} false: its running statement ends with
     * 57014) or {@code pg_terminate_backend(pid)} (its connection ends): whether a backend of that
     * pid was there to signal. 42501 if the session may not signal it.
     */
    default boolean signalBackend(int pid, boolean terminate) {
        return false;
    }

    /**
     * One client connection, as pg_stat_activity shows it: times in ms since the epoch (0: none);
     * {@code state} {@code active}, {@code idle}, {@code idle in transaction} or {@code idle in
     * transaction (aborted)}; {@code query} the statement running, or the last one.
     */
    record Activity(int pid, String user, String database, String applicationName, String clientAddress, int clientPort, long backendStart,
                    long xactStart, long queryStart, long stateChange, String state, String query) {}

    /** The client connections now (pg_stat_activity); none without a wire server. */
    default List<Activity> activity() {
        return List.of();
    }

    /** The session's settings that differ from their defaults, by lower-case name. */
    default Map<String, String> settings() {
        return Map.of();
    }

    /**
     * A materialized view or index being built over the data that existed when it was created,
     * while its CREATE waits: {@code rowsDone} of {@code rowsTotal} input updates read so far;
     * {@code phase} is {@code reading}, then {@code computing} once all are read.
     */
    record HydrationProgress(long id, String kind, String name, String phase, long rowsDone, long rowsTotal, long startedMillis) {}

    /** The builds under way (tributary_internal.hydration_progress), by object id. */
    default List<HydrationProgress> hydrationProgress() {
        return List.of();
    }

    /**
     * One arrangement (or other state) that relation {@code id}'s own dataflow holds, summed over
     * the workers: {@code records} updates taking {@code bytes} of heap. A table's part is its
     * arrangement; a materialized view's or index's parts are what its dataflow built, not what
     * it reads from the arrangements of its inputs.
     */
    record ArrangementPart(long id, String name, String part, long records, long bytes, long pagedBytes) {}

    /** What every relation's dataflow holds (tributary_internal.arrangement_sizes); asked for only when that relation is read. */
    default List<ArrangementPart> arrangementSizes() {
        return List.of();
    }

    /**
     * One running dataflow as the workers' copies add up: its operators with their counts and its
     * channels ({@code graph}, see {@link dev.tributary.timely.DataflowGraph}), the catalog
     * object it maintains ({@code objectId}, -1 for a query's, a subscription's or another
     * dataflow of no object), and the arrangements it built. Read for the
     * tributary_internal.dataflows, operators, channels and arrangements relations.
     */
    record DataflowInfo(dev.tributary.timely.DataflowGraph graph, long objectId, List<ArrangementInfo> arrangements) {
        public DataflowInfo {
            arrangements = List.copyOf(arrangements);
        }
    }

    /**
     * An arrangement a dataflow built, summed over the workers: the operator that built it (-1:
     * not known), its name, the batches (the most any worker's trace has), updates and heap bytes
     * it holds, the bytes of its paged batches (in files), and the dataflows that import it now
     * (read it without a copy), by dataflow index.
     */
    record ArrangementInfo(int operator, String name, long batches, long records, long bytes, long pagedBytes, List<Integer> sharedBy) {
        public ArrangementInfo {
            sharedBy = List.copyOf(sharedBy);
        }
    }

    /** Every running dataflow, in the order built (see {@link DataflowInfo}); it visits every worker, so asked for only when read. */
    default List<DataflowInfo> dataflows() {
        return List.of();
    }

    /**
     * A running subscription (tributary_internal.subscriptions): its id, its session's pid, its
     * query, the records its dataflow holds, the rows its streams dropped as late, and their
     * watermark as text of the event time's type (null without streams).
     */
    record SubscriptionState(long id, int pid, String query, long records, long lateRows, String watermark) {}

    /**
     * The server's counters at one moment (tributary_internal.server_metrics), the same ones
     * {@code /metrics} exposes: statements run and failed, commits and their rows since the start,
     * statement latency percentiles since the start (estimated from the latency histogram's
     * buckets, in ms), the JVM's heap, what the objects' arrangements hold, the client connections
     * and the subscriptions running.
     */
    record ServerMetrics(long statements, long statementErrors, long commits, long committedRows, double latencyP50Millis,
                         double latencyP99Millis, long heapUsedBytes, long heapCommittedBytes, long arrangementRecords,
                         long arrangementBytes, int connections, int subscriptions) {}

    /** The server's counters now; null without a server (the relation is empty then). Asked for only when read: it visits every worker. */
    default ServerMetrics serverMetrics() {
        return null;
    }

    /** The running subscriptions; asked for only when tributary_internal.subscriptions is read. */
    default List<SubscriptionState> runningSubscriptions() {
        return List.of();
    }

    /**
     * The stored collection that holds system relation {@code r}'s rows, if this catalog maintains
     * it: views, materialized views and subscriptions read that collection like a table's, at
     * consistent times. A one-off query reads it too where the relation has no computed form
     * ({@link SystemCatalog#onlyMaintained}); otherwise it computes the rows as they are when it
     * is planned (so a build's progress is current to the statement). A relation no catalog
     * maintains is only computed, and nothing maintained may read it.
     */
    default java.util.OptionalLong maintained(CatalogItem.SystemRelation r) {
        return java.util.OptionalLong.empty();
    }
}
