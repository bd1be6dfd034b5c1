package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;

/**
 * The batches of a trace, kept as an LSM tree whose merges are paid for a little at a time.
 *
 * <p>Level {@code i} holds batches of up to about {@code fanIn^i} updates: up to
 * {@code fanIn - 1} batches waiting, oldest first, and perhaps one merge in progress of batches
 * older than those. When a level's waiting batches reach {@code fanIn} (finishing its merge in
 * progress, if any, first) they start merging. The result goes up to level {@code i + 1}, or,
 * if consolidation shrank it enough that it still fits level {@code i}, back to level {@code i}
 * as its oldest batch. Invariant: higher levels hold older data, and within a level the merge in
 * progress is older than the waiting batches, so every merge combines neighbours in time.
 * Inserting a batch of size class {@code c} ({@code 2^c} updates) first gives every merge in
 * progress {@code EFFORT << c} units of work (the fuel), then merges everything below the batch's
 * level into it, then places it there. With that much fuel a merge finishes before its level
 * receives {@code fanIn} more batches, so no insertion waits on a large merge. {@link #exert}
 * lets an idle trace keep merging batches of comparable sizes (not a small batch into one many
 * times larger: {@link #worthMerging}), and compacting them to the current {@code since}.
 *
 * <p>The top level holds one batch ({@link #topJoining}): a merge big enough against the top
 * batch, with nothing between the two, takes it in and runs at the top level. A trace under
 * churn stays about the same size, and a top level that filled like the others held several
 * batches each with most of the keys, all of which a probe for a live key searches.
 *
 * <p>The fan-in is 4: a merge reads all its inputs in one pass ({@link LongMerge}, {@link
 * ColumnMerge}), so a merge of four reads each update once where two levels of pairs read it
 * twice, for about as many batches held per quadrupling of size (up to three waiting and four
 * merging at one level, against one and two at each of two). A trace that only grows (an
 * append-only table, 184 batches of 5,000 rows) reads each row 3.2 times in merges, against 7.8
 * at a fan-in of 2 with pairwise merges ({@code GrowingTraceMergeWorkTest}).
 *
 * <p>A merge retires its inputs as it finishes (see {@link Merger}): those that nobody outside
 * the trace holds give their arrays back to the thread's {@link MergeScratch}, where the merge's
 * own result and the next merges take them. Nothing else of the trace holds a retired batch, and
 * a trace cursor, the only other reader, is valid only until the trace next changes.
 */
final class Spine {
    /**
     * Default merge work per inserted update, per level. Any effort of at least about 1 keeps
     * every merge ahead of its level's next batches (a merge of {@code fanIn} batches of
     * {@code S} updates needs {@code fanIn * S} units, and its level merges again only after
     * {@code fanIn * S} more updates arrive); more makes each merge finish sooner, and
     * while a merge runs its inputs stay separate batches that every probe checks (a filter, or a
     * search where the filter passes). At 16 a merge takes about a fifth of the time a level
     * takes to receive its next batch, where at 4 it took four fifths: count at 10^7 keys under
     * churn 7% faster (median of five side-by-side pairs), unchanged at 10^4 (BENCHMARKS.md,
     * D15). The price is burstier merge work: each insertion gives a merge in progress four
     * times the fuel it did at 4.
     */
    static final long EFFORT = 16;
    /** An effort that completes every merge as soon as it begins: the unfueled baseline. */
    static final long UNFUELED = Long.MAX_VALUE;
    /** Batches merged at once (a power of two). */
    static final int FAN_IN = 4;
    /** A merge holding at least this share of the top batch's updates merges it in too ({@link #topJoining}). */
    static final int TOP_SHARE = 3;
    /** How many times the fuel of other merges a merge into the top batch gets ({@link #topMerge}). */
    static final int TOP_FUEL = 4;

