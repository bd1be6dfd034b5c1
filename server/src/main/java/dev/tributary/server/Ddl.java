package dev.tributary.server;

import dev.tributary.server.compute.ComputeController;
import dev.tributary.server.compute.DataflowMemory;
import dev.tributary.server.compute.Dataflows;
import dev.tributary.server.protobuf.ProtobufSchema;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.bind.BoundQuery;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.catalog.SystemCatalog;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.parser.SqlFormatter;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.plan.Optimizer;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The data definition statements of one database: CREATE TABLE, VIEW, MATERIALIZED VIEW and
 * INDEX, DROP (2BP01 for dependents unless CASCADE) and ALTER ... RETAIN HISTORY. Each change
 * goes to the in-memory catalog and the statement's durable catalog changes together; a
 * materialized view or index is built by the compute controller and its CREATE waits, with the
 * coordinator free, until it has read everything that existed ({@link #awaitHydration}), dropping
 * it again if that fails or is cancelled.
 *
 * <p>Called with the coordinator's lock held (a CREATE lets go of it while it waits for its
 * build, as a large read does). {@link #hydrationProgress} may be read without it.
 */
final class Ddl {
    private final CatalogState catalog;
    private final Binders binders;
    private final TimestampOracle oracle;
    private final ComputeController compute;
    private final TableFrontiers frontiers;
    private final ReadPath reads;
    private final WritePath writes;
    private final Subscriptions subscriptions;
    private final Durability durability;
    private final SequenceValues sequences;
    private final WorkerWait waits;
    private final Sources sources;
    private final Sinks sinks;
    private final Jobs jobs;
    private final RowRetention rowRetention;

    Ddl(CatalogState catalog, Binders binders, TimestampOracle oracle, ComputeController compute, TableFrontiers frontiers, ReadPath reads, WritePath writes,
            Subscriptions subscriptions, Durability durability, WorkerWait waits, SequenceValues sequences, Sources sources, Sinks sinks, Jobs jobs, RowRetention rowRetention) {
        this.rowRetention = rowRetention;
        this.sources = sources;
        this.sinks = sinks;
        this.jobs = jobs;
        this.sequences = sequences;
        this.catalog = catalog;
        this.binders = binders;
        this.oracle = oracle;
        this.compute = compute;
        this.frontiers = frontiers;
        this.reads = reads;
        this.writes = writes;
        this.subscriptions = subscriptions;
        this.durability = durability;
        this.waits = waits;
    }

    Result alterRetainHistory(Session session, Statement.AlterRetainHistory a) {
        String name = a.name().get(a.name().size() - 1);
        CatalogItem item = catalog.find(a.name(), session, a.pos());
        if (item == null) throw new SqlException("42P01", "relation \"" + String.join(".", a.name()) + "\" does not exist", a.pos());
        boolean fits = switch (a.kind()) {
            case TABLE -> item instanceof CatalogItem.Table;
            case MATERIALIZED_VIEW -> item instanceof CatalogItem.MaterializedView;
            case INDEX -> item instanceof CatalogItem.Index;
            case VIEW, SEQUENCE, SOURCE, SINK, JOB -> false;
        };
        if (!fits) throw new SqlException("42809", "\"" + name + "\" is not a " + a.kind().sql().toLowerCase(java.util.Locale.ROOT), a.pos());
        binders.access().checkOwner(session, item);
        HistoryPolicy p = HistoryPolicy.of(a.retain(), binders.plain());
        if (undoable(session, item.id())) session.catalogChanges.add(new CatalogChange.Retained(item.id(), catalog.policyOf(item.id())));
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

    Result createTable(Session session, Statement.CreateTable c, String sql) {
        CatalogState.Name target = catalog.target(c.name(), session, c.pos());
        String name = target.name(), schema = target.schema();
        binders.access().checkCreate(session, schema);
        if (catalog.contains(schema, name) && c.ifNotExists()) return Result.command("CREATE TABLE").withNotice(alreadyExists(name));
        catalog.checkNew(target, false, c.pos());
        List<Column> columns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Statement.ColumnDef d : c.columns()) {
            if (!seen.add(d.name())) throw new SqlException("42701", "column \"" + d.name() + "\" specified more than once", d.pos());
            columns.add(new Column(d.name(), d.type(), !d.notNull() && !c.primaryKey().contains(d.name()), d.identity() == Statement.Identity.ALWAYS));
        }
        List<Integer> pk = new ArrayList<>();
        for (String k : c.primaryKey()) {
            int i = CatalogState.indexOfColumn(columns, k);
            if (i < 0) throw new SqlException("42703", "column \"" + k + "\" named in key does not exist", c.pos());
            if (pk.contains(i)) throw new SqlException("42701", "column \"" + k + "\" appears twice in primary key constraint", c.pos());
            pk.add(i);
        }
        Binder defaultsBinder = binders.plain(session);
        List<ScalarExpr> defaults = new ArrayList<>(defaultsBinder.bindDefaults(c.columns()));
        // a default's nextval reads its sequence: it cannot be dropped while the table is there
        Set<Long> sequencesRead = defaultsBinder.dependencies();
        HistoryPolicy history = HistoryPolicy.of(c.retain(), binders.plain());
        Statement.RetainRows retainRows = c.retainRows();
        long retainMillis = retainRows == null || retainRows.age() == null ? -1 : RowRetention.millis(retainRows.age(), binders.plain());
        if (retainRows != null && !c.appendOnly()) {
            throw new SqlException("42P16", "RETAIN ROWS needs an APPEND ONLY table", retainRows.pos(),
                    "Rows are deleted when their time comes only where nothing else deletes them: WITH (APPEND ONLY, RETAIN ROWS FOR ...).");
        }
        // the primary key's index, as PostgreSQL names it; the table's arrangement is keyed by it
        String pkName = c.primaryKeyName() != null ? c.primaryKeyName() : name + "_pkey";
        if (!pk.isEmpty() && catalog.contains(schema, pkName)) throw new SqlException("42P07", "relation \"" + pkName + "\" already exists", c.pos());
        List<CatalogItem.Sequence> owned = new ArrayList<>();
        for (int i = 0; i < c.columns().size(); i++) {
            Statement.ColumnDef d = c.columns().get(i);
            if (d.identity() == Statement.Identity.NONE) continue;
            // a serial or identity column's sequence, as PostgreSQL makes and names it; made again with the table after a restart
            Statement.SequenceOptions o = d.sequence() != null ? d.sequence() : Statement.SequenceOptions.NONE;
            if (o.type() == null) o = new Statement.SequenceOptions(d.type(), o.increment(), o.min(), o.max(), o.start(), o.cache(), o.cycle());
            owned.add(sequence(-1, constraintName(schema, name, List.of(d.name()), "seq"), o, -1, i, d.pos()));
        }
        long id = catalog.newId();
        long pkIndex = pk.isEmpty() ? -1 : catalog.newId();
        for (int k = 0; k < owned.size(); k++) {
            CatalogItem.Sequence q = owned.get(k);
            q = new CatalogItem.Sequence(catalog.newId(), q.name(), q.type(), q.start(), q.increment(), q.min(), q.max(), q.cycle(),
                    "CREATE SEQUENCE " + qualified(schema, q.name()) + " AS " + q.type() + " OWNED BY " + qualified(schema, name) + "."
                            + SqlFormatter.ident(columns.get(q.ownerColumn()).name()), id, q.ownerColumn(), true);
            owned.set(k, q);
            register(q, schema, Set.of(id));
            binders.access().created(session, q);
            sequences.created(q);
            Statement.ColumnDef next = new Statement.ColumnDef(c.pos(), columns.get(q.ownerColumn()).name(), q.type(), true,
                    new dev.tributary.sql.ast.Expr.FunctionCall(c.pos(), List.of("nextval"), List.of(new dev.tributary.sql.ast.Expr.StringLiteral(c.pos(),
                            qualified(schema, q.name()))), false, false, List.of(), null));
            defaults.set(q.ownerColumn(), binders.plain(session).bindDefaults(List.of(next)).get(0));
        }
        CatalogItem.Table t = new CatalogItem.Table(id, name, columns, pk, defaults, text(sql, c), c.appendOnly(), checks(name, columns, c.checks()), retainRows != null);
        List<SqlType> types = Binder.typesOf(columns);
        int[] key = pk.stream().mapToInt(Integer::intValue).toArray();
        compute.createTable(id, name, types, key, pkIndex, pkName);
        frontiers.created(id);
        register(t, schema, sequencesRead);
        binders.access().created(session, t);
        if (!pk.isEmpty()) register(primaryKeyIndex(schema, t, pkIndex, pkName), schema, Set.of(id));
        if (history != null) setRetention(id, history);
        if (retainRows != null) rowRetention.created(new RowRetention.Retained(id, qualified(schema, name), retainMillis, retainRows.count()));
        // a restart makes each UNIQUE constraint again from its own catalog entry
        if (!durability.replaying()) {
            try {
                for (Statement.UniqueKey u : c.uniques()) addUnique(session, t, u);
                for (Statement.ForeignKeyDef f : c.foreignKeys()) addForeignKey(session, t, f);
            } catch (RuntimeException e) {
                // a constraint that cannot be made fails the CREATE TABLE: the table goes again
                List<Long> made = new ArrayList<>();
                catalog.collect(id, new HashSet<>(), made);
                for (int k = made.size() - 1; k >= 0; k--) remove(made.get(k));
                throw e;
            }
        }
        return Result.command("CREATE TABLE");
    }

    /** Table {@code t}'s primary key as the unique index {@code id} named {@code name}: the table's arrangement is keyed by it. */
    private static CatalogItem.Index primaryKeyIndex(String schema, CatalogItem.Table t, long id, String name) {
        List<ScalarExpr> keys = new ArrayList<>();
        for (int k : t.primaryKey()) keys.add(new ScalarExpr.ColumnRef(k, t.columns().get(k).type()));
        String sql = "CREATE UNIQUE INDEX " + SqlFormatter.ident(name) + " ON " + qualified(schema, t.name())
                + " (" + String.join(", ", t.primaryKey().stream().map(k -> SqlFormatter.ident(t.columns().get(k).name())).toList()) + ")";
        return new CatalogItem.Index(id, name, t.id(), keys, sql, CatalogItem.Index.Uniqueness.PRIMARY_KEY);
    }

    /**
     * CREATE SOURCE: the source's table (written only by its connector; append-only with ENVELOPE
     * NONE, keyed by its PRIMARY KEY with UPSERT or DEBEZIUM, which need one, 42P16, while NONE
     * takes none, 42P16 too; its catalog entry is the CREATE SOURCE statement, which a restart
     * replays, making the key's index again with it) and its progress table
     * {@code name_progress (part, position)}, made with it and dropped with it, not recorded
     * on its own. The connector starts once the statement has ended ({@link Sources}). Outside
     * transaction blocks only (25001), as its connector's writes cannot be taken back; reading the
     * server's files (FROM DIRECTORY) is for superusers (42501), as server-side COPY is.
     */
    Result createSource(Session session, Statement.CreateSource c) {
        if (session.inBlock()) throw new SqlException("25001", "CREATE SOURCE cannot run inside a transaction block", c.pos());
        CatalogState.Name target = catalog.target(c.name(), session, c.pos());
        String name = target.name(), schema = target.schema();
        binders.access().checkCreate(session, schema);
        if (catalog.contains(schema, name) && c.ifNotExists()) return Result.command("CREATE SOURCE").withNotice(alreadyExists(name));
        catalog.checkNew(target, false, c.pos());
        String progressName = name + "_progress";
        if (catalog.contains(schema, progressName)) {
            throw new SqlException("42P07", "relation \"" + progressName + "\" already exists", c.pos(),
                    "A source's progress table is named after it; choose another name for the source.");
        }
        Map<String, String> options = dev.tributary.server.source.Connectors.checkedOptions(c.connector(), c.options(), c.pos());
        // a recovery makes again what was allowed when it was made
        if (c.connector().equals("KAFKA") && !durability.replaying()) binders.access().checkConnect(session, "create a source FROM KAFKA", c.pos());
        if (c.connector().equals("DIRECTORY") && !durability.replaying() && !binders.access().superuser(session)) {
            throw new SqlException("42501", "must be superuser to create a source FROM DIRECTORY", c.pos(),
                    "A directory source reads files on the server's machine, as server-side COPY FROM does.");
        }
        if (c.connector().equals("WEBHOOK") && c.stopOnDecodeError()) {
            throw new SqlException("0A000", "a source FROM WEBHOOK does not take ON DECODE ERROR STOP", c.pos(),
                    "A request whose body does not decode is refused whole (HTTP 400) and nothing of it is written, so nothing is skipped.");
        }
        c = c.withFormatOptions(protobufSchema(session, c.format(), c.connector(), c.formatOptions(), c.pos()));
        boolean keyed = c.envelope() != Statement.SourceEnvelope.NONE;
        if (keyed && c.primaryKey().isEmpty()) {
            throw new SqlException("42P16", "a source with ENVELOPE " + c.envelope() + " needs a PRIMARY KEY", c.pos(),
                    "Each record sets or deletes the row of its key: declare it, CREATE SOURCE " + name + " (id int PRIMARY KEY, ...) or (..., PRIMARY KEY (a, b)).");
        }
        if (!keyed && !c.primaryKey().isEmpty()) {
            throw new SqlException("42P16", "ENVELOPE NONE sources are append-only and take no PRIMARY KEY", c.keyPos(),
                    "Use ENVELOPE UPSERT for a source whose records replace the row of their key.");
        }
        List<Column> columns = new ArrayList<>();
        if (c.columns().isEmpty()) {
            columns.addAll(SourceFormat.defaultColumns(c.format(), c.formatOptions(), c.pos()));
        } else {
            Set<String> seen = new HashSet<>();
            for (Statement.ColumnDef d : c.columns()) {
                if (!seen.add(d.name())) throw new SqlException("42701", "column \"" + d.name() + "\" specified more than once", d.pos());
                columns.add(new Column(d.name(), d.type(), !d.notNull() && !c.primaryKey().contains(d.name()), false));
            }
        }
        List<Integer> pk = new ArrayList<>();
        for (String k : c.primaryKey()) {
            int i = CatalogState.indexOfColumn(columns, k);
            if (i < 0) {
                throw new SqlException("42703", "column \"" + k + "\" named in key does not exist", c.keyPos(),
                        "A source's key is among the columns its format fills, not the ones INCLUDE adds.");
            }
            if (pk.contains(i)) throw new SqlException("42701", "column \"" + k + "\" appears twice in primary key constraint", c.keyPos());
            pk.add(i);
        }
        int[] key = pk.stream().mapToInt(Integer::intValue).toArray();
        String pkName = name + "_pkey";
        if (keyed && catalog.contains(schema, pkName)) throw new SqlException("42P07", "relation \"" + pkName + "\" already exists", c.pos());
        SourceFormat format = SourceFormat.of(c.format(), c.formatOptions(), columns, c.envelope(), key, name, c.pos());
        // what the connector adds (INCLUDE) follows what the format fills
        for (Column extra : dev.tributary.server.source.Connectors.includedColumns(c.connector(), c.include(), c.format(), c.pos())) {
            if (columns.stream().anyMatch(col -> col.name().equals(extra.name()))) {
                throw new SqlException("42701", "column \"" + extra.name() + "\" specified more than once", c.pos(),
                        "INCLUDE " + extra.name().toUpperCase(java.util.Locale.ROOT) + " adds a column of that name; rename the source's own column.");
            }
            columns.add(extra);
        }
        String sql = SqlFormatter.format(c);
        long id = catalog.newId();
        long progressId = catalog.newId();
        // after the progress table's: a restart's replay gives the three the same ids again
        long pkIndex = keyed ? catalog.newId() : -1;
        CatalogItem.Table t = new CatalogItem.Table(id, name, columns, pk, List.of(), sql, !keyed);
        compute.createTable(id, name, Binder.typesOf(columns), key, pkIndex, keyed ? pkName : null);
        frontiers.created(id);
        register(t, schema, Set.of());
        binders.access().created(session, t);
        CatalogItem.Index primaryKey = keyed ? primaryKeyIndex(schema, t, pkIndex, pkName) : null;
        List<Column> progressColumns = List.of(new Column("part", SqlType.TEXT, false, false), new Column("position", SqlType.TEXT, false, false));
        CatalogItem.Table progress = new CatalogItem.Table(progressId, progressName, progressColumns, List.of(), List.of(),
                "CREATE TABLE " + qualified(schema, progressName) + " (part text NOT NULL, position text NOT NULL) WITH (APPEND ONLY)", true);
        compute.createTable(progressId, progressName, Binder.typesOf(progressColumns), new int[0], -1, null);
        frontiers.created(progressId);
        // made again by the source's own statement: listed, not recorded
        catalog.register(progress, schema, Set.of(id));
        binders.access().created(session, progress);
        if (primaryKey != null) register(primaryKey, schema, Set.of(id));
        sources.created(new Sources.Source(schema, t, progress, primaryKey, c.connector(), options, c.format(), format, c.include(), c.stopOnDecodeError(),
                c.envelope()));
        return Result.command("CREATE SOURCE");
    }

    /**
     * A FORMAT PROTOBUF's options with {@code SCHEMA FILE 'path'} replaced by the file's bytes
     * ({@link ProtobufSchema#embed}), so that the statement kept in the catalog holds its schema;
     * {@code options} as they are for other formats. Reading the server's file is for superusers
     * (42501), as server-side COPY FROM is; 58P01 for a file that does not exist. FROM DIRECTORY
     * refuses the format (0A000): protobuf messages written one after another have no delimiter.
     */
    private List<Statement.SourceOption> protobufSchema(Session session, String format, String connector, List<Statement.SourceOption> options, int pos) {
        if (!"PROTOBUF".equals(format)) return options;
        if (connector.equals("DIRECTORY")) {
            throw new SqlException("0A000", "a source FROM DIRECTORY does not read FORMAT PROTOBUF", pos,
                    "Protobuf messages in a file have no delimiter between them; read them FROM KAFKA or FROM WEBHOOK, one message each.");
        }
        return ProtobufSchema.embed(options, (path, at) -> {
            if (!durability.replaying() && !binders.access().superuser(session)) {
                throw new SqlException("42501", "must be superuser to read a SCHEMA FILE", at,
                        "SCHEMA FILE reads a file on the server's machine, as server-side COPY FROM does; give the set's bytes as SCHEMA '\\x...' instead.");
            }
            try {
                java.nio.file.Path file = java.nio.file.Path.of(path);
                if (java.nio.file.Files.size(file) > MAX_SCHEMA_BYTES) {
                    throw new SqlException("22023", "SCHEMA FILE \"" + path + "\" is larger than " + MAX_SCHEMA_BYTES + " bytes, too large for a descriptor set", at);
                }
                return java.nio.file.Files.readAllBytes(file);
            } catch (java.io.IOException e) {
                throw new SqlException(ServerFileCopy.state(e), "could not read SCHEMA FILE \"" + path + "\": " + ServerFileCopy.reason(e), at,
                        "SCHEMA FILE is read by the Tributary server process, on its machine.");
            }
        });
    }

    /** The largest descriptor set a SCHEMA FILE may be: it is kept in the catalog's statement. */
    private static final long MAX_SCHEMA_BYTES = 4 << 20;

    /**
     * CREATE SINK, whatever its connector: INTO KAFKA ({@link #createKafkaSink}, exactly once, a
     * job-like sink) or INTO HTTP ({@link #createHttpSink}, at least once). Both make a table of
     * catalog kind {@code sink} written by the sink only, and both replay from their statement.
     * 42704 for another connector; outside transaction blocks only (25001): what a sink has
     * delivered cannot be taken back.
     */
    Result createSink(Session session, Statement.CreateSink c) {
        if (session.inBlock()) throw new SqlException("25001", "CREATE SINK cannot run inside a transaction block", c.pos());
        if (!c.connector().equals("KAFKA") && !c.connector().equals("HTTP")) {
            throw new SqlException("42704", "sink connector \"" + c.connector().toLowerCase(java.util.Locale.ROOT) + "\" does not exist", c.pos(),
                    "Sinks write INTO KAFKA (BROKERS 'host:9092', TOPIC 'name') FORMAT JSON ENVELOPE UPSERT | DEBEZIUM, or INTO HTTP (URL 'https://...').");
        }
        CatalogState.Name target = catalog.target(c.name(), session, c.pos());
        binders.access().checkCreate(session, target.schema());
        // a recovery makes again what was allowed when it was made
        if (!durability.replaying()) binders.access().checkConnect(session, "create a sink INTO " + c.connector(), c.pos());
        if (catalog.contains(target.schema(), target.name()) && c.ifNotExists()) return Result.command("CREATE SINK").withNotice(alreadyExists(target.name()));
        catalog.checkNew(target, false, c.pos());
        return c.connector().equals("KAFKA") ? createKafkaSink(session, c, target) : createHttpSink(session, c, target);
    }

    /**
     * CREATE SINK name FROM relation | (query) INTO HTTP (URL '...' [, MAX QUEUE SIZE bytes]) (and
     * CREATE JOB name AS INSERT INTO FUNCTION url('...') query, parsed as one): a table holding the
     * last time the receiver acknowledged (only the sink writes it; it depends on what the query
     * reads, so that is dropped only with CASCADE), and a delivery started once the statement has
     * ended ({@link Sinks}). The sink's owner must be able to read what it reads; the URL is http
     * or https. What only INTO KAFKA takes is refused: KEY, FORMAT and ENVELOPE (42601: the body is
     * always the change batch's JSON).
     */
    private Result createHttpSink(Session session, Statement.CreateSink c, CatalogState.Name target) {
        String name = target.name(), schema = target.schema();
        if (!c.key().isEmpty() || c.format() != null) {
            throw new SqlException("42601", "INTO HTTP takes neither KEY nor FORMAT ... ENVELOPE", c.pos(),
                    "An HTTP sink POSTs each time's changes as JSON parts (row and diff); KEY and FORMAT ... ENVELOPE are INTO KAFKA's.");
        }
        String url = null;
        long maxQueued = dev.tributary.server.sink.HttpSink.DEFAULT_MAX_QUEUED_BYTES;
        Set<String> given = new HashSet<>();
        for (Statement.SourceOption o : c.options()) {
            if (!o.name().equals("URL") && !o.name().equals("MAX QUEUE SIZE")) {
                throw new SqlException("42601", "option \"" + o.name() + "\" not recognized for INTO HTTP", o.pos(), "INTO HTTP takes URL and MAX QUEUE SIZE.");
            }
            if (!given.add(o.name())) throw new SqlException("42601", "option \"" + o.name() + "\" given more than once", o.pos());
            if (o.name().equals("URL")) {
                url = o.value();
            } else {
                try {
                    maxQueued = Long.parseLong(o.value());
                    if (maxQueued < 1) throw new NumberFormatException();
                } catch (NumberFormatException e) {
                    throw new SqlException("22023", "MAX QUEUE SIZE is a whole number of bytes, at least 1: " + o.value(), o.pos());
                }
            }
        }
        if (url == null) throw new SqlException("42601", "INTO HTTP needs the receiver: INTO HTTP (URL 'https://...')", c.pos());
        java.net.URI uri = dev.tributary.server.sink.HttpSink.receiver(url, c.pos());
        Set<Long> uses;
        if (durability.replaying()) {
            // replayed with the tables, before the views it may read are made again: what it reads is the entry's
            uses = catalog.replayingUses();
        } else {
            if (c.query() == null) {
                CatalogItem from = catalog.find(c.from(), session, c.pos());
                if (from == null) throw new SqlException("42P01", "relation \"" + String.join(".", c.from()) + "\" does not exist", c.pos());
                if (!(from instanceof CatalogItem.Table || from instanceof CatalogItem.View || from instanceof CatalogItem.MaterializedView)) {
                    throw new SqlException("42809", "\"" + from.name() + "\" is not a table, view or materialized view", c.pos());
                }
            }
            SinkQuery bound = bindSinkQuery(session, c);
            binders.access().checkSelect(session, bound.binder().dependencies());
            // checked as a subscription's plan would be, before anything is made
            Binder.checkOneTime(temporal(visiblePlan(bound.query()), c.pos()), c.pos());
            uses = new HashSet<>(bound.binder().dependencies());
        }
        String sql = SqlFormatter.format(c);
        long id = catalog.newId();
        // as a job's: parts acknowledged (epoch ms) and, while paused, paused
        List<Column> columns = List.of(new Column("part", SqlType.TEXT, false, false), new Column("position", SqlType.TEXT, false, false));
        CatalogItem.Table t = new CatalogItem.Table(id, name, columns, List.of(), List.of(), sql, true);
        compute.createTable(id, name, Binder.typesOf(columns), new int[0], -1, null);
        frontiers.created(id);
        register(t, schema, uses);
        binders.access().created(session, t);
        sinks.created(new Sinks.Sink(t, c, durability.searchPath(), uri, maxQueued));
        return Result.command("CREATE SINK");
    }

    /**
     * CREATE JOB name AS INSERT INTO target query (see {@link Jobs}): the job's relation
     * {@code name (part, position)}, which holds its cursor and reads the target and what the
     * query reads (so dropping them drops the job only with CASCADE); started once the statement
     * has ended. INSERT on the target and SELECT on what the query reads are checked as for the
     * INSERT. Outside transaction blocks only (25001).
     */
    Result createJob(Session session, Statement.CreateJob c) {
        if (session.inBlock()) throw new SqlException("25001", "CREATE JOB cannot run inside a transaction block", c.pos());
        CatalogState.Name target = catalog.target(c.name(), session, c.pos());
        String name = target.name(), schema = target.schema();
        binders.access().checkCreate(session, schema);
        if (catalog.contains(schema, name) && c.ifNotExists()) return Result.command("CREATE JOB").withNotice(alreadyExists(name));
        catalog.checkNew(target, false, c.pos());
        Statement.Insert ins = c.insert();
        if (ins.onConflict() != null || !ins.returning().isEmpty()) {
            throw new SqlException("0A000", "a job's INSERT takes neither ON CONFLICT nor RETURNING", c.pos());
        }
        Set<Long> uses;
        Jobs.Job job;
        String sql = SqlFormatter.format(c);
        long id;
        CatalogItem.Table item;
        List<Column> columns = List.of(new Column("part", SqlType.TEXT, false, false), new Column("position", SqlType.TEXT, false, false));
        if (durability.replaying()) {
            // a recovery makes the job's relation among the tables, before the views its query
            // may read: the query is bound when the job starts, after the recovery
            uses = catalog.replayingUses();
            id = catalog.newId();
            item = new CatalogItem.Table(id, name, columns, List.of(), List.of(), sql, true);
            job = new Jobs.Job(item, c, durability.searchPath());
        } else {
            CatalogItem.Table t = catalog.table(ins.table(), session, ins.pos(), "insert into");
            Binder binder = binders.of(session).allowStreams().maintaining();
            Binder.InsertSource in = binder.bindInsertSource(t, ins, true);
            if (binder.readsSystemCatalog()) throw Binders.systemCatalogIn("a job", c.pos());
            if (binder.consumerGroup() != null) throw Subscriptions.consumerGroupOutsideCursor(binder.consumerGroup().pos());
            binders.access().checkStatement(session, ins, t, binder.dependencies());
            Set<Long> reads = Plans.reads(in.plan());
            if (reads.contains(t.id()) || binder.dependencies().contains(t.id())) {
                throw new SqlException("42P17", "job " + name + " would read the table it inserts into, " + t.name() + ", and feed on its own rows", c.pos());
            }
            // checked as a subscription's plan would be, before anything is made
            Binder.checkOneTime(temporal(visiblePlan(new BoundQuery(in.plan(), names(t, in.targets()), in.plan().types(), List.of())), c.pos()), c.pos());
            uses = new HashSet<>(binder.dependencies());
            uses.add(t.id());
            id = catalog.newId();
            item = new CatalogItem.Table(id, name, columns, List.of(), List.of(), sql, true);
            job = new Jobs.Job(item, c, durability.searchPath());
            job.bind(t, in.targets().stream().mapToInt(Integer::intValue).toArray(), Plans.anyNode(in.plan(), p -> p instanceof Plan.EventTime), reads);
        }
        compute.createTable(id, name, Binder.typesOf(columns), new int[0], -1, null);
        frontiers.created(id);
        register(item, schema, uses);
        binders.access().created(session, item);
        jobs.created(job);
        return Result.command("CREATE JOB");
    }

    /**
     * CREATE SINK name FROM relation | (query) INTO KAFKA (...) [KEY (columns)] FORMAT JSON
     * ENVELOPE UPSERT | DEBEZIUM (see {@link KafkaSinkRunner}): the sink's relation {@code name (part,
     * position)}, a job's relation that holds its cursor and writer token and reads what the
     * query reads (so dropping that drops the sink only with CASCADE); started once the statement
     * has ended. SELECT on what the query reads is checked.
     */
    private Result createKafkaSink(Session session, Statement.CreateSink c, CatalogState.Name target) {
        String name = target.name(), schema = target.schema();
        dev.tributary.server.sink.KafkaSinkSettings kafka = sinkSettings(c);
        c = c.withFormatOptions(protobufSchema(session, c.format(), "KAFKA", c.formatOptions(), c.pos()));
        Set<Long> uses;
        String sql = SqlFormatter.format(c);
        long id;
        CatalogItem.Table item;
        Jobs.Job sink;
        List<Column> columns = List.of(new Column("part", SqlType.TEXT, false, false), new Column("position", SqlType.TEXT, false, false));
        if (durability.replaying()) {
            // as a job's: bound when the sink starts, after the recovery
            uses = catalog.replayingUses();
            id = catalog.newId();
            item = new CatalogItem.Table(id, name, columns, List.of(), List.of(), sql, true);
            sink = new Jobs.Job(item, c, durability.searchPath());
        } else {
            BoundSink bound = bindSink(session, c, name);
            binders.access().checkSelect(session, bound.binder().dependencies());
            // checked as a subscription's plan would be, before anything is made
            Binder.checkOneTime(temporal(visiblePlan(bound.query()), c.pos()), c.pos());
            uses = new HashSet<>(bound.binder().dependencies());
            id = catalog.newId();
            item = new CatalogItem.Table(id, name, columns, List.of(), List.of(), sql, true);
            sink = new Jobs.Job(item, c, durability.searchPath());
            sink.bind(null, new int[0], false, Plans.reads(bound.query().plan()));
            sink.envelope = bound.envelope();
        }
        sink.kafka = kafka;
        compute.createTable(id, name, Binder.typesOf(columns), new int[0], -1, null);
        frontiers.created(id);
        register(item, schema, uses);
        binders.access().created(session, item);
        jobs.created(sink);
        return Result.command("CREATE SINK");
    }

    /** A sink's query bound: the binder (what it depends on), the query, and the envelope that writes its rows. */
    record BoundSink(Binder binder, BoundQuery query, dev.tributary.server.sink.SinkEnvelope envelope) {}

    /**
     * The Kafka options of sink {@code c} (INTO KAFKA), checked: 42601 without FORMAT and ENVELOPE,
     * for an option INTO KAFKA does not take, or for options of FORMAT JSON (it has none); 0A000
     * for a format other than JSON and PROTOBUF.
     */
    static dev.tributary.server.sink.KafkaSinkSettings sinkSettings(Statement.CreateSink c) {
        if (c.format() == null) throw new SqlException("42601", "a Kafka sink needs its format and envelope: ... FORMAT JSON ENVELOPE UPSERT | DEBEZIUM", c.pos());
        switch (c.format()) {
            case "JSON" -> {
                if (!c.formatOptions().isEmpty()) {
                    throw new SqlException("42601", "option \"" + c.formatOptions().get(0).name() + "\" not recognized for FORMAT JSON", c.formatOptions().get(0).pos(), "FORMAT JSON takes no options.");
                }
            }
            case "PROTOBUF" -> { }
            default -> throw new SqlException("0A000", "a sink writes FORMAT JSON or PROTOBUF; FORMAT " + c.format() + " is not supported", c.pos(),
                    "Write FORMAT JSON (keys and values JSON objects of the columns) or FORMAT PROTOBUF (MESSAGE '...', SCHEMA FILE '...').");
        }
        Map<String, String> options = new java.util.LinkedHashMap<>();
        for (Statement.SourceOption o : c.options()) {
            if (!dev.tributary.server.sink.KafkaSinkSettings.OPTIONS.contains(o.name())) {
                throw new SqlException("42601", "option \"" + o.name() + "\" not recognized for INTO KAFKA", o.pos(),
                        "INTO KAFKA takes " + String.join(", ", dev.tributary.server.sink.KafkaSinkSettings.OPTIONS) + ".");
            }
            if (options.put(o.name(), o.value()) != null) throw new SqlException("42601", "option \"" + o.name() + "\" given more than once", o.pos());
        }
        try {
            return dev.tributary.server.sink.KafkaSinkSettings.of(options);
        } catch (IllegalArgumentException e) {
            throw new SqlException("42601", e.getMessage(), c.pos());
        }
    }

    /** A sink's query bound: the binder (what it depends on) and the query. */
    record SinkQuery(Binder binder, BoundQuery query) {}

    /**
     * Binds what sink {@code c} reads (its relation, as {@code SELECT *} of it, or its query) for
     * {@code session}: 0A000 for a query in event time (a sink resumes at a system time), and for
     * one reading the system catalog.
     */
    SinkQuery bindSinkQuery(Session session, Statement.CreateSink c) {
        Binder binder = binders.of(session).allowStreams().maintaining();
        dev.tributary.sql.ast.Query query = c.query() != null ? c.query()
                : Parser.parseQuery("SELECT * FROM " + String.join(".", c.from().stream().map(SqlFormatter::ident).toList()));
        BoundQuery q = binder.bindQuery(query);
        if (binder.readsSystemCatalog()) throw Binders.systemCatalogIn("a sink", c.pos());
        if (binder.consumerGroup() != null) throw Subscriptions.consumerGroupOutsideCursor(binder.consumerGroup().pos());
        if (Plans.anyNode(q.plan(), p -> p instanceof Plan.EventTime)) {
            throw new SqlException("0A000", "a sink over a STREAM in event time is not supported", c.pos(),
                    "Sink a materialized view over the stream's table instead, or CREATE JOB to append its rows to a table.");
        }
        return new SinkQuery(binder, q);
    }

    /**
     * Binds Kafka sink {@code c}'s query for {@code session} ({@link #bindSinkQuery}) and its
     * envelope: 42703 for a KEY column it does not have, 42601 for an envelope other than UPSERT or DEBEZIUM.
     */
    BoundSink bindSink(Session session, Statement.CreateSink c, String name) {
        dev.tributary.server.sink.SinkEnvelope.Kind kind = switch (c.envelope()) {
            case "UPSERT" -> dev.tributary.server.sink.SinkEnvelope.Kind.UPSERT;
            case "DEBEZIUM" -> dev.tributary.server.sink.SinkEnvelope.Kind.DEBEZIUM;
            default -> throw new SqlException("42601", "a sink's envelope is UPSERT or DEBEZIUM, not " + c.envelope(), c.pos());
        };
        SinkQuery bound = bindSinkQuery(session, c);
        Binder binder = bound.binder();
        BoundQuery q = bound.query();
        List<String> names = q.names().subList(0, q.visible());
        int[] key = new int[c.key().size()];
        for (int i = 0; i < key.length; i++) {
            key[i] = names.indexOf(c.key().get(i));
            if (key[i] < 0) {
                throw new SqlException("42703", "column \"" + c.key().get(i) + "\" does not exist", c.pos(),
                        "KEY (...) names columns of what the sink writes: " + String.join(", ", names) + ".");
            }
        }
        List<SqlType> types = q.types().subList(0, q.visible());
        dev.tributary.server.sink.SinkEnvelope.Values values = dev.tributary.server.sink.SinkEnvelope.Values.json(names, types);
        dev.tributary.server.protobuf.ProtobufRows.BeforeAfter changes = null;
        if ("PROTOBUF".equals(c.format())) {
            // the message's fields by the columns' names, checked now (42703, 42804); a key stays JSON
            com.google.protobuf.Descriptors.Descriptor message = ProtobufSchema.of(c.formatOptions(), c.pos()).message();
            if (kind == dev.tributary.server.sink.SinkEnvelope.Kind.DEBEZIUM) {
                // the message is the envelope: before and after of the row's message type
                changes = dev.tributary.server.protobuf.ProtobufRows.forDebezium(message, names, types, c.pos());
            } else {
                values = dev.tributary.server.protobuf.ProtobufRows.forSink(message, names, types, c.pos())::encode;
            }
        }
        return new BoundSink(binder, q, new dev.tributary.server.sink.SinkEnvelope(name, kind, names, types, key, values, changes));
    }

    /** The names of {@code t}'s columns {@code targets}. */
    private static List<String> names(CatalogItem.Table t, List<Integer> targets) {
        List<String> out = new ArrayList<>();
        for (int k : targets) out.add(t.columns().get(k).name());
        return out;
    }

    /**
     * CREATE TABLE ... AS query: a table of the query's columns (their types; unknown ones text),
     * made as the plain CREATE TABLE of them (what a restart replays), then filled by an INSERT of
     * the query's rows ({@code writes}) unless WITH NO DATA; the table goes again when that fails.
     * PostgreSQL's tag: {@code SELECT n}.
     */
    Result createTableAs(Session session, Statement.CreateTableAs c, WritePath writes) {
        CatalogState.Name target = catalog.target(c.name(), session, c.pos());
        if (catalog.contains(target.schema(), target.name()) && c.ifNotExists()) return Result.command("CREATE TABLE AS").withNotice(alreadyExists(target.name()));
        dev.tributary.sql.bind.BoundQuery q = binders.plain(session).bindQuery(c.query());
        if (c.columns().size() > q.names().size()) throw new SqlException("42601", "too many column names were specified", c.pos());
        List<Statement.ColumnDef> columns = new ArrayList<>();
        for (int i = 0; i < q.names().size(); i++) {
            SqlType type = q.types().get(i).kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : q.types().get(i);
            String column = i < c.columns().size() ? c.columns().get(i) : q.names().get(i);
            columns.add(new Statement.ColumnDef(c.pos(), column, type, false, null, Statement.Identity.NONE, null));
        }
        Statement.CreateTable plain = new Statement.CreateTable(1, List.of(target.schema(), target.name()), false, columns, List.of(), null, false, null);
        createTable(session, plain, SqlFormatter.format(plain));
        if (c.withNoData()) return Result.command("CREATE TABLE AS");
        try {
            Result inserted = writes.insert(session, new Statement.Insert(c.pos(), plain.name(), List.of(), c.query(), List.of(), null));
            return Result.command("SELECT " + inserted.tag().substring("INSERT 0 ".length()));
        } catch (RuntimeException e) {
            drop(session, new Statement.Drop(c.pos(), Statement.ObjectKind.TABLE, false, List.of(plain.name()), false));
            throw e;
        }
    }

    /**
     * CREATE TABLE's CHECK constraints bound over the new table's columns, named as PostgreSQL
     * names them when unnamed: {@code table_column_check} after the column it was written on or
     * the one column its expression reads ({@code table_check} otherwise), numbered on a repeat.
     */
    private List<CatalogItem.Table.Check> checks(String table, List<Column> columns, List<Statement.CheckDef> defs) {
        List<CatalogItem.Table.Check> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Statement.CheckDef d : defs) {
            ScalarExpr e = binders.plain().bindCheck(table, columns, d.expr());
            String name = d.name();
            if (name == null) {
                String column = d.column();
                if (column == null) {
                    List<ScalarExpr.ColumnRef> refs = new ArrayList<>();
                    collectColumns(e, refs);
                    // PostgreSQL names it after its column only when it reads exactly one
                    Set<Integer> read = new HashSet<>();
                    for (ScalarExpr.ColumnRef r : refs) read.add(r.index());
                    column = read.size() == 1 ? columns.get(refs.get(0).index()).name() : null;
                }
                String base = table + (column == null ? "" : "_" + column) + "_check";
                name = base;
                for (int n = 1; names.contains(name); n++) name = base + n;
            } else if (names.contains(name)) {
                throw new SqlException("42710", "constraint \"" + name + "\" for relation \"" + table + "\" already exists", d.pos());
            }
            names.add(name);
            out.add(new CatalogItem.Table.Check(name, e, SqlFormatter.format(d.expr())));
        }
        return out;
    }

    private static void collectColumns(ScalarExpr e, List<ScalarExpr.ColumnRef> into) {
        if (e instanceof ScalarExpr.ColumnRef c) into.add(c);
        for (ScalarExpr child : e.children()) collectColumns(child, into);
    }

    Result createSequence(Session session, Statement.CreateSequence q, String sql) {
        CatalogState.Name target = catalog.target(q.name(), session, q.pos());
        String name = target.name();
        binders.access().checkCreate(session, target.schema());
        if (catalog.contains(target.schema(), name) && q.ifNotExists()) return Result.command("CREATE SEQUENCE").withNotice(alreadyExists(name));
        catalog.checkNew(target, false, q.pos());
        long owner = -1;
        int column = -1;
        if (!q.ownedBy().isEmpty()) {
            if (q.ownedBy().size() < 2) throw new SqlException("42601", "invalid OWNED BY option", q.pos(), "Specify OWNED BY table.column or OWNED BY NONE.");
            CatalogItem.Table t = catalog.table(q.ownedBy().subList(0, q.ownedBy().size() - 1), session, q.pos(), "own a sequence with");
            column = CatalogState.indexOfColumn(t.columns(), q.ownedBy().get(q.ownedBy().size() - 1));
            if (column < 0) throw new SqlException("42703", "column \"" + q.ownedBy().get(q.ownedBy().size() - 1) + "\" of relation \"" + t.name() + "\" does not exist", q.pos());
            owner = t.id();
        }
        CatalogItem.Sequence made = sequence(catalog.newId(), name, q.options(), owner, column, q.pos());
        made = new CatalogItem.Sequence(made.id(), made.name(), made.type(), made.start(), made.increment(), made.min(), made.max(), made.cycle(),
                text(sql, q), owner, column, false);
        // OWNED BY: dropped with the table, but made again from its own statement after a restart
        register(made, target.schema(), owner < 0 ? Set.of() : Set.of(owner));
        binders.access().created(session, made);
        sequences.created(made);
        return Result.command("CREATE SEQUENCE");
    }

    /**
     * A sequence {@code name} with PostgreSQL's defaults for what {@code o} leaves out (type
     * bigint; increment 1; min 1 and max the type's largest going up, the reverse going down;
     * start at min going up, max going down), checked as PostgreSQL checks them (22023).
     */
    private static CatalogItem.Sequence sequence(long id, String name, Statement.SequenceOptions o, long owner, int column, int pos) {
        SqlType type = o.type() != null ? o.type() : SqlType.BIGINT;
        long typeMax = switch (type.kind()) {
            case SMALLINT -> Short.MAX_VALUE;
            case INTEGER -> Integer.MAX_VALUE;
            case BIGINT -> Long.MAX_VALUE;
            default -> throw new SqlException("22023", "sequence type must be smallint, integer, or bigint", pos);
        };
        long typeMin = -typeMax - 1;
        long increment = o.increment() != null ? o.increment() : 1;
        if (increment == 0) throw new SqlException("22023", "INCREMENT must not be zero", pos);
        long min = o.min() != null ? o.min() : increment > 0 ? 1 : typeMin;
        long max = o.max() != null ? o.max() : increment > 0 ? typeMax : -1;
        if (min < typeMin || max > typeMax) throw new SqlException("22023", (min < typeMin ? "MINVALUE (" + min : "MAXVALUE (" + max) + ") is out of range for sequence data type " + type, pos);
        if (min >= max) throw new SqlException("22023", "MINVALUE (" + min + ") must be less than MAXVALUE (" + max + ")", pos);
        long start = o.start() != null ? o.start() : increment > 0 ? min : max;
        if (start < min) throw new SqlException("22023", "START value (" + start + ") cannot be less than MINVALUE (" + min + ")", pos);
        if (start > max) throw new SqlException("22023", "START value (" + start + ") cannot be greater than MAXVALUE (" + max + ")", pos);
        if (o.cache() != null && o.cache() < 1) throw new SqlException("22023", "CACHE (" + o.cache() + ") must be greater than zero", pos);
        return new CatalogItem.Sequence(id, name, type, start, increment, min, max, Boolean.TRUE.equals(o.cycle()), "", owner, column, false);
    }

    Result addConstraint(Session session, Statement.AddConstraint a) {
        CatalogItem.Table t = catalog.table(a.table(), session, a.pos(), "alter");
        binders.access().checkOwner(session, t);
        if (a.key() != null) addUnique(session, t, a.key());
        else if (a.foreignKey() != null) addForeignKey(session, t, a.foreignKey());
        else addCheck(session, t, a.check());
        return Result.command("ALTER TABLE");
    }

    /**
     * ALTER TABLE ... ADD [CONSTRAINT name] CHECK (e): no row there is may make it false (23514,
     * as PostgreSQL words it); then the table's definition has it, named as CREATE TABLE names it.
     */
    private void addCheck(Session session, CatalogItem.Table t, Statement.CheckDef d) {
        Statement.CreateTable def = definition(t);
        List<Statement.CheckDef> defs = new ArrayList<>(def.checks());
        defs.add(d);
        List<CatalogItem.Table.Check> checks = checks(t.name(), t.columns(), defs);
        CatalogItem.Table.Check added = checks.get(checks.size() - 1);
        named(defs, checks);
        if (writes.anyRow(t, new ScalarExpr.Not(added.expr()))) {
            throw new SqlException("23514", "check constraint \"" + added.name() + "\" of relation \"" + t.name() + "\" is violated by some row");
        }
        Statement.CreateTable next = new Statement.CreateTable(def.pos(), def.name(), def.ifNotExists(), def.columns(), def.primaryKey(), def.retain(),
                def.appendOnly(), def.watermark(), def.primaryKeyName(), def.uniques(), defs, def.foreignKeys(), def.retainRows());
        replaceTable(session, t, next, t.columns(), t.defaults(), checks, Set.of());
    }

    /**
     * ALTER TABLE ... ALTER COLUMN: SET/DROP DEFAULT (the new default bound as CREATE TABLE binds
     * one), SET NOT NULL (23502 when a row there is has NULL in it), DROP NOT NULL (42P16 for a
     * primary key's column). The table is defined again in place: same id, rows and dependents.
     */
    Result alterColumn(Session session, Statement.AlterColumn a) {
        CatalogItem.Table t = catalog.table(a.table(), session, a.pos(), "alter");
        binders.access().checkOwner(session, t);
        int c = CatalogState.indexOfColumn(t.columns(), a.column());
        if (c < 0) throw new SqlException("42703", "column \"" + a.column() + "\" of relation \"" + t.name() + "\" does not exist", a.pos());
        Statement.CreateTable def = definition(t);
        Statement.ColumnDef d = def.columns().get(c);
        if (d.identity() != Statement.Identity.NONE) {
            throw new SqlException("0A000", "ALTER COLUMN on a serial or identity column is not supported", a.pos(),
                    "Its default and NOT NULL come from its sequence.");
        }
        Column col = t.columns().get(c);
        List<Column> columns = new ArrayList<>(t.columns());
        List<ScalarExpr> defaults = new ArrayList<>(t.defaults());
        Set<Long> reads = Set.of();
        Statement.ColumnDef changed;
        switch (a.change()) {
            case SET_DEFAULT, DROP_DEFAULT -> {
                changed = new Statement.ColumnDef(d.pos(), d.name(), d.type(), d.notNull(), a.defaultExpr(), d.identity(), d.sequence());
                Binder binder = binders.plain(session);
                defaults.set(c, binder.bindDefaults(List.of(changed)).get(0));
                reads = binder.dependencies();
            }
            case SET_NOT_NULL -> {
                if (col.nullable() && writes.anyRow(t, new ScalarExpr.IsNull(new ScalarExpr.ColumnRef(c, col.type()), false))) {
                    throw new SqlException("23502", "column \"" + col.name() + "\" of relation \"" + t.name() + "\" contains null values");
                }
                changed = new Statement.ColumnDef(d.pos(), d.name(), d.type(), true, d.defaultExpr(), d.identity(), d.sequence());
                columns.set(c, new Column(col.name(), col.type(), false, col.generatedAlways()));
            }
            case DROP_NOT_NULL -> {
                if (t.primaryKey().contains(c)) throw new SqlException("42P16", "column \"" + col.name() + "\" is in a primary key", a.pos());
                changed = new Statement.ColumnDef(d.pos(), d.name(), d.type(), false, d.defaultExpr(), d.identity(), d.sequence());
                columns.set(c, new Column(col.name(), col.type(), true, col.generatedAlways()));
            }
            default -> throw new IllegalStateException(a.change().name());
        }
        List<Statement.ColumnDef> defs = new ArrayList<>(def.columns());
        defs.set(c, changed);
        Statement.CreateTable next = new Statement.CreateTable(def.pos(), def.name(), def.ifNotExists(), defs, def.primaryKey(), def.retain(),
                def.appendOnly(), def.watermark(), def.primaryKeyName(), def.uniques(), def.checks(), def.foreignKeys(), def.retainRows());
        replaceTable(session, t, next, columns, defaults, t.checks(), reads);
        return Result.command("ALTER TABLE");
    }

    /** Each CHECK of {@code defs} named as bound ({@code checks}): so that dropping one later does not rename the others. */
    private static void named(List<Statement.CheckDef> defs, List<CatalogItem.Table.Check> checks) {
        for (int i = 0; i < defs.size(); i++) {
            Statement.CheckDef d = defs.get(i);
            defs.set(i, new Statement.CheckDef(d.pos(), checks.get(i).name(), d.expr(), d.column()));
        }
    }

    /** ALTER TABLE ... DROP CONSTRAINT of a CHECK: the table defined again without it; false when {@code t} has no CHECK named {@code name}. */
    private boolean dropCheck(Session session, CatalogItem.Table t, String name) {
        int at = -1;
        for (int i = 0; i < t.checks().size(); i++) if (t.checks().get(i).name().equals(name)) at = i;
        if (at < 0) return false;
        Statement.CreateTable def = definition(t);
        List<Statement.CheckDef> defs = new ArrayList<>(def.checks());
        List<CatalogItem.Table.Check> checks = new ArrayList<>(t.checks());
        named(defs, checks);
        defs.remove(at);
        checks.remove(at);
        Statement.CreateTable next = new Statement.CreateTable(def.pos(), def.name(), def.ifNotExists(), def.columns(), def.primaryKey(), def.retain(),
                def.appendOnly(), def.watermark(), def.primaryKeyName(), def.uniques(), defs, def.foreignKeys(), def.retainRows());
        replaceTable(session, t, next, t.columns(), t.defaults(), checks, Set.of());
        return true;
    }

    /** The CREATE TABLE that makes {@code t} as it is now: its recorded text, parsed. */
    private static Statement.CreateTable definition(CatalogItem.Table t) {
        return (Statement.CreateTable) Parser.parse(t.sql()).get(0);
    }

    /**
     * Lists table {@code t} again under its id with a new definition ({@code def}, recorded as
     * what a restart makes it from) and what is bound of it; what depends on it stays, and what
     * it reads now also includes {@code reads}.
     */
    private void replaceTable(Session session, CatalogItem.Table t, Statement.CreateTable def, List<Column> columns, List<ScalarExpr> defaults,
                              List<CatalogItem.Table.Check> checks, Set<Long> reads) {
        CatalogItem.Table next = new CatalogItem.Table(t.id(), t.name(), columns, t.primaryKey(), defaults, SqlFormatter.format(def), t.appendOnly(), checks, t.expires());
        Set<Long> uses = new HashSet<>(catalog.usesOf(t.id()));
        uses.addAll(reads);
        String schema = catalog.schemaOf(t.id());
        replacing(session, t);
        catalog.unlist(t);
        register(next, schema, uses);
    }

    /**
     * Makes FOREIGN KEY constraint {@code f} of table {@code t} (PostgreSQL's {@code
     * table_columns_fkey} when unnamed): its referenced columns must be the keys of a unique
     * index of the referenced table (its primary key when none are named), of types its columns
     * compare with; the rows there are must all reference a row (23503, checked unless a restart
     * is making it again). Recorded as the ALTER TABLE that makes it again.
     */
    private void addForeignKey(Session session, CatalogItem.Table t, Statement.ForeignKeyDef f) {
        CatalogItem.Table parent;
        String parentName = f.refTable().get(f.refTable().size() - 1);
        CatalogItem item = catalog.find(f.refTable(), session, f.pos());
        if (item == null) throw new SqlException("42P01", "relation \"" + String.join(".", f.refTable()) + "\" does not exist");
        if (!(item instanceof CatalogItem.Table p)) throw new SqlException("42809", "referenced relation \"" + parentName + "\" is not a table");
        parent = p.id() == t.id() ? t : p;
        List<Integer> cols = columnsOf(t, f.columns());
        List<Integer> refCols;
        if (f.refColumns().isEmpty()) {
            if (parent.primaryKey().isEmpty()) throw new SqlException("42704", "there is no primary key for referenced table \"" + parent.name() + "\"");
            refCols = parent.primaryKey();
        } else {
            refCols = columnsOf(parent, f.refColumns());
        }
        if (cols.size() != refCols.size()) throw new SqlException("42830", "number of referencing and referenced columns for foreign key disagree");
        CatalogItem.Index refIndex = null;
        for (CatalogItem.Index ix : catalog.uniqueIndexes(parent)) {
            Set<Integer> keys = new HashSet<>();
            for (ScalarExpr k : ix.keys()) keys.add(k instanceof ScalarExpr.ColumnRef c ? c.index() : -1);
            if (ix.keys().size() == refCols.size() && keys.equals(new HashSet<>(refCols))) {
                refIndex = ix;
                break;
            }
        }
        if (refIndex == null) throw new SqlException("42830", "there is no unique constraint matching given keys for referenced table \"" + parent.name() + "\"");
        String name = f.name() != null ? f.name() : foreignKeyName(t, f.columns());
        for (CatalogItem.ForeignKey other : catalog.foreignKeys(t.id(), true)) {
            if (other.name().equals(name)) throw new SqlException("42710", "constraint \"" + name + "\" for relation \"" + t.name() + "\" already exists");
        }
        for (int i = 0; i < cols.size(); i++) {
            SqlType a = t.columns().get(cols.get(i)).type();
            SqlType b = parent.columns().get(refCols.get(i)).type();
            if (!ForeignKeys.comparable(a, b)) {
                throw new SqlException("42804", "foreign key constraint \"" + name + "\" cannot be implemented")
                        .withDetail("Key columns \"" + t.columns().get(cols.get(i)).name() + "\" and \"" + parent.columns().get(refCols.get(i)).name()
                                + "\" are of incompatible types: " + a + " and " + b + ".");
            }
        }
        List<String> refNames = refCols.stream().map(k -> parent.columns().get(k).name()).toList();
        String sql = "ALTER TABLE " + qualified(t) + " ADD "
                + SqlFormatter.foreignKey(new StringBuilder(), new Statement.ForeignKeyDef(f.pos(), name, f.columns(), List.of(catalog.schemaOf(parent.id()), parent.name()), refNames,
                        f.onDelete(), f.onUpdate(), f.matchFull(), f.deferrable(), f.initiallyDeferred()));
        CatalogItem.ForeignKey made = new CatalogItem.ForeignKey(catalog.newId(), name, t.id(), cols, parent.id(), refCols, refIndex.id(),
                f.onDelete(), f.onUpdate(), f.matchFull(), f.deferrable(), f.initiallyDeferred(), sql);
        if (!durability.replaying()) writes.checkReferences(session, made);
        register(made, catalog.schemaOf(t.id()), new HashSet<>(List.of(t.id(), parent.id(), refIndex.id())));
    }

    /** The positions of columns {@code names} of {@code t} (42703 for one it lacks, 42701 for one named twice). */
    private static List<Integer> columnsOf(CatalogItem.Table t, List<String> names) {
        List<Integer> out = new ArrayList<>();
        for (String col : names) {
            int i = CatalogState.indexOfColumn(t.columns(), col);
            if (i < 0) throw new SqlException("42703", "column \"" + col + "\" referenced in foreign key constraint does not exist");
            if (out.contains(i)) throw new SqlException("42701", "column \"" + col + "\" appears twice in foreign key constraint");
            out.add(i);
        }
        return out;
    }

    /** PostgreSQL's name for an unnamed foreign key of {@code t}: {@code table_columns_fkey}, numbered when the table has one by that name. */
    private String foreignKeyName(CatalogItem.Table t, List<String> columns) {
        Set<String> taken = new HashSet<>();
        for (CatalogItem.ForeignKey other : catalog.foreignKeys(t.id(), true)) taken.add(other.name());
        String schema = catalog.schemaOf(t.id());
        return constraintName(t.name(), columns, "fkey", name -> taken.contains(name) || catalog.contains(schema, name));
    }

    /**
     * Makes UNIQUE constraint {@code u} of table {@code t}: a unique index named as the constraint
     * (PostgreSQL's {@code table_columns_key} when unnamed), built over the rows there are, which
     * must have no key twice (23505). Recorded as the ALTER TABLE that makes it again.
     */
    private void addUnique(Session session, CatalogItem.Table t, Statement.UniqueKey u) {
        List<Integer> cols = new ArrayList<>();
        for (String col : u.columns()) {
            int i = CatalogState.indexOfColumn(t.columns(), col);
            if (i < 0) throw new SqlException("42703", "column \"" + col + "\" named in key does not exist", u.pos());
            if (cols.contains(i)) throw new SqlException("42701", "column \"" + col + "\" appears twice in unique constraint", u.pos());
            cols.add(i);
        }
        String schema = catalog.schemaOf(t.id());
        String name = u.name() != null ? u.name() : constraintName(schema, t.name(), u.columns(), "key");
        if (catalog.contains(schema, name)) throw new SqlException("42P07", "relation \"" + name + "\" already exists", u.pos());
        List<ScalarExpr> keys = new ArrayList<>();
        for (int k : cols) keys.add(new ScalarExpr.ColumnRef(k, t.columns().get(k).type()));
        String sql = "ALTER TABLE " + qualified(t) + " ADD CONSTRAINT " + SqlFormatter.ident(name) + " UNIQUE ("
                + String.join(", ", u.columns().stream().map(SqlFormatter::ident).toList()) + ")";
        buildIndex(session, new CatalogItem.Index(catalog.newId(), name, t.id(), keys, sql, CatalogItem.Index.Uniqueness.UNIQUE_CONSTRAINT), t, null);
    }

    /**
     * PostgreSQL's name for a constraint of {@code table} (in {@code schema}) on {@code columns}:
     * {@code table_col1_col2_label}, cut to 63 bytes, with a number added until no relation of
     * the schema has it.
     */
    private String constraintName(String schema, String table, List<String> columns, String label) {
        return constraintName(table, columns, label, name -> catalog.contains(schema, name));
    }

    /** {@code schema.name} as SQL writes it: qualified always, since the statement may run under a search path without that schema (public included). */
    static String qualified(String schema, String name) {
        return SqlFormatter.ident(schema) + "." + SqlFormatter.ident(name);
    }

    /** {@code item}'s name as SQL writes it from anywhere: qualified unless in public. */
    private String qualified(CatalogItem item) {
        return qualified(catalog.schemaOf(item.id()), item.name());
    }

    /** {@link #constraintName(String, List, String)}, numbered until {@code taken} says the name is free. */
    private static String constraintName(String table, List<String> columns, String label, java.util.function.Predicate<String> taken) {
        String base = table + "_" + String.join("_", columns);
        for (int n = 0; ; n++) {
            String suffix = "_" + label + (n == 0 ? "" : String.valueOf(n));
            String name = (base.length() + suffix.length() > 63 ? base.substring(0, 63 - suffix.length()) : base) + suffix;
            if (!taken.test(name)) return name;
        }
    }

    Result dropConstraint(Session session, Statement.DropConstraint d) {
        CatalogItem.Table t = catalog.table(d.table(), session, d.pos(), "alter");
        binders.access().checkOwner(session, t);
        for (CatalogItem.ForeignKey f : catalog.foreignKeys(t.id(), true)) {
            if (!f.name().equals(d.name())) continue;
            drop(session, f.id());
            return Result.command("ALTER TABLE");
        }
        for (CatalogItem.Index ix : catalog.uniqueIndexes(t)) {
            if (!ix.constraint() || !ix.name().equals(d.name())) continue;
            if (ix.primaryKey()) {
                throw new SqlException("0A000", "dropping a primary key is not supported", d.pos(),
                        "The table's rows are stored by their primary key: create a new table without it and copy the rows.");
            }
            List<Long> dependents = new ArrayList<>();
            catalog.collect(ix.id(), new HashSet<>(), dependents);
            dependents.remove(ix.id());
            List<String> foreignKeys = new ArrayList<>();
            for (long id : dependents) if (catalog.get(id) instanceof CatalogItem.ForeignKey f) foreignKeys.add(describe(f));
            if (foreignKeys.size() < dependents.size()) {
                throw new SqlException("2BP01", "cannot drop constraint " + ix.name() + " on table " + t.name() + " because other objects depend on it", 0,
                        "Drop the objects that read its index first.");
            }
            if (!foreignKeys.isEmpty() && !d.cascade()) {
                throw new SqlException("2BP01", "cannot drop constraint " + ix.name() + " on table " + t.name() + " because other objects depend on it", 0,
                        "Use DROP ... CASCADE to drop the dependent objects too.")
                        .withDetail(String.join("\n", foreignKeys.stream().map(f -> f + " depends on index " + ix.name()).toList()));
            }
            for (long id : dependents) drop(session, id);
            drop(session, ix.id());
            Result r = Result.command("ALTER TABLE");
            if (foreignKeys.size() == 1) r = r.withNotice(Notice.notice("00000", "drop cascades to " + foreignKeys.get(0)));
            else if (foreignKeys.size() > 1) r = r.withNotice(Notice.notice("00000", "drop cascades to " + foreignKeys.size() + " other objects")
                    .withDetail(String.join("\n", foreignKeys.stream().map(o -> "drop cascades to " + o).toList())));
            return r;
        }
        if (dropCheck(session, t, d.name())) return Result.command("ALTER TABLE");
        if (d.ifExists()) {
            return Result.command("ALTER TABLE").withNotice(Notice.notice("00000", "constraint \"" + d.name() + "\" of relation \"" + t.name() + "\" does not exist, skipping"));
        }
        throw new SqlException("42704", "constraint \"" + d.name() + "\" of relation \"" + t.name() + "\" does not exist", d.pos());
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

    Result createView(Session session, Statement.CreateView v, String sql) {
        CatalogState.Name target = catalog.target(v.name(), session, v.pos());
        String name = target.name(), schema = target.schema();
        String tag = v.materialized() ? "CREATE MATERIALIZED VIEW" : "CREATE VIEW";
        binders.access().checkCreate(session, schema);
        if (catalog.contains(schema, name) && v.ifNotExists()) return Result.command(tag).withNotice(alreadyExists(name));
        CatalogItem existing = catalog.get(schema, name);
        if (existing != null && !(v.orReplace() && existing instanceof CatalogItem.View)) catalog.checkNew(target, false, v.pos());
        if (existing != null) binders.access().checkOwner(session, existing);
        // a view may read streams (subscriptions to it are continuous); a materialized view keeps
        // what their watermarks have settled
        Binder binder = binders.of(session).allowStreams().maintaining();
        BoundQuery q = binder.bindQuery(v.query());
        if (binder.consumerGroup() != null) throw Subscriptions.consumerGroupOutsideCursor(binder.consumerGroup().pos());
        // a materialized view reads its relations as its creator now; a view as its owner whenever it is read
        if (v.materialized()) binders.access().checkSelect(session, binder.dependencies());
        if (binder.readsSystemCatalog()) throw Binders.systemCatalogIn(v.materialized() ? "a materialized view" : "a view", v.pos());
        Plan plan = visiblePlan(q);
        if (v.materialized()) {
            if (binder.streamStart() != null) {
                throw new SqlException("0A000", "a materialized view reads a STREAM from its beginning, not FROM NOW or FROM CURSOR",
                        binder.streamStart().pos(), "A subscription to the view (SUBSCRIBE ... AS OF) says where its reader starts.");
            }
            plan = inSystemTime(plan, v.pos());
        }
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
            replacing(session, existing);
            catalog.unlist(existing);
        }
        HistoryPolicy history = HistoryPolicy.of(v.retain(), binders.plain());
        long id = existing != null ? existing.id() : catalog.newId();
        Set<Long> uses = binder.dependencies();
        if (v.materialized()) {
            reads.checkChanges(plan, oracle.readTime(), v.pos());
            Set<Long> indexesUsed = new HashSet<>();
            Plan p = Optimizer.prune(IndexSelection.apply(Optimizer.fold(temporal(plan, v.pos())), catalog.indexes(), indexesUsed, compute::since));
            uses = new HashSet<>(uses);
            uses.addAll(indexesUsed);
            long upper = oracle.upper();
            Set<Long> tables = catalog.baseTables(p);
            frontiers.advanced(upper, tables);
            DataflowMemory memory = session.dataflowMemory(compute.workers());
            // a view starts from its inputs as of now, not from each recent write's own time; but not
            // one over streams (lateness and PROCTIME() read commit times), one that keeps history
            // (it has its inputs' history from their since), nor in a recovery, which builds views
            // again over the tables' replayed history before the later ones' holds exist
            boolean inputsTimes = history != null || durability.replaying()
                    || Plans.anyNode(p, n -> n instanceof Plan.EventTime || n instanceof Plan.CommitTime);
            compute.createMaterializedView(id, name, p, memory, upper, tables, inputsTimes ? null : frontiers.compactionNow(upper - 1));
            CatalogItem.MaterializedView mv = new CatalogItem.MaterializedView(id, name, columns, plan, text(sql, v));
            register(mv, schema, uses);
            binders.access().created(session, mv);
            if (history != null) setRetention(id, history);
            awaitHydration(session, id, "materialized view", name, upper - 1);
        } else {
            CatalogItem.View view = new CatalogItem.View(id, name, columns, plan, text(sql, v));
            register(view, schema, uses);
            binders.access().created(session, view);
        }
        return Result.command(tag);
    }

    Result createIndex(Session session, Statement.CreateIndex i, String sql) {
        CatalogState.rejectSystemRelation(i.on(), "create an index on", i.pos());
        String on = i.on().get(i.on().size() - 1);
        CatalogItem target = catalog.find(i.on(), session, i.pos());
        if (target == null) throw new SqlException("42P01", "relation \"" + String.join(".", i.on()) + "\" does not exist", i.pos());
        // an index is in its relation's schema, as in PostgreSQL
        if (catalog.contains(catalog.schemaOf(target.id()), i.name())) {
            if (i.ifNotExists()) return Result.command("CREATE INDEX").withNotice(alreadyExists(i.name()));
            throw new SqlException("42P07", "relation \"" + i.name() + "\" already exists", i.pos());
        }
        if (!(target instanceof CatalogItem.Table || target instanceof CatalogItem.MaterializedView)) {
            throw new SqlException("42809", "cannot create index on " + target.kind() + " \"" + on + "\"", i.pos(),
                    "Create a materialized view over it and index that.");
        }
        binders.access().checkOwner(session, target);
        if (i.unique() && !(target instanceof CatalogItem.Table)) {
            throw new SqlException("0A000", "a unique index is made on a table, not on a " + target.kind(), i.pos(),
                    "A materialized view's rows are computed, not written: there is nothing to refuse.");
        }
        List<ScalarExpr> keys = binders.plain().bindOver(on, target.columns(), i.exprs());
        HistoryPolicy history = HistoryPolicy.of(i.retain(), binders.plain());
        CatalogItem.Index.Uniqueness uniqueness = i.unique() ? CatalogItem.Index.Uniqueness.UNIQUE_INDEX : CatalogItem.Index.Uniqueness.NONE;
        buildIndex(session, new CatalogItem.Index(catalog.newId(), i.name(), target.id(), keys, text(sql, i), uniqueness), target, history);
        return Result.command("CREATE INDEX");
    }

    /**
     * Builds index {@code ix} on {@code target} over the rows there are, as its CREATE waits; a
     * unique one must then have no key twice (else it is dropped and 23505 says which key).
     */
    private void buildIndex(Session session, CatalogItem.Index ix, CatalogItem target, HistoryPolicy history) {
        long id = ix.id();
        List<SqlType> types = new ArrayList<>();
        for (Column c : target.columns()) types.add(c.type());
        DataflowMemory memory = session.dataflowMemory(compute.workers());
        // the build waits until its input has passed the creation time: the tables under it
        // must be promised complete up to then, however long since they were last written
        long upper = oracle.upper();
        Set<Long> tables = catalog.baseTablesOf(target.id());
        frontiers.advanced(upper, tables);
        compute.createIndex(id, ix.name(), target.id(), types, ix.keys(), memory, upper, tables);
        register(ix, catalog.schemaOf(target.id()), Set.of(target.id()));
        if (history != null) setRetention(id, history);
        awaitHydration(session, id, "index", ix.name(), upper - 1, ix.unique() ? () -> checkUnique(ix, target, upper, tables) : null);
    }

    /** 23505 if unique index {@code ix}, just built through {@code upper - 1}, holds some key (without a NULL) twice. */
    private void checkUnique(CatalogItem.Index ix, CatalogItem target, long upper, Set<Long> tables) {
        WritePath.UniqueKey u = WritePath.UniqueKey.of((CatalogItem.Table) target, ix);
        for (Row key : compute.onEveryWorker(upper, tables, null, (d, w) -> d.repeatedKey(w, ix.id(), upper - 1, u::hasNull))) {
            if (key == null) continue;
            throw new SqlException("23505", "could not create unique index \"" + ix.name() + "\"", 0, null)
                    .withDetail("Key " + u.keyText(key) + " is duplicated.");
        }
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
        awaitHydration(session, id, kind, name, t, null);
    }

    /** {@link #awaitHydration(Session, long, String, String, long)}, then {@code check} (null: none), whose failure undoes the object as a failed build does. */
    private void awaitHydration(Session session, long id, String kind, String name, long t, Runnable check) {
        Session.Stop stop = session.new Stop();
        List<Dataflows.PendingHydration> parts = compute.watchHydration(id, t, stop);
        Hydrating h = new Hydrating(id, kind, name, oracle.clock().now(), parts);
        hydrating.put(id, h);
        session.aboutToWait();
        try {
            long startNanos = System.nanoTime();
            long[] nextNotice = {startNanos + progressNoticeNanos};
            Runnable progressNotice = () -> {
                if (System.nanoTime() < nextNotice[0] || h.progress()[1] == 0) return;
                long[] p = h.progress();
                long elapsed = (System.nanoTime() - startNanos) / 1_000_000;
                session.notice(Notice.notice("00000", new BuildProgress(kind, name, Math.min(p[0], p[1]), p[1], elapsed).message()));
                nextNotice[0] = System.nanoTime() + progressNoticeNanos;
            };
            for (Dataflows.PendingHydration part : parts) {
                waits.await(part.done, progressNotice);
                try {
                    part.done.join();
                } catch (java.util.concurrent.CompletionException e) {
                    if (e.getCause() instanceof RuntimeException x) throw x;
                    throw e;
                }
            }
            if (check != null) check.run();
        } catch (RuntimeException e) {
            stop.abandon();
            // nothing half-built stays: the object, and anything made on it while it was built
            if (catalog.contains(id)) {
                List<Long> order = new ArrayList<>();
                catalog.collect(id, new HashSet<>(), order);
                for (int k = order.size() - 1; k >= 0; k--) remove(order.get(k));
            }
            throw e;
        } finally {
            hydrating.remove(id);
        }
    }

    /** The hydrations under way, for {@code tributary_internal.hydration_progress}. */
    List<dev.tributary.sql.catalog.Catalog.HydrationProgress> hydrationProgress() {
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

    Result drop(Session session, Statement.Drop d) {
        List<CatalogItem> targets = new ArrayList<>();
        List<Notice> skipped = new ArrayList<>();
        for (List<String> parts : d.names()) {
            CatalogState.rejectSystemRelation(parts, "drop", d.pos());
            String name = parts.get(parts.size() - 1);
            CatalogItem item = catalog.find(parts, session, d.pos());
            String kind = d.kind().sql().toLowerCase(java.util.Locale.ROOT);
            if (item == null) {
                String what = d.kind() == Statement.ObjectKind.TABLE ? "table" : d.kind() == Statement.ObjectKind.INDEX ? "index" : kind;
                if (d.ifExists()) {
                    skipped.add(Notice.notice("00000", what + " \"" + name + "\" does not exist, skipping"));
                    continue;
                }
                throw new SqlException("42P01", what + " \"" + name + "\" does not exist", d.pos());
            }
            if (!item.kind().equals(kind) && d.kind() == Statement.ObjectKind.JOB && sinks.ofTable(item.id()) != null) {
                throw new SqlException("42809", "\"" + name + "\" is not a job but an HTTP sink", d.pos(),
                        "CREATE JOB ... AS INSERT INTO FUNCTION url(...) makes an HTTP sink: DROP SINK " + name + ".");
            }
            if (!item.kind().equals(kind)) {
                throw new SqlException("42809", "\"" + name + "\" is not a " + kind, d.pos(), "Use DROP " + item.kind().toUpperCase(java.util.Locale.ROOT) + " to remove a " + item.kind() + ".");
            }
            if (item instanceof CatalogItem.Sequence q && q.implicit()) {
                CatalogItem owner = catalog.get(q.ownerTable());
                String table = owner == null ? "?" : owner.name();
                throw new SqlException("2BP01", "cannot drop sequence " + name + " because other objects depend on it", d.pos(),
                        "Column " + (owner == null ? "?" : owner.columns().get(q.ownerColumn()).name()) + " of table " + table
                                + " owns it: it goes with the table.");
            }
            Sources.Source ownedBy = sources.ofProgress(item.id());
            if (ownedBy != null) {
                throw new SqlException("2BP01", "cannot drop table " + name + " because source " + ownedBy.table.name() + " requires it", d.pos(),
                        "You can drop source " + ownedBy.table.name() + " instead.");
            }
            if (item instanceof CatalogItem.Index ix && ix.constraint()) {
                String table = catalog.get(ix.on()).name();
                throw new SqlException("2BP01", "cannot drop index " + name + " because constraint " + name + " on table " + table + " requires it", d.pos(),
                        "You can drop constraint " + name + " on table " + table + " instead.");
            }
            binders.access().checkOwner(session, item);
            targets.add(item);
        }
        // everything that depends on the targets, transitively
        List<Long> order = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (CatalogItem t : targets) catalog.collect(t.id(), seen, order);
        Set<Long> targetIds = new HashSet<>();
        for (CatalogItem t : targets) targetIds.add(t.id());
        if (session.inBlock()) {
            for (long id : order) {
                String kind = writerOutsideBlocks(id);
                if (kind != null) {
                    throw new SqlException("25001", "DROP " + kind.toUpperCase(java.util.Locale.ROOT) + " cannot run inside a transaction block", d.pos(),
                            kind.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + kind.substring(1) + " " + catalog.get(id).name()
                                    + " is among what the statement drops; it writes outside any block, so drop it outside one.");
                }
            }
        }
        if (!d.cascade()) {
            // PostgreSQL names what is in the way, one per line
            List<String> blocking = new ArrayList<>();
            CatalogItem blocked = null;
            for (long id : order) {
                if (targetIds.contains(id)) continue;
                CatalogItem dep = catalog.get(id);
                CatalogItem on = null;
                for (CatalogItem t : targets) if (catalog.dependentsOf(t.id()).contains(id)) on = t;
                // indexes go with their relation, and the sequences its serial columns own with a table
                if ((dep instanceof CatalogItem.Index || dep instanceof CatalogItem.Sequence q && q.owned()) && on != null && targetIds.contains(on.id())) continue;
                // and a source's progress table with the source
                if (sources.ofProgress(id) != null && targetIds.contains(sources.ofProgress(id).table.id())) continue;
                // and a table's foreign keys with it
                if (dep instanceof CatalogItem.ForeignKey f && targetIds.contains(f.table())) continue;
                if (blocked == null) blocked = on;
                // what it depends on, when not a target: what made it reachable
                for (int k = 0; on == null && k < order.size() && order.get(k) != id; k++) {
                    if (catalog.dependentsOf(order.get(k)).contains(id)) on = catalog.get(order.get(k));
                }
                if (on != null) blocking.add((dep instanceof CatalogItem.ForeignKey f ? describe(f) : dep.kind() + " " + dep.name()) + " depends on " + on.kind() + " " + on.name());
                else if (blocking.isEmpty()) blocking.add(dep.kind() + " " + dep.name() + " depends on it");
            }
            if (!blocking.isEmpty()) {
                throw new SqlException("2BP01", "cannot drop " + (blocked == null ? "it" : blocked.kind() + " " + blocked.name()) + " because other objects depend on it", 0,
                        "Use DROP ... CASCADE to drop the dependent objects too.").withDetail(String.join("\n", blocking));
            }
        }
        // as PostgreSQL, CASCADE tells what else went (not indexes: they go with their relation)
        List<String> cascaded = new ArrayList<>();
        for (long id : order) {
            CatalogItem dep = catalog.get(id);
            if (!targetIds.contains(id) && dep instanceof CatalogItem.Table t) {
                // a table whose column default reads a dropped sequence: PostgreSQL drops only the
                // default; the table (and its rows) must not go with it
                for (CatalogItem target : targets) {
                    if (target instanceof CatalogItem.Sequence q && catalog.dependentsOf(q.id()).contains(t.id())) {
                        throw new SqlException("2BP01", "cannot drop sequence " + q.name() + " because other objects depend on it", d.pos(),
                                        "A default of table " + t.name() + " reads it; drop the table first.");
                    }
                }
            }
            if (dep instanceof CatalogItem.ForeignKey f) {
                if (!targetIds.contains(f.table())) cascaded.add(describe(f));
            } else if (!targetIds.contains(id) && !(dep instanceof CatalogItem.Index) && !(dep instanceof CatalogItem.Sequence q && q.owned())
                    && !(sources.ofProgress(id) != null && targetIds.contains(sources.ofProgress(id).table.id()))) {
                cascaded.add(dep.kind() + " " + dep.name());
            }
        }
        // dependents first
        for (int k = order.size() - 1; k >= 0; k--) drop(session, order.get(k));
        Result r = Result.command("DROP " + d.kind().sql());
        if (cascaded.size() == 1) r = r.withNotice(Notice.notice("00000", "drop cascades to " + cascaded.get(0)));
        else if (cascaded.size() > 1) r = r.withNotice(Notice.notice("00000", "drop cascades to " + cascaded.size() + " other objects")
                .withDetail(String.join("\n", cascaded.stream().map(o -> "drop cascades to " + o).toList())));
        for (Notice n : skipped) r = r.withNotice(n);
        return r;
    }

    /** {@code constraint name on table t}, as PostgreSQL names a foreign key among what a DROP reaches. */
    private String describe(CatalogItem.ForeignKey f) {
        CatalogItem t = catalog.get(f.table());
        return "constraint " + f.name() + " on table " + (t == null ? "?" : t.name());
    }

    /**
     * COMMENT ON: the description of a table, view, materialized view, index or sequence, or of a
     * table's or view's column, set or (IS NULL) removed; the owner's to change (42501), 42P01 /
     * 42809 / 42703 as PostgreSQL for what is not there or not of that kind.
     */
    Result comment(Session session, Statement.Comment c) {
        String name = c.name().get(c.name().size() - 1);
        CatalogItem item = catalog.find(c.name(), session, c.pos());
        if (item == null) {
            if (c.kind() == Statement.ObjectKind.INDEX) throw new SqlException("42P01", "index \"" + name + "\" does not exist", c.pos());
            if (c.kind() == Statement.ObjectKind.SEQUENCE) throw new SqlException("42P01", "relation \"" + name + "\" does not exist", c.pos());
            throw new SqlException("42P01", "relation \"" + name + "\" does not exist", c.pos());
        }
        if (c.kind() != null) {
            boolean fits = switch (c.kind()) {
                case TABLE -> item instanceof CatalogItem.Table;
                case VIEW -> item instanceof CatalogItem.View;
                case MATERIALIZED_VIEW -> item instanceof CatalogItem.MaterializedView;
                case INDEX -> item instanceof CatalogItem.Index;
                case SEQUENCE -> item instanceof CatalogItem.Sequence;
                case SOURCE -> item instanceof CatalogItem.Table t && t.isSource();
                case SINK -> item instanceof CatalogItem.Table t && t.isSink();
                case JOB -> item instanceof CatalogItem.Table t && t.isJob();
            };
            if (!fits) throw new SqlException("42809", "\"" + name + "\" is not a " + c.kind().sql().toLowerCase(java.util.Locale.ROOT), c.pos());
        }
        binders.access().checkOwner(session, item);
        int column = 0;
        if (c.column() != null) {
            List<Column> columns = switch (item) {
                case CatalogItem.Table t -> t.columns();
                case CatalogItem.View v -> v.columns();
                case CatalogItem.MaterializedView m -> m.columns();
                default -> throw new SqlException("42809", "\"" + name + "\" is not a table, view, materialized view, composite type, or foreign table", c.pos());
            };
            column = CatalogState.indexOfColumn(columns, c.column()) + 1;
            if (column == 0) throw new SqlException("42703", "column \"" + c.column() + "\" of relation \"" + name + "\" does not exist", c.pos());
        }
        String text = c.text() == null || c.text().isEmpty() ? null : c.text();
        if (undoable(session, item.id())) session.catalogChanges.add(new CatalogChange.Commented(item.id(), column, catalog.commentsOf(item.id()).get(column)));
        setComment(item.id(), column, text);
        return Result.command("COMMENT");
    }

    /**
     * CREATE SCHEMA: a schema owned by {@code AUTHORIZATION}'s role (the creator's otherwise), by
     * a role that may create in the database (42501); 42P06 if it exists (a notice with IF NOT
     * EXISTS). Recorded as {@code CREATE SCHEMA name AUTHORIZATION owner}, made again before
     * what is in it.
     */
    Result createSchema(Session session, Statement.CreateSchema c) {
        String owner = c.owner() != null ? c.owner() : session.currentUser();
        binders.access().checkCreateSchema(session, owner);
        if (catalog.schemaId(c.name()) >= 0 || catalog.schemaReserved(c.name()) || SystemCatalog.isSystemSchema(c.name())) {
            if (c.ifNotExists()) return Result.command("CREATE SCHEMA").withNotice(Notice.notice("42P06", "schema \"" + c.name() + "\" already exists, skipping"));
            throw new SqlException("42P06", "schema \"" + c.name() + "\" already exists", c.pos());
        }
        long id = catalog.newId();
        durability.recordSchema(id, c.name(), SqlFormatter.format(new Statement.CreateSchema(1, c.name(), false, owner)));
        catalog.addSchema(c.name(), id);
        binders.access().schemaCreated(c.name(), owner);
        return Result.command("CREATE SCHEMA");
    }

    /**
     * DROP SCHEMA: its owner's (42501); with objects in it refused (2BP01, naming them) unless
     * CASCADE, which drops them and what depends on them elsewhere, telling what went as
     * PostgreSQL does.
     */
    Result dropSchema(Session session, Statement.DropSchema d) {
        List<String> targets = new ArrayList<>();
        List<Notice> skipped = new ArrayList<>();
        for (String name : d.names()) {
            if (SystemCatalog.isSystemSchema(name) || (catalog.schemaId(name) < 0 && name.startsWith("pg_"))) {
                throw new SqlException("2BP01", "cannot drop schema " + name + " because it is required by the database system", d.pos());
            }
            if (catalog.schemaId(name) < 0) {
                if (d.ifExists()) {
                    skipped.add(Notice.notice("00000", "schema \"" + name + "\" does not exist, skipping"));
                    continue;
                }
                throw new SqlException("3F000", "schema \"" + name + "\" does not exist", d.pos());
            }
            binders.access().checkSchemaOwner(session, name);
            if (!targets.contains(name)) targets.add(name);
        }
        // what goes: the schemas' objects, then what depends on them elsewhere
        List<Long> order = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        List<String> cascaded = new ArrayList<>();
        for (String name : targets) {
            for (CatalogItem item : catalog.inSchema(name)) {
                if (seen.contains(item.id())) continue;
                // indexes, foreign keys and owned sequences go with their tables
                if (item instanceof CatalogItem.Index ix && catalog.schemaOf(ix.on()).equals(name)) continue;
                if (item instanceof CatalogItem.ForeignKey || (item instanceof CatalogItem.Sequence q && q.owned())) continue;
                List<Long> reached = new ArrayList<>();
                catalog.collect(item.id(), seen, reached);
                order.addAll(reached);
            }
        }
        for (long id : order) {
            CatalogItem dep = catalog.get(id);
            if (dep instanceof CatalogItem.ForeignKey f) {
                if (!order.contains(f.table())) cascaded.add(describe(f));
            } else if (!(dep instanceof CatalogItem.Index) && !(dep instanceof CatalogItem.Sequence q && q.owned())) {
                cascaded.add(dep.kind() + " " + qualifiedText(dep));
            }
        }
        if (!cascaded.isEmpty() && !d.cascade()) {
            String first = targets.get(0);
            throw new SqlException("2BP01", "cannot drop schema " + first + " because other objects depend on it", 0,
                    "Use DROP ... CASCADE to drop the dependent objects too.")
                    .withDetail(String.join("\n", cascaded.stream().map(o -> o + " depends on schema " + first).toList()));
        }
        for (int k = order.size() - 1; k >= 0; k--) drop(session, order.get(k));
        for (String name : targets) dropNamedSchema(session, name);
        Result r = Result.command("DROP SCHEMA");
        if (cascaded.size() == 1) r = r.withNotice(Notice.notice("00000", "drop cascades to " + cascaded.get(0)));
        else if (cascaded.size() > 1) r = r.withNotice(Notice.notice("00000", "drop cascades to " + cascaded.size() + " other objects")
                .withDetail(String.join("\n", cascaded.stream().map(o -> "drop cascades to " + o).toList())));
        for (Notice n : skipped) r = r.withNotice(n);
        return r;
    }

    private void removeSchema(String name) {
        long id = catalog.schemaId(name);
        catalog.removeSchema(name);
        binders.access().schemaDropped(name);
        durability.droppedSchema(id);
    }

    /** {@code schema.name} as PostgreSQL's messages name an object. */
    private String qualifiedText(CatalogItem item) {
        return catalog.schemaOf(item.id()) + "." + item.name();
    }

    /** Drops object {@code id} (if it is still there) and what depends on it, newest first: a rolled-back block's creation. */
    void dropCreated(long id) {
        String schema = catalog.schemaNamed(id);
        if (schema != null) {
            // what a block made in it went before it (newest first); anything else made in it since goes with it
            for (CatalogItem item : catalog.inSchema(schema)) dropCreated(item.id());
            removeSchema(schema);
            return;
        }
        if (catalog.get(id) == null) return;
        List<Long> order = new ArrayList<>();
        catalog.collect(id, new HashSet<>(), order);
        for (int k = order.size() - 1; k >= 0; k--) remove(order.get(k));
    }

    /** Drops object {@code id} (if it is still there) at once, durably: its subscriptions end, its dataflow and data go. */
    private void remove(long id) {
        CatalogState.Detached d = catalog.detach(id, null);
        if (d != null) release(d);
    }

    /**
     * What object {@code id} is if it acts outside transaction blocks, so that it is made and
     * dropped outside them only (25001): "source", "job" or "sink" (Kafka's or HTTP's); null otherwise.
     */
    private String writerOutsideBlocks(long id) {
        if (sources.ofTable(id) != null) return "source";
        if (jobs.get(id) != null) return jobs.get(id).kind();
        return sinks.ofTable(id) != null ? "sink" : null;
    }

    /**
     * Whether a change {@code session}'s statement makes to object {@code id} is one its block's
     * rollback must take back: in a transaction block, to what the block did not make itself.
     */
    private static boolean undoable(Session session, long id) {
        return session.inTransaction && !session.createdInBlock(id);
    }

    /**
     * Drops object {@code id} for {@code session}'s statement (what depends on it already gone):
     * at once, or, when the block's rollback must bring it back, only off the catalog, its
     * dataflow and data kept until the block commits ({@link #release}).
     */
    private void drop(Session session, long id) {
        String kind = writerOutsideBlocks(id);
        if (session.inBlock() && kind != null) {
            throw new SqlException("25001", "DROP " + kind.toUpperCase(java.util.Locale.ROOT) + " cannot run inside a transaction block", 0,
                    "A " + kind + " writes or delivers outside any block; drop it outside one.");
        }
        if (!undoable(session, id)) {
            remove(id);
            return;
        }
        CatalogState.Detached d = catalog.detach(id, session);
        if (d != null) session.catalogChanges.add(new CatalogChange.Dropped(d));
    }

    /** Drops schema {@code name} for {@code session}'s statement (its objects gone already): at once, or until its block commits, as {@link #drop}. */
    private void dropNamedSchema(Session session, String name) {
        long id = catalog.schemaId(name);
        if (!undoable(session, id)) {
            removeSchema(name);
            return;
        }
        catalog.detachSchema(name, session);
        session.catalogChanges.add(new CatalogChange.SchemaDropped(name, id));
    }

    /** Schema {@code name} (object {@code id}), dropped by a block that now commits, is gone for good, durably. */
    void releaseSchema(String name, long id) {
        catalog.releaseSchema(name);
        binders.access().schemaDropped(name);
        durability.droppedSchema(id);
    }

    /** Notes, for {@code session}'s block, that {@code item} is about to be defined again in place. */
    private void replacing(Session session, CatalogItem item) {
        if (undoable(session, item.id())) {
            session.catalogChanges.add(new CatalogChange.Replaced(item, catalog.schemaOf(item.id()), catalog.usesOf(item.id())));
        }
    }

    /** Lists {@code r}'s former definition again, durably: a rolled-back block's ALTER or CREATE OR REPLACE taken back. */
    void restore(CatalogChange.Replaced r) {
        catalog.relist(r.before(), r.schema(), r.uses());
        durability.recordObject(r.before(), r.uses());
    }

    /** Sets (text null: removes) the description of object {@code id}'s column {@code column} (0: the object), durably. */
    void setComment(long id, int column, String text) {
        catalog.setComment(id, column, text);
        durability.recordComment(id, column, text, catalog::newId);
    }

    /**
     * Lets go of what a dropped object held, durably: its descriptions, its sequence's values,
     * its privileges, its subscriptions (they end), its pending key checks, its frontiers, its
     * dataflow, and a table's data.
     */
    void release(CatalogState.Detached d) {
        CatalogItem item = d.item();
        long id = item.id();
        for (int column : d.comments().keySet()) durability.recordComment(id, column, null, catalog::newId);
        if (item instanceof CatalogItem.Sequence) sequences.dropped(id);
        sources.dropped(id);
        Sinks.Sink sink = sinks.dropped(id);
        if (sink != null && sink.reads != null) {
            // what it held from its acknowledged time, unless a retention policy holds it still
            for (long r : sink.reads) if (catalog.policyOf(r) == null) durability.releaseHold(r, catalog);
        }
        rowRetention.dropped(id);
        Jobs.Job job = jobs.dropped(id);
        if (job != null) {
            // what it held for its cursor, unless a retention policy holds it still
            for (long r : job.reads) if (catalog.policyOf(r) == null) durability.releaseHold(r, catalog);
        }
        durability.dropped(id, item);
        binders.access().dropped(id);
        subscriptions.endOn(id);
        writes.dropped(id);
        frontiers.dropped(id);
        if (!(item instanceof CatalogItem.View) && !(item instanceof CatalogItem.ForeignKey)) {
            compute.drop(id);
        }
    }

    /** Sets (or, with null, clears) object {@code id}'s history policy, durably. */
    void setRetention(long id, HistoryPolicy policy) {
        catalog.setPolicy(id, policy);
        durability.recordHistory(id, catalog.get(id) instanceof CatalogItem.Table, policy, oracle::upper, catalog::newId);
    }

    /** Lists {@code item}, which reads {@code uses}, in the catalog and in the statement's durable changes. */
    private void register(CatalogItem item, String schema, Set<Long> uses) {
        durability.recordObject(item, uses);
        catalog.register(item, schema, uses);
    }

    /** A maintained query's plan with now() in its WHERE as temporal filters (0A000, at {@code pos}, for other uses of now()). */
    static Plan temporal(Plan plan, int pos) {
        if (Plans.anyExpr(plan, dev.tributary.sql.expr.ScalarExprs::isVolatile)) {
            throw new SqlException("0A000", "volatile functions (nextval, random, gen_random_uuid, ...) are not supported in a maintained query", pos,
                    "A materialized view or subscription is computed again as its inputs change; a volatile function's value is not a function of them.");
        }
        try {
            return dev.tributary.sql.plan.TemporalFilters.extract(plan);
        } catch (SqlException e) {
            throw new SqlException(e.sqlState(), e.getMessage(), pos, e.hint());
        }
    }

    /**
     * A materialized view's plan: one that reads streams in event time has its results moved back
     * to system time ({@link Plan.SystemTime}), reading its streams from their beginning.
     */
    static Plan inSystemTime(Plan plan, int pos) {
        if (!Plans.anyNode(plan, p -> p instanceof Plan.EventTime)) return plan;
        if (Plans.anyNode(plan, p -> p instanceof Plan.EventTime e && e.fromNow())) {
            throw new SqlException("0A000", "a materialized view reads a STREAM from its beginning, not FROM NOW", pos);
        }
        return new Plan.SystemTime(plan);
    }

    /** A bound query's plan without the columns only its ORDER BY needed. */
    static Plan visiblePlan(BoundQuery q) {
        Plan plan = q.plan();
        if (plan.arity() <= q.visible()) return plan;
        List<Integer> visible = new ArrayList<>(q.visible());
        for (int i = 0; i < q.visible(); i++) visible.add(i);
        return new Plan.Project(plan, visible);
    }}
