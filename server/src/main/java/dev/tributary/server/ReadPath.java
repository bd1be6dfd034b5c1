package dev.tributary.server;

import dev.tributary.server.compute.ComputeController;
import dev.tributary.server.compute.Dataflows;
import dev.tributary.server.compute.PublishedIndexes;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.bind.BoundQuery;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.plan.Explain;
import dev.tributary.sql.plan.ExplainOptions;
import dev.tributary.sql.plan.Optimizer;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.render.Aggregation;
import dev.tributary.sql.render.MapFilterProject;
import dev.tributary.sql.render.Renderer;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The read path of one database: a query's read time, its plan as it runs, and the cheapest way
 * to answer it. In order: a constant query on the coordinator alone; an aggregate over a small
 * stored collection by scanning it and aggregating here ({@link #reducedByScan}); a {@link Peek}
 * (a seek in an index, or a scan running the maps and filters on the workers); else a transient
 * dataflow, waited for with the coordinator free ({@link WorkerWait}). A transaction block that
 * has written reads its own writes. Also {@code AS OF} reads of retained history, prepared
 * statements' rows, their point reads from the published index shards, and EXPLAIN, which says
 * which of these a query takes.
 *
 * <p>Called with the coordinator's lock held, except {@link #pointRead}, which runs on the
 * client's thread without it and touches only what is safe there: the catalog's version, the
 * published shards, the oracle's latest writes and its own prepared statement.
 */
final class ReadPath {
    private final CatalogState catalog;
    private final Binders binders;
    private final TimestampOracle oracle;
    private final ComputeController compute;
    private final PublishedIndexes published;
    private final TableFrontiers frontiers;
    private final WorkerWait waits;
    /**
     * What reads have cost, for tests and EXPLAIN-like checks: plans optimized, index seeks,
     * whole-arrangement reads, and transient dataflows built.
     */
    long planned, seeks, scans, dataflowsBuilt;
    /** Seeks under the coordinator answered from the published shards, without the workers ({@link #shardSeek}). */
    long shardSeeks;
    /** Statements answered without the workers (constant queries), for tests. */
    long answeredLocally;
    /** Point reads answered on the client's thread from published index shards (see {@link #pointRead}). */
    final java.util.concurrent.atomic.LongAdder publishedSeeks = new java.util.concurrent.atomic.LongAdder();

    ReadPath(CatalogState catalog, Binders binders, TimestampOracle oracle, ComputeController compute, TableFrontiers frontiers, WorkerWait waits) {
        this.catalog = catalog;
        this.binders = binders;
        this.oracle = oracle;
        this.compute = compute;
        this.published = compute.published();
        this.frontiers = frontiers;
        this.waits = waits;
    }

    /** Runs a bound query at the current read time and presents it (ORDER BY applied). */
    Result query(Session session, BoundQuery q) {
        return present(q, rowsOf(session, q.plan(), q.plan().types()));
    }

    /**
     * A one-off read of a plan over a stream in event time (a view over a STREAM): 0A000, as for a
     * continuous query sent as a one-off statement; it is read by a subscription.
     */
    private static void refuseStreams(Plan plan) {
        if (Plans.anyNode(plan, p -> p instanceof Plan.EventTime)) {
            throw new SqlException("0A000", "this query reads a view over a STREAM, so it never ends and cannot be answered as a one-off result", 0,
                    "Subscribe to it: SUBSCRIBE (query), or add EMIT CHANGES (COPY (... EMIT CHANGES) TO STDOUT from psql).");
        }
    }

    /** A query's rows as its result: in its ORDER BY, without the columns only sorting needed. */
    static Result present(BoundQuery q, List<Object[]> rows) {
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
    Result queryAsOf(Session session, BoundQuery q, long t, int pos) {
        if (!session.pending.isEmpty()) {
            throw new SqlException("0A000", "SELECT ... AS OF in a transaction block that has written is not supported", pos,
                    "It reads committed history; run it outside the block or before its writes.");
        }
        refuseStreams(q.plan());
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
    void checkRetained(Plan plan, long t, long now, int pos, boolean mustBeComplete) {
        if (mustBeComplete && t > now) {
            throw new SqlException("22023", "AS OF " + t + " is in the future: the latest complete time is " + now, pos);
        }
        checkHistory(plan, t, now, pos, "AS OF " + t);
        checkChanges(plan, now, pos);
    }

    /** Fails unless each {@code CHANGES(x AS OF since)} and {@code AS OF SYSTEM TIME ... SINCE since} in {@code plan} finds x's history from its since on. */
    void checkChanges(Plan plan, long now, int pos) {
        if (plan instanceof Plan.Changes c) checkHistory(c.input(), c.since(), now, pos, "CHANGES(... AS OF " + c.since() + ")");
        if (plan instanceof Plan.AsOfLookup a && a.since() != Plan.AsOfLookup.READABLE) checkHistory(a.dimension(), a.since(), now, pos, "AS OF SYSTEM TIME ... SINCE " + a.since());
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
                CatalogItem item = catalog.get(id);
                String kind = item.kind();
                throw new SqlException("72000", what + " is before the history " + kind + " \"" + item.name()
                        + "\" retains: [" + since + ", " + now + "]", pos,
                        "Keep more history with ALTER " + kind.toUpperCase(java.util.Locale.ROOT) + " " + item.name()
                                + " SET (RETAIN HISTORY FOR '...'), or ask for a time in that range.");
            }
        }
    }


    /** The plan as it will run: statement time bound, optimized, and (without uncommitted writes) using indexes in joins. */
    Plan physical(Plan bound, long t, boolean useIndexes, Set<Long> indexesUsed) {
        planned++;
        Plan plan = Optimizer.fold(Plans.atStatementTime(bound, Instant.ofEpochMilli(t)));
        return Optimizer.prune(useIndexes ? IndexSelection.apply(plan, catalog.indexes(), indexesUsed, compute::since) : IndexSelection.binaryOnly(plan));
    }

    /** The rows of {@code unbound} now, each repeated by its multiplicity. */
    List<Object[]> rowsOf(Session session, Plan unbound, List<SqlType> types) {
        refuseStreams(unbound);
        long t = readTimeFor(unbound);
        checkChanges(unbound, t, 0);
        return rowsAt(session, physical(unbound, t, session.pending.isEmpty(), new HashSet<>()), t, types);
    }

    /** The rows of the physical {@code plan} at time {@code t} (see {@link #physical}), each repeated by its multiplicity. */
    List<Object[]> rowsAt(Session session, Plan plan, long t, List<SqlType> types) {
        List<Object[]> constant = Peek.constantRows(plan);
        if (constant != null) {
            answeredLocally++; // SELECT 1, SELECT version(): no worker needed
            return constant;
        }
        if (session.pending.isEmpty()) {
            List<Object[]> reduced = reducedByScan(session, plan, t);
            if (reduced != null) return reduced;
        }
        Peek peek = Peek.of(plan, catalog.indexes());
        // a block's own writes to the table a peek reads are added to what the peek finds
        Map<Row, Long> ownWrites = peek == null ? null : session.pending.get(peek.source());
        boolean peekable = peek != null && (session.pending.isEmpty() || catalog.get(peek.source()) instanceof CatalogItem.Table
                || java.util.Collections.disjoint(catalog.baseTablesOf(peek.source()), session.pending.keySet()));
        if (!session.pending.isEmpty() && !peekable) {
            dataflowsBuilt++;
            // a transaction block reads its own writes: its changes are added to the tables, and
            // materialized views over them are computed from their plans rather than read
            Plan inlined = inlineMaterializedViews(plan);
            Map<Long, Map<Row, Long>> overlay = new HashMap<>(session.pending);
            Set<Long> tables = catalog.baseTables(plan);
            frontiers.advanced(t + 1, tables);
            Dataflows.ResultBudget budget = session.resultBudget(compute.workers());
            Map<Row, Long> counts = Dataflows.Answer.combine(compute.onEveryWorker(t + 1, tables, null, (d, w) -> d.read(w, inlined, t, overlay, session::stop, budget)));
            return decodeAll(counts, types);
        }
        if (peekable && peek.index() == null && ownWrites == null) {
            // a scan: every worker runs the maps and filters over its part as it reads it
            scans++;
            MapFilterProject mfp = MapFilterProject.of(peek.steps(), Binder.typesOf(catalog.get(peek.source()).columns()));
            Dataflows.ResultBudget budget = session.rowBudget();
            return Dataflows.ScanPart.combine(onEveryWorker(peek.source(), t, (d, w) -> d.scan(w, peek.source(), mfp, t, budget)), mfp.outCodec(), budget);
        }
        if (peekable) {
            if (peek.index() == null) scans++;
            else if (!peek.keys().isEmpty()) seeks++; // no key (NULL = x) finds nothing: no seek
            // an index the workers have published up to t is read from its shards, without them
            Map<Row, Long> fromShards = peek.index() != null ? shardSeek(peek, t) : null;
            Map<Row, Long> source = fromShards != null ? fromShards
                    : Dataflows.Answer.combine(onEveryWorker(peek.source(), t, (d, w) -> peek.index() != null
                            ? d.lookup(w, peek.index().id(), peek.keys(), t)
                            : d.read(w, new Plan.Get(peek.source(), "", List.of()), t)));
            if (ownWrites != null) {
                // The filters run over every row found, so the block's rows can all be added; a
                // row it removes that the seek did not find (another key) is left out. A seek's
                // are first narrowed to its keys, or a block of 1,000 UPDATEs by key decoded and
                // filtered all its earlier ones for each (quadratic in the block's size).
                Map<Row, Map<Row, Long>> byKey = peek.index() != null && peek.index().primaryKey() ? session.pendingRowsByKey.get(peek.index().id()) : null;
                if (byKey != null) ownWrites = Peek.ofKeys(byKey, peek.keys());
                else if (peek.index() != null) ownWrites = Peek.withKeys(ownWrites, peek, Binder.typesOf(catalog.get(peek.source()).columns()));
                ownWrites.forEach((row, n) -> source.merge(row, n, Long::sum));
                source.values().removeIf(n -> n <= 0);
            }
            List<SqlType> sourceTypes = Binder.typesOf(catalog.get(peek.source()).columns());
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
        Peek peek = reduce == null ? null : Peek.of(reduce.input(), catalog.indexes());
        if (peek == null) return null;
        Dataflows.ResultBudget budget = new Dataflows.ResultBudget(AGGREGATE_INPUT_BYTES, null);
        Dataflows.Counted input;
        if (peek.index() != null) {
            // the rows the index finds for the filter's keys, aggregated here: a count over one
            // customer's orders seeks them, where a dataflow scanned all 10M orders (1.2 s)
            input = lookedUp(peek, t, budget);
            if (input == null) return null;
        } else {
            MapFilterProject mfp = MapFilterProject.of(peek.steps(), Binder.typesOf(catalog.get(peek.source()).columns()));
            List<Dataflows.ScanPart> parts = onEveryWorker(peek.source(), t, (d, w) -> d.scan(w, peek.source(), mfp, t, budget, AGGREGATE_SCAN_UPDATES, true));
            if (parts.stream().anyMatch(part -> part.skipped())) return null;
            try {
                input = Dataflows.Counted.combine(parts, mfp.outCodec(), budget);
            } catch (RuntimeException e) {
                return null;
            }
        }
        try {
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

    /**
     * The rows {@code peek}'s index lookup finds at {@code t}, its steps applied, with their
     * counts; null when they outgrow {@code budget} or a step fails on one (the dataflow then
     * answers, and reports the error as a view would).
     */
    private Dataflows.Counted lookedUp(Peek peek, long t, Dataflows.ResultBudget budget) {
        if (!peek.keys().isEmpty()) seeks++;
        Map<Row, Long> found = Dataflows.Answer.combine(onEveryWorker(peek.source(), t, (d, w) -> d.lookup(w, peek.index().id(), peek.keys(), t)));
        if (!budget.takeAll(found)) return null;
        for (long n : found.values()) {
            if (n < 0) throw new SqlException("XX000", "a stored collection holds a row a negative number of times; this is a bug");
        }
        List<Object[]> rows;
        try {
            rows = peek.apply(found, Binder.typesOf(catalog.get(peek.source()).columns()));
        } catch (SqlException e) {
            return null;
        }
        long[] counts = new long[rows.size()];
        java.util.Arrays.fill(counts, 1);
        return new Dataflows.Counted(rows, counts);
    }

    /** The Reduce under {@code plan}'s maps, filters and projections, which go into {@code above} (outermost last); null if there is none. */
    static Plan.Reduce reduceUnder(Plan plan, List<Plan> above) {
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
        Map<Long, Long> holds = frontiers.compactionDue(t);
        Set<Long> tables = catalog.baseTablesOf(source);
        frontiers.advanced(t + 1, tables);
        return compute.onEveryWorker(t + 1, tables, holds, read);
    }

    /**
     * Every worker's part of {@code plan} at {@code t}, combined, with the inputs first promised
     * complete up to {@code now} (at or after {@code t}); afterwards history may go, if due.
     */
    private Map<Row, Long> readEverywhere(Session session, Plan plan, long t, long now) {
        Map<Long, Long> holds = frontiers.compactionDue(now);
        Set<Long> tables = catalog.baseTables(plan);
        frontiers.advanced(now + 1, tables);
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
            return Dataflows.Answer.combine(awaitReads(session, reads));
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
    private List<Dataflows.Answer> awaitReads(Session session, List<Dataflows.PendingRead> reads) {
        List<Dataflows.Answer> out = new ArrayList<>(reads.size());
        long started = System.nanoTime();
        boolean[] watching = {false};
        // a read that takes a while has the wire server watch for its client leaving (a client
        // that gives up and disconnects cancels it, as a cancel request would); a quick one never
        // pays for the watcher
        Runnable eachTurn = () -> {
            if (!watching[0] && System.nanoTime() - started > WATCH_CLIENT_AFTER_NANOS) {
                watching[0] = true;
                session.aboutToWait();
            }
        };
        for (Dataflows.PendingRead r : reads) {
            waits.await(r.result, eachTurn);
            out.add(r.answer());
        }
        return out;
    }

    /** How long a read waits for the workers before the client's leaving is watched for. */
    private static final long WATCH_CLIENT_AFTER_NANOS = 50_000_000L;

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
        return Plans.mapGets(plan, g -> catalog.get(g.id()) instanceof CatalogItem.MaterializedView m ? inlineMaterializedViews(m.plan()) : null);
    }

    /** The rows of prepared plan {@code bound} with {@code values} for its parameters. */
    List<Object[]> preparedRows(Session session, Prepared p, Plan bound, Object[] values) {
        if (p.kind == Prepared.Kind.INSERT && p.physical != null && !p.valuesUseStatementTime) {
            // VALUES of parameters and constants: no read time to find (it costs a walk of the catalog per run)
            List<Object[]> local = Peek.constantRows(Plans.withParameters(p.physical, values, p.parameterTypes()));
            if (local != null) return local;
        }
        long t = readTimeFor(bound);
        checkChanges(bound, t, 0);
        List<SqlType> types = bound.types();
        planPrepared(p, bound);
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

    /** {@code p}'s physical plan, made once: optimized before the statement time and the values are known, so it serves every run. */
    private void planPrepared(Prepared p, Plan bound) {
        if (p.physical != null) return;
        p.physical = Optimizer.prune(IndexSelection.apply(Optimizer.fold(bound), catalog.indexes(), new HashSet<>(), compute::since));
        p.valuesUseStatementTime = Plans.usesStatementTime(p.physical);
        planned++;
    }

    /**
     * Prepared query {@code p} planned, with its point read (see {@link #pointRead}) if it is one,
     * judged with {@code values}, without running it. Called with the coordinator's lock held.
     */
    void planPointRead(Prepared p, Object[] values) {
        planPrepared(p, p.query.plan());
        if (p.pointRead == null) p.pointRead = pointReadOf(p, Plans.withParameters(p.physical, values, p.parameterTypes()));
    }

    /**
     * What lets later runs of prepared query {@code p} be point reads (see {@link #pointRead}),
     * judged from one run's plan {@code withValues}: a seek in an index, with no use of the
     * statement time and no source whose contents change with time alone (a temporal filter);
     * null otherwise.
     */
    private Prepared.PointRead pointReadOf(Prepared p, Plan withValues) {
        if (p.readsSystemCatalog || Plans.usesStatementTime(p.physical)) return null;
        Peek peek = Peek.of(withValues, catalog.indexes());
        if (peek == null || peek.index() == null || catalog.changesWithTime(peek.source())) return null;
        List<SqlType> sourceTypes = Binder.typesOf(catalog.get(peek.source()).columns());
        return new Prepared.PointRead(catalog.version(), p.query, p.physical, catalog.indexes(), peek.index().id(), sourceTypes, p.desugarsAsOf,
                Peek.Seek.of(p.physical, peek.index(), sourceTypes), baseTables(peek.source()));
    }

    /**
     * The time to read {@code plan} (not yet bound to the statement time) at: the clock's now when
     * its answer may change with the clock alone (it uses now(), or reads a view that does or
     * filters by it), else the time its tables are complete through ({@link TableFrontiers#readTimeOfData}),
     * which needs no input moved: a read then costs the same whatever else the workers maintain.
     */
    private long readTimeFor(Plan plan) {
        boolean[] clock = {Plans.usesStatementTime(plan) || readsHistory(plan)};
        if (!clock[0]) {
            Plans.mapGets(plan, g -> {
                clock[0] |= catalog.changesWithTime(g.id());
                return null;
            });
        }
        return clock[0] ? oracle.readTime() : frontiers.readTimeOfData(catalog.baseTables(plan));
    }

    /** Whether {@code plan} reads history from a given time on (CHANGES, AS OF SYSTEM TIME ... SINCE): its answer grows with the read time, so it reads at the clock's now. */
    private static boolean readsHistory(Plan plan) {
        return Plans.anyNode(plan, p -> p instanceof Plan.Changes || p instanceof Plan.AsOfLookup);
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
    Result pointRead(Session session, Prepared p, Object[] values) {
        Prepared.PointRead r = p.pointRead;
        if (r == null || r.version() != catalog.version()) return null;
        if (session.aborted || !session.pending.isEmpty() || (session.inTransaction && !session.implicit) || session.cancelRequested
                || r.desugarsAsOf() != Binders.desugarsAsOf(session)) {
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
        // right after a write to its tables the index may not hold it yet: the read waits for the
        // workers to publish it here, not on the coordinator, where it held every other session
        // back for as long as the workers took (steps of a large query included)
        long lastWrite = oracle.lastWrite(r.tables());
        // the statement's own timeout applies here, before the coordinator would start it (read
        // from the settings only when the read must wait)
        long[] timeout = {0};
        long waitFrom = System.nanoTime();
        if (!published.awaitReadable(r.index(), lastWrite, shards, () -> {
            timeout[0] = session.statementTimeoutNanos();
            return timeout[0] > 0 ? Math.min(timeout[0], PUBLISHED_WAIT_NANOS) : PUBLISHED_WAIT_NANOS;
        }, () -> session.cancelRequested)) {
            if (timeout[0] > 0 && System.nanoTime() - waitFrom >= timeout[0]) throw Session.timedOut();
            return null;
        }
        long t = PublishedIndexes.readableThrough(shards);
        if (t == Long.MIN_VALUE || t < lastWrite) return null;
        Map<Row, Long> rows = lookupAll(shards, keys, t);
        if (rows == null) return null;
        for (long n : rows.values()) if (n < 0) return null;
        publishedSeeks.increment();
        return present(r.query(), r.seek() != null ? peek.apply(rows, r.seek().sourceCodec()) : peek.apply(rows, r.sourceTypes()));
    }

    /**
     * The rows of {@code peek}'s seek (in an index) at {@code t}, from the shards the workers
     * published, when every shard is exact at {@code t}; null otherwise (or when the collection
     * has errors at t), and the workers are asked. A seek sent as SQL text (psql, or psycopg2,
     * which puts the parameters in the text) took a round trip through both workers, waiting
     * behind whatever step they were in, even when the index they published already had the
     * answer.
     */
    private Map<Row, Long> shardSeek(Peek peek, long t) {
        PublishedIndexes.Shard[] shards = new PublishedIndexes.Shard[published.workers()];
        if (!published.read(peek.index().id(), shards)) return null;
        long at = t;
        if (!PublishedIndexes.exactAt(shards, t)) {
            // The shards' own latest time serves as well when it is no earlier than the latest
            // write to the tables the index is computed from: the rows are the same from that
            // write on (as for a prepared point read), unless they change with the clock alone.
            // Under a steady stream of writes the index is a step behind t at most reads, and
            // those asked the workers, holding the coordinator while they caught up.
            if (catalog.changesWithTime(peek.source())) return null;
            at = PublishedIndexes.readableThrough(shards);
            if (at == Long.MIN_VALUE || at > t || at < oracle.lastWrite(baseTables(peek.source()))) return null;
        }
        Map<Row, Long> rows = lookupAll(shards, peek.keys(), at);
        if (rows != null) shardSeeks++;
        return rows;
    }

    /** The rows under each of {@code keys} in index shards {@code shards} at {@code t}, added up; null when the indexed collection has errors at t. */
    private static Map<Row, Long> lookupAll(PublishedIndexes.Shard[] shards, List<Row> keys, long t) {
        Map<Row, Long> rows = new LinkedHashMap<>();
        for (Row key : keys) {
            Map<Row, Long> found = Dataflows.lookup(shards, key, t);
            if (found == null) return null;
            found.forEach((row, n) -> rows.merge(row, n, Long::sum));
        }
        return rows;
    }

    /** The base tables of stored collection {@code source}, as an array for {@link TimestampOracle#lastWrite}, kept per catalog version. */
    private long[] baseTables(long source) {
        if (baseTablesVersion != catalog.version()) {
            baseTablesOf.clear();
            baseTablesVersion = catalog.version();
        }
        return baseTablesOf.computeIfAbsent(source, s -> catalog.baseTablesOf(s).stream().mapToLong(Long::longValue).toArray());
    }

    private final Map<Long, long[]> baseTablesOf = new HashMap<>();
    private long baseTablesVersion = -1;

    /**
     * How long a prepared point read waits for the published index to hold the latest write
     * before it takes the coordinator's path (which waits for the workers as long as it takes).
     * Long: the coordinator's path waits for the same index, holding every other session back
     * meanwhile (with a 200 ms bound, a materialized view being built over a cross join, whose
     * steps took the workers 100-200 ms, sent reads there and the load beside it fell to 64
     * transactions/s). A cancel, the statement's timeout and the index's failure end the wait.
     */
    private static final long PUBLISHED_WAIT_NANOS = 5_000_000_000L;

    Result explain(Session session, Statement.Explain e) {
        ExplainOptions options = ExplainOptions.of(e.options());
        if (e.statement() instanceof Statement.CreateIndex i) {
            if (options.analyze()) throw new SqlException("0A000", "EXPLAIN ANALYZE of CREATE INDEX is not supported", e.pos(), "EXPLAIN it without ANALYZE.");
            return explainIndex(session, i, options);
        }
        Plan plan;
        if (e.statement() instanceof Statement.QueryStatement q) {
            // a continuous query (over a stream) is explained as its subscription would run it
            dev.tributary.sql.bind.Binder binder = q.emitChanges() ? binders.of(session).allowStreams().maintaining() : binders.of(session);
            BoundQuery b = binder.bindQuery(q.query());
            binders.access().checkSelect(session, binder.dependencies());
            if (options.analyze()) {
                if (q.emitChanges()) throw new SqlException("0A000", "EXPLAIN ANALYZE of a continuous query (EMIT CHANGES) is not supported", e.pos(),
                        "It never ends; EXPLAIN it without ANALYZE, or watch its dataflow in tributary_internal.operators.");
                return explainAnalyze(session, b.plan(), options, e.pos());
            }
            plan = b.plan();
        } else if (e.statement() instanceof Statement.CreateView v) {
            if (options.analyze()) throw new SqlException("0A000", "EXPLAIN ANALYZE of CREATE VIEW is not supported", e.pos(), "EXPLAIN it without ANALYZE.");
            BoundQuery b = binders.of(session).allowStreams().maintaining().bindQuery(v.query());
            plan = v.materialized() ? Ddl.inSystemTime(b.plan(), v.pos()) : b.plan();
        } else {
            throw new SqlException("0A000", "EXPLAIN of this statement is not supported; explain a query, CREATE [MATERIALIZED] VIEW or CREATE INDEX", e.statement().pos());
        }
        if (e.statement() instanceof Statement.QueryStatement || (e.statement() instanceof Statement.CreateView cv && cv.materialized())) {
            plan = Optimizer.prune(IndexSelection.apply(Optimizer.fold(plan), catalog.indexes(), new HashSet<>(), compute::since));
        } else {
            plan = Optimizer.optimize(IndexSelection.binaryOnly(plan));
        }
        List<String> footer = new ArrayList<>();
        if (e.statement() instanceof Statement.CreateView cv && cv.materialized()) {
            footer.add("Reuses the arrangements of " + describeAll(reusedArrangements(plan)) + " (imported, nothing copied)");
            footer.add("Creates arrangements of the view's rows and of its errors, and those marked \"arranges\" above");
        }
        Peek peek = e.statement() instanceof Statement.QueryStatement ? Peek.of(plan, catalog.indexes()) : null;
        if (peek != null) {
            footer.add(peek.index() != null
                    ? "Answered by " + (peek.keys().size() == 1 ? "a lookup" : peek.keys().size() + " lookups") + " in index " + peek.index().name() + ", no dataflow"
                    : "Answered by reading the arrangement of " + catalog.describeStored(peek.source()) + ", no dataflow");
        } else if (e.statement() instanceof Statement.QueryStatement) {
            Plan.Reduce reduce = reduceUnder(plan, new ArrayList<>());
            Peek scanned = reduce == null ? null : Peek.of(reduce.input(), catalog.indexes());
            footer.add(scanned == null ? "Answered by a transient dataflow over the arrangements it reads"
                    : scanned.index() != null
                    ? "Answered by " + (scanned.keys().size() == 1 ? "a lookup" : scanned.keys().size() + " lookups") + " in index " + scanned.index().name()
                            + " and aggregating on the coordinator, no dataflow (a transient dataflow when the rows found pass " + (AGGREGATE_INPUT_BYTES >> 20) + " MB)"
                    : "Answered by scanning the arrangement of " + catalog.describeStored(scanned.source()) + " and aggregating on the coordinator, no dataflow"
                            + " (a transient dataflow when a worker's part holds more than " + AGGREGATE_SCAN_UPDATES + " updates or "
                            + Dataflows.ScanPart.CONSOLIDATED_ROWS + " distinct input rows)");
        }
        if (options.format() == ExplainOptions.Format.JSON) {
            Map<String, Object> extra = new LinkedHashMap<>();
            if (!footer.isEmpty()) extra.put("Notes", footer);
            return jsonPlan(Explain.json(plan, catalog::describeStored, p -> null, extra));
        }
        List<Object[]> rows = new ArrayList<>();
        for (String line : Explain.explain(plan, catalog::describeStored).split("\n")) rows.add(new Object[] {line});
        for (String line : footer) rows.add(new Object[] {line});
        return new Result("EXPLAIN", List.of("QUERY PLAN"), List.of(SqlType.TEXT), rows);
    }

    /** EXPLAIN's one row of one json column, as PostgreSQL gives FORMAT JSON. */
    private static Result jsonPlan(String json) {
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {json});
        return new Result("EXPLAIN", List.of("QUERY PLAN"), List.of(SqlType.JSON), rows);
    }

    /**
     * EXPLAIN ANALYZE of a query: it runs in a transient dataflow (always, even where the query
     * itself would be answered without one, so that every node is measured), its rows are
     * counted and dropped, and each plan node shows the rows its operators sent and the time they
     * took, over all workers (see {@link dev.tributary.sql.render.PlanProfile}).
     */
    private Result explainAnalyze(Session session, Plan unbound, ExplainOptions options, int pos) {
        if (!session.pending.isEmpty()) {
            throw new SqlException("0A000", "EXPLAIN ANALYZE in a transaction block that has written is not supported", pos,
                    "It runs over committed data; run it outside the block or before its writes.");
        }
        refuseStreams(unbound);
        long t = readTimeFor(unbound);
        checkChanges(unbound, t, 0);
        Plan plan = physical(unbound, t, true, new HashSet<>());
        long started = System.nanoTime();
        Map<Long, Long> holds = frontiers.compactionDue(t);
        Set<Long> tables = catalog.baseTables(plan);
        frontiers.advanced(t + 1, tables);
        Dataflows.ResultBudget budget = session.resultBudget(compute.workers());
        Session.Stop stop = session.new Stop();
        List<Dataflows.PendingRead> reads = compute.onEveryWorker(t + 1, tables, holds, (d, w) -> d.startRead(w, plan, t, Map.of(), stop, budget, true));
        long resultRows = 0;
        try {
            for (long n : Dataflows.Answer.combine(awaitReads(session, reads)).values()) resultRows += n;
        } catch (RuntimeException x) {
            stop.abandon();
            throw x;
        }
        double millis = (System.nanoTime() - started) / 1e6;
        List<dev.tributary.timely.DataflowGraph> copies = new ArrayList<>();
        for (Dataflows.PendingRead r : reads) copies.add(r.graph());
        dev.tributary.timely.DataflowGraph graph = dev.tributary.timely.DataflowGraph.sum(copies);
        Map<Plan, dev.tributary.sql.render.PlanProfile.Measured> measured = dev.tributary.sql.render.PlanProfile.of(reads.get(0).nodes(), graph);
        String answered = "Ran in a transient dataflow of " + graph.operators().size() + " operators on " + compute.workers() + " worker"
                + (compute.workers() == 1 ? "" : "s") + "; " + resultRows + " row" + (resultRows == 1 ? "" : "s") + " (rows counted per node are updates)";
        if (options.format() == ExplainOptions.Format.JSON) {
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("Notes", List.of(answered));
            extra.put("Execution Time", round3(millis));
            return jsonPlan(Explain.json(plan, catalog::describeStored, p -> {
                dev.tributary.sql.render.PlanProfile.Measured m = measured.get(p);
                if (m == null) return null;
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("Actual Rows", m.rows());
                o.put("Actual Total Time", round3(m.nanos() / 1e6));
                o.put("Operators", m.operators());
                return o;
            }, extra));
        }
        List<Object[]> rows = new ArrayList<>();
        String text = Explain.explain(plan, catalog::describeStored, p -> {
            dev.tributary.sql.render.PlanProfile.Measured m = measured.get(p);
            return m == null ? null : "(actual rows=" + m.rows() + " time=" + String.format(java.util.Locale.ROOT, "%.3f", m.nanos() / 1e6) + " ms)";
        });
        for (String line : text.split("\n")) rows.add(new Object[] {line});
        rows.add(new Object[] {answered});
        rows.add(new Object[] {"Execution Time: " + String.format(java.util.Locale.ROOT, "%.3f", millis) + " ms"});
        return new Result("EXPLAIN", List.of("QUERY PLAN"), List.of(SqlType.TEXT), rows);
    }

    private static java.math.BigDecimal round3(double v) {
        return java.math.BigDecimal.valueOf(v).setScale(3, java.math.RoundingMode.HALF_UP);
    }

    /**
     * EXPLAIN CREATE INDEX (PostgreSQL has none; ours says what the index's dataflow does): the
     * relation's arrangement is imported, and one new arrangement keyed by the index's key is built.
     */
    private Result explainIndex(Session session, Statement.CreateIndex i, ExplainOptions options) {
        CatalogState.rejectSystemRelation(i.on(), "create an index on", i.pos());
        CatalogItem target = catalog.find(i.on(), session, i.pos());
        if (target == null) throw new SqlException("42P01", "relation \"" + String.join(".", i.on()) + "\" does not exist", i.pos());
        if (!(target instanceof CatalogItem.Table || target instanceof CatalogItem.MaterializedView)) {
            throw new SqlException("42809", "cannot create index on " + target.kind() + " \"" + target.name() + "\"", i.pos(),
                    "Create a materialized view over it and index that.");
        }
        List<dev.tributary.sql.expr.ScalarExpr> keys = binders.plain().bindOver(target.name(), target.columns(), i.exprs());
        List<String> names = new ArrayList<>();
        for (var c : target.columns()) names.add(c.name());
        List<String> described = new ArrayList<>();
        for (var k : keys) described.add(k.describe(names));
        String source = catalog.describeStored(target.id());
        String index = "Index " + i.name() + " on " + String.join(", ", described) + " (arranges the rows by key: the one arrangement it creates)";
        String get = "Get " + source + " (its arrangement, shared)";
        String note = "Reuses the arrangement of " + source + " (imported, nothing copied); creates one arrangement, the index's";
        if (options.format() == ExplainOptions.Format.JSON) {
            Map<String, Object> input = new LinkedHashMap<>();
            input.put("Node Type", "Get");
            input.put("Details", get.substring(4));
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("Node Type", "Index");
            node.put("Details", index.substring(6));
            node.put("Plans", List.of(input));
            Map<String, Object> top = new LinkedHashMap<>();
            top.put("Plan", node);
            top.put("Notes", List.of(note));
            return jsonPlan(Explain.jsonDocument(List.of(top)));
        }
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {index});
        rows.add(new Object[] {"  " + get});
        rows.add(new Object[] {note});
        return new Result("EXPLAIN", List.of("QUERY PLAN"), List.of(SqlType.TEXT), rows);
    }

    /** The stored collections and indexes whose arrangements {@code plan} imports, by catalog id, in plan order. */
    private static Set<Long> reusedArrangements(Plan plan) {
        Set<Long> out = new java.util.LinkedHashSet<>();
        Plans.anyNode(plan, p -> {
            switch (p) {
                case Plan.Get g -> out.add(g.id());
                case Plan.IndexedGet g -> out.add(g.index());
                case Plan.DeltaJoin d -> {
                    for (Plan.Get g : d.inputs()) out.add(g.id());
                    for (Plan.DeltaPath path : d.paths()) for (Plan.DeltaStep step : path.steps()) out.add(step.index());
                }
                default -> { }
            }
            return false;
        });
        return out;
    }

    private String describeAll(Set<Long> ids) {
        if (ids.isEmpty()) return "nothing";
        List<String> out = new ArrayList<>();
        for (long id : ids) out.add(catalog.describeStored(id));
        return String.join(", ", out);
    }}
