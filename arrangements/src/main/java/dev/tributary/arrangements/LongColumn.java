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
    public void lowerBounds(Column probes, int[] which, int count, int[] positions) {
        long[] q = ((LongColumn) probes).values;
        long[] a = values;
        java.util.Arrays.fill(positions, 0, count, 0);
        if (size == 0) return;
        for (int len = size; len > 1; ) {
            int half = len >>> 1;
            if (which == null) {
                for (int p = 0; p < count; p++) {
                    int base = positions[p];
                    positions[p] = a[base + half] < q[p] ? base + half : base;
                }
            } else {
                for (int p = 0; p < count; p++) {
                    int base = positions[p];
                    positions[p] = a[base + half] < q[which[p]] ? base + half : base;
                }
            }
            len -= half;
        }
        for (int p = 0; p < count; p++) {
            if (a[positions[p]] < q[which == null ? p : which[p]]) positions[p]++;
        }
    }

    /** Keys per fence: a block of them is eight cache lines. */
    static final int FENCE_SPACING = 64;

    /** Every {@value #FENCE_SPACING}th value: a column's first level of search, small enough to stay in the cache. */
    long[] fences() {
        long[] f = new long[(size + FENCE_SPACING - 1) / FENCE_SPACING];
        for (int j = 0; j < f.length; j++) f[j] = values[j * FENCE_SPACING];
        return f;
    }

    /**
     * {@link #lowerBounds} through {@code fences} (this column's {@link #fences()}): the probes
     * search the fences first, all at once, then each the block of {@value #FENCE_SPACING} values
     * its fence leads to, again all at once. A probe of a column far larger than the cache then
     * misses in about three cache lines of one page, where a bisection of the whole column misses
     * in one line and one page per level below what the cache holds.
     */
    void lowerBounds(LongColumn probes, int[] which, int count, int[] positions, long[] fences) {
        long[] q = probes.values;
        long[] a = values;
        int n = size;
        // positions[p] first holds the first fence >= the probe
        Arrays.fill(positions, 0, count, 0);
        for (int len = fences.length; len > 1; ) {
            int half = len >>> 1;
            for (int p = 0; p < count; p++) {
                int base = positions[p];
                positions[p] = fences[base + half] < q[which == null ? p : which[p]] ? base + half : base;
            }
            len -= half;
        }
        for (int p = 0; p < count; p++) {
            if (fences[positions[p]] < q[which == null ? p : which[p]]) positions[p]++;
        }
        // fence j >= q > fence j-1: the answer is in (S(j-1), min(Sj, n)]; search (S(j-1), min(Sj, n))
        // with every value from the window's end on read as +infinity, so all probes take the same steps
        int[] hi = scratchBounds(count);
        for (int p = 0; p < count; p++) {
            int j = positions[p];
            int lo = j == 0 ? 0 : (j - 1) * FENCE_SPACING + 1;
            hi[p] = j == 0 ? 0 : Math.min(j * FENCE_SPACING, n);
            positions[p] = lo;
        }
        for (int len = FENCE_SPACING - 1; len > 1; ) {
            int half = len >>> 1;
            for (int p = 0; p < count; p++) {
                int base = positions[p];
                int i = base + half;
                positions[p] = i < hi[p] && a[i] < q[which == null ? p : which[p]] ? i : base;
            }
            len -= half;
        }
        for (int p = 0; p < count; p++) {
            int base = positions[p];
            if (base < hi[p] && a[base] < q[which == null ? p : which[p]]) positions[p]++;
        }
    }

    private static final ThreadLocal<int[][]> BOUNDS = ThreadLocal.withInitial(() -> new int[][] {new int[256]});

    /** Per-thread scratch for the fenced search's window ends (no allocation per search). */
    private static int[] scratchBounds(int count) {
        int[][] holder = BOUNDS.get();
        if (holder[0].length < count) holder[0] = new int[Math.max(count, 2 * holder[0].length)];
        return holder[0];
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
