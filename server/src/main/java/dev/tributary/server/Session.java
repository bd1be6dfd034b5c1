package dev.tributary.server;

import dev.tributary.server.compute.DataflowMemory;
import dev.tributary.server.compute.Dataflows;
import dev.tributary.sql.row.Row;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One client's state: whether it is inside a transaction block, the writes that block has made
 * (committed together at one time by COMMIT), whether an error has aborted the block, the
 * block's cursors (closed with it), and whether the client asked to cancel what it is running.
 */
public final class Session {
    boolean inTransaction;
    /** Whether the block is an implicit one: the extended protocol's, which its next Sync ends, or a multi-statement Query's. */
    boolean implicit;
    /** Whether the implicit block is a multi-statement Query's, PostgreSQL's "implicit transaction block" (cursors may live in it). */
    boolean multiStatement;

    /**
     * Whether a statement runs inside a transaction block as PostgreSQL counts them for the
     * statements that refuse one (25001): an explicit block or a multi-statement Query's, not
     * the extended protocol's implicit transaction of a single statement before Sync (JDBC's
     * autocommit).
     */
    boolean inBlock() {
        return inTransaction && !(implicit && !multiStatement);
    }
    boolean aborted;
    /** The value nextval last gave this session, per sequence id (currval), and of any sequence (lastval). */
    final Map<Long, Long> sequenceValues = new HashMap<>();
    Long lastSequenceValue;
    /** The client's prepared statements, for DEALLOCATE (see {@link Tributary.Connection#onDeallocate}); null when it has none. */
    java.util.function.Predicate<String> deallocate;
    /** Table id to row to signed count, for the open transaction. */
    final Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>();
    /**
     * For the unique indexes (primary keys included) of the tables in {@link #pending}: index id
     * to key to the rows the open transaction wrote with it (signed; keys with a NULL are left
     * out). Kept as the writes come, so that each statement of a
     * block checks its keys against the block's ({@link #count} of a key's rows), and a seek by
     * the key finds the block's rows for its keys, in time proportional to its own rows, not to
     * every row the block wrote.
     */
    final Map<Long, Map<Row, Map<Row, Long>>> pendingRowsByKey = new java.util.HashMap<>();

    /** How many rows one key's pending {@code rows} add (signed). */
    static long count(Map<Row, Long> rows) {
        long n = 0;
        for (long c : rows.values()) n += c;
        return n;
    }

    /**
     * A savepoint of the open block: its writes and their byte counts as they were when it was
     * set, and the cursors open then (PostgreSQL's subtransaction, kept as a copy of the writes).
     */
    record Savepoint(String name, Map<Long, Map<Row, Long>> pending, Map<Long, Map<Row, Map<Row, Long>>> byKey, long bytes, long rowBytes,
                     java.util.Set<String> cursors, int changes) {}

    /** What the open block's DDL changed in the catalog, oldest first: what its rollback takes back and its commit finishes. */
    final java.util.List<CatalogChange> catalogChanges = new java.util.ArrayList<>();

    /** Whether the open block made object {@code id} (then a DROP of it in the block drops it at once). */
    boolean createdInBlock(long id) {
        for (CatalogChange c : catalogChanges) if (c instanceof CatalogChange.Created made && made.id() == id) return true;
        return false;
    }

    /** Whether the open block's DDL changed the catalog in a way its commit must finish (it dropped something). */
    boolean dropsInBlock() {
        for (CatalogChange c : catalogChanges) if (c instanceof CatalogChange.Dropped || c instanceof CatalogChange.SchemaDropped) return true;
        return false;
    }

    /** The open block's savepoints, oldest first. */
    final java.util.List<Savepoint> savepoints = new java.util.ArrayList<>();

    /** Sets savepoint {@code name} at the block's writes as they are now. */
    void savepoint(String name) {
        Map<Long, Map<Row, Long>> rows = new LinkedHashMap<>();
        Map<Long, Map<Row, Map<Row, Long>>> byKey = new java.util.HashMap<>();
        copyWrites(pending, pendingRowsByKey, rows, byKey);
        savepoints.add(new Savepoint(name, rows, byKey, pendingBytes, pendingRowBytes, new java.util.HashSet<>(cursors.keySet()), catalogChanges.size()));
    }

    /** Copies a block's writes and their rows by key into the empty {@code rowsTo} and {@code byKeyTo}, every level a new map. */
    private static void copyWrites(Map<Long, Map<Row, Long>> rows, Map<Long, Map<Row, Map<Row, Long>>> byKey, Map<Long, Map<Row, Long>> rowsTo,
                                   Map<Long, Map<Row, Map<Row, Long>>> byKeyTo) {
        for (Map.Entry<Long, Map<Row, Long>> e : rows.entrySet()) rowsTo.put(e.getKey(), new LinkedHashMap<>(e.getValue()));
        for (Map.Entry<Long, Map<Row, Map<Row, Long>>> e : byKey.entrySet()) {
            Map<Row, Map<Row, Long>> keys = new java.util.HashMap<>();
            for (Map.Entry<Row, Map<Row, Long>> k : e.getValue().entrySet()) keys.put(k.getKey(), new java.util.HashMap<>(k.getValue()));
            byKeyTo.put(e.getKey(), keys);
        }
    }

