package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.Arrays;

/**
 * Buffers unsorted updates until their times are complete, then seals them into a batch.
 *
 * <p>{@link #seal(Antichain)} takes every buffered update whose time is not {@code >=} the new
 * frontier (its time can no longer receive updates), sorts it by {@code (key, val, time)},
 * consolidates, and builds one batch described by {@code [previous upper, upper)}; updates at
 * later times stay buffered. Sorting works on an index array and the columns, with no object per
 * update; buffers are reused across seals.
 */
public final class Batcher {
    private final Column keyProto;
    private final Column valProto;
    private final int arity;
    private Updates buffer;
    private Updates spare;
    private final IndexSort sorter = new IndexSort();
    private final LongTripleSort longSort = new LongTripleSort();
    private int[] index = new int[16];
    // per consolidated (key, val, time): its first record and its summed diff; reused
    private int[] groupFirst = new int[16];
    private long[] groupSum = new long[16];
    // the consolidated records in order, for (long, long) batches; reused
    private long[] sortedKeys = new long[0];
    private long[] sortedVals = new long[0];
    private long[] sortedTimes = new long[0];
    private long[] sortedDiffs = new long[0];
    private Antichain lower;
    private final Antichain since;

    /** Never written: the values of a unit column, as longs, for the (long, long) sort. */
    private long[] zeros = new long[0];

    private long[] zeros(int n) {
        if (zeros.length < n) zeros = new long[Math.max(n, zeros.length * 2)];
        return zeros;
    }

    public Batcher(Column keyProto, Column valProto, int arity) {
        this.keyProto = keyProto;
        this.valProto = valProto;
        this.arity = arity;
        this.buffer = new Updates(keyProto.emptyLike(16), valProto.emptyLike(16), arity);
        this.spare = new Updates(keyProto.emptyLike(16), valProto.emptyLike(16), arity);
        this.lower = Antichain.of(new long[arity]);
        this.since = lower;
    }

    /** Copies {@code updates} into the buffer. */
    public void push(Updates updates) {
        if (updates.arity() != arity) throw new IllegalArgumentException("updates of arity " + updates.arity() + " pushed to a batcher of arity " + arity);
        buffer.appendAll(updates);
    }

    /** The number of buffered updates. */
    public int buffered() {
        return buffer.size();
    }

    /** The lower bound of the next batch: the upper of the last one sealed. */
    public Antichain lower() {
        return lower;
    }

    /** The minimal times of buffered updates (what a holder of this batcher must keep capabilities for). */
    public Antichain pendingFrontier() {
        Antichain.Builder b = new Antichain.Builder(arity);
        long[] times = buffer.times();
        long[] last = null;
        for (int i = 0; i < buffer.size(); i++) {
            if (last != null && Times.equal(last, 0, times, i * arity, arity)) continue;
            last = Arrays.copyOfRange(times, i * arity, (i + 1) * arity);
            b.insert(last);
        }
        return b.build();
    }

    /** Seals every buffered update at a time not {@code >=} {@code upper} into a batch {@code [lower, upper)}. */
    public Batch seal(Antichain upper) {
        int n = buffer.size();
        if (index.length < n) index = new int[Math.max(n, index.length * 2)];
        long[] times = buffer.times();
        int ready = 0;
        spare.clear();
        for (int i = 0; i < n; i++) {
            if (Times.beyond(upper, times, i * arity)) spare.appendFrom(buffer, i);
            else index[ready++] = i;
        }
        Column keys = buffer.keys();
        Column vals = buffer.vals();
        int a = arity;
        if (a == 1 && keys instanceof LongColumn lk && (vals instanceof LongColumn || vals instanceof UnitColumn)) {
            // A unit value sorts as the value 0 of every record.
            long[] v = vals instanceof LongColumn lv ? lv.array() : zeros(n);
            longSort.sort(index, ready, lk.array(), v, times);
        } else sorter.sort(index, ready, (x, y) -> {
            int c = keys.compare(x, keys, y);
            if (c != 0) return c;
            c = vals.compare(x, vals, y);
            if (c != 0) return c;
            return Times.compare(times, x * a, times, y * a, a);
        });
        long[] diffs = buffer.diffs();
        Batch batch = a == 1 && keys instanceof LongColumn lk && vals instanceof LongColumn lv
                ? buildLongs(lk.array(), lv.array(), times, diffs, ready, new Description(lower, upper, since))
                : build(keys, vals, times, diffs, ready, new Description(lower, upper, since));
        Updates t = buffer;
        buffer = spare;
        spare = t;
        spare.clear();
        lower = upper;
        return batch;
    }

