package dev.tributary.arrangements;

import dev.tributary.timely.Scope;

/**
 * How far one worker's copy of a dataflow has read the data that existed when it was built: the
 * updates its imports found in the traces they import ({@link #total}) and how many of those its
 * operators have taken in so far ({@link #done}). A new view or index over a million rows is
 * "hydrating" until it has read them and its frontier has passed its first time.
 *
 * <p>An import counts the batches its trace holds when the dataflow is built and those it gets
 * later until the hydration is {@link #finish finished}: a table's recent writes may reach its
 * trace only after a view over it was built. Written by the worker's thread only; read from any
 * thread (a session asking for progress), so the counts are volatile. {@code done} may pass
 * {@code total}: the reading operators count every update they take in; readers clamp it.
 */
public final class Hydration {
    private volatile long total;
    private volatile long done;
    private volatile boolean finished;

    /** The hydration of {@code scope}'s dataflow on this worker. */
    public static Hydration of(Scope scope) {
        return scope.attachment(Hydration.class, Hydration::new);
    }

    /** An import found {@code updates} existing updates to replay. */
    public void addTotal(long updates) {
        total = total + updates;
    }

    /** An operator reading an import took in {@code updates} more of them. */
    public void addDone(long updates) {
        done = done + updates;
    }

    /** The dataflow has caught up with what existed when it was built: later batches are not counted into {@link #total}. */
    public void finish() {
        finished = true;
    }

    public boolean finished() {
        return finished;
    }

    public long total() {
        return total;
    }

    public long done() {
        return done;
    }
}
