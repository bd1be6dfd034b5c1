package dev.tributary.arrangements;

import java.util.Arrays;

/** A column of primitive {@code long}s, ordered numerically. */
public final class LongColumn extends Column {
    private long[] values;
    private int size;

    public LongColumn() {
        this(16);
    }

    /** A column over {@code values[0 .. size)}, taking ownership of the array. */
    LongColumn(long[] values, int size) {
        this.values = values.length == 0 ? new long[1] : values;
        this.size = size;
    }

    public LongColumn(int capacity) {
        values = new long[Math.max(1, capacity)];
    }

    public void add(long v) {
        if (size == values.length) values = Arrays.copyOf(values, size * 2);
        values[size++] = v;
    }

    /** The backing array; only the first {@link #size()} entries are values. */
    long[] array() {
        return values;
    }

    public long getLong(int i) {
        return values[i];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int compare(int i, Column other, int j) {
        return Long.compare(values[i], ((LongColumn) other).values[j]);
    }

    @Override
    public boolean equal(int i, Column other, int j) {
        return values[i] == ((LongColumn) other).values[j];
    }

    @Override
    public void appendRange(Column source, int from, int to) {
        int n = to - from;
        if (size + n > values.length) values = Arrays.copyOf(values, Math.max(size + n, values.length * 2));
        System.arraycopy(((LongColumn) source).values, from, values, size, n);
        size += n;
    }

    @Override
    public void append(Column source, int i) {
        add(((LongColumn) source).values[i]);
    }

    @Override
    public long hash(int i) {
        return values[i];
    }

    @Override
    public Column emptyLike(int capacity) {
        return new LongColumn(capacity);
    }

    @Override
    public void clear() {
        size = 0;
    }

    @Override
    public void trim() {
        if (values.length != size) values = Arrays.copyOf(values, Math.max(size, 1));
    }

    @Override
    public long heapBytes() {
        return 24 + arrayBytes(values.length, 8);
    }

    @Override
    public Object get(int i) {
        return values[i];
    }
}