    private final Column keyProto;
    private final Column valProto;
    private final int arity;
    private final long effort;
    private final int fanIn;
    private final int step;
    /** Per level, the batches not merging, oldest first. */
    private final List<List<Batch>> waiting = new ArrayList<>();
    private final List<Merger> merging = new ArrayList<>();
    /**
     * Per level, the fraction of its inputs' updates the last merge there kept: what the next
     * merge there sizes its output for (a trace whose updates cancel keeps much less than its
     * inputs, and the worst case would be scratch it never fills).
     */
    private double[] kept = new double[0];
    /**
     * Inserted batches not yet introduced to the levels, oldest first: those whose upper some
     * handle's physical frontier has not reached. A reader that needs the boundary at its
     * acknowledged frontier (a join reading "every batch it has seen") holds its physical
     * frontier there, and no merge may join a batch before that boundary with one after it.
     */
    private final ArrayList<Batch> pending = new ArrayList<>();
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
        this.fanIn = FAN_IN;
        this.step = Integer.numberOfTrailingZeros(fanIn);
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

    Antichain physical() {
        return physical;
    }

    Antichain since() {
        return since;
    }

    Antichain upper() {
        return upper;
    }

    /** Merge work (updates read) done so far (for measurement). */
    long mergeWork() {
        return mergeWork;
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
        listed = null;
        upper = batch.upper();
        idleCredit = 0;
        pending.add(batch);
        introducePending();
    }

    /** Moves pending batches whose upper every physical frontier has reached into the levels. */
    private void introducePending() {
        Batch next;
        // a handful at most (those past a reader's physical frontier): removing from the front is cheap
        while (!pending.isEmpty() && (next = pending.get(0)).upper().dominates(physical)) {
            introduce(pending.remove(0));
        }
    }

    private void introduce(Batch batch) {
        listed = null;
        long before = mergeWork;
        int sizeClass = sizeClass(batch.updateCount());
        int level = levelOf(batch.updateCount());
        applyFuel(effort == UNFUELED ? UNFUELED : effort << Math.min(sizeClass, 40));
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
     * full compaction: first a merge of neighbouring batches whose boundaries every physical
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
        return hasMergeInProgress() || erasable() >= 0 || staleLevel() >= 0;
    }

    /**
     * The idle merge that erases the newest erasable boundary, as {@code level << 32 | batches}:
     * the oldest {@code batches} waiting at {@code level} (at least two), or {@code batches == 1}
     * for a level's oldest batch whose boundary with the next level up may go (it moves up to
     * merge there); -1 if no boundary may be erased. Boundaries are ordered in time, so the
     * erasable ones are the oldest: the first erasable boundary found from the bottom is the
     * newest one. (A long rather than a pair object: {@link #needsWork} asks at every idle step.)
     */
    private long erasable() {
        int lower = -1;
        for (int i = 0; i < waiting.size(); i++) {
            List<Batch> w = waiting.get(i);
            if (w.isEmpty()) continue;
            if (lower >= 0 && mayErase(waiting.get(lower).get(0).lower()) && worthJoining(waiting.get(lower).get(0), w)) {
                return (long) lower << 32 | 1;
            }
            int n = 1;
            while (n < w.size() && mayErase(w.get(n).lower())) n++;
            if (n >= 2 && worthMerging(w, n)) return (long) i << 32 | n;
            lower = i;
        }
        return -1;
    }

    /**
     * Whether an idle merge should take {@code batch} up into {@code up}, the batches of a higher
     * level: not when they hold more than {@link #IDLE_RATIO} times its updates (and more than
     * {@link #IDLE_SMALL}), for that merge rewrites them all to take in a little. See
     * {@link #worthMerging}.
     */
    private static boolean worthJoining(Batch batch, List<Batch> up) {
        long above = 0;
        for (int i = 0; i < up.size(); i++) above += up.get(i).updateCount();
        return above <= IDLE_SMALL || batch.updateCount() * IDLE_RATIO >= above;
    }

