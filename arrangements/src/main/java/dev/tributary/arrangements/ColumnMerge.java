package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.Arrays;

/**
 * {@link Merger}'s general path: two adjacent batches of any columns and any time arity, merged
 * through the columns' comparisons, with times advanced by the since and consolidated.
 */
final class ColumnMerge {
    private final Batch older;
    private final Batch newer;
    private final Antichain since;
    private final PartedBuilder builder;
    private final int arity;
    /**
     * The plain batches read: the inputs themselves, or the current part of a parted input
     * ({@link #pa}, {@link #pb}), with the key reached in each.
     */
    private Batch a;
    private Batch b;
    private int pa;
    private int pb;
    private int ka;
    private int kb;
    private Batch result;
    // scratch for one (key, val)'s updates
    private long[] times = new long[16];
    private long[] diffs = new long[16];
    private int[] order = new int[16];
    private final long[] advanceScratch;
    private final IndexSort sorter = new IndexSort();

    ColumnMerge(Batch older, Batch newer, Antichain since) {
        this(older, newer, since, new Description(older.lower(), newer.upper(), since));
    }

    /**
     * A merge whose result is described by {@code description} whatever the inputs' ranges: a
     * {@link Batcher}'s spilled runs, which are not adjacent in time, merged by key.
     */
    ColumnMerge(Batch older, Batch newer, Antichain since, Description description) {
        this.older = older;
        this.newer = newer;
        this.since = since;
        this.arity = older.arity;
        this.advanceScratch = new long[arity];
        this.a = older.parts == null ? older : older.parts[0].batch();
        this.b = newer.parts == null ? newer : newer.parts[0].batch();
        this.builder = new PartedBuilder(older, newer, description);
    }

    /** Whether the older input has a key left, moving to its next part where the current one is read. */
    private boolean olderLeft() {
        while (ka >= a.keys.size()) {
            if (older.parts == null || pa + 1 >= older.parts.length) return false;
            a = older.parts[++pa].batch();
            ka = 0;
        }
        return true;
    }

    /** Whether the newer input has a key left, moving to its next part where the current one is read. */
    private boolean newerLeft() {
        while (kb >= b.keys.size()) {
            if (newer.parts == null || pb + 1 >= newer.parts.length) return false;
            b = newer.parts[++pb].batch();
            kb = 0;
        }
        return true;
    }

    boolean isDone() {
        return result != null;
    }

    Batch result() {
        return result;
    }

    /** Does about {@code fuel} updates of work; returns the fuel left over. */
    long work(long fuel) {
        if (result != null) return fuel;
        boolean la = olderLeft();
        boolean lb = newerLeft();
        while (fuel > 0 && (la || lb)) {
            int c = !la ? 1 : !lb ? -1 : a.keys.compare(ka, b.keys, kb);
            if (c < 0) {
                fuel -= mergeKey(a, ka, null, -1);
                ka++;
                la = olderLeft();
            } else if (c > 0) {
                fuel -= mergeKey(null, -1, b, kb);
                kb++;
                lb = newerLeft();
            } else {
                fuel -= mergeKey(a, ka, b, kb);
                ka++;
                kb++;
                la = olderLeft();
                lb = newerLeft();
            }
        }
        if (!la && !lb) result = builder.build();
        return fuel;
    }

    private long mergeKey(Batch a, int ka, Batch b, int kb) {
        int va = a == null ? 0 : a.keyOffsets[ka];
        int ea = a == null ? 0 : a.keyOffsets[ka + 1];
        int vb = b == null ? 0 : b.keyOffsets[kb];
        int eb = b == null ? 0 : b.keyOffsets[kb + 1];
        Column keyCol = a != null ? a.keys : b.keys;
        int keyIdx = a != null ? ka : kb;
        long work = 0;
        while (va < ea || vb < eb) {
            int c = va >= ea ? 1 : vb >= eb ? -1 : a.vals.compare(va, b.vals, vb);
            if (arity == 1) {
                work += mergeTotal(c <= 0 ? a : null, va, c >= 0 ? b : null, vb, keyCol, keyIdx, c <= 0 ? a.vals : b.vals, c <= 0 ? va : vb);
                if (c <= 0) va++;
                if (c >= 0) vb++;
                continue;
            }
            int n = 0;
            Column valCol;
            int valIdx;
            if (c <= 0) {
                n = gather(a, va, n);
                valCol = a.vals;
                valIdx = va;
            } else {
                valCol = b.vals;
                valIdx = vb;
            }
            if (c >= 0) n = gather(b, vb, n);
            if (c <= 0) va++;
            if (c >= 0) vb++;
            work += n;
            emit(keyCol, keyIdx, valCol, valIdx, n);
        }
        return Math.max(work, 1);
    }

    /**
     * Merges one value's time runs from both sides for totally ordered times: advancing by a
     * one-element since is monotone, so the runs stay sorted and equal times stay adjacent, and a
     * single pass merges, advances and consolidates them.
     */
    private int mergeTotal(Batch a, int va, Batch b, int vb, Column keyCol, int keyIdx, Column valCol, int valIdx) {
        long floor = since.isEmpty() ? Long.MIN_VALUE : since.get(0)[0];
        int i = a == null ? 0 : a.valOffsets[va];
        int ie = a == null ? 0 : a.valOffsets[va + 1];
        int j = b == null ? 0 : b.valOffsets[vb];
        int je = b == null ? 0 : b.valOffsets[vb + 1];
        int work = (ie - i) + (je - j);
        if (work > diffs.length) {
            diffs = new long[Math.max(work, diffs.length * 2)];
            times = new long[diffs.length];
            order = new int[diffs.length];
        }
        int n = TotalRuns.merge(a == null ? null : a.times, a == null ? null : a.diffs, i, ie,
                b == null ? null : b.times, b == null ? null : b.diffs, j, je, floor, times, diffs, 0);
        for (int k = 0; k < n; k++) builder.push(keyCol, keyIdx, valCol, valIdx, times, k, diffs[k]);
        return work;
    }

    private int gather(Batch batch, int val, int n) {
        int from = batch.valOffsets[val];
        int to = batch.valOffsets[val + 1];
        int count = to - from;
        if (n + count > diffs.length || (n + count) * arity > times.length) {
            int cap = Math.max(n + count, diffs.length * 2);
            diffs = Arrays.copyOf(diffs, cap);
            times = Arrays.copyOf(times, cap * arity);
            order = new int[cap];
        }
        System.arraycopy(batch.times, from * arity, times, n * arity, count * arity);
        System.arraycopy(batch.diffs, from, diffs, n, count);
        for (int u = n; u < n + count; u++) Times.advance(times, u * arity, since, advanceScratch);
        return n + count;
    }

    private void emit(Column keyCol, int keyIdx, Column valCol, int valIdx, int n) {
        for (int i = 0; i < n; i++) order[i] = i;
        long[] t = times;
        int a = arity;
        sorter.sort(order, n, (x, y) -> Times.compare(t, x * a, t, y * a, a));
        int i = 0;
        while (i < n) {
            int first = order[i];
            long sum = diffs[first];
            int j = i + 1;
            while (j < n && Times.equal(t, first * a, t, order[j] * a, a)) sum += diffs[order[j++]];
            if (sum != 0) builder.push(keyCol, keyIdx, valCol, valIdx, t, first * a, sum);
            i = j;
        }
    }
}