    /** The index of the latest savepoint named {@code name}; 3B001 when there is none. */
    private int savepointIndex(String name) {
        for (int i = savepoints.size() - 1; i >= 0; i--) if (savepoints.get(i).name().equals(name)) return i;
        throw new dev.tributary.sql.SqlException("3B001", "savepoint \"" + name + "\" does not exist");
    }

    /**
     * Back to savepoint {@code name}: the block's writes as they were then, the cursors opened
     * since closed, the later savepoints gone (this one stays), and a failed block usable again.
     */
    /** How many of {@link #catalogChanges} were there when savepoint {@code name} was set (3B001 when there is none). */
    int changesAt(String name) {
        return savepoints.get(savepointIndex(name)).changes();
    }

    void rollbackTo(String name) {
        int i = savepointIndex(name);
        Savepoint s = savepoints.get(i);
        savepoints.subList(i + 1, savepoints.size()).clear();
        pending.clear();
        pendingRowsByKey.clear();
        copyWrites(s.pending(), s.byKey(), pending, pendingRowsByKey);
        pendingBytes = s.bytes();
        pendingRowBytes = s.rowBytes();
        for (java.util.Iterator<Map.Entry<String, Cursor>> it = cursors.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Cursor> c = it.next();
            if (!s.cursors().contains(c.getKey())) {
                c.getValue().close();
                it.remove();
            }
        }
        aborted = false;
    }

    /** Forgets savepoint {@code name} and every later one; the writes since stay the block's. */
    void release(String name) {
        int i = savepointIndex(name);
        savepoints.subList(i, savepoints.size()).clear();
    }

    /** Drops the open transaction's writes. */
    void clearPending() {
        pending.clear();
        pendingRowsByKey.clear();
        pendingBytes = 0;
        pendingRowBytes = 0;
    }

    /** The bytes of rows the open block has written, for {@code max_write_size}. */
    long pendingRowBytes;

    /**
     * Counts a write of {@code bytes} bytes of rows against {@code max_write_size}, with the open
     * block's earlier ones when {@code inBlock}: 53200 if one commit would write more. Checked
     * before anything is written, since the workers hold a commit's rows several times over while
     * they arrange it, and a commit they cannot hold would fail its tables after it was
     * acknowledged.
     */
    void reserveWrite(long bytes, boolean inBlock) {
        long limit = writeLimit();
        long total = (inBlock ? pendingRowBytes : 0) + bytes;
        if (limit > 0 && total > limit) throw writeTooLarge(total, limit, inBlock ? "the transaction block" : "the statement");
        if (inBlock) pendingRowBytes = total;
    }

    /** {@code max_write_size} in bytes (0: no limit). */
    long writeLimit() {
        return bytesSetting("max_write_size");
    }

    /** The 53200 of a write of {@code bytes} bytes of rows past {@code max_write_size} ({@code limit}), by {@code what}. */
    static dev.tributary.sql.SqlException writeTooLarge(long bytes, long limit, String what) {
        return new dev.tributary.sql.SqlException("53200", "out of memory: " + what + " would write "
                + (bytes >= 10L << 20 ? "more than " + dev.tributary.sql.catalog.Settings.showBytes(bytes & ~((1L << 20) - 1)) : dev.tributary.sql.catalog.Settings.showBytes(bytes))
                + " of rows in one commit, more than max_write_size (" + dev.tributary.sql.catalog.Settings.showBytes(limit) + ")", 0,
                "Write the data in several commits (split a COPY into parts), or SET max_write_size higher: the workers hold a commit's rows "
                        + "about three times over while they arrange them, so the server's heap must have room for that.");
    }

    /** The heap the open block's writes are estimated to hold: counted as they are added, never less when rows cancel out. */
    long pendingBytes;