    /**
     * Whether an idle merge of the oldest {@code n} batches of a level is worth its work: not when
     * one of them holds more than {@link #IDLE_RATIO} times the others' updates (and they more
     * than {@link #IDLE_SMALL}). Under a trickle of single-row writes every trace receives a small
     * batch per write, and idle merging "until one batch holds everything" rewrote each trace's
     * largest batch to take each one in: 87k updates merged per INSERT on the side-by-side
     * workload's tables and views, 83% of the workers' time, while writes and point reads waited
     * on them. The small batches now wait, at their levels, for the insertions' own merges (which
     * the spine's geometry keeps to constant work per update) or for enough of them to be worth
     * merging; an arrangement still compacts when idle once its batches are of comparable sizes,
     * as after a build.
     */
    private static boolean worthMerging(List<Batch> w, int n) {
        long total = 0;
        long largest = 0;
        for (int i = 0; i < n; i++) {
            long u = w.get(i).updateCount();
            total += u;
            largest = Math.max(largest, u);
        }
        return total <= IDLE_SMALL || (total - largest) * IDLE_RATIO >= largest;
    }

    /** Batches holding this few updates together merge when idle whatever their sizes. */
    static final long IDLE_SMALL = 1 << 10;
    /**
     * How many times the others' updates one batch of an idle merge may hold ({@link #worthMerging},
     * {@link #worthJoining}). A trace that grows while its worker waits between commits (a table
     * fed by a stream) merges in every pause: at 8, each time an eighth of its top batch had
     * arrived below it, the whole top was rewritten to take it in, about nine reads of every row
     * (Nexmark q0's bid table: 16M updates merged for 1.84M rows, 90% of them by idle merges;
     * {@code GrowingTraceMergeWorkTest}: 12.7 reads per row); at 2, 4.0 in q0 and 6.4 in the test,
     * the trace kept in two batches; at 1, 5.0 in the test but four batches for every read to
     * probe.
     */
    static final long IDLE_RATIO = 2;

    /** The lowest level holding a non-empty batch compacted to an older since that compacting again may shrink, or -1. */
    private int staleLevel() {
        for (int i = 0; i < waiting.size(); i++) {
            List<Batch> w = waiting.get(i);
            for (int j = 0; j < w.size(); j++) {
                Batch b = w.get(j);
                if (!b.isEmpty() && !b.since().equals(since) && mayShrink(b)) return i;
            }
        }
        return -1;
    }

    /**
     * Whether compacting {@code b} to a later since could consolidate anything. Not when each
     * (key, val) has one update: advancing its time merges it with nothing (an append-only
     * table's rows, a join's arrangement of them), and the rewrite would only move times. Nor when
     * times are totally ordered and none in {@code b} is after the since it was compacted to: then
     * every one of them was advanced to that since, each (key, val) has one update, and a later
     * since changes no accumulation read at or after it. Without these, every move of the since
     * (once a second, with the clock) rewrote the whole trace.
     */
    private static boolean mayShrink(Batch b) {
        if (b.valCount() == b.updateCount()) return false;
        if (b.arity != 1 || b.since().isEmpty()) return true;
        return b.maxTime > b.since().get(0)[0];
    }

    private boolean startErasingMerge() {
        long e = erasable();
        if (e < 0) return false;
        int level = (int) (e >>> 32);
        int count = (int) e;
        List<Batch> w = waiting.get(level);
        if (count == 1) {
            int next = level + 1;
            while (waiting.get(next).isEmpty()) next++;
            List<Batch> up = waiting.get(next);
            if (w.get(0).isEmpty() || up.getLast().isEmpty()) {
                listed = null;
                // only a boundary moves: joined for free, never merged (time passing rewrites no data)
                up.set(up.size() - 1, Batch.spanning(up.getLast(), w.remove(0)));
                return true;
            }
            long size = w.get(0).updateCount();
            for (Batch b : up) size += b.updateCount();
            if (!idleMayMerge(size, up.size() + 1)) return false;
            // the batch is newer than everything above it and older than the rest of its level
            listed = null;
            up.add(w.remove(0));
            startMerge(next, up.size());
            return true;
        }
        long size = 0;
        for (int i = 0; i < count; i++) size += w.get(i).updateCount();
        if (!idleMayMerge(size, count)) return false;
        listed = null;
        startMerge(level, count);
        return true;
    }

