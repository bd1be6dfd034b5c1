package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.List;

/**
 * A reader's share of a {@link Trace}.
 *
 * <p>The handle's <em>logical</em> compaction frontier is the oldest time it will read at: reads at
 * any {@code t} with {@code since <= t} are exact, and it only moves forward. Its
 * <em>physical</em> compaction frontier is the frontier below which it no longer needs to tell
 * batches apart; the trace's idle merging never erases a batch boundary that some handle's
 * physical frontier has not yet passed. Handles are cheap: {@link #share()} makes another, and
 * {@link #drop()} gives one up; the trace is freed when its last handle is dropped.
 */
public final class TraceHandle {
    private final Trace trace;
    Antichain logical;
    private Antichain physical;
    private boolean dropped;
    private TraceSnapshot snapshot;
    /** The cursor {@link #reusedCursor()} and {@link #reusedCursorThrough} re-aim; null until first asked for. */
    private CursorList reused;
    /** The trace's batches as {@link #current()} last listed them: read at once, never kept or handed out. */
    private final ArrayList<Batch> scratch = new ArrayList<>();

    TraceHandle(Trace trace, Antichain logical) {
        this.trace = trace;
        this.logical = logical;
        this.physical = logical;
    }

    public Trace trace() {
        return trace;
    }

    /** Another handle to the same trace, at this one's frontiers. */
    public TraceHandle share() {
        check();
        TraceHandle h = trace.newHandle(logical);
        h.physical = physical;
        return h;
    }

    /**
     * Another handle whose logical and physical compaction are {@code frontier}, which may be
     * before this one's: for an import into a dataflow seeded up to {@code frontier} (see
     * {@link Seed}), which reads the trace exactly, boundary included, from there on. The trace
     * must not be compacted past it (its since at or before {@code frontier}).
     */
    TraceHandle shareFrom(Antichain frontier) {
        check();
        if (!trace.since().dominates(frontier)) {
            throw new IllegalArgumentException("trace '" + trace.name() + "' is compacted to " + trace.since() + ", past " + frontier);
        }
        TraceHandle h = trace.newHandle(frontier);
        trace.handleChanged();
        return h;
    }

    /**
     * Another handle at this one's logical compaction whose physical compaction is the trace's
     * upper: a boundary the trace has now whatever its readers allowed, kept from now on until
     * the new handle moves past it. For an import, which replays the batches up to that upper to
     * readers (a join) that read the trace through the boundaries they have received.
     */
    TraceHandle shareHoldingUpper() {
        check();
        TraceHandle h = trace.newHandle(logical);
        h.physical = trace.upper();
        trace.handleChanged();
        return h;
    }

    public Antichain logicalCompaction() {
        return logical;
    }

    public Antichain physicalCompaction() {
        return physical;
    }

    /** Promises to read only at times {@code >=} {@code frontier} from now on. It may not move backwards. */
    public void setLogicalCompaction(Antichain frontier) {
        check();
        if (!logical.dominates(frontier)) {
            throw new IllegalArgumentException("trace '" + trace.name() + "': logical compaction cannot move back from " + logical + " to " + frontier);
        }
        logical = frontier;
        trace.handleChanged();
    }

    /** Lets batch boundaries before {@code frontier} be merged away. It may not move backwards. */
    public void setPhysicalCompaction(Antichain frontier) {
        check();
        if (!physical.dominates(frontier)) {
            throw new IllegalArgumentException("trace '" + trace.name() + "': physical compaction cannot move back from " + physical + " to " + frontier);
        }
        physical = frontier;
        trace.handleChanged();
    }

    /**
     * A cursor over everything in the trace now, all batches read as one. Like every trace cursor
     * it is valid only until the trace next changes (an insertion, merge work, a compaction
     * frontier moved): use it within one activation of the operator that made it. The merges that
     * follow may reuse the arrays of the batches it reads.
     */
    public Cursor cursor() {
        check();
        Cursor c = Batch.cursor(current());
        scratch.clear();
        return c;
    }

