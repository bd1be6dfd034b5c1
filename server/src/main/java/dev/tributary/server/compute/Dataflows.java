package dev.tributary.server.compute;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.HeldState;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.TraceSnapshot;
import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.KV;
import dev.tributary.differential.Unit;
import dev.tributary.server.RowSlab;
import dev.tributary.server.ServerLog;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.render.Errors;
import dev.tributary.sql.render.MapFilterProject;
import dev.tributary.sql.render.Rendered;
import dev.tributary.sql.render.Renderer;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.DataflowFailedException;
import dev.tributary.timely.OperatorFailedException;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Worker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dataflows of one database, on the engine's worker thread: one per table (its input,
 * arranged), one per materialized view (its plan rendered over imported arrangements, the result
 * and its errors arranged), one per index, and short-lived ones that answer a query and go.
 *
 * <p>Every stored arrangement has a read handle whose logical compaction is the last read time,
 * so history at and after it stays exact while older history compacts away. Only the engine
 * thread may call these methods.
 */
public final class Dataflows {
    private static final RowDataType ROW = RowDataType.INSTANCE;

    /**
     * A stored collection: its rows and errors arranged, readable at any time from {@code readFrom}.
     * A table with a primary key is arranged by it (the rows are the values), and that arrangement
     * is also its primary key's index; any other collection is arranged by its rows.
     */
    static final class Stored {
        final long id;
        /** What it is, for errors: {@code materialized view "totals"}. */
        final String what;
        /** The stored collections and indexes its dataflow reads. */
        final Set<Long> reads;
        final int dataflow;
        final Arrangement<Row, ?> oks;
        /** Whether {@link #oks} holds the rows as its values (a table by its primary key), not as its keys. */
        final boolean rowsInValues;
        final Arrangement<Row, Unit> errs;
        final TraceHandle okRead;
        final TraceHandle errRead;
        final Probe probe;
        final InputSession<Row> input;
        final HeldState held;
        final dev.tributary.arrangements.Hydration hydration;
        /**
         * A materialized view's hold on its output arrangement for its output shard: times after
         * {@link #exactAfter} stay apart until a checkpoint has appended them (null: no output
         * shard is written, or not a view).
         */
        TraceHandle outputHold;
        /** The time after which {@link #outputHold} keeps the output's times exact (-1: all of them). */
        long exactAfter = -1;
        /** Whether checkpoints cut this view's output for its output shard. */
        boolean outputShard;

        Stored(long id, String what, Set<Long> reads, Scope scope, Arrangement<Row, ?> oks, boolean rowsInValues, Arrangement<Row, Unit> errs, Probe probe,
                InputSession<Row> input) {
            this.id = id;
            this.what = what;
            this.reads = reads;
            this.rowsInValues = rowsInValues;
            this.dataflow = scope.dataflowIndex();
            this.held = HeldState.of(scope);
            this.hydration = dev.tributary.arrangements.Hydration.of(scope);
            this.oks = oks;
            this.errs = errs;
            this.okRead = readHandle(oks.trace());
            this.errRead = errs == null ? null : readHandle(errs.trace());
            this.probe = probe;
            this.input = input;
        }
    }

    /** An index: rows of a stored collection arranged by key. */
    static final class Index {
        final long id;
        final String what;
        final long on;
        final int dataflow;
        final Arrangement<Row, Row> byKey;
        final TraceHandle read;
        final Probe probe;
        final HeldState held;
        final dev.tributary.arrangements.Hydration hydration;
        /** What this worker last published of the index (see {@link PublishedIndexes}). */
        PublishedIndexes.Shard published;
        /** Whether the arrangement is its collection's own (a primary key's), whose memory the collection reports. */
        final boolean shared;

        Index(long id, String what, long on, Scope scope, Arrangement<Row, Row> byKey, Probe probe, boolean shared) {
            this.id = id;
            this.what = what;
            this.shared = shared;
            this.on = on;
            this.dataflow = scope.dataflowIndex();
            this.held = HeldState.of(scope);
            this.hydration = dev.tributary.arrangements.Hydration.of(scope);
            this.byKey = byKey;
            this.read = readHandle(byKey.trace());
            this.probe = probe;
        }
    }

    private static TraceHandle readHandle(TraceHandle base) {
        TraceHandle h = base.share();
        h.setPhysicalCompaction(Antichain.empty(1));
        return h;
    }

    private final Map<Long, Stored> stored = new HashMap<>();
    private final Map<Long, Index> indexes = new HashMap<>();
    private long upper;

    /**
     * Creates table {@code id}'s dataflow: an input whose contents are arranged, by the primary
     * key {@code primaryKey} (columns of {@code types}) if it has one, which is then also index
     * {@code pkIndex} ({@code pkName}): point reads, UPDATE and DELETE by key, key checks and
     * joins on the key seek it, and no other copy of the table is kept.
     */
    void createTable(Worker worker, long id, String name, List<dev.tributary.sql.types.SqlType> types, int[] primaryKey, long pkIndex, String pkName) {
        Stored s = build(worker, "table:" + name, id, scope -> {
            InputSession<Row> in = InputSession.create(scope, name, ROW);
            if (primaryKey.length == 0) {
                Arrangement<Row, Unit> oks = in.collection().arrangeBySelf();
                Probe probe = oks.asCollection().probe();
                return new Stored(id, "table \"" + name + "\"", Set.of(), scope, oks, false, null, probe, in);
            }
            RowCodec.Projection plainKey = plainKeyOf(types, primaryKey);
            Arrangement<Row, Row> byKey = plainKey != null ? in.collection().arrangeByKeyColumns(plainKey::map, ROW, Collection::copy, ROW)
                    : in.collection().arrangeByKey(primaryKeyOf(types, primaryKey), ROW, row -> row, ROW);
            Probe probe = byKey.batches().probe();
            indexes.put(pkIndex, new Index(pkIndex, "index \"" + pkName + "\"", id, scope, byKey, probe, true));
            return new Stored(id, "table \"" + name + "\"", Set.of(), scope, byKey, true, null, probe, in);
        });
        if (s.input.time()[0] < upper) s.input.advanceTo(upper);
        stored.put(id, s);
    }

    /**
     * A row's primary key as an index key: its key columns' values in key form (numbers without
     * trailing zeros, intervals by span), as {@link #createIndex} keys rows, so that 1.0 and 1.00
     * are one key. Where no key column has another key form, the columns' bytes as they are.
     */
    public static java.util.function.Function<Row, Row> primaryKeyOf(List<dev.tributary.sql.types.SqlType> types, int[] primaryKey) {
        RowCodec.Projection plain = plainKeyOf(types, primaryKey);
        if (plain != null) return plain::apply;
        RowCodec codec = new RowCodec(types);
        RowCodec keyCodec = codec.project(primaryKey);
        return row -> {
            Object[] k = new Object[primaryKey.length];
            for (int i = 0; i < k.length; i++) k[i] = dev.tributary.sql.row.Keys.normalize(codec.get(row, primaryKey[i]));
            return keyCodec.encode(k);
        };
    }

    /**
     * A row's key in an index on {@code keys} (expressions over columns of {@code types}): the
     * keys' values in key form, as {@link #primaryKeyOf} makes them. A key that fails to compute
     * is NULL there; lookups by value never find it.
     */
    public static java.util.function.Function<Row, Row> indexKeyOf(List<dev.tributary.sql.types.SqlType> types, List<ScalarExpr> keys) {
        int[] columns = new int[keys.size()];
        for (int i = 0; i < columns.length; i++) {
            if (!(keys.get(i) instanceof ScalarExpr.ColumnRef c)) {
                columns = null;
                break;
            }
            columns[i] = c.index();
        }
        if (columns != null) return primaryKeyOf(types, columns);
        RowCodec codec = new RowCodec(types);
        List<dev.tributary.sql.types.SqlType> keyTypes = new ArrayList<>();
        for (ScalarExpr k : keys) keyTypes.add(k.type());
        RowCodec keyCodec = new RowCodec(keyTypes);
        return row -> {
            Object[] values = codec.decode(row);
            Object[] key = new Object[keys.size()];
            for (int i = 0; i < key.length; i++) {
                try {
                    key[i] = dev.tributary.sql.row.Keys.normalize(keys.get(i).eval(values));
                } catch (SqlException e) {
                    key[i] = null;
                }
            }
            return keyCodec.encode(key);
        };
    }

    /** The projection onto {@code primaryKey} when no key column has another key form (see {@link #primaryKeyOf}), else null. */
    private static RowCodec.Projection plainKeyOf(List<dev.tributary.sql.types.SqlType> types, int[] primaryKey) {
        for (int c : primaryKey) {
            var kind = types.get(c).kind();
            if (kind == dev.tributary.sql.types.SqlType.Kind.NUMERIC || kind == dev.tributary.sql.types.SqlType.Kind.INTERVAL || kind == dev.tributary.sql.types.SqlType.Kind.JSONB) return null;
        }
        return new RowCodec(types).projection(primaryKey);
    }

