package dev.tributary.arrangements;

/**
 * A column whose values are all the same nothing, for arrangements of a collection by itself
 * (every record is a key with no value). Stores only a count.
 */
public final class UnitColumn extends Column {
    private int size;

    public void add() {
        size++;
    }

    /** Adds {@code n} values. */
    public void add(int n) {
        size += n;
    }

    @Override
    public void appendRange(Column source, int from, int to) {
        size += to - from;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int compare(int i, Column other, int j) {
        return 0;
    }

    @Override
    public void append(Column source, int i) {
        size++;
    }

    @Override
    public long hash(int i) {
        return 0;
    }

    @Override
    public Column emptyLike(int capacity) {
        return new UnitColumn();
    }

    @Override
    public void clear() {
        size = 0;
    }

    @Override
    public void trim() {}

    @Override
    public long heapBytes() {
        return 16;
    }

    @Override
    public Object get(int i) {
        return "()";
    }
}
