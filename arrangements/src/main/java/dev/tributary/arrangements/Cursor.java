package dev.tributary.arrangements;

/**
 * Walks updates in order: keys, then each key's values, then each value's {@code (time, diff)}s.
 *
 * <p>Positions: {@link #keyValid()} is false once the keys are exhausted; {@link #valValid()} is
 * false once the current key's values are. Stepping or seeking a key resets the values to the
 * key's first. Seeks only move forward. The current key and value are read in place, as a column
 * and an index ({@link #keyColumn()}, {@link #keyIndex()}), so nothing is materialized.
 */
public interface Cursor {
    boolean keyValid();

    boolean valValid();

    /** The column holding the current key, read at {@link #keyIndex()}. */
    Column keyColumn();

    int keyIndex();

    /** The column holding the current value, read at {@link #valIndex()}. */
    Column valColumn();

    int valIndex();

    void stepKey();

    /** Moves to the first key {@code >=} key {@code i} of {@code column}. */
    void seekKey(Column column, int i);

    /**
     * Moves to key {@code i} of {@code column} and returns true if the cursor holds that key.
     * Otherwise returns false, and the cursor is only known to be at or before the first key
     * {@code >=} it: only a seek or {@link #rewindKeys} may follow, before anything is read. A
     * cursor prepared for the key ({@link #prepareSeeks}) may answer false without searching a
     * batch that certainly lacks it, which is the point: looking up keys one by one, a caller
     * never needs the keys between them.
     */
    default boolean seekKeyExact(Column column, int i) {
        seekKey(column, i);
        return keyValid() && keyColumn().equal(keyIndex(), column, i);
    }

    /**
     * A hint that the coming {@link #seekKey} calls will mostly be for values of {@code keys}
     * (sorted), in order, each sought from wherever the cursor is ({@link #seekKey} or
     * {@link #seekKeyExact}). A cursor over a batch far larger than the probes searches for all of
     * them at once (see {@link Column#lowerBounds}), so each such seek is then a jump; other seeks
     * work as before. The hint holds until the next call. The column must not change while the
     * hint holds.
     */
    default void prepareSeeks(Column keys) {}

    void stepVal();

    /** Moves to the first value of the current key {@code >=} value {@code i} of {@code column}. */
    void seekVal(Column column, int i);

    /** Back to the current key's first value. */
    void rewindVals();

    /** Back to the first key. */
    void rewindKeys();

    /** Receives one {@code (time, diff)}: the time is {@code times[offset .. offset + arity)}. */
    @FunctionalInterface
    interface TimeDiffConsumer {
        void accept(long[] times, int offset, long diff);
    }

    /** Calls {@code consumer} for each {@code (time, diff)} of the current value. */
    void forEachTime(TimeDiffConsumer consumer);

    /** The sum of the current value's diffs at times {@code <= time}. */
    long accumulate(long[] time);
}