    /**
     * Compacts a stale batch in place: a merge with an empty batch at its own upper. Only a
     * level's oldest batch may merge (the result goes up a level, above the rest of its level), so
     * fresh batches in front of a stale one move up a level first, which costs no work.
     */
    private boolean startCompaction() {
        int level;
        while ((level = staleLevel()) >= 0) {
            List<Batch> w = waiting.get(level);
            Batch b = w.get(0);
            if (b.isEmpty() || b.since().equals(since)) {
                listed = null;
                insertAt(w.remove(0), level + 1);
                if (hasMergeInProgress()) return true;
                continue;
            }
            if (!idleMayMerge(b.updateCount(), 1)) return false;
            listed = null;
            w.remove(0);
            setMerging(level, new Merger(b, Batch.empty(keyProto, valProto, arity, b.upper(), b.upper(), since), since));
            return true;
        }
        return false;
    }

    /**
     * Whether an idle merge of {@code batches} batches holding {@code size} updates may start.
     * The fuel since the last insertion must cover it. A merge of fewer than the fan-in (or an
     * in-place compaction) erases a boundary that the insertions' schedule would have kept, so the
     * schedule merges its result again: it pays only when the trace stays idle until it is
     * compact, so it waits until the fuel covers the whole trace. Without that, a trace taking a
     * small batch per step merged each pair of small batches in the idle moments between steps
     * and again when its level filled: over half of all merge work and of the bytes it wrote.
     */
    private boolean idleMayMerge(long size, int batches) {
        if (size > idleCredit) return false;
        return batches >= fanIn || updates() <= idleCredit;
    }

    /** The updates held, in waiting batches and in merges' inputs. */
    private long updates() {
        long n = 0;
        for (int i = 0; i < waiting.size(); i++) {
            List<Batch> w = waiting.get(i);
            for (int j = 0; j < w.size(); j++) n += w.get(j).updateCount();
            Merger m = merging.get(i);
            if (m != null) n += m.inputUpdates();
        }
        return n;
    }

    private boolean hasMergeInProgress() {
        for (int i = 0; i < merging.size(); i++) {
            if (merging.get(i) != null) return true;
        }
        return false;
    }

    private void applyFuel(long fuel) {
        for (int i = 0; i < merging.size(); i++) {
            Merger m = merging.get(i);
            if (m == null) continue;
            long f = m == topMerge && fuel <= Long.MAX_VALUE / TOP_FUEL ? fuel * TOP_FUEL : fuel;
            long left = m.work(f);
            mergeWork += f - left;
            if (m.isDone()) {
                listed = null;
                merging.set(i, null);
                if (m == topMerge) topMerge = null;
                learn(m, i);
                placeResult(m.result(), i);
            }
        }
    }

    /** Merges every batch below {@code level} (they are newer than those at and above it) into one at {@code level}. */
    private void rollUp(int level) {
        // scratch lists reused by every insertion (rollUp does not nest), emptied again before placing the result
        List<Batch> below = rollBelow;
        List<Batch> data = rollData;
        for (int i = Math.min(level, waiting.size()) - 1; i >= 0; i--) takeAt(i, below);
        if (below.isEmpty()) return;
        // empty batches only move boundaries: join them to a neighbour, merge only data
        for (int i = 0; i < below.size(); i++) {
            Batch b = below.get(i);
            if (data.isEmpty()) data.add(b);
            else if (data.getLast().isEmpty() || b.isEmpty()) data.set(data.size() - 1, Batch.spanning(data.getLast(), b));
            else data.add(b);
        }
        Batch rolled = data.size() == 1 ? data.get(0) : mergeNow(new ArrayList<>(data));
        below.clear();
        data.clear();
        insertAt(rolled, level);
    }

    private final List<Batch> rollBelow = new ArrayList<>();
    private final List<Batch> rollData = new ArrayList<>();

    /** Removes level {@code i}'s contents, finishing its merge if one is running, and appends them to {@code out} oldest first. */
    private void takeAt(int i, List<Batch> out) {
        Merger m = merging.get(i);
        if (m != null) {
            merging.set(i, null);
            out.add(finish(m));
        }
        List<Batch> w = waiting.get(i);
        for (int j = 0; j < w.size(); j++) out.add(w.get(j));
        w.clear();
    }

    private Batch finish(Merger m) {
        if (m == topMerge) topMerge = null;
        if (!m.isDone()) {
            long n = m.inputUpdates();
            forcedMergeWork += n;
            mergeWork += n;
        }
        return m.finish();
    }

