package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;

/**
 * One worker's shard of an arrangement: its batches in a {@link Spine}, the readers that share
 * it, and what it costs.
 *
 * <p>Readers hold {@link TraceHandle}s. Each handle names the oldest time it will read at (its
 * logical compaction frontier); the trace compacts history to the meet of those frontiers, never
 * past any of them. When the last handle is dropped the batches are released. A trace belongs to
 * one worker and is used only from that worker's thread.
 */
public final class Trace {
    private final String name;
    private final Column keyProto;
    private final Column valProto;
    private final int arity;
    private final Spine spine;
    private final List<TraceHandle> handles = new ArrayList<>();
    private final List<BatchListener> listeners = new ArrayList<>();
    private boolean dropped;
    /** Bumped by everything that may change the batches: insertions, merge work, compaction, the drop. */
    private long version;

    /** Told about each batch added to the trace, and when the trace's upper becomes final. */
    interface BatchListener {
        void batch(Batch batch);
    }

    private Trace(String name, Column keyProto, Column valProto, int arity, long effort) {
        this.name = name;
        this.keyProto = keyProto.emptyLike(1);
        this.valProto = valProto.emptyLike(1);
        this.arity = arity;
        this.spine = new Spine(this.keyProto, this.valProto, arity, effort);
    }

    /** A new empty trace and the first handle to it (which reads from the least time on). */
    public static TraceHandle create(String name, Column keyProto, Column valProto, int arity) {
        return create(name, keyProto, valProto, arity, EFFORT);
    }

    /**
     * A new trace whose merges get {@code effort} units of work per inserted update at each level;
     * {@link #UNFUELED} completes every merge the moment it begins (a baseline for measuring).
     */
    public static TraceHandle create(String name, Column keyProto, Column valProto, int arity, long effort) {
        Trace t = new Trace(name, keyProto, valProto, arity, effort);
        return t.newHandle(Antichain.of(new long[arity]));
    }

    /** The merge effort that completes merges at once instead of spreading them over insertions. */
    public static final long UNFUELED = Spine.UNFUELED;

    /** The merge effort traces get unless told otherwise: enough that no insertion waits on a large merge. */
    public static final long EFFORT = Spine.EFFORT;

    public String name() {
        return name;
    }

    public int arity() {
        return arity;
    }

    TraceHandle newHandle(Antichain logical) {
        if (dropped) throw new IllegalStateException("trace '" + name + "' was freed when its last handle was dropped");
        TraceHandle h = new TraceHandle(this, logical);
        handles.add(h);
        return h;
    }

    void handleChanged() {
        version++;
        if (handles.isEmpty()) {
            dropped = true;
            spine.clear();
            listeners.clear();
            return;
        }
        Antichain since = meet(false);
        Antichain physical = meet(true);
        boolean moved = compactionMoved != null && (!since.equals(spine.since()) || !physical.equals(spine.physical()));
        spine.setSince(since);
        spine.setPhysical(physical);
        if (moved) compactionMoved.run();
    }

    /**
     * Run when a handle's compaction moves the since or the physical frontier: the merges that
     * allows are the trace writer's background work, which nothing else would schedule once the
     * writer's input stops (an idle dataflow kept a window's expired updates, 184,002 where 2
     * were left after merging, until its next input came).
     */
    private Runnable compactionMoved;

    /**
     * Calls {@code idleWork} (on this worker, from the handle's change) whenever a reader's
     * compaction may have made merge work: the trace's writer passes its idle activator, and
     * {@link #exert}s when it runs.
     */
    public void onCompactionMoved(Runnable idleWork) {
        this.compactionMoved = idleWork;
    }

    /**
     * The meet of the handles' logical (or {@code physical}) compaction frontiers. Usually one of
     * them is at or before all the others (always, with totally ordered times), and then it is
     * the meet itself: no antichain is built for a frontier that every reader moves each step.
     */
    private Antichain meet(boolean physical) {
        // one pass (a trace may have a handle per view reading it): the least so far, while there is one
        Antichain least = frontierOf(handles.get(0), physical);
        for (int i = 1; i < handles.size() && least != null; i++) {
            Antichain f = frontierOf(handles.get(i), physical);
            if (least.dominates(f)) continue;
            least = f.dominates(least) ? f : null;
        }
        if (least != null) return least;
        Antichain.Builder meet = new Antichain.Builder(arity);
        for (int i = 0; i < handles.size(); i++) {
            Antichain f = frontierOf(handles.get(i), physical);
            for (int e = 0; e < f.size(); e++) meet.insert(f.get(e));
        }
        return meet.build(physical ? spine.physical() : spine.since());
    }

