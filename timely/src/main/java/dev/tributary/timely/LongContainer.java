package dev.tributary.timely;

import java.util.Arrays;

/**
 * A container of primitive {@code long} records, with no object per record.
 */
public final class LongContainer implements Container {
    /** The container type; {@link ContainerType#partition partition} routes by the value itself. */
    public static final ContainerType<LongContainer> TYPE = new ContainerType<>() {
        @Override
        public LongContainer create() {
            return new LongContainer(InputHandle.BATCH);
        }

        @Override
        public void appendAll(LongContainer from, LongContainer into) {
            into.addAll(from.values, 0, from.size);
        }

        @Override
        public void partition(LongContainer input, Container[] outputs, Router router) {
            long[] v = input.values;
            for (int i = 0, n = input.size; i < n; i++) {
                ((LongContainer) outputs[router.route(v[i])]).add(v[i]);
            }
        }
    };

    private long[] values;
    private int size;

    public LongContainer() {
        this(16);
    }

    public LongContainer(int capacity) {
        values = new long[Math.max(1, capacity)];
    }

    @Override
    public long heapBytes() {
        return 16 + 8L * values.length;
    }

    /** A container holding the given values. */
    public static LongContainer of(long... values) {
        LongContainer c = new LongContainer(values.length);
        c.addAll(values, 0, values.length);
        return c;
    }

    public void add(long v) {
        if (size == values.length) values = Arrays.copyOf(values, size * 2);
        values[size++] = v;
    }

    public void addAll(long[] src, int from, int count) {
        if (size + count > values.length) values = Arrays.copyOf(values, Math.max(size + count, values.length * 2));
        System.arraycopy(src, from, values, size, count);
        size += count;
    }

    public long get(int i) {
        if (i >= size) throw new IndexOutOfBoundsException("index " + i + " of a container of " + size);
        return values[i];
    }

    /** The backing array; only the first {@link #size()} entries are records. */
    public long[] values() {
        return values;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void clear() {
        size = 0;
    }

    @Override
    public String toString() {
        return Arrays.toString(Arrays.copyOf(values, size));
    }
}
