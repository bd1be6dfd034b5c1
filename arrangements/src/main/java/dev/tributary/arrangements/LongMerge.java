package dev.tributary.arrangements;

/**
 * {@link Merger}'s path for batches whose keys and values are both {@link LongColumn}s and whose
 * times have arity 1, the common numeric case: it reads and writes the batches' arrays directly,
 * with no call through a column per update. A key with one value and one update (most keys, when
 * keys are many) is copied by a straight-line path; a value's time run is copied as it is when
 * advancing by the since cannot change it, and otherwise merged by {@link TotalRuns}.
 *
 * <p>The output is written into worst-case arrays from the thread's {@link MergeScratch} and
 * finished there, so the merge allocates only the result's exactly sized arrays.
 */
final class LongMerge {
    /** Runs at least this long are copied by {@link System#arraycopy}; shorter ones by a loop. */
    private static final int BULK = 16;

    private final long floor;
    // the inputs' arrays, held in fields so the loops do not reload them through the batches
    private final int na;
    private final int nb;
    private final long[] ak;
    private final long[] bk;
    private final long[] av;
    private final long[] bv;
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
    // output, sized for the worst case (no consolidation)
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
        this.floor = floor;
        this.na = older.keyCount();
        this.nb = newer.keyCount();
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
        MergeScratch scratch = MergeScratch.ofThread();
        int keyCap = older.keyCount() + newer.keyCount();
        int valCap = older.valCount() + newer.valCount();
        int upd = older.updateCount() + newer.updateCount();
        keys = scratch.longs(keyCap);
        keyOffsets = scratch.ints(keyCap + 1);
        vals = scratch.longs(valCap);
        valOffsets = scratch.ints(valCap + 1);
        times = scratch.longs(upd);
        diffs = scratch.longs(upd);
    }

    static boolean applies(Batch older, Batch newer) {
        return older.arity == 1 && older.keys instanceof LongColumn && older.vals instanceof LongColumn
                && newer.keys instanceof LongColumn && newer.vals instanceof LongColumn;
    }

    boolean isDone() {
        return ka >= na && kb >= nb;
    }

    /** Merges keys until {@code fuel} updates have been read; returns the fuel left. */
    long work(long fuel) {
        int ka = this.ka;
        int kb = this.kb;
        while (fuel > 0) {
            if (ka < na && (kb >= nb || ak[ka] < bk[kb])) {
                fuel -= copyKey(ak, aKeyOff, av, aValOff, aTimes, aDiffs, ka++);
            } else if (kb < nb && (ka >= na || bk[kb] < ak[ka])) {
                fuel -= copyKey(bk, bKeyOff, bv, bValOff, bTimes, bDiffs, kb++);
            } else if (ka < na) {
                fuel -= mergeKey(ka++, kb++);
            } else {
                break;
            }
        }
        this.ka = ka;
        this.kb = kb;
        return fuel;
    }

    private int copyKey(long[] ks, int[] keyOff, long[] vs, int[] valOff, long[] ts, long[] ds, int k) {
        int v = keyOff[k];
        int ve = keyOff[k + 1];
        int from = valOff[v];
        if (ve == v + 1 && valOff[ve] == from + 1) {
            // one value, one update: advancing a single time cannot consolidate anything
            long t = ts[from];
            keys[nk] = ks[k];
            keyOffsets[nk++] = nv;
            vals[nv] = vs[v];
            valOffsets[nv++] = nu;
            times[nu] = t < floor ? floor : t;
            diffs[nu++] = ds[from];
            return 1;
        }
        int startVals = nv;
        for (; v < ve; v++) appendVal(vs[v], ts, ds, valOff[v], valOff[v + 1]);
        closeKey(ks[k], startVals);
        return Math.max(valOff[ve] - from, 1);
    }

    /** Appends value {@code val} with its time run {@code [i, ie)} advanced and consolidated, unless it all cancels. */
    private void appendVal(long val, long[] ts, long[] ds, int i, int ie) {
        vals[nv] = val;
        valOffsets[nv] = nu;
        if (ts[i] >= floor) {
            // the run is sorted, so every time is at or past the floor: nothing to advance
            int count = ie - i;
            if (count >= BULK) {
                System.arraycopy(ts, i, times, nu, count);
                System.arraycopy(ds, i, diffs, nu, count);
                nu += count;
            } else {
                for (; i < ie; i++) {
                    times[nu] = ts[i];
                    diffs[nu++] = ds[i];
                }
            }
            nv++;
        } else {
            int start = nu;
            nu = TotalRuns.merge(ts, ds, i, ie, null, null, 0, 0, floor, times, diffs, nu);
            if (nu > start) nv++;
        }
    }

    private int mergeKey(int ia, int ib) {
        int startVals = nv;
        int va = aKeyOff[ia];
        int ea = aKeyOff[ia + 1];
        int vb = bKeyOff[ib];
        int eb = bKeyOff[ib + 1];
        int read = (aValOff[ea] - aValOff[va]) + (bValOff[eb] - bValOff[vb]);
        while (va < ea || vb < eb) {
            if (vb >= eb || (va < ea && av[va] < bv[vb])) {
                appendVal(av[va], aTimes, aDiffs, aValOff[va], aValOff[va + 1]);
                va++;
            } else if (va >= ea || bv[vb] < av[va]) {
                appendVal(bv[vb], bTimes, bDiffs, bValOff[vb], bValOff[vb + 1]);
                vb++;
            } else {
                int start = nu;
                vals[nv] = av[va];
                valOffsets[nv] = nu;
                nu = TotalRuns.merge(aTimes, aDiffs, aValOff[va], aValOff[va + 1], bTimes, bDiffs, bValOff[vb], bValOff[vb + 1], floor, times, diffs, nu);
                if (nu > start) nv++; // a value whose updates all cancelled is not kept
                va++;
                vb++;
            }
        }
        closeKey(ak[ia], startVals);
        return Math.max(read, 1);
    }

    private void closeKey(long key, int startVals) {
        if (nv > startVals) {
            keys[nk] = key;
            keyOffsets[nk] = startVals;
            nk++;
        }
    }

    Batch build(Description description) {
        keyOffsets[nk] = nv;
        valOffsets[nv] = nu;
        MergeScratch scratch = MergeScratch.ofThread();
        return new Batch(new LongColumn(scratch.finish(keys, nk), nk), scratch.finish(keyOffsets, nk + 1),
                new LongColumn(scratch.finish(vals, nv), nv), scratch.finish(valOffsets, nv + 1),
                scratch.finish(times, nu), scratch.finish(diffs, nu), 1, description);
    }
}
