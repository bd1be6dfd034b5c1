package dev.tributary.server.compute;

import dev.tributary.arrangements.HeldState;
import dev.tributary.changeslog.ChangeStream;
import dev.tributary.server.ArrangementSize;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.types.SqlType;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The dataflows of one database: the {@link Engine}'s workers, each worker's {@link Dataflows},
 * and the {@link PublishedIndexes} they publish for point reads. The coordinator decides what to
 * compute and at which times; this runs it.
 *
 * <p>Every worker gets the same commands in the same order, so all build the same dataflows in
 * the same order (timely's rule) and each answers for its shard. What one method does on a
 * worker happens in one command: a CREATE's advance of its inputs and its build, a read's
 * advance, read and compaction, are never interleaved with another command.
 *
 * <p>Every method waits until all workers have run its command, except {@link #commit}, which
 * only queues it: later commands still run after it, so they see its effects. A read that
 * starts a dataflow ({@link #onEveryWorker} with {@link Dataflows#startRead}, {@link
 * #watchHydration}) returns once the workers have started it; the caller waits for its results.
 *
 * <p>Not thread-safe: called under the coordinator's lock, which keeps the commands in one order
 * on every worker. The one exception is {@link #dropSubscription}, which a closing subscription
 * calls without it: a dropped dataflow's index is never reused, so its order against the others
 * does not matter.
 */
public final class ComputeController implements AutoCloseable {
    /** Writes of at least this many rows to a table are fed by every worker, each a share. */
    private static final int SHARED_FEED_MIN = 1 << 12;

    private final Engine engine;
    /** Each worker's dataflows, by worker index. */
    private final Dataflows[] dataflows;
    /** Each index's shards as the workers last published them, for point reads. */
    private final PublishedIndexes published;

    /** Starts {@code workers} workers, with no dataflows yet. */
    public ComputeController(int workers) {
        this.published = new PublishedIndexes(workers);
        this.dataflows = new Dataflows[workers];
        for (int i = 0; i < workers; i++) dataflows[i] = new Dataflows();
        this.engine = new Engine(workers, w -> {
            dataflows[w.index()].publish(published, w);
            dataflows[w.index()].completeReads(w);
            dataflows[w.index()].pollCheckpoint();
        });
    }

    /** How many workers there are: every dataflow has a copy on each, which answers for its shard. */
    public int workers() {
        return engine.workers();
    }

    /** The workers' threads, for diagnostics (see {@link dev.tributary.server.Tributary#workerThreads}). */
    public List<Thread> workerThreads() {
        return engine.threads();
    }

    /** What the workers publish; read on any thread, without the coordinator's lock. */
    public PublishedIndexes published() {
        return published;
    }

    /**
     * Builds table {@code id}'s dataflow: its input, arranged by its primary key {@code key}
     * (columns of {@code types}; empty: none), which is then also index {@code pkIndex} ({@code pkName}).
     */
    public void createTable(long id, String name, List<SqlType> types, int[] key, long pkIndex, String pkName) {
        engine.callAll(w -> {
            dataflows[w.index()].createTable(w, id, name, types, key, pkIndex, pkName);
            return null;
        });
    }

    /**
     * Builds materialized view {@code id} of {@code plan}, {@code tables} (its inputs) first
     * promised complete up to {@code upper} and, unless {@code holds} is null, their history let
     * go up to {@code upper - 1} as {@code holds} allow (as after a read there): the view starts
     * from its inputs as of one time where it can, not from each write's own.
     */
    public void createMaterializedView(long id, String name, Plan plan, DataflowMemory memory, long upper, Set<Long> tables, Map<Long, Long> holds) {
        engine.callAll(w -> {
            dataflows[w.index()].advance(upper, tables);
            if (holds != null) dataflows[w.index()].compactTo(upper - 1, holds);
            dataflows[w.index()].createMaterializedView(w, id, name, plan, memory);
            return null;
        });
    }

    /** Builds index {@code id} of stored collection {@code on}, {@code tables} (its inputs) first promised complete up to {@code upper}. */
    public void createIndex(long id, String name, long on, List<SqlType> types, List<ScalarExpr> keys, DataflowMemory memory, long upper, Set<Long> tables) {
        engine.callAll(w -> {
            dataflows[w.index()].advance(upper, tables);
            dataflows[w.index()].createIndex(w, id, name, on, types, keys, memory);
            return null;
        });
    }

    /**
     * Gives each worker its seeds of {@code objects} of checkpoint {@code m}: read from the stores
     * on the workers' threads, all at once; each object's dataflow starts from them when it is
     * next created.
     */
    public void seed(dev.tributary.storage.Checkpoints checkpoints, dev.tributary.storage.Checkpoints.Manifest m,
                     java.util.Collection<dev.tributary.storage.Checkpoints.Stored> objects) {
        engine.callAll(w -> {
            for (var o : objects) dataflows[w.index()].seed(o.id(), checkpoints.seed(m, o, w.index()));
            return null;
        });
    }

    /** Whether object {@code id}'s dataflow was restored from its checkpoint (every worker builds alike, so worker 0 tells). */
    public boolean restored(long id) {
        return engine.call(w -> dataflows[w.index()].restored(id));
    }

    /** Keeps restored object {@code id}'s traces' boundary at {@code at + 1} until {@link #endRecovery}. */
    public void holdBoundary(long id, long at) {
        engine.callAll(w -> {
            dataflows[w.index()].holdBoundary(id, Antichain.of(new long[] {at + 1}));
            return null;
        });
    }

    /** Recovered table {@code id} is exact only from {@code since} on (its stored history starts there): reads before it are refused. */
    public void historyFrom(long id, long since) {
        engine.callAll(w -> {
            dataflows[w.index()].historyFrom(id, Antichain.of(new long[] {since}));
            return null;
        });
    }

    /** The recovery is over: unused seeds and the restored traces' boundaries go. */
    public void endRecovery() {
        engine.callAll(w -> {
            dataflows[w.index()].endRecovery();
            return null;
        });
    }

    /**
     * A checkpoint as the workers took it: each dataflow every worker took, with its workers'
     * seeds in worker order, and each materialized view's output every worker cut, for its output
     * shard.
     */
    public record CheckpointCut(List<dev.tributary.storage.Checkpoints.Captured> dataflows, List<OutputCut> outputs) {}

    /**
     * Materialized view {@code id}'s output as the workers cut it at a checkpoint: each worker's
     * batches (in worker order), the time after which all of them are exact (-1: every time),
     * and where the view's history policy lets its history start.
     */
    public record OutputCut(long id, List<List<dev.tributary.arrangements.Batch>> workers, long exactAfter, long retainFrom) {}

    /**
     * Makes checkpoints cut every materialized view made from now on for its output shard, and,
     * if {@code hold} (a server that checkpoints now and then; otherwise the holds would keep the
     * outputs' history until someone asked for one), makes each keep its output's times apart
     * until a checkpoint has appended them, so that an append writes only what is new.
     */
    public void writeOutputShards(boolean hold) {
        engine.callAll(w -> {
            dataflows[w.index()].writeOutputShards(hold);
            return null;
        });
    }

    /**
     * Starts a checkpoint of the dataflows at {@code at} (see {@link Dataflows#beginCheckpoint});
     * {@code appended} says, per view, up to which time its output shard holds its output (the
     * views' holds move there).
     */
    public CompletableFuture<CheckpointCut> checkpoint(long at, long timeoutMillis, Map<Long, Long> appended) {
        Map<Long, Long> shards = Map.copyOf(appended);
        List<CompletableFuture<Dataflows.Cut>> perWorker = new java.util.ArrayList<>();
        for (int i = 0; i < dataflows.length; i++) perWorker.add(new CompletableFuture<>());
        engine.sendAll(w -> dataflows[w.index()].beginCheckpoint(w, at, timeoutMillis, shards, perWorker.get(w.index())));
        return CompletableFuture.allOf(perWorker.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<Dataflows.Cut> taken = perWorker.stream().map(CompletableFuture::join).toList();
            List<dev.tributary.storage.Checkpoints.Captured> out = new java.util.ArrayList<>();
            for (var e : taken.get(0).dataflows().entrySet()) {
                List<List<dev.tributary.arrangements.Seed.TraceSeed>> workers = new java.util.ArrayList<>();
                for (Dataflows.Cut w : taken) {
                    Dataflows.Captured c = w.dataflows().get(e.getKey());
                    if (c != null) workers.add(c.traces());
                }
                if (workers.size() == taken.size()) {
                    out.add(new dev.tributary.storage.Checkpoints.Captured(e.getKey(), List.copyOf(e.getValue().reads()), workers));
                }
            }
            List<OutputCut> outputs = new java.util.ArrayList<>();
            for (long id : taken.get(0).outputs().keySet()) {
                List<List<dev.tributary.arrangements.Batch>> workers = new java.util.ArrayList<>();
                long exactAfter = Long.MAX_VALUE;
                long retainFrom = Long.MAX_VALUE;
                for (Dataflows.Cut w : taken) {
                    Dataflows.OutputCut c = w.outputs().get(id);
                    if (c == null) break;
                    workers.add(c.batches());
                    // a worker whose view was built again rather than restored has all of its output at other times
                    exactAfter = Math.min(exactAfter, c.exactAfter());
                    retainFrom = Math.min(retainFrom, c.retainFrom());
                }
                if (workers.size() == taken.size()) outputs.add(new OutputCut(id, workers, exactAfter, retainFrom));
            }
            return new CheckpointCut(out, outputs);
        });
    }

    /** Each worker's watch of object {@code id}'s build until its dataflow passes {@code t}. */
    public List<Dataflows.PendingHydration> watchHydration(long id, long t, java.util.function.Supplier<SqlException> stop) {
        return engine.callAll(w -> dataflows[w.index()].watchHydration(id, t, stop));
    }

    /** Drops table, materialized view or index {@code id}'s dataflows and what they published. */
    public void drop(long id) {
        engine.callAll(w -> {
            dataflows[w.index()].drop(w, id);
            return null;
        });
        published.remove(id);
    }

    /**
     * Queues a commit at {@code time}: each table's {@code changes}, then {@code tables} promised
     * complete up to {@code time + 1}. Returns at once, with a future done when every worker has
     * applied it (see {@link #awaitApplied}).
     */
    public CompletableFuture<Void> commit(long time, Map<Long, Map<Row, Long>> changes, Set<Long> tables) {
        return engine.sendAll(w -> {
            // worker 0 feeds a small write, every worker a share of a large one (a COPY); the
            // exchange gives each worker its keys
            Dataflows d = dataflows[w.index()];
            for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) d.write(e.getKey(), time, e.getValue(), w.index(), feeders(e.getValue()));
            d.advance(time + 1, tables);
        });
    }

    /** Waits for {@code applied}, a future of {@link #commit}, while the workers live (XX000 if one has stopped). */
    public void awaitApplied(CompletableFuture<?> applied) {
        engine.await(applied);
    }

    /** Feeds table {@code id} recovered {@code updates} at their own times (see {@link Dataflows#replay}), waiting for it. */
    public void replay(long id, dev.tributary.arrangements.Updates updates) {
        int parts = updates.size() >= SHARED_FEED_MIN ? dataflows.length : 1;
        engine.callAll(w -> {
            dataflows[w.index()].replay(id, updates, w.index(), parts);
            return null;
        });
    }

    private int feeders(Map<Row, Long> changes) {
        return changes.size() >= SHARED_FEED_MIN ? dataflows.length : 1;
    }

    /** Promises {@code tables} complete up to {@code upper}. */
    public void advance(long upper, Set<Long> tables) {
        engine.callAll(w -> {
            dataflows[w.index()].advance(upper, tables);
            return null;
        });
    }

    /** Promises every table complete up to {@code now + 1}, then lets history go up to {@code now} as {@code holds} allow. */
    public void tick(long now, Map<Long, Long> holds) {
        engine.callAll(w -> {
            dataflows[w.index()].advance(now + 1);
            dataflows[w.index()].compactTo(now, holds);
            return null;
        });
    }

    /**
     * {@code read} run on every worker at {@code t}, {@code tables} (what it reads is computed
     * from) first promised complete up to {@code upper}; afterwards, unless {@code holds} is null,
     * history goes up to {@code upper - 1} as they allow. The workers' results, by worker index.
     */
    public <R> List<R> onEveryWorker(long upper, Set<Long> tables, Map<Long, Long> holds, BiFunction<Dataflows, Worker, R> read) {
        return engine.callAll(w -> {
            Dataflows d = dataflows[w.index()];
            d.advance(upper, tables);
            R r = read.apply(d, w);
            if (holds != null) d.compactTo(upper - 1, holds);
            return r;
        });
    }

    /** The earliest time stored collection or index {@code id} is still readable at. */
    public long since(long id) {
        return engine.call(w -> dataflows[w.index()].since(id));
    }

    /** The least time stored collection or index {@code id} is complete up to on the workers. */
    public long upper(long id) {
        long upper = Long.MAX_VALUE;
        for (long u : engine.callAll(w -> dataflows[w.index()].upper(id))) upper = Math.min(upper, u);
        return upper;
    }

    /**
     * Each of {@code ids}' upper as {@link #upper} gives it, read in one visit to each worker (a
     * scrape of many objects must not cost a visit per object); {@link Long#MIN_VALUE} for an id
     * with no dataflow of its own on the workers.
     */
    public long[] uppers(List<Long> ids) {
        Map<Long, long[]> frontiers = frontiers(ids);
        long[] out = new long[ids.size()];
        for (int k = 0; k < out.length; k++) {
            long[] f = frontiers.get(ids.get(k));
            out[k] = f == null ? Long.MIN_VALUE : f[1];
        }
        return out;
    }

    /**
     * The since and upper of each of {@code ids} (stored collections or indexes; one without a
     * dataflow on a worker is left out), read in one visit to each worker: the greatest since and
     * the least upper over the workers, as {@code {since, upper}}; {@link Long#MAX_VALUE} for an
     * empty frontier.
     */
    public Map<Long, long[]> frontiers(List<Long> ids) {
        List<Map<Long, long[]>> perWorker = engine.callAll(w -> {
            Map<Long, long[]> out = new java.util.HashMap<>();
            for (long id : ids) {
                if (dataflows[w.index()].has(id)) out.put(id, new long[] {dataflows[w.index()].since(id), dataflows[w.index()].upper(id)});
            }
            return out;
        });
        Map<Long, long[]> out = new java.util.HashMap<>();
        for (Map<Long, long[]> m : perWorker) {
            m.forEach((id, f) -> out.merge(id, f, (a, b) -> new long[] {Math.max(a[0], b[0]), Math.min(a[1], b[1])}));
        }
        return out;
    }

    /** What each of {@code ids}' own dataflows holds, summed over the workers, read in one visit to each worker. */
    public List<ArrangementSize> arrangementSizes(List<Long> ids) {
        List<List<List<HeldState.Part>>> perWorker = engine.callAll(w -> {
            List<List<HeldState.Part>> held = new ArrayList<>(ids.size());
            for (long id : ids) held.add(dataflows[w.index()].held(id));
            return held;
        });
        List<ArrangementSize> out = new ArrayList<>(ids.size());
        for (int k = 0; k < ids.size(); k++) {
            List<ArrangementSize.Part> parts = new ArrayList<>();
            long records = 0;
            long bytes = 0;
            long paged = 0;
            // the workers' copies of a dataflow register the same parts in the same order
            List<HeldState.Part> first = perWorker.get(0).get(k);
            for (int i = 0; i < first.size(); i++) {
                long r = 0;
                long b = 0;
                long p = 0;
                for (List<List<HeldState.Part>> w : perWorker) {
                    r += w.get(k).get(i).size().records();
                    b += w.get(k).get(i).size().bytes();
                    p += w.get(k).get(i).size().pagedBytes();
                }
                parts.add(new ArrangementSize.Part(first.get(i).name(), r, b, p));
                records += r;
                bytes += b;
                paged += p;
            }
            out.add(new ArrangementSize(records, bytes, paged, parts));
        }
        return out;
    }

    /**
     * Every dataflow the workers run, in the order built, each with its workers' copies added up
     * (see {@link dev.tributary.sql.catalog.Catalog.DataflowInfo}), read in one visit to each
     * worker. A dataflow some worker has already dropped (a query's that finished there) counts
     * the copies still running.
     */
    public List<dev.tributary.sql.catalog.Catalog.DataflowInfo> dataflows() {
        List<List<dev.tributary.sql.catalog.Catalog.DataflowInfo>> perWorker = engine.callAll(w -> dataflows[w.index()].introspect(w));
        Map<Integer, List<dev.tributary.sql.catalog.Catalog.DataflowInfo>> copies = new java.util.TreeMap<>();
        for (List<dev.tributary.sql.catalog.Catalog.DataflowInfo> w : perWorker) {
            for (dev.tributary.sql.catalog.Catalog.DataflowInfo d : w) copies.computeIfAbsent(d.graph().index(), k -> new ArrayList<>()).add(d);
        }
        List<dev.tributary.sql.catalog.Catalog.DataflowInfo> out = new ArrayList<>(copies.size());
        for (List<dev.tributary.sql.catalog.Catalog.DataflowInfo> c : copies.values()) out.add(sum(c));
        return out;
    }

    /** The workers' copies {@code copies} of one dataflow, added up; arrangements line up by position, as every copy registers them in one order. */
    private static dev.tributary.sql.catalog.Catalog.DataflowInfo sum(List<dev.tributary.sql.catalog.Catalog.DataflowInfo> copies) {
        List<dev.tributary.timely.DataflowGraph> graphs = new ArrayList<>(copies.size());
        for (var c : copies) graphs.add(c.graph());
        var first = copies.get(0);
        List<dev.tributary.sql.catalog.Catalog.ArrangementInfo> arrangements = new ArrayList<>(first.arrangements());
        for (int w = 1; w < copies.size(); w++) {
            var other = copies.get(w).arrangements();
            for (int i = 0; i < Math.min(arrangements.size(), other.size()); i++) {
                var a = arrangements.get(i);
                var b = other.get(i);
                java.util.TreeSet<Integer> shared = new java.util.TreeSet<>(a.sharedBy());
                shared.addAll(b.sharedBy());
                arrangements.set(i, new dev.tributary.sql.catalog.Catalog.ArrangementInfo(a.operator(), a.name(), Math.max(a.batches(), b.batches()),
                        a.records() + b.records(), a.bytes() + b.bytes(), a.pagedBytes() + b.pagedBytes(), List.copyOf(shared)));
            }
        }
        return new dev.tributary.sql.catalog.Catalog.DataflowInfo(dev.tributary.timely.DataflowGraph.sum(graphs), first.objectId(), arrangements);
    }

    /** Starts a subscription to {@code plan}, every table first promised complete up to {@code start + 1}; returns its dataflow's index. */
    public int subscribe(long start, Plan plan, ChangeStream.Options options, ChangeStream.Sink<Row, Row> sink, DataflowMemory memory) {
        return engine.call(w -> {
            dataflows[w.index()].advance(start + 1);
            return dataflows[w.index()].subscribe(w, plan, options, sink, memory);
        });
    }

    /** Ends subscription dataflow {@code index}. */
    public void dropSubscription(int index) {
        engine.callAll(w -> {
            dataflows[w.index()].subscriptionDropped(index);
            w.dropDataflow(index);
            return null;
        });
    }

    /**
     * Subscription dataflow {@code index}: the records its arrangements hold (summed over the
     * workers), the rows its streams dropped as late, their watermark (-1 without streams) and
     * whether every worker's traces have settled; null once it is dropped.
     */
    public dev.tributary.server.Subscription.Status subscriptionStatus(int index) {
        long records = 0;
        long late = 0;
        long watermark = Long.MAX_VALUE;
        boolean settled = true;
        for (long[] s : engine.callAll(w -> dataflows[w.index()].subscriptionStatus(index))) {
            if (s == null) return null;
            records += s[0];
            late += s[1];
            watermark = Math.min(watermark, s[2]);
            settled &= s[3] == 1;
        }
        return new dev.tributary.server.Subscription.Status(records, late, watermark, settled);
    }

    /**
     * For each subscription dataflow of {@code subscriptions} (with the stored collections it
     * reads, in {@code reads}), its failure or that of something it reads, as worker 0 sees it;
     * null for one that runs on.
     */
    public List<SqlException> subscriptionFailures(List<Integer> subscriptions, List<Set<Long>> reads) {
        return engine.call(w -> {
            List<SqlException> out = new ArrayList<>();
            for (int i = 0; i < subscriptions.size(); i++) out.add(dataflows[w.index()].failure(w, subscriptions.get(i), "the subscription", reads.get(i)));
            return out;
        });
    }

    /** Stops the workers, and their dataflows with them; nothing can be run afterwards. */
    @Override
    public void close() {
        engine.close();
    }
}
