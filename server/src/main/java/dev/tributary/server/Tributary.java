package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import java.util.List;

/**
 * An embedded Tributary database: tables you write with SQL, views kept exactly up to date as
 * you do.
 *
 * <pre>{@code
 * try (Tributary db = Tributary.inMemory()) {
 *     db.execute("CREATE TABLE t (a int, b text)");
 *     db.execute("CREATE MATERIALIZED VIEW v AS SELECT b, count(*) FROM t GROUP BY b");
 *     db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'x')");
 *     Result r = db.query("SELECT * FROM v");   // one row: x, 2
 * }
 * }</pre>
 *
 * <p>All methods are thread-safe; statements run one at a time. Errors are {@link SqlException}s
 * carrying PostgreSQL's SQLSTATE codes. {@link #execute} runs in a default session; use
 * {@link #session()} for independent transaction blocks.
 */
public final class Tributary implements AutoCloseable {
    private final Coordinator coordinator;
    private final Session defaultSession = new Session();

    private Tributary(Clock clock, int workers) {
        this.coordinator = new Coordinator(clock, workers);
    }

    private Tributary(Clock clock, int workers, dev.tributary.server.storage.StorageController storage) {
        try {
            this.coordinator = new Coordinator(clock, workers, storage);
        } catch (RuntimeException | Error e) {
            storage.close();
            throw e;
        }
    }

    /**
     * The database in data directory {@code dataDirectory} (made if it does not exist), on the
     * wall clock with one worker: everything it held is there again, and every statement that
     * returns has its writes durable there. One process at a time may open a data directory.
     */
    public static Tributary open(java.nio.file.Path dataDirectory) {
        return open(dataDirectory, Clock.wall(), 1);
    }

    /** {@link #open(java.nio.file.Path)} on {@code clock} with {@code workers} workers. */
    public static Tributary open(java.nio.file.Path dataDirectory, Clock clock, int workers) {
        return open(dev.tributary.server.storage.StorageController.open(dataDirectory, ServerLog::warn), clock, workers);
    }

    /** The database in {@code storage}'s stores (S3 and PostgreSQL, say), which it closes. */
    public static Tributary open(dev.tributary.server.storage.StorageController storage, Clock clock, int workers) {
        storage.spillDirectory().ifPresent(d -> ServerLog.log("arrangement batches of " + kB(4 * dev.tributary.arrangements.Paging.partBytes())
                + " or more are paged under " + d + ", at most " + kB(dev.tributary.arrangements.Paging.residentBudget()) + " of them on the heap"));
        return new Tributary(clock, workers, storage);
    }

    private static String kB(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MB" : (bytes >> 10) + " kB";
    }

    /** A database in memory, on the wall clock, with one worker. */
    public static Tributary inMemory() {
        return new Tributary(Clock.wall(), 1);
    }

    /** A database in memory on {@code clock} (use {@link Clock#manual} for tests and demos), with one worker. */
    public static Tributary inMemory(Clock clock) {
        return new Tributary(clock, 1);
    }

    /**
     * A database in memory on {@code clock} whose dataflows run on {@code workers} threads, each
     * holding a shard (by key hash) of every arrangement.
     */
    public static Tributary inMemory(Clock clock, int workers) {
        return new Tributary(clock, workers);
    }

    /** Job {@code name}'s runtime, for tests that wait on its progress; null if there is none. */
    Jobs.Job job(String name) {
        return coordinator.job(name);
    }

    /** The runner of source {@code name}'s connector, for tests that wait on its progress; null if there is none (yet). */
    dev.tributary.server.source.SourceRunner sourceRunner(String name) {
        return coordinator.sourceRunner(name);
    }

    /**
     * A source as the HTTP port sees it: its connector's kind as CREATE SOURCE named it
     * ({@code DIRECTORY}, {@code WEBHOOK}) and its running connector, null until it has started
     * (the statement that made it, or the recovery, has not ended yet).
     */
    public record SourceEndpoint(String connector, dev.tributary.server.source.Connector running) {}

    /** Source {@code name} in schema {@code schema}, or null if there is none; answered without waiting for running statements. */
    public SourceEndpoint source(String schema, String name) {
        return coordinator.sourceEndpoint(schema, name);
    }

    /** Runs every statement of {@code sql}; returns one result per statement. */
    public List<Result> execute(String sql) {
        return coordinator.execute(defaultSession, sql);
    }

