package dev.tributary.timely;

/**
 * Thrown on a worker whose computation was stopped because another worker failed; unwinds that
 * worker's program. {@link Execution#join()} reports the original failure, not this.
 */
public final class DataflowAbortedException extends RuntimeException {
    DataflowAbortedException(Throwable cause) {
        super("the computation was stopped because a worker failed: " + cause, cause, false, false);
    }
}
