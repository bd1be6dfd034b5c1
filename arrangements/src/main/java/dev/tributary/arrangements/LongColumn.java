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

    /**
     * Values per fence. Dense enough that the guess between two fences lands within a few values
     * of the answer (for values spread evenly: within 8 nearly always), sparse enough that the
     * fences stay in the cache: 1/128 of the column, with their radix table 0.9 MB for 10^7 values.
     */
    static final int FENCE_SPACING = 128;
    /** Values around each guess that the walk searches without branching (a window of two cache lines). */
    static final int WINDOW = 16;

    /**
     * Every {@value #FENCE_SPACING}th value of a column, the first level of its search, and a
     * radix table over them that finds the pair of fences around a probe without bisecting them:
     * a probe in bucket {@code b = (x - min) >>> shift} has its first fence {@code >= x} in
     * {@code keys[starts[b] .. starts[b + 1]]}. About two fences per bucket where the values
     * spread evenly; where they do not, a bucket holds more and is bisected, no worse than the
     * fences as a whole. Immutable (final fields), so a reader that finds it through a data race
     * sees it whole.
     */
    record Fences(long[] keys, int[] starts, long min, long range, int shift) {
        /** The first fence {@code >= x}. */
        int firstAtLeast(long x) {
            if (x <= min) return 0;
            long d = x - min; // exact as an unsigned number, since x > min
            if (Long.compareUnsigned(d, range) > 0) return keys.length;
            int b = (int) (d >>> shift);
            int lo = starts[b];
            int hi = starts[b + 1];
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (keys[mid] < x) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        long bytes() {
            return Column.arrayBytes(keys.length, 8) + Column.arrayBytes(starts.length, 4);
        }
    }

    /** This column's {@link Fences}; the column must not be empty. */
    Fences fences() {
        long[] f = new long[(size + FENCE_SPACING - 1) / FENCE_SPACING];
        for (int j = 0; j < f.length; j++) f[j] = values[j * FENCE_SPACING];
        long min = values[0];
        long range = values[size - 1] - min; // unsigned
        // half as many buckets as fences, rounded up to a power of two (at least two)
        int bits = Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(1, f.length / 2 - 1)));
        int shift = Math.max(0, 64 - Long.numberOfLeadingZeros(range) - bits);
        int buckets = (int) (range >>> shift) + 1;
        int[] starts = new int[buckets + 1];
        int b = 0;
        for (int j = 0; j < f.length; j++) {
            int fb = (int) ((f[j] - min) >>> shift);
            while (b <= fb) starts[b++] = j;
        }
        while (b <= buckets) starts[b++] = f.length;
        return new Fences(f, starts, min, range, shift);
    }

    /**
     * {@link #lowerBounds} through {@code index} (this column's {@link #fences()}). Each probe finds
     * its two fences through the radix table, in the cache; then each guesses its position in the block
     * of {@value #FENCE_SPACING} values between its two fences by interpolating between them, and
     * all the guesses are read at once, the one cache miss of the search; then all of them bisect
     * the {@value #WINDOW} values around their guesses together, without branching (a walk that
     * branched on each comparison would mispredict about every other one). Where the values spread
     * evenly within a block (numeric ids, hashes) the answer is nearly always inside the window, a
     * cache line or two around the guess; where it is not, that probe walks from its guess
     * (galloping, then bisecting) through its block, no worse than bisecting the block.
     */
    void lowerBounds(LongColumn probes, int[] which, int count, int[] positions, Fences index) {
        long[] q = probes.values;
        long[] a = values;
        int n = size;
        if (n == 0) {
            Arrays.fill(positions, 0, count, 0);
            return;
        }
        long[] fences = index.keys();
        // positions[p] first holds the first fence >= the probe
        for (int p = 0; p < count; p++) positions[p] = index.firstAtLeast(q[which == null ? p : which[p]]);
        // fence j >= x > fence j-1: the answer is in [lo, hi] = [S(j-1) + 1, min(Sj, n)] (j = 0: it is 0)
        int[][] scratch = scratchBounds(count);
        int[] guess = scratch[0];
        int[] base = scratch[1];
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
        // the window [wl, wl + WINDOW) around each guess, inside its block [lo, hi); base[p] < 0: no
        // window (no guess, or a block too short for one: the column's last)
        for (int p = 0; p < count; p++) {
            int j = positions[p];
            int g = guess[p];
            base[p] = j == 0 || g >= n ? -1 : windowStart(j, n, g);
        }
        for (int len = WINDOW; len > 1; ) {
            int half = len >>> 1;
            for (int p = 0; p < count; p++) {
                int b = base[p];
                if (b >= 0) base[p] = a[b + half] < q[which == null ? p : which[p]] ? b + half : b;
            }
            len -= half;
        }
        for (int p = 0; p < count; p++) {
            int j = positions[p];
            int g = guess[p];
            if (j == 0) {
                positions[p] = 0;
                continue;
            }
            if (g >= n) {
                positions[p] = n;
                continue;
            }
            long x = q[which == null ? p : which[p]];
            int lo = (j - 1) * FENCE_SPACING + 1;
            int hi = Math.min(j * FENCE_SPACING, n);
            int b = base[p];
            if (b < 0) {
                positions[p] = lowerBoundNear(a, lo, hi, g, x);
                continue;
            }
            int wl = windowStart(j, n, g);
            int wh = wl + WINDOW;
            // the bisection leaves b at the last index of the window below x, or at wl if none is
            int r = a[b] < x ? b + 1 : b;
            // that is the answer if something before it is smaller (or the block starts there) and
            // something at or after it is not (or the block ends there)
            positions[p] = (r > wl || wl == lo) && (r < wh || wh == hi) ? r : lowerBoundNear(a, lo, hi, g, x);
        }
    }

    /**
     * The first index of the window around guess {@code g} in the block below fence {@code j} (of
     * a column of {@code n} values), or -1 if the block holds fewer than {@value #WINDOW} values.
     */
    private static int windowStart(int j, int n, int g) {
        int lo = (j - 1) * FENCE_SPACING + 1;
        int hi = Math.min(j * FENCE_SPACING, n);
        if (hi - lo < WINDOW) return -1;
        return Math.max(lo, Math.min(g - WINDOW / 2, hi - WINDOW));
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

    private static final ThreadLocal<int[][]> BOUNDS = ThreadLocal.withInitial(() -> new int[][] {new int[256], new int[256]});

    /** Per-thread scratch for the fenced search's guesses and windows, each of at least {@code count} (no allocation per search). */
    private static int[][] scratchBounds(int count) {
        int[][] holder = BOUNDS.get();
        if (holder[0].length < count) {
            holder[0] = new int[Math.max(count, 2 * holder[0].length)];
            holder[1] = new int[holder[0].length];
        }
        return holder;
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
