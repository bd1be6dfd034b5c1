package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.server.auth.Roles;
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
import dev.tributary.sql.catalog.SystemCatalog;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.plan.Explain;
import dev.tributary.sql.plan.Optimizer;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.render.Aggregation;
import dev.tributary.sql.render.MapFilterProject;
import dev.tributary.sql.render.Renderer;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;
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
import java.util.TreeMap;

/**
 * The coordinator of one database: it owns the catalog, the timestamp oracle and the
 * {@link ComputeController} that runs its dataflows, and runs statements for sessions one at a
 * time.
 *
 * <p>Writes commit at the oracle's write times; a transaction block's writes all commit at one
 * time. A query reads at the oracle's read time, after every table has been promised complete
 * up to it, so its answer is exactly the data at that time. Tables are mirrored here (rows and
 * primary keys) so that UPDATE, DELETE and constraint checks need no dataflow.
 */
final class Coordinator implements AutoCloseable, Catalog {
    private final ComputeController compute;
    private final TimestampOracle oracle;
    private final Map<String, CatalogItem> byName = new TreeMap<>();
    private final Map<Long, CatalogItem> byId = new HashMap<>();
    /** For each item, the items that depend on it (views over it, indexes on it). */
    private final Map<Long, Set<Long>> dependents = new HashMap<>();
    /** The history policies of the objects that have one (the rest keep no history behind the present). */
    private final Map<Long, HistoryPolicy> retention = new HashMap<>();
    private long nextId = 1;
    private final Roles roles = new Roles(new java.security.SecureRandom());
    /**
     * What reads have cost, for tests and EXPLAIN-like checks: plans optimized, index seeks,
     * whole-arrangement reads, and transient dataflows built.
     */
    long planned, seeks, scans, dataflowsBuilt;
    /** Statements answered without the workers (constant queries), for tests. */
    long answeredLocally;
    /** Primary key checks answered from the published shards and the coordinator's recent commits, for tests. */
    long publishedKeyChecks;
    /** Point reads answered on the client's thread from published index shards (see {@link #pointRead}). */
    final java.util.concurrent.atomic.LongAdder publishedSeeks = new java.util.concurrent.atomic.LongAdder();
    /** Bumped by every catalog change, so prepared statements know to bind and plan again; read without the lock by point reads. */
    private volatile long catalogVersion;
    /** Each index's shards as the workers last published them, for point reads. */
    private final PublishedIndexes published;
    /** The indexes of the catalog at {@link #indexesVersion}, kept so a point lookup need not collect them per call. */
    private List<CatalogItem.Index> indexList = List.of();
    private long indexesVersion = -1;

    /** The stores this database is durable in; null for a database in memory only. */
    private final StorageController storage;

    Coordinator(Clock clock, int workers) {
        this(clock, workers, null);
    }

    /**
     * A database on {@code clock} with {@code workers} workers, durable in {@code storage} (null:
     * in memory): what the stores hold is recovered before this returns.
     */
    Coordinator(Clock clock, int workers, StorageController storage) {
        this.storage = storage;
        this.recorder = storage == null ? null : new CatalogRecorder(storage);
        this.oracle = new TimestampOracle(clock);
        this.compute = new ComputeController(workers);
        this.published = compute.published();
        this.publishedShards = new PublishedIndexes.Shard[workers];
        if (storage != null) {
            synchronized (this) {
                recover();
            }
        }
        startTicker();
    }

    Clock clock() {
        return oracle.clock();
    }

    /** What {@code name}'s own dataflow holds, over all workers; see {@link Tributary#arrangementSize}. */
    synchronized ArrangementSize arrangementSize(String name) {
        CatalogItem item = byName.get(name);
        if (item == null) throw new SqlException("42P01", "relation \"" + name + "\" does not exist");
        return compute.arrangementSizes(List.of(item.id())).get(0);
    }

    /** Every relation's parts, for {@code tributary_internal.arrangement_sizes}, in object id order. */
    @Override
    public synchronized List<dev.tributary.sql.catalog.Catalog.ArrangementPart> arrangementSizes() {
        List<CatalogItem> items = new ArrayList<>(new TreeMap<>(byId).values());
        List<Long> ids = new ArrayList<>(items.size());
        for (CatalogItem item : items) ids.add(item.id());
        List<ArrangementSize> sizes = compute.arrangementSizes(ids);
        List<dev.tributary.sql.catalog.Catalog.ArrangementPart> out = new ArrayList<>();
        for (int k = 0; k < items.size(); k++) {
            for (ArrangementSize.Part p : sizes.get(k).parts()) {
                out.add(new dev.tributary.sql.catalog.Catalog.ArrangementPart(items.get(k).id(), items.get(k).name(), p.name(), p.records(), p.bytes()));
            }
        }
        return out;
    }

    @Override
    public synchronized Optional<CatalogItem> lookup(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    @Override
    public synchronized java.util.Collection<CatalogItem> items() {
        return new TreeMap<>(byId).values();
    }

    /** The catalog as {@code session} sees it: this coordinator's objects and the session's settings. */
    private Catalog catalogFor(Session session) {
        Coordinator self = this;
        Map<String, String> settings = Map.copyOf(session.settings);
        return new Catalog() {
            @Override
            public Optional<CatalogItem> lookup(String name) {
                return self.lookup(name);
            }

            @Override
            public java.util.Collection<CatalogItem> items() {
                return self.items();
            }

            @Override
            public Map<String, Boolean> roleLogins() {
                Map<String, Boolean> out = new TreeMap<>();
                for (Roles.Role r : self.roles.all()) out.put(r.name(), r.login());
                return out;
            }

            @Override
            public Map<String, String> settings() {
                return settings;
            }

            @Override
            public List<HydrationProgress> hydrationProgress() {
                return self.hydrationProgress();
            }

            @Override
            public List<ArrangementPart> arrangementSizes() {
                return self.arrangementSizes();
            }
        };
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
     * say otherwise, as they do in PostgreSQL). DDL is not transactional here: it takes effect at
     * once, whatever follows.
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
                each.accept(st instanceof Statement.Copy c && copies != null ? copies.copy(c, sql) : execute(session, st, sql));
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
        if (st instanceof Statement.Fetch f) return guarded(session, st, () -> fetch(session, f));
        if (st instanceof Statement.Checkpoint c) return guarded(session, st, () -> checkpoint(session));
        Result r;
        synchronized (this) {
            try {
                r = guarded(session, st, () -> run(session, st, sql));
            } finally {
                persistCatalog();
                noteDurable(session);
            }
        }
        awaitDurable(session);
        return r;
    }

    /**
     * Notes, under the coordinator, what the statement must wait for before it answers: every
     * write appended so far (its own, and all it could have read), not the later ones other
     * sessions append while it waits.
     */
    private void noteDurable(Session session) {
        if (storage != null) session.durableAt = storage.appended();
    }

