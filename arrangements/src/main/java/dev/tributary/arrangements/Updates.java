package dev.tributary.arrangements;

import dev.tributary.timely.Container;
import dev.tributary.timely.ContainerType;
import dev.tributary.timely.Router;
import java.util.Arrays;

/**
 * A container of unsorted updates {@code (key, val, time, diff)}, stored as columns: a key
 * column, a value column, times flat in a {@code long[]} with a stride of {@code arity}, and
 * diffs in a {@code long[]}. The unit in which updates travel to an arrangement.
 *
 * <p>Append a record by adding its key to {@link #keys()}, its value to {@link #vals()}, then
 * calling {@link #push(long, long)} (or {@link #push(long[], long)}); the columns stay aligned.
 */
public final class Updates implements Container {
    private final Column keys;
    private final Column vals;
    private final int arity;
    private long[] times;
    private long[] diffs;
    private int size;

    public Updates(Column keys, Column vals, int arity) {
        this(keys, vals, arity, 16);
    }

    /** Empty updates with room for {@code capacity} times and diffs (the columns have their own). */
    public Updates(Column keys, Column vals, int arity, int capacity) {
        this.keys = keys;
        this.vals = vals;
        this.arity = arity;
        int c = Math.max(1, capacity);
        this.times = new long[c * arity];
        this.diffs = new long[c];
    }

    /** The container type making updates with columns like {@code keys} and {@code vals}, exchanged by key hash. */
    public static ContainerType<Updates> type(Column keys, Column vals, int arity) {
        return new ContainerType<>() {
            @Override
            public Updates create() {
                return new Updates(keys.emptyLike(16), vals.emptyLike(16), arity);
            }

            @Override
            public Updates create(int records) {
                int capacity = Math.max(16, records);
                return new Updates(keys.emptyLike(capacity), vals.emptyLike(capacity), arity, capacity);
            }

            @Override
            public void appendAll(Updates from, Updates into) {
                into.appendAll(from);
            }

            @Override
            public void partition(Updates input, Container[] outputs, Router router) {
                for (int i = 0; i < input.size; i++) {
                    ((Updates) outputs[router.route(input.keys.hash(i))]).appendFrom(input, i);
                }
            }
        };
    }

    public Column keys() {
        return keys;
    }

    public Column vals() {
        return vals;
    }

    public int arity() {
        return arity;
    }

    /** Completes a record whose key and value were just appended, at an arity-1 time. */
    public void push(long time, long diff) {
        if (arity != 1) throw new IllegalStateException("push(long, long) is for times of arity 1; these updates have arity " + arity + ", use push(long[], long)");
        ensure();
        times[size * arity] = time;
        diffs[size++] = diff;
        checkAligned();
    }

    /** Completes a record whose key and value were just appended. */
    public void push(long[] time, long diff) {
        if (time.length != arity) throw new IllegalArgumentException("a time of arity " + time.length + " pushed to updates of arity " + arity);
        ensure();
        System.arraycopy(time, 0, times, size * arity, arity);
        diffs[size++] = diff;
        checkAligned();
    }

    /** Completes the {@code n} records whose keys and values were just appended, all at {@code time} with {@code diff}. */
    public void pushAll(long[] time, long diff, int n) {
        if (time.length != arity) throw new IllegalArgumentException("a time of arity " + time.length + " pushed to updates of arity " + arity);
        reserve(n);
        for (int r = size; r < size + n; r++) System.arraycopy(time, 0, times, r * arity, arity);
        Arrays.fill(diffs, size, size + n, diff);
        size += n;
        checkAligned();
    }

    /**
     * Completes the {@code n} records whose keys and values were just appended (a column at a
     * time, as a decoder fills them), with times {@code flat[0 .. n * arity)} and diffs
     * {@code diffs[0 .. n)}.
     */
    public void pushAll(long[] flat, long[] diffs, int n) {
        if (flat.length < n * arity || diffs.length < n) throw new IllegalArgumentException(n + " records need " + n * arity + " time coordinates and " + n + " diffs");
        reserve(n);
        System.arraycopy(flat, 0, times, size * arity, n * arity);
        System.arraycopy(diffs, 0, this.diffs, size, n);
        size += n;
        checkAligned();
    }

    /** Appends record {@code i} of {@code other} (same column classes and arity). */
    public void appendFrom(Updates other, int i) {
        keys.append(other.keys, i);
        vals.append(other.vals, i);
        ensure();
        System.arraycopy(other.times, i * arity, times, size * arity, arity);
        diffs[size++] = other.diffs[i];
    }

    /** Appends every record of {@code other} (same column classes and arity), column by column. */
    public void appendAll(Updates other) {
        if (other.arity != arity) throw new IllegalArgumentException("updates of arity " + other.arity + " appended to updates of arity " + arity);
        int n = other.size;
        keys.appendRange(other.keys, 0, n);
        vals.appendRange(other.vals, 0, n);
        reserve(n);
        System.arraycopy(other.times, 0, times, size * arity, n * arity);
        System.arraycopy(other.diffs, 0, diffs, size, n);
        size += n;
    }

    /** How many records the time and diff arrays have room for before they grow. */
    public int capacity() {
        return diffs.length;
    }

    /** Room for {@code n} more times and diffs. */
    private void reserve(int n) {
        if (size + n > diffs.length) {
            int capacity = Math.max(size + n, diffs.length * 2);
            diffs = Arrays.copyOf(diffs, capacity);
            times = Arrays.copyOf(times, capacity * arity);
        }
    }

    private void ensure() {
        if (size == diffs.length) {
            diffs = Arrays.copyOf(diffs, size * 2);
            times = Arrays.copyOf(times, size * 2 * arity);
        }
    }

    private void checkAligned() {
        if (keys.size() != size || vals.size() != size) {
            throw new IllegalStateException("updates misaligned: " + keys.size() + " keys and " + vals.size() + " values for " + size
                    + " times; append exactly one key and one value before each push");
        }
    }

    /** Completes a record whose key and value were just appended, at the time {@code flat[offset .. offset + arity)}. */
    public void push(long[] flat, int offset, long diff) {
        ensure();
        System.arraycopy(flat, offset, times, size * arity, arity);
        diffs[size++] = diff;
        checkAligned();
    }

    /** The flat time column, read-only; record {@code i}'s time is {@code [i * arity(), (i + 1) * arity())}. */
    public long[] times() {
        return times;
    }

    /** The diff column, read-only; record {@code i}'s diff is at {@code i}. */
    public long[] diffs() {
        return diffs;
    }

    public long time(int i) {
        return times[i * arity];
    }

    public long diff(int i) {
        return diffs[i];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public long heapBytes() {
        return 64 + keys.heapBytes() + vals.heapBytes() + 8L * (times.length + diffs.length);
    }

    @Override
    public void clear() {
        keys.clear();
        vals.clear();
        size = 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < size; i++) {
            if (i > 0) sb.append(", ");
            sb.append('(').append(keys.get(i)).append(", ").append(vals.get(i)).append(", ")
                    .append(Arrays.toString(Arrays.copyOfRange(times, i * arity, (i + 1) * arity))).append(", ").append(diffs[i]).append(')');
        }
        return sb.append(']').toString();
    }
}
