package dev.tributary.differential;

/**
 * What a join of {@code long} keys and values produces for one key and one value from each side:
 * {@link Joiner} for {@link DataType#longs()} data, read and written without an object per key,
 * value or output.
 */
@FunctionalInterface
public interface LongJoiner {
    long join(long key, long left, long right);
}