    /**
     * Waits, without the coordinator, until every write committed so far is durable: called before
     * any answer goes to a client, so that none acknowledges or shows a write a crash could take back.
     */
    private void awaitDurable(Session session) {
        java.util.concurrent.CompletableFuture<Void> durable = session.durableAt;
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

    /** Runs {@code body} for statement {@code st} of {@code session}, as {@link #execute} runs a statement. */
    synchronized <T> T execute(Session session, Statement st, String sql, java.util.function.Supplier<T> body) {
        return guarded(session, st, body);
    }

    /** A session ends: its open block is rolled back and its cursors close. */
    synchronized void closeSession(Session session) {
        session.reset();
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
                if (q.emitChanges()) throw new SqlException("0A000", "EMIT CHANGES is served by subscribe(), not by execute()", q.pos());
                Binder binder = binder(session);
                BoundQuery bound = binder.bindQuery(q.query());
                if (q.asOf() != null) yield queryAsOf(session, bound, binder.systemTime(q.asOf(), "AS OF"), q.asOf().pos());
                yield query(session, bound);
            }
            case Statement.CreateTable c -> createTable(c, sql);
            case Statement.CreateView v -> createView(session, v, sql);
            case Statement.CreateIndex i -> createIndex(session, i, sql);
            case Statement.Drop d -> drop(d);
            case Statement.Insert i -> insert(session, i);
            case Statement.Update u -> update(session, u);
            case Statement.Delete d -> delete(session, d);
            case Statement.Transaction t -> transaction(session, t);
            case Statement.Show s -> show(session, s);
            case Statement.Explain e -> explain(session, e);
            case Statement.Subscribe s -> throw new SqlException("0A000", "SUBSCRIBE is served by subscribe(), not by execute()", s.pos());
            case Statement.AdvanceClock a -> advanceClock(a);
            case Statement.Checkpoint c -> throw new IllegalStateException("CHECKPOINT runs without the coordinator (see execute)");
            case Statement.AlterRetainHistory a -> alterRetainHistory(a);
            case Statement.CreateRole r -> createRole(r);
            case Statement.AlterRole r -> alterRole(r);
            case Statement.DropRole r -> dropRole(r);
            case Statement.Set s -> set(session, s);
            case Statement.Copy c -> {
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

    /** Whether a COPY ... TO STDOUT streams a subscription's changes rather than a query's rows. */
    static boolean streams(Statement.Copy c) {
        return c.query() instanceof Statement.Subscribe || (c.query() instanceof Statement.QueryStatement q && q.emitChanges());
    }

    /** COPY table [(cols)] TO STDOUT or COPY (query) TO STDOUT: the rows, tagged {@code COPY n}. */
    private Result copyTo(Session session, Statement.Copy c) {
        dev.tributary.sql.ast.Query query;
        if (c.query() instanceof Statement.QueryStatement q) {
            if (q.asOf() != null) throw new SqlException("0A000", "SELECT ... AS OF is not supported yet", q.asOf().pos());
            query = q.query();
        } else {
            String name = nameOf(c.table(), c.pos());
            CatalogItem item = byName.get(name);
            if (item == null || item instanceof CatalogItem.Index) throw new SqlException("42P01", "relation \"" + name + "\" does not exist");
            List<String> cols = new ArrayList<>();
            for (String col : c.columns()) {
                if (indexOfColumn(item.columns(), col) < 0) throw new SqlException("42703", "column \"" + col + "\" of relation \"" + name + "\" does not exist");
                if (cols.contains(dev.tributary.sql.parser.SqlFormatter.ident(col))) throw new SqlException("42701", "column \"" + col + "\" specified more than once");
                cols.add(dev.tributary.sql.parser.SqlFormatter.ident(col));
            }
            query = Parser.parseQuery("SELECT " + (cols.isEmpty() ? "*" : String.join(", ", cols)) + " FROM " + dev.tributary.sql.parser.SqlFormatter.ident(name));
        }
        Result r = query(session, new Binder(this).bindQuery(query));
        return new Result("COPY " + r.rows().size(), r.columns(), r.types(), r.rows());
    }

    /** Starts COPY table [(cols)] FROM STDIN: checks the table and columns before the client sends data. */
    CopyIn copyIn(Session session, Statement.Copy c) {
        synchronized (this) {
            return guarded(session, c, () -> {
                if (!c.from()) throw new IllegalArgumentException("not a COPY FROM");
                String name = nameOf(c.table(), c.pos());
                CatalogItem item = byName.get(name);
                if (item == null || item instanceof CatalogItem.Index) throw new SqlException("42P01", "relation \"" + name + "\" does not exist");
                if (!(item instanceof CatalogItem.Table t)) {
                    throw new SqlException("42809", "cannot copy to " + item.kind() + " \"" + name + "\"", 0, "Only tables can be written to; views are maintained from them.");
                }
                List<Integer> targets = new ArrayList<>();
                for (String col : c.columns()) {
                    int i = indexOfColumn(t.columns(), col);
                    if (i < 0) throw new SqlException("42703", "column \"" + col + "\" of relation \"" + name + "\" does not exist");
                    if (targets.contains(i)) throw new SqlException("42701", "column \"" + col + "\" specified more than once");
                    targets.add(i);
                }
                if (c.columns().isEmpty()) targets.addAll(range(t.columns().size()));
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
        awaitDurable(session);
        return r;
    }

    private synchronized Result finishCopyLocked(Session session, CopyIn copy, CatalogItem.Table table, int[] targets, List<Object[]> rows, BytesColumn encoded,
            SqlException error) {
        try {
            return writeCopy(session, copy, table, targets, rows, encoded, error);
        } finally {
            noteDurable(session);
        }
    }

    private Result writeCopy(Session session, CopyIn copy, CatalogItem.Table table, int[] targets, List<Object[]> rows, BytesColumn encoded,
            SqlException error) {
        try {
            if (error != null) throw error;
            CatalogItem.Table t = byId.get(table.id()) instanceof CatalogItem.Table now ? now : null;
            if (t == null || !t.columns().equals(table.columns())) {
                throw new SqlException("42P01", "relation \"" + table.name() + "\" was dropped or changed during COPY");
            }
            RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
            BytesColumn slab = encoded != null ? encoded : encodeWithDefaults(copy, t, targets, rows, codec);
            if (!t.primaryKey().isEmpty()) {
                // the keys are checked at once, in one slab; a duplicate names the line that repeats its key
                BytesColumn keys = primaryKeys(t, codec, slab);
                int repeat = RowSlab.firstRepeat(keys);
                Map<Row, Long> pendingKeys = pendingKeyCounts(t, session);
                Map<Row, Long> committed = committedKeyCounts(t, rowsOf(keys));
                if (repeat >= 0 || !pendingKeys.isEmpty() || !committed.isEmpty()) {
                    // some key is there twice: the first line that repeats one is the error's
                    Map<Row, Long> counts = new HashMap<>(pendingKeys);
                    committed.forEach((k, n) -> counts.merge(k, n, Long::sum));
                    for (int r = 0; r < keys.size(); r++) {
                        Row key = RowDataType.INSTANCE.get(keys, r);
                        if (counts.merge(key, 1L, Long::sum) > 1) throw duplicateKey(t, key).withContext(copy.lineContext(r));
                    }
                }
            }
            // every key once (a repeat was an error above); a table without a key takes repeated rows as they come
            write(session, t, new RowSlab(slab), true);
            return Result.command("COPY " + slab.size());
        } catch (SqlException e) {
            throw failed(session, e);
        }
    }

    /** The rows of a COPY of some columns, with the others' defaults, encoded into one slab; NOT NULL checked. */
    private BytesColumn encodeWithDefaults(CopyIn copy, CatalogItem.Table t, int[] targets, List<Object[]> rows, RowCodec codec) {
        Instant statementTime = Instant.ofEpochMilli(oracle.readTime());
        boolean[] given = new boolean[t.columns().size()];
        for (int i : targets) given[i] = true;
        BytesColumn slab = new BytesColumn(rows.size(), Math.max(16, rows.size() * 16));
        RowCodec.Builder builder = codec.builder();
        for (int r = 0; r < rows.size(); r++) {
            Object[] row = new Object[t.columns().size()];
            try {
                for (int i = 0; i < row.length; i++) {
                    if (given[i]) continue;
                    // a default is computed per row, as INSERT does (it may be now())
                    row[i] = t.defaults().isEmpty() ? null : ScalarExprs.bindStatementTime(t.defaults().get(i), statementTime).eval(new Object[0]);
                }
                Object[] values = rows.get(r);
                for (int k = 0; k < targets.length; k++) row[targets[k]] = values[k];
                checkNotNull(t, row);
            } catch (SqlException e) {
                throw e.context() == null ? e.withContext(copy.context(r)) : e;
            }
            builder.reset();
            for (Object v : row) builder.putValue(v);
            slab.add(builder.buffer(), 0, builder.length());
        }
        return slab;
    }

    /**
     * The primary key of each row of {@code rows}, in the key form of its index (see
     * {@link Dataflows#primaryKeyOf}), in one slab: a one-column key of one encoding is a byte
     * range of its row, copied as it is.
     */
    private BytesColumn primaryKeys(CatalogItem.Table t, RowCodec codec, BytesColumn rows) {
        int n = rows.size();
        BytesColumn keys = new BytesColumn(n, Math.max(16, n * 8));
        int column = t.primaryKey().size() == 1 ? t.primaryKey().get(0) : -1;
        if (column >= 0 && RowCodec.oneEncoding(t.columns().get(column).type().kind())) {
            byte[] b = rows.slab();
            for (int r = 0; r < n; r++) {
                int from = codec.columnStart(b, rows.start(r), column);
                keys.add(b, from, codec.columnEnd(b, from, column) - from);
            }
            return keys;
        }
        java.util.function.Function<Row, Row> keyOf = primaryKeyOf(t);
        for (int r = 0; r < n; r++) RowDataType.INSTANCE.append(keys, keyOf.apply(RowDataType.INSTANCE.get(rows, r)));
        return keys;
    }

    /** The values of {@code column} as rows, made as they are iterated. */
    private static java.util.Collection<Row> rowsOf(BytesColumn column) {
        return new java.util.AbstractList<>() {
            @Override
            public Row get(int i) {
                return RowDataType.INSTANCE.get(column, i);
            }

            @Override
            public int size() {
                return column.size();
            }
        };
    }

    /** A COPY FROM the client abandoned: its error, failing the open block. */
    synchronized SqlException failCopy(Session session, SqlException error) {
        if (session.inTransaction) session.aborted = true;
        return error;
    }

    // ------------------------------------------------------------------ cursors

    private Result declare(Session session, Statement.DeclareCursor d) {
        // the extended protocol's implicit transaction ends at the next Sync: not a block a cursor can live in, as in
        // PostgreSQL; a multi-statement Query's implicit block is one
        if (!session.inTransaction || (session.implicit && !session.multiStatement)) throw new SqlException("25P01", "DECLARE CURSOR can only be used in transaction blocks", d.pos());
        if (session.cursors.containsKey(d.name())) throw new SqlException("42P03", "cursor \"" + d.name() + "\" already exists", d.pos());
        Cursor cursor;
        if (d.query() instanceof Statement.QueryStatement q && !q.emitChanges()) {
            cursor = Cursor.over(run(session, q, null));
        } else {
            cursor = Cursor.subscribing();
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
                i = (Interval) new Binder(this).constant(f.timeout(), SqlType.INTERVAL);
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

    // ------------------------------------------------------------------ queries

    /** Runs a bound query at the current read time and presents it (ORDER BY applied). */
    Result query(Session session, BoundQuery q) {
        return present(q, rowsOf(session, q.plan(), q.plan().types()));
    }

    /** A query's rows as its result: in its ORDER BY, without the columns only sorting needed. */
    private static Result present(BoundQuery q, List<Object[]> rows) {
        if (!q.order().isEmpty()) rows.sort(Renderer.rowOrder(q.order(), q.plan().types()));
        List<Object[]> visible = new ArrayList<>(rows.size());
        for (Object[] r : rows) visible.add(r.length == q.visible() ? r : java.util.Arrays.copyOf(r, q.visible()));
        return new Result("SELECT " + visible.size(), q.names(), q.types(), visible);
    }

    /**
     * Runs a bound query at the past time {@code t}, which must lie in its inputs' retained history
     * and not after the latest complete time. It reads the stored arrangements (not indexes, whose
     * history is their own) as they were at {@code t}; {@code now()} in it is {@code t}.
     */
    private Result queryAsOf(Session session, BoundQuery q, long t, int pos) {
        if (!session.pending.isEmpty()) {
            throw new SqlException("0A000", "SELECT ... AS OF in a transaction block that has written is not supported", pos,
                    "It reads committed history; run it outside the block or before its writes.");
        }
        long now = oracle.readTime();
        checkRetained(q.plan(), t, now, pos, true);
        Plan plan = physical(q.plan(), t, false, new HashSet<>());
        return present(q, decodeAll(readEverywhere(session, plan, t, now), q.plan().types()));
    }

    /**
     * Fails unless every stored collection {@code plan} reads still holds its history at {@code t}
     * (72000, naming {@code what} asked for it, the collection and its retained range) and, for
     * reads ({@code mustBeComplete}), unless {@code t} is not after {@code now}, the latest complete
     * time (22023). CHANGES inside the plan are checked at their own times too.
     */
    private void checkRetained(Plan plan, long t, long now, int pos, boolean mustBeComplete) {
        if (mustBeComplete && t > now) {
            throw new SqlException("22023", "AS OF " + t + " is in the future: the latest complete time is " + now, pos);
        }
        checkHistory(plan, t, now, pos, "AS OF " + t);
        checkChanges(plan, now, pos);
    }

    /** Fails unless each {@code CHANGES(x AS OF since)} and {@code AS OF SYSTEM TIME ... SINCE since} in {@code plan} finds x's history from its since on. */
    private void checkChanges(Plan plan, long now, int pos) {
        if (plan instanceof Plan.Changes c) checkHistory(c.input(), c.since(), now, pos, "CHANGES(... AS OF " + c.since() + ")");
        if (plan instanceof Plan.AsOfLookup a) checkHistory(a.dimension(), a.since(), now, pos, "AS OF SYSTEM TIME ... SINCE " + a.since());
        Plans.withInputs(plan, in -> {
            checkChanges(in, now, pos);
            return in;
        });
    }

    private void checkHistory(Plan plan, long t, long now, int pos, String what) {
        Set<Long> inputs = new java.util.TreeSet<>();
        Plans.mapGets(plan, g -> {
            inputs.add(g.id());
            return null;
        });
        for (long id : inputs) {
            long since = compute.since(id);
            if (t < since) {
                CatalogItem item = byId.get(id);
                String kind = item.kind();
                throw new SqlException("72000", what + " is before the history " + kind + " \"" + item.name()
                        + "\" retains: [" + since + ", " + now + "]", pos,
                        "Keep more history with ALTER " + kind.toUpperCase(java.util.Locale.ROOT) + " " + item.name()
                                + " SET (RETAIN HISTORY FOR '...'), or ask for a time in that range.");
            }
        }
    }

    /**
     * Reads let history go at most once per {@link #COMPACTION_INTERVAL_MS} of system time (the
     * clock's ticks do it too): moving every trace's since on each read made the workers re-merge
     * the same batches for every point query. Returns the holds to compact with, or null when
     * it is not due.
     */
    private Map<Long, Long> compactionDue(long now) {
        if (now - lastCompaction < COMPACTION_INTERVAL_MS) return null;
        lastCompaction = now;
        return holds(now);
    }

    private static final long COMPACTION_INTERVAL_MS = 1_000;
    private long lastCompaction = Long.MIN_VALUE / 2;

    /** The least time stored collection or index {@code name} is complete up to on the workers, for tests. */
    synchronized long upperOf(String name) {
        return compute.upper(byName.get(name).id());
    }

    /** The earliest time stored collection or index {@code id} is still readable at. */
    private long sinceOf(long id) {
        return compute.since(id);
    }

    /** What each object's history policy keeps at time {@code now}: object id to the earliest time it must stay readable at. */
    private Map<Long, Long> holds(long now) {
        Map<Long, Long> h = new HashMap<>();
        retention.forEach((id, policy) -> h.put(id, policy.since(now)));
        return Map.copyOf(h);
    }

    /** A binder for {@code session}'s statements, planning AS OF SYSTEM TIME as its {@code asof_join} setting says. */
    private Binder binder(Session session) {
        return new Binder(catalogFor(session)).desugarAsOfSystemTime(desugarsAsOf(session));
    }

    private static boolean desugarsAsOf(Session session) {
        return "desugared".equals(session.settings.get("asof_join"));
    }

    /** A maintained query's plan with now() in its WHERE as temporal filters (0A000, at {@code pos}, for other uses of now()). */
    private static Plan temporal(Plan plan, int pos) {
        try {
            return dev.tributary.sql.plan.TemporalFilters.extract(plan);
        } catch (SqlException e) {
            throw new SqlException(e.sqlState(), e.getMessage(), pos, e.hint());
        }
    }

    /** The plan as it will run: statement time bound, optimized, and (without uncommitted writes) using indexes in joins. */
    private Plan physical(Plan bound, long t, boolean useIndexes, Set<Long> indexesUsed) {
        planned++;
        Plan plan = Optimizer.fold(Plans.atStatementTime(bound, Instant.ofEpochMilli(t)));
        return Optimizer.prune(useIndexes ? IndexSelection.apply(plan, indexes(), indexesUsed, this::sinceOf) : IndexSelection.binaryOnly(plan));
    }

    /** The rows of {@code unbound} now, each repeated by its multiplicity. */
    private List<Object[]> rowsOf(Session session, Plan unbound, List<SqlType> types) {
        long t = readTimeFor(unbound);
        checkChanges(unbound, t, 0);
        return rowsAt(session, physical(unbound, t, session.pending.isEmpty(), new HashSet<>()), t, types);
    }

    /** The rows of the physical {@code plan} at time {@code t} (see {@link #physical}), each repeated by its multiplicity. */
    private List<Object[]> rowsAt(Session session, Plan plan, long t, List<SqlType> types) {
        List<Object[]> constant = Peek.constantRows(plan);
        if (constant != null) {
            answeredLocally++; // SELECT 1, SELECT version(): no worker needed
            return constant;
        }
        if (session.pending.isEmpty()) {
            List<Object[]> reduced = reducedByScan(session, plan, t);
            if (reduced != null) return reduced;
        }
        Peek peek = Peek.of(plan, indexes());
        // a block's own writes to the table a peek reads are added to what the peek finds
        Map<Row, Long> ownWrites = peek == null ? null : session.pending.get(peek.source());
        boolean peekable = peek != null && (session.pending.isEmpty() || byId.get(peek.source()) instanceof CatalogItem.Table
                || java.util.Collections.disjoint(baseTablesOf(peek.source()), session.pending.keySet()));
        if (!session.pending.isEmpty() && !peekable) {
            dataflowsBuilt++;
            // a transaction block reads its own writes: its changes are added to the tables, and
            // materialized views over them are computed from their plans rather than read
            Plan inlined = inlineMaterializedViews(plan);
            Map<Long, Map<Row, Long>> overlay = new HashMap<>(session.pending);
            Set<Long> tables = baseTables(plan);
            advanced(t + 1, tables);
            Dataflows.ResultBudget budget = session.resultBudget(compute.workers());
            Map<Row, Long> counts = Dataflows.Answer.combine(compute.onEveryWorker(t + 1, tables, null, (d, w) -> d.read(w, inlined, t, overlay, session::stop, budget)));
            return decodeAll(counts, types);
        }
        if (peekable && peek.index() == null && ownWrites == null) {
            // a scan: every worker runs the maps and filters over its part as it reads it
            scans++;
            MapFilterProject mfp = MapFilterProject.of(peek.steps(), Binder.typesOf(byId.get(peek.source()).columns()));
            Dataflows.ResultBudget budget = session.rowBudget();
            return Dataflows.ScanPart.combine(onEveryWorker(peek.source(), t, (d, w) -> d.scan(w, peek.source(), mfp, t, budget)), mfp.outCodec(), budget);
        }
        if (peekable) {
            if (peek.index() == null) scans++;
            else if (!peek.keys().isEmpty()) seeks++; // no key (NULL = x) finds nothing: no seek
            Map<Row, Long> source = Dataflows.Answer.combine(onEveryWorker(peek.source(), t, (d, w) -> peek.index() != null
                    ? d.lookup(w, peek.index().id(), peek.keys(), t)
                    : d.read(w, new Plan.Get(peek.source(), "", List.of()), t)));
            if (ownWrites != null) {
                // The filters run over every row found, so the block's rows can all be added; a
                // row it removes that the seek did not find (another key) is left out. A seek's
                // are first narrowed to its keys, or a block of 1,000 UPDATEs by key decoded and
                // filtered all its earlier ones for each (quadratic in the block's size).
                Map<Row, Map<Row, Long>> byKey = peek.index() != null && peek.index().primaryKey() ? session.pendingRowsByKey.get(peek.source()) : null;
                if (byKey != null) ownWrites = Peek.ofKeys(byKey, peek.keys());
                else if (peek.index() != null) ownWrites = Peek.withKeys(ownWrites, peek, Binder.typesOf(byId.get(peek.source()).columns()));
                ownWrites.forEach((row, n) -> source.merge(row, n, Long::sum));
                source.values().removeIf(n -> n <= 0);
            }
            List<SqlType> sourceTypes = Binder.typesOf(byId.get(peek.source()).columns());
            for (Map.Entry<Row, Long> e : source.entrySet()) {
                if (e.getValue() < 0) throw new SqlException("XX000", "a stored collection holds a row a negative number of times; this is a bug");
            }
            List<Object[]> rows = peek.apply(source, sourceTypes);
            // Filters and projections only shrink what was found: when that fits, so does the
            // answer, and it need not be encoded again to be measured
            boolean grows = peek.steps().stream().anyMatch(st -> st instanceof Plan.Map);
            if (grows || !session.rowBudget().takeAll(source)) {
                Dataflows.ResultBudget budget = session.rowBudget();
                if (!budget.takeRows(rows, types)) throw budget.exceeded();
            }
            return rows;
        }
        dataflowsBuilt++; // every plan that only reads a stored collection was peeked above
        return decodeAll(readEverywhere(session, plan, t, t), types);
    }

    /** The most updates a worker's part of a stored collection may hold for {@link #reducedByScan} to scan it. */
    static final long AGGREGATE_SCAN_UPDATES = 1L << 18;
    /** The most bytes of input rows {@link #reducedByScan} collects (more: the dataflow aggregates them). */
    static final long AGGREGATE_INPUT_BYTES = 16L << 20;

    /**
     * The rows of {@code plan} when it is an aggregate (with maps, filters and projections above
     * it) over maps, filters and projections of one stored collection of moderate size: the
     * workers scan their parts as for a plain scan, and the coordinator groups and aggregates the
     * rows that pass ({@link Aggregation#reduce}), with no dataflow to build, hydrate and drop
     * (a dashboard's {@code SELECT sum(n) FROM v WHERE region = $1} over 100k rows took 18-25
     * ms that way). Null when the plan is not of that shape, a part is too large to scan in one
     * step, the input rows outgrow {@link #AGGREGATE_INPUT_BYTES} or, consolidated, {@link
     * Dataflows.ScanPart#CONSOLIDATED_ROWS} on a worker, or anything fails: then the
     * dataflow computes the answer, and reports the error exactly as a view would.
     */
    private List<Object[]> reducedByScan(Session session, Plan plan, long t) {
        List<Plan> above = new ArrayList<>();
        Plan.Reduce reduce = reduceUnder(plan, above);
        Peek peek = reduce == null ? null : Peek.of(reduce.input(), indexes());
        if (peek == null || peek.index() != null) return null;
        MapFilterProject mfp = MapFilterProject.of(peek.steps(), Binder.typesOf(byId.get(peek.source()).columns()));
        Dataflows.ResultBudget budget = new Dataflows.ResultBudget(AGGREGATE_INPUT_BYTES, null);
        List<Dataflows.ScanPart> parts = onEveryWorker(peek.source(), t, (d, w) -> d.scan(w, peek.source(), mfp, t, budget, AGGREGATE_SCAN_UPDATES, true));
        if (parts.stream().anyMatch(part -> part.skipped)) return null;
        try {
            Dataflows.Counted input = Dataflows.Counted.combine(parts, mfp.outCodec(), budget);
            List<Object[]> reduced = Aggregation.reduce(reduce, input.rows(), input.counts());
            if (above.isEmpty()) return reduced;
            MapFilterProject top = MapFilterProject.of(above, reduce.types());
            RowCodec codec = new RowCodec(reduce.types());
            List<Object[]> out = new ArrayList<>();
            for (Object[] r : reduced) {
                Row row = top.apply(codec.encode(r));
                if (row != null) out.add(top.outCodec().decode(row));
            }
            scans++;
            return out;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The Reduce under {@code plan}'s maps, filters and projections, which go into {@code above} (outermost last); null if there is none. */
    private static Plan.Reduce reduceUnder(Plan plan, List<Plan> above) {
        Plan p = plan;
        while (!(p instanceof Plan.Reduce)) {
            above.add(0, p);
            p = switch (p) {
                case Plan.Filter f -> f.input();
                case Plan.Map m -> m.input();
                case Plan.Project pr -> pr.input();
                default -> null;
            };
            if (p == null) return null;
        }
        return (Plan.Reduce) p;
    }

    /**
     * {@code read} run on every worker for a read of stored collection {@code source} at
     * {@code t}, the tables under it first promised complete past {@code t}; afterwards history
     * may go, if due.
     */
    private <R> List<R> onEveryWorker(long source, long t, java.util.function.BiFunction<Dataflows, dev.tributary.timely.Worker, R> read) {
        Map<Long, Long> holds = compactionDue(t);
        Set<Long> tables = baseTablesOf(source);
        advanced(t + 1, tables);
        return compute.onEveryWorker(t + 1, tables, holds, read);
    }

    /**
     * Every worker's part of {@code plan} at {@code t}, combined, with the inputs first promised
     * complete up to {@code now} (at or after {@code t}); afterwards history may go, if due.
     */
    private Map<Row, Long> readEverywhere(Session session, Plan plan, long t, long now) {
        Map<Long, Long> holds = compactionDue(now);
        Set<Long> tables = baseTables(plan);
        advanced(now + 1, tables);
        if (plan instanceof Plan.Get) {
            // a stored collection's arrangement, read as it is: no dataflow to wait for
            Map<Row, Long> rows = Dataflows.Answer.combine(compute.onEveryWorker(now + 1, tables, holds, (d, w) -> d.read(w, plan, t, Map.of(), session::stop)));
            checkResultSize(session, rows);
            return rows;
        }
        Dataflows.ResultBudget budget = session.resultBudget(compute.workers());
        Session.Stop stop = session.new Stop();
        List<Dataflows.PendingRead> reads = compute.onEveryWorker(now + 1, tables, holds, (d, w) -> d.startRead(w, plan, t, Map.of(), stop, budget));
        try {
            return Dataflows.Answer.combine(awaitReads(reads));
        } catch (RuntimeException e) {
            // the parts still running would outlive this statement: stop them
            stop.abandon();
            throw e;
        }
    }

    /** 53200 if {@code rows}, a read's answer, are more than the session's {@code max_result_size}. */
    private static void checkResultSize(Session session, Map<Row, Long> rows) {
        Dataflows.ResultBudget budget = session.rowBudget();
        if (!budget.takeAll(rows)) throw budget.exceeded();
    }

    /**
     * Each worker's part of a read under way, waiting for them with the coordinator free: while a
     * large query computes, other sessions' statements (writes included, at later times) run,
     * and the workers step them between the query's steps. What this statement holds (its read
     * time, its dataflow's imports, whose handles keep their history) does not depend on the lock.
     */
    private List<Dataflows.Answer> awaitReads(List<Dataflows.PendingRead> reads) {
        List<Dataflows.Answer> out = new ArrayList<>(reads.size());
        for (Dataflows.PendingRead r : reads) {
            awaitWorkers(r.result, () -> {});
            out.add(r.answer());
        }
        return out;
    }

    /**
     * Waits until {@code done} (completed by a worker) is, with this coordinator's monitor
     * released meanwhile (if held), running {@code eachTurn} at every look; 57P01 if the
     * database closes.
     */
    private void awaitWorkers(java.util.concurrent.Future<?> done, Runnable eachTurn) {
        for (int spins = 0; !done.isDone(); spins++) {
            if (closed) throw new SqlException("57P01", "terminating connection due to administrator command");
            eachTurn.run();
            if (spins < 200) {
                Thread.onSpinWait();
                continue;
            }
            try {
                if (Thread.holdsLock(this)) wait(1);
                else java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SqlException("57014", "canceling statement: the server is shutting down");
            }
        }
    }

    private static List<Object[]> decodeAll(Map<Row, Long> counts, List<SqlType> types) {
        RowCodec codec = new RowCodec(types);
        List<Object[]> rows = new ArrayList<>();
        for (Map.Entry<Row, Long> e : counts.entrySet()) {
            if (e.getValue() < 0) throw new SqlException("XX000", "a query result holds a row a negative number of times; this is a bug");
            Object[] values = codec.decode(e.getKey());
            for (long i = 0; i < e.getValue(); i++) rows.add(values);
        }
        return rows;
    }

    private Plan inlineMaterializedViews(Plan plan) {
        return Plans.mapGets(plan, g -> byId.get(g.id()) instanceof CatalogItem.MaterializedView m ? inlineMaterializedViews(m.plan()) : null);
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
        try {
            return bind(session, sql, st, declared, null);
        } catch (SqlException e) {
            throw failed(session, e);
        }
    }

    /**
     * {@code st} bound against the catalog as it is now. When {@code previous} is given (the
     * catalog changed since it was bound), the parameter types and result columns must stay.
     */
    private Prepared bind(Session session, String sql, Statement st, List<SqlType> declared, Prepared previous) {
        Binder binder = new Binder(catalogFor(session), declared).desugarAsOfSystemTime(desugarsAsOf(session));
        Prepared.Kind kind;
        BoundQuery query = null;
        Plan plan = null;
        CatalogItem.Table table = null;
        List<Plan> plans = new ArrayList<>();
        switch (st) {
            case Statement.QueryStatement q when !q.emitChanges() && q.asOf() == null -> {
                kind = Prepared.Kind.QUERY;
                query = binder.bindQuery(q.query());
                plans.add(query.plan());
            }
            case Statement.Insert i -> {
                kind = Prepared.Kind.INSERT;
                table = table(i.table(), i.pos(), "insert into");
                query = binder.bindInsert(table, i);
                plans.add(query.plan());
            }
            case Statement.Update u -> {
                kind = Prepared.Kind.UPDATE;
                table = table(u.table(), u.pos(), "update");
                plan = binder.bindUpdate(table, u.alias() != null ? u.alias() : table.name(), u.assignments(), u.where());
                plans.add(plan);
            }
            case Statement.Delete d -> {
                kind = Prepared.Kind.DELETE;
                table = table(d.table(), d.pos(), "delete from");
                plan = binder.bindDelete(table, d.alias() != null ? d.alias() : table.name(), d.where());
                plans.add(plan);
            }
            default -> kind = Prepared.Kind.OTHER;
        }
        List<SqlType> parameterTypes = binder.parameterTypes(plans);
        boolean rows = kind == Prepared.Kind.QUERY;
        Prepared p = new Prepared(sql, st, kind, declared, parameterTypes, rows ? query.names() : null, rows ? query.types() : null);
        if (previous != null && (!parameterTypes.equals(previous.parameterTypes()) || !java.util.Objects.equals(p.types(), previous.types()))) {
            throw new SqlException("0A000", "cached plan must not change result type");
        }
        p.version = catalogVersion;
        p.readsSystemCatalog = binder.readsSystemCatalog();
        p.desugarsAsOf = desugarsAsOf(session);
        p.query = query;
        p.plan = plan;
        p.table = table;
        return p;
    }

    /**
     * Runs {@code p} with parameter values {@code values} (each of its parameter type, NULL as
     * null). Nothing is parsed or bound again unless the catalog changed; a read without
     * uncommitted writes in view reuses the plan optimized at its first run, so a point lookup
     * through an index costs the seek.
     */
    Result execute(Session session, Prepared p, Object[] values) {
        if (values.length != p.parameterTypes().size()) {
            throw new SqlException("08P01", "bind message supplies " + values.length + " parameters, but prepared statement requires " + p.parameterTypes().size());
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null && !valueOf(p.parameterTypes().get(i).kind()).isInstance(values[i])) {
                throw new IllegalArgumentException("parameter $" + (i + 1) + " is " + p.parameterTypes().get(i) + ", held as "
                        + valueOf(p.parameterTypes().get(i).kind()).getSimpleName() + ", not as " + values[i].getClass().getSimpleName());
            }
        }
        Result r = pointRead(session, p, values);
        if (r == null) {
            boolean[] readNothing = {false};
            try {
                r = executeLocked(session, p, values, readNothing);
            } catch (RuntimeException e) {
                awaitDurable(session); // an error may tell of others' writes (a duplicate key)
                throw e;
            }
            // an INSERT of given values in a block (an implicit one too) shows nothing of the
            // database: its answer waits with its commit (COMMIT, or Sync in endImplicit), one
            // durable write instead of two (the writes in flight, and then its own)
            if (readNothing[0] && !r.hasRows()) return r;
        } else {
            noteDurable(session); // what the published index showed was appended by now
        }
        awaitDurable(session);
        return r;
    }

    private synchronized Result executeLocked(Session session, Prepared p, Object[] values, boolean[] readNothing) {
        try {
            Result r = runPrepared(session, p, values);
            readNothing[0] = session.inTransaction && p.kind == Prepared.Kind.INSERT && p.query != null && !p.readsSystemCatalog
                    && Plans.reads(p.query.plan()).isEmpty();
            return r;
        } finally {
            noteDurable(session);
        }
    }

    private Result runPrepared(Session session, Prepared p, Object[] values) {
        if (p.kind == Prepared.Kind.EMPTY) return Result.command("");
        if (p.kind == Prepared.Kind.OTHER) return execute(session, p.statement, p.sql);
        if (session.aborted) {
            throw new SqlException("25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        try {
            // a snapshot of the system catalogs (settings, roles, the catalog itself) is taken per run
            if (p.version != catalogVersion || p.readsSystemCatalog || p.desugarsAsOf != desugarsAsOf(session)) {
                // bound as it was first (inference included), then held to the types it had
                Prepared again = bind(session, p.sql, p.statement, p.declared, p);
                p.desugarsAsOf = again.desugarsAsOf;
                p.version = again.version;
                p.query = again.query;
                p.plan = again.plan;
                p.table = again.table;
                p.physical = null;
                p.pointRead = null;
            }
            Plan bound = p.query != null ? p.query.plan() : p.plan;
            List<Object[]> rows = preparedRows(session, p, bound, values);
            return switch (p.kind) {
                case QUERY -> present(p.query, rows);
                case INSERT -> insertRows(session, p.table, rows);
                case UPDATE -> updateRows(session, p.table, rows);
                case DELETE -> deleteRows(session, p.table, rows);
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
        if (session.pending.isEmpty() && session.cursors.isEmpty()) {
            session.reset(); // nothing to commit or close: no need to wait for the coordinator
            awaitDurable(session); // what a statement of the block answered without waiting for
            return;
        }
        endImplicitLocked(session);
        awaitDurable(session);
    }

    private synchronized void endImplicitLocked(Session session) {
        boolean failed = session.aborted;
        Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>(session.pending);
        session.reset();
        try {
            if (!failed) commitBlock(pending);
        } finally {
            noteDurable(session);
        }
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
            case TEXT, VARCHAR, CHAR, UNKNOWN -> String.class;
            case BYTEA -> dev.tributary.sql.types.Bytea.class;
            case DATE -> java.time.LocalDate.class;
            case TIME -> java.time.LocalTime.class;
            case TIMESTAMP -> java.time.LocalDateTime.class;
            case TIMESTAMPTZ -> Instant.class;
            case INTERVAL -> Interval.class;
            case ARRAY, RECORD -> List.class;
        };
    }

    /** The rows of prepared plan {@code bound} with {@code values} for its parameters. */
    private List<Object[]> preparedRows(Session session, Prepared p, Plan bound, Object[] values) {
        long t = readTimeFor(bound);
        checkChanges(bound, t, 0);
        List<SqlType> types = bound.types();
        if (p.physical == null) {
            // optimized before the statement time and the values are known, so it serves every run
            p.physical = Optimizer.prune(IndexSelection.apply(Optimizer.fold(bound), indexes(), new HashSet<>(), this::sinceOf));
            planned++;
        }
        if (p.kind == Prepared.Kind.INSERT) {
            // VALUES rows read no table, so uncommitted writes do not matter to them
            List<Object[]> local = Peek.constantRows(Plans.atStatementTime(Plans.withParameters(p.physical, values, p.parameterTypes()), Instant.ofEpochMilli(t)));
            if (local != null) return local;
        }
        if (!session.pending.isEmpty()) {
            // reading the block's own writes: the general path, planned for this run
            return rowsAt(session, physical(Plans.withParameters(bound, values, p.parameterTypes()), t, false, new HashSet<>()), t, types);
        }
        Plan withValues = Plans.withParameters(p.physical, values, p.parameterTypes());
        if (p.kind == Prepared.Kind.QUERY && p.pointRead == null) p.pointRead = pointReadOf(p, withValues);
        Plan plan = Plans.atStatementTime(withValues, Instant.ofEpochMilli(t));
        return rowsAt(session, plan, t, types);
    }

    /**
     * What lets later runs of prepared query {@code p} be point reads (see {@link #pointRead}),
     * judged from one run's plan {@code withValues}: a seek in an index, with no use of the
     * statement time and no source whose contents change with time alone (a temporal filter);
     * null otherwise.
     */
    private Prepared.PointRead pointReadOf(Prepared p, Plan withValues) {
        if (p.readsSystemCatalog || Plans.usesStatementTime(p.physical)) return null;
        Peek peek = Peek.of(withValues, indexes());
        if (peek == null || peek.index() == null || changesWithTime(peek.source())) return null;
        List<SqlType> sourceTypes = Binder.typesOf(byId.get(peek.source()).columns());
        return new Prepared.PointRead(catalogVersion, p.query, p.physical, indexes(), peek.index().id(), sourceTypes, p.desugarsAsOf,
                Peek.Seek.of(p.physical, peek.index(), sourceTypes), baseTablesOf(peek.source()).stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * The time to read {@code plan} (not yet bound to the statement time) at: the clock's now when
     * its answer may change with the clock alone (it uses now(), or reads a view that does or
     * filters by it), else the time its tables are complete through ({@link #readTimeOfData}),
     * which needs no input moved: a read then costs the same whatever else the workers maintain.
     */
    private long readTimeFor(Plan plan) {
        boolean[] clock = {Plans.usesStatementTime(plan) || readsHistory(plan)};
        if (!clock[0]) {
            Plans.mapGets(plan, g -> {
                clock[0] |= changesWithTime(g.id());
                return null;
            });
        }
        return clock[0] ? oracle.readTime() : readTimeOfData(baseTables(plan));
    }

    /** Whether {@code plan} reads history from a given time on (CHANGES, AS OF SYSTEM TIME ... SINCE): its answer grows with the read time, so it reads at the clock's now. */
    private static boolean readsHistory(Plan plan) {
        return Plans.anyNode(plan, p -> p instanceof Plan.Changes || p instanceof Plan.AsOfLookup);
    }

    /**
     * A time to read {@code tables} at whose answer is the same as now, for reads whose answer
     * cannot change without a write: the latest time any of them is complete through. Every write
     * to them committed so far is at or before it (a write moves its table past it), and so is
     * every time their arrangements were compacted to; the tables behind it are moved to it.
     */
    private long readTimeOfData(Set<Long> tables) {
        if (tables.isEmpty()) return oracle.readTimeOfData();
        // not before the latest compaction, which every trace may have reached: a read of a table
        // nothing moved since (one restored at a restart, say) sees the same rows there
        long t = Math.max(0, lastCompaction);
        for (long id : tables) t = Math.max(t, tableUpper.getOrDefault(id, 0L) - 1);
        return t;
    }

    // ------------------------------------------------------------------ input frontiers

    /**
     * Each table's input upper on the workers (the same on each): its later writes come at or
     * after it, and its contents are final before it. Inputs move on their own: a write moves the
     * tables whose changes meet its own in some dataflow ({@link #advancedByWrite}), a read the
     * tables it reads, and only the clock's ticks move them all; so a statement's work does not
     * grow with the dataflows over tables it does not touch (200 views over two tables made every
     * SELECT 1 and every write elsewhere take 15 ms).
     */
    private final Map<Long, Long> tableUpper = new HashMap<>();

    /** The greatest upper of any table: where a new table's input starts. */
    private long maxUpper;

    /** Notes that {@code tables} were moved to {@code time} (see {@link Dataflows#advance(long, Set)}). */
    private void advanced(long time, Set<Long> tables) {
        maxUpper = Math.max(maxUpper, time);
        for (long id : tables) tableUpper.merge(id, time, Math::max);
    }

    /** Notes that every table was moved to {@code time}. */
    private void advancedAll(long time) {
        maxUpper = Math.max(maxUpper, time);
        tableUpper.replaceAll((id, u) -> Math.max(u, time));
    }

    private final Map<Long, Set<Long>> baseTablesCache = new HashMap<>();
    private long baseTablesVersion = -1;

    /** The tables stored collection, view or index {@code id} is computed from (itself for a table). */
    private Set<Long> baseTablesOf(long id) {
        if (baseTablesVersion != catalogVersion) {
            baseTablesCache.clear();
            baseTablesVersion = catalogVersion;
        }
        Set<Long> known = baseTablesCache.get(id);
        if (known != null) return known;
        CatalogItem item = byId.get(id);
        Set<Long> out = switch (item) {
            case null -> Set.of();
            case CatalogItem.Table t -> Set.of(t.id());
            case CatalogItem.View v -> baseTables(v.plan());
            case CatalogItem.MaterializedView m -> baseTables(m.plan());
            case CatalogItem.Index i -> baseTablesOf(i.on());
            case CatalogItem.SystemRelation r -> Set.of();
        };
        baseTablesCache.put(id, out);
        return out;
    }

    /** The tables {@code plan} reads, through the views and indexes it reads. */
    private Set<Long> baseTables(Plan plan) {
        Set<Long> out = new HashSet<>();
        Plans.mapGets(plan, g -> {
            out.addAll(baseTablesOf(g.id()));
            return null;
        });
        if (plan instanceof Plan.IndexedGet g) out.addAll(baseTablesOf(g.source()));
        return out;
    }

    /**
     * The tables a write to {@code written} moves forward with them: those, and every table some
     * dataflow (a materialized view, an index, a subscription) reads together with one of them, so
     * that what the write changes is complete at once, and no dataflow away from it does any work.
     */
    private Set<Long> advancedByWrite(Set<Long> written) {
        Set<Long> out = new HashSet<>(written);
        java.util.ArrayDeque<Long> todo = new java.util.ArrayDeque<>(written);
        Set<Long> seen = new HashSet<>(written);
        while (!todo.isEmpty()) {
            for (long dep : dependents.getOrDefault(todo.poll(), Set.of())) {
                if (!seen.add(dep)) continue;
                out.addAll(baseTablesOf(dep));
                todo.add(dep);
            }
        }
        for (LiveSubscription l : live) {
            Set<Long> reads = new HashSet<>();
            for (long id : l.reads()) reads.addAll(baseTablesOf(id));
            if (!java.util.Collections.disjoint(reads, written)) out.addAll(reads);
        }
        return out;
    }

    /** Whether stored collection {@code id}'s contents may change without a write: it or a view it reads has a temporal filter or uses the time. */
    private boolean changesWithTime(long id) {
        CatalogItem item = byId.get(id);
        Plan plan = item instanceof CatalogItem.MaterializedView m ? m.plan() : item instanceof CatalogItem.View v ? v.plan() : null;
        if (plan == null) return false;
        boolean[] found = {Plans.usesStatementTime(plan) || hasTemporalFilter(plan)};
        Plans.mapGets(plan, g -> {
            found[0] |= changesWithTime(g.id());
            return null;
        });
        return found[0];
    }

    private static boolean hasTemporalFilter(Plan plan) {
        return Plans.anyNode(plan, p -> p instanceof Plan.TemporalFilter);
    }

    /**
     * Runs prepared point query {@code p} on the calling thread, from the index shards the
     * workers published, without the coordinator's lock or a round trip through the workers.
     *
     * <p>It reads at the latest time every shard is complete through, and only when that is no
     * earlier than the latest write to the tables the index is computed from: the answer then
     * holds every write committed before it began, and shows no earlier state than any read
     * before it (their rows are the same from that write on). Returns null, and the caller takes the ordinary path,
     * when it cannot: no point read prepared, the catalog changed, a transaction block that wrote
     * or failed, the shards not yet caught up with the oracle, or errors in the collection read
     * (which the ordinary path reports).
     */
    private Result pointRead(Session session, Prepared p, Object[] values) {
        Prepared.PointRead r = p.pointRead;
        if (r == null || r.version() != catalogVersion) return null;
        if (session.aborted || !session.pending.isEmpty() || (session.inTransaction && !session.implicit) || session.cancelRequested
                || r.desugarsAsOf() != desugarsAsOf(session)) {
            return null;
        }
        Peek peek;
        List<Row> keys;
        if (r.seek() != null) {
            peek = r.seek().rest();
            Row key = r.seek().key(values);
            if (key == null) return null;
            keys = List.of(key);
        } else {
            peek = Peek.of(Plans.withParameters(r.physical(), values, p.parameterTypes()), r.indexes());
            if (peek == null || peek.index() == null || peek.index().id() != r.index()) return null;
            keys = peek.keys();
        }
        PublishedIndexes.Shard[] shards = new PublishedIndexes.Shard[published.workers()];
        if (!published.read(r.index(), shards)) return null;
        long t = PublishedIndexes.readableThrough(shards);
        if (t == Long.MIN_VALUE || t < oracle.lastWrite(r.tables())) return null;
        Map<Row, Long> rows = new LinkedHashMap<>();
        for (Row key : keys) {
            Map<Row, Long> found = Dataflows.lookup(shards, key, t);
            if (found == null) return null;
            found.forEach((row, n) -> rows.merge(row, n, Long::sum));
        }
        for (long n : rows.values()) if (n < 0) return null;
        publishedSeeks.increment();
        return present(r.query(), r.seek() != null ? peek.apply(rows, r.seek().sourceCodec()) : peek.apply(rows, r.sourceTypes()));
    }

    // ------------------------------------------------------------------ DDL

    private String nameOf(List<String> parts, int pos) {
        if (parts.size() > 2 || (parts.size() == 2 && !parts.get(0).equals("public"))) {
            throw new SqlException("3F000", "schema \"" + parts.get(0) + "\" does not exist", pos);
        }
        return parts.get(parts.size() - 1);
    }

    private void checkNew(String name, boolean ifNotExists, int pos) {
        if (byName.containsKey(name) && !ifNotExists) {
            throw new SqlException("42P07", "relation \"" + name + "\" already exists", pos);
        }
    }

    private void register(CatalogItem item, Set<Long> uses) {
        recordDurable(item, uses);
        catalogVersion++;
        byName.put(item.name(), item);
        byId.put(item.id(), item);
        for (long u : uses) dependents.computeIfAbsent(u, k -> new HashSet<>()).add(item.id());
    }

    /** How far back an object's history stays readable: {@code forMillis} behind the present, or everything from {@code pinAt} on. */
    private record HistoryPolicy(long forMillis, long pinAt) {
        long since(long now) {
            return forMillis >= 0 ? Math.max(0, now - forMillis) : pinAt;
        }
    }

    private HistoryPolicy policy(Statement.RetainHistory r) {
        if (r == null) return null;
        Binder binder = new Binder(this);
        if (r.pinAt() != null) return new HistoryPolicy(-1, binder.systemTime(r.pinAt(), "RETAIN HISTORY PIN AT"));
        Interval i = (Interval) binder.constant(r.interval(), SqlType.INTERVAL);
        if (i.months() != 0) throw new SqlException("22023", "RETAIN HISTORY FOR takes days, hours, minutes and seconds, not months", r.pos());
        long ms = i.days() * 86_400_000L + Math.floorDiv(i.micros(), 1000);
        if (ms < 0) throw new SqlException("22023", "RETAIN HISTORY FOR takes a positive interval, not " + i, r.pos());
        return new HistoryPolicy(ms, -1);
    }

    private Result alterRetainHistory(Statement.AlterRetainHistory a) {
        String name = nameOf(a.name(), a.pos());
        CatalogItem item = byName.get(name);
        if (item == null) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", a.pos());
        boolean fits = switch (a.kind()) {
            case TABLE -> item instanceof CatalogItem.Table;
            case MATERIALIZED_VIEW -> item instanceof CatalogItem.MaterializedView;
            case INDEX -> item instanceof CatalogItem.Index;
            case VIEW -> false;
        };
        if (!fits) throw new SqlException("42809", "\"" + name + "\" is not a " + a.kind().sql().toLowerCase(java.util.Locale.ROOT), a.pos());
        HistoryPolicy p = policy(a.retain());
        if (p == null) {
            setRetention(item.id(), null);
        } else {
            long since = compute.since(item.id());
            if (p.forMillis() < 0 && p.pinAt() < since) {
                throw new SqlException("72000", "cannot pin the history of " + item.kind() + " \"" + name + "\" at " + p.pinAt()
                        + ": it is retained only from " + since + " on", a.pos());
            }
            setRetention(item.id(), p);
        }
        return Result.command("ALTER " + a.kind().sql());
    }

    private Result createTable(Statement.CreateTable c, String sql) {
        String name = nameOf(c.name(), c.pos());
        if (byName.containsKey(name) && c.ifNotExists()) return Result.command("CREATE TABLE").withNotice(alreadyExists(name));
        checkNew(name, false, c.pos());
        List<Column> columns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Statement.ColumnDef d : c.columns()) {
            if (!seen.add(d.name())) throw new SqlException("42701", "column \"" + d.name() + "\" specified more than once", d.pos());
            columns.add(new Column(d.name(), d.type(), !d.notNull() && !c.primaryKey().contains(d.name())));
        }
        List<Integer> pk = new ArrayList<>();
        for (String k : c.primaryKey()) {
            int i = indexOfColumn(columns, k);
            if (i < 0) throw new SqlException("42703", "column \"" + k + "\" named in key does not exist", c.pos());
            if (pk.contains(i)) throw new SqlException("42701", "column \"" + k + "\" appears twice in primary key constraint", c.pos());
            pk.add(i);
        }
        List<ScalarExpr> defaults = new Binder(this).bindDefaults(c.columns());
        HistoryPolicy history = policy(c.retain());
        // the primary key's index, as PostgreSQL names it; the table's arrangement is keyed by it
        String pkName = name + "_pkey";
        if (!pk.isEmpty() && byName.containsKey(pkName)) throw new SqlException("42P07", "relation \"" + pkName + "\" already exists", c.pos());
        long id = nextId++;
        long pkIndex = pk.isEmpty() ? -1 : nextId++;
        CatalogItem.Table t = new CatalogItem.Table(id, name, columns, pk, defaults, text(sql, c));
        List<SqlType> types = Binder.typesOf(columns);
        int[] key = pk.stream().mapToInt(Integer::intValue).toArray();
        compute.createTable(id, name, types, key, pkIndex, pkName);
        tableUpper.put(id, maxUpper);
        register(t, Set.of());
        if (!pk.isEmpty()) {
            List<ScalarExpr> keys = new ArrayList<>();
            for (int k : key) keys.add(new ScalarExpr.ColumnRef(k, columns.get(k).type()));
            String pkSql = "CREATE UNIQUE INDEX " + dev.tributary.sql.parser.SqlFormatter.ident(pkName) + " ON " + dev.tributary.sql.parser.SqlFormatter.ident(name)
                    + " (" + String.join(", ", pk.stream().map(k -> dev.tributary.sql.parser.SqlFormatter.ident(columns.get(k).name())).toList()) + ")";
            register(new CatalogItem.Index(pkIndex, pkName, id, keys, pkSql, true), Set.of(id));
        }
        if (history != null) setRetention(id, history);
        return Result.command("CREATE TABLE");
    }

    private static int indexOfColumn(List<Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) if (columns.get(i).name().equals(name)) return i;
        return -1;
    }

    /** The text of statement {@code st} in {@code sql}: what the durable catalog records and replays. */
    private static String text(String sql, Statement st) {
        if (sql == null) return "";
        int at = Math.max(0, st.pos() - 1);
        for (dev.tributary.sql.parser.Parsed p : Parser.parseScript(sql)) {
            if (p.start() <= at && at < p.end()) return p.text().trim();
        }
        return sql.substring(at).split(";", 2)[0].trim();
    }

    private Result createView(Session session, Statement.CreateView v, String sql) {
        String name = nameOf(v.name(), v.pos());
        String tag = v.materialized() ? "CREATE MATERIALIZED VIEW" : "CREATE VIEW";
        if (byName.containsKey(name) && v.ifNotExists()) return Result.command(tag).withNotice(alreadyExists(name));
        CatalogItem existing = byName.get(name);
        if (existing != null && !(v.orReplace() && existing instanceof CatalogItem.View)) checkNew(name, false, v.pos());
        Binder binder = binder(session);
        BoundQuery q = binder.bindQuery(v.query());
        if (binder.readsSystemCatalog()) throw systemCatalogIn(v.materialized() ? "a materialized view" : "a view", v.pos());
        Plan plan = q.plan();
        if (plan.arity() > q.visible()) plan = new Plan.Project(plan, range(q.visible()));
        if (v.columns().size() > q.visible()) throw new SqlException("42601", "CREATE VIEW specifies more column names than columns", v.pos());
        List<Column> columns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < q.visible(); i++) {
            String cn = i < v.columns().size() ? v.columns().get(i) : q.names().get(i);
            if (!seen.add(cn)) throw new SqlException("42701", "column \"" + cn + "\" specified more than once", v.pos());
            columns.add(new Column(cn, q.types().get(i), true));
        }
        if (existing != null) {
            // CREATE OR REPLACE VIEW: PostgreSQL keeps the old columns as a prefix
            List<Column> old = existing.columns();
            for (int i = 0; i < old.size(); i++) {
                if (i >= columns.size() || !old.get(i).name().equals(columns.get(i).name()) || !old.get(i).type().equals(columns.get(i).type())) {
                    throw new SqlException("42P16", "cannot change name or type of view column \"" + old.get(i).name() + "\"", v.pos());
                }
            }
            byName.remove(name);
            byId.remove(existing.id());
        }
        HistoryPolicy history = policy(v.retain());
        long id = existing != null ? existing.id() : nextId++;
        Set<Long> uses = binder.dependencies();
        if (v.materialized()) {
            checkChanges(plan, oracle.readTime(), v.pos());
            Set<Long> indexesUsed = new HashSet<>();
            Plan p = Optimizer.prune(IndexSelection.apply(Optimizer.fold(temporal(plan, v.pos())), indexes(), indexesUsed, this::sinceOf));
            uses = new HashSet<>(uses);
            uses.addAll(indexesUsed);
            long upper = oracle.upper();
            Set<Long> tables = baseTables(p);
            advanced(upper, tables);
            DataflowMemory memory = session.dataflowMemory(compute.workers());
            compute.createMaterializedView(id, name, p, memory, upper, tables);
            register(new CatalogItem.MaterializedView(id, name, columns, plan, text(sql, v)), uses);
            if (history != null) setRetention(id, history);
            awaitHydration(session, id, "materialized view", name, upper - 1);
        } else {
            register(new CatalogItem.View(id, name, columns, plan, text(sql, v)), uses);
        }
        return Result.command(tag);
    }

    private Result createIndex(Session session, Statement.CreateIndex i, String sql) {
        if (byName.containsKey(i.name())) {
            if (i.ifNotExists()) return Result.command("CREATE INDEX").withNotice(alreadyExists(i.name()));
            throw new SqlException("42P07", "relation \"" + i.name() + "\" already exists", i.pos());
        }
        rejectSystemRelation(i.on(), "create an index on", i.pos());
        String on = nameOf(i.on(), i.pos());
        CatalogItem target = byName.get(on);
        if (target == null) throw new SqlException("42P01", "relation \"" + on + "\" does not exist", i.pos());
        if (!(target instanceof CatalogItem.Table || target instanceof CatalogItem.MaterializedView)) {
            throw new SqlException("42809", "cannot create index on " + target.kind() + " \"" + on + "\"", i.pos(),
                    "Create a materialized view over it and index that.");
        }
        List<ScalarExpr> keys = new Binder(this).bindOver(on, target.columns(), i.exprs());
        HistoryPolicy history = policy(i.retain());
        long id = nextId++;
        List<SqlType> types = new ArrayList<>();
        for (Column c : target.columns()) types.add(c.type());
        DataflowMemory memory = session.dataflowMemory(compute.workers());
        // the build waits until its input has passed the creation time: the tables under it
        // must be promised complete up to then, however long since they were last written
        long upper = oracle.upper();
        Set<Long> tables = baseTablesOf(target.id());
        advanced(upper, tables);
        compute.createIndex(id, i.name(), target.id(), types, keys, memory, upper, tables);
        register(new CatalogItem.Index(id, i.name(), target.id(), keys, text(sql, i)), Set.of(target.id()));
        if (history != null) setRetention(id, history);
        awaitHydration(session, id, "index", i.name(), upper - 1);
        return Result.command("CREATE INDEX");
    }

    /**
     * A materialized view or index being built over existing data, while its CREATE waits: what
     * {@code tributary_internal.hydration_progress} shows. {@code parts} are its workers' counts.
     */
    private record Hydrating(long id, String kind, String name, long startedMillis, List<Dataflows.PendingHydration> parts) {
        /** Updates read of those that existed when it was created, over all workers: {done, total}. */
        long[] progress() {
            long done = 0, total = 0;
            for (Dataflows.PendingHydration p : parts) {
                long t = p.progress.total();
                total += t;
                done += Math.min(p.progress.done(), t);
            }
            return new long[] {done, total};
        }

    }

    /** The hydrations under way, by object id (their CREATEs are waiting in {@link #awaitHydration}). */
    private final Map<Long, Hydrating> hydrating = new java.util.concurrent.ConcurrentHashMap<>();

    /** How long a CREATE waits before its first progress NOTICE, and then between two (a second; tests make it shorter). */
    volatile long progressNoticeNanos = 1_000_000_000L;

    /**
     * Waits, with the coordinator free for other sessions, until materialized view or index
     * {@code id} (just created and registered) has read and computed everything that existed
     * when it was created (its dataflow has passed {@code t}), as PostgreSQL's CREATE returns
     * once the object is built. A build that takes longer than a second reports its progress
     * (updates read of its inputs' total) in NOTICEs, at most one a second, and in
     * {@code tributary_internal.hydration_progress} all along. A cancel, {@code statement_timeout}
     * or the client leaving stops it: the object and whatever was built on it meanwhile are
     * dropped, as if never created, and the statement fails with 57014. A failure of its
     * dataflow (an operator's exception, {@code max_dataflow_memory} exceeded) drops them too, and
     * the statement fails with that failure's error, as a PostgreSQL CREATE fails with its query.
     */
    private void awaitHydration(Session session, long id, String kind, String name, long t) {
        Session.Stop stop = session.new Stop();
        List<Dataflows.PendingHydration> parts = compute.watchHydration(id, t, stop);
        Hydrating h = new Hydrating(id, kind, name, oracle.clock().now(), parts);
        hydrating.put(id, h);
        session.aboutToWait();
        try {
            long[] nextNotice = {System.nanoTime() + progressNoticeNanos};
            Runnable progressNotice = () -> {
                if (System.nanoTime() < nextNotice[0] || h.progress()[1] == 0) return;
                long[] p = h.progress();
                String what = kind + " \"" + name + "\"";
                session.notice(Notice.notice("00000", p[0] < p[1]
                        ? "building " + what + ": " + p[0] + " of " + p[1] + " rows read (" + p[0] * 100 / p[1] + "%)"
                        : "building " + what + ": all " + p[1] + " rows read, computing"));
                nextNotice[0] = System.nanoTime() + progressNoticeNanos;
            };
            for (Dataflows.PendingHydration part : parts) {
                awaitWorkers(part.done, progressNotice);
                try {
                    part.done.join();
                } catch (java.util.concurrent.CompletionException e) {
                    if (e.getCause() instanceof RuntimeException x) throw x;
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            stop.abandon();
            // nothing half-built stays: the object, and anything made on it while it was built
            if (byId.containsKey(id)) {
                List<Long> order = new ArrayList<>();
                collect(id, new HashSet<>(), order);
                for (int k = order.size() - 1; k >= 0; k--) remove(order.get(k));
            }
            throw e;
        } finally {
            hydrating.remove(id);
        }
    }

    /** The hydrations under way, for {@code tributary_internal.hydration_progress}. */
    @Override
    public List<dev.tributary.sql.catalog.Catalog.HydrationProgress> hydrationProgress() {
        List<dev.tributary.sql.catalog.Catalog.HydrationProgress> out = new ArrayList<>();
        for (Hydrating h : hydrating.values()) {
            long[] p = h.progress();
            out.add(new dev.tributary.sql.catalog.Catalog.HydrationProgress(h.id(), h.kind(), h.name(), p[1] == 0 || p[0] < p[1] ? "reading" : "computing",
                    p[0], p[1], h.startedMillis()));
        }
        out.sort(java.util.Comparator.comparingLong(dev.tributary.sql.catalog.Catalog.HydrationProgress::id));
        return out;
    }

    private static Notice alreadyExists(String name) {
        return Notice.notice("42P07", "relation \"" + name + "\" already exists, skipping");
    }

    private Result drop(Statement.Drop d) {
        List<CatalogItem> targets = new ArrayList<>();
        List<Notice> skipped = new ArrayList<>();
        for (List<String> parts : d.names()) {
            rejectSystemRelation(parts, "drop", d.pos());
            String name = nameOf(parts, d.pos());
            CatalogItem item = byName.get(name);
            String kind = d.kind().sql().toLowerCase(java.util.Locale.ROOT);
            if (item == null) {
                String what = d.kind() == Statement.ObjectKind.TABLE ? "table" : d.kind() == Statement.ObjectKind.INDEX ? "index" : kind;
                if (d.ifExists()) {
                    skipped.add(Notice.notice("00000", what + " \"" + name + "\" does not exist, skipping"));
                    continue;
                }
                throw new SqlException("42P01", what + " \"" + name + "\" does not exist", d.pos());
            }
            if (!item.kind().equals(kind)) {
                throw new SqlException("42809", "\"" + name + "\" is not a " + kind, d.pos(), "Use DROP " + item.kind().toUpperCase(java.util.Locale.ROOT) + " to remove a " + item.kind() + ".");
            }
            if (item instanceof CatalogItem.Index ix && ix.primaryKey()) {
                String table = byId.get(ix.on()).name();
                throw new SqlException("2BP01", "cannot drop index " + name + " because constraint " + name + " on table " + table + " requires it", d.pos(),
                        "You can drop constraint " + name + " on table " + table + " instead.");
            }
            targets.add(item);
        }
        // everything that depends on the targets, transitively
        List<Long> order = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (CatalogItem t : targets) collect(t.id(), seen, order);
        Set<Long> targetIds = new HashSet<>();
        for (CatalogItem t : targets) targetIds.add(t.id());
        if (!d.cascade()) {
            for (long id : order) {
                if (targetIds.contains(id)) continue;
                CatalogItem dep = byId.get(id);
                CatalogItem on = null;
                for (CatalogItem t : targets) if (dependents.getOrDefault(t.id(), Set.of()).contains(id)) on = t;
                if (dep instanceof CatalogItem.Index && on != null && targetIds.contains(on.id())) continue; // indexes go with their relation
                throw new SqlException("2BP01", "cannot drop " + (on == null ? "it" : on.kind() + " " + on.name()) + " because other objects depend on it", d.pos(),
                        "Use DROP ... CASCADE to drop the dependent objects too.");
            }
        }
        // dependents first
        for (int k = order.size() - 1; k >= 0; k--) remove(order.get(k));
        Result r = Result.command("DROP " + d.kind().sql());
        for (Notice n : skipped) r = r.withNotice(n);
        return r;
    }

    private void collect(long id, Set<Long> seen, List<Long> order) {
        if (!seen.add(id)) return;
        order.add(id);
        for (long dep : dependents.getOrDefault(id, Set.of())) collect(dep, seen, order);
    }

    private void remove(long id) {
        CatalogItem item = byId.remove(id);
        if (item == null) return;
        forgetDurable(id);
        if (storage != null && item instanceof CatalogItem.Table) storage.dropTable(id);
        catalogVersion++;
        endSubscriptionsOn(id);
        byName.remove(item.name());
        dependents.remove(id);
        for (Set<Long> s : dependents.values()) s.remove(id);
        retention.remove(id);
        keyWrites.remove(id);
        keyFunctions.remove(id);
        tableUpper.remove(id);
        if (!(item instanceof CatalogItem.View)) {
            compute.drop(id);
        }
    }

    // ------------------------------------------------------------------ DML

    private CatalogItem.Table table(List<String> parts, int pos, String verb) {
        Optional<CatalogItem.SystemRelation> sys = systemRelation(parts);
        if (sys.isPresent()) {
            // as PostgreSQL answers a user who is not allowed to change the catalogs
            CatalogItem.SystemRelation r = sys.get();
            if (!r.view()) throw new SqlException("42501", "permission denied for table " + r.name());
            throw new SqlException("55000", "cannot " + verb + " view \"" + r.name() + "\"")
                    .withDetail("Views that do not select from a single table or view are not automatically updatable.");
        }
        String name = nameOf(parts, pos);
        CatalogItem item = byName.get(name);
        if (item == null) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", pos);
        if (item instanceof CatalogItem.Table t) return t;
        throw new SqlException("42809", "cannot change " + item.kind() + " \"" + name + "\"", pos, "Only tables can be written to; views are maintained from them.");
    }

    private Result insert(Session session, Statement.Insert ins) {
        CatalogItem.Table t = table(ins.table(), ins.pos(), "insert into");
        BoundQuery q = new Binder(this).bindInsert(t, ins);
        return insertRows(session, t, rowsOf(session, q.plan(), q.plan().types()));
    }

    /** A hash map's initial capacity for {@code n} entries, so that filling it never rehashes. */
    static int capacityFor(int n) {
        return (int) Math.min(1 << 30, n * 4L / 3 + 16);
    }

    private Result insertRows(Session session, CatalogItem.Table t, List<Object[]> rows) {
        Map<Row, Long> changes = new LinkedHashMap<>(capacityFor(rows.size()));
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        for (Object[] r : rows) {
            Object[] row = r.length == t.columns().size() ? r : java.util.Arrays.copyOf(r, t.columns().size());
            checkNotNull(t, row);
            changes.merge(codec.encode(row), 1L, Long::sum);
        }
        write(session, t, changes);
        return Result.command("INSERT 0 " + rows.size());
    }

    /** 23502 if {@code row} has NULL in a NOT NULL column of {@code t}, with PostgreSQL's detail. */
    static void checkNotNull(CatalogItem.Table t, Object[] row) {
        for (int i = 0; i < row.length; i++) {
            if (row[i] == null && !t.columns().get(i).nullable()) {
                StringBuilder failing = new StringBuilder();
                for (int k = 0; k < row.length; k++) {
                    if (k > 0) failing.append(", ");
                    failing.append(row[k] == null ? "null" : dev.tributary.sql.types.Values.toText(row[k], t.columns().get(k).type()));
                }
                throw new SqlException("23502", "null value in column \"" + t.columns().get(i).name() + "\" of relation \"" + t.name() + "\" violates not-null constraint")
                        .withDetail("Failing row contains (" + failing + ").");
            }
        }
    }

    private Result update(Session session, Statement.Update u) {
        CatalogItem.Table t = table(u.table(), u.pos(), "update");
        String alias = u.alias() != null ? u.alias() : t.name();
        Plan plan = new Binder(this).bindUpdate(t, alias, u.assignments(), u.where());
        return updateRows(session, t, rowsOf(session, plan, plan.types()));
    }

    /** UPDATE of {@code t} with {@code pairs}: each the old row's columns followed by the new row's. */
    private Result updateRows(Session session, CatalogItem.Table t, List<Object[]> pairs) {
        int n = t.columns().size();
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        Map<Row, Long> changes = new LinkedHashMap<>();
        for (Object[] pair : pairs) {
            Object[] row = java.util.Arrays.copyOfRange(pair, n, 2 * n);
            checkNotNull(t, row);
            changes.merge(codec.encode(java.util.Arrays.copyOf(pair, n)), -1L, Long::sum);
            changes.merge(codec.encode(row), 1L, Long::sum);
        }
        write(session, t, changes);
        return Result.command("UPDATE " + pairs.size());
    }

    private Result delete(Session session, Statement.Delete d) {
        CatalogItem.Table t = table(d.table(), d.pos(), "delete from");
        String alias = d.alias() != null ? d.alias() : t.name();
        Plan plan = new Binder(this).bindDelete(t, alias, d.where());
        return deleteRows(session, t, rowsOf(session, plan, plan.types()));
    }

    private Result deleteRows(Session session, CatalogItem.Table t, List<Object[]> rows) {
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        Map<Row, Long> changes = new LinkedHashMap<>();
        for (Object[] row : rows) changes.merge(codec.encode(row), -1L, Long::sum);
        write(session, t, changes);
        return Result.command("DELETE " + rows.size());
    }

    /** Checks constraints and commits {@code changes} now, or adds them to the open transaction. */
    private void write(Session session, CatalogItem.Table t, Map<Row, Long> changes) {
        write(session, t, changes, false);
    }

    /** {@link #write(Session, CatalogItem.Table, Map)}; {@code keysChecked} when the caller has checked the primary key. */
    private void write(Session session, CatalogItem.Table t, Map<Row, Long> changes, boolean keysChecked) {
        if (!(changes instanceof RowSlab)) changes.values().removeIf(c -> c == 0); // a slab's rows each count 1
        if (session.inTransaction) {
            Map<Row, Long> pending = session.pending.computeIfAbsent(t.id(), k -> new LinkedHashMap<>());
            Map<Row, Map<Row, Long>> rowsByKey = t.primaryKey().isEmpty() ? null : session.pendingRowsByKey.computeIfAbsent(t.id(), k -> new HashMap<>());
            if (!keysChecked) checkKeys(t, changes, rowsByKey);
            java.util.function.Function<Row, Row> keyOf = rowsByKey == null ? null : primaryKeyOf(t);
            for (Map.Entry<Row, Long> e : changes.entrySet()) {
                if (pending.merge(e.getKey(), e.getValue(), Long::sum) == 0) pending.remove(e.getKey());
                if (keyOf == null) continue;
                Row key = keyOf.apply(e.getKey());
                Map<Row, Long> rows = rowsByKey.computeIfAbsent(key, k -> new LinkedHashMap<>(4));
                if (rows.merge(e.getKey(), e.getValue(), Long::sum) == 0) rows.remove(e.getKey());
                if (rows.isEmpty()) rowsByKey.remove(key);
            }
            return;
        }
        if (!keysChecked) checkKeys(t, changes, Map.of());
        commit(Map.of(t.id(), changes));
    }

    /**
     * 23505 if applying {@code changes} after the open block's writes, whose rows per key are
     * {@code pendingKeys} (empty outside a block), would give two rows one primary key. Only keys
     * that gain rows can collide; their committed rows are counted in the primary key's index, the
     * table's own arrangement.
     */
    private void checkKeys(CatalogItem.Table t, Map<Row, Long> changes, Map<Row, Map<Row, Long>> pendingRowsByKey) {
        if (t.primaryKey().isEmpty() || changes.isEmpty()) return;
        java.util.function.Function<Row, Row> keyOf = primaryKeyOf(t);
        Map<Row, Long> delta = new HashMap<>(capacityFor(changes.size()));
        for (Map.Entry<Row, Long> e : changes.entrySet()) delta.merge(keyOf.apply(e.getKey()), e.getValue(), Long::sum);
        Set<Row> rising = new HashSet<>(capacityFor(delta.size()));
        for (Map.Entry<Row, Long> e : delta.entrySet()) if (e.getValue() > 0) rising.add(e.getKey());
        if (rising.isEmpty()) return;
        Map<Row, Long> counts = committedKeyCounts(t, rising);
        if (!pendingRowsByKey.isEmpty()) {
            for (Row k : rising) {
                Map<Row, Long> rows = pendingRowsByKey.get(k);
                if (rows != null) counts.merge(k, Session.count(rows), Long::sum);
            }
        }
        for (Row k : rising) {
            if (counts.getOrDefault(k, 0L) + delta.get(k) > 1) throw duplicateKey(t, k);
        }
    }

    /** For each primary key of {@code t}, how many rows the open block's writes add (only keys those touch are listed). */
    private Map<Row, Long> pendingKeyCounts(CatalogItem.Table t, Session session) {
        Map<Row, Long> counts = new HashMap<>();
        session.pendingRowsByKey.getOrDefault(t.id(), Map.of()).forEach((k, rows) -> {
            long n = Session.count(rows);
            if (n != 0) counts.put(k, n);
        });
        return counts;
    }

    /** How many committed rows of {@code t} have each of {@code keys}, read from its primary key's index now (keys with none are absent). */
    private Map<Row, Long> committedKeyCounts(CatalogItem.Table t, java.util.Collection<Row> keys) {
        long index = primaryKeyIndex(t);
        // a seek per key in the published shards: for a few keys; many (a COPY's) are sought
        // together, in key order, on the workers
        Map<Row, Long> published = keys.size() <= PUBLISHED_KEY_CHECKS ? publishedKeyCounts(t, index, keys) : null;
        if (published != null) {
            publishedKeyChecks++;
            return published;
        }
        Set<Long> tables = Set.of(t.id());
        long at = readTimeOfData(tables);
        advanced(at + 1, tables);
        Map<Row, Long> out = new HashMap<>();
        for (Map<Row, Long> part : compute.onEveryWorker(at + 1, tables, null, (d, w) -> d.keyCounts(w, index, keys, at))) {
            part.forEach((k, n) -> out.merge(k, n, Long::sum));
        }
        return out;
    }

    /**
     * {@link #committedKeyCounts} without a round trip through the workers: the primary key's
     * shards as the workers last published them, complete through some time, plus the keys of
     * the commits after it, which the coordinator keeps until the shards pass them
     * ({@link #keyWrites}). Null when that cannot be had: no shards yet, a commit after them too
     * large to have been kept, or history compacted past them.
     */
    private Map<Row, Long> publishedKeyCounts(CatalogItem.Table t, long index, java.util.Collection<Row> keys) {
        try {
            return publishedKeyCountsThrough(t, publishedThrough(index), keys);
        } finally {
            releasePublished();
        }
    }

    private Map<Row, Long> publishedKeyCountsThrough(CatalogItem.Table t, long through, java.util.Collection<Row> keys) {
        if (through == Long.MIN_VALUE) return null;
        java.util.ArrayDeque<KeyWrite> log = keyWrites.get(t.id());
        if (log != null) {
            while (!log.isEmpty() && log.peek().time() <= through) log.poll();
            for (KeyWrite w : log) if (w.keys() == null) return null;
        }
        Map<Row, Long> out = new HashMap<>();
        for (Row key : keys) {
            Map<Row, Long> found = Dataflows.lookup(publishedShards, key, through);
            if (found == null) return null;
            long n = 0;
            for (long c : found.values()) n += c;
            if (log != null) for (KeyWrite w : log) n += w.keys().getOrDefault(key, 0L);
            if (n != 0) out.put(key, n);
        }
        return out;
    }

    private final PublishedIndexes.Shard[] publishedShards;

    /** The most keys one check seeks in the published shards (see {@link #committedKeyCounts}). */
    private static final int PUBLISHED_KEY_CHECKS = 256;

    /**
     * The time index {@code index}'s published shards are all complete and readable at, read into
     * {@link #publishedShards} (let go of them with {@link #releasePublished}); MIN_VALUE if none.
     */
    private long publishedThrough(long index) {
        return published.read(index, publishedShards) ? PublishedIndexes.readableThrough(publishedShards) : Long.MIN_VALUE;
    }

    /**
     * Forgets the shards {@link #publishedThrough} read: a snapshot holds the batches its trace
     * had then, which merges (or a DROP) would otherwise free; kept here until the next check,
     * they held a second copy of a table (90 MB of a 1M-row one, even after it was dropped).
     */
    private void releasePublished() {
        java.util.Arrays.fill(publishedShards, null);
    }

    /**
     * The primary key changes of one commit to a table (key to signed count), or null for a
     * commit of more than {@link #KEY_WRITES_KEPT} rows, whose keys are not kept.
     */
    private record KeyWrite(long time, Map<Row, Long> keys) {}

    /** Per table with a primary key, its commits' key changes, oldest first, until its published shards pass them. */
    private final Map<Long, java.util.ArrayDeque<KeyWrite>> keyWrites = new HashMap<>();

    private static final int KEY_WRITES_KEPT = 4096;

    /** Notes the key changes of a commit at {@code time} to {@code t} (see {@link #publishedKeyCounts}). */
    private void keptKeys(CatalogItem.Table t, long time, Map<Row, Long> changes) {
        java.util.ArrayDeque<KeyWrite> log = keyWrites.computeIfAbsent(t.id(), k -> new java.util.ArrayDeque<>());
        long through = publishedThrough(primaryKeyIndex(t));
        releasePublished();
        while (!log.isEmpty() && log.peek().time() <= through) log.poll();
        Map<Row, Long> keys = null;
        if (changes.size() <= KEY_WRITES_KEPT) {
            keys = new HashMap<>();
            java.util.function.Function<Row, Row> keyOf = primaryKeyOf(t);
            for (Map.Entry<Row, Long> e : changes.entrySet()) keys.merge(keyOf.apply(e.getKey()), e.getValue(), Long::sum);
        }
        log.add(new KeyWrite(time, keys));
    }

    /** Each keyed table's primary key projection (see {@link #primaryKeyOf}); a table's columns never change under its id. */
    private final Map<Long, java.util.function.Function<Row, Row>> keyFunctions = new HashMap<>();

    /** The id of {@code t}'s primary key index ({@code <table>_pkey}). */
    private long primaryKeyIndex(CatalogItem.Table t) {
        for (long dep : dependents.getOrDefault(t.id(), Set.of())) {
            if (byId.get(dep) instanceof CatalogItem.Index ix && ix.primaryKey()) return ix.id();
        }
        throw new IllegalStateException("table " + t.name() + " has a primary key but no primary key index");
    }

    /** A row of {@code t}'s primary key, in the key form its index has (see {@link Dataflows#primaryKeyOf}). */
    private java.util.function.Function<Row, Row> primaryKeyOf(CatalogItem.Table t) {
        // made once per table: every write to a keyed table projects its rows' keys
        return keyFunctions.computeIfAbsent(t.id(),
                id -> Dataflows.primaryKeyOf(Binder.typesOf(t.columns()), t.primaryKey().stream().mapToInt(Integer::intValue).toArray()));
    }

    /** PostgreSQL's 23505 for a second row with primary key {@code k}. */
    private SqlException duplicateKey(CatalogItem.Table t, Row k) {
        int[] key = t.primaryKey().stream().mapToInt(Integer::intValue).toArray();
        Object[] kv = new RowCodec(keyTypes(t)).decode(k);
        StringBuilder cols = new StringBuilder();
        StringBuilder vals = new StringBuilder();
        for (int i = 0; i < key.length; i++) {
            if (i > 0) {
                cols.append(", ");
                vals.append(", ");
            }
            cols.append(t.columns().get(key[i]).name());
            vals.append(kv[i] == null ? "null" : dev.tributary.sql.types.Values.toText(kv[i], t.columns().get(key[i]).type()));
        }
        return new SqlException("23505", "duplicate key value violates unique constraint \"" + t.name() + "_pkey\"", 0,
                null).withDetail("Key (" + cols + ")=(" + vals + ") already exists.");
    }

    private static List<SqlType> keyTypes(CatalogItem.Table t) {
        List<SqlType> k = new ArrayList<>();
        for (int i : t.primaryKey()) k.add(t.columns().get(i).type());
        return k;
    }

    /**
     * Commits a transaction block's writes, after checking their primary keys again against what
     * is committed now: another session may have committed a row with one of the keys since the
     * block wrote it (the first to commit wins; this block fails with 23505, as in PostgreSQL).
     */
    private void commitBlock(Map<Long, Map<Row, Long>> changes) {
        for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) {
            if (byId.get(e.getKey()) instanceof CatalogItem.Table t) checkKeys(t, e.getValue(), Map.of());
        }
        commit(changes);
    }

    /** Commits table changes at one new write time. */
    private void commit(Map<Long, Map<Row, Long>> changes) {
        boolean any = false;
        for (Map<Row, Long> c : changes.values()) any |= !c.isEmpty();
        if (!any) return;
        long inputsAt = Long.MIN_VALUE;
        for (long id : changes.keySet()) inputsAt = Math.max(inputsAt, tableUpper.getOrDefault(id, Long.MIN_VALUE));
        long time = oracle.writeTime(inputsAt);
        if (storage != null && !replaying) {
            storage.append(time, updatesOf(changes, time));
            changedSinceCheckpoint = true;
        }
        for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) {
            if (e.getValue().isEmpty()) continue;
            oracle.wrote(e.getKey(), time);
            if (byId.get(e.getKey()) instanceof CatalogItem.Table t && !t.primaryKey().isEmpty()) keptKeys(t, time, e.getValue());
        }
        Set<Long> tables = advancedByWrite(changes.keySet());
        advanced(time + 1, tables);
        // Queued, not waited for: every later command to the workers (a read, another write) runs
        // after it, so the commit is visible to everything that follows, and the session waits
        // neither for two thread hand-offs per write nor for a step of some large query that the
        // workers are in. At most COMMITS_IN_FLIGHT commits, or ROWS_IN_FLIGHT rows beyond one
        // commit, wait in the queues, so writers cannot run ahead of the workers without bound.
        java.util.concurrent.CompletableFuture<Void> applied = compute.commit(time, changes, tables);
        applied.whenComplete((v, failure) -> {
            if (failure != null) ServerLog.error("the commit at " + time + " failed on a worker: " + failure, failure);
        });
        long rows = 0;
        for (Map<Row, Long> c : changes.values()) rows += c.size();
        commitsInFlight.add(new InFlight(applied, rows));
        rowsInFlight += rows;
        while (!commitsInFlight.isEmpty()) {
            InFlight oldest = commitsInFlight.peek();
            boolean tooMany = commitsInFlight.size() > COMMITS_IN_FLIGHT || (rowsInFlight > ROWS_IN_FLIGHT && commitsInFlight.size() > 1);
            if (!oldest.applied().isDone() && !tooMany) break;
            commitsInFlight.poll();
            rowsInFlight -= oldest.rows();
            compute.awaitApplied(oldest.applied().exceptionally(failure -> null)); // a failure was logged where it happened
        }
    }

    /** A commit queued on the workers, and how many rows it changes. */
    private record InFlight(java.util.concurrent.CompletableFuture<Void> applied, long rows) {}

    /** Commits the workers may not have applied yet, oldest first (see {@link #commit}). */
    private final java.util.ArrayDeque<InFlight> commitsInFlight = new java.util.ArrayDeque<>();
    private long rowsInFlight;

    private static final int COMMITS_IN_FLIGHT = 1024;
    private static final long ROWS_IN_FLIGHT = 1L << 18;

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
                    session.clearPending();
                    session.closeCursors();
                    commitBlock(pending);
                    yield Result.command("COMMIT").withNotice(noTransaction());
                }
                boolean failed = session.aborted;
                Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>(session.pending);
                session.reset();
                if (failed) yield Result.command("ROLLBACK");
                commitBlock(pending);
                yield Result.command("COMMIT");
            }
            case ROLLBACK -> {
                if (!session.inTransaction) yield Result.command("ROLLBACK").withNotice(noTransaction());
                if (session.implicit) {
                    // and drops what it wrote
                    session.clearPending();
                    session.closeCursors();
                    yield Result.command("ROLLBACK").withNotice(noTransaction());
                }
                session.reset();
                yield Result.command("ROLLBACK");
            }
        };
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
    private record RoleChange(Boolean login, boolean setsPassword, dev.tributary.server.auth.ScramVerifier verifier, Result result) {}

    private RoleChange roleChange(List<Statement.RoleOption> options, String tag) {
        Boolean login = null;
        boolean setsPassword = false;
        String password = null;
        for (Statement.RoleOption o : options) {
            switch (o) {
                case Statement.RoleOption.Login l -> login = l.login();
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
        return new RoleChange(login, setsPassword, password == null ? null : roles.verifierOf(password), r);
    }

    private Result createRole(Statement.CreateRole c) {
        RoleChange change = roleChange(c.options(), "CREATE ROLE");
        roles.create(c.name(), change.login() != null ? change.login() : c.user(), change.verifier());
        recordRole(c.name());
        return change.result();
    }

    private Result alterRole(Statement.AlterRole a) {
        if (roles.find(a.name()).isEmpty()) throw Roles.notFound(a.name());
        RoleChange change = roleChange(a.options(), "ALTER ROLE");
        roles.alter(a.name(), change.login(), change.setsPassword(), change.verifier());
        recordRole(a.name());
        return change.result();
    }

    private Result dropRole(Statement.DropRole d) {
        for (String name : d.names()) {
            if (roles.find(name).isEmpty() && !d.ifExists()) throw Roles.notFound(name);
        }
        Result r = Result.command("DROP ROLE");
        for (String name : d.names()) {
            if (!roles.drop(name)) r = r.withNotice(Notice.notice("00000", "role \"" + name + "\" does not exist, skipping"));
            recordRole(name);
        }
        return r;
    }

    // ------------------------------------------------------------------ SHOW, EXPLAIN, clock

    /**
     * The system relation {@code parts} names, if it does: a {@code pg_catalog.} or
     * {@code information_schema.} name, or a bare name of pg_catalog's (searched first).
     */
    private Optional<CatalogItem.SystemRelation> systemRelation(List<String> parts) {
        if (parts.size() == 2 && SystemCatalog.isSystemSchema(parts.get(0))) return SystemCatalog.relation(parts.get(0), parts.get(1));
        if (parts.size() == 1) return SystemCatalog.relation("pg_catalog", parts.get(0));
        return Optional.empty();
    }

    private void rejectSystemRelation(List<String> parts, String verb, int pos) {
        Optional<CatalogItem.SystemRelation> sys = systemRelation(parts);
        if (sys.isPresent()) {
            throw new SqlException("0A000", "cannot " + verb + " \"" + sys.get().name() + "\": it is a system catalog, computed from the catalog when read", pos);
        }
    }

    private static SqlException systemCatalogIn(String what, int pos) {
        return new SqlException("0A000", "system catalogs cannot be read by " + what + ": their rows are computed when a query is planned, not maintained", pos,
                "Query pg_catalog and information_schema directly.");
    }

    // ------------------------------------------------------------------ SET, SHOW

    private Result set(Session session, Statement.Set s) {
        String key = s.name().toLowerCase(java.util.Locale.ROOT);
        Optional<Settings.Setting> setting = Settings.find(key);
        if (setting.isEmpty() && !Settings.isCustom(key)) throw Settings.unrecognized(s.name(), 0);
        if (s.values().isEmpty()) {
            // SET x TO DEFAULT
            if (setting.isPresent() && !setting.get().settable()) Settings.validate(setting.get(), "", 0);
            session.settings.remove(key);
            return Result.command("SET");
        }
        List<String> parts = new ArrayList<>();
        for (Expr v : s.values()) {
            Object value = new Binder(this).constant(v, SqlType.TEXT);
            if (value == null) throw new SqlException("22023", "parameter \"" + s.name() + "\" requires a value", s.pos());
            parts.add(value.toString());
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
        String value = session.settings.get(key);
        if (value == null && setting.isEmpty()) throw Settings.unrecognized(name, 0);
        if (value == null) value = setting.get().bootValue();
        String column = setting.map(Settings.Setting::name).orElse(key);
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {value});
        return new Result("SHOW", List.of(column), List.of(SqlType.TEXT), rows);
    }

    private Result show(Session session, Statement.Show s) {
        List<Object[]> rows = new ArrayList<>();
        return switch (s.kind()) {
            case TABLES, VIEWS, MATERIALIZED_VIEWS -> {
                String kind = s.kind() == Statement.ShowKind.TABLES ? "table" : s.kind() == Statement.ShowKind.VIEWS ? "view" : "materialized view";
                for (CatalogItem item : byName.values()) if (item.kind().equals(kind)) rows.add(new Object[] {item.name()});
                yield new Result("SHOW", List.of("name"), List.of(SqlType.TEXT), rows);
            }
            case INDEXES -> {
                String on = s.target().isEmpty() ? null : nameOf(s.target(), s.pos());
                if (on != null && !byName.containsKey(on)) throw new SqlException("42P01", "relation \"" + on + "\" does not exist", s.pos());
                for (CatalogItem item : byName.values()) {
                    if (item instanceof CatalogItem.Index ix && (on == null || byId.get(ix.on()).name().equals(on))) {
                        List<String> keys = new ArrayList<>();
                        List<String> cols = new ArrayList<>();
                        for (Column c : byId.get(ix.on()).columns()) cols.add(c.name());
                        for (ScalarExpr k : ix.keys()) keys.add(k.describe(cols));
                        rows.add(new Object[] {ix.name(), byId.get(ix.on()).name(), String.join(", ", keys)});
                    }
                }
                yield new Result("SHOW", List.of("name", "on", "key"), List.of(SqlType.TEXT, SqlType.TEXT, SqlType.TEXT), rows);
            }
            case COLUMNS -> {
                String name = nameOf(s.target(), s.pos());
                CatalogItem item = byName.get(name);
                if (item == null || item instanceof CatalogItem.Index) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", s.pos());
                for (Column c : item.columns()) rows.add(new Object[] {c.name(), c.nullable(), c.type().toString()});
                yield new Result("SHOW", List.of("name", "nullable", "type"), List.of(SqlType.TEXT, SqlType.BOOLEAN, SqlType.TEXT), rows);
            }
            case CREATE_TABLE, CREATE_VIEW, CREATE_MATERIALIZED_VIEW -> {
                String name = nameOf(s.target(), s.pos());
                CatalogItem item = byName.get(name);
                String kind = s.kind() == Statement.ShowKind.CREATE_TABLE ? "table" : s.kind() == Statement.ShowKind.CREATE_VIEW ? "view" : "materialized view";
                if (item == null) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", s.pos());
                if (!item.kind().equals(kind)) throw new SqlException("42809", "\"" + name + "\" is not a " + kind, s.pos());
                String text = switch (item) {
                    case CatalogItem.Table t -> t.sql();
                    case CatalogItem.View v -> v.sql();
                    case CatalogItem.MaterializedView m -> m.sql();
                    case CatalogItem.Index i -> i.sql();
                    case CatalogItem.SystemRelation r -> throw new IllegalStateException("system relations are not in the user catalog");
                };
                rows.add(new Object[] {name, text});
                yield new Result("SHOW", List.of("name", "create_sql"), List.of(SqlType.TEXT, SqlType.TEXT), rows);
            }
            case VARIABLE -> showSetting(session, s);
        };
    }

    private Result explain(Session session, Statement.Explain e) {
        Plan plan;
        List<String> names;
        if (e.statement() instanceof Statement.QueryStatement q) {
            BoundQuery b = binder(session).bindQuery(q.query());
            plan = b.plan();
            names = b.names();
        } else if (e.statement() instanceof Statement.CreateView v) {
            BoundQuery b = binder(session).bindQuery(v.query());
            plan = b.plan();
            names = b.names();
        } else {
            throw new SqlException("0A000", "EXPLAIN of this statement is not supported; explain a query or CREATE [MATERIALIZED] VIEW", e.statement().pos());
        }
        if (e.statement() instanceof Statement.QueryStatement || (e.statement() instanceof Statement.CreateView cv && cv.materialized())) {
            plan = Optimizer.prune(IndexSelection.apply(Optimizer.fold(plan), indexes(), new HashSet<>(), this::sinceOf));
        } else {
            plan = Optimizer.optimize(IndexSelection.binaryOnly(plan));
        }
        List<Object[]> rows = new ArrayList<>();
        for (String line : Explain.explain(plan, this::describeStored).split("\n")) rows.add(new Object[] {line});
        Peek peek = e.statement() instanceof Statement.QueryStatement ? Peek.of(plan, indexes()) : null;
        if (peek != null) {
            rows.add(new Object[] {peek.index() != null
                    ? "Answered by " + (peek.keys().size() == 1 ? "a lookup" : peek.keys().size() + " lookups") + " in index " + peek.index().name() + ", no dataflow"
                    : "Answered by reading the arrangement of " + describeStored(peek.source()) + ", no dataflow"});
        } else if (e.statement() instanceof Statement.QueryStatement) {
            Plan.Reduce reduce = reduceUnder(plan, new ArrayList<>());
            Peek scanned = reduce == null ? null : Peek.of(reduce.input(), indexes());
            rows.add(new Object[] {scanned != null && scanned.index() == null
                    ? "Answered by scanning the arrangement of " + describeStored(scanned.source()) + " and aggregating on the coordinator, no dataflow"
                            + " (a transient dataflow when a worker's part holds more than " + AGGREGATE_SCAN_UPDATES + " updates or "
                            + Dataflows.ScanPart.CONSOLIDATED_ROWS + " distinct input rows)"
                    : "Answered by a transient dataflow over the arrangements it reads"});
        }
        return new Result("EXPLAIN", List.of("QUERY PLAN"), List.of(SqlType.TEXT), rows);
    }

    private List<CatalogItem.Index> indexes() {
        if (indexesVersion != catalogVersion) {
            List<CatalogItem.Index> out = new ArrayList<>();
            for (CatalogItem item : byId.values()) if (item instanceof CatalogItem.Index ix) out.add(ix);
            indexList = List.copyOf(out);
            indexesVersion = catalogVersion;
        }
        return indexList;
    }

    private String describeStored(long id) {
        CatalogItem item = byId.get(id);
        return item == null ? "#" + id : item.kind() + " " + item.name();
    }

    private Result advanceClock(Statement.AdvanceClock a) {
        if (!(oracle.clock() instanceof Clock.Manual manual)) {
            throw new SqlException("55000", "ADVANCE CLOCK needs the manual clock; this database runs on the wall clock", a.pos(),
                    "Start it with --clock manual.");
        }
        long to;
        if (a.to()) {
            to = new Binder(this).systemTime(a.value(), "ADVANCE CLOCK TO");
        } else {
            Interval i = (Interval) new Binder(this).constant(a.value(), SqlType.INTERVAL);
            if (i.months() != 0) throw new SqlException("22023", "ADVANCE CLOCK BY takes days, hours, minutes and seconds, not months", a.pos());
            to = manual.now() + i.days() * 86_400_000L + Math.floorDiv(i.micros(), 1000);
        }
        manual.advanceTo(to);
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
    synchronized Subscription subscribe(Session session, Statement st, Subscription.Listener given) {
        Subscription.Listener listener = afterDurable(given);
        BoundQuery q;
        Binder binder = binder(session);
        Statement.Subscribe sub = null;
        switch (st) {
            case Statement.Subscribe s -> {
                sub = s;
                dev.tributary.sql.ast.Query query = s.query() != null ? s.query()
                        : dev.tributary.sql.parser.Parser.parseQuery("SELECT * FROM " + String.join(".", s.name().stream().map(dev.tributary.sql.parser.SqlFormatter::ident).toList()));
                q = binder.bindQuery(query);
            }
            case Statement.QueryStatement qs when qs.emitChanges() -> q = binder.bindQuery(qs.query());
            default -> throw new SqlException("42601", "subscribe takes SUBSCRIBE or SELECT ... EMIT CHANGES", st.pos());
        }
        if (binder.readsSystemCatalog()) throw systemCatalogIn("a subscription", st.pos());
        Plan plan = temporal(q.plan().arity() > q.visible() ? new Plan.Project(q.plan(), range(q.visible())) : q.plan(), st.pos());
        long start = oracle.readTime();
        checkChanges(plan, start, st.pos());
        long asOf = start;
        long upTo = Long.MAX_VALUE;
        boolean snapshot = true;
        boolean progress = false;
        int[] keyColumns = null;
        if (sub != null) {
            snapshot = sub.snapshot();
            progress = sub.progress();
            if (sub.asOf() != null) {
                asOf = binder.systemTime(sub.asOf(), "AS OF");
                checkRetained(plan, asOf, start, sub.asOf().pos(), false);
            }
            if (sub.upTo() != null) {
                upTo = binder.systemTime(sub.upTo(), "UP TO");
                if (upTo < asOf) throw new SqlException("22023", "UP TO " + upTo + " is before AS OF " + asOf, sub.upTo().pos());
            }
            if (sub.upsertKey() != null) {
                keyColumns = new int[sub.upsertKey().size()];
                for (int i = 0; i < keyColumns.length; i++) {
                    String k = sub.upsertKey().get(i);
                    keyColumns[i] = q.names().subList(0, q.visible()).indexOf(k);
                    if (keyColumns[i] < 0) throw new SqlException("42703", "column \"" + k + "\" does not exist", sub.pos(),
                            "ENVELOPE UPSERT (KEY (...)) names columns of the subscribed query: " + String.join(", ", q.names()) + ".");
                }
            }
        }
        List<String> columns = new ArrayList<>(List.of("change_time"));
        List<SqlType> types = new ArrayList<>(List.of(SqlType.TIMESTAMPTZ));
        if (progress) {
            columns.add("change_progressed");
            types.add(SqlType.BOOLEAN);
        }
        columns.add(keyColumns == null ? "change_diff" : "change_state");
        types.add(keyColumns == null ? SqlType.BIGINT : SqlType.TEXT);
        int prefix = columns.size();
        columns.addAll(q.names());
        types.addAll(q.types());
        RowCodec codec = new RowCodec(q.types());
        boolean withProgress = progress;
        java.util.function.BiFunction<Long, Object, Object[]> row = (time, tag) -> {
            Object[] r = new Object[columns.size()];
            r[0] = Instant.ofEpochMilli(time);
            if (withProgress) r[1] = false;
            r[prefix - 1] = tag;
            return r;
        };
        dev.tributary.changeslog.ChangeStream.Sink<Row, Row> sink;
        if (keyColumns == null) {
            sink = new SubscriptionSink<Row>(listener, columns, types, withProgress) {
                @Override
                public void changes(long time, Map<Row, Long> changes) {
                    List<Object[]> rows = new ArrayList<>();
                    for (Map.Entry<Row, Long> e : changes.entrySet()) {
                        Object[] r = row.apply(time, e.getValue());
                        System.arraycopy(codec.decode(e.getKey()), 0, r, prefix, codec.arity());
                        rows.add(r);
                    }
                    deliver(rows);
                }
            };
        } else {
            int[] keys = keyColumns;
            var downstream = new SubscriptionSink<dev.tributary.changeslog.UpsertEnvelope.KeyChange<List<Object>, Row>>(listener, columns, types, withProgress) {
                @Override
                public void changes(long time, Map<dev.tributary.changeslog.UpsertEnvelope.KeyChange<List<Object>, Row>, Long> changes) {
                    List<Object[]> rows = new ArrayList<>();
                    for (var c : changes.keySet()) {
                        Object[] r = row.apply(time, c.state().name().toLowerCase(java.util.Locale.ROOT));
                        if (c.row() != null) {
                            System.arraycopy(codec.decode(c.row()), 0, r, prefix, codec.arity());
                        } else {
                            for (int i = 0; i < keys.length; i++) r[prefix + keys[i]] = c.key().get(i);
                        }
                        rows.add(r);
                    }
                    deliver(rows);
                }
            };
            sink = new dev.tributary.changeslog.UpsertEnvelope<List<Object>, Row, Row>(r -> {
                Object[] values = codec.decode(r);
                List<Object> key = new ArrayList<>(keys.length);
                for (int k : keys) key.add(dev.tributary.sql.row.Keys.normalize(values[k]));
                return key;
            }, downstream);
        }
        dev.tributary.changeslog.ChangeStream.Options options = new dev.tributary.changeslog.ChangeStream.Options(asOf, snapshot, progress, upTo);
        advancedAll(start + 1);
        DataflowMemory memory = session.dataflowMemory(compute.workers());
        int index = compute.subscribe(start, plan, options, sink, memory);
        subscriptions++;
        Set<Long> uses = binder.dependencies();
        LiveSubscription[] self = new LiveSubscription[1];
        Subscription subscription = new Subscription(() -> {
            synchronized (this) {
                subscriptions--;
                live.remove(self[0]);
            }
            compute.dropSubscription(index);
        }, columns, types);
        self[0] = new LiveSubscription(uses, listener, subscription, index, Plans.reads(plan));
        live.add(self[0]);
        return subscription;
    }

    /**
     * A running subscription with the catalog items it reads, so dropping one of them ends it,
     * and its dataflow and the stored collections it reads, so a failure of either ends it too.
     */
    private record LiveSubscription(Set<Long> uses, Subscription.Listener listener, Subscription subscription, int dataflow, Set<Long> reads) {}

    /**
     * Ends with an error each subscription whose dataflow failed, or that of something it reads:
     * it would never deliver again, and its client would wait for good.
     */
    private void endFailedSubscriptions() {
        if (live.isEmpty()) return;
        List<LiveSubscription> running = List.copyOf(live);
        List<SqlException> failures = compute.subscriptionFailures(running.stream().map(LiveSubscription::dataflow).toList(),
                running.stream().map(LiveSubscription::reads).toList());
        for (int i = 0; i < running.size(); i++) {
            if (failures.get(i) == null) continue;
            running.get(i).subscription().close();
            running.get(i).listener().onError(failures.get(i));
        }
    }

    private final List<LiveSubscription> live = new ArrayList<>();

    /** The number of subscriptions running (COPY streams and cursors included). */
    synchronized int subscriptions() {
        return subscriptions;
    }

    /** Ends the subscriptions that read item {@code id}, which is being dropped: their listeners hear {@link Subscription.Listener#onDone()}. */
    private void endSubscriptionsOn(long id) {
        for (LiveSubscription l : List.copyOf(live)) {
            if (!l.uses().contains(id)) continue;
            l.subscription().close();
            l.listener().onDone();
        }
    }

    /**
     * A change stream's deliveries as {@link Result} batches for a {@link Subscription.Listener}:
     * progress as a row of its own ({@code change_progressed} true, the rest NULL), errors as the
     * first error, the end as {@link Subscription.Listener#onDone()}.
     */
    private abstract static class SubscriptionSink<D> implements dev.tributary.changeslog.ChangeStream.Sink<D, Row> {
        private final Subscription.Listener listener;
        private final List<String> columns;
        private final List<SqlType> types;
        private final boolean progress;

        SubscriptionSink(Subscription.Listener listener, List<String> columns, List<SqlType> types, boolean progress) {
            this.listener = listener;
            this.columns = columns;
            this.types = types;
            this.progress = progress;
        }

        void deliver(List<Object[]> rows) {
            listener.onChanges(new Result("SUBSCRIBE", columns, types, rows));
        }

        @Override
        public void progressed(long frontier) {
            if (!progress) return;
            Object[] r = new Object[columns.size()];
            r[0] = Instant.ofEpochMilli(frontier);
            r[1] = true;
            deliver(List.<Object[]>of(r));
        }

        @Override
        public void failed(long time, Map<Row, Long> errors) {
            listener.onError(Dataflows.firstError(errors.keySet()));
        }

        @Override
        public void done() {
            listener.onDone();
        }
    }

    private int subscriptions;
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
                if (subscriptions > 0 || second) tick();
                if (second) checkpointIfDue();
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
        Map<Long, Long> holds = holds(now);
        if (storage != null) holds.forEach((id, since) -> {
            if (byId.get(id) instanceof CatalogItem.Table) storage.holdSince(id, since);
        });
        lastCompaction = now;
        advancedAll(now + 1);
        compute.tick(now, holds);
        endFailedSubscriptions();
    }

    private static List<Integer> range(int n) {
        List<Integer> r = new ArrayList<>(n);
        for (int i = 0; i < n; i++) r.add(i);
        return r;
    }

    private boolean closed;

    @Override
    public synchronized void close() {
        if (!closed && storage != null && changedSinceCheckpoint) {
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
        if (storage == null || CHECKPOINT_INTERVAL_MILLIS <= 0 || !changedSinceCheckpoint) return;
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
        java.util.concurrent.CompletableFuture<List<dev.tributary.storage.Checkpoints.Captured>> captured;
        long at;
        synchronized (this) {
            if (storage == null || closed) return java.util.concurrent.CompletableFuture.completedFuture(-1L);
            if (checkpointing != null && !checkpointing.isDone()) return checkpointing;
            // a time no table has passed yet (so that no trace has let go of times before it), at
            // which nothing will be written after the checkpoint starts
            at = oracle.writeTime(maxUpper);
            changedSinceCheckpoint = false;
            lastCheckpointNanos = System.nanoTime();
            captured = compute.checkpoint(at, CHECKPOINT_TAKE_MILLIS);
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
            checkpointing = captured.thenApplyAsync(objects -> {
                // never restore a write the log could still lose
                logged.join();
                long bytes = storage.checkpoints().write(at, compute.workers(), objects);
                storage.holdAllSince(at);
                ServerLog.log("checkpoint at " + at + ": " + objects.size() + " dataflows, " + (bytes >> 10) + " kB written, in "
                        + (System.nanoTime() - started) / 1_000_000 + " ms");
                return at;
            }, checkpointWriter);
            checkpointing.exceptionally(e -> {
                ServerLog.error("checkpoint at " + at + " failed (the previous one stays the latest)", e);
                return null;
            });
            return checkpointing;
        }
    }

    /**
     * {@code listener}, told of changes only once the writes they come from are durable: a
     * subscriber never sees a change a crash could take back. Its events keep their order; the
     * waiting is on futures, so no worker waits for an fsync.
     */
    private Subscription.Listener afterDurable(Subscription.Listener listener) {
        if (storage == null) return listener;
        return new Subscription.Listener() {
            private java.util.concurrent.CompletableFuture<Void> chain = java.util.concurrent.CompletableFuture.completedFuture(null);
            private boolean failed;

            private synchronized void then(Runnable event) {
                java.util.concurrent.CompletableFuture<Void> durable = storage.appended();
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

    /** The objects the recovery restored from the latest checkpoint instead of building them again, in the order restored. */
    private final List<String> restoredFromCheckpoint = new ArrayList<>();

    /** See {@link #restoredFromCheckpoint}. */
    synchronized List<String> restoredFromCheckpoint() {
        return List.copyOf(restoredFromCheckpoint);
    }

    /** While the catalog is rebuilt from the stores: nothing it makes is recorded again. */
    private boolean replaying;
    /** The catalog's durable entries (null in memory). */
    private final CatalogRecorder recorder;

    private void recordDurable(CatalogItem item, Set<Long> uses) {
        if (recorder == null || replaying) return;
        String sql = switch (item) {
            case CatalogItem.Table t -> t.sql();
            case CatalogItem.View v -> v.sql();
            case CatalogItem.MaterializedView m -> m.sql();
            case CatalogItem.Index i -> i.sql();
            case CatalogItem.SystemRelation r -> throw new IllegalStateException("system relation " + r.name() + " registered");
        };
        String kind = item instanceof CatalogItem.Index i && i.primaryKey() ? CatalogRecorder.PRIMARY_KEY : item.kind();
        recorder.object(item.id(), kind, item.name(), sql, uses);
    }

    private void forgetDurable(long id) {
        if (recorder != null && !replaying) recorder.dropped(id);
    }

    /** Commits the statement's catalog changes in one durable append, before it is answered. */
    private void persistCatalog() {
        if (recorder != null && recorder.commit()) changedSinceCheckpoint = true;
    }

    /** Sets (or, with null, clears) object {@code id}'s history policy, durably. */
    private void setRetention(long id, HistoryPolicy policy) {
        if (policy == null) retention.remove(id);
        else retention.put(id, policy);
        if (storage == null) return;
        if (byId.get(id) instanceof CatalogItem.Table) storage.holdSince(id, policy == null ? -1 : policy.since(oracle.upper()));
        if (replaying) return;
        String text = policy == null ? null : policy.forMillis() >= 0 ? "FOR " + policy.forMillis() : "PIN AT " + policy.pinAt();
        recorder.history(id, text, () -> nextId++);
    }

    /** Records role {@code name} as it is now (or its removal), durably. */
    private void recordRole(String name) {
        if (recorder == null || replaying) return;
        recorder.role(name, roles.find(name).map(r -> (r.login() ? "LOGIN" : "NOLOGIN") + (r.verifier() != null ? " " + r.verifier() : "")).orElse(null),
                () -> nextId++);
    }

    private void restoreRole(CatalogEntry e) {
        String[] parts = e.sql().split(" ", 2);
        boolean login = parts[0].equals("LOGIN");
        dev.tributary.server.auth.ScramVerifier verifier = parts.length > 1 ? dev.tributary.server.auth.ScramVerifier.parse(parts[1]) : null;
        if (roles.find(e.name()).isPresent()) roles.alter(e.name(), login, true, verifier);
        else roles.create(e.name(), login, verifier);
    }

    /** A commit's changes as the stores take them: per table, the rows' bytes with their counts, at {@code time}. */
    private static Map<Long, dev.tributary.arrangements.Updates> updatesOf(Map<Long, Map<Row, Long>> changes, long time) {
        Map<Long, dev.tributary.arrangements.Updates> out = new HashMap<>();
        long[] at = {time};
        for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) {
            Map<Row, Long> c = e.getValue();
            if (c.isEmpty()) continue;
            dev.tributary.arrangements.UnitColumn units = new dev.tributary.arrangements.UnitColumn();
            dev.tributary.arrangements.Updates u;
            if (c instanceof RowSlab slab) {
                // the slab's column is shared, not copied: nothing writes to it once committed
                units.add(slab.size());
                u = new dev.tributary.arrangements.Updates(slab.column(), units, 1, slab.size());
                u.pushAll(at, 1, slab.size());
            } else {
                BytesColumn rows = new BytesColumn();
                u = new dev.tributary.arrangements.Updates(rows, units, 1, c.size());
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

    /**
     * Rebuilds the database from its stores: roles; tables, each with its rows at their times
     * (history as far back as its policy kept it); then views, materialized views and indexes,
     * each once what it reads is there, built again from the tables. No time handed out before
     * is handed out again.
     */
    private void recover() {
        replaying = true;
        try {
            List<CatalogEntry> entries = recorder.recover();
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
            for (CatalogEntry e : entries) {
                switch (e.kind()) {
                    case CatalogRecorder.ROLE -> restoreRole(e);
                    case "table" -> {
                        nextId = e.id();
                        replay(system, e);
                        if (!(byId.get(e.id()) instanceof CatalogItem.Table t)) {
                            throw new dev.tributary.storage.CorruptDataException("catalog entry " + e.id() + " (" + e.sql() + ") did not make table " + e.name() + " again");
                        }
                        long started = System.nanoTime();
                        long[] updates = {0};
                        if (checkpoint != null && compute.restored(t.id())) {
                            restoredFromCheckpoint.add(t.name());
                            // restored as it was at the checkpoint: only what was written after it is fed
                            // (in one piece: parts need not be in time order, and the table is fed time by time)
                            dev.tributary.arrangements.Updates after = new dev.tributary.arrangements.Updates(new BytesColumn(),
                                    new dev.tributary.arrangements.UnitColumn(), 1);
                            storage.tablePartsAfter(t.id(), checkpoint.at(), after::appendAll);
                            updates[0] = after.size();
                            loadTable(t, after);
                            compute.holdBoundary(t.id(), checkpoint.at());
                        } else if (storage.tableKeepsHistory(t.id())) {
                            dev.tributary.arrangements.Updates rows = storage.table(t.id());
                            updates[0] = rows.size();
                            loadTable(t, rows);
                        } else {
                            // every update at one time: each part goes to the table's input as it
                            // is read, and the table's arrangement adds them up
                            storage.tableParts(t.id(), part -> {
                                updates[0] += part.size();
                                loadTable(t, part);
                            });
                        }
                        if (!restoredFromCheckpoint.contains(t.name())) compute.historyFrom(t.id(), Math.max(0, storage.tableSince(t.id())));
                        tables.add(t.id());
                        ServerLog.log("recovery: table " + t.name() + ": " + updates[0] + " updates read in " + (System.nanoTime() - started) / 1_000_000 + " ms");
                    }
                    case CatalogRecorder.PRIMARY_KEY -> { } // made with its table
                    default -> rest.add(e);
                }
            }
            advanced(floor, tables);
            compute.advance(floor, tables);
            // the rest in id order, except where an object reads one made after it (CREATE OR REPLACE VIEW)
            while (!rest.isEmpty()) {
                CatalogEntry next = null;
                for (CatalogEntry e : rest) {
                    boolean ready = true;
                    for (long u : e.uses()) ready &= byId.containsKey(u);
                    if (ready) {
                        next = e;
                        break;
                    }
                }
                if (next == null) throw new dev.tributary.storage.CorruptDataException("catalog entries " + rest + " read objects the catalog does not have");
                rest.remove(next);
                if (next.kind().equals(CatalogRecorder.HISTORY)) {
                    long[] p = CatalogRecorder.history(next);
                    setRetention(next.uses().get(0), new HistoryPolicy(p[0], p[1]));
                } else {
                    nextId = next.id();
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
                    if (!byId.containsKey(next.id())) {
                        throw new dev.tributary.storage.CorruptDataException("catalog entry " + next.id() + " (" + next.sql() + ") did not make " + next.kind() + " " + next.name() + " again");
                    }
                }
            }
            compute.endRecovery();
            nextId = Math.max(nextId, maxId + 2); // a table's primary key takes the id after it
            // tables dropped before a crash let go of their data at the log's next flush
            for (long id : storage.tables()) if (!(byId.get(id) instanceof CatalogItem.Table)) storage.dropTable(id);
        } finally {
            replaying = false;
        }
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
            if (e.kind().equals("table")) tableIds.add(e.id());
            if (e.kind().equals(CatalogRecorder.PRIMARY_KEY) && !e.uses().isEmpty()) tableOfKey.put(e.id(), e.uses().get(0));
        }
        Map<Long, dev.tributary.storage.Checkpoints.Stored> ok = new LinkedHashMap<>(m.objects());
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
        try {
            run(system, Parser.parseStatement(e.sql()), e.sql());
        } catch (SqlException failure) {
            throw new dev.tributary.storage.CorruptDataException("catalog entry " + e.id() + " (" + e.kind() + " " + e.name() + ") failed to replay: "
                    + failure.getMessage() + " [" + failure.sqlState() + "] in: " + e.sql());
        }
    }

    /** Feeds table {@code t} its recovered rows, time by time in order, as commits at those times would have. */
    private void loadTable(CatalogItem.Table t, dev.tributary.arrangements.Updates u) {
        int n = u.size();
        if (n == 0) return;
        BytesColumn rows = (BytesColumn) u.keys();
        boolean oneTime = true, ones = true;
        for (int i = 0; i < n; i++) {
            oneTime &= u.time(i) == u.time(0);
            ones &= u.diff(i) == 1;
        }
        if (oneTime && ones) {
            write(t, u.time(0), new RowSlab(rows));
            return;
        }
        TreeMap<Long, Map<Row, Long>> byTime = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            byTime.computeIfAbsent(u.time(i), k -> new LinkedHashMap<>()).merge(RowDataType.INSTANCE.get(rows, i), u.diff(i), Long::sum);
        }
        byTime.forEach((time, changes) -> write(t, time, changes));
    }

    private void write(CatalogItem.Table t, long time, Map<Row, Long> changes) {
        oracle.wrote(t.id(), time);
        if (!t.primaryKey().isEmpty()) keptKeys(t, time, changes);
        compute.write(t.id(), time, changes);
    }
}