    private Batch mergeNow(List<Batch> batches) {
        Merger m = new Merger(batches, since);
        long n = m.inputUpdates();
        forcedMergeWork += n;
        mergeWork += n;
        return m.finish();
    }

    private void ensureLevel(int level) {
        while (waiting.size() <= level) {
            waiting.add(new ArrayList<>(fanIn));
            merging.add(null);
        }
        if (kept.length < waiting.size()) {
            int from = kept.length;
            kept = java.util.Arrays.copyOf(kept, waiting.size());
            java.util.Arrays.fill(kept, from, kept.length, 1.0);
        }
    }

    /** Places {@code batch}, newer than everything at and above {@code level}, as the newest batch there. */
    private void insertAt(Batch batch, int level) {
        ensureLevel(level);
        List<Batch> w = waiting.get(level);
        if (!w.isEmpty() && (w.getLast().isEmpty() || batch.isEmpty())) {
            // a frontier advance without data: joined to its neighbour for free, never merged, so
            // a stream of empty batches (one per read time) costs no work on the trace's data
            w.set(w.size() - 1, Batch.spanning(w.getLast(), batch));
            return;
        }
        w.add(batch);
        if (w.size() >= fanIn) startMerge(level, w.size());
    }

    /**
     * Starts merging the oldest {@code count} batches waiting at {@code level}, first finishing
     * the merge running there (only when {@code count} is all of them: its result, if it stays at
     * this level, joins the merge).
     */
    private void startMerge(int level, int count) {
        Merger running = merging.get(level);
        List<Batch> w = waiting.get(level);
        if (running != null) {
            merging.set(level, null);
            Batch result = finish(running);
            learn(running, level);
            if (fits(result, level)) {
                addOldest(w, result);
                count = w.size();
            } else {
                insertAt(result, level + 1);
            }
        }
        List<Batch> inputs = new ArrayList<>(count + 1);
        long size = 0;
        for (int i = 0; i < count; i++) {
            inputs.add(w.get(i));
            size += w.get(i).updateCount();
        }
        w.subList(0, count).clear();
        int top = topJoining(level, size);
        // a little above what the last merge here kept, so a steady level rarely has to grow
        if (top > level) {
            // the top batch is older than everything merging here, and nothing lies between
            inputs.addFirst(waiting.get(top).removeFirst());
            topMerge = new Merger(inputs, since, Math.min(1, kept[top] * 1.25));
            setMerging(top, topMerge);
        } else {
            setMerging(level, new Merger(inputs, since, Math.min(1, kept[level] * 1.25)));
        }
    }

    /**
     * The running merge that took the top batch in, if any: it gets
     * {@value #TOP_FUEL} times the fuel, so it finishes in a fraction of the time its level takes
     * to fill again, and probes stop searching its inputs (each holding a share of the keys) that
     * much sooner.
     */
    private Merger topMerge;

    /**
     * The level of the top batch if a merge at {@code level} of {@code size} updates should take
     * it in, else {@code level}. The top batch joins when it is the only thing above {@code level}
     * (no batch or merge between, nothing else at the top) and the merge holds at least
     * {@code 1/TOP_SHARE} of its updates. Under churn a trace keeps about the same size, and
     * without this its largest batches each hold most of its keys (up to seven at the top level
     * and as many again at the one below), every one of which a probe for a live key searches;
     * with it the top level holds one batch, which the levels below flow into before they grow
     * comparable to it. The merge then does the top batch's work as well as its own, at most
     * {@code (1 + TOP_SHARE) * size} units, and its fuel covers that before the level fills
     * again: about {@code size} updates are inserted meanwhile, {@code EFFORT} units each. (If it
     * has not finished, the level merges on its own and the result goes up a level, as before.)
     */
    private int topJoining(int level, long size) {
        int top = waiting.size() - 1;
        while (top > level && waiting.get(top).isEmpty() && merging.get(top) == null) top--;
        if (top == level || merging.get(top) != null || waiting.get(top).size() != 1) return level;
        for (int i = level + 1; i < top; i++) {
            if (!waiting.get(i).isEmpty() || merging.get(i) != null) return level;
        }
        Batch t = waiting.get(top).getFirst();
        return !t.isEmpty() && size * TOP_SHARE >= t.updateCount() ? top : level;
    }