    /**
     * Writes this worker's share of {@code changes} (row to signed count) to table {@code id} at
     * {@code time}: share {@code part} of {@code parts} (none if {@code part >= parts}), the
     * changes whose position in the map is {@code part} modulo {@code parts}, or of a
     * {@link RowSlab}'s rows the {@code part}-th contiguous range, copied column to column.
     */
    void write(long id, long time, Map<Row, Long> changes, int part, int parts) {
        Stored s = stored.get(id);
        s.input.advanceTo(Math.max(time, s.input.time()[0]));
        if (changes instanceof RowSlab slab) {
            if (part >= parts) return;
            int n = slab.size();
            s.input.updateRange(slab.column(), (int) ((long) n * part / parts), (int) ((long) n * (part + 1) / parts), 1);
            return;
        }
        int i = 0;
        for (Map.Entry<Row, Long> e : changes.entrySet()) {
            if (i++ % parts == part && e.getValue() != 0) s.input.update(e.getKey(), e.getValue());
        }
    }

    /**
     * Feeds this worker's share of {@code updates} (recovered rows at their own times, none
     * before the table's input time) to table {@code id}: the {@code part}-th contiguous range of
     * {@code parts}. The input's time stays where it is: parts come in no time order, and the
     * caller advances the tables once all are in.
     */
    void replay(long id, dev.tributary.arrangements.Updates updates, int part, int parts) {
        if (part >= parts) return;
        int n = updates.size();
        stored.get(id).input.updateAll(updates, (int) ((long) n * part / parts), (int) ((long) n * (part + 1) / parts));
    }

    /** Promises that no table gets writes before {@code time}. */
    void advance(long time) {
        upper = Math.max(upper, time);
        for (Stored s : stored.values()) {
            if (s.input != null && s.input.time()[0] < time) s.input.advanceTo(time);
        }
    }

    /**
     * Promises that none of {@code tables} gets writes before {@code time}; the other tables keep
     * their uppers, so the dataflows over them have no progress to process.
     */
    void advance(long time, Set<Long> tables) {
        upper = Math.max(upper, time);
        for (long id : tables) {
            Stored s = stored.get(id);
            if (s != null && s.input != null && s.input.time()[0] < time) s.input.advanceTo(time);
        }
    }

    /** Creates a materialized view's dataflow: {@code plan} maintained, its rows and errors arranged. */
    void createMaterializedView(Worker worker, long id, String name, Plan plan, DataflowMemory memory) {
        Renderer[] renderer = new Renderer[1];
        Stored s = build(worker, "mv:" + name, id, scope -> {
            if (memory != null) HeldState.of(scope).limit(memory);
            renderer[0] = new Renderer(scope, sources);
            Rendered r = renderer[0].render(plan);
            Arrangement<Row, Unit> oks = r.oks().arrangeBySelf();
            Arrangement<Row, Unit> errs = r.errs().arrangeBySelf();
            Probe probe = oks.asCollection().concat(errs.asCollection()).probe();
            return new Stored(id, "materialized view \"" + name + "\"", Plans.reads(plan), scope, oks, false, errs, probe, null);
        });
        renderer[0].sealConstants();
        if (!restored.contains(id)) readsFrom(s, exactFrom(s.reads));
        s.outputShard = outputShards;
        if (holdOutputs) holdOutput(s, restored.contains(id) ? restoredAt : -1);
        stored.put(id, s);
    }

    /** Whether materialized views' outputs are written to shards at checkpoints (a durable server). */
    private boolean outputShards;
    /** Whether views hold their outputs' times apart between checkpoints (checkpoints come periodically). */
    private boolean holdOutputs;
    /** The time of the checkpoint the recovery restores from (-1: none). */
    private long restoredAt = -1;

    /**
     * Views made from now on have their outputs cut at checkpoints for their output shards, and,
     * if {@code hold}, keep their outputs' times apart until a checkpoint has appended them.
     */
    void writeOutputShards(boolean hold) {
        outputShards = true;
        holdOutputs = hold;
    }

    /**
     * Holds {@code s}'s output from {@code exactAfter} on (-1: from its start): what a view
     * restored from a checkpoint at {@code a} holds after {@code a} is exact, as is all of a view
     * built now. On a trace that already let go of those times the hold is where the trace is,
     * and exact only after that (its shard's next append then rebases it).
     */
    private static void holdOutput(Stored s, long exactAfter) {
        TraceHandle h = s.oks.trace().share();
        h.setPhysicalCompaction(Antichain.empty(1));
        Antichain wanted = Antichain.of(Math.max(exactAfter, 0));
        if (h.logicalCompaction().dominates(wanted)) h.setLogicalCompaction(wanted);
        long held = h.logicalCompaction().get(0)[0];
        s.outputHold = h;
        // times before the hold may have moved onto it, so only those after it are told apart (none before 0)
        s.exactAfter = held == 0 ? -1 : held;
    }

    /**
     * The earliest time a dataflow built now over {@code reads} is exact at: its inputs' latest
     * since. Before it an input no longer tells times apart, so what the dataflow computes there is
     * not the view's history (a view with RETAIN HISTORY built again at a restart over tables that
     * keep none would answer AS OF an earlier time with nothing); its reads start there. A dataflow
     * restored from a checkpoint keeps the history it had.
     */
    private Antichain exactFrom(Set<Long> reads) {
        long t = 0;
        for (long r : reads) {
            long since = stored.containsKey(r) || indexes.containsKey(r) ? since(r) : 0;
            if (since != Long.MAX_VALUE) t = Math.max(t, since);
        }
        return Antichain.of(new long[] {t});
    }

    /** Creates an index: the rows of {@code on} arranged by the values of {@code keys}. */
    void createIndex(Worker worker, long id, String name, long on, List<dev.tributary.sql.types.SqlType> types, List<ScalarExpr> keys,
                     DataflowMemory memory) {
        java.util.function.Function<Row, Row> keyOf = indexKeyOf(types, keys);
        Index ix = build(worker, "index:" + name, id, scope -> {
            if (memory != null) HeldState.of(scope).limit(memory);
            Rendered source = importInto(on, scope);
            Arrangement<Row, Row> byKey = source.oks().arrangeByKey(keyOf, ROW, row -> row, ROW);
            Probe probe = byKey.asCollection().probe();
            return new Index(id, "index \"" + name + "\"", on, scope, byKey, probe, false);
        });
        indexes.put(id, ix);
    }

    // ------------------------------------------------------------------ checkpoints

    /** Seeds for the dataflows a recovery builds, by object id (this worker's copies): taken by the object's create. */
    private final Map<Long, dev.tributary.arrangements.Seed> seeds = new HashMap<>();
    /** The objects whose dataflows were built from their seeds. */
    private final Set<Long> restored = new java.util.HashSet<>();
    /**
     * Handles that keep each restored trace's boundary at its checkpoint until the recovery ends:
     * the restored dataflows that import it start there, and a merge across it would make each
     * import cut a copy of the merged batch.
     */
    private final List<TraceHandle> recoveryHolds = new ArrayList<>();

    /** Builds object {@code id}'s dataflow {@code name} from its seed if it has one (and it fits), from scratch otherwise. */
    private <R> R build(Worker worker, String name, long id, java.util.function.Function<Scope, R> build) {
        dev.tributary.arrangements.Seed seed = seeds.remove(id);
        if (seed != null) {
            try {
                R r = worker.dataflow(name, scope -> {
                    dev.tributary.arrangements.Seed.install(scope, seed);
                    R built = build.apply(scope);
                    seed.checkComplete(scope);
                    return built;
                });
                restored.add(id);
                return r;
            } catch (dev.tributary.arrangements.Seed.Mismatch e) {
                if (worker.index() == 0) ServerLog.log("recovery: " + name + " is built again, not restored from the checkpoint: " + e.getMessage());
            }
        }
        return worker.dataflow(name, build);
    }

    /** Gives object {@code id}'s dataflow, when it is next created, this worker's {@code seed}. */
    void seed(long id, dev.tributary.arrangements.Seed seed) {
        seeds.put(id, seed);
        // a seed's frontier is its checkpoint's time + 1
        restoredAt = seed.from().get(0)[0] - 1;
    }

    /** Whether object {@code id}'s dataflow was restored from its seed. */
    boolean restored(long id) {
        return restored.contains(id);
    }

