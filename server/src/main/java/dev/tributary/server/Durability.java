package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.server.storage.CatalogRecorder;
import dev.tributary.server.storage.StorageController;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowDataType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * What the coordinator makes durable, and the waits that keep a client from seeing what is not:
 * commits appended to the log, the catalog's changes recorded and committed once per statement,
 * and whether anything changed since the last checkpoint. While recovery replays the catalog
 * ({@link #replaying}) nothing is recorded again. A database in memory has no stores: every
 * method is then a no-op and every wait is over at once.
 *
 * <p>Called with the coordinator's lock held, except {@link #awaitDurable} and the listener of
 * {@link #afterDurable}, which wait outside it: a statement notes under the lock what it must
 * wait for ({@link #noteDurable}) and waits after letting go.
 */
final class Durability {
    /** The stores this database is durable in; null for a database in memory only. */
    private final StorageController storage;
    /** The catalog's durable entries (null in memory). */
    private final CatalogRecorder recorder;
    /** While the catalog is rebuilt from the stores: nothing it makes is recorded again. */
    private boolean replaying;
    /** Whether a write or a DDL statement came since the last checkpoint started. */
    private boolean changedSinceCheckpoint;
    /** The running statement's search path, as SET gives it (empty: the default): what its objects are made again under. */
    private String searchPath = "";

    Durability(StorageController storage) {
        this.storage = storage;
        this.recorder = storage == null ? null : new CatalogRecorder(storage);
    }

    /** The stores, or null in memory. */
    StorageController storage() {
        return storage;
    }

    CatalogRecorder recorder() {
        return recorder;
    }

    boolean replaying() {
        return replaying;
    }

    void replaying(boolean on) {
        replaying = on;
    }

    /** The statement about to run resolves its bare names along {@code path}. */
    void statementSearchPath(List<String> path) {
        if (path.equals(List.of(CatalogState.PUBLIC))) {
            searchPath = "";
        } else {
            List<String> quoted = new java.util.ArrayList<>();
            for (String schema : path) quoted.add(dev.tributary.sql.parser.SqlFormatter.ident(schema));
            // no schema at all: a name no schema can have, so that a restart finds none either
            searchPath = path.isEmpty() ? "\"\"" : String.join(", ", quoted);
        }
    }

    boolean changedSinceCheckpoint() {
        return changedSinceCheckpoint;
    }

    /** A checkpoint starts: what changes from now on is not in it. */
    void checkpointStarted() {
        changedSinceCheckpoint = false;
    }

    /** Appends a commit's {@code changes} at {@code time} to the log. */
    void appendCommit(long time, Map<Long, Map<Row, Long>> changes) {
        if (storage == null || replaying) return;
        Map<Long, java.util.List<dev.tributary.storage.PartMeta>> written = new HashMap<>();
        storage.append(time, updatesOf(changes, time, written), written);
        changedSinceCheckpoint = true;
    }

    /** Records object {@code item}, which reads {@code uses}, in the statement's catalog changes. */
    void recordObject(CatalogItem item, Set<Long> uses) {
        if (recorder == null || replaying) return;
        String sql = switch (item) {
            case CatalogItem.Table t -> t.sql();
            case CatalogItem.View v -> v.sql();
            case CatalogItem.MaterializedView m -> m.sql();
            case CatalogItem.Index i -> i.sql();
            case CatalogItem.ForeignKey f -> f.sql();
            case CatalogItem.Sequence q -> q.sql();
            case CatalogItem.SystemRelation r -> throw new IllegalStateException("system relation " + r.name() + " registered");
        };
        String kind = item instanceof CatalogItem.Index i && i.primaryKey() ? CatalogRecorder.PRIMARY_KEY
                : item instanceof CatalogItem.Sequence q && q.implicit() ? CatalogRecorder.OWNED_SEQUENCE : item.kind();
        recorder.object(item.id(), kind, item.name(), sql, uses, searchPath);
    }

    /** Records schema {@code name}, made as object {@code id} by {@code sql}, in the statement's catalog changes. */
    void recordSchema(long id, String name, String sql) {
        if (recorder == null || replaying) return;
        recorder.object(id, CatalogRecorder.SCHEMA, name, sql, java.util.Set.of(), "");
    }

    /** Records that schema {@code id} is dropped. */
    void droppedSchema(long id) {
        if (recorder != null && !replaying) recorder.dropped(id);
    }

    /** Records that object {@code id} ({@code item}) is dropped; a table's data and a materialized view's output shard go with it. */
    void dropped(long id, CatalogItem item) {
        if (recorder != null && !replaying) recorder.dropped(id);
        if (recorder != null && !replaying && item instanceof CatalogItem.Sequence) recorder.sequenceValue(id, null, () -> -1);
        if (storage == null) return;
        if (item instanceof CatalogItem.Table) storage.dropTable(id);
        if (item instanceof CatalogItem.MaterializedView) storage.outputs().drop(id);
    }

    /**
     * Records object {@code id}'s history policy ({@code null}: none), a table's shards keeping
     * its history from {@code policy.since(upper)} on.
     */
    void recordHistory(long id, boolean table, HistoryPolicy policy, LongSupplier upper, LongSupplier ids) {
        if (storage == null) return;
        if (table) storage.holdSince(id, policy == null ? -1 : policy.since(upper.getAsLong()));
        if (replaying) return;
        recorder.history(id, policy == null ? null : policy.text(), ids);
    }

    /**
     * Records, durably at once, that values up to {@code through} of sequence {@code id} may have
     * been given: a commit that follows may hold them, so they must never be given again.
     */
    void recordSequenceValue(long id, long through, LongSupplier ids) {
        if (recorder == null || replaying) return;
        recorder.sequenceValue(id, through, ids);
        commitCatalog();
    }

    /** Records role {@code name} as {@code text} ({@code LOGIN} or {@code NOLOGIN}, and its verifier), null when it is dropped. */
    void recordRole(String name, String text, LongSupplier ids) {
        if (recorder == null || replaying) return;
        recorder.role(name, text, ids);
    }

    /** Records the description of object {@code id}'s column {@code column} (0: the object) as {@code text}, null for none. */
    void recordComment(long id, int column, String text, LongSupplier ids) {
        if (recorder == null || replaying) return;
        recorder.comment(id, column, text, ids);
    }

    /** Records the owner and ACL of the object {@code key} names as {@code text}, null for the defaults. */
    void recordPrivileges(String key, String text, LongSupplier ids) {
        if (recorder == null || replaying) return;
        recorder.privileges(key, text, ids);
    }

    /** Commits the statement's catalog changes in one durable append, before it is answered. */
    void commitCatalog() {
        if (recorder != null && recorder.commit()) changedSinceCheckpoint = true;
    }

    /** Table {@code id}'s shards keep only the present again (a job that held its history is gone). */
    void releaseHold(long id, CatalogState catalog) {
        if (storage != null && catalog.get(id) instanceof CatalogItem.Table) storage.holdSince(id, -1);
    }

    /** The search path the running statement's objects are made again under (empty: the default). */
    String searchPath() {
        return searchPath;
    }

    /** Each table's shards keep history from {@code holds}' time on. */
    void holdTables(Map<Long, Long> holds, CatalogState catalog) {
        if (storage == null) return;
        holds.forEach((id, since) -> {
            if (catalog.get(id) instanceof CatalogItem.Table) storage.holdSince(id, since);
        });
    }

    /**
     * Notes, under the coordinator, what the statement must wait for before it answers: every
     * write appended so far (its own, and all it could have read), not the later ones other
     * sessions append while it waits.
     */
    void noteDurable(Session session) {
        if (storage != null) session.durableAt = storage.appended();
    }

    /**
     * Waits, without the coordinator, until every write committed so far is durable: called before
     * any answer goes to a client, so that none acknowledges or shows a write a crash could take back.
     */
    void awaitDurable(Session session) {
        CompletableFuture<Void> durable = session.durableAt;
        if (storage == null || durable == null) return;
        session.durableAt = null;
        // a client may cancel the wait (a store that is down): the write is then neither
        // acknowledged nor taken back, as a commit whose connection broke
        while (!storage.awaitDurable(durable, 50)) {
            if (session.stop() != null) {
                session.consumeCancel();
                throw new SqlException("57014", "canceling the wait for the write to become durable")
                        .withDetail("The statement's writes were committed and will be durable once the stores answer; until then no one sees them.");
            }
        }
    }

    /**
     * {@code listener}, told of changes only once the writes they come from are durable: a
     * subscriber never sees a change a crash could take back. Its events keep their order; the
     * waiting is on futures, so no worker waits for an fsync.
     */
    Subscription.Listener afterDurable(Subscription.Listener listener) {
        if (storage == null) return listener;
        return new Subscription.Listener() {
            private CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            private boolean failed;

            private synchronized void then(Runnable event) {
                CompletableFuture<Void> durable = storage.appended();
                chain = chain.thenCompose(v -> durable.handle((x, e) -> e)).thenAccept(e -> {
                    if (failed) return;
                    if (e == null) {
                        event.run();
                    } else {
                        failed = true;
                        Throwable cause = e.getCause() != null ? e.getCause() : e;
                        listener.onError(new SqlException("58030", "could not make the changes durable: " + cause.getMessage()));
                    }
                }).exceptionally(e -> {
                    ServerLog.error("a subscriber failed to take its changes", e);
                    return null;
                });
            }

            @Override
            public void onChanges(Result batch) {
                then(() -> listener.onChanges(batch));
            }

            @Override
            public void onError(SqlException error) {
                then(() -> listener.onError(error));
            }

            @Override
            public void onDone() {
                then(listener::onDone);
            }
        };
    }

    /**
     * A commit's changes as the stores take them: per table, the rows' bytes with their counts, at
     * {@code time}; a COPY's rows already written as parts go into {@code written} instead.
     */
    private static Map<Long, Updates> updatesOf(Map<Long, Map<Row, Long>> changes, long time, Map<Long, java.util.List<dev.tributary.storage.PartMeta>> written) {
        Map<Long, Updates> out = new HashMap<>();
        for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) {
            Map<Row, Long> c = e.getValue();
            if (c.isEmpty()) continue;
            Updates u;
            if (c instanceof RowSlab slab) {
                // a COPY's rows already written as parts are named, the rest written with the commit
                if (slab.writtenRows() > 0) written.put(e.getKey(), slab.written());
                if (slab.writtenRows() == slab.size()) continue;
                u = RowSlab.updates(slab.column(), slab.writtenRows(), slab.size(), time);
            } else {
                BytesColumn rows = new BytesColumn();
                UnitColumn units = new UnitColumn();
                u = new Updates(rows, units, 1, c.size());
                for (Map.Entry<Row, Long> r : c.entrySet()) {
                    if (r.getValue() == 0) continue;
                    RowDataType.INSTANCE.append(rows, r.getKey());
                    units.add();
                    u.push(time, r.getValue());
                }
            }
            out.put(e.getKey(), u);
        }
        return out;
    }
}
