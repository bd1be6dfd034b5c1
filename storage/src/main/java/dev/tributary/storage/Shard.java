package dev.tributary.storage;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.Description;
import dev.tributary.arrangements.Times;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A handle on a shard: the durable form of a collection, as batches of {@code (key, val, time,
 * diff)} in {@link Blob} parts, listed by a {@link ShardState} in {@link Consensus}.
 *
 * <p>Every change to the state is a compare-and-set on its consensus key ({@code shard/<id>}):
 * a handle reads the latest state, makes the next one and sets it if nothing else did in
 * between, else starts again from what did. Appends are fenced by the writer's epoch: opening a
 * {@link Writer} raises the epoch, and an older writer's appends fail from then on, so that two
 * processes never both extend a shard. A part is written to the blob store before the state
 * that refers to it, so a state never names a part that is not there; a part no state refers to
 * (its append lost the race, or its writer crashed before the compare-and-set) is garbage,
 * removed by {@link #collectGarbage} once its writer is fenced.
 *
 * <p>Reads ({@link #snapshot}) are exact at any time at or after {@code since} and before
 * {@code upper}. Readers hold history with {@link #holdSince}: {@code since} never passes a hold.
 *
 * <p>A handle's state changes one at a time (its writer's appends and a compaction from another
 * thread, say); handles in several processes on the same stores coordinate through consensus.
 */
public final class Shard {
    /** Every this many versions of its state, a shard's older versions are truncated from consensus. */
    static final int TRUNCATE_EVERY = 16;
    /**
     * A compaction's parts hold at most about this many bytes of updates each (as the tables' log
     * writes a large append's): 64 MB, or a sixteenth of the heap if that is less (a part is
     * built, encoded and read whole on the heap).
     */
    public static final long PART_MAX_BYTES = Math.max(1 << 20, Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16));
    private final Blob blob;
    private final Consensus consensus;
    private final String id;
    private final String stateKey;
    private final int arity;
    private long seqNo;
    private ShardState state;

    private Shard(Blob blob, Consensus consensus, String id, int arity, VersionedData head) {
        this.blob = blob;
        this.consensus = consensus;
        this.id = id;
        this.stateKey = "shard/" + id;
        this.arity = arity;
        adopt(head);
    }

    /**
     * The shard {@code id} (made, empty, if it has never been written) with times of
     * {@code arity} coordinates. Ids are made of {@code [A-Za-z0-9._-]}.
     */
    public static Shard open(Blob blob, Consensus consensus, String id, int arity) {
        if (id == null || id.isEmpty() || id.contains("/") || id.startsWith(".")) {
            throw new IllegalArgumentException("a shard id is a non-empty name of [A-Za-z0-9._-] not starting with '.'; got '" + id + "'");
        }
        Blob.checkKey(id);
        String key = "shard/" + id;
        Optional<VersionedData> head = consensus.head(key);
        if (head.isEmpty()) {
            CasResult made = consensus.compareAndSet(key, Consensus.NO_VERSION, ShardState.initial(id, arity).encode());
            head = made instanceof CasResult.Mismatch m ? m.current() : consensus.head(key);
        }
        VersionedData v = head.orElseThrow(() -> new StorageException("shard '" + id + "' has no state after it was made"));
        Shard shard = new Shard(blob, consensus, id, arity, v);
        if (shard.state.arity() != arity) {
            throw new IllegalArgumentException("shard '" + id + "' has times of arity " + shard.state.arity() + ", not " + arity);
        }
        return shard;
    }

    public String id() {
        return id;
    }

    /** The latest state, read from consensus. */
    public synchronized ShardState state() {
        consensus.head(stateKey).ifPresent(this::adopt);
        return state;
    }

    private synchronized void adopt(VersionedData v) {
        ShardState s = ShardState.decode(v.data(), "the state of shard '" + id + "' (version " + v.seqNo() + ")");
        if (!s.shard().equals(id)) throw new CorruptDataException("the state under '" + stateKey + "' is that of shard '" + s.shard() + "'");
        seqNo = v.seqNo();
        state = s;
    }

    /**
     * Sets the state {@code change} makes of the latest one, retrying from whatever another
     * handle set in between; {@code change} returns {@code null} to give up (the state it saw is
     * then {@link #state}).
     */
    private synchronized ShardState update(UnaryOperator<ShardState> change) {
        while (true) {
            ShardState next = change.apply(state);
            if (next == null) return null;
            CasResult r = consensus.compareAndSet(stateKey, seqNo, next.encode());
            switch (r) {
                case CasResult.Committed c -> {
                    seqNo = c.seqNo();
                    state = next;
                    // only the latest state is ever read: the versions before it are let go now and then
                    if (seqNo % TRUNCATE_EVERY == 0) consensus.truncate(stateKey, seqNo);
                    return next;
                }
                case CasResult.Mismatch m -> adopt(m.current().orElseThrow(() -> new StorageException("the state of shard '" + id + "' is gone from consensus")));
            }
        }
    }

    /** Opens the writer of this shard, fencing every writer opened before it. */
    public Writer openWriter() {
        ShardState s = update(st -> st.withWriterEpoch(st.writerEpoch() + 1));
        return new Writer(s.writerEpoch());
    }

    /** What {@link Writer#compareAndAppend} did. */
    public sealed interface AppendResult {
        /** The updates are durable; the shard's upper is the append's new upper. */
        record Appended(ShardState state) implements AppendResult {}

        /** Nothing was appended: the shard's upper is {@code current}, not the one expected. */
        record UpperMismatch(Antichain current) implements AppendResult {}

        /** Nothing was appended: a newer writer (of epoch {@code current}) has been opened. */
        record Fenced(long current) implements AppendResult {}
    }

    /** The one writer that may extend the shard, until a newer one is opened. */
    public final class Writer {
        private final long epoch;

        private Writer(long epoch) {
            this.epoch = epoch;
        }

        public long epoch() {
            return epoch;
        }

        /**
         * Appends {@code updates}, all at times in {@code [expectedUpper, newUpper)}, if the
         * shard's upper is {@code expectedUpper}; the shard's upper is then {@code newUpper}.
         * Returns once the updates are durable, or says why nothing was appended.
         */
        public AppendResult compareAndAppend(Updates updates, Antichain expectedUpper, Antichain newUpper) {
            return compareAndAppend(updates, List.of(), expectedUpper, newUpper);
        }

        /**
         * {@link #compareAndAppend(Updates, Antichain, Antichain)}, with {@code written}: parts
         * already durable in blob storage under this shard's prefix ({@link #partKey}), whose
         * updates are also in the append's range (the caller's promise: a write-ahead log hands
         * over what it wrote). They join the batch as they are; refused, they stay the caller's.
         */
        public AppendResult compareAndAppend(Updates updates, List<PartMeta> written, Antichain expectedUpper, Antichain newUpper) {
            if (updates.arity() != arity || expectedUpper.arity() != arity || newUpper.arity() != arity) {
                throw new IllegalArgumentException("shard '" + id + "' has times of arity " + arity + "; the append's are " + updates.arity());
            }
            if (!expectedUpper.dominates(newUpper) || expectedUpper.equals(newUpper)) {
                throw new IllegalArgumentException("an append to shard '" + id + "' must move its upper forward: " + expectedUpper + " to " + newUpper);
            }
            long[] times = updates.times();
            long[] t = new long[arity];
            for (int i = 0; i < updates.size(); i++) {
                System.arraycopy(times, i * arity, t, 0, arity);
                if (!expectedUpper.lessEqual(t) || newUpper.lessEqual(t)) {
                    throw new IllegalArgumentException("an update at " + Timestamps.toString(t) + " is outside the append's [" + expectedUpper + ", " + newUpper
                            + ") to shard '" + id + "'");
                }
            }
            List<PartMeta> mine = new ArrayList<>();
            if (updates.size() > 0) mine.add(writePart(updates, ""));
            List<PartMeta> parts = new ArrayList<>(written);
            parts.addAll(mine);
            AppendResult[] refused = new AppendResult[1];
            ShardState done = update(s -> {
                if (s.writerEpoch() != epoch) {
                    refused[0] = new AppendResult.Fenced(s.writerEpoch());
                    return null;
                }
                if (!s.upper().equals(expectedUpper)) {
                    refused[0] = new AppendResult.UpperMismatch(s.upper());
                    return null;
                }
                return s.withBatch(new BatchMeta(new Description(expectedUpper, newUpper, s.since()), parts));
            });
            if (done != null) return new AppendResult.Appended(done);
            // no state refers to the part: it is this writer's to remove
            for (PartMeta p : mine) blob.delete(p.key());
            return refused[0];
        }

        /**
         * Writes {@code updates} as a part of this shard that no state names yet (durable when
         * this returns), for a caller to hand to {@link #compareAndAppend(Updates, List, Antichain, Antichain)}
         * later; a part a crash leaves unnamed is garbage once a newer writer opens.
         */
        public PartMeta writePart(Updates updates, String tag) {
            byte[] bytes = PartCodec.encode(updates);
            String key = "shards/" + id + "/e" + epoch + "-" + tag + UUID.randomUUID();
            blob.put(key, bytes);
            return PartMeta.of(key, bytes, updates);
        }
    }

    /**
     * The shard's contents at {@code asOf}: every update at a time {@code <= asOf}, at time
     * {@code asOf}, with the diffs of equal records added up (records that add to zero left
     * out), ordered by key and value as an arrangement orders them (bytewise, unsigned). {@code asOf} must be at or after {@code since} (history
     * before it is no longer exact) and before {@code upper} (the shard is complete there).
     */
    public Updates snapshot(long[] asOf) {
        return read(asOf, s -> (times, at) -> {
            // every update at or before asOf is read as of asOf; later ones are left out
            for (int k = 0; k < arity; k++) if (times[at + k] > asOf[k]) return false;
            System.arraycopy(asOf, 0, times, at, arity);
            return true;
        });
    }

    /**
     * Every part's updates under the rule {@code ruleOf} makes of the state read, added up; read
     * again from a newer state when compaction replaced a part after the state was taken.
     */
    private Updates read(long[] asOf, java.util.function.Function<ShardState, TimeRule> ruleOf) {
        for (int attempt = 0; ; attempt++) {
            long seen = seqNo;
            try {
                ShardState s = state();
                snapshotBounds(s, asOf);
                List<PartMeta> parts = new ArrayList<>();
                for (BatchMeta b : s.batches()) parts.addAll(b.parts());
                return consolidate(parts, ruleOf.apply(s));
            } catch (PartGone e) {
                state();
                if (seqNo == seen || attempt >= 100) throw new CorruptDataException(e.getMessage());
            }
        }
    }

    /**
     * The shard's history up to {@code asOf}: every update at a time {@code <= asOf}, its time
     * advanced to the since (history before it folded), equal (record, time)s added up, ordered
     * as {@link #snapshot} orders them. The same bounds on {@code asOf} as there.
     */
    public Updates history(long[] asOf) {
        return read(asOf, s -> historyRule(asOf, s.since(), new long[arity]));
    }

    /**
     * The shard's updates up to {@code asOf}, part by part and not added up, for a reader that
     * consolidates them itself (an arrangement being loaded): each update at a time
     * {@code <= asOf}, its time advanced to the since. The same bounds on {@code asOf} as
     * {@link #snapshot}. Meant for a shard nothing compacts meanwhile (recovery): a part gone
     * under it is an error, not a retry.
     */
    public void forEachPart(long[] asOf, java.util.function.Consumer<Updates> each) {
        ShardState s = state();
        snapshotBounds(s, asOf);
        Antichain since = s.since();
        TimeRule rule = historyRule(asOf, since, new long[arity]);
        for (BatchMeta b : s.batches()) {
            for (PartMeta p : b.parts()) {
                Updates u;
                try {
                    u = read(p);
                } catch (PartGone e) {
                    throw new CorruptDataException(e.getMessage());
                }
                Updates some = kept(u, rule);
                if (some != null) each.accept(some);
            }
        }
    }

    /**
     * The shard's updates at times after {@code after} (one-coordinate times), part by part and
     * not added up, as {@link #forEachPart} gives them: parts that hold none are not read. The
     * since must not be past {@code after} (else those times are no longer told apart).
     */
    public void forEachPartAfter(long after, java.util.function.Consumer<Updates> each) {
        ShardState s = state();
        if (arity != 1) throw new IllegalArgumentException("shard '" + id + "' has times of arity " + arity + ", not 1");
        if (!s.since().lessEqual(after)) {
            throw new IllegalArgumentException("shard '" + id + "' no longer tells times up to " + after + " from later ones: its history is compacted up to " + s.since());
        }
        for (BatchMeta b : s.batches()) {
            for (PartMeta p : b.parts()) {
                if (!p.mayHoldAfter(after)) continue;
                Updates u;
                try {
                    u = read(p);
                } catch (PartGone e) {
                    throw new CorruptDataException(e.getMessage());
                }
                Updates some = kept(u, (times, at) -> times[at] > after);
                if (some != null) each.accept(some);
            }
        }
    }

    /** A part the state named and the blob store no longer has: gone to compaction, or lost. */
    private static final class PartGone extends RuntimeException {
        PartGone(String message) {
            super(message, null, false, false);
        }
    }

    private void snapshotBounds(ShardState s, long[] asOf) {
        if (asOf.length != arity) throw new IllegalArgumentException("shard '" + id + "' has times of arity " + arity + "; asked as of " + Timestamps.toString(asOf));
        if (!s.since().lessEqual(asOf)) {
            throw new IllegalArgumentException("shard '" + id + "' is not readable as of " + Timestamps.toString(asOf) + ": its history is compacted up to " + s.since());
        }
        if (s.upper().lessEqual(asOf)) {
            throw new IllegalArgumentException("shard '" + id + "' is not complete at " + Timestamps.toString(asOf) + ": it is written up to " + s.upper());
        }
    }

    /** A history read's rule: updates at or before {@code asOf}, their times advanced to {@code since}. */
    private TimeRule historyRule(long[] asOf, Antichain since, long[] scratch) {
        return (times, at) -> {
            for (int k = 0; k < arity; k++) if (times[at + k] > asOf[k]) return false;
            Times.advance(times, at, since, scratch);
            return true;
        };
    }

    /** The updates of {@code u} that {@code rule} keeps (their times moved in place): {@code u} itself if all, null if none. */
    private Updates kept(Updates u, TimeRule rule) {
        long[] times = u.times();
        int n = u.size(), kept = 0;
        boolean[] keep = new boolean[n];
        for (int i = 0; i < n; i++) if (keep[i] = rule.apply(times, i * arity)) kept++;
        if (kept == n) return u;
        if (kept == 0) return null;
        Updates some = new Updates(u.keys().emptyLike(kept), u.vals().emptyLike(kept), arity, kept);
        for (int i = 0; i < n; i++) if (keep[i]) some.appendFrom(u, i);
        return some;
    }

    /** What a read does to each update's time, in place: moves it, or answers false to leave the update out. */
    private interface TimeRule {
        boolean apply(long[] times, int at);
    }

    /**
     * The updates of {@code parts}, their times moved by {@code rule}, added up and ordered by
     * (key, value, time) as an arrangement orders them, as one {@link Updates}.
     */
    private Updates consolidate(List<PartMeta> parts, TimeRule rule) {
        Updates[] all = new Updates[1];
        consolidate(parts, rule, Long.MAX_VALUE, u -> all[0] = u);
        return all[0] != null ? all[0] : new Updates(new BytesColumn(), new UnitColumn(), arity);
    }

    /**
     * The updates of {@code parts}, their times moved by {@code rule}, added up and ordered as
     * {@link #consolidate(List, TimeRule)} orders them, handed to {@code each} in pieces of about
     * {@code pieceBytes} at most (checked each time a piece grows by a sixteenth), in order; nothing if they add up to
     * nothing. The arrangements' {@link Batcher} does the consolidating (with paging on, it spills
     * sorted runs rather than keep them all on the heap), and the batch it seals is read back out
     * a piece at a time: a merge of shards larger than the heap holds one part in, one piece out.
     */
    private void consolidate(List<PartMeta> parts, TimeRule rule, long pieceBytes, java.util.function.Consumer<Updates> each) {
        Batcher batcher = null;
        dev.tributary.arrangements.Column keyLike = null;
        dev.tributary.arrangements.Column valLike = null;
        for (PartMeta p : parts) {
            Updates u = read(p);
            if (batcher == null) {
                keyLike = u.keys();
                valLike = u.vals();
                batcher = new Batcher(u.keys().emptyLike(16), u.vals().emptyLike(16), arity);
            } else if (u.keys().getClass() != keyLike.getClass() || u.vals().getClass() != valLike.getClass()) {
                throw new CorruptDataException("shard '" + id + "': part '" + p.key() + "' has columns of other kinds than its other parts");
            }
            Updates some = kept(u, rule);
            if (some != null) batcher.push(some);
        }
        if (batcher == null) return;
        Batch batch = batcher.seal(Antichain.empty(arity));
        int n = batch.updateCount();
        if (n == 0) return;
        // (a large seal may be paged, in parts with no columns of their own: the columns' kinds are the parts')
        int capacity = (int) Math.min(n, pieceBytes == Long.MAX_VALUE ? n : 1 << 10);
        Copy copy = new Copy(new Updates(keyLike.emptyLike(capacity), valLike.emptyLike(capacity), arity, capacity));
        Cursor c = batch.cursor();
        int nextCheck = 1;
        for (; c.keyValid(); c.stepKey()) {
            for (; c.valValid(); c.stepVal()) {
                copy.at(c);
                c.forEachTime(copy);
                if (copy.out.size() >= nextCheck) {
                    nextCheck = copy.out.size() + Math.max(1, copy.out.size() >> 4);
                    if (bytesHeld(copy.out) >= pieceBytes) {
                        each.accept(copy.out);
                        copy.out = new Updates(keyLike.emptyLike(capacity), valLike.emptyLike(capacity), arity, capacity);
                        nextCheck = 1;
                    }
                }
            }
        }
        if (copy.out.size() > 0) each.accept(copy.out);
    }

    /** About the bytes {@code u}'s updates take (not its arrays' spare room): a compaction's measure of a part. */
    private static long bytesHeld(Updates u) {
        long n = u.size();
        return n * (8L * u.arity() + 8 + 2 * 8) + u.keys().bytesUsed() + u.vals().bytesUsed();
    }

    /** Appends a cursor's current (key, value) with each of its (time, diff)s to updates. */
    private static final class Copy implements Cursor.TimeDiffConsumer {
        private Updates out;
        private Cursor at;

        Copy(Updates out) {
            this.out = out;
        }

        void at(Cursor c) {
            at = c;
        }

        @Override
        public void accept(long[] times, int offset, long diff) {
            out.keys().append(at.keyColumn(), at.keyIndex());
            out.vals().append(at.valColumn(), at.valIndex());
            out.push(times, offset, diff);
        }
    }

    /** Reads and checks a part: it must be there, of the size and checksum the state recorded. */
    private Updates read(PartMeta p) {
        String where = "shard '" + id + "': part '" + p.key() + "'";
        byte[] bytes = blob.get(p.key()).orElseThrow(() -> new PartGone(where + " is missing from blob storage"));
        if (bytes.length != p.bytes() || BlobTrailer.crc(bytes, bytes.length) != p.crc32c()) {
            throw new CorruptDataException(where + " is not the part the shard's state recorded (" + bytes.length + " bytes, " + p.bytes() + " recorded, or another checksum)");
        }
        Updates u = PartCodec.decode(bytes, where);
        if (u.size() != p.records() || u.arity() != arity) throw new CorruptDataException(where + " holds " + u.size() + " updates of arity " + u.arity() + ", recorded " + p.records());
        if (p.at() != PartMeta.NO_TIME) {
            if (arity != 1) throw new CorruptDataException(where + " is put at time " + p.at() + " in a shard of times of arity " + arity);
            java.util.Arrays.fill(u.times(), 0, u.size(), p.at());
        }
        return u;
    }

    /**
     * Merges batches as a spine does: while the newest batch holds at least half as many updates
     * as the one before it, the two become one, their updates advanced to the shard's since and
     * added up (history before since folded, updates that cancel dropped). Batches then shrink
     * geometrically from the oldest, a shard holds O(log n) of them, and an update is rewritten
     * O(log n) times. The merged parts are deleted once the state no longer names them (a read
     * that finds one gone starts again from the new state). Returns how many merges were made.
     */
    public int compact() {
        return compact(PART_MAX_BYTES);
    }

    /**
     * {@link #compact()}, writing a merge's result in parts of at most about {@code partMaxBytes}
     * of updates each (ordered: each part's keys come after the one's before it), so that a merge
     * never needs its whole result on the heap.
     */
    public int compact(long partMaxBytes) {
        if (partMaxBytes <= 0) throw new IllegalArgumentException("parts of " + partMaxBytes + " bytes");
        int merges = 0;
        while (true) {
            ShardState s = state();
            List<BatchMeta> bs = s.batches();
            int n = bs.size();
            if (n < 2) return merges;
            BatchMeta older = bs.get(n - 2);
            BatchMeta newer = bs.get(n - 1);
            if (older.records() > 2 * newer.records() && !older.parts().isEmpty()) return merges;
            if (!merge(older, newer, partMaxBytes)) return merges;
            merges++;
        }
    }

    /** Replaces the adjacent batches {@code older} and {@code newer} by one; false if the state no longer has them. */
    private boolean merge(BatchMeta older, BatchMeta newer, long partMaxBytes) {
        if (older.parts().isEmpty() || newer.parts().isEmpty()) {
            // one side holds nothing: the other's parts cover both intervals as they are
            BatchMeta full = older.parts().isEmpty() ? newer : older;
            return replace(older, newer, new BatchMeta(new Description(older.description().lower(), newer.description().upper(), full.description().since()), full.parts()), List.of());
        }
        Antichain since = state.since();
        List<PartMeta> both = new ArrayList<>(older.parts());
        both.addAll(newer.parts());
        long[] scratch = new long[arity];
        List<PartMeta> parts = new ArrayList<>();
        try {
            consolidate(both, (times, at) -> {
                Times.advance(times, at, since, scratch);
                return true;
            }, partMaxBytes, merged -> {
                byte[] bytes = PartCodec.encode(merged);
                // named by the writer epoch it was made under, as appends' parts are: garbage once that epoch is fenced
                String key = "shards/" + id + "/e" + state.writerEpoch() + "-c" + UUID.randomUUID();
                blob.put(key, bytes);
                parts.add(PartMeta.of(key, bytes, merged));
            });
        } catch (PartGone e) {
            for (PartMeta p : parts) blob.delete(p.key());
            return false; // another compaction merged these first
        }
        BatchMeta replacement = new BatchMeta(new Description(older.description().lower(), newer.description().upper(), since), parts);
        return replace(older, newer, replacement, parts);
    }

    /**
     * Sets a state with {@code older} and {@code newer} (still adjacent) replaced by
     * {@code replacement}, then deletes the parts only they named; if they are no longer there,
     * deletes {@code made} (the replacement's new parts) instead and returns false.
     */
    private boolean replace(BatchMeta older, BatchMeta newer, BatchMeta replacement, List<PartMeta> made) {
        ShardState done = update(s -> {
            List<BatchMeta> bs = s.batches();
            int i = bs.indexOf(older);
            if (i < 0 || i + 1 >= bs.size() || !bs.get(i + 1).equals(newer)) return null;
            List<BatchMeta> next = new ArrayList<>(bs);
            next.set(i, replacement);
            next.remove(i + 1);
            return s.withBatches(next);
        });
        if (done == null) {
            for (PartMeta p : made) blob.delete(p.key());
            return false;
        }
        for (BatchMeta b : List.of(older, newer)) for (PartMeta p : b.parts()) if (!replacement.parts().contains(p)) blob.delete(p.key());
        return true;
    }

    /**
     * Holds the shard's history from {@code hold} on for {@code reader} (moving its hold if it
     * has one): {@code since} will not pass it. The hold must be at or after {@code since}.
     */
    public void holdSince(String reader, Antichain hold) {
        update(s -> {
            if (!s.since().dominates(hold)) {
                throw new IllegalArgumentException("reader '" + reader + "' cannot hold shard '" + id + "' from " + hold + ": its history is compacted up to " + s.since());
            }
            Map<String, Antichain> readers = new TreeMap<>(s.readers());
            readers.put(reader, hold);
            return s.withReaders(readers);
        });
    }

    /** Lets go of {@code reader}'s hold, if it has one. */
    public void releaseHold(String reader) {
        update(s -> {
            if (!s.readers().containsKey(reader)) return null;
            Map<String, Antichain> readers = new TreeMap<>(s.readers());
            readers.remove(reader);
            return s.withReaders(readers);
        });
    }

    /**
     * Moves {@code since} forward to {@code target}, which must not pass any reader's hold:
     * reads before it are no longer promised (and compaction may fold that history). Returns
     * the state it leaves.
     */
    public ShardState advanceSince(Antichain target) {
        ShardState moved = update(s -> {
            if (!s.since().dominates(target)) throw new IllegalArgumentException("shard '" + id + "''s since cannot go back from " + s.since() + " to " + target);
            for (Map.Entry<String, Antichain> r : s.readers().entrySet()) {
                if (!target.dominates(r.getValue())) {
                    throw new IllegalArgumentException("shard '" + id + "''s since cannot pass reader '" + r.getKey() + "''s hold at " + r.getValue() + " (asked " + target + ")");
                }
            }
            return s.since().equals(target) ? null : s.withSince(target);
        });
        return moved != null ? moved : state;
    }

    /**
     * Drops the shard for good (its collection is gone): its state keeps one batch without parts
     * up to the empty frontier, so it is complete forever and holds nothing, its readers' holds
     * go, and every part under its prefix is deleted. Appends are refused from then on.
     */
    public void tombstone() {
        Antichain empty = Antichain.empty(arity);
        Antichain min = Antichain.of(new long[arity]);
        update(s -> s.upper().isEmpty() ? null
                : new ShardState(s.shard(), arity, s.writerEpoch(), empty, empty, List.of(new BatchMeta(new Description(min, empty, empty), List.of())), Map.of()));
        for (String key : blob.list("shards/" + id + "/")) blob.delete(key);
    }

    /**
     * Removes the parts under this shard's prefix that no state refers to and that no writer
     * can still refer to (written by a fenced writer); returns how many.
     */
    public int collectGarbage() {
        ShardState s = state();
        Set<String> referenced = new HashSet<>();
        for (BatchMeta b : s.batches()) for (PartMeta p : b.parts()) referenced.add(p.key());
        String prefix = "shards/" + id + "/e";
        int removed = 0;
        for (String key : blob.list(prefix)) {
            if (referenced.contains(key)) continue;
            int dash = key.indexOf('-', prefix.length());
            long epoch;
            try {
                epoch = Long.parseLong(key.substring(prefix.length(), dash < 0 ? key.length() : dash));
            } catch (NumberFormatException e) {
                continue; // not a part this shard wrote
            }
            if (epoch < s.writerEpoch()) {
                blob.delete(key);
                removed++;
            }
        }
        return removed;
    }
}