    /**
     * A cursor over exactly the updates of the batches that end at or before {@code through}:
     * what a reader that has received the trace's batches up to {@code through} has seen, valid
     * only until the trace next changes (as {@link #cursor()}). The
     * trace keeps the boundary there as long as this handle's physical compaction frontier is
     * not beyond it.
     *
     * @throws IllegalStateException if no batch boundary lies at {@code through}, because the
     *     physical frontier passed it or the trace has not reached it
     */
    public Cursor cursorThrough(Antichain through) {
        check();
        List<Batch> batches = current();
        CursorList c = new CursorList();
        c.aim(batches, countThrough(batches, through));
        scratch.clear();
        return c;
    }

    /**
     * {@link #cursor()}, but the same cursor object on every call to this method or to
     * {@link #reusedCursorThrough}, aimed anew at the trace's batches: the cursor they returned
     * before is invalid from then on. For an operator that reads the trace once or a few times per
     * activation, one after the other, and should allocate nothing for it.
     */
    public Cursor reusedCursor() {
        check();
        List<Batch> batches = current();
        return reused(batches, batches.size());
    }

    /** {@link #cursorThrough}, with the reused cursor of {@link #reusedCursor()}. */
    public Cursor reusedCursorThrough(Antichain through) {
        check();
        List<Batch> batches = current();
        return reused(batches, countThrough(batches, through));
    }

    /**
     * {@link #cursorThrough}, but valid after the trace changes, until released: the cursor holds
     * the batches it reads (see {@link HeldCursor}). {@code reuse}, if not null, is a released
     * cursor from an earlier call on any handle, re-aimed rather than a new one made.
     *
     * @throws IllegalArgumentException if {@code reuse} is still held or did not come from here
     */
    public HeldCursor heldCursorThrough(Antichain through, HeldCursor reuse) {
        check();
        if (reuse != null && !(reuse instanceof CursorList)) {
            throw new IllegalArgumentException(reuse + " is not a held cursor of a trace; pass null or what heldCursorThrough returned");
        }
        CursorList c = reuse == null ? new CursorList() : (CursorList) reuse;
        if (c.holding()) throw new IllegalArgumentException("the cursor to reuse still holds its batches; release() it first");
        List<Batch> batches = current();
        c.aim(batches, countThrough(batches, through));
        c.hold();
        scratch.clear();
        return c;
    }

    /** The trace's batches now, in a list this handle reuses: for reading them at once, not for keeping. */
    private List<Batch> current() {
        trace.batchesInto(scratch);
        return scratch;
    }

    /**
     * Lets go of the batches {@link #reusedCursor()} last read (and the batch list this handle
     * reads into): call when an activation is done reading, so that batches the trace merges away
     * later are not kept alive by a cursor no one will read again (after a view's hydration they
     * were, beside the merged batch that replaced them).
     */
    public void forgetReusedCursor() {
        if (reused != null) reused.forget();
        scratch.clear();
    }

    private Cursor reused(List<Batch> batches, int count) {
        if (reused == null) reused = new CursorList();
        reused.aim(batches, count);
        scratch.clear();
        return reused;
    }

    /** How many of the trace's first batches end at or before {@code through}, which must be one of their boundaries (see {@link #cursorThrough}). */
    private int countThrough(List<Batch> batches, Antichain through) {
        Antichain reached = null;
        int count = 0;
        while (count < batches.size() && batches.get(count).upper().dominates(through)) {
            reached = batches.get(count).upper();
            count++;
        }
        boolean atStart = reached == null && through.equals(Antichain.of(new long[trace.arity()]));
        if (!atStart && (reached == null || !reached.equals(through))) {
            throw new IllegalStateException("trace '" + trace.name() + "' has no batch boundary at " + through + " (batches reach " + reached
                    + ", this handle's physical compaction is " + physical + "): keep the physical frontier at or before the boundaries you read through");
        }
        return count;
    }

