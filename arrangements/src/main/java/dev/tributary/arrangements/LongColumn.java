package dev.tributary.arrangements;

import java.util.Arrays;

/** A column of primitive {@code long}s, ordered numerically. */
public final class LongColumn extends Column {
    private long[] values;
    private int size;

    public LongColumn() {
        this(16);
    }

    /** A column over {@code values[0 .. size)}, taking ownership of the array (which may be empty, and then shared). */
    LongColumn(long[] values, int size) {
        this.values = values;
        this.size = size;
    }

    public LongColumn(int capacity) {
        values = new long[Math.max(1, capacity)];
    }

    public void add(long v) {
        if (size == values.length) values = Arrays.copyOf(values, Math.max(16, size * 2));
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
        lockstepLowerBounds(values, size, ((LongColumn) probes).values, which, count, positions);
    }

    /**
     * For the probes {@code q[which[p]]} ({@code which == null}: {@code q[p]}), the first index of
     * sorted {@code a[0 .. n)} holding at least each, into {@code positions}: the branch-free
     * bisection of {@link Column#lowerBounds}, level by level over all the probes.
     */
    private static void lockstepLowerBounds(long[] a, int n, long[] q, int[] which, int count, int[] positions) {
        Arrays.fill(positions, 0, count, 0);
        if (n == 0) return;
        for (int len = n; len > 1; ) {
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

    /** Values per fence: few enough fences to stay in the cache (20 KB for 10^7 values). */
    static final int FENCE_SPACING = 4096;

    /** Every {@value #FENCE_SPACING}th value: a column's first level of search, small enough to stay in the cache. */
    long[] fences() {
        long[] f = new long[(size + FENCE_SPACING - 1) / FENCE_SPACING];
        for (int j = 0; j < f.length; j++) f[j] = values[j * FENCE_SPACING];
        return f;
    }

    /**
     * {@link #lowerBounds} through {@code fences} (this column's {@link #fences()}). The probes
     * search the fences, all at once and in the cache; then each guesses its position in the block
     * of {@value #FENCE_SPACING} values between its two fences by interpolating between them, and
     * all the guesses are read at once, the one cache miss of the search; then each walks from its
     * guess (galloping, then bisecting) to the exact position. Where the values spread evenly
     * within a block (numeric ids, hashes) the guess lands within a cache line or two of the
     * answer, where a bisection of a column far larger than the cache misses once per level below
     * what the cache holds; where they do not, the walk is a search of the block, no worse than
     * bisecting it.
     */
    void lowerBounds(LongColumn probes, int[] which, int count, int[] positions, long[] fences) {
        long[] q = probes.values;
        long[] a = values;
        int n = size;
        if (n == 0) {
            Arrays.fill(positions, 0, count, 0);
            return;
        }
        // positions[p] first holds the first fence >= the probe
        lockstepLowerBounds(fences, fences.length, q, which, count, positions);
        // fence j >= x > fence j-1: the answer is in [lo, hi] = [S(j-1) + 1, min(Sj, n)] (j = 0: it is 0)
        int[] guess = scratchBounds(count);
        long sum = 0;
        for (int p = 0; p < count; p++) {
            int j = positions[p];
            if (j == 0) {
                guess[p] = -1;
                continue;
            }
            long x = q[which == null ? p : which[p]];
            int left = (j - 1) * FENCE_SPACING;
            int right = Math.min(j * FENCE_SPACING, n - 1);
            long lv = fences[j - 1];
            long rv = j < fences.length ? fences[j] : a[n - 1];
            int g;
            if (rv < x) {
                g = n; // beyond the last value
            } else {
                double f = ((double) x - (double) lv) / ((double) rv - (double) lv);
                g = left + (int) Math.max(1, Math.min(right - left, Math.round(f * (right - left))));
                sum += a[Math.min(g, n - 1)];
            }
            guess[p] = g;
        }
        touched = sum;
        for (int p = 0; p < count; p++) {
            int j = positions[p];
            int g = guess[p];
            if (j == 0) positions[p] = 0;
            else if (g >= n) positions[p] = n;
            else positions[p] = lowerBoundNear(a, (j - 1) * FENCE_SPACING + 1, Math.min(j * FENCE_SPACING, n), g, q[which == null ? p : which[p]]);
        }
    }

    /** Keeps the guesses' reads from being optimized away. */
    private static long touched;

    /**
     * The first index {@code i} in {@code [lo, hi]} with {@code i == hi} or {@code a[i] >= x}, given
     * that every index before {@code lo} holds less than {@code x} and that {@code a[hi]} (if
     * {@code hi < a}'s used length) holds at least {@code x}; found by galloping from {@code g}.
     */
    static int lowerBoundNear(long[] a, int lo, int hi, int g, long x) {
        if (lo >= hi) return lo;
        g = Math.max(lo, Math.min(g, hi - 1));
        int from;
        int to;
        if (a[g] < x) {
            // the answer is in (g, hi]
            int left = g;
            int step = 1;
            int right = Math.min(hi, left + 1);
            while (right < hi && a[right] < x) {
                left = right;
                step <<= 1;
                right = Math.min(hi, left + step);
            }
            from = left + 1;
            to = right;
        } else {
            // the answer is in [lo, g]
            int right = g;
            int step = 1;
            int left = g - 1;
            while (left >= lo && a[left] >= x) {
                right = left;
                step <<= 1;
                left = Math.max(lo - 1, right - step);
            }
            from = left + 1;
            to = right;
        }
        while (from < to) {
            int mid = (from + to) >>> 1;
            if (a[mid] < x) from = mid + 1;
            else to = mid;
        }
        return from;
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
