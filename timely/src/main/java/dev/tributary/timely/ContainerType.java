package dev.tributary.timely;

/**
 * How to make, copy and split one kind of {@link Container}.
 *
 * <p>{@link #partition} distributes a whole container at once, so routing does one virtual call per
 * container, not per record.
 */
public interface ContainerType<C extends Container> {
    /** A new empty container. */
    C create();

    /**
     * A new empty container with room for about {@code records} records, so that filling it does
     * not copy its arrays as they double from a small start (a hydration's messages of thousands
     * of records copied each array a dozen times); the default ignores the hint.
     */
    default C create(int records) {
        return create();
    }

    /** Appends all records of {@code from} to {@code into}. */
    void appendAll(C from, C into);

    /**
     * Appends each record of {@code input} to {@code outputs[worker]}, where {@code worker} is the
     * worker that owns the record's key. {@code input} is left unchanged. Every element of
     * {@code outputs} is a {@code C} (the array is typed {@code Container[]} only because Java
     * cannot make generic arrays).
     */
    void partition(C input, Container[] outputs, Router router);
}
