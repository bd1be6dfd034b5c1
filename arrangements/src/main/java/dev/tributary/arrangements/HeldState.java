package dev.tributary.arrangements;

import dev.tributary.timely.Scope;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What one worker's copy of a dataflow holds: the traces its operators created (arrangements,
 * reduce outputs) and any other state an operator registers (records waiting in an operator).
 *
 * <p>Traces imported from other dataflows are not registered: they are the other dataflow's.
 * A trace shared by several handles is counted once; a trace released when its last handle is
 * dropped counts 0. Read it on the worker's thread, like the traces themselves.
 */
public final class HeldState {
    private final Set<Trace> traces = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Trace> traceOrder = new ArrayList<>();
    private final List<Other> others = new ArrayList<>();
    /** Updates operators have buffered but not yet sealed: held, but not a part of their own. */
    private final List<LongSupplier> buffers = new ArrayList<>();
    /** The name of the operator each of {@link #buffers} belongs to, at the same position. */
    private final List<String> bufferNames = new ArrayList<>();
    private final int worker;
    private Limit limit;

    private HeldState(int worker) {
        this.worker = worker;
    }

    /**
     * A bound on what all workers' copies of one dataflow may hold together. One instance is
     * shared by the copies; each reports what its own copy holds.
     */
    public interface Limit {
        /**
         * Null if {@code bytes}, what worker {@code worker}'s copy holds now (traces, other
         * registered state and buffers), keeps the dataflow within the bound; otherwise what was
         * exceeded, for the error.
         */
        String exceeded(int worker, long bytes);
    }

    private record Other(String name, LongSupplier records, LongSupplier bytes) {}

    /** What one trace or other registered state holds, under its name. */
    public record Part(String name, Size size) {}

    /** Records and heap bytes held, and the bytes of {@linkplain Paging paged} parts (on the heap only while read). */
    public record Size(long records, long bytes, long pagedBytes) {
        public Size(long records, long bytes) {
            this(records, bytes, 0);
        }

        public Size plus(Size o) {
            return new Size(records + o.records, bytes + o.bytes, pagedBytes + o.pagedBytes);
        }

        public static final Size ZERO = new Size(0, 0);
    }

    /** The held state of {@code scope}'s dataflow on this worker. */
    public static HeldState of(Scope scope) {
        return scope.attachment(HeldState.class, () -> new HeldState(scope.worker()));
    }

    /** Counts {@code trace} as held by this dataflow (once, however often it is registered). */
    public void trace(Trace trace) {
        trace(trace, -1);
    }

    /**
     * Counts {@code trace} as held by this dataflow, built by operator {@code operator} of it (-1:
     * not known), once however often it is registered.
     */
    public void trace(Trace trace, int operator) {
        if (traces.add(trace)) {
            traceOrder.add(trace);
            traceOperators.add(operator);
        }
    }

    /** The operator that built each of {@link #traceOrder}, by position (-1: not known). */
    private final List<Integer> traceOperators = new ArrayList<>();

    /** A trace this dataflow built, and the id of the operator that built it (-1: not known). */
    public record HeldTrace(Trace trace, int operator) {}

    /** The traces this dataflow built, in the order registered, with their operators: for introspection. */
    public List<HeldTrace> heldTraces() {
        List<HeldTrace> out = new ArrayList<>(traceOrder.size());
        for (int i = 0; i < traceOrder.size(); i++) out.add(new HeldTrace(traceOrder.get(i), traceOperators.get(i)));
        return out;
    }

    /** The traces registered, in the order registered (the order a {@link Seed} lists them in). */
    List<Trace> traces() {
        return traceOrder;
    }

    /** Whether all the dataflow's state is in its traces: nothing registered with {@link #other}. */
    boolean onlyTraces() {
        return others.isEmpty();
    }

    /**
     * Counts state outside traces, named {@code name}: {@code records} and {@code bytes} are read
     * each time the size is asked for.
     */
    public void other(String name, LongSupplier records, LongSupplier bytes) {
        others.add(new Other(name, records, bytes));
    }

