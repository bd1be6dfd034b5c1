package dev.tributary.differential;

/**
 * The per-key function of {@link Arrangement#reduce}: from a key's accumulated values (each with
 * its non-zero count, in value order) to output values with counts. It must be a function of
 * its input alone: it is called again whenever, and at whatever time, the input may have changed,
 * and the operator emits the difference from what it produced before. It is not called for a
 * key with no values.
 */
@FunctionalInterface
public interface Reducer<K, V, R> {
    void reduce(K key, Input<V> input, Output<R> output);

    /** A key's values and their counts, valid only during the call. */
    interface Input<V> {
        int size();

        V value(int i);

        long count(int i);
    }

    /** Receives the output values; values equal under the output type's order are summed. */
    interface Output<R> {
        void add(R value, long count);

        /**
         * {@link #add} of a {@code long}, with no object made: for a reduce whose output type is
         * {@link DataType#longs()}.
         *
         * @throws IllegalStateException if the output type is not {@link DataType#longs()}
         */
        void addLong(long value, long count);
    }
}
