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

    /** The stream's frontier as this worker knows it. */
    public Antichain frontier() {
        return input.frontier();
    }

    /** Whether data at a time {@code <= t} may still pass. */
    public boolean lessEqual(long[] t) {
        return input.frontier().lessEqual(t);
    }

    /** Whether data at a time {@code < t} may still pass. */
    public boolean lessThan(long[] t) {
        return input.frontier().lessThan(t);
    }

    public boolean lessEqual(long t) {
        return input.frontier().lessEqual(t);
    }

    public boolean lessThan(long t) {
        return input.frontier().lessThan(t);
    }

    /** Whether the stream is complete: nothing more will ever pass. */
    public boolean isDone() {
        return input.frontier().isEmpty();
    }
}