    /** Holds restored object {@code id}'s traces' boundary at {@code from} until {@link #endRecovery}. */
    void holdBoundary(long id, Antichain from) {
        Stored s = stored.get(id);
        Index ix = indexes.get(id);
        List<TraceHandle> own = new ArrayList<>();
        if (s != null) {
            own.add(s.oks.trace());
            if (s.errs != null) own.add(s.errs.trace());
        } else if (ix != null && !ix.shared) {
            own.add(ix.byKey.trace());
        }
        for (TraceHandle t : own) {
            if (t.isDropped()) continue;
            TraceHandle h = t.share();
            if (h.physicalCompaction().dominates(from)) h.setPhysicalCompaction(from);
            recoveryHolds.add(h);
        }
    }

    /** Stored collection {@code id}'s reads start at {@code since} (a recovered table's history starts there). */
    void historyFrom(long id, Antichain since) {
        readsFrom(stored.get(id), since);
    }

    /** Reads of {@code s} (rows and errors) start at {@code since}: before it they are refused. */
    private static void readsFrom(Stored s, Antichain since) {
        compact(s.okRead, since);
        if (s.errRead != null) compact(s.errRead, since);
    }

    /** The recovery is over: unused seeds and the boundaries' holds go. */
    void endRecovery() {
        seeds.clear();
        for (TraceHandle h : recoveryHolds) if (!h.isDropped()) h.drop();
        recoveryHolds.clear();
    }

    /** The checkpoint being taken on this worker (null: none). */
    private PendingCheckpoint checkpoint;

    /** One worker's part of a checkpoint: per object, the hold on its dataflow, and what the caller waits on. */
    private record PendingCheckpoint(Map<Long, dev.tributary.arrangements.CheckpointHold> holds, Map<Long, Set<Long>> reads,
                                     Map<Long, dev.tributary.arrangements.CheckpointHold> outputs, long deadline,
                                     java.util.concurrent.CompletableFuture<Cut> done) {}

    /** One object's dataflow on one worker as a checkpoint took it: the stored collections and indexes it reads, and its traces' seeds. */
    record Captured(Set<Long> reads, List<dev.tributary.arrangements.Seed.TraceSeed> traces) {}

    /**
     * One materialized view's output on one worker as a checkpoint took it, for its output shard:
     * the output arrangement's batches up to the checkpoint, exact after {@code exactAfter} (-1:
     * all), and where the view's history policy lets its history start.
     */
    record OutputCut(List<dev.tributary.arrangements.Batch> batches, long exactAfter, long retainFrom) {}

    /** One worker's part of a checkpoint: the dataflows taken, and the views' outputs. */
    record Cut(Map<Long, Captured> dataflows, Map<Long, OutputCut> outputs) {}

    /**
     * Starts a checkpoint at {@code at} of every dataflow that can be taken (see
     * {@link dev.tributary.arrangements.CheckpointHold}) and has not failed: each is cut once all
     * of its traces pass {@code at}, checked after every step ({@link #pollCheckpoint}); {@code done}
     * gets them all, or those ready by {@code timeoutMillis}. A checkpoint still pending is abandoned.
     */
    void beginCheckpoint(Worker worker, long at, long timeoutMillis, Map<Long, Long> appended, java.util.concurrent.CompletableFuture<Cut> done) {
        if (checkpoint != null) {
            checkpoint.holds().values().forEach(dev.tributary.arrangements.CheckpointHold::release);
            checkpoint.outputs().values().forEach(dev.tributary.arrangements.CheckpointHold::release);
            checkpoint.done().cancel(false);
        }
        Map<Long, dev.tributary.arrangements.CheckpointHold> outputs = new LinkedHashMap<>();
        for (Stored s : stored.values()) {
            if (!s.outputShard || worker.dataflowFailure(s.dataflow) != null) continue;
            // what the output shard has since taken need no longer be kept apart
            Long through = appended.get(s.id);
            if (s.outputHold != null && through != null && through > s.exactAfter && through <= at) {
                s.exactAfter = through;
                s.outputHold.setLogicalCompaction(Antichain.of(through));
            }
            var h = dev.tributary.arrangements.CheckpointHold.begin(List.of(s.oks.trace().trace()), at);
            if (h != null) outputs.put(s.id, h);
        }
        Map<Long, dev.tributary.arrangements.CheckpointHold> holds = new LinkedHashMap<>();
        Map<Long, Set<Long>> reads = new HashMap<>();
        for (Stored s : stored.values()) {
            if (worker.dataflowFailure(s.dataflow) != null) continue;
            var h = dev.tributary.arrangements.CheckpointHold.begin(s.held, at);
            if (h == null) continue;
            holds.put(s.id, h);
            reads.put(s.id, s.reads);
        }
        for (Index ix : indexes.values()) {
            if (ix.shared || worker.dataflowFailure(ix.dataflow) != null) continue;
            var h = dev.tributary.arrangements.CheckpointHold.begin(ix.held, at);
            if (h == null) continue;
            holds.put(ix.id, h);
            reads.put(ix.id, Set.of(ix.on));
        }
        checkpoint = new PendingCheckpoint(holds, reads, outputs, System.nanoTime() + timeoutMillis * 1_000_000, done);
        pollCheckpoint();
    }

    /** Cuts the pending checkpoint's traces once all are ready (or, past its deadline, those that are), and hands them over. */
    void pollCheckpoint() {
        PendingCheckpoint c = checkpoint;
        if (c == null) return;
        boolean late = System.nanoTime() - c.deadline() > 0;
        if (!late) {
            for (var h : c.holds().values()) if (!h.ready()) return;
            for (var h : c.outputs().values()) if (!h.ready()) return;
        }
        checkpoint = null;
        Map<Long, Captured> out = new LinkedHashMap<>();
        Map<Long, OutputCut> outputs = new LinkedHashMap<>();
        try {
            for (var e : c.holds().entrySet()) {
                if (!e.getValue().ready()) {
                    e.getValue().release();
                    continue;
                }
                List<dev.tributary.arrangements.Seed.TraceSeed> traces = e.getValue().take();
                if (traces != null) out.put(e.getKey(), new Captured(c.reads().get(e.getKey()), traces));
            }
            for (var e : c.outputs().entrySet()) {
                Stored s = stored.get(e.getKey());
                if (!e.getValue().ready() || s == null) {
                    e.getValue().release();
                    continue;
                }
                List<dev.tributary.arrangements.Seed.TraceSeed> traces = e.getValue().take();
                if (traces != null) {
                    long retainFrom = s.okRead.logicalCompaction().isEmpty() ? Long.MAX_VALUE : s.okRead.logicalCompaction().get(0)[0];
                    outputs.put(e.getKey(), new OutputCut(traces.get(0).batches(), s.exactAfter, retainFrom));
                }
            }
        } catch (RuntimeException e) {
            c.holds().values().forEach(dev.tributary.arrangements.CheckpointHold::release);
            c.outputs().values().forEach(dev.tributary.arrangements.CheckpointHold::release);
            c.done().completeExceptionally(e);
            return;
        }
        c.done().complete(new Cut(out, outputs));
    }

    /** Where rendered plans find stored collections and indexes: imported, shared, nothing copied. */
    private final Renderer.Sources sources = new Renderer.Sources() {
        @Override
        public Rendered get(long id, Scope scope) {
            return importInto(id, scope);
        }

        @Override
        public Rendered get(long id, Scope scope, Collection.ColumnTest rows) {
            return importInto(id, scope, rows);
        }

        @Override
        public Collection<Row> errors(long id, Scope scope) {
            return importErrors(id, scope);
        }

        @Override
        public Arrangement<Row, Row> index(long id, Scope scope) {
            Index ix = indexes.get(id);
            if (ix == null) throw new IllegalStateException("no index " + id);
            imported(ix.byKey.trace().trace(), scope);
            // through the read handle, so an index's retained history is there for an AS OF lookup
            return ix.byKey.importInto(scope, ix.read);
        }

        @Override
        public long since(long id) {
            return importedSince(id);
        }
    };

    /**
     * The time from which collection or index {@code id}, imported now, has its updates at their
     * own times (see {@link Renderer.Sources#since}): its read handle's since, which every worker
     * has moved alike, or, for one restored from a checkpoint, at least the checkpoint's time.
     * A restored trace starts with the checkpoint's batches under handles at 0, and those batches
     * were compacted up to the checkpoint's time, each worker's as far as its merges had got: one
     * worker's copy may hold an update at its commit time while another's has moved an earlier
     * one past it.
     */
    private long importedSince(long id) {
        long since = has(id) ? since(id) : 0;
        if (since == Long.MAX_VALUE) since = 0; // read by no one any more
        return restored.contains(id) ? Math.max(since, restoredAt) : since;
    }

    private Collection<Row> importErrors(long id, Scope scope) {
        Stored s = stored.get(id);
        if (s != null && s.errs != null) {
            imported(s.errs.trace().trace(), scope);
            return s.errs.importInto(scope).keys();
        }
        InputSession<Row> none = InputSession.create(scope, "no-errors", ROW);
        none.close();
        return none.collection();
    }