    /**
     * Counts {@code rows} changed rows of {@code rowBytes} bytes against {@code max_session_memory} before they join the open block:
     * 53200 (the statement fails, and with it the block) if the block's writes would hold more. An
     * estimate per row of its bytes and the maps' entries that hold it (more with a primary key,
     * whose rows are also kept by key).
     */
    void reservePending(long rowBytes, int rows, int uniqueIndexes) {
        long limit = bytesSetting("max_session_memory");
        long bytes = rowBytes + (long) rows * (112 + 128L * uniqueIndexes);
        if (limit > 0 && pendingBytes + bytes > limit) {
            throw new dev.tributary.sql.SqlException("53200", "out of memory: the transaction block's writes would hold about "
                    + dev.tributary.sql.catalog.Settings.showBytes(pendingBytes + bytes) + ", more than max_session_memory ("
                    + dev.tributary.sql.catalog.Settings.showBytes(limit) + ")", 0,
                    "Commit in smaller blocks, load large data with COPY outside a block, or SET max_session_memory higher (the server's heap allowing).");
        }
        pendingBytes += bytes;
    }
    final Map<String, String> settings = new HashMap<>();
    /** What RESET returns settings to: the values the client connected with (startup parameters, the role it logged in as). */
    final Map<String, String> sessionDefaults = new HashMap<>();

    /** RESET ALL: every setting back to its session default; the role SET ROLE chose stays (RESET ROLE resets it). */
    void resetSettings() {
        String role = settings.get("role");
        settings.clear();
        settings.putAll(sessionDefaults);
        if (role != null) settings.put("role", role);
    }
    /** The process id the session's client knows it by; 0 for an embedded session. */
    volatile int backendPid;

    /** How many rows a subscription may leave unfetched in a cursor beyond one batch (the server's {@code --subscribe-buffer-rows}). */
    long subscribeBufferRows = 1_000_000;

    /** The role the client authenticated as; SET SESSION AUTHORIZATION may act as another only if this one is a superuser. */
    String authenticatedUser = dev.tributary.server.auth.Roles.BOOTSTRAP;

    /** {@code session_user}: the authenticated role, or the one SET SESSION AUTHORIZATION chose. */
    String sessionUser() {
        return settings.getOrDefault("session_authorization", authenticatedUser);
    }

    /** {@code current_user}, whose privileges statements are checked against: SET ROLE's role, else the session user. */
    String currentUser() {
        String role = settings.get("role");
        return role != null ? role : sessionUser();
    }
    /** The open cursors by name; they live as long as the transaction block. */
    final Map<String, Cursor> cursors = new HashMap<>();
    /** Set by a cancel, consumed by the statement it stops. */
    volatile boolean cancelRequested;
    /** The monitor a statement is waiting on (a FETCH's cursor, an INSERT INTO FUNCTION url's delivery), for a cancel to wake. */
    volatile Object waitingOn;
    /** Run before a statement may wait (a FETCH on a subscription), so the client's leaving can be noticed meanwhile. */
    private Runnable beforeWait = () -> {};

    Session() {}

    /** SET CONSTRAINTS name ... of the open block: foreign key id to whether it is deferred (over {@link #allConstraintsDeferred}). */
    final Map<Long, Boolean> constraintModes = new java.util.HashMap<>();
    /** SET CONSTRAINTS ALL of the open block: whether every deferrable constraint is deferred; null when the block said nothing. */
    Boolean allConstraintsDeferred;

    /** Whether foreign key {@code f}'s checks wait for this session's COMMIT: a deferrable one, in a block, deferred by its declaration or SET CONSTRAINTS. */
    boolean deferred(dev.tributary.sql.catalog.CatalogItem.ForeignKey f) {
        if (!f.deferrable() || !inTransaction) return false;
        Boolean mode = constraintModes.get(f.id());
        if (mode != null) return mode;
        return allConstraintsDeferred != null ? allConstraintsDeferred : f.initiallyDeferred();
    }

    void reset() {
        constraintModes.clear();
        allConstraintsDeferred = null;
        catalogChanges.clear();
        inTransaction = false;
        implicit = false;
        multiStatement = false;
        aborted = false;
        clearPending();
        savepoints.clear();
        closeCursors();
    }

    void closeCursors() {
        for (Cursor c : cursors.values()) c.close();
        cursors.clear();
    }

    /** Where a statement's notices go while it runs (a long CREATE's progress); by default nowhere. */
    private java.util.function.Consumer<Notice> noticeSink = n -> {};

    /** Sends notices raised while a statement runs to {@code sink}, on the session's thread. */
    void onNotice(java.util.function.Consumer<Notice> sink) {
        noticeSink = sink;
    }

    /** A notice of the running statement, sent now rather than with its result. */
    void notice(Notice n) {
        noticeSink.accept(n);
    }

    void beforeWaiting(Runnable r) {
        beforeWait = r;
    }

    /** Called on the session's thread before a statement waits. */
    void aboutToWait() {
        beforeWait.run();
    }

    /** Asks the statement running to stop: a waiting FETCH wakes and fails with 57014. */
    void cancel() {
        cancelRequested = true;
        Object w = waitingOn;
        if (w != null) {
            synchronized (w) {
                w.notifyAll();
            }
        }
    }

    /** What the statement that just ran must see durable before it answers (see Coordinator.noteDurable); set and taken by its client's thread. */
    java.util.concurrent.CompletableFuture<Void> durableAt;