    /** Consolidates the {@code ready} sorted records of {@link #index} into a batch, through the columns. */
    private Batch build(Column keys, Column vals, long[] times, long[] diffs, int ready, Description description) {
        int a = arity;
        // Consolidate first, then count the keys and values that survive, so the batch's arrays
        // are allocated at their final size and never copied to trim them.
        if (groupFirst.length < ready) {
            groupFirst = new int[Math.max(ready, groupFirst.length * 2)];
            groupSum = new long[groupFirst.length];
        }
        int groups = 0;
        int i = 0;
        while (i < ready) {
            int first = index[i];
            long sum = diffs[first];
            int j = i + 1;
            while (j < ready) {
                int next = index[j];
                if (!keys.equal(first, keys, next) || !vals.equal(first, vals, next) || !Times.equal(times, first * a, times, next * a, a)) break;
                sum += diffs[next];
                j++;
            }
            if (sum != 0) {
                groupFirst[groups] = first;
                groupSum[groups++] = sum;
            }
            i = j;
        }
        int distinctKeys = 0;
        int distinctVals = 0;
        for (int g = 0; g < groups; g++) {
            int x = groupFirst[g];
            if (g == 0 || !keys.equal(groupFirst[g - 1], keys, x)) {
                distinctKeys++;
                distinctVals++;
            } else if (!vals.equal(groupFirst[g - 1], vals, x)) {
                distinctVals++;
            }
        }
        BatchBuilder builder = new BatchBuilder(keyProto, valProto, arity, groups, distinctKeys, distinctVals);
        for (int g = 0; g < groups; g++) {
            int x = groupFirst[g];
            builder.push(keys, x, vals, x, times, x * a, groupSum[g]);
        }
        return builder.build(description);
    }

    /**
     * {@link #build} for (long, long) records at arity-1 times, reading the buffer's arrays
     * directly: one pass consolidates the sorted records into sequential scratch and counts the
     * distinct keys and values, so the batch's arrays are allocated at their final size and filled
     * by a second, sequential pass.
     */
    /** The arrays of every empty (long, long) batch the batcher seals: nothing writes a batch's arrays, and no pool takes these. */
    private static final long[] NO_LONGS = new long[0];
    private static final int[] NO_OFFSETS = new int[1];

    private Batch buildLongs(long[] k, long[] v, long[] t, long[] d, int ready, Description description) {
        if (sortedKeys.length < ready) {
            int cap = Math.max(ready, sortedKeys.length * 2);
            sortedKeys = new long[cap];
            sortedVals = new long[cap];
            sortedTimes = new long[cap];
            sortedDiffs = new long[cap];
        }
        long[] sk = sortedKeys;
        long[] sv = sortedVals;
        long[] st = sortedTimes;
        long[] sd = sortedDiffs;
        int groups = 0;
        int distinctKeys = 0;
        int distinctVals = 0;
        int i = 0;
        while (i < ready) {
            int first = index[i];
            long key = k[first];
            long val = v[first];
            long time = t[first];
            long sum = d[first];
            int j = i + 1;
            while (j < ready) {
                int next = index[j];
                if (k[next] != key || v[next] != val || t[next] != time) break;
                sum += d[next];
                j++;
            }
            if (sum != 0) {
                if (groups == 0 || sk[groups - 1] != key) {
                    distinctKeys++;
                    distinctVals++;
                } else if (sv[groups - 1] != val) {
                    distinctVals++;
                }
                sk[groups] = key;
                sv[groups] = val;
                st[groups] = time;
                sd[groups++] = sum;
            }
            i = j;
        }
        if (groups == 0) {
            // a frontier advance without data (one per step on a quiet input): arrays shared by all such batches, never pooled
            return new Batch(new LongColumn(NO_LONGS, 0), NO_OFFSETS, new LongColumn(NO_LONGS, 0), NO_OFFSETS, NO_LONGS, NO_LONGS, 0, 1, description,
                    Long.MIN_VALUE);
        }
        // from the thread's pool where it has arrays that fit: a batch its readers release and its trace merges away gives them back
        MergeScratch pool = MergeScratch.ofThread();
        long[] keys = pool.longsFitting(distinctKeys);
        int[] keyOffsets = pool.intsFitting(distinctKeys + 1);
        long[] vals = pool.longsFitting(distinctVals);
        int[] valOffsets = pool.intsFitting(distinctVals + 1);
        long[] times = pool.longsFitting(groups);
        long[] diffs = pool.longsFitting(groups);
        System.arraycopy(st, 0, times, 0, groups);
        System.arraycopy(sd, 0, diffs, 0, groups);
        int nk = 0;
        int nv = 0;
        for (int g = 0; g < groups; g++) {
            if (g == 0 || sk[g - 1] != sk[g]) {
                keys[nk] = sk[g];
                keyOffsets[nk++] = nv;
                vals[nv] = sv[g];
                valOffsets[nv++] = g;
            } else if (sv[g - 1] != sv[g]) {
                vals[nv] = sv[g];
                valOffsets[nv++] = g;
            }
        }
        keyOffsets[nk] = nv;
        valOffsets[nv] = groups;
        return new Batch(new LongColumn(keys, nk), keyOffsets, new LongColumn(vals, nv), valOffsets, times, diffs, groups, 1, description,
                Batch.maxTime(times, groups, 1));
    }
}
