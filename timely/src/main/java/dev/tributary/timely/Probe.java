package dev.tributary.timely;

/**
 * Watches the frontier of a stream, so the worker's program can wait for a time to be complete:
 * once {@code !probe.lessEqual(t)}, every record at {@code t} has gone past the probe on every
 * worker. Read it from the worker's thread that built it.
 */
public final class Probe {
    private final InputPort<?> input;

    Probe(InputPort<?> input) {
        this.input = input;
    }

    /**
     * The stream's frontier as this worker knows it.
     *
     * @throws DataflowFailedException if the stream's dataflow stopped because an operator
     *     failed: its frontier will never move (so do all the methods below)
     */
    public Antichain frontier() {
        DataflowFailedException failure = input.operator.dataflow.failure();
        if (failure != null) throw failure;
        return input.frontier();
    }

    /** Whether data at a time {@code <= t} may still pass. */
    public boolean lessEqual(long[] t) {
        return frontier().lessEqual(t);
    }

    /** Whether data at a time {@code < t} may still pass. */
    public boolean lessThan(long[] t) {
        return frontier().lessThan(t);
    }

    public boolean lessEqual(long t) {
        return frontier().lessEqual(t);
    }

    public boolean lessThan(long t) {
        return frontier().lessThan(t);
    }

    /** Whether the stream is complete: nothing more will ever pass. */
    public boolean isDone() {
        return frontier().isEmpty();
    }
}
