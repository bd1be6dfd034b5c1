package dev.tributary.arrangements;

import java.util.Arrays;
import java.util.Comparator;

/**
 * A column of objects ordered by a comparator, for data with no primitive or byte encoding.
 * Values must be immutable and the comparator consistent with {@code equals} and {@code hashCode}.
 */
public final class ObjectColumn<T> extends Column {
    private final Comparator<? super T> order;
    private Object[] values;
    private int size;

    public ObjectColumn(Comparator<? super T> order) {
        this(order, 16);
    }

    public ObjectColumn(Comparator<? super T> order, int capacity) {
        this.order = order;
        this.values = new Object[Math.max(1, capacity)];
    }

    /** A column of naturally ordered values. */
    public static <T extends Comparable<? super T>> ObjectColumn<T> natural() {
        return new ObjectColumn<>(Comparator.naturalOrder());
    }

    public void add(T v) {
        if (size == values.length) values = Arrays.copyOf(values, size * 2);
        values[size++] = v;
    }

    @SuppressWarnings("unchecked")
    public T getValue(int i) {
        return (T) values[i];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    @SuppressWarnings("unchecked")
    public int compare(int i, Column other, int j) {
        return order.compare((T) values[i], (T) ((ObjectColumn<?>) other).values[j]);
    }

    @Override
    public void append(Column source, int i) {
        if (size == values.length) values = Arrays.copyOf(values, size * 2);
        values[size++] = ((ObjectColumn<?>) source).values[i];
    }

    @Override
    public long hash(int i) {
        return values[i].hashCode();
    }

    @Override
    public Column emptyLike(int capacity) {
        return new ObjectColumn<>(order, capacity);
    }

    @Override
    public void clear() {
        Arrays.fill(values, 0, size, null);
        size = 0;
    }

    @Override
    public void trim() {
        if (values.length != size) values = Arrays.copyOf(values, Math.max(size, 1));
    }

    @Override
    public long heapBytes() {
        return 24 + arrayBytes(values.length, 4);
    }

    @Override
    public Object get(int i) {
        return values[i];
    }
}
