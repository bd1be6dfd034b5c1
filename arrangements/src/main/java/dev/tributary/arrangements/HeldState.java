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

    private record Other(String name, LongSupplier records, LongSupplier bytes) {}

    /** What one trace or other registered state holds, under its name. */
    public record Part(String name, Size size) {}

    /** Records and heap bytes held. */
    public record Size(long records, long bytes) {
        public Size plus(Size o) {
            return new Size(records + o.records, bytes + o.bytes);
        }

        public static final Size ZERO = new Size(0, 0);
    }

    /** The held state of {@code scope}'s dataflow on this worker. */
    public static HeldState of(Scope scope) {
        return scope.attachment(HeldState.class, HeldState::new);
    }

    /** Counts {@code trace} as held by this dataflow (once, however often it is registered). */
    public void trace(Trace trace) {
        if (traces.add(trace)) traceOrder.add(trace);
    }

    /**
     * Counts state outside traces, named {@code name}: {@code records} and {@code bytes} are read
     * each time the size is asked for.
     */
    public void other(String name, LongSupplier records, LongSupplier bytes) {
        others.add(new Other(name, records, bytes));
    }

    /**
     * Each trace (in the order registered) and each other state (after them), with what it holds
     * now. Every worker builds the same dataflow in the same order, so the parts of the workers'
     * copies line up by position.
     */
    public List<Part> parts() {
        List<Part> out = new ArrayList<>();
        for (Trace t : traceOrder) out.add(new Part(t.name(), t.isDropped() ? Size.ZERO : new Size(t.updateCount(), t.heapBytes())));
        for (Other o : others) out.add(new Part(o.name, new Size(o.records.getAsLong(), o.bytes.getAsLong())));
        return out;
    }

    /** Everything held: the sum of the {@link #parts()}. */
    public Size total() {
        Size sum = Size.ZERO;
        for (Part p : parts()) sum = sum.plus(p.size());
        return sum;
    }
}
