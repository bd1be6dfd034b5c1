package dev.tributary.timely;

/**
 * A batch of records that moves through the dataflow as one message.
 *
 * <p>Records never travel alone: a container holds many (think 1-8 K), so the per-message costs of
 * progress accounting, queueing and scheduling are shared by all of them. Containers are reused:
 * once an operator's input callback returns, the runtime clears the container it was shown and
 * hands it back to whoever sent it. An operator that wants to keep records must copy them.
 */
public interface Container {
    /** The number of records. */
    int size();

    /** Removes all records, keeping the capacity for reuse. */
    void clear();

    /** About how many heap bytes the container keeps when cleared: what pooling it holds on to (0 if unknown). */
    default long heapBytes() {
        return 0;
    }
}