    /** Runs {@code sql}, which must be one statement, and returns its result. */
    public Result query(String sql) {
        List<Result> r = execute(sql);
        if (r.size() != 1) throw new SqlException("42601", "expected one statement, got " + r.size());
        return r.get(0);
    }

    /**
     * Subscribes to {@code sql} ({@code SUBSCRIBE name}, {@code SUBSCRIBE (query)} or
     * {@code SELECT ... EMIT CHANGES}): {@code listener} gets the snapshot, then every change.
     */
    public Subscription subscribe(String sql, Subscription.Listener listener) {
        return coordinator.subscribe(defaultSession, sql, listener);
    }

    /** A new session: its own transaction block state. */
    public Connection session() {
        return new Connection(coordinator, new Session());
    }

    /**
     * The client connections a server keeps, for {@code pg_cancel_backend} and
     * {@code pg_terminate_backend}: signals backend {@code pid} on behalf of role {@code byRole};
     * whether there was such a backend. 42501 (an SqlException) if the role may not.
     */
    public interface Backends {
        boolean signal(int pid, boolean terminate, String byRole);

        /** The client connections that have logged in, as pg_stat_activity shows them. */
        default java.util.List<dev.tributary.sql.catalog.Catalog.Activity> activity() {
            return java.util.List.of();
        }
    }

    /** Where this database's sessions send signals to other backends (a wire server sets it; without one, no backend is there). */
    public void setBackends(Backends backends) {
        coordinator.setBackends(backends);
    }

    /** The coordinator, for tests of what statements cost. */
    Coordinator coordinator() {
        return coordinator;
    }

    /** The number of subscriptions running: SUBSCRIBEs through {@link #subscribe}, COPY streams and cursors. */
    public int activeSubscriptions() {
        return coordinator.subscriptions();
    }

    /** Its statements' counts and times and its commits, as Prometheus metrics; recording costs a statement two counter updates. */
    public StatementMetrics statementMetrics() {
        return coordinator.metrics;
    }

    /**
     * Every table, materialized view and index with its lag behind the clock and what its
     * dataflow holds, and the subscriptions running, read at one moment: it takes the coordinator
     * (waiting for the statement that holds it) and visits each worker once, so a caller that
     * must not wait (a scrape) reads it on a thread of its own and keeps the last answer.
     */
    public ObjectSample.Samples sampleObjects() {
        return coordinator.sampleObjects();
    }

    /** The CREATE MATERIALIZED VIEW and CREATE INDEX builds under way; answers without waiting for any statement. */
    public List<dev.tributary.sql.catalog.Catalog.HydrationProgress> hydrations() {
        return coordinator.hydrationProgress();
    }

    /**
     * Runs a session's COPY statements for a client that sends or receives the data (the wire
     * server): it reads the data through {@link Connection#copyIn}, or streams rows.
     */
    @FunctionalInterface
    public interface CopyHandler {
        /** Runs {@code copy}, a statement of {@code sql}; returns its result, tagged {@code COPY n}. */
        Result copy(Statement.Copy copy, String sql);
    }

    /** Its roles, which the PostgreSQL protocol server authenticates against; CREATE/ALTER/DROP ROLE change them. */
    public dev.tributary.server.auth.Roles roles() {
        return coordinator.roles();
    }

    /**
     * What the dataflow that maintains table, materialized view or index {@code name} holds now,
     * over all workers: the updates and heap bytes of the arrangements it built (not those of its
     * inputs, which their own dataflows hold and count), plus records its operators keep waiting
     * (an AS OF SYSTEM TIME lookup's rows held until their time). A plain view has no dataflow: zero.
     *
     * @throws SqlException 42P01 if there is no such relation
     */
    public ArrangementSize arrangementSize(String name) {
        return coordinator.arrangementSize(name);
    }

    /**
     * The engine's worker threads, for diagnostics: a caller that has waited too long for a
     * statement can show where each worker is, and one that saw an internal error can ask whether
     * they all still live (a worker that stopped fails every later statement with XX000). Answers
     * without waiting for any statement.
     */
    public List<Thread> workerThreads() {
        return coordinator.workerThreads();
    }

    /** The clock this database runs on. */
    public Clock clock() {
        return coordinator.clock();
    }

    /** The tables, materialized views and indexes the opening restored from a checkpoint rather than built again (for tests). */
    List<String> restoredFromCheckpoint() {
        return coordinator.restoredFromCheckpoint();
    }

