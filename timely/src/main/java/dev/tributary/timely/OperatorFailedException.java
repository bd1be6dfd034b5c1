package dev.tributary.timely;

/**
 * An operator's logic threw. By default the computation was stopped on every worker, and this
 * reaches the caller of {@link Execution#join()}; with {@link Config#containFailures()} only the
 * operator's dataflow was stopped, and this is the cause of its {@link DataflowFailedException}.
 * It names the operator and the worker it ran on.
 */
public final class OperatorFailedException extends RuntimeException {
    private final String operator;
    private final int worker;

    OperatorFailedException(String operator, int worker, Throwable cause) {
        super("operator '" + operator + "' failed on worker " + worker + ": " + cause, cause);
        this.operator = operator;
        this.worker = worker;
    }

    /** The operator's name and id, as {@code name#id}. */
    public String operator() {
        return operator;
    }

    public int worker() {
        return worker;
    }
}