    /**
     * Counts updates operator {@code name} buffers until their times complete ({@code bytes} read
     * at each {@link #check}).
     */
    public void buffer(String name, LongSupplier bytes) {
        buffers.add(bytes);
        bufferNames.add(name);
    }

    /** Bounds this dataflow by {@code limit} from now on (checked by {@link #check}). */
    public void limit(Limit limit) {
        this.limit = limit;
    }

    /** Whether a {@link #limit} is set: operators call {@link #check} only then. */
    public boolean limited() {
        return limit != null;
    }

    /**
     * Throws {@link MemoryLimitExceededException} if what this copy holds now, with its buffers,
     * is past the {@link #limit}. Operators that add to what a dataflow holds call it after
     * taking input, so a runaway dataflow fails itself before it fills the heap.
     */
    public void check() {
        check(0);
    }

    /**
     * As {@link #check()}, counting {@code extra} bytes more: what an operator is about to
     * allocate (a buffer's growth), checked before it does.
     */
    public void check(long extra) {
        if (limit == null) return;
        // summed in place, not through parts(): this runs after every input an arrange takes
        long bytes = 0;
        for (Trace t : traceOrder) if (!t.isDropped()) bytes += t.heapBytes();
        for (Other o : others) bytes += o.bytes.getAsLong();
        for (LongSupplier b : buffers) bytes += b.getAsLong();
        String why = limit.exceeded(worker, bytes + extra);
        if (why != null) throw new MemoryLimitExceededException(why + "; " + largestPart(bytes + extra, extra));
    }

    /** Which part of this worker's copy, holding {@code bytes} in all, holds the most: what a 53200 says to look at. */
    private String largestPart(long bytes, long extra) {
        Part largest = null;
        for (Part p : parts()) if (largest == null || p.size().bytes() > largest.size().bytes()) largest = p;
        long buffered = 0;
        int largestBuffer = -1;
        long largestBuffered = 0;
        for (int i = 0; i < buffers.size(); i++) {
            long b = buffers.get(i).getAsLong();
            buffered += b;
            if (b > largestBuffered) {
                largestBuffered = b;
                largestBuffer = i;
            }
        }
        String of = largest == null ? "" : ", most in " + largest.name() + " (" + largest.size().records() + " records, " + (largest.size().bytes() >> 10) + " kB)";
        return "worker " + worker + " holds " + (bytes >> 10) + " kB" + of + ", " + (buffered >> 10) + " kB in " + buffers.size() + " buffers"
                + (largestBuffer < 0 ? "" : " (the largest " + (largestBuffered >> 10) + " kB, of " + bufferNames.get(largestBuffer) + ")")
                + (extra > 0 ? ", " + (extra >> 10) + " kB about to be allocated" : "");
    }

    /**
     * Each trace (in the order registered) and each other state (after them), with what it holds
     * now. Every worker builds the same dataflow in the same order, so the parts of the workers'
     * copies line up by position.
     */
    public List<Part> parts() {
        List<Part> out = new ArrayList<>();
        for (Trace t : traceOrder) out.add(new Part(t.name(), t.isDropped() ? Size.ZERO : new Size(t.updateCount(), t.heapBytes(), t.pagedBytes())));
        for (Other o : others) out.add(new Part(o.name, new Size(o.records.getAsLong(), o.bytes.getAsLong())));
        return out;
    }

    /**
     * Whether every trace has done the merging its frontiers allow ({@link Trace#merging}): only
     * then does {@link #total} hold no updates that cancel or that compaction would drop.
     */
    public boolean settled() {
        for (Trace t : traceOrder) if (t.merging()) return false;
        return true;
    }

    /** Everything held: the sum of the {@link #parts()}. */
    public Size total() {
        Size sum = Size.ZERO;
        for (Part p : parts()) sum = sum.plus(p.size());
        return sum;
    }
}