    @Override
    public void close() {
        coordinator.close();
    }

    /** A session of this database. */
    public static final class Connection {
        private final Coordinator coordinator;
        private final Session session;

        Connection(Coordinator coordinator, Session session) {
            this.coordinator = coordinator;
            this.session = session;
        }

        public List<Result> execute(String sql) {
            return coordinator.execute(session, sql);
        }

        /**
         * The columns of the session's cursor {@code name} (DECLAREd), as a result without rows;
         * null if there is none. A cursor is also a protocol portal: clients Describe it by name.
         */
        public Result describeCursor(String name) {
            Cursor c = session.cursors.get(name);
            return c == null ? null : c.shape();
        }

        /**
         * Gives {@code DEALLOCATE} the client's prepared statements: {@code deallocate} forgets the
         * one named (all of them for null) and says whether there was one. Without it, only
         * {@code DEALLOCATE ALL} succeeds.
         */
        public void onDeallocate(java.util.function.Predicate<String> deallocate) {
            session.deallocate = deallocate;
        }

        /**
         * Runs the statements of {@code sql} one after another, giving each result to {@code each}
         * as soon as it is made; the first error is thrown, after the results before it were given.
         */
        public void executeEach(String sql, java.util.function.Consumer<Result> each) {
            coordinator.executeEach(session, sql, each, null);
        }

        /** Like {@link #executeEach(String, java.util.function.Consumer)}, with COPY statements run by {@code copies}. */
        public void executeEach(String sql, java.util.function.Consumer<Result> each, CopyHandler copies) {
            coordinator.executeEach(session, sql, each, copies);
        }

        /**
         * Runs {@code sql} as PostgreSQL runs a simple Query message: like
         * {@link #executeEach(String, java.util.function.Consumer, CopyHandler)}, and several
         * statements outside a transaction block form one implicit block, committed after the last
         * or rolled back by an error.
         */
        public void executeMessage(String sql, java.util.function.Consumer<Result> each, CopyHandler copies) {
            coordinator.executeEach(session, sql, each, copies, true);
        }

        /** Runs {@code st}, one parsed statement of {@code sql} (error positions are in {@code sql}). */
        public Result execute(Statement st, String sql) {
            return coordinator.execute(session, st, sql);
        }

        /** Starts {@code COPY table FROM STDIN}: the table and columns are checked now, the data comes through the result. */
        public CopyIn copyIn(Statement.Copy copy) {
            return coordinator.copyIn(session, copy);
        }

        /**
         * Subscribes to {@code sql} as {@link Tributary#subscribe} does, but as this session's role
         * and with its settings (the web console's live mode, for the role that logged in).
         */
        public Subscription subscribe(String sql, Subscription.Listener listener) {
            return coordinator.subscribe(session, sql, listener);
        }

        /** Starts the subscription of {@code COPY (SUBSCRIBE ...) TO STDOUT} or of a SELECT ... EMIT CHANGES. */
        public Subscription subscribe(Statement.Copy copy, Subscription.Listener listener) {
            if (!Coordinator.streams(copy)) throw new IllegalArgumentException("not a COPY of a subscription");
            return coordinator.execute(session, copy, null, () -> coordinator.subscribe(session, copy.query(), listener));
        }

        /**
         * Cancels what this session runs now: a FETCH waiting for rows or a query still computing
         * fails with 57014, as does
         * the session's next statement if none is running (call {@link #clearCancel} when idle).
         */
        public void cancel() {
            session.cancel();
        }

        /**
         * 57014 if the statement whose result is being sent was cancelled meanwhile, else
         * nothing: what a connection checks between rows of a large result, so a cancel stops
         * the sending too, as PostgreSQL's does (it sends the rows as its executor makes them).
         */
        public void checkCancelled() {
            if (session.cancelRequested) throw Session.canceled();
        }

        /** Forgets a cancel that came too late to stop anything. */
        public void clearCancel() {
            session.consumeCancel();
        }

        /** Ends the session: its cursors (and their subscriptions) close, its open block is rolled back. */
        public void close() {
            coordinator.closeSession(session);
        }

        /**
         * Parses and binds {@code sql} (at most one statement) once, for running many times:
         * parameter {@code $i} has type {@code parameterTypes.get(i - 1)} where that is given and
         * not null, else the type its context gives it (as PostgreSQL infers it), else text.
         */
        public Prepared prepare(String sql, java.util.List<dev.tributary.sql.types.SqlType> parameterTypes) {
            return coordinator.prepare(session, sql, parameterTypes);
        }