    /** When the running statement must stop ({@code statement_timeout}), as {@link System#nanoTime}; 0 for never. */
    private volatile long deadline;

    /** {@code idle_in_transaction_session_timeout} in milliseconds while the session is in a transaction block (0: none, or not in a block). */
    long idleInTransactionTimeoutMillis() {
        if (!inTransaction || implicit) return 0;
        return millisSetting("idle_in_transaction_session_timeout");
    }

    /** {@code log_min_duration_statement} in milliseconds: statements that take at least this long are logged with their duration (-1: none). */
    long logMinDurationStatementMillis() {
        return millisSetting("log_min_duration_statement");
    }

    /** A statement starts: its deadline is {@code statement_timeout} from now (none when it is 0). */
    void startStatement() {
        long ms = millisSetting("statement_timeout");
        deadline = ms == 0 ? 0 : System.nanoTime() + ms * 1_000_000L;
    }

    /** {@code statement_timeout} in nanoseconds, 0 for none: what a wait outside the coordinator (a point read's) holds itself to. */
    long statementTimeoutNanos() {
        return millisSetting("statement_timeout") * 1_000_000L;
    }

    /** The duration setting {@code name} in milliseconds, as this session has it: its value, or its boot value if it was not set. */
    private long millisSetting(String name) {
        var setting = dev.tributary.sql.catalog.Settings.find(name).orElseThrow();
        String value = settings.get(name);
        return dev.tributary.sql.catalog.Settings.millis(setting, value == null ? setting.bootValue() : value, 0);
    }

    /**
     * A budget of {@code max_result_size} bytes for one read's rows, and of
     * {@code max_dataflow_memory} for the dataflow it may build on {@code workers} workers.
     */
    Dataflows.ResultBudget resultBudget(int workers) {
        return new Dataflows.ResultBudget(bytesSetting("max_result_size"), dataflowMemory(workers));
    }

    /** A budget of {@code max_result_size} bytes for the rows of a read that builds no dataflow (a scan, a seek). */
    Dataflows.ResultBudget rowBudget() {
        return new Dataflows.ResultBudget(bytesSetting("max_result_size"), null);
    }

    /** The {@code max_dataflow_memory} one dataflow this session builds on {@code workers} workers may hold, or null for no limit. */
    DataflowMemory dataflowMemory(int workers) {
        long limit = bytesSetting("max_dataflow_memory");
        return limit == 0 ? null : new DataflowMemory(limit, workers);
    }

    private long bytesSetting(String name) {
        var setting = dev.tributary.sql.catalog.Settings.find(name).orElseThrow();
        String value = settings.get(name);
        return dev.tributary.sql.catalog.Settings.bytes(setting, value == null ? setting.bootValue() : value, 0);
    }

    /** The statement ended: no deadline until the next starts. */
    void endStatement() {
        deadline = 0;
    }

    /**
     * Why the running statement must stop now, or null to go on: the client's cancel, or its
     * {@code statement_timeout} passed. What long statements check between steps.
     */
    dev.tributary.sql.SqlException stop() {
        if (cancelRequested) return canceled();
        long d = deadline;
        if (d != 0 && System.nanoTime() - d >= 0) return timedOut();
        return null;
    }

    /**
     * The stop of one read under way: the session's cancel and the deadline of the statement
     * that started it, and its own {@link #abandon}. A read's parts on the workers outlive the
     * statement when one part fails first (the statement then ends, and with it its deadline and
     * the cancel it used up): abandoning the read stops the rest.
     */
    final class Stop implements java.util.function.Supplier<dev.tributary.sql.SqlException> {
        private final long readDeadline = deadline;
        private volatile boolean abandoned;

        @Override
        public dev.tributary.sql.SqlException get() {
            if (abandoned || cancelRequested) return canceled();
            if (readDeadline != 0 && System.nanoTime() - readDeadline >= 0) return timedOut();
            return null;
        }

        /** Stops every part of the read that has not finished. */
        void abandon() {
            abandoned = true;
        }
    }

    /** PostgreSQL's error for a statement that ran past {@code statement_timeout}. */
    static dev.tributary.sql.SqlException timedOut() {
        return new dev.tributary.sql.SqlException("57014", "canceling statement due to statement timeout");
    }

    /** Whether a cancel was asked for since the last call; clears it. */
    boolean consumeCancel() {
        boolean c = cancelRequested;
        cancelRequested = false;
        return c;
    }

    /** PostgreSQL's error for a statement the user cancelled. */
    static dev.tributary.sql.SqlException canceled() {
        return new dev.tributary.sql.SqlException("57014", "canceling statement due to user request");
    }

    /** Whether the session is in a transaction block (PostgreSQL's {@code T} status) or a failed one ({@code E}). */
    public char status() {
        return !inTransaction || implicit ? 'I' : aborted ? 'E' : 'T';
    }
}
