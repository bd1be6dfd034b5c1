package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The batches of a trace, kept as an LSM tree whose merges are paid for a little at a time.
 *
 * <p>Level {@code i} holds batches of up to about {@code 2^i} updates: nothing, one batch, or a
 * merge in progress of two adjacent batches. Higher levels hold older data, so every merge
 * combines neighbours in time. Inserting a batch of size class {@code i} first gives every
 * merge in progress {@code EFFORT << i} units of work (the fuel), then merges everything below
 * level {@code i} into it, then places it at level {@code i}; a level that receives a second
 * batch starts merging the two. With that much fuel a merge finishes before its level receives
 * another batch, so no insertion waits on a large merge. {@link #exert} lets an idle trace keep
 * merging until one batch holds everything, compacted to the current {@code since}.
 */
final class Spine {
    /** Default merge work per inserted update, per level. */
    static final long EFFORT = 4;
    /** An effort that completes every merge as soon as it begins: the unfueled baseline. */
    static final long UNFUELED = Long.MAX_VALUE;

    private final Column keyProto;
    private final Column valProto;
    private final int arity;
    private final long effort;
    private final List<Batch> single = new ArrayList<>();
    private final List<Merger> merging = new ArrayList<>();
    /**
     * Inserted batches not yet introduced to the levels, oldest first: those whose upper some
     * handle's physical frontier has not reached. A reader that needs the boundary at its
     * acknowledged frontier (a join reading "every batch it has seen") holds its physical
     * frontier there, and no merge may join a batch before that boundary with one after it.
     */
    private final ArrayDeque<Batch> pending = new ArrayDeque<>();
    private Antichain since;
    private Antichain physical;
    private Antichain upper;
    private long forcedMergeWork;
    /** Merge work (updates read) done so far; an insertion's share is the difference across it. */
    private long mergeWork;
    private long maxInsertWork;

    Spine(Column keyProto, Column valProto, int arity, long effort) {
        if (effort <= 0) throw new IllegalArgumentException("merge effort must be positive, not " + effort);
        this.effort = effort;
        this.keyProto = keyProto;
        this.valProto = valProto;
        this.arity = arity;
        this.since = Antichain.of(new long[arity]);
        this.upper = since;
        this.physical = since;
    }

    /** Idle merging may erase only batch boundaries this frontier has strictly passed. */
    void setPhysical(Antichain physical) {
        this.physical = physical;
        introducePending();
    }

    private boolean mayErase(Antichain boundary) {
        for (int i = 0; i < boundary.size(); i++) {
            if (physical.lessEqual(boundary.get(i))) return false;
        }
        return true;
    }

    void setSince(Antichain since) {
        this.since = since;
    }

    Antichain since() {
        return since;
    }

    Antichain upper() {
        return upper;
    }

    /** Work done by merges that had to finish at once rather than by fuel (for measurement). */
    long forcedMergeWork() {
        return forcedMergeWork;
    }

    static int sizeClass(int updates) {
        return updates <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(updates - 1);
    }

    void insert(Batch batch) {
        if (!batch.lower().equals(upper)) {
            throw new IllegalArgumentException("batch " + batch.description() + " does not start where the trace ends (" + upper + ")");
        }
        upper = batch.upper();
        idleCredit = 0;
        pending.add(batch);
        introducePending();
    }

    /** Moves pending batches whose upper every physical frontier has reached into the levels. */
    private void introducePending() {
        Batch next;
        while ((next = pending.peek()) != null && next.upper().dominates(physical)) {
            introduce(pending.poll());
        }
    }

    private void introduce(Batch batch) {
        long before = mergeWork;
        int level = sizeClass(batch.updateCount());
        applyFuel(effort == UNFUELED ? UNFUELED : effort << Math.min(level, 40));
        rollUp(level);
        insertAt(batch, level);
        maxInsertWork = Math.max(maxInsertWork, mergeWork - before);
    }

    /** The most merge work (updates read) any single insertion did: the pause an insert can cause. */
    long maxInsertWork() {
        return maxInsertWork;
    }

    /**
     * Gives merges in progress {@code fuel} units of work. With none in progress, starts one toward
     * full compaction: first a merge of two neighbouring batches whose boundary every physical
     * frontier has passed, else an in-place compaction (a merge with an empty batch at its own
     * upper, which erases no boundary) of a batch not yet compacted to the current since.
     */
    void exert(long fuel) {
        idleCredit = fuel > Long.MAX_VALUE - idleCredit ? Long.MAX_VALUE : idleCredit + fuel;
        if (!hasMergeInProgress()) {
            if (!startErasingMerge() && !startCompaction()) return;
        }
        applyFuel(fuel);
    }

    /**
     * Fuel offered to {@link #exert} since the last insertion. An idle merge starts only once this
     * covers its size: a trace that keeps receiving small batches between short idle spells would
     * otherwise merge each one into its largest batch, a whole-trace merge per batch. A trace that
     * stays idle merges after waiting at most as long as the merge takes.
     */
    private long idleCredit;

    /** Whether {@link #exert} has anything left to do. */
    boolean needsWork() {
        return hasMergeInProgress() || erasableLevel() >= 0 || staleLevel() >= 0;
    }

    /** The lowest level whose batch may merge with the next older one, or -1. */
    private int erasableLevel() {
        int prev = -1;
        for (int i = 0; i < single.size(); i++) {
            if (single.get(i) == null) continue;
            if (prev >= 0 && mayErase(single.get(prev).lower())) return prev;
            prev = i;
        }
        return -1;
    }

    /** The lowest level holding a non-empty batch compacted to an older since that compacting again may shrink, or -1. */
    private int staleLevel() {
        for (int i = 0; i < single.size(); i++) {
            Batch b = single.get(i);
            if (b != null && !b.isEmpty() && !b.since().equals(since) && mayShrink(b)) return i;
        }
        return -1;
    }

    /**
     * Whether compacting {@code b} to a later since could consolidate anything. Not when times are
     * totally ordered and none in {@code b} is after the since it was compacted to: then every one
     * of them was advanced to that since, each (key, val) has one update, and a later since
     * changes no accumulation read at or after it. Without this, every move of the since (once a
     * second, with the clock) rewrote the whole trace.
     */
    private static boolean mayShrink(Batch b) {
        if (b.arity != 1 || b.since().isEmpty()) return true;
        return b.maxTime > b.since().get(0)[0];
    }

    private boolean startErasingMerge() {
        int level = erasableLevel();
        if (level < 0) return false;
        int next = level + 1;
        while (single.get(next) == null) next++;
        if ((long) single.get(level).updateCount() + single.get(next).updateCount() > idleCredit) return false;
        Batch b = single.set(level, null);
        insertAt(b, next);
        return true;
    }

    private boolean startCompaction() {
        int level = staleLevel();
        if (level < 0) return false;
        if (single.get(level).updateCount() > idleCredit) return false;
        Batch b = single.set(level, null);
        setMerging(level, new Merger(b, Batch.empty(keyProto, valProto, arity, b.upper(), b.upper(), since), since));
        return true;
    }

    private boolean hasMergeInProgress() {
        for (Merger m : merging) {
            if (m != null) return true;
        }
        return false;
    }

    private void applyFuel(long fuel) {
        for (int i = 0; i < merging.size(); i++) {
            Merger m = merging.get(i);
            if (m == null) continue;
            long left = m.work(fuel);
            mergeWork += fuel - left;
            if (m.isDone()) {
                merging.set(i, null);
                insertAt(m.result(), i + 1);
            }
        }
    }

    /** Merges every batch below {@code level} (they are newer than those at and above it) into one at {@code level}. */
    private void rollUp(int level) {
        Batch acc = null;
        for (int i = Math.min(level, single.size()) - 1; i >= 0; i--) {
            Batch b = takeAt(i);
            if (b == null) continue;
            acc = acc == null ? b : mergeNow(acc, b);
        }
        if (acc != null) insertAt(acc, level);
    }

    /** Removes and returns level {@code i}'s contents as one batch, finishing its merge if one is running. */
    private Batch takeAt(int i) {
        Batch b = single.get(i);
        if (b != null) {
            single.set(i, null);
            return b;
        }
        Merger m = merging.get(i);
        if (m != null) {
            merging.set(i, null);
            return finish(m);
        }
        return null;
    }

    private Batch finish(Merger m) {
        if (!m.isDone()) {
            long n = m.older().updateCount() + m.newer().updateCount();
            forcedMergeWork += n;
            mergeWork += n;
        }
        return m.finish();
    }

    private Batch mergeNow(Batch older, Batch newer) {
        Merger m = new Merger(older, newer, since);
        long n = older.updateCount() + newer.updateCount();
        forcedMergeWork += n;
        mergeWork += n;
        return m.finish();
    }

    private void insertAt(Batch batch, int level) {
        while (single.size() <= level) {
            single.add(null);
            merging.add(null);
        }
        Merger m = merging.get(level);
        if (m != null) {
            merging.set(level, null);
            insertAt(finish(m), level + 1);
        }
        Batch existing = single.get(level);
        if (existing == null) {
            single.set(level, batch);
        } else if (existing.isEmpty() || batch.isEmpty()) {
            // a frontier advance without data: joined to its neighbour for free, never merged, so
            // a stream of empty batches (one per read time) costs no work on the trace's data
            single.set(level, Batch.spanning(existing, batch));
        } else {
            single.set(level, null);
            setMerging(level, new Merger(existing, batch, since));
        }
    }

    private void setMerging(int level, Merger m) {
        while (merging.size() <= level) {
            single.add(null);
            merging.add(null);
        }
        if (effort == UNFUELED) {
            insertAt(finish(m), level + 1);
            return;
        }
        merging.set(level, m);
    }

    /** Every batch, oldest first (a merge in progress contributes its two inputs). */
    List<Batch> batches() {
        List<Batch> out = new ArrayList<>();
        for (int i = single.size() - 1; i >= 0; i--) {
            Merger m = merging.get(i);
            if (m != null) {
                out.add(m.older());
                out.add(m.newer());
            }
            Batch b = single.get(i);
            if (b != null) out.add(b);
        }
        out.addAll(pending);
        return out;
    }

    /** Drops every batch: the trace's last reader is gone. */
    void clear() {
        single.clear();
        merging.clear();
        pending.clear();
    }
}