        /**
         * Runs {@code statement} with {@code values} for its parameters (one per parameter type,
         * each a value of that type as {@link dev.tributary.sql.types.SqlType} describes, NULL as
         * null). The empty statement gives a result with an empty tag.
         */
        public Result execute(Prepared statement, List<Object> values) {
            return coordinator.execute(session, statement, values.toArray());
        }

        /**
         * {@link #execute(Prepared, List)}, then {@link #endImplicitTransaction} if the statement
         * succeeded, in one turn of the coordinator: for a client whose next message ends the
         * implicit block (the extended protocol's Execute directly followed by Sync).
         */
        public Result executeAndEndImplicit(Prepared statement, List<Object> values) {
            return coordinator.execute(session, statement, values.toArray(), true);
        }

        /**
         * Starts an implicit transaction block unless one is open: what runs until
         * {@link #endImplicitTransaction} commits together then, or not at all after an error, as
         * the extended query protocol's messages up to a Sync do in PostgreSQL. BEGIN inside it
         * makes it an ordinary block.
         */
        public void beginImplicitTransaction() {
            coordinator.beginImplicit(session);
        }

        /** Ends the implicit block, if one is open: commits its writes, or drops them if an error failed it. */
        public void endImplicitTransaction() {
            coordinator.endImplicit(session);
        }

        /**
         * Records an error raised for this session outside its statements (a Bind whose values do
         * not decode, a missing portal): a transaction block fails, as after any error in
         * PostgreSQL, and ignores commands until it ends.
         */
        public void failTransaction() {
            coordinator.fail(session);
        }

        /**
         * Runs {@code r} on this connection's thread before a statement may wait for rows that are
         * not there yet (a FETCH on a subscription): the wire server starts watching for the client
         * leaving then, so the wait can end.
         */
        public void beforeWaiting(Runnable r) {
            session.beforeWaiting(r);
        }

        /**
         * Sends the notices a statement raises while it runs (a long CREATE's progress) to
         * {@code sink}, on this connection's thread, as they come; the others come with the
         * statement's result.
         */
        public void onNotice(java.util.function.Consumer<Notice> sink) {
            session.onNotice(sink);
        }

        /**
         * A setting the client chose when it connected (PostgreSQL's startup parameters, such as
         * {@code application_name}), as SET would make it but without validation messages to a
         * client that cannot see them yet: an unknown or invalid one is ignored.
         */
        public void startupSetting(String name, String value) {
            String key = name.toLowerCase(java.util.Locale.ROOT);
            dev.tributary.sql.catalog.Settings.find(key).filter(dev.tributary.sql.catalog.Settings.Setting::settable).ifPresent(s -> {
                try {
                    session.settings.put(key, dev.tributary.sql.catalog.Settings.validate(s, value, 0));
                    session.sessionDefaults.put(key, session.settings.get(key));
                } catch (dev.tributary.sql.SqlException e) {
                    // PostgreSQL would refuse the connection; Tributary keeps the default instead
                }
            });
        }

        /** How many rows a subscription may leave unfetched in one of this session's cursors beyond one batch (53400 past it). */
        public void setSubscribeBufferRows(long rows) {
            session.subscribeBufferRows = rows;
        }

        /** The role the client authenticated as: {@code current_user} and {@code session_user}. */
        public void authenticatedAs(String role) {
            session.authenticatedUser = role;
            session.settings.put("session_authorization", role);
            session.sessionDefaults.put("session_authorization", role);
        }

        /** How long the client may stay idle now ({@code idle_in_transaction_session_timeout} inside a transaction block), in ms; 0: without limit. */
        public long idleTimeoutMillis() {
            return session.idleInTransactionTimeoutMillis();
        }

        /**
         * {@code log_min_duration_statement} in ms: a statement (a Query message, an Execute) that
         * took at least this long goes to the server log with its duration; -1: none does.
         */
        public long logMinDurationStatementMillis() {
            return session.logMinDurationStatementMillis();
        }

        /** The process id the client knows this session by (BackendKeyData), as {@code pg_backend_pid()} answers. */
        public void setBackendPid(int pid) {
            session.backendPid = pid;
        }

        /** {@code I} idle, {@code T} in a transaction block, {@code E} in a failed one. */
        public char transactionStatus() {
            return session.status();
        }
    }
}