    /** Stored collection {@code id} imported into {@code scope}: shared, nothing copied. */
    Rendered importInto(long id, Scope scope) {
        return importInto(id, scope, null);
    }

    /** {@link #importInto(long, Scope)} of the rows that pass {@code test} (null: all). */
    private Rendered importInto(long id, Scope scope, Collection.ColumnTest test) {
        Stored s = stored.get(id);
        if (s == null) throw new IllegalStateException("no stored collection " + id);
        imported(s.oks.trace().trace(), scope);
        Collection<Row> oks = rows(s.oks, s.rowsInValues, scope, test);
        return new Rendered(oks, importErrors(id, scope));
    }

    /** The rows of a stored collection's arrangement that pass {@code test} (null: all), imported into {@code scope}. */
    @SuppressWarnings("unchecked")
    private static Collection<Row> rows(Arrangement<Row, ?> oks, boolean rowsInValues, Scope scope, Collection.ColumnTest test) {
        return rowsInValues ? ((Arrangement<Row, Row>) oks).importInto(scope).values(test) : ((Arrangement<Row, Unit>) oks).importInto(scope).keys(test);
    }

    /**
     * For each trace of a stored collection or index that other dataflows import, the indexes of
     * those dataflows now: an importing dataflow takes itself out when it is dropped.
     */
    private final Map<dev.tributary.arrangements.Trace, Set<Integer>> importers = new java.util.IdentityHashMap<>();

    /** Notes that {@code scope}'s dataflow imports {@code trace}, until it is dropped. */
    private void imported(dev.tributary.arrangements.Trace trace, Scope scope) {
        int dataflow = scope.dataflowIndex();
        Set<Integer> by = importers.computeIfAbsent(trace, t -> new java.util.TreeSet<>());
        if (!by.add(dataflow)) return;
        scope.onDrop(() -> {
            by.remove(dataflow);
            if (by.isEmpty()) importers.remove(trace);
        });
    }

    /**
     * This worker's copy of every dataflow it runs, in the order built: its graph and counts, the
     * object it maintains (-1: none) and the arrangements it built, each with the dataflows that
     * import it. Read on the worker's thread; {@link ComputeController#dataflows} adds the copies up.
     */
    List<dev.tributary.sql.catalog.Catalog.DataflowInfo> introspect(Worker worker) {
        Map<Integer, Long> objects = new HashMap<>();
        for (Stored s : stored.values()) objects.put(s.dataflow, s.id);
        for (Index ix : indexes.values()) if (!ix.shared) objects.put(ix.dataflow, ix.id);
        List<dev.tributary.sql.catalog.Catalog.DataflowInfo> out = new ArrayList<>();
        for (int d : worker.dataflowIndexes()) {
            dev.tributary.timely.DataflowGraph graph = worker.graph(d);
            HeldState held = worker.attachment(d, HeldState.class);
            List<dev.tributary.sql.catalog.Catalog.ArrangementInfo> arrangements = new ArrayList<>();
            if (held != null) {
                for (HeldState.HeldTrace h : held.heldTraces()) {
                    dev.tributary.arrangements.Trace t = h.trace();
                    boolean gone = t.isDropped();
                    arrangements.add(new dev.tributary.sql.catalog.Catalog.ArrangementInfo(h.operator(), t.name(), gone ? 0 : t.batchCount(),
                            gone ? 0 : t.updateCount(), gone ? 0 : t.heapBytes(), gone ? 0 : t.pagedBytes(), List.copyOf(importers.getOrDefault(t, Set.of()))));
                }
            }
            out.add(new dev.tributary.sql.catalog.Catalog.DataflowInfo(graph, objects.getOrDefault(d, -1L), arrangements));
        }
        return out;
    }

    /**
     * What this worker's shard of stored collection or index {@code id}'s own dataflow holds: the
     * arrangements it built (not those it imports from its inputs) and records its operators
     * keep waiting; zero for an id with no dataflow (a plain view).
     */
    List<HeldState.Part> held(long id) {
        Stored s = stored.get(id);
        if (s != null) return s.held.parts();
        Index ix = indexes.get(id);
        return ix == null || ix.shared ? List.of() : ix.held.parts();
    }

    /** Drops the dataflow of stored collection or index {@code id}. */
    void drop(Worker worker, long id) {
        Stored s = stored.remove(id);
        if (s != null) {
            if (s.input != null) s.input.close();
            if (s.outputHold != null && !s.outputHold.isDropped()) s.outputHold.drop();
            s.okRead.drop();
            if (s.errRead != null) s.errRead.drop();
            worker.dropDataflow(s.dataflow);
        }
        Index ix = indexes.remove(id);
        if (ix != null) {
            ix.read.drop();
            // a primary key's index is its table's arrangement, which goes with the table
            if (!ix.shared) worker.dropDataflow(ix.dataflow);
        }
    }

    /**
     * Why stored collection or index {@code id} cannot be read, or null: its dataflow failed (an
     * operator threw, ran out of memory), or that of something it reads, whose changes it will
     * then never see. The error names the object and the operator, and says what to do.
     */
    SqlException failure(Worker worker, long id) {
        Stored s = stored.get(id);
        Index ix = s == null ? indexes.get(id) : null;
        if (s == null && ix == null) return null;
        DataflowFailedException f = worker.dataflowFailure(s != null ? s.dataflow : ix.dataflow);
        if (f != null) return failed(s != null ? s.what : ix.what, f);
        for (long in : s != null ? s.reads : Set.of(ix.on)) {
            SqlException e = failure(worker, in);
            if (e != null) return e;
        }
        return null;
    }

    /** The first failure among {@code ids} (see {@link #failure(Worker, long)}), or null. */
    SqlException failure(Worker worker, Set<Long> ids) {
        for (long id : ids) {
            SqlException e = failure(worker, id);
            if (e != null) return e;
        }
        return null;
    }

    /** Why dataflow {@code dataflow} ({@code what}), which reads {@code reads}, will produce nothing more, or null. */
    SqlException failure(Worker worker, int dataflow, String what, Set<Long> reads) {
        DataflowFailedException f = worker.dataflowFailure(dataflow);
        return f != null ? failed(what, f) : failure(worker, reads);
    }

    /** XX000 for {@code what} whose dataflow stopped with {@code f}. */
    static SqlException failed(String what, DataflowFailedException f) {
        Throwable cause = f.getCause() instanceof OperatorFailedException o ? o : f;
        for (Throwable c = f; c != null; c = c.getCause()) {
            if (c instanceof dev.tributary.arrangements.MemoryLimitExceededException m) {
                return new SqlException("53200", what + " failed: " + m.getMessage(), 0,
                        "Narrow it (a WHERE, an aggregate, a join on a key), or allow more: SET max_dataflow_memory = '8GB' before creating it "
                                + "(0: no limit; the server's heap is " + dev.tributary.sql.catalog.Settings.showBytes(Runtime.getRuntime().maxMemory() >> 20 << 20) + ").");
            }
            if (c instanceof OutOfMemoryError) {
                return new SqlException("53200", "out of memory: " + what + " failed: " + cause.getMessage(), 0,
                        "It needed more memory than the server's heap had free. Narrow it, drop what it is built on if that is no longer needed, "
                                + "or give the server a larger heap (TRIBUTARY_JAVA_OPTS=-Xmx...).");
            }
        }
        return new SqlException("XX000", what + " failed: " + cause.getMessage(), 0,
                "The server log has the stack trace. Drop it (and what is built on it) and create it again once the cause is removed.");
    }

    /**
     * Steps until {@code probe} has passed {@code t}; throws what {@code stop} gives (a cancel, a
     * statement timeout) once it gives one, and the failure of the dataflow being waited for
     * ({@code what}) or of anything in {@code reads}, which would otherwise make the wait endless.
     */
    private void await(Worker worker, Probe probe, long t, String what, Set<Long> reads, java.util.function.Supplier<SqlException> stop) {
        try {
            worker.stepWhile(() -> {
                SqlException e = failure(worker, reads);
                if (e == null && probe.lessEqual(t)) e = stop.get();
                if (e != null) throw e;
                return probe.lessEqual(t);
            });
        } catch (DataflowFailedException f) {
            throw failed(what, f);
        }
    }

    /**
     * How many bytes of rows one read may collect ({@code max_result_size}), shared by its parts
     * on every worker: a runaway query fails with 53200 instead of filling the heap. A row counts
     * its encoded length once per copy. {@code memory}: what the dataflow the read builds may hold
     * ({@code max_dataflow_memory}; null: no limit).
     */
    public static final class ResultBudget {
        static final ResultBudget UNLIMITED = new ResultBudget(Long.MAX_VALUE, null);

