package dev.tributary.timely;

/**
 * A dataflow stopped because one of its operators threw ({@link Config#containFailures()}): its
 * probes throw this, on every worker, so a program waiting for its output learns why it will
 * never come. The cause is the {@link OperatorFailedException} naming the operator.
 */
public final class DataflowFailedException extends RuntimeException {
    private final String dataflow;

    DataflowFailedException(String dataflow, Throwable cause) {
        super("dataflow '" + dataflow + "' failed: " + cause.getMessage(), cause);
        this.dataflow = dataflow;
    }

    /** The failed dataflow's name. */
    public String dataflow() {
        return dataflow;
    }
}
