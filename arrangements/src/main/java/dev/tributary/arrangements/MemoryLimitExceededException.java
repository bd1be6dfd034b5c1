package dev.tributary.arrangements;

/**
 * A dataflow held more than its {@link HeldState.Limit} allows. Thrown by the operator that found
 * it out; the dataflow fails with it, as with any operator failure, and only that dataflow.
 */
public final class MemoryLimitExceededException extends RuntimeException {
    public MemoryLimitExceededException(String message) {
        super(message, null, false, false);
    }
}