    /**
     * The latest batch boundary at or before {@code frontier}: the upper of the last batch whose
     * upper is {@code <=} it, or {@code null} if none is. A reader whose input frontier is
     * {@code frontier} has received every non-empty batch up to that boundary (each was sent
     * under a capability before it), so it may acknowledge it even when the batches in between
     * were empty and never sent.
     */
    public Antichain boundaryAtOrBefore(Antichain frontier) {
        check();
        Antichain reached = null;
        List<Batch> batches = current();
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            if (!b.upper().dominates(frontier)) break;
            reached = b.upper();
        }
        scratch.clear();
        return reached;
    }

    /**
     * The batches now in the trace, oldest first. They are immutable and may be kept: the trace
     * will never reuse their arrays (which it does for batches no one else has seen), so call
     * this where the batches must outlive the moment, and {@link #largestBatchKeys()} or
     * {@link #batchKeyCounts()} where their sizes are enough.
     */
    public List<Batch> batches() {
        check();
        return Batch.share(trace.batches());
    }

    /** The key count of the trace's largest batch (0 if it has none). */
    public long largestBatchKeys() {
        check();
        long largest = 0;
        List<Batch> batches = current();
        for (int i = 0; i < batches.size(); i++) largest = Math.max(largest, batches.get(i).keyCount());
        scratch.clear();
        return largest;
    }

    /** The key counts of the trace's batches, oldest first. */
    public int[] batchKeyCounts() {
        check();
        List<Batch> batches = current();
        int[] counts = new int[batches.size()];
        for (int i = 0; i < counts.length; i++) counts[i] = batches.get(i).keyCount();
        scratch.clear();
        return counts;
    }

    /**
     * The trace as this handle sees it now, to hand to other threads (see {@link TraceSnapshot}).
     * Called again with nothing changed, it returns the same snapshot, so a caller can tell
     * whether there is anything new to publish by identity.
     */
    public TraceSnapshot snapshot() {
        check();
        TraceSnapshot s = snapshot;
        if (s == null || s.version() != trace.version() || !s.since().equals(logical)) {
            s = new TraceSnapshot(Batch.share(trace.batches()), trace.upper(), logical, trace.version());
            snapshot = s;
        }
        return s;
    }

    /** Everything before this frontier is in the trace. */
    public Antichain upper() {
        return trace.upper();
    }

    /**
     * Calls {@code consumer} for every {@code (key, val)} whose accumulated count at {@code time}
     * is non-zero.
     *
     * @throws IllegalArgumentException if {@code time} is before this handle's logical compaction
     *     frontier, where the trace may no longer tell times apart
     */
    public void readAt(long[] time, AccumulationConsumer consumer) {
        check();
        if (!logical.lessEqual(time)) {
            throw new IllegalArgumentException("trace '" + trace.name() + "' cannot be read at " + Timestamps.toString(time)
                    + ": this handle's history starts at " + logical);
        }
        Cursor c = cursor();
        while (c.keyValid()) {
            while (c.valValid()) {
                long n = c.accumulate(time);
                if (n != 0) consumer.accept(c.keyColumn(), c.keyIndex(), c.valColumn(), c.valIndex(), n);
                c.stepVal();
            }
            c.stepKey();
        }
    }

    /** Receives one accumulated {@code (key, val, count)}, read in place from columns. */
    @FunctionalInterface
    public interface AccumulationConsumer {
        void accept(Column keys, int key, Column vals, int val, long count);
    }

    /** Gives up this share; the trace is freed when no handle remains. Idempotent. */
    public void drop() {
        if (dropped) return;
        dropped = true;
        trace.remove(this);
    }

    public boolean isDropped() {
        return dropped;
    }

    private void check() {
        if (dropped) throw new IllegalStateException("this handle to trace '" + trace.name() + "' was dropped");
    }
}
