package dev.tributary.storage;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.storage.proto.ProtoPart;
import dev.tributary.storage.proto.ProtoTableWrite;
import dev.tributary.storage.proto.ProtoTxn;
import dev.tributary.storage.proto.ProtoTxnGroup;
import dev.tributary.timely.Antichain;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The tables' durable writes: a write-ahead log of committed transactions in consensus (key
 * {@value #KEY}), flushed now and then into each table's shard ({@code table-<id>}), after which
 * the flushed versions of the log are truncated.
 *
 * <p>A transaction is its time and its updates per table, all at that time. {@link #append}
 * queues it and answers a future that completes once it is durable; one thread writes what is
 * queued as one version of the log, so concurrent commits share one durable write (group
 * commit), and the log is a sequence of transactions in time order: what a crash leaves is
 * always a prefix of what was appended. Small writes are held in the log itself; large ones
 * (a COPY) are first written as a part of the table's shard and the log names the part, so a
 * COPY is one durable append however large.
 *
 * <p>Invariant: every table's contents are its shard (complete up to the shard's upper) plus
 * the log's transactions at or after that upper. Opening the log flushes all of it into the
 * shards, so after {@link #open} a table's contents are its shard's ({@link #table}).
 *
 * <p>One process writes the log: a second one on the same stores makes the first one's next
 * write fail ({@link DurableCatalog.FencedException}), never interleave.
 */
public final class TxnLog implements AutoCloseable {
    static final String KEY = "txns";
    /** Writes of a table larger than this, encoded, go to blob storage rather than into the log. */
    static final int INLINE_MAX = 256 << 10;
    /** The log is flushed into the shards once this many bytes of it are held inline, or ... */
    static final long FLUSH_BYTES = 8 << 20;
    /** ... this many transactions are waiting. */
    static final int FLUSH_TXNS = 8192;

    private final Blob blob;
    private final Consensus consensus;
    private final Map<Long, Shard> shards = new ConcurrentHashMap<>();
    private final Map<Long, Shard.Writer> writers = new ConcurrentHashMap<>();
    /** The log's latest version ({@link Consensus#NO_VERSION}: none yet). */
    private long seqNo = Consensus.NO_VERSION;
    /** The log's versions not yet flushed, oldest first, with the first one's sequence number. */
    private final List<ProtoTxnGroup> unflushed = new ArrayList<>();
    /** Each unflushed version's inline bytes and transactions, to take off the totals once it is flushed. */
    private final List<long[]> unflushedSizes = new ArrayList<>();
    private long unflushedFrom = 0;
    private long unflushedBytes;
    private long unflushedTxns;
    /** Flushes run here, beside the writer, so commits go on while the shards are written. */
    private final Thread flusher;
    /**
     * What the flusher waits on, apart from the writer's monitor (this log): a commit wakes only
     * the writer, and only when it waits (with both on one monitor, every commit woke both).
     */
    private final Object flushSignal = new Object();
    /** Guarded by {@link #flushSignal}. */
    private boolean flushWanted;
    /** The writer waits for a transaction (guarded by this log): an append needs to wake it. */
    private boolean writerWaiting;
    /** One more than the latest time in the log or any shard. */
    private long upper;
    /** The earliest time each table's history must stay readable from (absent: only its present). */
    private final Map<Long, Long> holds = new ConcurrentHashMap<>();
    /** Dropped tables: true while their shards are still to be dropped, false once they are. */
    private final Map<Long, Boolean> dropped = new ConcurrentHashMap<>();

    /** A transaction waiting to be written. */
    private record Pending(long time, Map<Long, Updates> writes, Map<Long, List<PartMeta>> written, CompletableFuture<Void> durable) {}

    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private volatile CompletableFuture<Void> lastAppended = CompletableFuture.completedFuture(null);
    private long lastTime = -1;
    private volatile boolean closing;
    private StorageException failed;
    private final Thread thread;
    private final Consumer<String> log;
    /** Durable writes made and log versions flushed, for tests and benchmarks. */
    private volatile long groups, flushes;

    /** The most bytes (as the updates hold them in the heap) one part of a large write holds. */
    private final long partMaxBytes;
    static final long PART_MAX_BYTES = Shard.PART_MAX_BYTES;

    private TxnLog(Blob blob, Consensus consensus, Consumer<String> log, long partMaxBytes, long holdAllSince) {
        this.partMaxBytes = partMaxBytes;
        holdAllSince(holdAllSince);
        this.blob = blob;
        this.consensus = consensus;
        this.log = log;
        recover();
        this.thread = new Thread(this::run, "tributary-txn-log");
        thread.setDaemon(true);
        thread.start();
        this.flusher = new Thread(this::flushWhenWanted, "tributary-txn-log-flush");
        flusher.setDaemon(true);
        flusher.start();
    }

    /**
     * The log in these stores, recovered: whatever it holds is flushed into the tables' shards
     * before this returns. {@code log} hears of faults the writer retries.
     */
    public static TxnLog open(Blob blob, Consensus consensus, Consumer<String> log) {
        return openHolding(blob, consensus, log, -1);
    }

    /** {@link #open}, every table's history held from {@code holdAllSince} on from the recovery's flush on (see {@link #holdAllSince}). */
    public static TxnLog openHolding(Blob blob, Consensus consensus, Consumer<String> log, long holdAllSince) {
        return new TxnLog(blob, consensus, log, PART_MAX_BYTES, holdAllSince);
    }

    /** {@link #open}, with large writes cut into parts of at most {@code partMaxBytes} (tests). */
    static TxnLog open(Blob blob, Consensus consensus, Consumer<String> log, long partMaxBytes) {
        return new TxnLog(blob, consensus, log, partMaxBytes, -1);
    }

    private void recover() {
        List<VersionedData> versions = new ArrayList<>();
        for (long from = 0; ; ) {
            List<VersionedData> some = consensus.scan(KEY, from, 256);
            if (some.isEmpty()) break;
            versions.addAll(some);
            from = some.get(some.size() - 1).seqNo() + 1;
        }
        for (VersionedData v : versions) {
            ProtoTxnGroup g = decode(v);
            if (unflushed.isEmpty()) unflushedFrom = v.seqNo();
            unflushed.add(g);
            unflushedSizes.add(new long[] {0, 0});
            for (ProtoTxn t : g.getTxnsList()) upper = Math.max(upper, t.getTime() + 1);
            seqNo = v.seqNo();
        }
        for (String key : consensus.keys("shard/table-")) {
            long id = tableOf(key.substring("shard/".length()));
            if (id < 0) continue;
            Antichain u = shard(id).state().upper();
            if (u.isEmpty()) dropped.put(id, false);
            else upper = Math.max(upper, u.get(0)[0]);
        }
        // a version of our own at once: a server still writing these stores is fenced by it now,
        // not only once this one first commits
        byte[] fence = ProtoTxnGroup.newBuilder().setVersion(1).build().toByteArray();
        switch (consensus.compareAndSet(KEY, seqNo, fence)) {
            case CasResult.Committed c -> {
                if (unflushed.isEmpty()) unflushedFrom = c.seqNo();
                unflushed.add(ProtoTxnGroup.getDefaultInstance());
                unflushedSizes.add(new long[] {0, 0});
                seqNo = c.seqNo();
            }
            case CasResult.Mismatch m -> throw new DurableCatalog.FencedException("the tables' log changed while it was being recovered: another server is writing it");
        }
        // nothing held is known yet (the holds come back as the catalog is replayed, after
        // this): the recovery's flush lets no history go, or a crash would take a table's
        // retained history with it
        recovering = true;
        try {
            flush();
        } finally {
            recovering = false;
        }
        for (long id : new ArrayList<>(shards.keySet())) shards.get(id).collectGarbage();
    }

    /** The flush running is the recovery's: no table's since moves (see {@link #recover}). */
    private boolean recovering;

    private static long tableOf(String shardId) {
        try {
            return Long.parseLong(shardId.substring("table-".length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static ProtoTxnGroup decode(VersionedData v) {
        try {
            return ProtoTxnGroup.parseFrom(v.data());
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptDataException("version " + v.seqNo() + " of the tables' log ('" + KEY + "') is not a group of transactions: " + e.getMessage());
        }
    }

    private Shard shard(long table) {
        return shards.computeIfAbsent(table, id -> Shard.open(blob, consensus, "table-" + id, 1));
    }

    private Shard.Writer writer(long table) {
        return writers.computeIfAbsent(table, id -> shard(id).openWriter());
    }

    /** One more than the latest time written to any table: a restarted server's times start there. */
    public synchronized long upper() {
        return upper;
    }

    /**
     * Table {@code id}'s contents as recovered: every update at or before {@code asOf} (before
     * {@link #upper}), at its own time or, before the table's retained history, at the start of
     * it. Keys are the rows' bytes, values unit.
     */
    public synchronized Updates table(long id, long asOf) {
        Shard s = shard(id);
        ShardState st = s.state();
        if (st.upper().isEmpty()) return new Updates(new BytesColumn(), new UnitColumn(), 1); // dropped
        long shardUpper = st.upper().get(0)[0];
        if (shardUpper == 0) return new Updates(new BytesColumn(), new UnitColumn(), 1);
        return s.history(new long[] {Math.min(asOf, shardUpper - 1)});
    }

    /**
     * Table {@code id}'s contents as recovered, part by part, for a caller that adds them up
     * itself: each update at or before {@code asOf}, its time advanced to the table's since (so
     * a table keeping no history has every update at one time). Returns that since (or -1 for a
     * table never written).
     */
    public synchronized long table(long id, long asOf, java.util.function.Consumer<Updates> each) {
        Shard s = shard(id);
        ShardState st = s.state();
        if (st.upper().isEmpty()) return -1; // dropped
        long shardUpper = st.upper().get(0)[0];
        if (shardUpper == 0) return -1;
        s.forEachPart(new long[] {Math.min(asOf, shardUpper - 1)}, each);
        return st.since().get(0)[0];
    }

    /**
     * Table {@code id}'s updates at times after {@code after}, at their times, part by part and
     * not added up (what a restart from a checkpoint at {@code after} replays); parts with none
     * are not read. The table must keep its history from {@code after} on ({@link #since}).
     */
    public synchronized void tableAfter(long id, long after, java.util.function.Consumer<Updates> each) {
        Shard s = shard(id);
        ShardState st = s.state();
        if (st.upper().isEmpty() || st.upper().get(0)[0] == 0) return;
        s.forEachPartAfter(after, each);
    }

    /**
     * Queues a transaction: {@code writes} per table, every update at {@code time}, which must be
     * later than every earlier append's. The future completes once it is durable (and every
     * transaction appended before it), or fails if it never can be.
     */
    public CompletableFuture<Void> append(long time, Map<Long, Updates> writes) {
        return append(time, writes, Map.of());
    }

    /**
     * {@link #append(long, Map)}, with parts already written per table by {@link #prewrite} (their
     * updates at whatever time: they are put at {@code time}), which join the transaction as they
     * are, before its {@code writes} to the same table.
     */
    public CompletableFuture<Void> append(long time, Map<Long, Updates> writes, Map<Long, List<PartMeta>> written) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (this) {
            if (time <= lastTime) throw new IllegalArgumentException("transactions are appended in time order: " + time + " after " + lastTime);
            if (failed != null) {
                f.completeExceptionally(failed);
                return f;
            }
            if (closing) throw new IllegalStateException("the tables' log is closed");
            lastTime = time;
            queue.add(new Pending(time, writes, written, f));
            lastAppended = f;
            // the writer busy with a write takes this one with the next: no wake-up needed
            if (writerWaiting) notify();
        }
        return f;
    }

    /**
     * Writes {@code updates} of table {@code id} (at any time: {@link #append(long, Map, Map)}
     * puts them at the transaction's) as parts of at most the log's part size, in the background
     * ({@link #prewriting}, one thread: the caller goes on meanwhile, as a COPY reads its next
     * rows), durable when the future completes. No state names them until that append: if it
     * never comes, {@link #discard} them (a crash leaves them to the next open's garbage collection).
     */
    public CompletableFuture<List<PartMeta>> prewrite(long id, Updates updates) {
        synchronized (this) {
            if (closing) throw new IllegalStateException("the tables' log is closed");
            if (prewriting == null) {
                prewriting = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "tributary-part-writer");
                    t.setDaemon(true);
                    return t;
                });
            }
        }
        return CompletableFuture.supplyAsync(() -> writeParts(id, updates, "p"), prewriting);
    }

    /**
     * Writes {@code u} (table {@code id}'s) as parts of at most {@link #partMaxBytes} each, so a
     * COPY of gigabytes is never one array in the heap, retrying faults of the store.
     */
    private List<PartMeta> writeParts(long id, Updates u, String tag) {
        List<PartMeta> parts = new ArrayList<>();
        int n = u.size();
        int chunk = (int) Math.max(1, Math.min(n, partMaxBytes / Math.max(1, u.heapBytes() / Math.max(1, n))));
        for (int from = 0; from < n; from += chunk) {
            Updates slice = chunk >= n ? u : slice(u, from, Math.min(n, from + chunk));
            parts.add(retrying("writing a part of table " + id, () -> writer(id).writePart(slice, tag)));
        }
        return parts;
    }

    /** Deletes parts {@link #prewrite} wrote that no append will name (a COPY that failed). */
    public void discard(List<PartMeta> parts) {
        for (PartMeta p : parts) {
            try {
                blob.delete(p.key());
            } catch (StorageException e) {
                log.accept("a part of a failed write was not deleted (the next start collects it): " + e.getMessage());
            }
        }
    }

    private java.util.concurrent.ExecutorService prewriting;

    /** The future of the latest {@link #append}: complete once everything appended so far is durable. */
    public CompletableFuture<Void> appended() {
        return lastAppended;
    }

    /** Keeps table {@code id}'s history readable from {@code since} on (a retention policy), or only its present ({@code -1}). */
    public void holdSince(long id, long since) {
        if (since < 0) holds.remove(id);
        else holds.put(id, since);
    }

    /** Every table's history from {@code since} on (a checkpoint's time: what a restart replays after it); {@code -1}: none. */
    public void holdAllSince(long since) {
        holdAll = since < 0 ? Long.MAX_VALUE : since;
    }

    /** See {@link #holdAllSince}. */
    private volatile long holdAll = Long.MAX_VALUE;

    /** The time before which table {@code id}'s shard no longer tells times apart ({@code -1}: never written or dropped). */
    public synchronized long since(long id) {
        ShardState st = shard(id).state();
        return st.upper().isEmpty() || st.upper().get(0)[0] == 0 ? -1 : st.since().get(0)[0];
    }

    /**
     * Table {@code id} is gone: its writes are no longer flushed, and at the next flush its shard
     * is dropped and its parts deleted. (Not itself durable: a server that restarts drops again
     * the tables its catalog no longer has; see {@link #tables}.)
     */
    public void dropTable(long id) {
        dropped.put(id, true);
        holds.remove(id);
        requestFlush();
    }

    /** The tables whose shards hold data (dropped ones left out). */
    public java.util.Set<Long> tables() {
        java.util.Set<Long> out = new java.util.TreeSet<>();
        for (String key : consensus.keys("shard/table-")) {
            long id = tableOf(key.substring("shard/".length()));
            if (id >= 0 && !dropped.containsKey(id)) out.add(id);
        }
        return out;
    }

    public long groups() {
        return groups;
    }

    public long flushes() {
        return flushes;
    }

    private void run() {
        List<Pending> batch = new ArrayList<>();
        while (true) {
            synchronized (this) {
                while (queue.isEmpty() && !closing) {
                    writerWaiting = true;
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    } finally {
                        writerWaiting = false;
                    }
                }
                if (queue.isEmpty()) return;
                batch.addAll(queue);
                queue.clear();
            }
            try {
                write(batch);
                for (Pending p : batch) p.durable().complete(null);
            } catch (StorageException e) {
                // fenced, or the stores refused the write for good: nothing after it can be made durable
                synchronized (this) {
                    failed = e;
                    for (Pending p : queue) p.durable().completeExceptionally(e);
                    queue.clear();
                }
                for (Pending p : batch) p.durable().completeExceptionally(e);
                log.accept("the tables' log failed; no write is acknowledged from now on: " + e.getMessage());
                return;
            } catch (RuntimeException | Error e) {
                for (Pending p : batch) p.durable().completeExceptionally(e);
                throw e;
            }
            batch.clear();
        }
    }

    /** Makes {@code batch} durable as one version of the log, retrying faults of the stores until it is. */
    private void write(List<Pending> batch) {
        ProtoTxnGroup.Builder g = ProtoTxnGroup.newBuilder().setVersion(1);
        long inline = 0;
        for (Pending p : batch) {
            ProtoTxn.Builder t = ProtoTxn.newBuilder().setTime(p.time());
            for (Map.Entry<Long, List<PartMeta>> e : p.written().entrySet()) {
                for (PartMeta part : e.getValue()) t.addWrites(ProtoTableWrite.newBuilder().setTable(e.getKey()).setPart(part.at(p.time()).toProto()));
            }
            for (Map.Entry<Long, Updates> e : p.writes().entrySet()) {
                Updates u = e.getValue();
                if (u.size() == 0) continue;
                if (u.heapBytes() > INLINE_MAX) {
                    for (PartMeta part : writeParts(e.getKey(), u, "w")) t.addWrites(ProtoTableWrite.newBuilder().setTable(e.getKey()).setPart(part.toProto()));
                } else {
                    byte[] bytes = PartCodec.encode(u);
                    inline += bytes.length;
                    t.addWrites(ProtoTableWrite.newBuilder().setTable(e.getKey()).setInline(ByteString.copyFrom(bytes)));
                }
            }
            g.addTxns(t);
        }
        ProtoTxnGroup group = g.build();
        byte[] data = group.toByteArray();
        long expected = seqNo;
        CasResult r = retrying("appending to the tables' log", () -> consensus.compareAndSet(KEY, expected, data));
        switch (r) {
            case CasResult.Committed c -> seqNo = c.seqNo();
            case CasResult.Mismatch m -> {
                // a retried append that had landed before its fault looks like this, with our own data
                Optional<VersionedData> cur = m.current();
                if (cur.isPresent() && cur.get().seqNo() == expected + 1 && java.util.Arrays.equals(cur.get().data(), data)) {
                    seqNo = expected + 1;
                } else {
                    throw new DurableCatalog.FencedException("the tables' log was written by another server (version " + cur.map(VersionedData::seqNo).orElse(-1L)
                            + ", expected " + expected + "): this one may write nothing more: stop it");
                }
            }
        }
        groups++;
        boolean flushNow;
        synchronized (this) {
            if (unflushed.isEmpty()) unflushedFrom = seqNo;
            unflushed.add(group);
            unflushedSizes.add(new long[] {inline, batch.size()});
            unflushedBytes += inline;
            unflushedTxns += batch.size();
            upper = Math.max(upper, batch.get(batch.size() - 1).time() + 1);
            flushNow = unflushedBytes >= FLUSH_BYTES || unflushedTxns >= FLUSH_TXNS;
        }
        if (flushNow) requestFlush();
    }

    private void requestFlush() {
        synchronized (flushSignal) {
            flushWanted = true;
            flushSignal.notifyAll();
        }
    }

    /** The flusher's loop: a flush each time the writer asks for one, until the log closes. */
    private void flushWhenWanted() {
        while (true) {
            synchronized (flushSignal) {
                while (!flushWanted && !closing) {
                    try {
                        flushSignal.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (!flushWanted) return;
                flushWanted = false;
            }
            try {
                flush();
            } catch (StorageException e) {
                // the log still holds it all: the next flush (or a restart) tries again
                log.accept("flushing the tables' log into their shards failed, to be tried again: " + e.getMessage());
            }
        }
    }

    /** Records {@code [from, to)} of {@code u}, copied column by column. */
    private static Updates slice(Updates u, int from, int to) {
        int n = to - from, arity = u.arity();
        Updates s = new Updates(u.keys().emptyLike(n), u.vals().emptyLike(n), arity, n);
        s.keys().appendRange(u.keys(), from, to);
        s.vals().appendRange(u.vals(), from, to);
        s.pushAll(java.util.Arrays.copyOfRange(u.times(), from * arity, to * arity), java.util.Arrays.copyOfRange(u.diffs(), from, to), n);
        return s;
    }

    /** Retries {@code op} while the stores fail it, waiting longer each time (a store down for a while). */
    private <T> T retrying(String what, java.util.function.Supplier<T> op) {
        long waitMs = 10;
        for (int attempt = 1; ; attempt++) {
            try {
                return op.get();
            } catch (CorruptDataException | DurableCatalog.FencedException e) {
                throw e;
            } catch (StorageException e) {
                synchronized (this) {
                    if (closing && attempt > 3) throw e;
                }
                if (attempt == 1 || attempt % 20 == 0) log.accept(what + " failed (attempt " + attempt + "), retrying: " + e.getMessage());
                try {
                    Thread.sleep(waitMs);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                waitMs = Math.min(1000, waitMs * 2);
            }
        }
    }

    /**
     * Moves the unflushed versions of the log into the tables' shards: each table's writes
     * become one batch up to one past the latest time flushed, its since follows its hold, its
     * batches merge, and then the log forgets the flushed versions.
     */
    private void flush() {
        synchronized (flushing) {
            flushLocked();
        }
    }

    /** One flush at a time: the flusher's, or the one at open or close. */
    private final Object flushing = new Object();

    private void flushLocked() {
        List<ProtoTxnGroup> groupsToFlush;
        long from;
        synchronized (this) {
            groupsToFlush = new ArrayList<>(unflushed);
            from = unflushedFrom;
        }
        if (groupsToFlush.isEmpty()) {
            dropShards();
            return;
        }
        long newUpper = 0;
        Map<Long, Updates> inline = new TreeMap<>();
        Map<Long, List<PartMeta>> parts = new TreeMap<>();
        // each table's upper, read once: what the flush appends after (and expects to find then)
        Map<Long, Antichain> uppers = new HashMap<>();
        for (ProtoTxnGroup g : groupsToFlush) {
            for (ProtoTxn t : g.getTxnsList()) {
                newUpper = Math.max(newUpper, t.getTime() + 1);
                for (ProtoTableWrite w : t.getWritesList()) {
                    long id = w.getTable();
                    if (dropped.containsKey(id)) continue;
                    Antichain shardUpper = uppers.computeIfAbsent(id, k -> shard(k).state().upper());
                    if (shardUpper.isEmpty() || t.getTime() < shardUpper.get(0)[0]) continue; // dropped, or flushed before a crash cut the truncation short
                    if (w.hasPart()) {
                        ProtoPart p = w.getPart();
                        parts.computeIfAbsent(id, k -> new ArrayList<>()).add(PartMeta.fromProto(p));
                    } else {
                        Updates u = PartCodec.decode(w.getInline().toByteArray(), "table " + id + " at " + t.getTime() + " in the tables' log");
                        Updates into = inline.get(id);
                        if (into == null) inline.put(id, u);
                        else into.appendAll(u);
                    }
                }
            }
        }
        java.util.Set<Long> tables = new java.util.TreeSet<>(inline.keySet());
        tables.addAll(parts.keySet());
        for (long id : tables) {
            Shard s = shard(id);
            Antichain expected = uppers.get(id);
            if (expected.get(0)[0] >= newUpper) continue;
            Updates u = inline.getOrDefault(id, new Updates(new BytesColumn(), new UnitColumn(), 1));
            Shard.AppendResult r = writer(id).compareAndAppend(u, parts.getOrDefault(id, List.of()), expected, Antichain.of(newUpper));
            if (!(r instanceof Shard.AppendResult.Appended)) {
                throw new DurableCatalog.FencedException("table " + id + "'s shard was written by another server (" + r + "): stop this one");
            }
            long hold = recovering ? Long.MIN_VALUE : Math.min(holds.getOrDefault(id, Long.MAX_VALUE), holdAll);
            long since = Math.min(hold, newUpper - 1);
            if (since > s.state().since().get(0)[0]) s.advanceSince(Antichain.of(since));
            s.compact(partMaxBytes);
        }
        dropShards();
        long head;
        int n = groupsToFlush.size();
        synchronized (this) {
            for (long[] size : unflushedSizes.subList(0, n)) {
                unflushedBytes -= size[0];
                unflushedTxns -= size[1];
            }
            unflushedSizes.subList(0, n).clear();
            unflushed.subList(0, n).clear();
            unflushedFrom = from + n;
            head = seqNo;
        }
        // the head stays (consensus never truncates it); flushed, it is skipped at recovery
        consensus.truncate(KEY, Math.min(head, from + n));
        flushes++;
    }

    /**
     * Drops the shards of dropped tables and deletes their parts. A version of the log that
     * still names one of those parts is skipped when flushed (the shard's upper is empty), and a
     * part written after this is an unnamed part of a fenced writer at the next open.
     */
    private void dropShards() {
        for (Map.Entry<Long, Boolean> e : dropped.entrySet()) {
            if (!e.getValue()) continue;
            long id = e.getKey();
            shard(id).tombstone();
            writers.remove(id);
            dropped.put(id, false);
        }
    }

    /** Writes what is queued, flushes the log and stops the writer. */
    @Override
    public void close() {
        synchronized (this) {
            closing = true;
            notifyAll();
            if (prewriting != null) prewriting.shutdown();
        }
        synchronized (flushSignal) {
            flushSignal.notifyAll();
        }
        try {
            thread.join();
            flusher.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean flushNow;
        synchronized (this) {
            flushNow = failed == null && !unflushed.isEmpty();
        }
        if (flushNow) {
            try {
                flush();
            } catch (StorageException e) {
                log.accept("flushing the tables' log at close failed; it is flushed at the next start: " + e.getMessage());
            }
        }
    }
}
