package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Scope;
import java.util.List;

/**
 * What one worker's copy of a dataflow rebuilt from a checkpoint starts with: the checkpoint's
 * frontier {@code from}, and for each trace the dataflow creates (in the order it creates them,
 * the order {@link HeldState} lists them) the batches that trace held before {@code from}.
 *
 * <p>Model: a checkpoint at frontier {@code F} is every trace of a dataflow cut at {@code F}.
 * Since every operator's state is its traces, a dataflow built again the same way, with each
 * trace seeded with its cut, is the dataflow as it was at {@code F}; it then only has to be fed
 * the inputs' updates at times {@code >= F}. So in a seeded dataflow: a trace starts with its
 * seed and its writer seals from {@code F} on; an import sends only what lies at or after
 * {@code F} (what is before is in the seeds already); a join has met everything before
 * {@code F}; a reduce has decided every time before {@code F}; an input starts at {@code F}.
 *
 * <p>The seeds are checked as they are taken: a dataflow that creates a trace of another name,
 * more traces than were seeded, or an operator whose state is not in traces gets a
 * {@link Mismatch}, and the caller builds it from scratch instead. Unseeded dataflows get
 * {@link #NONE}, under which every operator behaves as it always did.
 */
public final class Seed {
    /** One trace's seed: its name (checked against the trace created) and its batches, contiguous from the least time to {@code from}. */
    public record TraceSeed(String name, List<Batch> batches) {}

    /** A seed that does not fit the dataflow being built: build it without one. */
    public static final class Mismatch extends RuntimeException {
        public Mismatch(String message) {
            super(message);
        }
    }

    /** The seed of dataflows built from scratch. */
    public static final Seed NONE = new Seed(null, List.of());

    private final Antichain from;
    private final List<TraceSeed> traces;
    private int next;

    private Seed(Antichain from, List<TraceSeed> traces) {
        this.from = from;
        this.traces = traces;
    }

    /** The traces' batches, in creation order (none for {@link #NONE}). */
    public List<TraceSeed> traces() {
        return traces;
    }

    /** A seed for one worker's copy of a dataflow: {@code traces} in creation order, cut at {@code from}. */
    public static Seed of(Antichain from, List<TraceSeed> traces) {
        if (from == null || from.isEmpty()) throw new IllegalArgumentException("a seed needs a non-empty frontier, not " + from);
        return new Seed(from, List.copyOf(traces));
    }

    /** {@code scope}'s seed: {@link #NONE} unless {@link #install}ed before its first operator. */
    public static Seed of(Scope scope) {
        return scope.attachment(Seed.class, () -> NONE);
    }

    /** Makes {@code seed} the seed of {@code scope}'s dataflow; call before building any operator in it. */
    public static void install(Scope scope, Seed seed) {
        Seed installed = scope.attachment(Seed.class, () -> seed);
        if (installed != seed) throw new IllegalStateException("dataflow " + scope.name() + " has a seed already");
    }

    /** Whether this dataflow starts from a checkpoint. */
    public boolean seeded() {
        return from != null;
    }

    /** The checkpoint's frontier: operators start here (null if not {@link #seeded}). */
    public Antichain from() {
        return from;
    }

    /**
     * A new trace named {@code name}, registered as held by {@code scope}'s dataflow and, in a
     * seeded dataflow, holding the next trace's seed (its upper is then {@link #from}).
     *
     * @throws Mismatch if the seed's next trace has another name or there is none
     */
    public TraceHandle trace(Scope scope, String name, Column keyProto, Column valProto, int arity, long effort) {
        TraceHandle handle = Trace.create(name, keyProto, valProto, arity, effort);
        // built by the operator just made (an arrange's, a reduce's): it asks for its trace as it is built
        HeldState.of(scope).trace(handle.trace(), scope.operatorCount() - 1);
        if (from == null) return handle;
        if (next >= traces.size()) throw new Mismatch("dataflow " + scope.name() + " creates trace '" + name + "' beyond the " + traces.size() + " seeded");
        TraceSeed s = traces.get(next++);
        if (!s.name().equals(name)) throw new Mismatch("dataflow " + scope.name() + " creates trace '" + name + "' where the seed has '" + s.name() + "'");
        for (Batch b : s.batches()) handle.trace().insert(b);
        if (!handle.trace().upper().equals(from)) {
            throw new Mismatch("seed of trace '" + name + "' ends at " + handle.trace().upper() + ", not at the checkpoint's " + from);
        }
        return handle;
    }

    /** Refuses a seeded build of an operator whose state lies outside traces ({@code what}, for the message). */
    public void refuse(Scope scope, String what) {
        if (from != null) throw new Mismatch("dataflow " + scope.name() + " has " + what + ", whose state a checkpoint does not hold");
    }

    /** Checks that the dataflow took every trace seed (call once it is built). */
    public void checkComplete(Scope scope) {
        if (from != null && next != traces.size()) {
            throw new Mismatch("dataflow " + scope.name() + " created " + next + " traces of the " + traces.size() + " seeded");
        }
    }

    /** Whether frontier {@code f} is at or past where this dataflow starts: anything earlier is already in its state. */
    public boolean reached(Antichain f) {
        return from == null || from.dominates(f);
    }
}
