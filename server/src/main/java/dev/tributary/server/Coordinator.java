package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.server.auth.Roles;
import dev.tributary.server.compute.ComputeController;
import dev.tributary.server.storage.CatalogRecorder;
import dev.tributary.server.storage.StorageController;
import dev.tributary.storage.CatalogEntry;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.bind.BoundQuery;
import dev.tributary.sql.catalog.Catalog;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.catalog.Settings;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.plan.Explain;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The coordinator of one database: it sequences the statements of every session, one at a time
 * under its lock, and hands each to the part that runs it: the in-memory catalog
 * ({@link CatalogState}), the {@link ReadPath}, the {@link WritePath}, the {@link Ddl}, the
 * {@link Subscriptions}, and, below them, the timestamp oracle, the tables' input frontiers
 * ({@link TableFrontiers}), the {@link ComputeController} and the stores ({@link Durability}).
 * What stays here is what is about statements as such: transaction blocks, cursors, COPY,
 * prepared statements, roles, SET and SHOW, the clock's ticks, checkpoints and recovery.
 *
 * <p>Writes commit at the oracle's write times; a transaction block's writes all commit at one
 * time. A query reads at the oracle's read time, after every table has been promised complete
 * up to it, so its answer is exactly the data at that time.
 *
 * <p>Locking: every part runs with this coordinator's monitor held, except what is documented
 * otherwise: a wait for the workers lets go of it ({@link WorkerWait}), a prepared point read
 * runs without it ({@link ReadPath#pointRead}), and every statement waits for durability after
 * letting go ({@link Durability#awaitDurable}).
 */
final class Coordinator implements AutoCloseable, Catalog {
    private final ComputeController compute;
    private final TimestampOracle oracle;
    private final Roles roles = new Roles(new java.security.SecureRandom());
    private final CatalogState catalog = new CatalogState();
    private final Durability durability;
    private final AccessControl access;
    private final Binders binders;
    private final TableFrontiers frontiers;
    private final ReadPath reads;
    private final WritePath writes;
    /** The sequences' values: each reservation ahead is recorded at once (see {@link SequenceValues}). */
    final SequenceValues sequences;
    private final Subscriptions subscriptions;
    private final Ddl ddl;
    /** The stores this database is durable in; null for a database in memory only. */
    private final StorageController storage;
    /** Statements' counts and times, commits (read by {@code /metrics}). */
    final StatementMetrics metrics;
    /** The maintained {@code tributary_internal} relations and what they hold. */
    private final Introspection introspection = new Introspection();
    /** The newest statements run, for {@code tributary_internal.statement_log}. */
    private final StatementLog statementLog = new StatementLog(Integer.getInteger("tributary.statement.log.size", 1000));
    /**
     * How often, in ms of the clock, the introspection relations are sampled (0: never, and they
     * are empty); {@code -Dtributary.introspection.interval.ms}, a second by default.
     */
    private volatile long introspectionIntervalMillis = Long.getLong("tributary.introspection.interval.ms", 1_000);
    /**
     * Whether the stores' catalog and log are being replayed: a view over an engine relation made
     * again then waits for the first sample after recovery, as after a restart they all do, rather
     * than have one commit a write among the replayed ones.
     */
    private boolean recovering;
    /** When the clock thread last sampled them. */
    private long lastSample = Long.MIN_VALUE / 2;

    Coordinator(Clock clock, int workers) {
        this(clock, workers, null);
    }

    /**
     * A database on {@code clock} with {@code workers} workers, durable in {@code storage} (null:
     * in memory): what the stores hold is recovered before this returns.
     */
    Coordinator(Clock clock, int workers, StorageController storage) {
        this.storage = storage;
        this.durability = new Durability(storage);
        this.sequences = new SequenceValues((id, through) -> durability.recordSequenceValue(id, through, catalog::newId));
        this.oracle = new TimestampOracle(clock);
        this.compute = new ComputeController(workers);
        this.access = new AccessControl(roles, catalog, durability);
        catalog.usage(access::hasSchemaUsage);
        this.binders = new Binders(this, access, () -> backends, this::searchPath);
        this.frontiers = new TableFrontiers(catalog, oracle);
        WorkerWait waits = new WorkerWait(this, () -> closed);
        this.reads = new ReadPath(catalog, binders, oracle, compute, frontiers, waits);
        this.subscriptions = new Subscriptions(this, binders, oracle, compute, frontiers, reads, durability);
        this.writes = new WritePath(catalog, binders, oracle, compute, frontiers, reads, subscriptions, durability);
        this.metrics = new StatementMetrics(writes::commits, writes::committedRows);
        this.ddl = new Ddl(catalog, binders, oracle, compute, frontiers, reads, writes, subscriptions, durability, waits, sequences, sources, sinks, jobs, rowRetention);
        // jobs, sinks, consumer groups and retained tables hold the history of what they read
        catalog.jobHolds(() -> {
            Map<Long, Long> h = jobs.holds(), bySinks = sinks.holds();
            if (h == null || bySinks == null) return null;
            Map<Long, Long> all = new HashMap<>(h);
            bySinks.forEach((id, since) -> all.merge(id, since, Math::min));
            groups.holds().forEach((id, since) -> {
                if (catalog.contains(id)) all.merge(id, since, Math::min);
            });
            // a retained table keeps its rows' commit times for as long as they live: a restart deletes them on time
            rowRetention.holds(oracle.readTime()).forEach((id, since) -> all.merge(id, since, Math::min));
            return all;
        });
        catalog.writtenOnlyBy(id -> {
            Sources.Source s = sources.ofTable(id);
            if (s == null) s = sources.ofProgress(id);
            if (s == null && sinks.ofTable(id) != null) return sinks.ofTable(id).table.name();
            if (s == null && jobs.get(id) != null) return jobs.get(id).item.name();
            return s == null ? null : s.table.name();
        });
        synchronized (this) {
            createInternalTables();
        }
        if (storage != null) {
            compute.writeOutputShards(CHECKPOINT_INTERVAL_MILLIS > 0);
            synchronized (this) {
                recovering = true;
                try {
                    recover();
                } finally {
                    recovering = false;
                }
                startSources();
            }
        }
        startTicker();
    }

    Clock clock() {
        return oracle.clock();
    }

    /** Where sessions' signals to other backends go (see {@link Tributary.Backends}); null without a wire server. */
    private volatile Tributary.Backends backends;

    void setBackends(Tributary.Backends backends) {
        this.backends = backends;
    }

    /** The least time stored collection or index {@code name} is complete up to on the workers, for tests. */
    synchronized long upperOf(String name) {
        return compute.upper(named(name).id());
    }

    /** The workers' threads; not synchronized, so that it answers while a statement hangs. */
    List<Thread> workerThreads() {
        return compute.workerThreads();
    }

    /** The read path, whose counters say how reads were answered (for tests). */
    ReadPath reads() {
        return reads;
    }

    /** The write path, whose counters say how key checks were answered (for tests). */
    WritePath writes() {
        return writes;
    }

    /** The DDL statements, whose progress notices tests make more frequent. */
    Ddl ddl() {
        return ddl;
    }

    /** What {@code name}'s own dataflow holds, over all workers; see {@link Tributary#arrangementSize}. */
    synchronized ArrangementSize arrangementSize(String name) {
        CatalogItem item = named(name);
        if (item == null) throw new SqlException("42P01", "relation \"" + name + "\" does not exist");
        return compute.arrangementSizes(List.of(item.id())).get(0);
    }

    /** Every table's, materialized view's and index's lag and size, in one visit to the workers; see {@link Tributary#sampleObjects}. */
    synchronized ObjectSample.Samples sampleObjects() {
        List<CatalogItem> items = new ArrayList<>();
        for (CatalogItem item : catalog.inIdOrder()) {
            if (item instanceof CatalogItem.Table || item instanceof CatalogItem.MaterializedView || item instanceof CatalogItem.Index) items.add(item);
        }
        List<Long> ids = new ArrayList<>(items.size());
        for (CatalogItem item : items) ids.add(item.id());
        long now = oracle.clock().now();
        long[] uppers = compute.uppers(ids);
        List<ArrangementSize> sizes = compute.arrangementSizes(ids);
        List<ObjectSample> out = new ArrayList<>(items.size());
        for (int k = 0; k < items.size(); k++) {
            if (uppers[k] == Long.MIN_VALUE) continue;
            CatalogItem item = items.get(k);
            // complete up to upper - 1: caught up once that is now
            long lag = uppers[k] == Long.MAX_VALUE ? 0 : Math.max(0, now + 1 - uppers[k]);
            ArrangementSize size = sizes.get(k);
            out.add(new ObjectSample(item.id(), catalog.schemaOf(item.id()), item.name(), item.kind(), lag, size.records(), size.bytes(), size.pagedBytes()));
        }
        return new ObjectSample.Samples(System.nanoTime(), subscriptions.count(), out);
    }

    /** The running subscriptions, for {@code tributary_internal.subscriptions}. */
    @Override
    public synchronized List<dev.tributary.sql.catalog.Catalog.SubscriptionState> runningSubscriptions() {
        return subscriptions.states();
    }

    /** The counters behind {@code /metrics} now, for {@code tributary_internal.server_metrics}. */
    @Override
    public synchronized dev.tributary.sql.catalog.Catalog.ServerMetrics serverMetrics() {
        StatementMetrics.Totals t = metrics.totals();
        long records = 0;
        long bytes = 0;
        for (dev.tributary.sql.catalog.Catalog.ArrangementPart p : arrangementSizes()) {
            records += p.records();
            bytes += p.bytes();
        }
        java.lang.management.MemoryUsage heap = java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        Tributary.Backends b = backends;
        int connections = b == null ? 0 : b.activity().size();
        return new dev.tributary.sql.catalog.Catalog.ServerMetrics(t.statements(), t.errors(), writes.commits(), writes.committedRows(),
                t.p50Seconds() * 1e3, t.p99Seconds() * 1e3, heap.getUsed(), heap.getCommitted(), records, bytes, connections, subscriptions.count());
    }

    /** Every relation's parts, for {@code tributary_internal.arrangement_sizes}, in object id order. */
    @Override
    public synchronized List<dev.tributary.sql.catalog.Catalog.ArrangementPart> arrangementSizes() {
        List<CatalogItem> items = new ArrayList<>(catalog.inIdOrder());
        List<Long> ids = new ArrayList<>(items.size());
        for (CatalogItem item : items) ids.add(item.id());
        List<ArrangementSize> sizes = compute.arrangementSizes(ids);
        List<dev.tributary.sql.catalog.Catalog.ArrangementPart> out = new ArrayList<>();
        for (int k = 0; k < items.size(); k++) {
            for (ArrangementSize.Part p : sizes.get(k).parts()) {
                out.add(new dev.tributary.sql.catalog.Catalog.ArrangementPart(items.get(k).id(), items.get(k).name(), p.name(), p.records(), p.bytes(), p.pagedBytes()));
            }
        }
        return out;
    }

    /**
     * Makes the server's own tables (see {@link Introspection}), by their fixed ids, before a
     * restart makes again anything that reads them. {@code objects} and {@code streams} every
     * role reads; {@code statement_log}, which shows others' statements, its owner (the bootstrap
     * role) and superusers only.
     */
    private void createInternalTables() {
        for (CatalogItem.Table t : introspection.tables()) {
            compute.createTable(t.id(), t.name(), Binder.typesOf(t.columns()), new int[0], -1, null);
            frontiers.created(t.id());
            catalog.registerInternal(t);
            if (!t.name().equals("statement_log")) access.readableByAll(t.id());
        }
    }

    @Override
    public synchronized java.util.OptionalLong maintained(CatalogItem.SystemRelation r) {
        java.util.OptionalLong id = introspection.tableOf(r);
        // asked when something starts reading it: an engine relation no one read is empty, so it is sampled now
        if (id.isPresent() && introspectionIntervalMillis > 0 && !recovering && !introspection.sampling(id.getAsLong())) sampleIntrospection(Set.of(id.getAsLong()));
        return id;
    }

    /**
     * Samples the engine's state into the introspection relations now: one commit (not logged)
     * of what changed since the last sample. The clock thread calls it every
     * {@link #introspectionIntervalMillis}; tests call it to see a state at once.
     */
    synchronized void sampleIntrospection() {
        sampleIntrospection(Set.of());
    }

    /** {@link #sampleIntrospection()}, filling engine tables {@code starting} too, which something is about to read. */
    private void sampleIntrospection(Set<Long> starting) {
        if (closed) return;
        Introspection.Sample sample = null;
        Set<Long> read = new HashSet<>(starting);
        if (introspectionIntervalMillis > 0) {
            for (long id : Introspection.ENGINE_TABLES) if (!catalog.dependentsOf(id).isEmpty()) read.add(id);
            for (Set<Long> r : subscriptions.reads()) for (long id : r) if (Introspection.ENGINE_TABLES.contains(id)) read.add(id);
            java.util.Collection<CatalogItem> objects = catalog.inIdOrder();
            // the workers are visited for what is read only: the dataflows of thousands of views are not cheap to walk
            sample = new Introspection.Sample(oracle.clock().now(), objects, catalog::schemaOf, compute.frontiers(Introspection.stored(objects)),
                    ddl.hydrationProgress(), subscriptions.live(), subscriptions.states(),
                    Introspection.needsArrangementSizes(read) ? arrangementSizes() : List.of(), Introspection.needsDataflows(read) ? compute.dataflows() : List.of(),
                    statementLog, Introspection.needsServerMetrics(read) ? serverMetrics() : null);
        }
        writes.commitUnlogged(introspection.changes(sample, read));
    }

    /** Samples the introspection relations every {@code millis} of the clock from now on (0: never, and they are emptied). */
    synchronized void introspectionInterval(long millis) {
        introspectionIntervalMillis = Math.max(0, millis);
        if (millis <= 0) sampleIntrospection();
    }

    /** Keeps the newest {@code n} statements in {@code tributary_internal.statement_log} (0: none). */
    void statementLogSize(int n) {
        statementLog.capacity(n);
    }

    /** Every running dataflow, for {@code tributary_internal.dataflows}, {@code operators}, {@code channels} and {@code arrangements}. */
    @Override
    public synchronized List<dev.tributary.sql.catalog.Catalog.DataflowInfo> dataflows() {
        return compute.dataflows();
    }

    /** The hydrations under way, for {@code tributary_internal.hydration_progress}; read without the lock. */
    @Override
    public List<dev.tributary.sql.catalog.Catalog.HydrationProgress> hydrationProgress() {
        return ddl.hydrationProgress();
    }

    @Override
    public dev.tributary.sql.catalog.Sequences sequences() {
        return sequences;
    }

    @Override
    public synchronized Optional<CatalogItem> lookup(String schema, String name) {
        return Optional.ofNullable(catalog.get(schema, name));
    }

    @Override
    public synchronized List<Namespace> schemas() {
        List<Namespace> out = new ArrayList<>();
        for (Map.Entry<String, Long> s : catalog.schemas().entrySet()) {
            long id = s.getValue();
            out.add(new Namespace(id == 0 ? dev.tributary.sql.catalog.SystemCatalog.PUBLIC : dev.tributary.sql.catalog.SystemCatalog.oid(id), s.getKey(),
                    id == 0 ? dev.tributary.server.auth.Roles.DATABASE_OWNER : access.schemaOwner(s.getKey())));
        }
        out.sort(java.util.Comparator.comparing((Namespace n) -> !n.name().equals(CatalogState.PUBLIC)).thenComparing(Namespace::name));
        return out;
    }

    @Override
    public synchronized String schemaOf(long id) {
        return catalog.schemaOf(id);
    }

    /** {@code session}'s search path: the schemas its bare names are looked for in. */
    synchronized List<String> searchPath(Session session) {
        return catalog.searchPath(session);
    }

    @Override
    public synchronized java.util.Collection<CatalogItem> items() {
        return catalog.inIdOrder();
    }

    @Override
    public synchronized Map<Long, Map<Integer, String>> comments() {
        return catalog.comments();
    }

    /** Runs every statement of {@code sql} for {@code session}; stops at the first error. */
    List<Result> execute(Session session, String sql) {
        List<Result> results = new ArrayList<>();
        executeEach(session, sql, results::add, null);
        return results;
    }

    /**
     * Runs the statements of {@code sql} in order, handing each result over as it is made; stops at
     * the first error. COPY statements go to {@code copies} (the client moving the data), or, when
     * it is null, run here (COPY ... TO STDOUT gives its rows as a result).
     */
    void executeEach(Session session, String sql, java.util.function.Consumer<Result> each, Tributary.CopyHandler copies) {
        executeEach(session, sql, each, copies, false);
    }

    /**
     * Like {@link #executeEach(Session, String, java.util.function.Consumer, Tributary.CopyHandler)};
     * with {@code oneTransaction}, several statements outside a block run as PostgreSQL runs a
     * simple Query message: as one implicit transaction block, whose writes commit when the last
     * statement has run, or not at all after an error (unless COMMIT, ROLLBACK or BEGIN inside
     * say otherwise, as they do in PostgreSQL). DDL in it commits or rolls back with it.
     */
    void executeEach(Session session, String sql, java.util.function.Consumer<Result> each, Tributary.CopyHandler copies, boolean oneTransaction) {
        List<Statement> statements = Parser.parse(sql);
        boolean block = oneTransaction && statements.size() > 1 && !session.inTransaction;
        if (block) {
            session.inTransaction = true;
            session.implicit = true;
            session.multiStatement = true;
        }
        try {
            for (Statement st : statements) {
                Statement.Copy copy = st instanceof Statement.Copy c && c.file() == null ? c : st instanceof Statement.Subscribe sub ? asCopy(sub) : null;
                // a COPY ... TO through the client is timed as the statement it runs (execute), a COPY ... FROM here
                each.accept(copy == null || copies == null ? execute(session, st, sql)
                        : copy.from() ? metrics.time(StatementKind.WRITE, () -> copies.copy(copy, sql)) : copies.copy(copy, sql));
            }
        } finally {
            // BEGIN inside made it an ordinary block, which goes on after the message
            if (block && session.implicit) endImplicit(session);
        }
    }

    /**
     * Runs one statement of {@code sql}. FETCH and CHECKPOINT run without holding the coordinator,
     * since they may wait (for a subscription's rows, for the stores); everything else runs one
     * statement at a time.
     */
    Result execute(Session session, Statement st, String sql) {
        return metrics.time(StatementKind.of(st), () -> logged(session, sql, () -> executeStatement(session, st, sql)));
    }

    /** Runs {@code run}, a statement of {@code session}, and notes it in the statement log with its time, rows or error. */
    private Result logged(Session session, String sql, java.util.function.Supplier<Result> run) {
        long startedMillis = System.currentTimeMillis(), started = System.nanoTime();
        try {
            Result r = run.get();
            statementLog.ended(session, sql, startedMillis, System.nanoTime() - started, r, null);
            return r;
        } catch (SqlException e) {
            statementLog.ended(session, sql, startedMillis, System.nanoTime() - started, null, e);
            throw e;
        }
    }

    /**
     * Whether {@code st} waits for something other than the coordinator, and so takes it only to
     * start and to end (see {@link #executeStatement}): a prepared one must not run in a turn of it
     * either, or every other session waits as long.
     */
    private static boolean waitsOutside(Statement st) {
        return st instanceof Statement.Fetch || st instanceof Statement.Checkpoint || st instanceof Statement.InsertIntoUrl
                || st instanceof Statement.Copy c && c.file() != null;
    }

    private Result executeStatement(Session session, Statement st, String sql) {
        if (st instanceof Statement.Fetch f) return guarded(session, st, () -> fetch(session, f));
        if (st instanceof Statement.Checkpoint c) return guarded(session, st, () -> checkpoint(session));
        // posting to a receiver takes as long as the receiver (a continuous one until cancelled): held only to start
        if (st instanceof Statement.InsertIntoUrl u) return guarded(session, st, () -> insertIntoUrl(session, u));
        // reading or writing a file takes as long as the file: the coordinator is held only to start and to commit
        if (st instanceof Statement.Copy c && c.file() != null) return guarded(session, st, () -> ServerFileCopy.run(this, session, c, roles));
        Result r;
        synchronized (this) {
            sequences.statementOf(session);
            durability.statementSearchPath(catalog.searchPath(session));
            long firstId = catalog.peekNextId();
            // the owners, ACLs and roles a block's statement may change, to take back at its rollback
            Map<String, String> access = session.inTransaction && changesAccess(st) ? this.access.snapshot() : null;
            catalog.acting(session);
            try {
                r = guarded(session, st, () -> run(session, st, sql));
            } finally {
                catalog.acting(null);
                // what a statement of a block created goes again if the block rolls back
                if (session.inTransaction) {
                    for (long id = firstId; id < catalog.peekNextId(); id++) {
                        if (catalog.get(id) != null || catalog.schemaNamed(id) != null) session.catalogChanges.add(new CatalogChange.Created(id));
                    }
                    if (access != null) {
                        this.access.changedSince(access).forEach((key, before) -> session.catalogChanges.add(new CatalogChange.Access(key, before)));
                    }
                }
                durability.commitCatalog();
                durability.noteDurable(session);
                checkSinksAccess();
                startSources();
            }
        }
        durability.awaitDurable(session);
        return r;
    }

    /** Runs {@code body} for statement {@code st} of {@code session}, as {@link #execute} runs a statement. */
    synchronized <T> T execute(Session session, Statement st, String sql, java.util.function.Supplier<T> body) {
        sequences.statementOf(session);
        return guarded(session, st, body);
    }

    /** Whether {@code st} may change owners, ACLs or roles (what {@link AccessControl#snapshot} keeps). */
    private static boolean changesAccess(Statement st) {
        return st instanceof Statement.Grant || st instanceof Statement.GrantRole || st instanceof Statement.AlterOwner
                || st instanceof Statement.AlterSchemaOwner || st instanceof Statement.ReassignOwned || st instanceof Statement.DropOwned
                || st instanceof Statement.CreateRole || st instanceof Statement.AlterRole || st instanceof Statement.DropRole;
    }

    /** A session ends: its open block is rolled back and its cursors close. */
    synchronized void closeSession(Session session) {
        undo(session, 0);
        session.reset();
        groups.sessionClosed(session);
    }

    /**
     * Takes back what the open block's DDL did after its {@code from}-th catalog change, newest
     * first: DDL in a block rolls back with it, as in PostgreSQL.
     */
    private void undo(Session session, int from) {
        List<CatalogChange> changes = session.catalogChanges;
        if (changes.size() <= from) return;
        try {
            undo(session, changes.subList(from, changes.size()));
        } finally {
            changes.subList(from, changes.size()).clear();
        }
    }

    /** Takes back {@code changes}, {@code session}'s block's, newest first (see {@link CatalogChange}), durably. */
    private void undo(Session session, List<CatalogChange> changes) {
        try {
            for (int i = changes.size() - 1; i >= 0; i--) {
                switch (changes.get(i)) {
                    case CatalogChange.Created c -> ddl.dropCreated(c.id());
                    case CatalogChange.Dropped d -> catalog.attach(d.detached(), session);
                    case CatalogChange.SchemaDropped d -> catalog.attachSchema(d.name(), d.id());
                    case CatalogChange.Replaced r -> ddl.restore(r);
                    case CatalogChange.Commented c -> ddl.setComment(c.id(), c.column(), c.before());
                    case CatalogChange.Retained r -> ddl.setRetention(r.id(), r.before());
                    case CatalogChange.Access a -> access.restore(a.key(), a.before());
                }
            }
        } finally {
            durability.commitCatalog();
        }
    }

    /**
     * Finishes what {@code session}'s committed block dropped: the objects' dataflows and data
     * go, and their names are free. Their writes in {@code pending} were left out of the commit.
     */
    private void finish(Session session, List<CatalogChange> changes) {
        boolean any = false;
        for (CatalogChange c : changes) {
            switch (c) {
                case CatalogChange.Dropped d -> {
                    catalog.released(d.detached(), session);
                    ddl.release(d.detached());
                    any = true;
                }
                case CatalogChange.SchemaDropped d -> {
                    ddl.releaseSchema(d.name(), d.id());
                    any = true;
                }
                default -> { }
            }
        }
        if (any) durability.commitCatalog();
    }

    /** {@code pending} without the writes to the tables {@code changes} dropped: they go with their tables. */
    private static Map<Long, Map<Row, Long>> withoutDropped(Map<Long, Map<Row, Long>> pending, List<CatalogChange> changes) {
        for (CatalogChange c : changes) if (c instanceof CatalogChange.Dropped d) pending.remove(d.detached().item().id());
        return pending;
    }

    /** Runs {@code body} as statement {@code st} of {@code session}: refused in a failed block, failing the block on an error. */
    private static <T> T guarded(Session session, Statement st, java.util.function.Supplier<T> body) {
        if (session.aborted && !(st instanceof Statement.Transaction)) {
            throw new SqlException("25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        try {
            if (session.consumeCancel()) throw Session.canceled();
            session.startStatement();
            return body.get();
        } catch (SqlException e) {
            throw failed(session, e);
        } finally {
            session.endStatement();
        }
    }

    /**
     * {@code e}, after what an error does to {@code session}: a transaction block fails, and a
     * cancel that stopped the statement is used up, so it does not stop the next one.
     */
    private static SqlException failed(Session session, SqlException e) {
        if (session.inTransaction) session.aborted = true;
        if (e.sqlState().equals("57014")) session.consumeCancel();
        return e;
    }

    private Result run(Session session, Statement st, String sql) {
        return switch (st) {
            case Statement.QueryStatement q -> {
                if (q.emitChanges()) {
                    throw new SqlException("0A000", "a continuous query (EMIT CHANGES, or a STREAM) never ends, so it cannot be answered as a one-off result",
                            q.pos(), "Read it as a stream: COPY (query) TO STDOUT, or DECLARE c CURSOR FOR query and FETCH from it.");
                }
                Binder binder = binders.of(session);
                BoundQuery bound = binder.bindQuery(q.query());
                access.checkSelect(session, binder.dependencies());
                if (q.asOf() != null) yield reads.queryAsOf(session, bound, binder.systemTime(q.asOf(), "AS OF"), q.asOf().pos());
                yield reads.query(session, bound);
            }
            case Statement.CreateTable c -> ddl.createTable(session, c, sql);
            case Statement.CreateSource c -> ddl.createSource(session, c);
            case Statement.CreateSink c -> ddl.createSink(session, c);
            case Statement.CreateJob c -> ddl.createJob(session, c);
            case Statement.AlterJob a -> alterJob(session, a.name(), a.pause(), a.pos(), false);
            case Statement.AlterSink a -> alterJob(session, a.name(), a.pause(), a.pos(), true);
            case Statement.CreateTableAs c -> ddl.createTableAs(session, c, writes);
            case Statement.CreateView v -> ddl.createView(session, v, sql);
            case Statement.CreateIndex i -> ddl.createIndex(session, i, sql);
            case Statement.Drop d -> ddl.drop(session, d);
            case Statement.Insert i -> writes.insert(session, i);
            case Statement.Update u -> writes.update(session, u);
            case Statement.Delete d -> writes.delete(session, d);
            case Statement.Transaction t -> transaction(session, t);
            case Statement.Show s -> show(session, s);
            case Statement.Explain e -> reads.explain(session, e);
            case Statement.Subscribe s -> throw new SqlException("0A000", "SUBSCRIBE streams to a client: run it over the wire (psql, JDBC) or with subscribe(), not with execute()",
                    s.pos(), "Over the wire it streams as COPY (SUBSCRIBE ...) TO STDOUT does.");
            case Statement.AdvanceClock a -> advanceClock(a);
            case Statement.Checkpoint c -> throw new IllegalStateException("CHECKPOINT runs without the coordinator (see execute)");
            case Statement.InsertIntoUrl u -> throw new IllegalStateException("INSERT INTO FUNCTION url runs without the coordinator (see execute)");
            case Statement.Refresh r -> refresh(session, r);
            case Statement.Discard d -> {
                if (d.what().equals("all") && session.inTransaction && !session.implicit) {
                    throw new SqlException("25001", "DISCARD ALL cannot run inside a transaction block", d.pos());
                }
                if (d.what().equals("all") || d.what().equals("sequences")) {
                    session.sequenceValues.clear();
                    session.lastSequenceValue = null;
                }
                if (d.what().equals("all")) {
                    session.resetSettings();
                    session.closeCursors();
                    if (session.deallocate != null) session.deallocate.test(null);
                }
                yield Result.command("DISCARD " + d.what().toUpperCase(java.util.Locale.ROOT));
            }
            case Statement.Deallocate d -> {
                boolean had = session.deallocate == null ? d.name() == null : session.deallocate.test(d.name());
                if (!had) throw new SqlException("26000", "prepared statement \"" + d.name() + "\" does not exist", d.pos());
                yield Result.command(d.name() == null ? "DEALLOCATE ALL" : "DEALLOCATE");
            }
            case Statement.AlterRetainHistory a -> ddl.alterRetainHistory(session, a);
            case Statement.AddConstraint a -> ddl.addConstraint(session, a);
            case Statement.AlterColumn a -> ddl.alterColumn(session, a);
            case Statement.Comment c -> ddl.comment(session, c);
            case Statement.CreateSequence q -> ddl.createSequence(session, q, sql);
            case Statement.DropConstraint d -> ddl.dropConstraint(session, d);
            case Statement.CreateRole r -> createRole(session, r);
            case Statement.AlterRole r -> alterRole(session, r);
            case Statement.DropRole r -> dropRole(session, r);
            case Statement.SetConstraints c -> setConstraints(session, c);
            case Statement.CreateSchema c -> ddl.createSchema(session, c);
            case Statement.DropSchema d -> ddl.dropSchema(session, d);
            case Statement.AlterSchemaOwner a -> access.alterSchemaOwner(session, a);
            case Statement.Grant g -> access.grant(session, g);
            case Statement.GrantRole g -> access.grantRole(session, g);
            case Statement.AlterOwner a -> access.alterOwner(session, a);
            case Statement.ReassignOwned r -> access.reassignOwned(session, r);
            case Statement.DropOwned d -> dropOwned(session, d);
            case Statement.SetRole r -> access.setRole(session, r);
            case Statement.Set s -> set(session, s);
            case Statement.Copy c -> {
                if (c.file() != null) throw new IllegalStateException("a COPY of a file runs outside the coordinator (executeStatement)");
                if (c.from()) {
                    throw new SqlException("0A000", "COPY FROM STDIN needs a client that sends the data", c.pos(),
                            "Run it from psql or through the JDBC driver's CopyManager.");
                }
                if (streams(c)) throw new SqlException("0A000", "COPY of a subscription streams to a client; use subscribe() here", c.pos());
                yield copyTo(session, c);
            }
            case Statement.DeclareCursor d -> declare(session, d);
            case Statement.Fetch f -> fetch(session, f);
            case Statement.CloseCursor c -> closeCursor(session, c);
        };
    }

    // ------------------------------------------------------------------ COPY

    /**
     * A SUBSCRIBE sent over the wire as it is: {@code COPY (SUBSCRIBE ...) TO STDOUT}, streamed in
     * COPY's text format, as Materialize serves it.
     */
    static Statement.Copy asCopy(Statement.Subscribe s) {
        return new Statement.Copy(s.pos(), List.of(), List.of(), s, false, Statement.CopyOptions.TEXT);
    }

    /** Whether a COPY ... TO STDOUT streams a subscription's changes rather than a query's rows. */
    static boolean streams(Statement.Copy c) {
        return c.query() instanceof Statement.Subscribe || (c.query() instanceof Statement.QueryStatement q && q.emitChanges());
    }

    /** The rows of COPY table [(cols)] TO ... or COPY (query) TO ..., tagged {@code COPY n}, read under the coordinator. */
    synchronized Result copyRows(Session session, Statement.Copy c) {
        return guarded(session, c, () -> copyTo(session, c));
    }

    /** COPY table [(cols)] TO STDOUT or COPY (query) TO STDOUT: the rows, tagged {@code COPY n}. */
    private Result copyTo(Session session, Statement.Copy c) {
        dev.tributary.sql.ast.Query query;
        if (c.query() instanceof Statement.QueryStatement q) {
            if (q.asOf() != null) throw new SqlException("0A000", "SELECT ... AS OF is not supported yet", q.asOf().pos());
            query = q.query();
        } else {
            String name = c.table().get(c.table().size() - 1);
            CatalogItem item = catalog.find(c.table(), session, c.pos());
            if (item == null || item instanceof CatalogItem.Index) throw new SqlException("42P01", "relation \"" + String.join(".", c.table()) + "\" does not exist");
            access.check(session, item, dev.tributary.server.auth.Privilege.SELECT);
            List<String> cols = new ArrayList<>();
            for (String col : c.columns()) {
                if (CatalogState.indexOfColumn(item.columns(), col) < 0) throw new SqlException("42703", "column \"" + col + "\" of relation \"" + name + "\" does not exist");
                if (cols.contains(dev.tributary.sql.parser.SqlFormatter.ident(col))) throw new SqlException("42701", "column \"" + col + "\" specified more than once");
                cols.add(dev.tributary.sql.parser.SqlFormatter.ident(col));
            }
            query = Parser.parseQuery("SELECT " + (cols.isEmpty() ? "*" : String.join(", ", cols)) + " FROM "
                    + dev.tributary.sql.parser.SqlFormatter.ident(catalog.schemaOf(item.id())) + "." + dev.tributary.sql.parser.SqlFormatter.ident(name));
        }
        Binder binder = binders.plain(session);
        BoundQuery bound = binder.bindQuery(query);
        access.checkSelect(session, binder.dependencies());
        Result r = reads.query(session, bound);
        return new Result("COPY " + r.rows().size(), r.columns(), r.types(), r.rows());
    }

    /** Starts COPY table [(cols)] FROM STDIN: checks the table and columns before the client sends data. */
    CopyIn copyIn(Session session, Statement.Copy c) {
        synchronized (this) {
            return guarded(session, c, () -> {
                if (!c.from()) throw new IllegalArgumentException("not a COPY FROM");
                String name = c.table().get(c.table().size() - 1);
                CatalogItem item = catalog.find(c.table(), session, c.pos());
                if (item == null || item instanceof CatalogItem.Index) throw new SqlException("42P01", "relation \"" + String.join(".", c.table()) + "\" does not exist");
                if (!(item instanceof CatalogItem.Table t)) {
                    throw new SqlException("42809", "cannot copy to " + item.kind() + " \"" + name + "\"", 0, "Only tables can be written to; views are maintained from them.");
                }
                access.check(session, t, dev.tributary.server.auth.Privilege.INSERT);
                List<Integer> targets = new ArrayList<>();
                for (String col : c.columns()) {
                    int i = CatalogState.indexOfColumn(t.columns(), col);
                    if (i < 0) throw new SqlException("42703", "column \"" + col + "\" of relation \"" + name + "\" does not exist");
                    if (targets.contains(i)) throw new SqlException("42701", "column \"" + col + "\" specified more than once");
                    targets.add(i);
                }
                if (c.columns().isEmpty()) for (int i = 0; i < t.columns().size(); i++) targets.add(i);
                return new CopyIn(this, session, t, targets.stream().mapToInt(Integer::intValue).toArray(), c.options());
            });
        }
    }

    /**
     * Ends a COPY FROM: its first error, or its rows written (at one time, or into the open block)
     * with defaults filled and constraints checked as INSERT does.
     */
    Result finishCopy(Session session, CopyIn copy, CatalogItem.Table table, int[] targets, List<Object[]> rows, BytesColumn encoded,
            SqlException error) {
        Result r = finishCopyLocked(session, copy, table, targets, rows, encoded, error);
        durability.awaitDurable(session);
        return r;
    }

    private synchronized Result finishCopyLocked(Session session, CopyIn copy, CatalogItem.Table table, int[] targets, List<Object[]> rows, BytesColumn encoded,
            SqlException error) {
        try {
            return writes.copy(session, copy, table, targets, rows, encoded, error);
        } catch (SqlException e) {
            copy.discardPrewritten();
            throw failed(session, e);
        } finally {
            durability.noteDurable(session);
        }
    }

    /** Whether writes go to durable storage (a data directory, or S3 and PostgreSQL). */
    boolean durable() {
        return storage != null;
    }

    /**
     * Writes a COPY's rows so far to the tables' log in the background, before the COPY has a
     * time (see {@link StorageController#prewrite}); null without durable storage.
     */
    java.util.concurrent.CompletableFuture<List<dev.tributary.storage.PartMeta>> prewrite(long table, dev.tributary.arrangements.Updates rows) {
        return storage == null ? null : storage.prewrite(table, rows);
    }

    /** Deletes prewritten parts once written (a COPY that failed, or joined a transaction block); the future completes when they are gone. */
    java.util.concurrent.CompletableFuture<Void> discardPrewritten(List<java.util.concurrent.CompletableFuture<List<dev.tributary.storage.PartMeta>>> parts) {
        if (storage == null) return java.util.concurrent.CompletableFuture.completedFuture(null);
        return java.util.concurrent.CompletableFuture.allOf(parts.stream().map(f -> f.thenAccept(storage::discard)).toArray(java.util.concurrent.CompletableFuture[]::new));
    }

    /** A COPY FROM the client abandoned: its error, failing the open block. */
    synchronized SqlException failCopy(Session session, SqlException error) {
        if (session.inTransaction) session.aborted = true;
        return error;
    }

    // ------------------------------------------------------------------ cursors

    // ------------------------------------------------------------------ consumer groups

    private final ConsumerGroups groups = new ConsumerGroups();

    /**
     * A cursor over a STREAM read by a consumer group: the group's partitions this session may
     * take, its subscription resumed at their earliest position; the group made (durably, at the
     * present) by its first cursor. Null when {@code q} reads no stream by a group.
     */
    private Cursor groupCursor(Session session, Statement.DeclareCursor d, Statement.QueryStatement q) {
        Binder binder = binders.of(session).allowStreams().maintaining();
        BoundQuery bound = binder.bindQuery(q.query());
        Binder.ConsumerGroup cg = binder.consumerGroup();
        if (cg == null) return null;
        access.checkSelect(session, binder.dependencies());
        ConsumerGroups.Group g = groups.get(cg.table(), cg.name());
        if (g == null) {
            Map<Row, Long> made = groups.create(cg.table(), cg.name(), oracle.readTime() + 1);
            Map<Long, Map<Row, Long>> change = new HashMap<>();
            change.put(ConsumerGroups.POSITIONS, made);
            writes.commitBlock(change, false);
            g = groups.get(cg.table(), cg.name());
            // the table's history is kept from the group's start at once, not from the next tick
            durability.holdTables(catalog.holds(oracle.readTime()), catalog);
        }
        for (Cursor c : session.cursors.values()) {
            if (c.group() != null && c.group().group == g) {
                throw new SqlException("55006", "consumer group \"" + cg.name() + "\" is read by cursor of this block already", cg.pos(),
                        "One cursor per group and block: FETCH more from it.");
            }
        }
        int[] partitions = groups.acquire(g, session);
        List<String> names = new ArrayList<>(List.of("change_time", "change_diff"));
        List<SqlType> types = new ArrayList<>(List.of(SqlType.TIMESTAMPTZ, SqlType.BIGINT));
        names.addAll(bound.names().subList(0, bound.visible()));
        types.addAll(bound.types().subList(0, bound.visible()));
        GroupRead read = new GroupRead(g, session, partitions, bound.types().subList(0, bound.visible()));
        ConsumerGroups.Group group = g;
        Cursor cursor = Cursor.grouped(d.name(), session.subscribeBufferRows, read, () -> groups.release(group, session, partitions), names, types);
        if (partitions.length > 0) {
            cursor.attach(subscriptions.subscribeJob(session, binder, bound, q, read.resumeAt(), cursor.listener()));
        } else {
            cursor.listener().onDone();
        }
        return cursor;
    }

    /** The positions {@code session}'s group cursors reached, as rows of the positions table (for its block's commit). */
    private Map<Row, Long> groupMoves(Session session) {
        Map<Row, Long> out = new HashMap<>();
        for (Cursor c : session.cursors.values()) {
            if (c.group() == null) continue;
            ConsumerGroups.moves(c.group().group, c.group().reached()).forEach((r, n) -> out.merge(r, n, Long::sum));
        }
        out.values().removeIf(n -> n == 0);
        return out;
    }

    private Result declare(Session session, Statement.DeclareCursor d) {
        // the extended protocol's implicit transaction ends at the next Sync: not a block a cursor can live in, as in
        // PostgreSQL; a multi-statement Query's implicit block is one
        if (!session.inTransaction || (session.implicit && !session.multiStatement)) throw new SqlException("25P01", "DECLARE CURSOR can only be used in transaction blocks", d.pos());
        if (session.cursors.containsKey(d.name())) throw new SqlException("42P03", "cursor \"" + d.name() + "\" already exists", d.pos());
        Cursor cursor;
        if (d.query() instanceof Statement.QueryStatement q && !q.emitChanges()) {
            cursor = Cursor.over(run(session, q, null));
        } else if (d.query() instanceof Statement.QueryStatement q && (cursor = groupCursor(session, d, q)) != null) {
            // a consumer group's
        } else {
            cursor = Cursor.subscribing(d.name(), session.subscribeBufferRows);
            cursor.attach(subscribe(session, d.query(), cursor.listener()));
        }
        session.cursors.put(d.name(), cursor);
        return Result.command("DECLARE CURSOR");
    }

    /** FETCH: up to n rows of the cursor, waiting (over a subscription) up to the timeout for the first. */
    private Result fetch(Session session, Statement.Fetch f) {
        Cursor cursor = session.cursors.get(f.cursor());
        if (cursor == null) throw new SqlException("34000", "cursor \"" + f.cursor() + "\" does not exist", f.pos());
        long timeout = -1;
        if (f.timeout() != null) {
            Interval i;
            synchronized (this) {
                i = (Interval) binders.plain().constant(f.timeout(), SqlType.INTERVAL);
            }
            if (i.months() != 0) throw new SqlException("22023", "FETCH's timeout takes days, hours, minutes and seconds, not months", f.timeout().pos());
            timeout = i.days() * 86_400_000L + Math.floorDiv(i.micros(), 1000);
            if (timeout < 0) throw new SqlException("22023", "FETCH's timeout must not be negative", f.timeout().pos());
        }
        return cursor.fetch(f.count(), timeout, session);
    }

    private Result closeCursor(Session session, Statement.CloseCursor c) {
        if (c.cursor() == null) {
            session.closeCursors();
            return Result.command("CLOSE CURSOR ALL");
        }
        Cursor cursor = session.cursors.remove(c.cursor());
        if (cursor == null) throw new SqlException("34000", "cursor \"" + c.cursor() + "\" does not exist", c.pos());
        cursor.close();
        return Result.command("CLOSE CURSOR");
    }

    // ------------------------------------------------------------------ prepared statements

    /**
     * Parses and binds {@code sql} (at most one statement) once, its parameters {@code $i} of
     * {@code declared.get(i - 1)} where given (null or beyond the list: inferred from context).
     */
    synchronized Prepared prepare(Session session, String sql, List<SqlType> declared) {
        List<Statement> statements = Parser.parse(sql);
        if (statements.size() > 1) throw new SqlException("42601", "cannot insert multiple commands into a prepared statement");
        if (statements.isEmpty()) return new Prepared(sql, null, Prepared.Kind.EMPTY, declared, List.of(), null, null);
        Statement st = statements.get(0);
        if (session.aborted && !(st instanceof Statement.Transaction)) {
            throw new SqlException("25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        long start = System.nanoTime();
        try {
            return bind(session, sql, st, declared, null);
        } catch (SqlException e) {
            // it fails here, at its Parse, as in PostgreSQL: a statement run, and failed, all the same
            metrics.failed(StatementKind.of(st), start);
            throw failed(session, e);
        }
    }

    /**
     * {@code st} bound against the catalog as it is now. When {@code previous} is given (the
     * catalog changed since it was bound), the parameter types and result columns must stay.
     */
    private Prepared bind(Session session, String sql, Statement st, List<SqlType> declared, Prepared previous) {
        Binder binder = binders.of(session, declared);
        Prepared.Kind kind;
        BoundQuery query = null;
        Plan plan = null;
        CatalogItem.Table table = null;
        dev.tributary.sql.bind.Returning returning = null;
        List<CatalogItem.Index> arbiters = null;
        dev.tributary.sql.bind.ConflictUpdate conflictUpdate = null;
        List<Plan> plans = new ArrayList<>();
        switch (st) {
            case Statement.QueryStatement q when !q.emitChanges() && q.asOf() == null -> {
                kind = Prepared.Kind.QUERY;
                query = binder.bindQuery(q.query());
                plans.add(query.plan());
            }
            case Statement.Insert i -> {
                kind = Prepared.Kind.INSERT;
                table = catalog.table(i.table(), session, i.pos(), "insert into");
                query = binder.bindInsert(table, i);
                plans.add(query.plan());
                returning = binder.bindReturning(table, i.target(), i.returning());
                arbiters = writes.arbiters(table, i.onConflict());
                if (i.onConflict() != null && i.onConflict().doUpdate()) {
                    conflictUpdate = binder.bindConflictUpdate(table, i.target(), i.onConflict().updates(), i.onConflict().where());
                }
            }
            case Statement.Update u -> {
                kind = Prepared.Kind.UPDATE;
                table = catalog.table(u.table(), session, u.pos(), "update");
                plan = binder.bindUpdate(table, u.alias() != null ? u.alias() : table.name(), u.assignments(), u.from(), u.where());
                plans.add(plan);
                returning = binder.bindReturning(table, u.alias() != null ? u.alias() : table.name(), u.returning(), !u.from().isEmpty());
            }
            case Statement.Delete d when !d.truncate() -> {
                kind = Prepared.Kind.DELETE;
                table = catalog.table(d.table(), session, d.pos(), "delete from");
                plan = binder.bindDelete(table, d.alias() != null ? d.alias() : table.name(), d.using(), d.where());
                plans.add(plan);
                returning = binder.bindReturning(table, d.alias() != null ? d.alias() : table.name(), d.returning(), !d.using().isEmpty());
            }
            default -> kind = Prepared.Kind.OTHER;
        }
        List<SqlType> parameterTypes = binder.parameterTypes(plans, conflictUpdate == null ? List.of() : conflictUpdate.exprs());
        boolean rows = kind == Prepared.Kind.QUERY;
        Prepared p = new Prepared(sql, st, kind, declared, parameterTypes, rows ? query.names() : returning != null ? returning.names() : null,
                rows ? query.types() : returning != null ? returning.types() : null);
        if (previous != null && (!parameterTypes.equals(previous.parameterTypes()) || !java.util.Objects.equals(p.types(), previous.types()))) {
            throw new SqlException("0A000", "cached plan must not change result type");
        }
        p.version = catalog.version();
        p.reads = binder.dependencies();
        p.readsSystemCatalog = binder.readsSystemCatalog();
        p.desugarsAsOf = Binders.desugarsAsOf(session);
        p.searchPath = session.settings.get("search_path");
        p.searchPathRole = session.currentUser();
        p.query = query;
        p.plan = plan;
        p.table = table;
        p.returning = returning;
        p.arbiters = arbiters;
        p.conflictUpdate = conflictUpdate;
        return p;
    }

    /**
     * Runs {@code p} with parameter values {@code values} (each of its parameter type, NULL as
     * null). Nothing is parsed or bound again unless the catalog changed; a read without
     * uncommitted writes in view reuses the plan optimized at its first run, so a point lookup
     * through an index costs the seek.
     */
    Result execute(Session session, Prepared p, Object[] values) {
        return execute(session, p, values, false);
    }

    /**
     * {@link #execute(Session, Prepared, Object[])}, and if {@code endImplicit}, the session's
     * implicit block ends (commits) in the same turn of the coordinator, once the statement has
     * run: the extended protocol's Execute directly followed by Sync (an autocommitted prepared
     * statement) takes the coordinator once, not twice (a second turn behind every other session's).
     */
    Result execute(Session session, Prepared p, Object[] values, boolean endImplicit) {
        // an empty statement is no statement; any other statement than a query or write is timed
        // and logged as execute runs it
        if (waitsOutside(p.statement)) {
            // it waits (for a receiver, a subscription's rows, a file, a checkpoint): not in a turn of the coordinator
            Result r = execute(session, p.statement, p.sql);
            if (endImplicit && session.implicit) endImplicit(session);
            return r;
        }
        if (p.kind == Prepared.Kind.EMPTY || p.kind == Prepared.Kind.OTHER) return executePrepared(session, p, values, endImplicit);
        return metrics.time(StatementKind.of(p.statement), () -> logged(session, p.sql, () -> executePrepared(session, p, values, endImplicit)));
    }

    private Result executePrepared(Session session, Prepared p, Object[] values, boolean endImplicit) {
        if (values.length != p.parameterTypes().size()) {
            throw new SqlException("08P01", "bind message supplies " + values.length + " parameters, but prepared statement requires " + p.parameterTypes().size());
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null && !valueOf(p.parameterTypes().get(i).kind()).isInstance(values[i]) && !(values[i] instanceof dev.tributary.sql.types.NonFiniteNumeric)) {
                throw new IllegalArgumentException("parameter $" + (i + 1) + " is " + p.parameterTypes().get(i) + ", held as "
                        + valueOf(p.parameterTypes().get(i).kind()).getSimpleName() + ", not as " + values[i].getClass().getSimpleName());
            }
        }
        Result r;
        try {
            r = access.cleared(session, p) ? reads.pointRead(session, p, values) : null;
            if (r == null && p.kind == Prepared.Kind.QUERY && refreshPointRead(session, p, values)) r = reads.pointRead(session, p, values);
        } catch (SqlException e) {
            throw failed(session, e); // statement_timeout while waiting for the published index
        }
        if (r == null) {
            boolean[] readNothing = {false};
            try {
                r = executeLocked(session, p, values, readNothing, endImplicit);
            } catch (RuntimeException e) {
                durability.awaitDurable(session); // an error may tell of others' writes (a duplicate key)
                throw e;
            }
            // an INSERT of given values in a block (an implicit one too) shows nothing of the
            // database: its answer waits with its commit (COMMIT, or Sync in endImplicit), one
            // durable write instead of two (the writes in flight, and then its own)
            if (readNothing[0] && !r.hasRows() && session.inTransaction) return r;
        } else {
            durability.noteDurable(session); // what the published index showed was appended by now
        }
        durability.awaitDurable(session);
        return r;
    }

    private synchronized Result executeLocked(Session session, Prepared p, Object[] values, boolean[] readNothing, boolean endImplicit) {
        sequences.statementOf(session);
        try {
            // an INSERT of given values that opens its block, committed in the same turn: nothing
            // came between its key check and its commit (it waits for no dataflow), so the commit
            // need not check again
            boolean checkedNow = endImplicit && session.pending.isEmpty() && p.insertsGivenValues();
            Result r = runPrepared(session, p, values);
            readNothing[0] = session.inTransaction && p.insertsGivenValues();
            if (endImplicit && session.implicit) endImplicitLocked(session, !checkedNow);
            return r;
        } finally {
            durability.noteDurable(session);
        }
    }

    /**
     * Prepared query {@code p}'s point read made ready again when the catalog (or the session's
     * privileges) changed since it was last, or made the first time: bound again, checked and
     * planned under the lock, so that its read can then run without it. Any DDL (a materialized
     * view being built, say) changes the catalog, and every prepared point read used to take the
     * coordinator's path once after it, waiting there for the workers while holding every other
     * session back. Whether there is a point read to try now; failures are left to the ordinary
     * path, which reports them.
     */
    private boolean refreshPointRead(Session session, Prepared p, Object[] values) {
        // looked at without the lock first: a query that is no point read must not take it twice a run
        if (!pointReadStale(session, p)) return false;
        synchronized (this) {
            if (!pointReadStale(session, p) || session.aborted || !session.pending.isEmpty() || p.readsSystemCatalog) return false;
            try {
                rebindIfStale(session, p);
                access.checkPrepared(session, p);
                reads.planPointRead(p, values);
            } catch (SqlException e) {
                return false;
            }
            return p.pointRead != null;
        }
    }

    /** Whether {@code p} was bound, planned or cleared before the catalog, the session's AS OF desugaring or its privileges last changed. */
    private boolean pointReadStale(Session session, Prepared p) {
        return p.version != catalog.version() || p.desugarsAsOf != Binders.desugarsAsOf(session) || searchPathChanged(session, p)
                || p.physical == null || !access.cleared(session, p);
    }

    /** Whether what {@code session}'s bare names resolve by besides the catalog (its search_path setting and, for {@code $user}, its role) changed since {@code p} was bound. */
    private static boolean searchPathChanged(Session session, Prepared p) {
        return !java.util.Objects.equals(p.searchPath, session.settings.get("search_path")) || !p.searchPathRole.equals(session.currentUser());
    }

    /** {@code p} bound again if the catalog or the session's AS OF desugaring changed since it was, or it reads the system catalogs. */
    private void rebindIfStale(Session session, Prepared p) {
        // a snapshot of the system catalogs (settings, roles, the catalog itself) is taken per run
        if (p.version != catalog.version() || p.readsSystemCatalog || p.desugarsAsOf != Binders.desugarsAsOf(session) || searchPathChanged(session, p)) {
            // bound as it was first (inference included), then held to the types it had
            Prepared again = bind(session, p.sql, p.statement, p.declared, p);
            p.desugarsAsOf = again.desugarsAsOf;
            p.searchPath = again.searchPath;
            p.searchPathRole = again.searchPathRole;
            p.version = again.version;
            p.query = again.query;
            p.plan = again.plan;
            p.table = again.table;
            p.returning = again.returning;
            p.arbiters = again.arbiters;
            p.conflictUpdate = again.conflictUpdate;
            p.reads = again.reads;
            p.physical = null;
            p.pointRead = null;
        }
    }

    private Result runPrepared(Session session, Prepared p, Object[] values) {
        if (p.kind == Prepared.Kind.EMPTY) return Result.command("");
        if (p.kind == Prepared.Kind.OTHER) return execute(session, p.statement, p.sql);
        if (session.aborted) {
            throw new SqlException("25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        try {
            rebindIfStale(session, p);
            access.checkPrepared(session, p);
            Plan bound = p.query != null ? p.query.plan() : p.plan;
            List<Object[]> rows = reads.preparedRows(session, p, bound, values);
            return switch (p.kind) {
                case QUERY -> ReadPath.present(p.query, rows);
                case INSERT -> writes.insertRows(session, p.table, rows, p.returning, p.arbiters, p.conflictUpdate == null ? null
                        : p.conflictUpdate.map(e -> dev.tributary.sql.expr.ScalarExprs.bindParameters(e, values, p.parameterTypes())));
                case UPDATE -> writes.updateRows(session, p.table,
                        p.statement instanceof Statement.Update u && !u.from().isEmpty() ? writes.oncePerRow(session, p.table, rows) : rows, p.returning);
                case DELETE -> writes.deleteRows(session, p.table,
                        p.statement instanceof Statement.Delete d && !d.using().isEmpty() ? writes.oncePerRow(session, p.table, rows) : rows, p.returning);
                case EMPTY, OTHER -> throw new IllegalStateException("not run from a plan: " + p.kind);
            };
        } catch (SqlException e) {
            throw failed(session, e);
        }
    }

    /**
     * Opens an implicit transaction block for {@code session} unless it is in a block: the
     * extended protocol's statements up to the next Sync commit together, or not at all.
     */
    void beginImplicit(Session session) {
        // the session's own state, touched only by its client's thread
        if (session.inTransaction) return;
        session.inTransaction = true;
        session.implicit = true;
    }

    /** Ends {@code session}'s implicit block, if it is in one: its writes commit, unless an error failed it. */
    void endImplicit(Session session) {
        if (!session.implicit) return;
        if (session.pending.isEmpty() && session.cursors.isEmpty() && (session.catalogChanges.isEmpty() || !session.aborted && !session.dropsInBlock())) {
            session.reset(); // nothing to commit or close: no need to wait for the coordinator
            durability.awaitDurable(session); // what a statement of the block answered without waiting for
            return;
        }
        endImplicitLocked(session);
        durability.awaitDurable(session);
    }

    private synchronized void endImplicitLocked(Session session) {
        endImplicitLocked(session, true);
    }

    /** Ends the implicit block; {@code checkKeys} false when its writes' keys were checked in this turn of the coordinator. */
    private synchronized void endImplicitLocked(Session session, boolean checkKeys) {
        boolean failed = session.aborted;
        Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>(session.pending);
        if (failed) undo(session, 0);
        List<CatalogChange> changes = List.copyOf(session.catalogChanges);
        session.reset();
        try {
            if (!failed) commitOrUndo(session, pending, checkKeys, changes);
        } finally {
            durability.noteDurable(session);
        }
    }

    /**
     * Commits a block's writes and finishes its drops; when the writes fail (a key taken
     * meanwhile), the block's DDL is taken back too, as its rollback would.
     */
    private void commitOrUndo(Session session, Map<Long, Map<Row, Long>> pending, boolean checkKeys, List<CatalogChange> changes) {
        try {
            writes.commitBlock(withoutDropped(pending, changes), checkKeys);
        } catch (RuntimeException e) {
            undo(session, changes);
            throw e;
        }
        finish(session, changes);
    }

    /** Fails {@code session}'s transaction block, if it is in one, after an error raised outside the coordinator. */
    synchronized void fail(Session session) {
        if (session.inTransaction) session.aborted = true;
    }

    /** The Java class of the values of {@code kind} (see {@link SqlType}). */
    private static Class<?> valueOf(SqlType.Kind kind) {
        return switch (kind) {
            case BOOLEAN -> Boolean.class;
            case SMALLINT, INTEGER, BIGINT -> Long.class;
            case REAL, DOUBLE -> Double.class;
            case NUMERIC -> java.math.BigDecimal.class;
            case TEXT, VARCHAR, CHAR, UNKNOWN, JSON -> String.class;
            case JSONB -> dev.tributary.sql.types.Jsonb.class;
            case BYTEA -> dev.tributary.sql.types.Bytea.class;
            case UUID -> java.util.UUID.class;
            case DATE -> java.time.LocalDate.class;
            case TIME -> java.time.LocalTime.class;
            case TIMESTAMP -> java.time.LocalDateTime.class;
            case TIMESTAMPTZ -> Instant.class;
            case INTERVAL -> Interval.class;
            case ARRAY, RECORD -> List.class;
        };
    }

    private Result transaction(Session session, Statement.Transaction t) {
        return switch (t.kind()) {
            case BEGIN -> {
                if (session.implicit) {
                    // in an implicit block, BEGIN makes it explicit, with what it wrote so far
                    session.implicit = false;
                    session.multiStatement = false;
                    yield Result.command("BEGIN");
                }
                if (session.inTransaction) { // PostgreSQL warns and carries on
                    yield Result.command("BEGIN").withNotice(new Notice("WARNING", "25001", "there is already a transaction in progress"));
                }
                session.inTransaction = true;
                yield Result.command("BEGIN");
            }
            case COMMIT -> {
                if (!session.inTransaction) yield Result.command("COMMIT").withNotice(noTransaction());
                if (session.implicit) {
                    // PostgreSQL warns, commits what the implicit block wrote, and runs the rest in a new one
                    Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>(session.pending);
                    List<CatalogChange> changes = List.copyOf(session.catalogChanges);
                    session.clearPending();
                    session.catalogChanges.clear();
                    session.closeCursors();
                    commitOrUndo(session, pending, true, changes);
                    yield Result.command("COMMIT").withNotice(noTransaction());
                }
                boolean failed = session.aborted;
                Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>(session.pending);
                if (failed) undo(session, 0);
                List<CatalogChange> changes = List.copyOf(session.catalogChanges);
                // what its consumer group cursors handed out is consumed with the block's writes
                Map<Row, Long> moves = failed ? Map.of() : groupMoves(session);
                List<GroupRead> reads = new ArrayList<>();
                for (Cursor c : session.cursors.values()) if (c.group() != null) reads.add(c.group());
                if (!moves.isEmpty()) pending.put(ConsumerGroups.POSITIONS, moves);
                session.reset();
                if (failed) yield Result.command("ROLLBACK");
                commitOrUndo(session, pending, true, changes);
                for (GroupRead r : reads) ConsumerGroups.committed(r.group, r.reached());
                yield Result.command("COMMIT");
            }
            case ROLLBACK -> {
                if (!session.inTransaction) yield Result.command("ROLLBACK").withNotice(noTransaction());
                if (session.implicit) {
                    // and drops what it wrote
                    undo(session, 0);
                    session.clearPending();
                    session.closeCursors();
                    yield Result.command("ROLLBACK").withNotice(noTransaction());
                }
                undo(session, 0);
                session.reset();
                yield Result.command("ROLLBACK");
            }
            case SAVEPOINT, RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT -> {
                String what = switch (t.kind()) {
                    case SAVEPOINT -> "SAVEPOINT";
                    case RELEASE_SAVEPOINT -> "RELEASE SAVEPOINT";
                    default -> "ROLLBACK TO SAVEPOINT";
                };
                if (!session.inTransaction || session.implicit) {
                    throw new SqlException("25P01", what + " can only be used in transaction blocks");
                }
                if (session.aborted && t.kind() != Statement.TransactionKind.ROLLBACK_TO_SAVEPOINT) {
                    throw new SqlException("25P02", "current transaction is aborted, commands ignored until end of transaction block");
                }
                switch (t.kind()) {
                    case SAVEPOINT -> session.savepoint(t.savepoint());
                    case RELEASE_SAVEPOINT -> session.release(t.savepoint());
                    default -> {
                        undo(session, session.changesAt(t.savepoint()));
                        session.rollbackTo(t.savepoint());
                    }
                }
                yield Result.command(t.kind() == Statement.TransactionKind.SAVEPOINT ? "SAVEPOINT" : t.kind() == Statement.TransactionKind.RELEASE_SAVEPOINT ? "RELEASE" : "ROLLBACK");
            }
        };
    }

    /**
     * SET CONSTRAINTS: which deferrable foreign keys of the open block wait for its COMMIT
     * (WARNING 25P01 and nothing outside a block, as PostgreSQL); IMMEDIATE runs the checks
     * deferred so far at once. 42704 for a name no foreign key of the search path's tables has,
     * 42809 for one that is not deferrable.
     */
    private Result setConstraints(Session session, Statement.SetConstraints c) {
        if (!session.inTransaction) {
            return Result.command("SET CONSTRAINTS").withNotice(new Notice("WARNING", "25P01", "SET CONSTRAINTS can only be used in transaction blocks"));
        }
        if (c.names().isEmpty()) {
            session.constraintModes.clear();
            session.allConstraintsDeferred = c.deferred();
        } else {
            List<String> path = catalog.searchPath(session);
            for (List<String> name : c.names()) {
                CatalogState.Name q = catalog.qualified(name, c.pos());
                List<CatalogItem.ForeignKey> found = new ArrayList<>();
                for (CatalogItem item : catalog.inIdOrder()) {
                    if (!(item instanceof CatalogItem.ForeignKey f) || !f.name().equals(q.name())) continue;
                    String schema = catalog.schemaOf(f.table());
                    if (q.schema() != null ? schema.equals(q.schema()) : path.contains(schema)) found.add(f);
                }
                if (found.isEmpty()) throw new SqlException("42704", "constraint \"" + String.join(".", name) + "\" does not exist", c.pos());
                for (CatalogItem.ForeignKey f : found) {
                    if (!f.deferrable()) throw new SqlException("42809", "constraint \"" + f.name() + "\" is not deferrable", c.pos());
                    session.constraintModes.put(f.id(), c.deferred());
                }
            }
        }
        if (!c.deferred()) writes.checkDeferred(session);
        return Result.command("SET CONSTRAINTS");
    }

    /** REFRESH MATERIALIZED VIEW: Tributary's are maintained, so there is nothing to do once the name is checked. */
    private Result refresh(Session session, Statement.Refresh r) {
        String name = r.name().get(r.name().size() - 1);
        CatalogItem item = catalog.find(r.name(), session, r.pos());
        if (item == null) throw new SqlException("42P01", "relation \"" + String.join(".", r.name()) + "\" does not exist", r.pos());
        if (!(item instanceof CatalogItem.MaterializedView)) throw new SqlException("0A000", "\"" + name + "\" is not a materialized view", r.pos());
        access.checkSelect(session, java.util.Set.of(item.id()));
        return Result.command("REFRESH MATERIALIZED VIEW");
    }

    private static Notice noTransaction() {
        return new Notice("WARNING", "25P01", "there is no transaction in progress");
    }

    // ------------------------------------------------------------------ roles

    Roles roles() {
        return roles;
    }

    /**
     * What the options of CREATE/ALTER ROLE ask for: {@code login} null when not given;
     * {@code setsPassword} when PASSWORD was given, with its verifier (null for PASSWORD NULL or '').
     */
    private record RoleChange(Roles.Attributes attributes, boolean setsPassword, dev.tributary.server.auth.ScramVerifier verifier, Result result) {}

    private RoleChange roleChange(List<Statement.RoleOption> options, Roles.Attributes start, String tag) {
        Roles.Attributes a = start;
        boolean setsPassword = false;
        String password = null;
        for (Statement.RoleOption o : options) {
            switch (o) {
                case Statement.RoleOption.Login l -> a = a.with("login", l.login());
                case Statement.RoleOption.Attribute at -> a = a.with(at.name(), at.value());
                case Statement.RoleOption.Password p -> {
                    setsPassword = true;
                    password = p.password();
                }
            }
        }
        Result r = Result.command(tag);
        if (password != null && password.isEmpty()) {
            r = r.withNotice(Notice.notice("00000", "empty string is not a valid password, clearing password"));
            password = null;
        }
        return new RoleChange(a, setsPassword, password == null ? null : roles.verifierOf(password), r);
    }

    private Result createRole(Session session, Statement.CreateRole c) {
        RoleChange change = roleChange(c.options(), Roles.Attributes.defaults(c.user()), "CREATE ROLE");
        access.checkCreateRole(session, change.attributes());
        roles.create(c.name(), change.attributes(), change.verifier());
        access.recordRole(c.name());
        return change.result();
    }

    private Result alterRole(Session session, Statement.AlterRole a) {
        Roles.Role target = roles.find(a.name()).orElseThrow(() -> Roles.notFound(a.name()));
        access.checkAlterRole(session, a.name(), target, a.options());
        RoleChange change = roleChange(a.options(), target.attributes(), "ALTER ROLE");
        roles.alter(a.name(), change.attributes());
        if (change.setsPassword()) roles.alter(a.name(), null, true, change.verifier());
        access.recordRole(a.name());
        return change.result();
    }

    /** DROP OWNED BY roles: their objects dropped together (others' objects that read them only with CASCADE), then every privilege granted to them revoked. */
    private Result dropOwned(Session session, Statement.DropOwned d) {
        List<CatalogItem> owned = access.ownedBy(session, d.roles());
        Set<Long> ownedIds = new HashSet<>();
        for (CatalogItem item : owned) ownedIds.add(item.id());
        List<Long> reached = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (CatalogItem item : owned) catalog.collect(item.id(), seen, reached);
        List<String> others = new ArrayList<>();
        for (long id : reached) {
            CatalogItem dep = catalog.get(id);
            if (!ownedIds.contains(id) && !(dep instanceof CatalogItem.Index)) others.add(dep.kind() + " " + dep.name());
        }
        if (!others.isEmpty() && !d.cascade()) {
            // checked before anything is dropped: the statement drops all it names or nothing
            throw new SqlException("2BP01", "cannot drop desired object(s) because other objects depend on them", d.pos(),
                    "Use DROP ... CASCADE to drop the dependent objects too.");
        }
        Result result = Result.command("DROP OWNED");
        if (others.size() == 1) result = result.withNotice(Notice.notice("00000", "drop cascades to " + others.get(0)));
        else if (others.size() > 1) result = result.withNotice(Notice.notice("00000", "drop cascades to " + others.size() + " other objects")
                .withDetail(String.join("\n", others.stream().map(o -> "drop cascades to " + o).toList())));
        for (CatalogItem item : owned) {
            if (!catalog.contains(item.id())) continue; // gone with one dropped before it
            Statement.ObjectKind kind = switch (item) {
                case CatalogItem.Table t -> Statement.ObjectKind.TABLE;
                case CatalogItem.View v -> Statement.ObjectKind.VIEW;
                case CatalogItem.MaterializedView m -> Statement.ObjectKind.MATERIALIZED_VIEW;
                case CatalogItem.Index i -> Statement.ObjectKind.INDEX;
                case CatalogItem.ForeignKey f -> throw new IllegalStateException("a foreign key is its table's, not a role's");
                case CatalogItem.Sequence q -> Statement.ObjectKind.SEQUENCE;
                case CatalogItem.SystemRelation r -> throw new IllegalStateException("system relations are owned by no role");
            };
            ddl.drop(session, new Statement.Drop(d.pos(), kind, false, List.of(List.of(item.name())), true));
        }
        access.revokeAllFrom(d.roles());
        return result;
    }

    private Result dropRole(Session session, Statement.DropRole d) {
        access.checkMayDropRoles(session);
        Result r = Result.command("DROP ROLE");
        for (String name : d.names()) {
            if (roles.find(name).isEmpty()) {
                if (!d.ifExists()) throw Roles.notFound(name);
                r = r.withNotice(Notice.notice("00000", "role \"" + name + "\" does not exist, skipping"));
                continue;
            }
            access.checkDropRole(session, name);
        }
        for (String name : d.names()) {
            List<String> members = new ArrayList<>();
            for (Roles.Membership m : roles.memberships()) if (m.role().equals(name)) members.add(m.member());
            if (roles.drop(name)) access.roleDropped(name, members);
        }
        return r;
    }

    // ------------------------------------------------------------------ SET, SHOW

    private Result set(Session session, Statement.Set s) {
        String key = s.name().toLowerCase(java.util.Locale.ROOT);
        if (key.equals("all") && s.values().isEmpty()) {
            // RESET ALL: every setting back to its default (the role is SET ROLE's, reset by RESET ROLE)
            session.resetSettings();
            return Result.command("RESET");
        }
        Optional<Settings.Setting> setting = Settings.find(key);
        if (setting.isEmpty() && !Settings.isCustom(key)) throw Settings.unrecognized(s.name(), 0);
        if (s.values().isEmpty()) {
            // SET x TO DEFAULT
            if (setting.isPresent() && !setting.get().settable()) Settings.validate(setting.get(), "", 0);
            if (session.sessionDefaults.containsKey(key)) session.settings.put(key, session.sessionDefaults.get(key));
            else session.settings.remove(key);
            return Result.command("SET");
        }
        List<String> parts = new ArrayList<>();
        for (Expr v : s.values()) {
            Object value = binders.plain().constant(v, SqlType.TEXT);
            if (value == null) throw new SqlException("22023", "parameter \"" + s.name() + "\" requires a value", s.pos());
            // each of search_path's values is one schema's name, whatever it holds
            parts.add(key.equals("search_path") ? dev.tributary.sql.parser.SqlFormatter.ident(value.toString()) : value.toString());
        }
        String text = String.join(", ", parts);
        session.settings.put(key, setting.isPresent() ? Settings.validate(setting.get(), text, 0) : text);
        return Result.command("SET");
    }

    private Result showSetting(Session session, Statement.Show s) {
        String name = String.join(".", s.target());
        if (name.equals("all")) {
            List<Object[]> rows = new ArrayList<>();
            for (Settings.Setting x : Settings.all()) {
                rows.add(new Object[] {x.name(), session.settings.getOrDefault(x.name().toLowerCase(java.util.Locale.ROOT), x.bootValue()), x.description()});
            }
            return new Result("SHOW", List.of("name", "setting", "description"), List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TEXT), rows);
        }
        String key = name.toLowerCase(java.util.Locale.ROOT);
        Optional<Settings.Setting> setting = Settings.find(key);
        String value = switch (key) {
            // who the session is, as PostgreSQL shows it (SET ROLE and SET SESSION AUTHORIZATION change them)
            case "role" -> session.settings.getOrDefault("role", "none");
            case "session_authorization" -> session.sessionUser();
            case "is_superuser" -> roles.isSuperuser(session.currentUser()) ? "on" : "off";
            default -> session.settings.get(key);
        };
        if (value == null && setting.isEmpty()) throw Settings.unrecognized(name, 0);
        if (value == null) value = setting.get().bootValue();
        String column = setting.map(Settings.Setting::name).orElse(key);
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {value});
        return new Result("SHOW", List.of(column), List.of(SqlType.TEXT), rows);
    }

    /** {@code item}'s name as SHOW lists it: bare when the session's search path finds it by that name, qualified otherwise. */
    private String shown(Session session, CatalogItem item) {
        return catalog.find(List.of(item.name()), session, 0) == item ? item.name()
                : dev.tributary.sql.parser.SqlFormatter.ident(catalog.schemaOf(item.id())) + "." + dev.tributary.sql.parser.SqlFormatter.ident(item.name());
    }

    private Result show(Session session, Statement.Show s) {
        List<Object[]> rows = new ArrayList<>();
        return switch (s.kind()) {
            case SOURCES -> showSources(session);
            case SINKS -> showSinks(session);
            case JOBS -> showJobs(session);
            case TABLES, VIEWS, MATERIALIZED_VIEWS -> {
                String kind = s.kind() == Statement.ShowKind.TABLES ? "table" : s.kind() == Statement.ShowKind.VIEWS ? "view" : "materialized view";
                for (CatalogItem item : catalog.inNameOrder()) if (item.kind().equals(kind)) rows.add(new Object[] {shown(session, item)});
                rows.sort(java.util.Comparator.comparing(r -> (String) r[0]));
                yield new Result("SHOW", List.of("name"), List.of(SqlType.TEXT), rows);
            }
            case INDEXES -> {
                CatalogItem on = s.target().isEmpty() ? null : catalog.find(s.target(), session, s.pos());
                if (on == null && !s.target().isEmpty()) throw new SqlException("42P01", "relation \"" + String.join(".", s.target()) + "\" does not exist", s.pos());
                for (CatalogItem item : catalog.inNameOrder()) {
                    if (item instanceof CatalogItem.Index ix && (on == null || ix.on() == on.id())) {
                        List<String> keys = new ArrayList<>();
                        List<String> cols = new ArrayList<>();
                        for (Column c : catalog.get(ix.on()).columns()) cols.add(c.name());
                        for (ScalarExpr k : ix.keys()) keys.add(k.describe(cols));
                        rows.add(new Object[] {shown(session, ix), shown(session, catalog.get(ix.on())), String.join(", ", keys)});
                    }
                }
                yield new Result("SHOW", List.of("name", "on", "key"), List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TEXT), rows);
            }
            case COLUMNS -> {
                String name = String.join(".", s.target());
                CatalogItem item = catalog.find(s.target(), session, s.pos());
                if (item == null || item instanceof CatalogItem.Index) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", s.pos());
                for (Column c : item.columns()) rows.add(new Object[] {c.name(), c.nullable(), c.type().toString()});
                yield new Result("SHOW", List.of("name", "nullable", "type"), List.of(SqlType.TEXT, SqlType.BOOLEAN, SqlType.TEXT), rows);
            }
            case CREATE_TABLE, CREATE_VIEW, CREATE_MATERIALIZED_VIEW -> {
                String name = String.join(".", s.target());
                CatalogItem item = catalog.find(s.target(), session, s.pos());
                String kind = s.kind() == Statement.ShowKind.CREATE_TABLE ? "table" : s.kind() == Statement.ShowKind.CREATE_VIEW ? "view" : "materialized view";
                if (item == null) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", s.pos());
                if (!item.kind().equals(kind)) throw new SqlException("42809", "\"" + name + "\" is not a " + kind, s.pos());
                String text = switch (item) {
                    case CatalogItem.Table t -> t.sql();
                    case CatalogItem.View v -> v.sql();
                    case CatalogItem.MaterializedView m -> m.sql();
                    case CatalogItem.Index i -> i.sql();
                    case CatalogItem.ForeignKey f -> f.sql();
                    case CatalogItem.Sequence q -> q.sql();
                    case CatalogItem.SystemRelation r -> throw new IllegalStateException("system relations are not in the user catalog");
                };
                rows.add(new Object[] {name, text});
                yield new Result("SHOW", List.of("name", "create_sql"), List.of(SqlType.TEXT, SqlType.TEXT), rows);
            }
            case VARIABLE -> showSetting(session, s);
        };
    }

    private Result advanceClock(Statement.AdvanceClock a) {
        if (!(oracle.clock() instanceof Clock.Manual manual)) {
            throw new SqlException("55000", "ADVANCE CLOCK needs the manual clock; this database runs on the wall clock", a.pos(),
                    "Start it with --clock manual.");
        }
        long to;
        if (a.to()) {
            to = binders.plain().systemTime(a.value(), "ADVANCE CLOCK TO");
        } else {
            Interval i = (Interval) binders.plain().constant(a.value(), SqlType.INTERVAL);
            if (i.months() != 0) throw new SqlException("22023", "ADVANCE CLOCK BY takes days, hours, minutes and seconds, not months", a.pos());
            to = manual.now() + i.days() * 86_400_000L + Math.floorDiv(i.micros(), 1000);
        }
        manual.advanceTo(to);
        // the manual clock's introspection is sampled every time it is moved, at its new time
        // itself, before the tick completes the inputs through it (so the sample takes no time
        // a later write would have had)
        if (introspectionIntervalMillis > 0) sampleIntrospection();
        tick();
        return Result.command("ADVANCE CLOCK");
    }

    /**
     * Starts a subscription to {@code sql}: {@code SUBSCRIBE name}, {@code SUBSCRIBE (query)}, or
     * {@code SELECT ... EMIT CHANGES}.
     */
    synchronized Subscription subscribe(Session session, String sql, Subscription.Listener listener) {
        List<Statement> statements = Parser.parse(sql);
        if (statements.size() != 1) throw new SqlException("42601", "subscribe takes exactly one statement, got " + statements.size());
        return subscribe(session, statements.get(0), listener);
    }

    /** Starts a subscription to {@code st}: a SUBSCRIBE or a SELECT ... EMIT CHANGES. */
    synchronized Subscription subscribe(Session session, Statement st, Subscription.Listener listener) {
        return subscriptions.subscribe(session, st, listener);
    }

    /** The number of subscriptions running (COPY streams and cursors included). */
    synchronized int subscriptions() {
        return subscriptions.count();
    }

    private java.util.concurrent.ScheduledExecutorService ticker;

    /**
     * On the wall clock, moves every table's upper forward with the clock even without writes:
     * every 50 ms while anyone subscribes (so changes are delivered promptly), every second
     * otherwise.
     */
    private void startTicker() {
        if (ticker != null || !(oracle.clock() instanceof Clock.Wall)) return;
        ticker = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tributary-clock");
            t.setDaemon(true);
            return t;
        });
        long[] ticks = {0};
        ticker.scheduleAtFixedRate(() -> {
            synchronized (this) {
                if (closed) return;
                // counted apart from the test for subscribers: a subscriber once kept the count
                // (and with it every periodic checkpoint) from moving
                boolean second = ++ticks[0] % 20 == 0;
                try {
                    long interval = introspectionIntervalMillis;
                    long now = oracle.clock().now();
                    if (interval > 0 && now - lastSample >= interval) {
                        // before the tick, which then completes the sample's time at once
                        lastSample = now;
                        sampleIntrospection();
                    }
                    if (subscriptions.count() > 0 || second) tick();
                    if (second) checkpointIfDue();
                } catch (RuntimeException e) {
                    // a periodic task that throws is never run again: the clock would stop for good, and silently
                    ServerLog.error("the clock's tick failed (it ticks again in 50 ms): " + e, e);
                }
            }
        }, 50, 50, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Advances every table with the clock, so maintained views and subscribers see time pass. */
    void tick() {
        // the inputs move with the clock, but no read is promised at the new time: point reads go
        // on at the time the indexes have reached until they reach this one
        advanceAll(oracle.advanceTime());
    }

    /** Completes every table through {@code now} (moves them to {@code now + 1}), then lets history go up to {@code now} as the holds allow. */
    private void advanceAll(long now) {
        Map<Long, Long> holds = catalog.holds(now);
        durability.holdTables(holds, catalog);
        frontiers.compacted(now);
        frontiers.advancedAll(now + 1);
        compute.tick(now, holds);
        subscriptions.endFailed();
    }

    private boolean closed;

    @Override
    public void close() {
        // first, without the lock: a source's runner or a job may be waiting for it to commit
        sources.stopAll(SOURCE_STOP_MILLIS);
        sinks.stopAll();
        jobs.stopAll(SOURCE_STOP_MILLIS);
        closeLocked();
    }

    private static final long SOURCE_STOP_MILLIS = 10_000;

    private synchronized void closeLocked() {
        if (retentionThread != null) retentionThread.interrupt();
        if (!closed && storage != null && durability.changedSinceCheckpoint()) {
            // a shutdown checkpoint, as PostgreSQL takes one: the next start replays nothing
            try {
                checkpoint().get(SHUTDOWN_CHECKPOINT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                ServerLog.log("no checkpoint at shutdown (the next start replays the log after the latest one): " + e);
            }
        }
        closed = true;
        if (ticker != null) ticker.shutdownNow();
        if (checkpointWriter != null) checkpointWriter.shutdownNow();
        try {
            compute.close();
        } finally {
            if (storage != null) storage.close();
        }
    }

    // ------------------------------------------------------------------ sources

    private final Sources sources = new Sources();

    /** Starts the sources, sinks and jobs made by the statement (or the recovery) that just ended, at their committed positions. */
    private void startSources() {
        sources.startPending(this::committedPositions, s -> (rows, changes, before, after) -> ingest(s, rows, changes, before, after));
        sinks.startPending(this::startHttpSink);
        for (Jobs.Job j : jobs.takePending()) startJob(j);
        for (RowRetention.Retained r : rowRetention.takePending()) startRetention(r);
    }

    // ------------------------------------------------------------------ row retention

    private final RowRetention rowRetention = new RowRetention();
    /** Deletions of retained tables' rows, in order, for {@link #retentionThread}: (table id, rows by count). */
    private final java.util.concurrent.LinkedBlockingQueue<Object[]> expired = new java.util.concurrent.LinkedBlockingQueue<>();
    private Thread retentionThread;

    /** Starts deleting table {@code r}'s rows as their time comes, or as newer rows push them out (under the lock). */
    private void startRetention(RowRetention.Retained r) {
        if (retentionThread == null) {
            retentionThread = Thread.ofPlatform().daemon().name("tributary-row-retention").start(this::deleteExpired);
        }
        Session session = new Session();
        dev.tributary.sql.row.RowCodec codec = new dev.tributary.sql.row.RowCodec(Binder.typesOf(((CatalogItem.Table) catalog.get(r.id())).columns()));
        RowRetention.NewestRows newest = rowRetention.newest(r.id());
        if (newest != null) newest.following(oracle.readTime());
        subscriptions.subscribe(session, Parser.parseStatement(RowRetention.expiring(r, compute.since(r.id()))), new Subscription.Listener() {
            @Override
            public void onChanges(Result batch) {
                if (newest != null) {
                    if (batch.rows().isEmpty()) return;
                    Map<Row, Long> changes = new LinkedHashMap<>();
                    for (Object[] row : batch.rows()) changes.merge(codec.encode(java.util.Arrays.copyOfRange(row, 2, row.length)), (Long) row[1], Long::sum);
                    Map<Row, Long> beyond = newest.changed(((java.time.Instant) batch.rows().get(0)[0]).toEpochMilli(), changes);
                    if (!beyond.isEmpty()) expired.add(new Object[] {r.id(), beyond});
                    return;
                }
                Map<Row, Long> rows = new HashMap<>();
                for (Object[] row : batch.rows()) {
                    long diff = (Long) row[1];
                    // a deletion's own expiry comes back too: only insertions are deleted
                    if (diff > 0) rows.merge(codec.encode(java.util.Arrays.copyOfRange(row, 2, row.length)), -diff, Long::sum);
                }
                if (!rows.isEmpty()) expired.add(new Object[] {r.id(), rows});
            }

            @Override
            public void onError(SqlException error) {
                ServerLog.log("the deletion of table " + r.name() + "'s rows stopped: " + error.getMessage());
            }
        });
    }

    /** The retention thread: deletes expired rows, one commit per batch, for as long as the server runs. */
    @SuppressWarnings("unchecked")
    private void deleteExpired() {
        while (true) {
            Object[] e;
            try {
                e = expired.take();
            } catch (InterruptedException stop) {
                return;
            }
            try {
                deleteExpired((Long) e[0], (Map<Row, Long>) e[1]);
            } catch (RuntimeException failure) {
                ServerLog.error("the deletion of expired rows of table " + e[0] + " failed: " + failure, failure);
            }
        }
    }

    private synchronized void deleteExpired(long table, Map<Row, Long> rows) {
        if (closed || rowRetention.get(table) == null) return;
        Map<Long, Map<Row, Long>> change = new HashMap<>();
        change.put(table, rows);
        writes.commitBlock(change, false);
    }

    // ------------------------------------------------------------------ HTTP sinks

    private final Sinks sinks = new Sinks();

    /**
     * Starts sink {@code s}: a subscription to its query after the time its table says was
     * acknowledged ({@code WITH (SNAPSHOT = false) AS OF t}; the sink holds the history of what it
     * reads from that time), or from a snapshot when it has none, or should the history not reach
     * back to it all the same (the sink's first batch then says it is a snapshot), delivered by an
     * {@link dev.tributary.server.sink.HttpSink}. A query that no longer binds stops the sink
     * (its state says why).
     */
    private void startHttpSink(Sinks.Sink s) {
        Map<String, String> state;
        try {
            state = parts(s.table);
        } catch (RuntimeException e) {
            // a table of the layout before pause (one timestamptz column) does not read as (part, position)
            s.reads = Set.of();
            s.stopped = "failed: its table does not read as (part, position): " + e.getMessage();
            ServerLog.error("sink " + s.table.name() + " could not start: its table does not read as (part, position); DROP SINK and CREATE SINK again", e);
            return;
        }
        Long acknowledged = state.containsKey("acknowledged") ? Long.valueOf(state.get("acknowledged")) : null;
        if (acknowledged != null) s.acknowledged = acknowledged;
        s.paused = state.containsKey("paused");
        s.stopped = null;
        Session session = sinkSession(s);
        Ddl.SinkQuery bound;
        try {
            bound = ddl.bindSinkQuery(session, s.statement);
        } catch (SqlException e) {
            s.reads = Set.of();
            s.stopped = "failed: " + e.getMessage() + " [" + e.sqlState() + "]";
            ServerLog.log("sink " + s.table.name() + " could not start: " + e.getMessage());
            return;
        }
        SqlException denied = denied(session, bound);
        Set<Long> stored = new HashSet<>();
        for (long id : dev.tributary.sql.plan.Plans.reads(bound.query().plan())) storedReads(id, stored);
        s.reads = Set.copyOf(stored);
        // held from there on: this run resumes there, and so does the next one until a later time
        // is durable; without one, from the present, which the snapshot's time is not before, so
        // that its acknowledgement is a time the history still reaches
        s.hold = acknowledged != null ? acknowledged : oracle.readTime();
        durability.holdTables(catalog.holds(oracle.readTime()), catalog);
        // paused: it holds what it reads from its last acknowledged time, and RESUME starts it there
        if (s.paused) return;
        if (denied != null) {
            // so does a sink whose owner may not read what it reads: a GRANT starts it there
            stopForAccess(s, denied);
            return;
        }
        s.denied = false;
        var delivery = new dev.tributary.server.sink.HttpSink(s.table.name(), s.url, httpSinkOptions(s), acknowledged == null,
                at -> sinkAcknowledged(s, at), ServerLog::log);
        Subscription sub = null;
        if (acknowledged != null) {
            try {
                sub = subscribeHttpSink(s, acknowledged, delivery);
            } catch (SqlException e) {
                if (!e.sqlState().equals("72000")) {
                    stopHttpSink(s, e);
                    return;
                }
                ServerLog.log("sink " + s.table.name() + " cannot resume after its last acknowledged time (" + e.getMessage()
                        + "): it starts over with a snapshot, marked as one");
                delivery = new dev.tributary.server.sink.HttpSink(s.table.name(), s.url, httpSinkOptions(s), true, at -> sinkAcknowledged(s, at), ServerLog::log);
            }
        }
        if (sub == null) sub = subscribeHttpSink(s, null, delivery);
        s.subscription = sub;
        s.feed = 0;
        s.delivery = delivery.backlog(backlog(s, delivery)).start();
    }

    /**
     * What sink {@code s} does when {@code delivery}'s queue passes its bound (its receiver is away
     * or slow): it lets go of its subscription, and once the receiver has taken what is queued it
     * subscribes again after the last acknowledged time, which it holds the history from (a
     * stopped, paused, dropped or restarted sink does nothing).
     */
    private dev.tributary.server.sink.HttpSink.Backlog backlog(Sinks.Sink s, dev.tributary.server.sink.HttpSink delivery) {
        return new dev.tributary.server.sink.HttpSink.Backlog() {
            @Override
            public void behind(int feed) {
                // on a worker, which must not wait for its own subscription to close
                Thread.ofVirtual().name("sink " + s.table.name() + " behind").start(() -> {
                    synchronized (Coordinator.this) {
                        if (s.feed != feed || s.delivery != delivery || s.subscription == null) return;
                        s.subscription.close();
                        s.subscription = null;
                    }
                });
            }

            @Override
            public void drained(long acknowledged) {
                synchronized (Coordinator.this) {
                    if (closed || sinks.ofTable(s.table.id()) != s || s.delivery != delivery || s.paused) return;
                    if (s.subscription != null) s.subscription.close();
                    s.subscription = null;
                    try {
                        Subscription.Listener feed = delivery.feed();
                        s.feed = delivery.currentFeed();
                        s.subscription = subscribeHttpSink(s, acknowledged, feed);
                    } catch (SqlException e) {
                        stopHttpSink(s, e);
                    }
                }
            }
        };
    }

    /** Sink {@code s} cannot go on ({@code why}): its delivery stops, the error logged and shown in SHOW SINKS. */
    private void stopHttpSink(Sinks.Sink s, SqlException why) {
        // a privilege it lacks: a GRANT resumes it (checkSinksAccess)
        if (why.sqlState().equals("42501")) s.denied = true;
        s.stopped = "stopped: " + why.getMessage() + " [" + why.sqlState() + "]";
        ServerLog.error("sink " + s.table.name() + " stopped: " + why.getMessage(), null);
        sinks.stop(s);
    }

    private static dev.tributary.server.sink.HttpSink.Options httpSinkOptions(Sinks.Sink s) {
        return dev.tributary.server.sink.HttpSink.Options.defaults().withMaxQueuedBytes(s.maxQueuedBytes);
    }

    /**
     * The session an HTTP sink reads in: its search path, and its owner as the current user, so
     * that what it reads is checked against its owner's privileges each time it subscribes (as
     * PostgreSQL checks a view owner's at each use), and again after each change of privileges
     * ({@link #checkSinksAccess}).
     */
    private Session sinkSession(Sinks.Sink s) {
        Session session = sinkSession(s.searchPath);
        session.settings.put("role", access.owner(s.table.id()));
        return session;
    }

    /** The 42501 error reading {@code bound} would raise in {@code session}, or null when it may read it. */
    private SqlException denied(Session session, Ddl.SinkQuery bound) {
        try {
            access.checkSelect(session, bound.binder().dependencies());
            return null;
        } catch (SqlException e) {
            return e;
        }
    }

    /** The privileges this server's HTTP sinks were last checked at ({@link #checkSinksAccess}). */
    private long sinksAccessVersion = -1;

    /**
     * After a statement that changed privileges (a REVOKE, a GRANT, an owner or role change):
     * each running HTTP sink whose owner may no longer read what it reads stops (an error logged,
     * its state in SHOW SINKS), holding its history from its last acknowledged time; each sink so
     * stopped whose owner may read again is resumed there, so the receiver misses nothing.
     */
    private void checkSinksAccess() {
        long version = access.version();
        if (version == sinksAccessVersion) return;
        sinksAccessVersion = version;
        for (Sinks.Sink s : sinks.all()) {
            if (s.paused || s.reads == null || (s.stopped != null && !s.denied)) continue;
            SqlException denied;
            try {
                Session session = sinkSession(s);
                denied = denied(session, ddl.bindSinkQuery(session, s.statement));
            } catch (SqlException e) {
                continue; // what it reads no longer binds: its subscription tells it when it matters
            }
            if (denied != null && !s.denied) {
                stopForAccess(s, denied);
            } else if (denied == null && s.denied) {
                ServerLog.log("sink " + s.table.name() + ": its owner may read what it reads again; it resumes after its last acknowledged time");
                s.denied = false;
                s.stopped = null;
                sinks.resume(s);
            }
        }
    }

    /** Sink {@code s}'s owner may not read what it reads ({@code why}, 42501): it stops, and a GRANT resumes it. */
    private void stopForAccess(Sinks.Sink s, SqlException why) {
        stopHttpSink(s, new SqlException(why.sqlState(), "its owner " + access.owner(s.table.id()) + " may not read what it reads: " + why.getMessage()));
    }

    /** A session as sink or job statements are bound in: the search path they were made with. */
    private static Session sinkSession(String searchPath) {
        Session session = new Session();
        if (!searchPath.isEmpty()) session.settings.put("search_path", searchPath);
        return session;
    }

    /** Subscribes sink {@code s}'s delivery (listener) to its query after {@code acknowledged}, or from a snapshot when null. */
    private Subscription subscribeHttpSink(Sinks.Sink s, Long acknowledged, Subscription.Listener listener) {
        Statement.CreateSink c = s.statement;
        Statement.Subscribe st = new Statement.Subscribe(c.pos(), c.from(), c.query(),
                acknowledged == null ? null : new dev.tributary.sql.ast.Expr.IntegerLiteral(c.pos(), acknowledged), null, acknowledged == null, false, null);
        return subscriptions.subscribe(sinkSession(s), st, listener);
    }

    /** The stored collections (tables, materialized views) that relation {@code id} is or reads, transitively, into {@code out}. */
    private void storedReads(long id, Set<Long> out) {
        switch (catalog.get(id)) {
            case CatalogItem.Table t -> out.add(id);
            case CatalogItem.MaterializedView m -> {
                if (out.add(id)) for (long r : dev.tributary.sql.plan.Plans.reads(m.plan())) storedReads(r, out);
            }
            case CatalogItem.View v -> {
                for (long r : dev.tributary.sql.plan.Plans.reads(v.plan())) storedReads(r, out);
            }
            case null, default -> { }
        }
    }

    /**
     * Sink {@code s}'s receiver acknowledged everything through {@code at}: its table's
     * {@code acknowledged} part moves there (not waited for: a time lost in a crash is sent again).
     */
    private synchronized void sinkAcknowledged(Sinks.Sink s, long at) {
        if (closed || sinks.ofTable(s.table.id()) != s) return;
        Map<Row, Long> moved = movedPart("acknowledged", parts(s.table).get("acknowledged"), Long.toString(at));
        if (moved.isEmpty()) return;
        Map<Long, Map<Row, Long>> block = new java.util.LinkedHashMap<>();
        block.put(s.table.id(), moved);
        writes.commitBlock(block, false);
        s.acknowledged = at;
        // the hold moves only once the time is durable: a restart resumes at the durable one
        java.util.concurrent.CompletableFuture<Void> durable = storage == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : storage.appended();
        durable.thenRun(() -> s.hold = at);
    }

    // ------------------------------------------------------------------ INSERT INTO FUNCTION url

    /**
     * {@code INSERT INTO FUNCTION url('...') query}, a statement of {@code session} that holds the
     * coordinator only to start: over a STREAM, the query's changes POSTed as an HTTP sink posts
     * them (same bodies, idempotency keys and retries) until the client cancels (57014), the
     * statement times out, or what it reads is dropped ({@code INSERT 0 n}, the changes
     * acknowledged); otherwise the query's result POSTed once, as one batch of insertions at the
     * read's time ({@code INSERT 0 n}, its rows). At least once while it runs: nothing is kept
     * for after it, so the receiver may miss what was unacknowledged at a cancel; CREATE JOB ...
     * AS INSERT INTO FUNCTION url is the durable form (an HTTP sink). Outside transaction blocks
     * (25001), as CREATE SINK: what a receiver took cannot be taken back.
     */
    private Result insertIntoUrl(Session session, Statement.InsertIntoUrl u) {
        if (session.inBlock()) {
            throw new SqlException("25001", "INSERT INTO FUNCTION url cannot run inside a transaction block", u.pos(),
                    "What the receiver took cannot be taken back by a ROLLBACK; run it outside the block.");
        }
        java.net.URI uri = dev.tributary.server.sink.HttpSink.receiver(u.url(), u.pos());
        // the keys' prefix: random, so that no later statement's keys repeat this one's at a receiver that keeps them
        String name = String.format("insert-%016x", new java.security.SecureRandom().nextLong());
        var delivery = new dev.tributary.server.sink.HttpSink(name, uri, dev.tributary.server.sink.HttpSink.Options.defaults(), true, at -> {}, ServerLog::log);
        Subscription sub = null;
        long rows = 0;
        synchronized (this) {
            catalog.acting(session);
            try {
                access.checkConnect(session, "post to a URL", u.pos());
                if (u.continuous()) {
                    sub = subscriptions.subscribe(session, new Statement.QueryStatement(u.pos(), u.source(), null, true), delivery);
                } else {
                    Binder binder = binders.of(session);
                    BoundQuery bound = binder.bindQuery(u.source());
                    access.checkSelect(session, binder.dependencies());
                    long at = oracle.readTime();
                    Result result = reads.query(session, bound);
                    rows = result.rows().size();
                    delivery.onChanges(insertions(result, at));
                    delivery.onDone();
                }
            } finally {
                catalog.acting(null);
            }
        }
        session.aboutToWait();
        session.waitingOn = delivery;
        try {
            delivery.start();
            delivery.awaitEnd(() -> {
                SqlException stop = session.stop();
                if (stop != null || u.continuous()) return stop;
                // a one-off statement's client waits for it: after a few attempts it is an error, not a wait without end
                var status = delivery.status();
                if (status.failures() < ONE_OFF_POST_ATTEMPTS) return null;
                return new SqlException("08001", "could not post to " + uri + " after " + status.failures() + " attempts: " + status.lastError(), u.pos(),
                        "Nothing is kept to send again: run the statement again once the receiver answers (it may have taken some of the rows:"
                                + " their Idempotency-Key tells repeats), or CREATE SINK ... INTO HTTP for a delivery retried until it is taken.");
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Session.canceled();
        } finally {
            session.waitingOn = null;
            if (sub != null) sub.close();
            // the statement ends now: a request in flight may take its timeout to give up, and the client's close waits for it
            delivery.stop();
            Thread.ofVirtual().name(name + " close").start(delivery::close);
        }
        return Result.command("INSERT 0 " + (u.continuous() ? delivery.status().changesAcknowledged() : rows));
    }

    /** How many times a one-off INSERT INTO FUNCTION url (without STREAM) tries its receiver before it fails (the pauses between: 0.1 to 0.8 s). */
    static final int ONE_OFF_POST_ATTEMPTS = 5;

    /** A query's {@code result} read at {@code at} as one subscription batch of insertions (change_time, change_diff, the columns). */
    private static Result insertions(Result result, long at) {
        List<String> columns = new ArrayList<>(List.of("change_time", "change_diff"));
        columns.addAll(result.columns());
        List<SqlType> types = new ArrayList<>(List.of(SqlType.TIMESTAMPTZ, SqlType.BIGINT));
        types.addAll(result.types());
        java.time.Instant time = java.time.Instant.ofEpochMilli(at);
        List<Object[]> rows = new ArrayList<>(result.rows().size());
        for (Object[] r : result.rows()) {
            Object[] change = new Object[r.length + 2];
            change[0] = time;
            change[1] = 1L;
            System.arraycopy(r, 0, change, 2, r.length);
            rows.add(change);
        }
        return new Result("SUBSCRIBE", columns, types, rows);
    }

    // ------------------------------------------------------------------ jobs

    private final Jobs jobs = new Jobs();

    /** The parts and positions of a job's relation. */
    private Map<String, String> jobState(Jobs.Job j) {
        return parts(j.item);
    }

    /** The parts and positions of a job's or sink's relation {@code (part, position)}. */
    private Map<String, String> parts(CatalogItem.Table t) {
        List<SqlType> types = Binder.typesOf(t.columns());
        Map<String, String> out = new java.util.TreeMap<>();
        for (Object[] r : reads.rowsOf(new Session(), new Plan.Get(t.id(), t.name(), types, true), types)) out.put((String) r[0], (String) r[1]);
        return out;
    }

    private static final dev.tributary.sql.row.RowCodec PARTS = new dev.tributary.sql.row.RowCodec(List.of(SqlType.TEXT, SqlType.TEXT));

    /**
     * The change to a relation {@code (part, position)} that moves {@code part} from {@code before}
     * (null: absent) to {@code after} (null: gone); empty when they are the same.
     */
    private static Map<Row, Long> movedPart(String part, String before, String after) {
        Map<Row, Long> moved = new HashMap<>();
        if (before != null) moved.put(PARTS.encode(part, before), -1L);
        if (after != null) moved.merge(PARTS.encode(part, after), 1L, Long::sum);
        moved.values().removeIf(n -> n == 0);
        return moved;
    }

    /**
     * Starts job {@code j} (under the lock): unless paused, its query subscribed to after its
     * durable cursor (from its STREAMs' start before the first), its history held from there,
     * and its thread.
     */
    private void startJob(Jobs.Job j) {
        if (j.sink != null) {
            startKafkaSink(j);
            return;
        }
        Session session = sinkSession(j.searchPath);
        Binder binder;
        Binder.InsertSource in;
        try {
            binder = binders.of(session).allowStreams().maintaining();
            Statement.Insert ins = j.statement.insert();
            CatalogItem.Table target = catalog.table(ins.table(), session, ins.pos(), "insert into");
            in = binder.bindInsertSource(target, ins, true);
            j.bind(target, in.targets().stream().mapToInt(Integer::intValue).toArray(), dev.tributary.sql.plan.Plans.anyNode(in.plan(), p -> p instanceof Plan.EventTime),
                    dev.tributary.sql.plan.Plans.reads(in.plan()));
        } catch (SqlException e) {
            j.bind(null, new int[0], true, Set.of());
            j.state = "failed: " + e.getMessage() + " [" + e.sqlState() + "]";
            ServerLog.log("job " + j.item.name() + " could not start: " + e.getMessage());
            return;
        }
        Map<String, String> state = jobState(j);
        String at = state.get("cursor");
        j.cursor = at == null ? Long.MIN_VALUE : Long.parseLong(at);
        if (!j.eventTime) {
            // what it reads is kept from its cursor on (paused too: it resumes there); before the
            // first cursor, a restart starts again from the STREAMs' start: the present is held
            j.hold = j.cursor == Long.MIN_VALUE ? oracle.readTime() : j.cursor - 1;
            durability.holdTables(catalog.holds(oracle.readTime()), catalog);
        }
        if (state.containsKey("paused")) {
            j.paused = true;
            j.state = "paused";
            return;
        }
        try {
            List<String> names = new ArrayList<>();
            for (int k : in.targets()) names.add(j.target.columns().get(k).name());
            BoundQuery q = new BoundQuery(in.plan(), names, in.plan().types(), List.of());
            Long resume = j.cursor == Long.MIN_VALUE ? null : j.cursor;
            j.subscription = subscriptions.subscribeJob(session, binder, q, j.statement, resume, j.listener());
        } catch (SqlException e) {
            j.state = "failed: " + e.getMessage() + " [" + e.sqlState() + "]";
            ServerLog.log("job " + j.item.name() + " could not start: " + e.getMessage());
            return;
        }
        j.state = "running";
        j.thread = Thread.ofPlatform().daemon().name("job " + j.item.name()).start(() -> Jobs.run(j, this::commitJob));
    }

    /** Commits a job's rows and cursor (from its thread), returning once durable. */
    private void commitJob(Jobs.Job j, List<Object[]> rows, long cursor) throws InterruptedException {
        java.util.concurrent.CompletableFuture<Void> durable = jobCommit(j, rows, cursor);
        try {
            durable.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the commit of job " + j.item.name() + " failed: " + e.getCause().getMessage(), e.getCause());
        }
        j.cursor = cursor;
        j.rows += rows.size();
        j.commits++;
        if (!j.eventTime) j.hold = cursor - 1;
        j.changed();
    }

    private synchronized java.util.concurrent.CompletableFuture<Void> jobCommit(Jobs.Job j, List<Object[]> rows, long cursor) {
        if (closed || j.stopping || jobs.get(j.item.id()) != j) throw new dev.tributary.server.source.SourceStopped("job " + j.item.name() + " stopped");
        if (!(catalog.get(j.target.id()) instanceof CatalogItem.Table target) || !target.columns().equals(j.target.columns())) {
            throw new SqlException("55000", "the target of job " + j.item.name() + ", " + j.target.name() + ", changed: drop the job and make it again");
        }
        Map<Row, Long> moved = movedPart("cursor", j.cursor == Long.MIN_VALUE ? null : Long.toString(j.cursor), Long.toString(cursor));
        writes.commitJob(target, j.targets, rows, j.item.id(), moved);
        return storage == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : storage.appended();
    }

    /**
     * ALTER JOB | SINK name PAUSE | RESUME: durably (a {@code paused} part in its relation), the
     * owner's (42501). A paused sink or job keeps holding what it reads from its last cursor or
     * acknowledged time, so RESUME delivers everything it missed.
     */
    private Result alterJob(Session session, List<String> names, boolean pause, int pos, boolean sink) {
        String kind = sink ? "SINK" : "JOB";
        if (session.inBlock()) throw new SqlException("25001", "ALTER " + kind + " cannot run inside a transaction block", pos);
        CatalogItem item = catalog.find(names, session, pos);
        String name = names.get(names.size() - 1);
        String word = kind.toLowerCase(java.util.Locale.ROOT);
        if (item == null) throw new SqlException("42704", word + " \"" + name + "\" does not exist", pos);
        Jobs.Job j = jobs.get(item.id());
        Sinks.Sink http = sinks.ofTable(item.id());
        if (!sink && http != null) {
            throw new SqlException("42809", "\"" + name + "\" is not a job but an HTTP sink", pos,
                    "CREATE JOB ... AS INSERT INTO FUNCTION url(...) makes an HTTP sink: ALTER SINK " + name + " " + (pause ? "PAUSE" : "RESUME") + ".");
        }
        if (http == null && (j == null || (j.sink != null) != sink)) throw new SqlException("42809", "\"" + name + "\" is not a " + word, pos);
        access.checkOwner(session, item);
        if (pause == (http != null ? http.paused : j.paused)) return Result.command("ALTER " + kind);
        Map<Long, Map<Row, Long>> change = new HashMap<>();
        change.put(item.id(), pause ? movedPart("paused", null, "true") : movedPart("paused", "true", null));
        if (http != null) {
            writes.commitBlock(change, false);
            if (pause) sinks.pause(http);
            else sinks.resume(http);
            return Result.command("ALTER " + kind);
        }
        if (pause) {
            Jobs.stop(j);
            writes.commitBlock(change, false);
            Jobs.Job paused = jobs.replaced(j);
            paused.paused = true;
            paused.cursor = j.cursor;
            paused.state = "paused";
        } else {
            writes.commitBlock(change, false);
            jobs.restart(j);
        }
        return Result.command("ALTER " + kind);
    }

    // ------------------------------------------------------------------ Kafka sinks

    /**
     * Starts sink {@code j} (under the lock): unless paused, its query bound, its history held
     * from its cursor (all of it while Kafka's progress is not known: it may be ahead of the
     * cursor), and its thread, which opens the Kafka writer and then subscribes
     * ({@link #subscribeSink}).
     */
    private void startKafkaSink(Jobs.Job j) {
        Session session = sinkSession(j);
        try {
            Ddl.BoundSink bound = ddl.bindSink(session, j.sink, j.item.name());
            j.bind(null, new int[0], false, dev.tributary.sql.plan.Plans.reads(bound.query().plan()));
            j.envelope = bound.envelope();
            if (j.kafka == null) j.kafka = Ddl.sinkSettings(j.sink);
        } catch (SqlException e) {
            j.bind(null, new int[0], true, Set.of());
            j.state = "failed: " + e.getMessage() + " [" + e.sqlState() + "]";
            ServerLog.log("sink " + j.item.name() + " could not start: " + e.getMessage());
            return;
        }
        Map<String, String> state = jobState(j);
        String at = state.get("cursor");
        j.cursor = at == null ? Long.MIN_VALUE : Long.parseLong(at);
        // no writer token yet: nothing was ever written to Kafka, a snapshot of the present starts it
        j.hold = j.cursor != Long.MIN_VALUE ? j.cursor - 1 : state.containsKey("writer") ? 0 : oracle.readTime();
        durability.holdTables(catalog.holds(oracle.readTime()), catalog);
        if (state.containsKey("paused")) {
            j.paused = true;
            j.state = "paused";
            return;
        }
        j.state = "starting: opening its Kafka writer";
        j.thread = Thread.ofPlatform().daemon().name("sink " + j.item.name()).start(() -> KafkaSinkRunner.run(j, new KafkaSinkRunner.Host() {
            @Override
            public String token(Jobs.Job sink) throws InterruptedException {
                return sinkToken(sink);
            }

            @Override
            public void subscribe(Jobs.Job sink, Long resume) {
                subscribeSink(sink, resume);
            }

            @Override
            public void commitCursor(Jobs.Job sink, long cursor) throws InterruptedException {
                commitSinkCursor(sink, cursor);
            }
        }));
    }

    private static Session sinkSession(Jobs.Job j) {
        return sinkSession(j.searchPath);
    }

    /** Sink {@code j}'s writer token, made and recorded (durably) in its relation the first time. */
    private String sinkToken(Jobs.Job j) throws InterruptedException {
        String[] token = new String[1];
        java.util.concurrent.CompletableFuture<Void> durable = sinkTokenCommit(j, token);
        try {
            durable.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the writer token of sink " + j.item.name() + " could not be recorded: " + e.getCause().getMessage(), e.getCause());
        }
        return token[0];
    }

    private synchronized java.util.concurrent.CompletableFuture<Void> sinkTokenCommit(Jobs.Job j, String[] token) {
        if (closed || j.stopping || jobs.get(j.item.id()) != j) throw new dev.tributary.server.source.SourceStopped("sink " + j.item.name() + " stopped");
        String known = jobState(j).get("writer");
        if (known != null) {
            token[0] = known;
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        token[0] = String.format("%012x", new java.security.SecureRandom().nextLong() & 0xffff_ffff_ffffL);
        Map<Long, Map<Row, Long>> change = new HashMap<>();
        change.put(j.item.id(), movedPart("writer", null, token[0]));
        writes.commitBlock(change, false);
        return storage == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : storage.appended();
    }

    /** Subscribes sink {@code j} to its query after {@code resume} (null: a snapshot now), holding its history from there. */
    private synchronized void subscribeSink(Jobs.Job j, Long resume) {
        if (closed || j.stopping || jobs.get(j.item.id()) != j) throw new dev.tributary.server.source.SourceStopped("sink " + j.item.name() + " stopped");
        Session session = sinkSession(j);
        Ddl.BoundSink bound = ddl.bindSink(session, j.sink, j.item.name());
        j.bind(null, new int[0], false, dev.tributary.sql.plan.Plans.reads(bound.query().plan()));
        j.envelope = bound.envelope();
        j.hold = resume != null ? resume - 1 : oracle.readTime();
        durability.holdTables(catalog.holds(oracle.readTime()), catalog);
        BoundQuery q = bound.query();
        j.subscription = subscriptions.subscribeJob(session, bound.binder(), new BoundQuery(Ddl.visiblePlan(q), q.names(), q.types(), List.of()), j.sink, resume, j.listener());
    }

    /** Records sink {@code j}'s cursor (Kafka holds everything before it), returning once durable. */
    private void commitSinkCursor(Jobs.Job j, long cursor) throws InterruptedException {
        java.util.concurrent.CompletableFuture<Void> durable = sinkCursorCommit(j, cursor);
        try {
            durable.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the cursor of sink " + j.item.name() + " could not be recorded: " + e.getCause().getMessage(), e.getCause());
        }
        j.cursor = cursor;
        j.commits++;
        j.hold = cursor - 1;
        j.changed();
    }

    private synchronized java.util.concurrent.CompletableFuture<Void> sinkCursorCommit(Jobs.Job j, long cursor) {
        if (closed || j.stopping || jobs.get(j.item.id()) != j) throw new dev.tributary.server.source.SourceStopped("sink " + j.item.name() + " stopped");
        Map<Row, Long> moved = movedPart("cursor", j.cursor == Long.MIN_VALUE ? null : Long.toString(j.cursor), Long.toString(cursor));
        if (moved.isEmpty()) return java.util.concurrent.CompletableFuture.completedFuture(null);
        Map<Long, Map<Row, Long>> change = new HashMap<>();
        change.put(j.item.id(), moved);
        writes.commitBlock(change, false);
        return storage == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : storage.appended();
    }

    /**
     * SHOW SINKS: one row per sink, Kafka's and HTTP's, in name order. Columns for both: name,
     * connector ({@code kafka}, {@code http}), relation (what it reads: the relation, or a Kafka
     * sink's query), target (the topic, the URL), state, cursor (a Kafka sink's progress: every
     * change before it is in Kafka; an HTTP sink's last acknowledged time: every change through it
     * was acknowledged) and lag_ms (now minus the cursor). Kafka's only (NULL for HTTP): envelope
     * and messages (written). HTTP's only (NULL for Kafka, whose errors are in its state):
     * requests, failures, last_error, and its queue for a receiver that is away: queued_bytes (now,
     * estimated), peak_queued_bytes (the most at once) and fell_behind (how often it passed MAX
     * QUEUE SIZE and read again from its last acknowledged time).
     */
    private Result showSinks(Session session) {
        List<Object[]> rows = new ArrayList<>();
        long now = oracle.readTime();
        for (Jobs.Job j : jobs.all()) {
            if (j.sink == null) continue;
            long upper = Math.max(j.kafkaUpper, j.cursor);
            java.time.Instant cursor = upper < 0 ? null : java.time.Instant.ofEpochMilli(upper);
            Long lag = upper < 0 ? null : Math.max(0, now - upper);
            String topic = j.kafka == null ? null : j.kafka.topic();
            String relation = j.sink.query() != null ? dev.tributary.sql.parser.SqlFormatter.format(j.sink.query()) : String.join(".", j.sink.from());
            rows.add(new Object[] {shown(session, j.item), "kafka", relation, topic, j.state, j.sink.envelope(), cursor, lag, j.messages, null, null, null, null, null, null});
        }
        for (Sinks.Sink s : sinks.all()) {
            var st = s.delivery == null ? null : s.delivery.status();
            java.time.Instant cursor = s.acknowledged < 0 ? null : java.time.Instant.ofEpochMilli(s.acknowledged);
            Long lag = s.acknowledged < 0 ? null : Math.max(0, now - s.acknowledged);
            String state = s.paused ? "paused" : s.stopped != null ? s.stopped : st == null ? "starting" : st.state();
            rows.add(new Object[] {shown(session, s.table), "http", s.reading(), s.url.toString(), state,
                    null, cursor, lag, null, st == null ? 0L : st.requests(), st == null ? 0L : st.failures(), st == null ? null : st.lastError(),
                    st == null ? 0L : st.queuedBytes(), st == null ? 0L : st.peakQueuedBytes(), st == null ? 0L : st.fellBehind()});
        }
        rows.sort(java.util.Comparator.comparing(r -> (String) r[0]));
        return new Result("SHOW", List.of("name", "connector", "relation", "target", "state", "envelope", "cursor", "lag_ms", "messages", "requests", "failures", "last_error",
                "queued_bytes", "peak_queued_bytes", "fell_behind"),
                List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.TIMESTAMPTZ, SqlType.BIGINT, SqlType.BIGINT,
                        SqlType.BIGINT, SqlType.BIGINT, SqlType.TEXT, SqlType.BIGINT, SqlType.BIGINT, SqlType.BIGINT), rows);
    }

    /** SHOW JOBS: each job's state, target, rows written, cursor and lag. */
    private Result showJobs(Session session) {
        List<Object[]> rows = new ArrayList<>();
        long now = oracle.readTime();
        for (Jobs.Job j : jobs.all()) {
            if (j.sink != null) continue;
            String cursor = j.cursor == Long.MIN_VALUE ? null : j.eventTime ? Long.toString(j.cursor)
                    : dev.tributary.sql.types.Values.toText(java.time.Instant.ofEpochMilli(j.cursor), SqlType.TIMESTAMPTZ);
            Long lag = j.cursor == Long.MIN_VALUE || j.eventTime ? null : Math.max(0, now - j.cursor);
            rows.add(new Object[] {shown(session, j.item), j.state, shown(session, j.target), j.rows, cursor, lag,
                    dev.tributary.sql.parser.SqlFormatter.format(j.statement.insert())});
        }
        return new Result("SHOW", List.of("name", "state", "target", "rows", "cursor", "lag_ms", "insert"),
                List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.BIGINT, SqlType.TEXT, SqlType.BIGINT, SqlType.TEXT), rows);
    }

    /** The positions source {@code s}'s progress table holds, by part. */
    private Map<String, String> committedPositions(Sources.Source s) {
        List<SqlType> types = Binder.typesOf(s.progress.columns());
        Map<String, String> out = new java.util.TreeMap<>();
        for (Object[] r : reads.rowsOf(new Session(), new Plan.Get(s.progress.id(), s.progress.name(), types, true), types)) out.put((String) r[0], (String) r[1]);
        return out;
    }

    /**
     * A source's commit: {@code rows} appended to its table, or a keyed source's {@code changes}
     * applied to the rows of their keys, and its progress rows moved from {@code before} to
     * {@code after}, at one write time, through the log; the future completes once the commit is
     * durable (at once in memory). A keyed source's current rows are looked up here, under the
     * lock, so nothing but this source's own earlier commits can have changed them (only its
     * connector writes it), and those are all visible to the lookup (see {@link WritePath#keyedChanges}).
     */
    private synchronized java.util.concurrent.CompletableFuture<Void> ingest(Sources.Source s, List<Object[]> rows,
                                                                            List<dev.tributary.server.source.SourceChange> changes,
                                                                            Map<String, String> before, Map<String, String> after) {
        if (closed || sources.ofTable(s.table.id()) != s) throw new dev.tributary.server.source.SourceStopped("source " + s.table.name() + " was dropped");
        if (s.primaryKey == null ? !changes.isEmpty() : !rows.isEmpty()) {
            throw new IllegalArgumentException("source " + s.table.name() + (s.primaryKey == null ? " appends rows: it takes no keyed changes" : " is keyed: it takes changes, not rows"));
        }
        Map<Row, Long> added = s.primaryKey == null ? appended(s, rows) : writes.keyedChanges(s.table, s.primaryKey, changes);
        Map<Long, Map<Row, Long>> commit = new java.util.LinkedHashMap<>();
        commit.put(s.table.id(), added);
        commit.put(s.progress.id(), moved(before, after));
        writes.commitBlock(commit, false);
        return storage == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : storage.appended();
    }

    /** An append-only source's rows, checked, as the changes of its table. */
    private static Map<Row, Long> appended(Sources.Source s, List<Object[]> rows) {
        int width = s.table.columns().size();
        dev.tributary.sql.row.RowCodec codec = new dev.tributary.sql.row.RowCodec(Binder.typesOf(s.table.columns()));
        // encoded into one slab, as COPY's rows are: the workers copy it into the table's input in ranges
        dev.tributary.arrangements.BytesColumn slab = new dev.tributary.arrangements.BytesColumn(Math.max(16, rows.size()), Math.max(64, rows.size() * 32));
        dev.tributary.sql.row.RowCodec.Builder builder = codec.builder();
        for (Object[] r : rows) {
            if (r.length != width) throw new IllegalArgumentException("source " + s.table.name() + " has " + width + " columns, not " + r.length);
            WritePath.checkRow(s.table, r);
            builder.reset();
            for (Object v : r) builder.putValue(v);
            slab.add(builder.buffer(), 0, builder.length());
        }
        return new RowSlab(slab);
    }

    /** A source's progress rows moved from {@code before} to {@code after} (a part mapped to null: retracted), as the changes of its progress table. */
    private static Map<Row, Long> moved(Map<String, String> before, Map<String, String> after) {
        dev.tributary.sql.row.RowCodec positions = new dev.tributary.sql.row.RowCodec(List.of(SqlType.TEXT, SqlType.TEXT));
        Map<Row, Long> moved = new HashMap<>();
        for (Map.Entry<String, String> e : after.entrySet()) {
            String old = before.get(e.getKey());
            if (e.getValue() == null) {
                // the part is forgotten
                if (old != null) moved.merge(positions.encode(e.getKey(), old), -1L, Long::sum);
                continue;
            }
            if (e.getValue().equals(old)) continue;
            if (old != null) moved.merge(positions.encode(e.getKey(), old), -1L, Long::sum);
            moved.merge(positions.encode(e.getKey(), e.getValue()), 1L, Long::sum);
        }
        return moved;
    }

    /** Source {@code name} of schema {@code schema}, or null; without the coordinator's lock (the HTTP port asks at every request). */
    Tributary.SourceEndpoint sourceEndpoint(String schema, String name) {
        Sources.Source s = sources.named(schema, name);
        return s == null ? null : new Tributary.SourceEndpoint(s.connector, s.running);
    }

    /** The job named {@code name} (in any schema), or null. */
    Jobs.Job job(String name) {
        for (Jobs.Job j : jobs.all()) if (j.item.name().equals(name)) return j;
        return null;
    }

    @Override
    public synchronized long sourceCursor(long source, String positions, int pos) {
        Sources.Source s = sources.ofTable(source);
        if (s == null) throw new SqlException("0A000", "a cursor of positions is for a STREAM over a source", pos);
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String pair : positions.split(",")) {
            int eq = pair.indexOf('=');
            String part = eq < 0 ? "" : pair.substring(0, eq).trim(), at = eq < 0 ? "" : pair.substring(eq + 1).trim();
            if (part.isEmpty() || at.isEmpty() || wanted.put(part, at) != null) {
                throw new SqlException("22023", "invalid cursor of positions: \"" + positions + "\"", pos,
                        "A cursor over a source names each part once, part=position, as its progress table's rows and SHOW SOURCES give them: '0=1234, 1=99'.");
            }
        }
        // the progress table's history, time by time: the first time it was at the positions is a commit boundary
        List<SqlType> types = List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TIMESTAMPTZ, SqlType.BIGINT);
        long since = compute.since(s.progress.id());
        Plan history = new Plan.Changes(new Plan.Get(s.progress.id(), s.progress.name(), List.of(SqlType.TEXT, SqlType.TEXT), false), since, types);
        java.util.TreeMap<Long, List<Object[]>> byTime = new java.util.TreeMap<>();
        for (Object[] r : reads.rowsOf(new Session(), history, types)) byTime.computeIfAbsent(((Instant) r[2]).toEpochMilli(), t -> new ArrayList<>()).add(r);
        Map<String, String> at = new HashMap<>();
        for (Map.Entry<Long, List<Object[]>> e : byTime.entrySet()) {
            for (Object[] r : e.getValue()) if ((Long) r[3] < 0) at.remove((String) r[0], (String) r[1]);
            for (Object[] r : e.getValue()) if ((Long) r[3] > 0) at.put((String) r[0], (String) r[1]);
            boolean there = true;
            for (Map.Entry<String, String> w : wanted.entrySet()) there &= w.getValue().equals(at.get(w.getKey()));
            // it stays there until the next commit, which brings the first rows after the positions
            if (there) return e.getKey() + 1;
        }
        throw new SqlException("22023", "source " + s.table.name() + " was never at " + positions + " in the history its progress table keeps (from " + since + ")", pos,
                "A cursor over a source names the positions of one of its commits, as its progress rows give them (now: " + shownPositions(at) + ").");
    }

    /** The runner of the source named {@code name} (in any schema), or null. */
    dev.tributary.server.source.SourceRunner sourceRunner(String name) {
        for (Sources.Source s : sources.all()) if (s.table.name().equals(name)) return s.runner;
        return null;
    }

    /** The most parts SHOW SOURCES lists of one source (a webhook keeps up to 100,000 idempotency keys as parts): the rest are counted. */
    private static final int SHOWN_PARTS = 20;

    private static String shownPositions(Map<String, String> positions) {
        String shown = String.join(", ", positions.entrySet().stream().limit(SHOWN_PARTS).map(e -> e.getKey() + "=" + e.getValue()).toList());
        return positions.size() <= SHOWN_PARTS ? shown : shown + ", and " + (positions.size() - SHOWN_PARTS) + " more (in the source's progress table)";
    }

    /**
     * SHOW SOURCES: each source's connector, envelope (none, upsert, debezium), state, records
     * handed over by this run (rows, or a keyed source's changes), decode errors and positions.
     */
    private Result showSources(Session session) {
        List<Object[]> rows = new ArrayList<>();
        for (Sources.Source s : sources.all()) {
            var st = s.runner == null ? null : s.runner.status();
            String positions = st == null ? "" : shownPositions(st.positions());
            rows.add(new Object[] {shown(session, s.table), s.connector.toLowerCase(java.util.Locale.ROOT), s.envelope.name().toLowerCase(java.util.Locale.ROOT),
                    st == null ? "starting" : st.state(), st == null ? 0L : st.rows(), st == null ? 0L : st.decodeErrors(), st == null ? null : st.lastError(),
                    st == null ? null : st.lastErrorPosition(), positions});
        }
        return new Result("SHOW", List.of("name", "connector", "envelope", "state", "rows", "decode_errors", "last_error", "last_error_position", "positions"),
                List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.TEXT, SqlType.BIGINT, SqlType.BIGINT, SqlType.TEXT, SqlType.TEXT, SqlType.TEXT), rows);
    }

    // ------------------------------------------------------------------ durability

    /**
     * How often the server checkpoints its dataflows while anything changes (system property
     * {@code tributary.checkpoint.interval.ms}; 0: only on CHECKPOINT): the most a restart
     * replays is about this much of the log.
     */
    private static final long CHECKPOINT_INTERVAL_MILLIS = Long.getLong("tributary.checkpoint.interval.ms", 60_000);
    /** How long a shutdown waits for its checkpoint before it goes without one. */
    private static final long SHUTDOWN_CHECKPOINT_SECONDS = 60;
    /** Whether a write or a DDL statement came since the last checkpoint started. */
    private boolean changedSinceCheckpoint;
    private long lastCheckpointNanos = System.nanoTime();

    /** Starts a checkpoint if something changed and the interval has passed since the last one. */
    private synchronized void checkpointIfDue() {
        if (storage == null || CHECKPOINT_INTERVAL_MILLIS <= 0 || !durability.changedSinceCheckpoint()) return;
        if (System.nanoTime() - lastCheckpointNanos < CHECKPOINT_INTERVAL_MILLIS * 1_000_000) return;
        checkpoint();
    }

    /**
     * CHECKPOINT: waits (cancellably) for a checkpoint started now, or the one being written. As in
     * PostgreSQL it may run inside a transaction block: the block's writes are not committed, so
     * not in it.
     */
    private Result checkpoint(Session session) {
        java.util.concurrent.CompletableFuture<Long> done = checkpoint();
        while (true) {
            try {
                done.get(50, java.util.concurrent.TimeUnit.MILLISECONDS);
                return Result.command("CHECKPOINT");
            } catch (java.util.concurrent.TimeoutException e) {
                if (session.stop() != null) {
                    session.consumeCancel();
                    throw new SqlException("57014", "canceling statement due to user request").withDetail("The checkpoint goes on in the background.");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SqlException("57014", "interrupted while waiting for the checkpoint");
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw new SqlException("58030", "could not write the checkpoint: " + cause.getMessage())
                        .withDetail("The previous checkpoint stays the latest; a restart replays more of the log.");
            }
        }
    }

    /** A checkpoint whose traces are taken within this long after it starts, or without the dataflows that are late. */
    private static final long CHECKPOINT_TAKE_MILLIS = 30_000;
    /** The checkpoint being written (null: none), which a second request joins. */
    private java.util.concurrent.CompletableFuture<Long> checkpointing;
    private java.util.concurrent.ExecutorService checkpointWriter;

    /**
     * Checkpoints every dataflow that can be (tables, materialized views, indexes): each worker's
     * traces are cut at the time every table is complete up to now, written to the stores (a
     * batch already in the previous checkpoint is named, not written again), and made the
     * latest checkpoint once the log holds every write before it; then the tables' logs keep
     * history only from it on. A restart restores these dataflows from it and replays only the
     * writes after it. The future completes with the checkpoint's time (-1: in memory, nothing
     * to do), or fails if the stores refused (the previous checkpoint stays the latest).
     */
    java.util.concurrent.CompletableFuture<Long> checkpoint() {
        java.util.concurrent.CompletableFuture<ComputeController.CheckpointCut> captured;
        long at;
        synchronized (this) {
            if (storage == null || closed) return java.util.concurrent.CompletableFuture.completedFuture(-1L);
            if (checkpointing != null && !checkpointing.isDone()) return checkpointing;
            // a time no table has passed yet (so that no trace has let go of times before it), at
            // which nothing will be written after the checkpoint starts
            at = oracle.writeTime(frontiers.maxUpper());
            durability.checkpointStarted();
            lastCheckpointNanos = System.nanoTime();
            captured = compute.checkpoint(at, CHECKPOINT_TAKE_MILLIS, outputsAppended);
            // every table past the checkpoint's time, so that every trace can be cut there
            advanceAll(at);
            if (checkpointWriter == null) {
                checkpointWriter = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "tributary-checkpoint");
                    t.setDaemon(true);
                    return t;
                });
            }
            java.util.concurrent.CompletableFuture<Void> logged = storage.appended();
            long started = System.nanoTime();
            checkpointing = captured.thenApplyAsync(cut -> {
                // never restore a write the log could still lose
                logged.join();
                long bytes = storage.checkpoints().write(at, compute.workers(), cut.dataflows());
                storage.holdAllSince(at);
                int outputs = appendOutputs(at, cut.outputs());
                ServerLog.log("checkpoint at " + at + ": " + cut.dataflows().size() + " dataflows, " + (bytes >> 10) + " kB written, "
                        + outputs + " views' outputs appended, in " + (System.nanoTime() - started) / 1_000_000 + " ms");
                return at;
            }, checkpointWriter);
            checkpointing.exceptionally(e -> {
                ServerLog.error("checkpoint at " + at + " failed (the previous one stays the latest)", e);
                return null;
            });
            return checkpointing;
        }
    }

    /** Per materialized view, the time its output shard holds its output through (appended by checkpoints; read when the next one starts). */
    private final Map<Long, Long> outputsAppended = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Appends each view's output as the checkpoint at {@code at} cut it to its output shard, on
     * the checkpoint's thread; a view whose append fails is logged and left behind (its next
     * append rebases it). Returns how many were appended.
     */
    private int appendOutputs(long at, List<ComputeController.OutputCut> outputs) {
        int appended = 0;
        for (ComputeController.OutputCut o : outputs) {
            try {
                if (storage.outputs().append(o.id(), at, o.workers(), o.exactAfter(), o.retainFrom())) {
                    outputsAppended.put(o.id(), at);
                    appended++;
                }
            } catch (RuntimeException e) {
                ServerLog.error("the output shard of materialized view " + o.id() + " was not appended at " + at, e);
            }
        }
        // views dropped meanwhile
        outputsAppended.keySet().retainAll(outputs.stream().map(ComputeController.OutputCut::id).collect(java.util.stream.Collectors.toSet()));
        return appended;
    }

    /** The objects the recovery restored from the latest checkpoint instead of building them again, in the order restored. */
    private final List<String> restoredFromCheckpoint = new ArrayList<>();

    /** See {@link #restoredFromCheckpoint}. */
    synchronized List<String> restoredFromCheckpoint() {
        return List.copyOf(restoredFromCheckpoint);
    }

    /** The catalog's object {@code name} (null: none), for tests. */
    synchronized CatalogItem catalogItem(String name) {
        return named(name);
    }

    /** The object a name written as in SQL finds ({@code t}, {@code s.t}, {@code "T"}; bare names in public), or null. */
    private CatalogItem named(String name) {
        return catalog.find(dev.tributary.sql.catalog.SystemCatalog.nameParts(name), List.of(CatalogState.PUBLIC), 0);
    }

    /**
     * Materialized view {@code name}'s rows as of {@code asOf} as its output shard holds them, each
     * as often as its count (for tests and checks: no session, no AS OF bounds but the shard's).
     */
    synchronized Result outputShard(String name, long asOf) {
        if (!(named(name) instanceof CatalogItem.MaterializedView mv)) throw new IllegalArgumentException(name + " is not a materialized view");
        if (storage == null) throw new IllegalStateException("a database in memory keeps no output shards");
        List<SqlType> types = mv.columns().stream().map(Column::type).toList();
        dev.tributary.sql.row.RowCodec codec = new dev.tributary.sql.row.RowCodec(types);
        dev.tributary.arrangements.Updates u = storage.outputs().snapshot(mv.id(), asOf);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < u.size(); i++) {
            Object[] row = codec.decode(dev.tributary.sql.row.RowDataType.INSTANCE.get(u.keys(), i));
            for (long n = 0; n < u.diff(i); n++) rows.add(row);
        }
        return new Result("SELECT " + rows.size(), mv.columns().stream().map(Column::name).toList(), types, rows);
    }

    /**
     * Rebuilds the database from its stores: roles; tables, each with its rows at their times
     * (history as far back as its policy kept it); then views, materialized views and indexes,
     * each once what it reads is there, built again from the tables. No time handed out before
     * is handed out again.
     */
    private void recover() {
        durability.replaying(true);
        try {
            List<CatalogEntry> entries = durability.recorder().recover();
            // first: the history the groups hold must be there when the tables are read back
            recoverConsumerGroups();
            long floor = storage.recoveredUpper();
            oracle.recovered(floor, storage::reserveTimes);
            long maxId = 0;
            for (CatalogEntry e : entries) maxId = Math.max(maxId, e.id());
            dev.tributary.storage.Checkpoints.Manifest checkpoint = restorable(entries);
            if (checkpoint != null) {
                long started = System.nanoTime();
                compute.seed(storage.checkpoints(), checkpoint, checkpoint.objects().values());
                ServerLog.log("recovery: checkpoint at " + checkpoint.at() + " of " + checkpoint.objects().size() + " objects read in "
                        + (System.nanoTime() - started) / 1_000_000 + " ms");
            }
            Session system = new Session();
            Set<Long> tables = new HashSet<>();
            List<CatalogEntry> rest = new ArrayList<>();
            List<CatalogEntry> sequenceValues = new ArrayList<>();
            // descriptions, once what they describe is made again
            List<CatalogEntry> comments = new ArrayList<>();
            for (CatalogEntry e : entries) {
                switch (e.kind()) {
                    case CatalogRecorder.ROLE -> roles.restore(e.name(), e.sql());
                    case CatalogRecorder.PRIVILEGES -> access.restore(e);
                    case CatalogRecorder.COMMENT -> comments.add(e);
                    case "table", "source", "sink", "job" -> {
                        catalog.idsFrom(e.id());
                        replay(system, e);
                        if (!(catalog.get(e.id()) instanceof CatalogItem.Table made)) {
                            throw new dev.tributary.storage.CorruptDataException("catalog entry " + e.id() + " (" + e.sql() + ") did not make " + e.kind() + " " + e.name() + " again");
                        }
                        // a source's statement makes its progress table too
                        Sources.Source source = sources.ofTable(made.id());
                        for (CatalogItem.Table t : source == null ? List.of(made) : List.of(made, source.progress)) {
                            recoverTable(t, checkpoint);
                            tables.add(t.id());
                        }
                    }
                    case CatalogRecorder.PRIMARY_KEY, CatalogRecorder.OWNED_SEQUENCE -> { } // made with its table
                    case "sequence" -> {
                        // before the tables made after it, whose defaults may read it
                        catalog.idsFrom(e.id());
                        replay(system, e);
                    }
                    case CatalogRecorder.SEQUENCE_VALUE -> sequenceValues.add(e);
                    case CatalogRecorder.SCHEMA -> {
                        // before what is in it; and only once its owner's role is there, made before it
                        catalog.idsFrom(e.id());
                        replay(system, e);
                    }
                    default -> rest.add(e);
                }
            }
            frontiers.advanced(floor, tables);
            compute.advance(floor, tables);
            // the rest in id order, except where an object reads one made after it (CREATE OR REPLACE VIEW)
            while (!rest.isEmpty()) {
                CatalogEntry next = null;
                for (CatalogEntry e : rest) {
                    boolean ready = true;
                    for (long u : e.uses()) ready &= catalog.contains(u);
                    if (ready) {
                        next = e;
                        break;
                    }
                }
                if (next == null) throw new dev.tributary.storage.CorruptDataException("catalog entries " + rest + " read objects the catalog does not have");
                rest.remove(next);
                if (next.kind().equals(CatalogRecorder.HISTORY)) {
                    long[] p = CatalogRecorder.history(next);
                    ddl.setRetention(next.uses().get(0), new HistoryPolicy(p[0], p[1]));
                } else {
                    catalog.idsFrom(next.id());
                    long started = System.nanoTime();
                    replay(system, next);
                    if (!next.kind().equals("view")) {
                        boolean restored = checkpoint != null && compute.restored(next.id());
                        if (restored) {
                            compute.holdBoundary(next.id(), checkpoint.at());
                            restoredFromCheckpoint.add(next.name());
                        }
                        ServerLog.log("recovery: " + next.kind() + " " + next.name() + (restored ? " restored from the checkpoint in " : " built in ")
                                + (System.nanoTime() - started) / 1_000_000 + " ms");
                    }
                    if (!catalog.contains(next.id())) {
                        throw new dev.tributary.storage.CorruptDataException("catalog entry " + next.id() + " (" + next.sql() + ") did not make " + next.kind() + " " + next.name() + " again");
                    }
                }
            }
            for (CatalogEntry e : sequenceValues) sequences.recovered(Long.parseLong(e.name()), Long.parseLong(e.sql()));
            for (CatalogEntry e : comments) {
                String[] key = e.name().split("/", 2);
                long id = Long.parseLong(key[0]);
                if (catalog.get(id) != null) catalog.setComment(id, Integer.parseInt(key[1]), e.sql());
            }
            compute.endRecovery();
            catalog.idsFromAtLeast(maxId + 2); // a table's primary key takes the id after it
            // tables dropped before a crash let go of their data at the log's next flush
            for (long id : storage.tables()) if (!(catalog.get(id) instanceof CatalogItem.Table) && id != ConsumerGroups.POSITIONS) storage.dropTable(id);
            // and views dropped before a crash, their output shards
            for (long id : storage.outputs().outputs()) if (!(catalog.get(id) instanceof CatalogItem.MaterializedView)) storage.outputs().drop(id);
        } finally {
            durability.replaying(false);
        }
    }

    /** The consumer groups' positions, read back from their durable table (a dropped table's groups are never read again). */
    private void recoverConsumerGroups() {
        if (!storage.tables().contains(ConsumerGroups.POSITIONS)) return;
        Map<Row, Long> rows = new HashMap<>();
        java.util.function.Consumer<dev.tributary.arrangements.Updates> add = u -> {
            dev.tributary.arrangements.BytesColumn keys = (dev.tributary.arrangements.BytesColumn) u.keys();
            for (int i = 0; i < u.size(); i++) rows.merge(dev.tributary.sql.row.RowDataType.INSTANCE.get(keys, i), u.diff(i), Long::sum);
        };
        long since = storage.tableSince(ConsumerGroups.POSITIONS);
        if (since < 0) return;
        storage.tablePartsAsOf(ConsumerGroups.POSITIONS, since, add);
        storage.tablePartsAfter(ConsumerGroups.POSITIONS, since, add);
        groups.recovered(rows);
    }

    /**
     * Feeds table {@code t} (made again from its catalog entry) what the stores hold of it: its
     * updates after {@code checkpoint} if it was restored from it, otherwise its rows as of its
     * since and its history after.
     */
    private void recoverTable(CatalogItem.Table t, dev.tributary.storage.Checkpoints.Manifest checkpoint) {
        long started = System.nanoTime();
        long[] updates = {0};
        if (checkpoint != null && compute.restored(t.id())) {
            restoredFromCheckpoint.add(t.name());
            // restored as it was at the checkpoint: only what was written after it is fed,
            // part by part at the updates' own times
            storage.tablePartsAfter(t.id(), checkpoint.at(), part -> {
                updates[0] += part.size();
                writes.replay(t, part);
            });
            compute.holdBoundary(t.id(), checkpoint.at());
        } else {
            long since = storage.tableSince(t.id());
            if (since >= 0) {
                // the table as of its since, every update at that one time: each
                // part goes to the table's input as it is read, and the table's
                // arrangement adds them up
                storage.tablePartsAsOf(t.id(), since, part -> {
                    updates[0] += part.size();
                    writes.replay(t, part);
                });
                // then the history the shard keeps after it (a retention policy's,
                // or what the log held at a crash), part by part at its own times
                storage.tablePartsAfter(t.id(), since, part -> {
                    updates[0] += part.size();
                    writes.replay(t, part);
                });
            }
        }
        if (!(checkpoint != null && compute.restored(t.id()))) compute.historyFrom(t.id(), Math.max(0, storage.tableSince(t.id())));
        ServerLog.log("recovery: table " + t.name() + ": " + updates[0] + " updates read in " + (System.nanoTime() - started) / 1_000_000 + " ms");
    }

    /**
     * The latest checkpoint, with only the objects that can be restored from it: taken with as
     * many workers as there are now, every table it holds keeping its history from the
     * checkpoint on (what the restart replays), and everything each object reads restorable too;
     * null if nothing is.
     */
    private dev.tributary.storage.Checkpoints.Manifest restorable(List<CatalogEntry> entries) {
        var found = storage.recoveredCheckpoint();
        if (found.isEmpty()) return null;
        var m = found.get();
        if (m.workers() != compute.workers()) {
            ServerLog.log("recovery: the checkpoint was taken with " + m.workers() + " workers, not " + compute.workers() + ": everything is built again");
            return null;
        }
        Set<Long> tableIds = new HashSet<>();
        Map<Long, Long> tableOfKey = new HashMap<>();
        for (CatalogEntry e : entries) {
            if (e.kind().equals("table") || e.kind().equals("sink") || e.kind().equals("job")) tableIds.add(e.id());
            // a source's table and the progress table that takes the next id
            if (e.kind().equals("source")) {
                tableIds.add(e.id());
                tableIds.add(e.id() + 1);
            }
            if (e.kind().equals(CatalogRecorder.PRIMARY_KEY) && !e.uses().isEmpty()) tableOfKey.put(e.id(), e.uses().get(0));
        }
        Map<Long, dev.tributary.storage.Checkpoints.Stored> ok = new LinkedHashMap<>(m.objects());
        // the server's own tables start empty at every start: nothing restored may have read them
        ok.keySet().removeIf(Introspection::isInternal);
        for (boolean changed = true; changed; ) {
            changed = false;
            for (var it = ok.values().iterator(); it.hasNext(); ) {
                var o = it.next();
                boolean keep = o.workers().size() == m.workers();
                // a table's primary key index is the table's own arrangement, restored with it
                for (long r : o.reads()) keep &= ok.containsKey(r) || ok.containsKey(tableOfKey.getOrDefault(r, -1L));
                if (tableIds.contains(o.id()) && storage.tableSince(o.id()) > m.at()) keep = false;
                if (!keep) {
                    it.remove();
                    changed = true;
                }
            }
        }
        return ok.isEmpty() ? null : new dev.tributary.storage.Checkpoints.Manifest(m.at(), m.workers(), ok);
    }

    private void replay(Session system, CatalogEntry e) {
        // under the search path it first ran under, seeing only what existed then
        if (e.searchPath().isEmpty()) system.settings.remove("search_path");
        else system.settings.put("search_path", e.searchPath());
        catalog.replaying(e.id(), e.uses());
        try {
            run(system, Parser.parseStatement(e.sql()), e.sql());
        } catch (SqlException failure) {
            throw new dev.tributary.storage.CorruptDataException("catalog entry " + e.id() + " (" + e.kind() + " " + e.name() + ") failed to replay: "
                    + failure.getMessage() + " [" + failure.sqlState() + "] in: " + e.sql());
        } finally {
            catalog.replaying(-1, List.of());
        }
    }
}
