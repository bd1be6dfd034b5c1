package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;

/**
 * One worker's copy of a dataflow being checkpointed at time {@code at}: a handle on each of its
 * traces that keeps times up to {@code at} apart from later ones, until every trace is complete
 * through {@code at} and {@link #take} cuts them there.
 *
 * <p>Invariant: while the hold lives, no trace of the dataflow advances a time {@code <= at} past
 * {@code at}, so the cut (each trace's updates at times {@code <= at}, with descriptions ending at
 * {@code at + 1}) is exactly the trace as it was when its upper reached {@code at + 1}. The cut's
 * batches are the trace's own where they end by then (immutable, so taken without a copy) and
 * new ones only for batches that reach past it. A dataflow whose state is not all in traces (an
 * operator's waiting records), or whose times have more than one coordinate, cannot be held.
 * Totally ordered times only. Use it on the worker's thread, like the traces.
 */
public final class CheckpointHold {
    private final long at;
    private final List<TraceHandle> holds;

    private CheckpointHold(long at, List<TraceHandle> holds) {
        this.at = at;
        this.holds = holds;
    }

    /**
     * Holds every trace of {@code held}'s dataflow at {@code at}; null if the dataflow cannot be
     * checkpointed (state outside traces, partially ordered times, columns {@link BatchCodec}
     * cannot write) or if some trace has already let times {@code <= at} go.
     */
    public static CheckpointHold begin(HeldState held, long at) {
        if (!held.onlyTraces()) return null;
        return begin(held.traces(), at);
    }

    /**
     * Holds {@code traces} at {@code at}, whatever else their dataflow holds (a cut of one
     * arrangement, such as a view's output); null if one of them cannot be held (see
     * {@link #begin(HeldState, long)}).
     */
    public static CheckpointHold begin(List<Trace> traces, long at) {
        List<TraceHandle> holds = new ArrayList<>();
        Antichain logical = Antichain.of(new long[] {at});
        for (Trace t : traces) {
            boolean ok = !t.isDropped() && t.arity() == 1 && BatchCodec.encodable(t.keyProto(), t.valProto()) && t.since().dominates(logical);
            if (!ok) {
                holds.forEach(TraceHandle::drop);
                return null;
            }
            TraceHandle h = t.newHandle(logical);
            h.setPhysicalCompaction(Antichain.of(new long[] {at + 1}));
            holds.add(h);
        }
        return new CheckpointHold(at, holds);
    }

    /** The time held: the cut holds the updates at times up to it. */
    public long at() {
        return at;
    }

    /** Whether every held trace is complete through {@link #at} (or was dropped, which {@link #take} then reports). */
    public boolean ready() {
        for (TraceHandle h : holds) {
            Trace t = h.trace();
            if (!t.isDropped() && t.upper().lessEqual(at)) return false;
        }
        return true;
    }

    /**
     * Each trace's updates at times up to {@link #at}, in the dataflow's order of traces (the
     * {@link Seed} to rebuild it with), and lets the traces go; null if one of them was dropped
     * meanwhile (the dataflow is gone). Call once {@link #ready}.
     */
    public List<Seed.TraceSeed> take() {
        Antichain upper = Antichain.of(new long[] {at + 1});
        List<Seed.TraceSeed> out = new ArrayList<>();
        try {
            for (TraceHandle h : holds) {
                Trace t = h.trace();
                if (t.isDropped()) return null;
                if (!ready()) throw new IllegalStateException("trace '" + t.name() + "' is complete only up to " + t.upper() + ", not through " + at);
                List<Batch> cut = new ArrayList<>();
                for (Batch b : Batch.share(new ArrayList<>(t.batches()))) {
                    if (upper.dominates(b.lower())) break;
                    cut.add(upper.dominates(b.upper()) && !b.upper().equals(upper) ? BatchCodec.before(b, upper) : b);
                }
                out.add(new Seed.TraceSeed(t.name(), cut));
            }
            return out;
        } finally {
            release();
        }
    }

    /** Lets the traces go without a cut (a checkpoint abandoned). */
    public void release() {
        for (TraceHandle h : holds) if (!h.isDropped()) h.drop();
        holds.clear();
    }
}