        private final long limit;
        final DataflowMemory memory;
        private final java.util.concurrent.atomic.AtomicLong used = new java.util.concurrent.atomic.AtomicLong();

        /** A budget of {@code limit} bytes of rows ({@code Long.MAX_VALUE}: none) for a read whose dataflow may hold {@code memory} (null: no limit). */
        public ResultBudget(long limit, DataflowMemory memory) {
            this.limit = limit;
            this.memory = memory;
        }

        /** Counts {@code copies} more copies of {@code row}; false once the budget is spent. */
        boolean take(Row row, long copies) {
            if (limit == Long.MAX_VALUE) return true;
            long bytes = Math.max(1, row.byteLength());
            long add = copies > limit / bytes ? limit + 1 : copies * bytes;
            return used.addAndGet(add) <= limit && used.get() >= 0;
        }

        /** Counts every row of {@code rows}; false once the budget is spent. */
        public boolean takeAll(Map<Row, Long> rows) {
            for (Map.Entry<Row, Long> e : rows.entrySet()) if (e.getValue() > 0 && !take(e.getKey(), e.getValue())) return false;
            return true;
        }

        /** Counts {@code rows} (decoded, of {@code types}) by their encoded length; false once the budget is spent. */
        public boolean takeRows(List<Object[]> rows, List<dev.tributary.sql.types.SqlType> types) {
            if (limit == Long.MAX_VALUE || rows.isEmpty()) return true;
            RowCodec codec = new RowCodec(types);
            for (Object[] r : rows) if (!take(codec.encode(r.length == types.size() ? r : java.util.Arrays.copyOf(r, types.size())), 1)) return false;
            return true;
        }

        /** 53200 if the rows counted are more than the budget, else null. */
        public SqlException exceeded() {
            long u = used.get();
            if (u <= limit && u >= 0) return null;
            return new SqlException("53200", "result exceeds max_result_size (" + dev.tributary.sql.catalog.Settings.showBytes(limit) + ")", 0,
                    "Narrow the query (a WHERE, a LIMIT, an aggregate), or allow more: SET max_result_size = '4GB'.");
        }
    }

    /** A worker's part of an answer: its shard of the rows, and of the errors, each with counts. */
    public record Answer(Map<Row, Long> oks, Map<Row, Long> errs) {
        /** The whole answer from every worker's part; the first error (in row order) if there is any. */
        public static Map<Row, Long> combine(List<Answer> parts) {
            Map<Row, Long> oks = new LinkedHashMap<>();
            Map<Row, Long> errs = new HashMap<>();
            for (Answer a : parts) {
                a.oks.forEach((r, n) -> oks.merge(r, n, Long::sum));
                a.errs.forEach((r, n) -> errs.merge(r, n, Long::sum));
            }
            errs.values().removeIf(n -> n == 0);
            if (!errs.isEmpty()) throw firstError(errs.keySet());
            oks.values().removeIf(n -> n == 0);
            return oks;
        }
    }

    /**
     * A worker's part of a scan ({@link #scan}): the rows it found after the scan's
     * map-filter-project, each with its count, in the order of its arrangement; the stored
     * collection's own errors; the least error a row met in the steps; and whether the rows
     * outgrew the read's budget (then collecting stopped).
     */
    public static final class ScanPart {
        private final List<Row> rows = new ArrayList<>();
        private long[] counts = new long[16];
        final Map<Row, Long> storedErrors;
        private Row leastError;
        private SqlException error;
        private boolean exceeded;
        /** Whether the part was larger than the scan would read (see {@link Dataflows#scan(Worker, long, MapFilterProject, long, ResultBudget, long)}). */
        private boolean skipped;

        /** Whether the part was larger than the scan's {@code maxUpdates}, and so was not read. */
        public boolean skipped() {
            return skipped;
        }

        /**
         * The most distinct rows a consolidated part collects (more: {@linkplain #exceeded
         * exceeded}): its reader aggregates them on one thread, decoded, which past a few
         * thousand rows takes longer than a dataflow over the arrangement takes on every worker
         * (100k distinct rows of (text, numeric): 118 ms against 44).
         */
        public static final int CONSOLIDATED_ROWS = 8192;
        /** The rows found, each once with its summed count, for a part read {@linkplain #scan consolidated}; null otherwise. */
        private final Map<Row, Long> consolidated;

        ScanPart(Map<Row, Long> storedErrors, boolean consolidate) {
            this.storedErrors = storedErrors;
            this.consolidated = consolidate ? new HashMap<>() : null;
        }

        private void add(MapFilterProject mfp, Row row, long count, ResultBudget budget) {
            if (exceeded) return;
            Row out;
            try {
                if (count < 0) throw new SqlException("XX000", "a stored collection holds a row a negative number of times; this is a bug");
                out = mfp.apply(row);
            } catch (SqlException e) {
                failed(e);
                return;
            } catch (RuntimeException e) {
                // the reader gets XX000 with the exception's name; the bug's stack trace is kept here (once a read, not once a row)
                if (error == null) ServerLog.error("internal error while reading a stored row: " + e, e);
                failed(Errors.internal(e));
                return;
            }
            if (out == null || error != null) return;
            if (consolidated != null) {
                Long before = consolidated.get(out);
                if (before != null) consolidated.put(out, before + count);
                else if (consolidated.size() < CONSOLIDATED_ROWS && budget.take(out, 1)) consolidated.put(out, count);
                else exceeded = true;
                return;
            }
            if (!budget.take(out, count)) {
                exceeded = true;
                return;
            }
            if (rows.size() == counts.length) counts = java.util.Arrays.copyOf(counts, counts.length * 2);
            counts[rows.size()] = count;
            rows.add(out);
        }

        /** Keeps the least error (in the order of error rows, as a dataflow reports the first). */
        private void failed(SqlException e) {
            Row r = Errors.encode(e);
            if (leastError == null || r.compareTo(leastError) < 0) {
                leastError = r;
                error = e;
            }
        }

        /** Throws the stored collection's first error if any part has one, else the least error a row met, else 53200 if the rows outgrew {@code budget}. */
        static void throwFailure(List<ScanPart> parts, ResultBudget budget) {
            Map<Row, Long> stored = new HashMap<>();
            for (ScanPart p : parts) p.storedErrors.forEach((r, n) -> stored.merge(r, n, Long::sum));
            stored.values().removeIf(n -> n == 0);
            if (!stored.isEmpty()) throw firstError(stored.keySet());
            ScanPart failed = null;
            for (ScanPart p : parts) {
                if (p.error != null && (failed == null || p.leastError.compareTo(failed.leastError) < 0)) failed = p;
            }
            if (failed != null) throw failed.error;
            for (ScanPart p : parts) if (p.exceeded) throw budget.exceeded();
        }

        /**
         * The rows of every worker's part, decoded with {@code codec}, each repeated by its
         * count, in worker order; throws the stored collection's first error if it has any, else
         * the least error a row met, else 53200 if the rows outgrew {@code budget}.
         */
        public static List<Object[]> combine(List<ScanPart> parts, RowCodec codec, ResultBudget budget) {
            throwFailure(parts, budget);
            List<Object[]> out = new ArrayList<>();
            for (ScanPart p : parts) {
                for (int i = 0; i < p.rows.size(); i++) {
                    Object[] values = codec.decode(p.rows.get(i));
                    for (long c = 0; c < p.counts[i]; c++) out.add(values);
                }
            }
            return out;
        }
    }

    /**
     * The distinct rows of every worker's {@linkplain #scan consolidated} part, decoded with
     * {@code codec}, in {@code rows}, and their counts summed over the workers in {@code counts};
     * fails as {@link ScanPart#combine} does.
     */
    public record Counted(List<Object[]> rows, long[] counts) {
        /** The counted rows of {@code parts}, decoded with {@code codec}; fails as {@link ScanPart#combine} does. */
        public static Counted combine(List<ScanPart> parts, RowCodec codec, ResultBudget budget) {
            ScanPart.throwFailure(parts, budget);
            Map<Row, Long> all = new LinkedHashMap<>();
            for (ScanPart p : parts) p.consolidated.forEach((r, n) -> all.merge(r, n, Long::sum));
            all.values().removeIf(n -> n == 0);
            List<Object[]> rows = new ArrayList<>(all.size());
            long[] counts = new long[all.size()];
            for (Map.Entry<Row, Long> e : all.entrySet()) {
                if (e.getValue() < 0) throw new SqlException("XX000", "a stored collection holds a row a negative number of times; this is a bug");
                counts[rows.size()] = e.getValue();
                rows.add(codec.decode(e.getKey()));
            }
            return new Counted(rows, counts);
        }
    }