    private void setMerging(int level, Merger m) {
        ensureLevel(level + 1);
        if (effort == UNFUELED) {
            Batch result = finish(m);
            learn(m, level);
            placeResult(result, level);
            return;
        }
        merging.set(level, m);
    }

    /** Remembers what fraction of its inputs the finished merge {@code m} at {@code level} kept. */
    private void learn(Merger m, int level) {
        long in = m.inputUpdates();
        if (in > 0) kept[level] = (double) m.result().updateCount() / in;
    }

    /** The level for a batch of {@code updates} updates: its size class in steps of the fan-in. */
    private int levelOf(int updates) {
        return (sizeClass(updates) + step - 1) / step;
    }

    /** Whether a merge result still belongs at the level that merged it: consolidation kept it within the level's size. */
    private boolean fits(Batch result, int level) {
        return levelOf(result.updateCount()) <= level;
    }

    /**
     * Places the result of a merge at {@code level} (where nothing else is merging now): one level
     * up, or, when consolidation shrank it enough that it still fits, back at its own level as the
     * oldest batch there. A trace whose updates cancel (a sliding window, a since that moves) then
     * keeps its compacted state low, where new batches meet it soon, instead of leaving shrunken
     * batches at ever higher levels holding retractions apart from the insertions they cancel.
     */
    private void placeResult(Batch result, int level) {
        if (!fits(result, level)) {
            insertAt(result, level + 1);
            return;
        }
        List<Batch> w = waiting.get(level);
        addOldest(w, result);
        if (w.size() >= fanIn) startMerge(level, w.size());
    }

    /** Adds {@code batch}, older than every batch in {@code w}, at its front; an empty batch on either side is joined to the other. */
    private static void addOldest(List<Batch> w, Batch batch) {
        if (!w.isEmpty() && (w.getFirst().isEmpty() || batch.isEmpty())) {
            w.set(0, Batch.spanning(batch, w.getFirst()));
        } else {
            w.addFirst(batch);
        }
    }

    /**
     * Every batch, oldest first (a merge in progress contributes its inputs), as an unmodifiable
     * list that stays the same until the spine next changes: readers ask for it several times per
     * step (a join for each input batch and frontier). Whatever changes the levels or the pending
     * batches forgets it (an insertion, an introduction, a merge that starts or ends, a batch
     * moved), which tests check against a list built afresh.
     */
    List<Batch> batches() {
        List<Batch> l = listed;
        if (l != null) {
            assert l.equals(listBatches()) : "the spine's cached batch list is stale";
            return l;
        }
        listed = l = listBatches();
        return l;
    }

    /** Fills {@code out} with {@link #batches()}, oldest first: for a reader that needs them only now, without building a list. */
    void batchesInto(ArrayList<Batch> out) {
        out.clear();
        for (int i = waiting.size() - 1; i >= 0; i--) {
            Merger m = merging.get(i);
            if (m != null) {
                List<Batch> in = m.inputs();
                for (int j = 0; j < in.size(); j++) out.add(in.get(j));
            }
            List<Batch> w = waiting.get(i);
            for (int j = 0; j < w.size(); j++) out.add(w.get(j));
        }
        for (int j = 0; j < pending.size(); j++) out.add(pending.get(j));
    }

    private List<Batch> listBatches() {
        int n = pending.size();
        for (int i = 0; i < waiting.size(); i++) {
            Merger m = merging.get(i);
            n += waiting.get(i).size() + (m == null ? 0 : m.inputs().size());
        }
        ArrayList<Batch> out = new ArrayList<>(n);
        batchesInto(out);
        return java.util.Collections.unmodifiableList(out);
    }

    /** What {@link #batches()} last listed, or null once anything may have changed. */
    private List<Batch> listed;

    /** Drops every batch: the trace's last reader is gone. */
    void clear() {
        listed = null;
        waiting.clear();
        merging.clear();
        pending.clear();
        topMerge = null;
    }
}
