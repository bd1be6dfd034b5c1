package dev.tributary.storage;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Materialized views' outputs as shards ({@code output-<id>}, times of one coordinate): the
 * durable form of what each view holds, with its history as its retention policy keeps it, read
 * by {@link #snapshot} without the view's dataflow.
 *
 * <p>Written at each checkpoint from the checkpoint's cut of the view's output arrangement (every
 * worker's batches up to the checkpoint's time {@code at}), one append {@code [upper, at + 1)}
 * per checkpoint: incremental when the arrangement has kept every time after the shard's upper
 * apart ({@code exactAfter == upper - 1}: the dataflow held its output there since the last
 * append, or was restored from the checkpoint the shard ends at), so only the updates after it
 * are written; otherwise (a view built again, an append that failed or came late) the shard is
 * <em>rebased</em>: the cut's whole contents less the shard's, at time {@code at}, after which
 * history before {@code at} is no longer told apart (the since moves there).
 *
 * <p>Invariant: the shard read as of any time in {@code [since, upper)} equals the view at that
 * time. One writer per server (the newest fences older ones, as for tables). Not thread-safe:
 * the checkpoint writer's thread calls it, and a DROP's {@link #drop}, under the coordinator's
 * lock, is ordered against it by the caller.
 */
public final class OutputShards {
    private static final String PREFIX = "output-";

    private final Blob blob;
    private final Consensus consensus;
    private final Consumer<String> log;
    private final Map<Long, Shard> shards = new HashMap<>();
    private final Map<Long, Shard.Writer> writers = new HashMap<>();
    private long rebases;

    public OutputShards(Blob blob, Consensus consensus, Consumer<String> log) {
        this.blob = blob;
        this.consensus = consensus;
        this.log = log;
    }

    /** The ids of the views with an output shard that has not been dropped. */
    public synchronized Set<Long> outputs() {
        Set<Long> out = new TreeSet<>();
        for (String key : consensus.keys("shard/" + PREFIX)) {
            long id;
            try {
                id = Long.parseLong(key.substring(("shard/" + PREFIX).length()));
            } catch (NumberFormatException e) {
                continue;
            }
            if (!shard(id).state().upper().isEmpty()) out.add(id);
        }
        return out;
    }

    /** View {@code id}'s output shard's state. */
    public synchronized ShardState state(long id) {
        return shard(id).state();
    }

    /**
     * View {@code id}'s contents as of {@code asOf}, from its shard: every row at time
     * {@code asOf} with its count, ordered as an arrangement orders them. Refused (an
     * IllegalArgumentException naming the shard's range) outside {@code [since, upper)}.
     */
    public synchronized Updates snapshot(long id, long asOf) {
        return shard(id).snapshot(new long[] {asOf});
    }

    /**
     * Appends what view {@code id}'s output holds up to {@code at}, from {@code cut}: each worker's
     * batches of its output arrangement up to {@code at} (descriptions ending at {@code at + 1}).
     * {@code exactAfter} is the time after which the arrangement's times are exact (-1: all of
     * them), and {@code retainFrom} where the view's history policy lets its history start.
     * Returns true if the shard now ends at {@code at + 1}; false if it already ended past it
     * (nothing to do) or the view's shard was dropped.
     */
    public synchronized boolean append(long id, long at, List<List<Batch>> cut, long exactAfter, long retainFrom) {
        Shard shard = shard(id);
        ShardState s = shard.state();
        if (s.upper().isEmpty()) return false;
        long upper = s.upper().get(0)[0];
        if (upper > at) return false;
        Shard.Writer writer = writers.computeIfAbsent(id, k -> {
            Shard.Writer w = shard.openWriter();
            shard.collectGarbage(); // parts an earlier server's append left unnamed
            return w;
        });
        boolean incremental = exactAfter == upper - 1;
        List<PartMeta> parts = new ArrayList<>();
        try {
            Pieces pieces = new Pieces(writer, parts);
            if (incremental) {
                for (List<Batch> worker : cut) {
                    for (Batch b : worker) {
                        // a batch ending at or before the shard's upper holds only times already written
                        if (!b.upper().lessEqual(upper)) pieces.add(b, exactAfter, -1);
                    }
                }
            } else {
                for (List<Batch> worker : cut) for (Batch b : worker) pieces.add(b, -1, at);
                if (upper > 0) {
                    Updates was = shard.snapshot(new long[] {upper - 1});
                    long[] times = was.times();
                    long[] diffs = was.diffs();
                    for (int i = 0; i < was.size(); i++) {
                        times[i] = at;
                        diffs[i] = -diffs[i];
                    }
                    if (was.size() > 0) parts.add(writer.writePart(was, "r"));
                }
            }
            pieces.flush();
            Updates none = pieces.empty();
            if (none == null) none = new Updates(new BytesColumn(), new UnitColumn(), 1);
            Shard.AppendResult r = writer.compareAndAppend(none, parts, Antichain.of(new long[] {upper}), Antichain.of(new long[] {at + 1}));
            switch (r) {
                case Shard.AppendResult.Appended a -> {}
                case Shard.AppendResult.UpperMismatch m -> throw new StorageException("the output shard of view " + id + " ends at " + m.current() + ", not " + upper
                        + ": another writer appended to it");
                case Shard.AppendResult.Fenced f -> throw new DurableCatalog.FencedException("the output shard of view " + id + " was taken over by a newer server (writer "
                        + f.current() + "): stop this one");
            }
        } catch (RuntimeException e) {
            for (PartMeta p : parts) blob.delete(p.key());
            throw e;
        }
        long since = incremental ? Math.min(Math.max(retainFrom, 0), at) : at;
        if (!s.since().isEmpty() && s.since().get(0)[0] < since) shard.advanceSince(Antichain.of(since));
        shard.compact();
        if (!incremental) rebases++;
        if (!incremental && upper > 0) log.accept("output shard of view " + id + ": rebased at " + at + " (its view was built again or missed an append)");
        return true;
    }

    /** How many appends rebased a shard (wrote a view's whole contents less the shard's: a view built again, an append missed). */
    public synchronized long rebases() {
        return rebases;
    }

    /** Drops view {@code id}'s output shard for good: its parts are deleted. */
    public synchronized void drop(long id) {
        if (!consensus.head("shard/" + PREFIX + id).isPresent()) return;
        shard(id).tombstone();
        shards.remove(id);
        writers.remove(id);
    }

    private Shard shard(long id) {
        return shards.computeIfAbsent(id, k -> Shard.open(blob, consensus, PREFIX + k, 1));
    }

    /**
     * Updates read from batches, written as parts of at most {@link Shard#PART_MAX_BYTES} as they
     * fill, so that a view's whole contents never sit on the heap twice.
     */
    private static final class Pieces implements Cursor.TimeDiffConsumer {
        private final Shard.Writer writer;
        private final List<PartMeta> parts;
        private Updates out;
        private Column keyLike;
        private Column valLike;
        private Cursor at;
        private long after;
        private long moveTo;

        Pieces(Shard.Writer writer, List<PartMeta> parts) {
            this.writer = writer;
            this.parts = parts;
        }

        /** Adds {@code b}'s updates at times after {@code after}, each moved to {@code moveTo} if that is not -1. */
        void add(Batch b, long after, long moveTo) {
            this.after = after;
            this.moveTo = moveTo;
            Cursor c = b.cursor();
            for (; c.keyValid(); c.stepKey()) {
                for (; c.valValid(); c.stepVal()) {
                    if (out == null) {
                        keyLike = c.keyColumn().emptyLike(1);
                        valLike = c.valColumn().emptyLike(1);
                        out = new Updates(keyLike.emptyLike(1 << 10), valLike.emptyLike(1 << 10), 1, 1 << 10);
                    }
                    at = c;
                    c.forEachTime(this);
                }
                if (bytes(out) >= Shard.PART_MAX_BYTES) flush();
            }
        }

        @Override
        public void accept(long[] times, int offset, long diff) {
            long t = times[offset];
            if (t <= after) return;
            out.keys().append(at.keyColumn(), at.keyIndex());
            out.vals().append(at.valColumn(), at.valIndex());
            out.push(moveTo >= 0 ? moveTo : t, diff);
        }

        void flush() {
            if (out == null || out.size() == 0) return;
            parts.add(writer.writePart(out, "o"));
            out = new Updates(keyLike.emptyLike(1 << 10), valLike.emptyLike(1 << 10), 1, 1 << 10);
        }

        /** An empty container of the columns read, or null if no batch held a value. */
        Updates empty() {
            return keyLike == null ? null : new Updates(keyLike.emptyLike(1), valLike.emptyLike(1), 1, 1);
        }

        private static long bytes(Updates u) {
            return u == null ? 0 : u.size() * 24L + u.keys().bytesUsed() + u.vals().bytesUsed();
        }
    }
}
