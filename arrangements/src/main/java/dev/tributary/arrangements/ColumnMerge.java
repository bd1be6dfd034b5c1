package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.Arrays;
import java.util.List;

/**
 * {@link Merger}'s general path: batches of any columns and any time arity, adjacent in time and
 * oldest first, merged in one pass through the columns' comparisons, with times advanced by the
 * since and consolidated.
 *
 * <p>All inputs are read at once: each step finds the least key among the inputs' current keys
 * (ties included, a linear scan: there are a handful of inputs), then the least value among those
 * keys' values, and writes each {@code (key, val)} once. A merge of {@code n} batches so reads
 * and writes each update once, where a chain of pairwise merges wrote it up to {@code n - 1}
 * times: for a trace that only grows, whose merges consolidate nothing, the copies are the cost.
 */
final class ColumnMerge {
    private final Batch[] inputs;
    private final Antichain since;
    private final PartedBuilder builder;
    private final int arity;
    /**
     * Per input, the plain batch read: the input itself, or its current part ({@link #part}), with
     * the key reached there ({@link #key}) and the value reached within that key ({@link #val}).
     */
    private final Batch[] plain;
    private final int[] part;
    private final int[] key;
    private final int[] val;
    /** Inputs with keys left, and per step those holding the least key, then the least value among them. */
    private final int[] live;
    private int liveCount;
    private final int[] atKey;
    private final int[] atVal;
    private Batch result;
    // scratch for one (key, val)'s updates
    private long[] times = new long[16];
    private long[] diffs = new long[16];
    private int[] order = new int[16];
    private final long[] advanceScratch;
    private final IndexSort sorter = new IndexSort();
    /** Whether the key being merged, and its value being merged, have had an update written. */
    private boolean keyWritten;
    private boolean valWritten;

    ColumnMerge(Batch older, Batch newer, Antichain since) {
        this(List.of(older, newer), since);
    }

    /** A merge of {@code inputs}, adjacent in time and oldest first, into one batch covering them all. */
    ColumnMerge(List<Batch> inputs, Antichain since) {
        this(inputs, since, new Description(inputs.get(0).lower(), inputs.get(inputs.size() - 1).upper(), since));
    }

    /**
     * A merge whose result is described by {@code description} whatever the inputs' ranges: a
     * {@link Batcher}'s spilled runs, which are not adjacent in time, merged by key.
     */
    ColumnMerge(Batch older, Batch newer, Antichain since, Description description) {
        this(List.of(older, newer), since, description);
    }

    private ColumnMerge(List<Batch> inputs, Antichain since, Description description) {
        int n = inputs.size();
        this.inputs = inputs.toArray(new Batch[0]);
        this.since = since;
        this.arity = this.inputs[0].arity;
        this.advanceScratch = new long[arity];
        this.plain = new Batch[n];
        this.part = new int[n];
        this.key = new int[n];
        this.val = new int[n];
        this.live = new int[n];
        this.atKey = new int[n];
        this.atVal = new int[n];
        for (int i = 0; i < n; i++) {
            Batch b = this.inputs[i];
            plain[i] = b.parts == null ? b : b.parts[0].batch();
            if (hasKey(i)) live[liveCount++] = i;
        }
        this.builder = new PartedBuilder(this.inputs, description);
    }