    /**
     * This worker's part of stored collection {@code id} at {@code t} with {@code mfp} applied to
     * every row as it is read from the arrangement: a query that filters, maps or projects one
     * collection sends the workers' matching rows to the coordinator, not the collection. Rows
     * are collected until they outgrow {@code budget}.
     */
    public ScanPart scan(Worker worker, long id, MapFilterProject mfp, long t, ResultBudget budget) {
        return scan(worker, id, mfp, t, budget, Long.MAX_VALUE, false);
    }

    /**
     * {@link #scan(Worker, long, MapFilterProject, long, ResultBudget)} of a part of at most
     * {@code maxUpdates} updates: a larger one is not read, and the part says it was
     * {@linkplain ScanPart#skipped skipped} (a read that may do without a scan, but not with a
     * long one, which holds its worker for one step). With {@code consolidate}, equal rows after
     * {@code mfp} are kept once with their counts added (read with {@link Counted#combine}): an
     * aggregate's input projected to its few columns repeats, and what reaches the coordinator
     * is then what it aggregates, not every row.
     */
    public ScanPart scan(Worker worker, long id, MapFilterProject mfp, long t, ResultBudget budget, long maxUpdates, boolean consolidate) {
        Stored s = stored.get(id);
        await(worker, s.probe, t, s.what, Set.of(id), () -> null);
        ScanPart out = new ScanPart(errorsAt(s.errRead, t), consolidate);
        if (!out.storedErrors.isEmpty()) return out; // the read reports them, whatever the rows
        if (maxUpdates < Long.MAX_VALUE) {
            long updates = 0;
            for (dev.tributary.arrangements.Batch b : s.okRead.batches()) updates += b.updateCount();
            if (updates > maxUpdates) {
                out.skipped = true;
                return out;
            }
        }
        boolean inValues = s.rowsInValues;
        s.okRead.readAt(new long[] {t}, (keys, k, vals, v, count) -> out.add(mfp, inValues ? ROW.get(vals, v) : ROW.get(keys, k), count, budget));
        return out;
    }

    /**
     * This worker's part of the rows of {@code plan} at time {@code t} (with their multiplicities,
     * in no order) and of the errors met computing them. A plan that only reads a stored collection
     * is read from its arrangement; any other runs in a transient dataflow over the stored
     * arrangements, which is dropped afterwards. {@link Answer#combine} makes the whole answer.
     */
    public Answer read(Worker worker, Plan plan, long t) {
        return read(worker, plan, t, Map.of(), () -> null);
    }

    /**
     * As {@link #read(Worker, Plan, long)}, with {@code overlay}'s changes (table id to row to
     * signed count) added to those tables: what a transaction block sees before it commits.
     */
    public Answer read(Worker worker, Plan plan, long t, Map<Long, Map<Row, Long>> overlay, java.util.function.Supplier<SqlException> stop) {
        return read(worker, plan, t, overlay, stop, ResultBudget.UNLIMITED);
    }

    /** As {@link #read(Worker, Plan, long, Map, java.util.function.Supplier)}, collecting at most {@code budget}'s bytes of rows (53200 past it). */
    public Answer read(Worker worker, Plan plan, long t, Map<Long, Map<Row, Long>> overlay, java.util.function.Supplier<SqlException> stop, ResultBudget budget) {
        if (plan instanceof Plan.Get g && !overlay.containsKey(g.id())) {
            Stored s = stored.get(g.id());
            await(worker, s.probe, t, s.what, Set.of(g.id()), stop);
            return new Answer(readTrace(s.okRead, t, s.rowsInValues), errorsAt(s.errRead, t));
        }
        PendingRead r = startRead(worker, plan, t, overlay, stop, budget);
        worker.stepWhile(() -> {
            completeReads(worker);
            return !r.result.isDone();
        });
        return r.answer();
    }

    /**
     * A read whose transient dataflow runs with everything else the worker steps, until its
     * probe passes {@code t}: then {@link #completeReads} completes {@link #result} with this
     * worker's part of the answer (or with why it cannot be had) and drops the dataflow.
     */
    public static final class PendingRead {
        /** This worker's part of the answer, once its dataflow has passed the read's time; exceptionally with why it cannot be had. */
        public final java.util.concurrent.CompletableFuture<Answer> result = new java.util.concurrent.CompletableFuture<>();
        final int dataflow;
        final Probe probe;
        final long t;
        final Set<Long> reads;
        final java.util.function.Supplier<SqlException> stop;
        final Map<Row, Long> oks;
        final Map<Row, Long> errs;

        /** The answer, once {@link #result} is done; the exception it completed with, if any, thrown as it is. */
        public Answer answer() {
            try {
                return result.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException x) throw x;
                if (e.getCause() instanceof Error x) throw x;
                throw e;
            }
        }

        final ResultBudget budget;
        /** For EXPLAIN ANALYZE (else null): the plan nodes' operators, and this worker's copy of the dataflow as it finished. */
        List<Renderer.RenderedNode> nodes;
        dev.tributary.timely.DataflowGraph graph;

        /** The operators each plan node was rendered as (null unless analyzed); the same on every worker. */
        public List<Renderer.RenderedNode> nodes() {
            return nodes;
        }

        /** What this worker's copy of the dataflow did, taken as it finished (null unless analyzed); read once {@link #result} is done. */
        public dev.tributary.timely.DataflowGraph graph() {
            return graph;
        }

