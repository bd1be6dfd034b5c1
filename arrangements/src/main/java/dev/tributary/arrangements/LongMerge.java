package dev.tributary.arrangements;

import java.util.Arrays;

/**
 * {@link Merger}'s path for batches whose keys and values are both {@link LongColumn}s and whose
 * times have arity 1, the common numeric case: it reads and writes the batches' arrays directly,
 * with no call through a column per update, and copies a value's time run wholesale when
 * advancing by the since cannot change it.
 * Time runs are merged by {@link TotalRuns}.
 */
final class LongMerge {
    private final Batch a;
    private final Batch b;
    private final long floor;
    private final long[] ak;
    private final long[] bk;
    private final long[] av;
    private final long[] bv;
    // the inputs' arrays, held in fields so the loops do not reload them through the batches
    private final int[] aKeyOff;
    private final int[] bKeyOff;
    private final int[] aValOff;
    private final int[] bValOff;
    private final long[] aTimes;
    private final long[] bTimes;
    private final long[] aDiffs;
    private final long[] bDiffs;
    private int ka;
    private int kb;
    // output, sized for the worst case (no consolidation); trimmed once at the end if smaller
    private final long[] keys;
    private final int[] keyOffsets;
    private final long[] vals;
    private final int[] valOffsets;
    private final long[] times;
    private final long[] diffs;
    private int nk;
    private int nv;
    private int nu;

    LongMerge(Batch older, Batch newer, long floor) {
        this.a = older;
        this.b = newer;
        this.floor = floor;
        this.ak = ((LongColumn) older.keys).array();
        this.bk = ((LongColumn) newer.keys).array();
        this.av = ((LongColumn) older.vals).array();
        this.bv = ((LongColumn) newer.vals).array();
        this.aKeyOff = older.keyOffsets;
        this.bKeyOff = newer.keyOffsets;
        this.aValOff = older.valOffsets;
        this.bValOff = newer.valOffsets;
        this.aTimes = older.times;
        this.bTimes = newer.times;
        this.aDiffs = older.diffs;
        this.bDiffs = newer.diffs;
        int keyCap = older.keyCount() + newer.keyCount();
        int valCap = older.valCount() + newer.valCount();
        int upd = older.updateCount() + newer.updateCount();
        keys = new long[keyCap];
        keyOffsets = new int[keyCap + 1];
        vals = new long[valCap];
        valOffsets = new int[valCap + 1];
        times = new long[upd];
        diffs = new long[upd];
    }

    static boolean applies(Batch older, Batch newer) {
        return older.arity == 1 && older.keys instanceof LongColumn && older.vals instanceof LongColumn
                && newer.keys instanceof LongColumn && newer.vals instanceof LongColumn;
    }

    boolean isDone() {
        return ka >= a.keyCount() && kb >= b.keyCount();
    }

    /** Merges keys until {@code fuel} updates have been read; returns the fuel left. */
    long work(long fuel) {
        int na = a.keyCount();
        int nb = b.keyCount();
        while (fuel > 0 && (ka < na || kb < nb)) {
            if (kb >= nb || (ka < na && ak[ka] < bk[kb])) {
                fuel -= copyKey(ak, aKeyOff, av, aValOff, aTimes, aDiffs, ka++);
            } else if (ka >= na || bk[kb] < ak[ka]) {
                fuel -= copyKey(bk, bKeyOff, bv, bValOff, bTimes, bDiffs, kb++);
            } else {
                fuel -= mergeKey(ka++, kb++);
            }
        }
        return fuel;
    }

    private int copyKey(long[] ks, int[] keyOff, long[] vs, int[] valOff, long[] ts, long[] ds, int k) {
        int startVals = nv;
        int v = keyOff[k];
        int ve = keyOff[k + 1];
        int from = valOff[v];
        int to = valOff[ve];
        if (ts[from] >= floor && isSorted(ts, valOff, v, ve)) {
            // nothing to advance: copy the key's values and updates wholesale
            int count = to - from;
            System.arraycopy(ts, from, times, nu, count);
            System.arraycopy(ds, from, diffs, nu, count);
            int shift = nu - from;
            for (int x = v; x < ve; x++) {
                vals[nv] = vs[x];
                valOffsets[nv++] = valOff[x] + shift;
            }
            nu += count;
        } else {
            for (; v < ve; v++) {
                openVal(vs[v]);
                run(ts, ds, valOff[v], valOff[v + 1], null, null, 0, 0);
                closeVal();
            }
        }
        closeKey(ks[k], startVals);
        return Math.max(to - from, 1);
    }

    /** Whether every value's first time is at or past the floor, so advancing changes nothing. */
    private boolean isSorted(long[] ts, int[] valOff, int v, int ve) {
        for (int x = v + 1; x < ve; x++) {
            if (ts[valOff[x]] < floor) return false;
        }
        return true;
    }

    private int mergeKey(int ia, int ib) {
        long key = ak[ia];
        int startVals = nv;
        int va = a.keyOffsets[ia];
        int ea = a.keyOffsets[ia + 1];
        int vb = b.keyOffsets[ib];
        int eb = b.keyOffsets[ib + 1];
        int read = 0;
        while (va < ea || vb < eb) {
            if (vb >= eb || (va < ea && av[va] < bv[vb])) {
                openVal(av[va]);
                read += run(a.times, a.diffs, a.valOffsets[va], a.valOffsets[va + 1], null, null, 0, 0);
                va++;
            } else if (va >= ea || bv[vb] < av[va]) {
                openVal(bv[vb]);
                read += run(b.times, b.diffs, b.valOffsets[vb], b.valOffsets[vb + 1], null, null, 0, 0);
                vb++;
            } else {
                openVal(av[va]);
                read += run(a.times, a.diffs, a.valOffsets[va], a.valOffsets[va + 1], b.times, b.diffs, b.valOffsets[vb], b.valOffsets[vb + 1]);
                va++;
                vb++;
            }
            closeVal();
        }
        closeKey(key, startVals);
        return Math.max(read, 1);
    }

    /** Appends the merge of two sorted time runs (the second may be absent), advanced and consolidated. */
    private int run(long[] t1, long[] d1, int i, int ie, long[] t2, long[] d2, int j, int je) {
        nu = TotalRuns.merge(t1, d1, i, ie, t2, d2, j, je, floor, times, diffs, nu);
        return (ie - i) + (je - j);
    }

    private int valStart;

    private void openVal(long val) {
        vals[nv] = val;
        valOffsets[nv] = nu;
        valStart = nu;
    }

    private void closeVal() {
        if (nu > valStart) nv++; // a value whose updates all cancelled is not kept
    }

    private void closeKey(long key, int startVals) {
        if (nv > startVals) {
            keys[nk] = key;
            keyOffsets[nk] = startVals;
            nk++;
        }
    }

    Batch build(Description description) {
        int[] ko = keyOffsets.length == nk + 1 ? keyOffsets : Arrays.copyOf(keyOffsets, nk + 1);
        ko[nk] = nv;
        int[] vo = valOffsets.length == nv + 1 ? valOffsets : Arrays.copyOf(valOffsets, nv + 1);
        vo[nv] = nu;
        return new Batch(new LongColumn(keys.length == nk ? keys : Arrays.copyOf(keys, nk), nk), ko,
                new LongColumn(vals.length == nv ? vals : Arrays.copyOf(vals, nv), nv), vo,
                times.length == nu ? times : Arrays.copyOf(times, nu), diffs.length == nu ? diffs : Arrays.copyOf(diffs, nu), 1, description);
    }
}