    private static Antichain frontierOf(TraceHandle h, boolean physical) {
        return physical ? h.physicalCompaction() : h.logical;
    }

    void remove(TraceHandle h) {
        handles.remove(h);
        handleChanged();
    }

    /** Whether the last handle is gone and what it held was released: it holds nothing from then on. */
    public boolean isDropped() {
        return dropped;
    }

    /**
     * Whether merge or compaction work remains that idle {@link #exert} calls would do: while it
     * does, {@link #updateCount} may count updates that cancel or lie behind the since.
     */
    public boolean merging() {
        return !dropped && spine.needsWork();
    }

    /** Appends a batch, which must start at the trace's upper; merges are fueled by it. */
    public void insert(Batch batch) {
        if (dropped) throw new IllegalStateException("trace '" + name + "' was freed; no batch can be added");
        version++;
        if (listeners.isEmpty()) {
            spine.insert(batch);
            return;
        }
        // a listener sends it into other dataflows, whose readers may keep it
        batch.share();
        spine.insert(batch);
        for (BatchListener l : new ArrayList<>(listeners)) l.batch(batch);
    }

    void addListener(BatchListener l) {
        listeners.add(l);
    }

    void removeListener(BatchListener l) {
        listeners.remove(l);
    }

    /**
     * Merge work an operator that writes a trace does per activation when its worker has nothing
     * else to do ({@link #exert}), until the trace is merged and compacted.
     */
    public static final long IDLE_FUEL = 1 << 9;

    /** Does up to about {@code fuel} updates of merge work; returns whether more work remains. */
    public boolean exert(long fuel) {
        if (dropped) return false;
        version++;
        spine.exert(fuel);
        return spine.needsWork();
    }

    /** Everything before this frontier is in the trace. */
    public Antichain upper() {
        return spine.upper();
    }

    /** A count that changes whenever the batches or the frontiers may have (see {@link TraceSnapshot#version}). */
    long version() {
        return version;
    }

    /** Times before this frontier are no longer distinguished: the meet of the handles' logical frontiers. */
    public Antichain since() {
        return spine.since();
    }

    List<Batch> batches() {
        return spine.batches();
    }

    /** Fills {@code out} with the batches now, oldest first (see {@link Spine#batchesInto}). */
    void batchesInto(ArrayList<Batch> out) {
        spine.batchesInto(out);
    }

    Column keyProto() {
        return keyProto;
    }

    Column valProto() {
        return valProto;
    }

    /** The number of live handles: how many readers share this trace. */
    public int handleCount() {
        return handles.size();
    }

    /** The number of batches held (both inputs of a merge in progress count). */
    public int batchCount() {
        return batches().size();
    }

    /** The number of updates held. */
    public long updateCount() {
        long n = 0;
        for (Batch b : batches()) n += b.updateCount();
        return n;
    }

    /** Bytes of the parts of the {@linkplain Paging paged} batches held (their encodings, in files). */
    public long pagedBytes() {
        long n = 0;
        for (Batch b : batches()) if (b.parts != null) for (Part p : b.parts) n += p.encodedBytes();
        return n;
    }

    /** Heap bytes of the batches held. */
    public long heapBytes() {
        long n = 0;
        for (Batch b : batches()) n += b.heapBytes();
        return n;
    }

    /** The most merge work (updates read) a single {@link #insert} has done: the insertion pause, in work. */
    public long maxInsertWork() {
        return spine.maxInsertWork();
    }

    /** Updates' worth of merging done so far, fueled and forced: each update read by a merge counts once. */
    public long mergeWork() {
        return spine.mergeWork();
    }

    /** Updates' worth of merging that had to complete at once instead of by fuel. */
    public long forcedMergeWork() {
        return spine.forcedMergeWork();
    }

    @Override
    public String toString() {
        return "Trace[" + name + ", upper " + upper() + ", since " + since() + ", " + batchCount() + " batches, " + updateCount() + " updates]";
    }
}