    /** Whether input {@code i} has a key left, moving to its next part where the current one is read. */
    private boolean hasKey(int i) {
        while (key[i] >= plain[i].keys.size()) {
            Batch whole = inputs[i];
            if (whole.parts == null || part[i] + 1 >= whole.parts.length) return false;
            plain[i] = whole.parts[++part[i]].batch();
            key[i] = 0;
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
        while (fuel > 0 && liveCount > 0) {
            // the inputs at the least key, in input order (older first)
            int least = live[0];
            int ties = 1;
            atKey[0] = least;
            for (int l = 1; l < liveCount; l++) {
                int i = live[l];
                int c = plain[i].keys.compare(key[i], plain[least].keys, key[least]);
                if (c < 0) {
                    least = i;
                    ties = 0;
                }
                if (c <= 0) atKey[ties++] = i;
            }
            fuel -= mergeKey(ties);
            int kept = 0;
            for (int l = 0; l < liveCount; l++) {
                int i = live[l];
                if (contains(atKey, ties, i)) {
                    key[i]++;
                    if (!hasKey(i)) continue;
                }
                live[kept++] = i;
            }
            liveCount = kept;
        }
        if (liveCount == 0) result = builder.build();
        return fuel;
    }

    private static boolean contains(int[] set, int n, int x) {
        for (int i = 0; i < n; i++) {
            if (set[i] == x) return true;
        }
        return false;
    }

    /** Writes the key at which the inputs {@code atKey[0, ties)} stand, merging their values. */
    private long mergeKey(int ties) {
        keyWritten = false;
        int first = atKey[0];
        Column keyCol = plain[first].keys;
        int keyIdx = key[first];
        for (int t = 0; t < ties; t++) {
            int i = atKey[t];
            val[i] = plain[i].keyOffsets[key[i]];
        }
        if (ties == 1) {
            // one input holds the key: its values in order, no comparison
            Batch b = plain[first];
            long work = 0;
            for (int v = val[first], end = b.keyOffsets[key[first] + 1]; v < end; v++) work += copyVal(b, v, keyCol, keyIdx);
            return Math.max(work, 1);
        }
        long work = 0;
        int left = ties;
        while (left > 0) {
            int least = -1;
            int at = 0;
            for (int t = 0; t < ties; t++) {
                int i = atKey[t];
                if (val[i] >= plain[i].keyOffsets[key[i] + 1]) continue;
                int c = least < 0 ? -1 : plain[i].vals.compare(val[i], plain[least].vals, val[least]);
                if (c < 0) {
                    least = i;
                    at = 0;
                }
                if (c <= 0) atVal[at++] = i;
            }
            Column valCol = plain[least].vals;
            int valIdx = val[least];
            if (at == 1) {
                work += copyVal(plain[least], valIdx, keyCol, keyIdx);
            } else if (at == 2 && arity == 1) {
                Batch a = plain[atVal[0]];
                Batch b = plain[atVal[1]];
                work += mergeTotal(a, val[atVal[0]], b, val[atVal[1]], keyCol, keyIdx, valCol, valIdx);
            } else {
                int n = 0;
                for (int t = 0; t < at; t++) n = gather(plain[atVal[t]], val[atVal[t]], n);
                work += n;
                emit(keyCol, keyIdx, valCol, valIdx, n);
            }
            for (int t = 0; t < at; t++) {
                int i = atVal[t];
                if (++val[i] >= plain[i].keyOffsets[key[i] + 1]) left--;
            }
        }
        return Math.max(work, 1);
    }

    /** Writes one input's updates of a {@code (key, val)} no other input holds, advanced and consolidated. */
    private int copyVal(Batch b, int v, Column keyCol, int keyIdx) {
        if (arity == 1) return mergeTotal(b, v, null, -1, keyCol, keyIdx, b.vals, v);
        int n = gather(b, v, 0);
        emit(keyCol, keyIdx, b.vals, v, n);
        return n;
    }

    /**
     * Merges one value's time runs from up to two sides for totally ordered times: advancing by
     * a one-element since is monotone, so the runs stay sorted and equal times stay adjacent, and
     * a single pass merges, advances and consolidates them.
     */
    private int mergeTotal(Batch a, int va, Batch b, int vb, Column keyCol, int keyIdx, Column valCol, int valIdx) {
        long floor = since.isEmpty() ? Long.MIN_VALUE : since.get(0)[0];
        int i = a.valOffsets[va];
        int ie = a.valOffsets[va + 1];
        int j = b == null ? 0 : b.valOffsets[vb];
        int je = b == null ? 0 : b.valOffsets[vb + 1];
        int work = (ie - i) + (je - j);
        if (work > diffs.length) {
            diffs = new long[Math.max(work, diffs.length * 2)];
            times = new long[diffs.length];
            order = new int[diffs.length];
        }
        int n = TotalRuns.merge(a.times, a.diffs, i, ie, b == null ? null : b.times, b == null ? null : b.diffs, j, je, floor, times, diffs, 0);
        valWritten = false;
        for (int k = 0; k < n; k++) push(keyCol, keyIdx, valCol, valIdx, times, k, diffs[k]);
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
        valWritten = false;
        int i = 0;
        while (i < n) {
            int first = order[i];
            long sum = diffs[first];
            int j = i + 1;
            while (j < n && Times.equal(t, first * a, t, order[j] * a, a)) sum += diffs[order[j++]];
            if (sum != 0) push(keyCol, keyIdx, valCol, valIdx, t, first * a, sum);
            i = j;
        }
    }

    /** Writes an update of the key and value being merged: the first of each starts them in the result. */
    private void push(Column keyCol, int keyIdx, Column valCol, int valIdx, long[] t, int toff, long diff) {
        builder.push(keyCol, keyIdx, valCol, valIdx, t, toff, diff, !keyWritten, !valWritten);
        keyWritten = true;
        valWritten = true;
    }
}