        PendingRead(int dataflow, Probe probe, long t, Set<Long> reads, java.util.function.Supplier<SqlException> stop, Map<Row, Long> oks, Map<Row, Long> errs,
                    ResultBudget budget) {
            this.budget = budget;
            this.dataflow = dataflow;
            this.probe = probe;
            this.t = t;
            this.reads = reads;
            this.stop = stop;
            this.oks = oks;
            this.errs = errs;
        }
    }

    private final List<PendingRead> pendingReads = new ArrayList<>();

    /**
     * Builds the transient dataflow of {@code plan} read at {@code t} (with {@code overlay}'s
     * uncommitted changes) and returns at once: the worker goes on with its commands and steps
     * while it computes, and {@link #completeReads}, called after each step, completes it. So a
     * large query takes its share of the workers' steps, not the workers (nor the coordinator)
     * for as long as it runs. A stop ({@code stop}: a cancel, a timeout) or a failure completes it
     * exceptionally.
     */
    public PendingRead startRead(Worker worker, Plan plan, long t, Map<Long, Map<Row, Long>> overlay, java.util.function.Supplier<SqlException> stop,
                                 ResultBudget budget) {
        return startRead(worker, plan, t, overlay, stop, budget, false);
    }

    /**
     * {@link #startRead(Worker, Plan, long, Map, java.util.function.Supplier, ResultBudget)}; with
     * {@code analyze}, the read also keeps which operators each plan node was rendered as and,
     * when it completes, what its operators did ({@link PendingRead#graph}): EXPLAIN ANALYZE.
     */
    public PendingRead startRead(Worker worker, Plan plan, long t, Map<Long, Map<Row, Long>> overlay, java.util.function.Supplier<SqlException> stop,
                                 ResultBudget budget, boolean analyze) {
        Map<Row, Long> oks = new LinkedHashMap<>();
        Map<Row, Long> errs = new HashMap<>();
        Renderer[] renderer = new Renderer[1];
        int[] index = new int[1];
        List<InputSession<Row>> overlays = new ArrayList<>();
        Renderer.Sources withOverlay = (id, scope) -> {
            Rendered base = importInto(id, scope);
            Map<Row, Long> extra = overlay.get(id);
            if (extra == null || extra.isEmpty()) return base;
            InputSession<Row> in = InputSession.create(scope, "uncommitted", ROW);
            if (scope.worker() == 0) {
                for (Map.Entry<Row, Long> e : extra.entrySet()) in.update(e.getKey(), e.getValue());
            }
            overlays.add(in);
            return new Rendered(base.oks().concat(in.collection()), base.errs());
        };
        Probe probe = worker.dataflow("select", scope -> {
            index[0] = scope.dataflowIndex();
            if (budget.memory != null) HeldState.of(scope).limit(budget.memory);
            renderer[0] = new Renderer(scope, overlay.isEmpty() ? sources : withOverlay);
            Rendered r = renderer[0].render(plan);
            Collection<Row> o = r.oks().inspect((row, time, diff) -> {
                // past the budget nothing more is kept: the read fails with 53200 (completeReads)
                if (time[0] <= t && (diff < 0 || budget.take(row, diff))) oks.merge(row, diff, Long::sum);
            });
            Collection<Row> e = r.errs().inspect((row, time, diff) -> {
                if (time[0] <= t) errs.merge(row, diff, Long::sum);
            });
            return o.concat(e).probe();
        });
        renderer[0].sealConstants();
        for (InputSession<Row> in : overlays) in.close();
        PendingRead read = new PendingRead(index[0], probe, t, Plans.reads(plan), stop, oks, errs, budget);
        if (analyze) read.nodes = renderer[0].nodes();
        pendingReads.add(read);
        return read;
    }

    /**
     * A new materialized view's or index's hydration on one worker: {@link #done} completes once
     * its dataflow has passed {@link #t} (it has read and computed everything that existed when it
     * was created), or the object is
     * gone; exceptionally with what {@link #stop} gives (a cancel, a timeout) or with its dataflow's failure. {@link #progress}
     * is read from the session's thread while the worker computes.
     */
    public static final class PendingHydration {
        /** Done once the build has passed its time or the object is gone; exceptionally with a stop or a failure. */
        public final java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        final long id;
        final long t;
        final java.util.function.Supplier<SqlException> stop;
        /** How far the build has come, read on any thread. */
        public final dev.tributary.arrangements.Hydration progress;
        final Probe probe;
        final String what;

        PendingHydration(long id, long t, java.util.function.Supplier<SqlException> stop, dev.tributary.arrangements.Hydration progress, Probe probe,
                         String what) {
            this.id = id;
            this.what = what;
            this.t = t;
            this.stop = stop;
            this.progress = progress;
            this.probe = probe;
        }
    }

    private final List<PendingHydration> pendingHydrations = new ArrayList<>();

    /** Watches the hydration of materialized view or index {@code id} (just created) through time {@code t}; see {@link PendingHydration}. */
    PendingHydration watchHydration(long id, long t, java.util.function.Supplier<SqlException> stop) {
        Stored s = stored.get(id);
        Index ix = s == null ? indexes.get(id) : null;
        if (s == null && ix == null) throw new IllegalStateException("no materialized view or index " + id);
        PendingHydration h = new PendingHydration(id, t, stop, s != null ? s.hydration : ix.hydration, s != null ? s.probe : ix.probe,
                s != null ? s.what : ix.what);
        pendingHydrations.add(h);
        return h;
    }

    /** Completes the hydrations that have ended (see {@link PendingHydration}). Called by the worker after every step. */
    private void completeHydrations(Worker worker) {
        for (int i = 0; i < pendingHydrations.size(); i++) {
            PendingHydration h = pendingHydrations.get(i);
            boolean ended;
            SqlException failed = null;
            if (!stored.containsKey(h.id) && !indexes.containsKey(h.id)) {
                ended = true;
            } else {
                failed = failure(worker, h.id);
                try {
                    ended = failed != null || !h.probe.lessEqual(h.t);
                } catch (DataflowFailedException f) {
                    failed = failed(h.what, f);
                    ended = true;
                }
            }
            // a build that fails fails its CREATE, which then drops what it made
            SqlException stop = ended ? failed : h.stop.get();
            if (!ended && stop == null) continue;
            pendingHydrations.remove(i--);
            h.progress.finish();
            if (stop != null) h.done.completeExceptionally(stop);
            else h.done.complete(null);
        }
    }

    /**
     * Completes the pending reads whose dataflow has passed their time, or that must stop (a
     * cancel, a timeout: every worker sees the same stop, so each drops its part) or cannot go on
     * (a failure), and drops their dataflows. Called by the worker after every step.
     */
    void completeReads(Worker worker) {
        if (!pendingHydrations.isEmpty()) completeHydrations(worker);
        for (int i = 0; i < pendingReads.size(); i++) {
            PendingRead r = pendingReads.get(i);
            SqlException e;
            boolean passed;
            try {
                e = failure(worker, r.reads);
                passed = e == null && !r.probe.lessEqual(r.t);
            } catch (DataflowFailedException f) {
                e = failed("the query", f);
                passed = false;
            }
            if (e == null) e = r.budget.exceeded();
            if (e == null && !passed) e = r.stop.get();
            if (e == null && !passed) continue;
            pendingReads.remove(i--);
            if (r.nodes != null) r.graph = worker.graph(r.dataflow);
            worker.dropDataflow(r.dataflow);
            if (e != null) r.result.completeExceptionally(e);
            else r.result.complete(new Answer(r.oks, r.errs));
        }
    }

    /**
     * A dataflow that maintains {@code plan} and streams its changes to {@code sink} on worker 0,
     * as {@link ChangeStream} promises for {@code options}; error rows end the stream with the first
     * error ({@link #firstError}). Returns the dataflow's index, to drop it.
     */
    int subscribe(Worker worker, Plan plan, ChangeStream.Options options, ChangeStream.Sink<Row, Row> sink, DataflowMemory memory) {
        Renderer[] renderer = new Renderer[1];
        HeldState[] held = new HeldState[1];
        int index = worker.dataflow("subscribe", scope -> {
            held[0] = HeldState.of(scope);
            if (memory != null) held[0].limit(memory);
            renderer[0] = new Renderer(scope, sources);
            Rendered r = renderer[0].render(plan);
            ChangeStream.subscribe(r.oks(), r.errs(), options, sink);
            return scope.dataflowIndex();
        });
        renderer[0].sealConstants();
        subscriptions.put(index, new SubscriptionState(held[0], renderer[0].streams()));
        return index;
    }

    /** What a subscription's dataflow holds on this worker, and its streams' counts. */
    private record SubscriptionState(HeldState held, List<dev.tributary.differential.EventTime.Stats> streams) {}

    private final Map<Integer, SubscriptionState> subscriptions = new HashMap<>();

    /**
     * Subscription dataflow {@code index} on this worker: the records its arrangements hold, the
     * rows its streams dropped as late, their least watermark (-1 without streams) and whether its
     * traces have settled (1) or still merge (0); null once it is dropped.
     */
    long[] subscriptionStatus(int index) {
        SubscriptionState s = subscriptions.get(index);
        if (s == null) return null;
        long late = 0;
        long watermark = s.streams().isEmpty() ? -1 : Long.MAX_VALUE;
        for (var stream : s.streams()) {
            late += stream.lateRows();
            watermark = Math.min(watermark, stream.watermark());
        }
        return new long[] {s.held().total().records(), late, watermark, s.held().settled() ? 1 : 0};
    }

    /** Forgets subscription dataflow {@code index}, which is being dropped. */
    void subscriptionDropped(int index) {
        subscriptions.remove(index);
    }

    /**
     * Publishes this worker's shard of every index whose contents, upper or since changed since
     * it last did, for readers on other threads. Called by the worker after each step.
     */
    void publish(PublishedIndexes into, Worker worker) {
        if (worker.failures() != failuresPublished) {
            // an index over a failed dataflow will never catch up: its readers are told so, and
            // take the ordinary path, which reports the failure
            failuresPublished = worker.failures();
            for (Index ix : indexes.values()) if (failure(worker, ix.id) != null) into.fail(ix.id);
        }
        for (Index ix : indexes.values()) {
            Stored s = stored.get(ix.on);
            TraceSnapshot rows = ix.read.snapshot();
            TraceSnapshot errors = s == null || s.errRead == null ? null : s.errRead.snapshot();
            PublishedIndexes.Shard last = ix.published;
            if (last != null && last.rows() == rows && last.errors() == errors) continue;
            ix.published = new PublishedIndexes.Shard(rows, errors);
            into.publish(ix.id, worker.index(), ix.published);
        }
    }

    /** {@link Worker#failures()} when {@link #publish} last looked for failed indexes. */
    private int failuresPublished;

    /**
     * The rows of index shards {@code shards} under {@code key} at time {@code t}, with their
     * counts; null when some shard holds errors at {@code t} (the caller then asks the workers,
     * which report the error). Runs on any thread: it reads only the immutable snapshots.
     */
    public static Map<Row, Long> lookup(PublishedIndexes.Shard[] shards, Row key, long t) {
        long[] at = {t};
        for (PublishedIndexes.Shard shard : shards) {
            if (shard.errors() != null && anyAt(shard.errors(), at)) return null;
        }
        // an index is exchanged by its key's hash (Row.hash is the column's): only one worker's shard can hold the key
        PublishedIndexes.Shard holder = shards[new dev.tributary.timely.Router(shards.length).route(key.hash())];
        Map<Row, Long> out = new LinkedHashMap<>();
        seek(holder.rows().cursor(), probe(key), at, out);
        return out;
    }

    /** {@code key} as a one-entry column, to seek an index's cursor with. */
    private static BytesColumn probe(Row key) {
        byte[] bytes = key.toBytes();
        BytesColumn c = new BytesColumn(1, bytes.length);
        c.add(bytes);
        return c;
    }

    /** Adds to {@code out} the values under key {@code probeKey} in {@code c} with their counts at {@code at}, if not zero. */
    private static void seek(dev.tributary.arrangements.Cursor c, BytesColumn probeKey, long[] at, Map<Row, Long> out) {
        c.seekKey(probeKey, 0);
        if (!c.keyValid() || !c.keyColumn().equal(c.keyIndex(), probeKey, 0)) return;
        while (c.valValid()) {
            long n = c.accumulate(at);
            if (n != 0) out.merge(ROW.get(c.valColumn(), c.valIndex()), n, Long::sum);
            c.stepVal();
        }
    }

    /** Whether {@code trace} holds anything at time {@code at}. */
    private static boolean anyAt(TraceSnapshot trace, long[] at) {
        var c = trace.cursor();
        while (c.keyValid()) {
            while (c.valValid()) {
                if (c.accumulate(at) != 0) return true;
                c.stepVal();
            }
            c.stepKey();
        }
        return false;
    }

    /** Rows of index {@code id} whose key is one of {@code keys} (distinct), at {@code t} (this worker's shard). */
    public Answer lookup(Worker worker, long id, List<Row> keys, long t) {
        Index ix = indexes.get(id);
        await(worker, ix.probe, t, ix.what, Set.of(id), () -> null);
        Stored s = stored.get(ix.on);
        Map<Row, Long> errs = s == null ? Map.of() : errorsAt(s.errRead, t);
        Map<Row, Long> out = new LinkedHashMap<>();
        long[] at = {t};
        seekOwnKeys(worker, ix, keys, c -> {
            while (c.valValid()) {
                long n = c.accumulate(at);
                if (n != 0) out.merge(ROW.get(c.valColumn(), c.valIndex()), n, Long::sum);
                c.stepVal();
            }
        });
        return new Answer(out, errs);
    }

    /**
     * Seeks, in key order, each of {@code keys} (no repeats) that this worker's shard of index
     * {@code ix} can hold (the index is exchanged by its key's hash, which Row.hash computes as
     * the column does), with the cursor prepared for all of them: many keys cost a seek each, not
     * a search from the start each. {@code atKey} is given the cursor at each key held, at its
     * first value.
     */
    private static void seekOwnKeys(Worker worker, Index ix, java.util.Collection<Row> keys, java.util.function.Consumer<dev.tributary.arrangements.Cursor> atKey) {
        dev.tributary.timely.Router router = new dev.tributary.timely.Router(worker.peers());
        List<Row> sorted = new ArrayList<>(keys.size() / Math.max(1, worker.peers()) + 16);
        for (Row k : keys) if (router.route(k.hash()) == worker.index()) sorted.add(k);
        sorted.sort(null);
        int bytes = 0;
        for (Row k : sorted) bytes += k.byteLength();
        BytesColumn column = new BytesColumn(sorted.size(), Math.max(16, bytes));
        for (Row k : sorted) column.add(k.toBytes());
        dev.tributary.arrangements.Cursor c = ix.read.cursor();
        c.prepareSeeks(column);
        for (int i = 0; i < column.size(); i++) {
            if (c.seekKeyExact(column, i)) atKey.accept(c);
        }
    }

    /**
     * For each of {@code keys} (any order, no repeats), how many rows of this worker's shard of
     * index {@code id} have it at {@code t}, where any do: the rows a primary key check counts.
     * The keys are sought in order, prepared together, so a COPY's million keys cost a million
     * seeks, not a scan per key.
     */
    /**
     * A key that index {@code id} holds more than one row under at time {@code t} in this
     * worker's shard, or null if none does; keys {@code ignored} accepts (those with a NULL)
     * are passed over. The index is exchanged by key, so a repeated key is in one shard.
     */
    public Row repeatedKey(Worker worker, long id, long t, java.util.function.Predicate<Row> ignored) {
        Index ix = indexes.get(id);
        await(worker, ix.probe, t, ix.what, Set.of(id), () -> null);
        dev.tributary.arrangements.Cursor c = ix.read.cursor();
        long[] at = {t};
        while (c.keyValid()) {
            long n = 0;
            while (c.valValid() && n < 2) {
                n += c.accumulate(at);
                c.stepVal();
            }
            if (n > 1) {
                Row key = ROW.get(c.keyColumn(), c.keyIndex());
                if (!ignored.test(key)) return key;
            }
            c.stepKey();
        }
        return null;
    }

    public Map<Row, Long> keyCounts(Worker worker, long id, java.util.Collection<Row> keys, long t) {
        Index ix = indexes.get(id);
        await(worker, ix.probe, t, ix.what, Set.of(id), () -> null);
        long held = ix.read.trace().updateCount();
        if (held == 0) return Map.of(); // a load into an empty table: nothing to find
        if (held < keys.size()) {
            // fewer rows here than keys to check: reading them all costs less than sorting the keys
            java.util.Set<Row> wanted = keys instanceof java.util.Set<Row> set ? set : new java.util.HashSet<>(keys);
            Map<Row, Long> out = new HashMap<>();
            ix.read.readAt(new long[] {t}, (ks, k, vals, v, count) -> {
                Row key = ROW.get(ks, k);
                if (wanted.contains(key)) out.merge(key, count, Long::sum);
            });
            out.values().removeIf(n -> n == 0);
            return out;
        }
        // each worker sorts and seeks its share of the keys
        long[] at = {t};
        Map<Row, Long> out = new HashMap<>();
        seekOwnKeys(worker, ix, keys, c -> {
            Row key = ROW.get(c.keyColumn(), c.keyIndex());
            long n = 0;
            while (c.valValid()) {
                n += c.accumulate(at);
                c.stepVal();
            }
            if (n != 0) out.put(key, n);
        });
        return out;
    }

    private static Map<Row, Long> errorsAt(TraceHandle errRead, long t) {
        return errRead == null ? Map.of() : readTrace(errRead, t);
    }

    /** The error a set of error rows stands for: the first in their order. */
    public static SqlException firstError(java.util.Set<Row> errs) {
        Row first = null;
        for (Row r : errs) if (first == null || r.compareTo(first) < 0) first = r;
        return Errors.decode(first);
    }

    private static Map<Row, Long> readTrace(TraceHandle h, long t) {
        return readTrace(h, t, false);
    }

    /** The rows of {@code h} at {@code t} with their counts: its keys, or with {@code rowsInValues} its values. */
    private static Map<Row, Long> readTrace(TraceHandle h, long t, boolean rowsInValues) {
        Map<Row, Long> out = new LinkedHashMap<>();
        h.readAt(new long[] {t}, (keys, k, vals, v, count) -> out.merge(rowsInValues ? ROW.get(vals, v) : ROW.get(keys, k), count, Long::sum));
        return out;
    }

    /**
     * Lets the stored arrangements forget history before {@code t} (reads never go back past it),
     * except that an object in {@code holds} keeps its history from the time given there on.
     */
    void compactTo(long t, Map<Long, Long> holds) {
        for (Stored s : stored.values()) {
            Antichain f = Antichain.of(Math.min(t, holds.getOrDefault(s.id, t)));
            compact(s.okRead, f);
            if (s.errRead != null) compactWithin(s.errRead, f);
        }
        for (Index ix : indexes.values()) compactWithin(ix.read, Antichain.of(Math.min(t, holds.getOrDefault(ix.id, t))));
    }

    /** The earliest time stored collection or index {@code id} can still be read at exactly. */
    /** The time stored collection or index {@code id} is complete up to on this worker (its arrangement's upper), for tests. */
    /** Whether stored collection or index {@code id} has a dataflow here. */
    boolean has(long id) {
        return stored.containsKey(id) || indexes.containsKey(id);
    }

    long upper(long id) {
        Stored s = stored.get(id);
        Antichain f = (s != null ? s.okRead : indexes.get(id).read).upper();
        return f.isEmpty() ? Long.MAX_VALUE : f.get(0)[0];
    }

    long since(long id) {
        Stored s = stored.get(id);
        TraceHandle h = s != null ? s.okRead : indexes.get(id).read;
        Antichain f = h.logicalCompaction();
        return f.isEmpty() ? Long.MAX_VALUE : f.get(0)[0];
    }

    private static void compact(TraceHandle h, Antichain f) {
        if (h.logicalCompaction().dominates(f) && !h.logicalCompaction().equals(f)) h.setLogicalCompaction(f);
    }

    /**
     * {@link #compact}, but never past what the trace holds (its upper minus one), for the traces
     * point reads read off the workers (indexes, and the errors of what they index): such a read
     * takes a published snapshot at a time both complete and not before its since, and a since
     * ahead of the index's upper would send every such read to the workers until the index caught
     * up (at each tick, once a second). The history kept meanwhile is at most one compaction's.
     */
    private static void compactWithin(TraceHandle h, Antichain f) {
        Antichain upper = h.upper();
        if (!upper.isEmpty() && !f.isEmpty() && f.get(0)[0] >= upper.get(0)[0]) f = Antichain.of(upper.get(0)[0] - 1);
        compact(h, f);
    }
}
