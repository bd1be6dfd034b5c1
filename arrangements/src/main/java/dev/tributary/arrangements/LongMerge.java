package dev.tributary.arrangements;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;

/**
 * {@link Merger}'s path for batches whose keys and values are all {@link LongColumn}s and whose
 * times have arity 1, the common numeric case. It merges any number of adjacent batches in one
 * pass (the spine merges several at once at a level, so each update is read fewer times on its
 * way up), reading and writing the batches' arrays directly with no call through a column per
 * update. The input with the least key is found without a branch on the keys (which input it is
 * is as random as the keys); its keys below every other input's are then copied as a run, and a
 * key with one value and one update (most keys, when keys are many) by a straight-line path,
 * which for a flat input (every key so) reads none of its offsets. A value's time run is copied
 * as it is when advancing by the since cannot change it, and runs of one value from several
 * inputs are merged by {@link TotalRuns}.
 *
 * <p>The output is written into arrays from the thread's {@link MergeScratch} and finished there;
 * the result's arrays go back to the pool when a later merge retires it, so a steady trace
 * merges into the arrays of the batches it merged before.
 */
final class LongMerge {
    /** Runs at least this long are copied by {@link System#arraycopy}; shorter ones by a loop. */
    private static final int BULK = 16;
    /** A key with at most this many updates over its inputs merges through a small sorted scratch. */
    private static final int SMALL = 16;

    /**
     * The scratch of one merge, reused by the thread's later merges once it is built: a trace
     * starts a merge every few steps, and each would otherwise allocate a kilobyte of it.
     */
    private static final class Workspace {
        final int capacity;
        final int[] keyCount;
        final long[][] inKeys;
        final long[][] inVals;
        final int[][] inKeyOff;
        final int[][] inValOff;
        final long[][] inTimes;
        final long[][] inDiffs;
        final boolean[] flat;
        final boolean[] runs;
        final int[] cursor;
        final long[] head;
        final int[] members;
        final int[] valCursor;
        final int[] valEnd;
        final int[] same;
        final long[] smallVals = new long[SMALL];
        final long[] smallTimes = new long[SMALL];
        final long[] smallDiffs = new long[SMALL];
        long[] runTimes = new long[16];
        long[] runDiffs = new long[16];
        long[] runTimes2 = new long[16];
        long[] runDiffs2 = new long[16];

        Workspace(int capacity) {
            this.capacity = capacity;
            keyCount = new int[capacity];
            inKeys = new long[capacity][];
            inVals = new long[capacity][];
            inKeyOff = new int[capacity][];
            inValOff = new int[capacity][];
            inTimes = new long[capacity][];
            inDiffs = new long[capacity][];
            flat = new boolean[capacity];
            runs = new boolean[capacity];
            cursor = new int[capacity];
            head = new long[capacity];
            members = new int[capacity];
            valCursor = new int[capacity];
            valEnd = new int[capacity];
            same = new int[capacity];
        }
    }

    /** Workspaces of finished merges, per thread (merges run on their trace's worker thread). */
    private static final ThreadLocal<ArrayDeque<Workspace>> FREE = ThreadLocal.withInitial(ArrayDeque::new);
    /** At most this many are kept: one per level merging at once is plenty. */
    private static final int MAX_FREE = 16;

    private final Workspace workspace;
    private final long floor;
    private final int n;
    /** The greatest time of any input: with the floor, a bound of the output's (no scan of the output needed). */
    private long inputMaxTime = Long.MIN_VALUE;
    // the inputs' arrays, oldest input first, held here so the loops do not reload them through the batches
    private final int[] keyCount;
    private final long[][] inKeys;
    private final long[][] inVals;
    private final int[][] inKeyOff;
    private final int[][] inValOff;
    private final long[][] inTimes;
    private final long[][] inDiffs;
    /** Per input: every key has one value and every value one update (then its offsets need not be read). */
    private final boolean[] flat;
    /**
     * Per input: it holds at least two thirds of the merge's keys, so its keys come in long runs
     * (a merge into the top batch), which {@link #copyFlatRun} copies; where inputs are alike in
     * size runs are a key or two, and its setup would cost more than it saves.
     */
    private final boolean[] runs;
    /** Inputs {@code 0 .. active-1} have keys left, oldest first: one that runs out is removed ({@link #remove}). */
    private int active;
    /** Per input, its next key; and that key, while the input has one. */
    private final int[] cursor;
    private final long[] head;
    // scratch for one key held by several inputs
    private final int[] members;
    private final int[] valCursor;
    private final int[] valEnd;
    private final int[] same;
    private final long[] smallVals;
    private final long[] smallTimes;
    private final long[] smallDiffs;
    private long[] runTimes;
    private long[] runDiffs;
    private long[] runTimes2;
    private long[] runDiffs2;
    // output, sized for the expected result and grown (up to the worst case, no consolidation) when that was too little
    private final int keyCap;
    private final int valCap;
    private final int updateCap;
    private long[] keys;
    private int[] keyOffsets;
    private long[] vals;
    private int[] valOffsets;
    private long[] times;
    private long[] diffs;
    private int nk;
    private int nv;
    private int nu;

    /**
     * A merge of {@code inputs} advancing times to {@code floor}, whose output arrays start at
     * {@code expected} (at most 1) of the inputs' sizes: the fraction of their updates the caller
     * expects to survive consolidation. Arrays too small are grown by the merge.
     */
    LongMerge(List<Batch> inputs, long floor, double expected) {
        this.floor = floor;
        this.n = inputs.size();
        Workspace w = FREE.get().poll();
        if (w == null || w.capacity < n) w = new Workspace(Math.max(n, Spine.FAN_IN));
        workspace = w;
        keyCount = w.keyCount;
        inKeys = w.inKeys;
        inVals = w.inVals;
        inKeyOff = w.inKeyOff;
        inValOff = w.inValOff;
        inTimes = w.inTimes;
        inDiffs = w.inDiffs;
        flat = w.flat;
        runs = w.runs;
        cursor = w.cursor;
        Arrays.fill(cursor, 0, n, 0);
        head = w.head;
        members = w.members;
        valCursor = w.valCursor;
        valEnd = w.valEnd;
        same = w.same;
        smallVals = w.smallVals;
        smallTimes = w.smallTimes;
        smallDiffs = w.smallDiffs;
        runTimes = w.runTimes;
        runDiffs = w.runDiffs;
        runTimes2 = w.runTimes2;
        runDiffs2 = w.runDiffs2;
        long keyCap = 0;
        long valCap = 0;
        long upd = 0;
        for (int i = 0; i < n; i++) {
            Batch b = inputs.get(i);
            keyCount[i] = b.keyCount();
            inKeys[i] = ((LongColumn) b.keys).array();
            inVals[i] = ((LongColumn) b.vals).array();
            inKeyOff[i] = b.keyOffsets;
            inValOff[i] = b.valOffsets;
            inTimes[i] = b.times;
            inDiffs[i] = b.diffs;
            flat[i] = b.oneValPerKey && b.oneUpdatePerVal;
            if (keyCount[i] > 0) head[i] = inKeys[i][0];
            keyCap += b.keyCount();
            valCap += b.valCount();
            upd += b.updateCount();
            inputMaxTime = Math.max(inputMaxTime, b.maxTime);
        }
        for (int i = 0; i < n; i++) runs[i] = 3L * keyCount[i] >= 2 * keyCap;
        active = n;
        for (int i = n - 1; i >= 0; i--) {
            if (keyCount[i] == 0) remove(i);
        }
        this.keyCap = (int) keyCap;
        this.valCap = (int) valCap;
        this.updateCap = (int) upd;
        MergeScratch scratch = MergeScratch.ofThread();
        int k = expect(this.keyCap, expected);
        int v = expect(this.valCap, expected);
        int u = expect(this.updateCap, expected);
        // roomy where the size is a guess (see MergeScratch.longs(int, boolean)); exact where it is the worst case
        boolean roomy = expected < 1;
        keys = scratch.longs(k, roomy);
        keyOffsets = scratch.ints(k + 1, roomy);
        vals = scratch.longs(v, roomy);
        valOffsets = scratch.ints(v + 1, roomy);
        times = scratch.longs(u, roomy);
        diffs = scratch.longs(u, roomy);
    }

    private static int expect(int worst, double expected) {
        if (expected >= 1) return worst;
        return (int) Math.min(worst, (long) (worst * Math.max(expected, 0)) + 64);
    }

    /** Makes room for {@code k} more keys, {@code v} more values and {@code u} more updates. */
    private void room(int k, int v, int u) {
        if (nk + k <= keys.length && nk + k < keyOffsets.length && nv + v <= vals.length && nv + v < valOffsets.length
                && nu + u <= times.length && nu + u <= diffs.length) return;
        MergeScratch scratch = MergeScratch.ofThread();
        if (nk + k > keys.length) keys = scratch.grow(keys, nk, grown(nk + k, keys.length, keyCap));
        if (nk + k >= keyOffsets.length) keyOffsets = scratch.grow(keyOffsets, nk, grown(nk + k, keyOffsets.length - 1, keyCap) + 1);
        if (nv + v > vals.length) vals = scratch.grow(vals, nv, grown(nv + v, vals.length, valCap));
        if (nv + v >= valOffsets.length) valOffsets = scratch.grow(valOffsets, nv, grown(nv + v, valOffsets.length - 1, valCap) + 1);
        if (nu + u > times.length) times = scratch.grow(times, nu, grown(nu + u, times.length, updateCap));
        if (nu + u > diffs.length) diffs = scratch.grow(diffs, nu, grown(nu + u, diffs.length, updateCap));
    }

    /** A new capacity of at least {@code needed}: doubled, but never past the worst case. */
    private static int grown(int needed, int current, int worst) {
        return Math.max(needed, (int) Math.min(worst, 2L * current));
    }

    /** Gives the workspace to the thread's next merge, keeping the run arrays it grew and forgetting the inputs. */
    private void releaseWorkspace() {
        Workspace w = workspace;
        w.runTimes = runTimes;
        w.runDiffs = runDiffs;
        w.runTimes2 = runTimes2;
        w.runDiffs2 = runDiffs2;
        Arrays.fill(w.inKeys, 0, n, null);
        Arrays.fill(w.inVals, 0, n, null);
        Arrays.fill(w.inKeyOff, 0, n, null);
        Arrays.fill(w.inValOff, 0, n, null);
        Arrays.fill(w.inTimes, 0, n, null);
        Arrays.fill(w.inDiffs, 0, n, null);
        ArrayDeque<Workspace> free = FREE.get();
        if (free.size() < MAX_FREE) free.push(w);
    }

    static boolean applies(List<Batch> inputs) {
        for (int i = 0; i < inputs.size(); i++) {
            Batch b = inputs.get(i);
            if (b.arity != 1 || !(b.keys instanceof LongColumn) || !(b.vals instanceof LongColumn)) return false;
        }
        return true;
    }

    boolean isDone() {
        return active == 0;
    }

    /**
     * Merges keys until {@code fuel} updates have been read; returns the fuel left.
     *
     * <p>Which input holds the least key is as random as the keys, so the least key and the
     * least of the others' keys are found without branching on the comparisons (a mispredicted
     * branch per input per key was most of a four-way merge's time). A key held by one input
     * starts a run: that input's keys are copied until one reaches the others' least.
     */
    long work(long fuel) {
        while (fuel > 0 && active > 0) {
            if (active == 1) {
                fuel -= copyRun(0, false, 0, fuel);
                continue;
            }
            long min = head[0];
            long second = Long.MAX_VALUE;
            int at = 0;
            for (int i = 1; i < active; i++) {
                long h = head[i];
                second = Math.min(second, Math.max(min, h));
                at = h < min ? i : at;
                min = Math.min(min, h);
            }
            if (min < second) {
                fuel -= copyRun(at, true, second, fuel);
                continue;
            }
            int m = 0;
            for (int i = 0; i < active; i++) {
                if (head[i] == min) members[m++] = i;
            }
            fuel -= mergeKey(min, m);
            // last first: an input that runs out is removed, which moves those after it
            for (int j = m - 1; j >= 0; j--) advance(members[j]);
        }
        return fuel;
    }

    private void advance(int i) {
        moveTo(i, cursor[i] + 1);
    }

    /** Moves input {@code i}'s cursor to key {@code c}, removing the input if that is past its last. */
    private void moveTo(int i, int c) {
        cursor[i] = c;
        if (c < keyCount[i]) head[i] = inKeys[i][c];
        else remove(i);
    }

    /** Drops input {@code i}, which has no keys left, keeping the others in order. */
    private void remove(int i) {
        for (int j = i; j < active - 1; j++) {
            keyCount[j] = keyCount[j + 1];
            inKeys[j] = inKeys[j + 1];
            inVals[j] = inVals[j + 1];
            inKeyOff[j] = inKeyOff[j + 1];
            inValOff[j] = inValOff[j + 1];
            inTimes[j] = inTimes[j + 1];
            inDiffs[j] = inDiffs[j + 1];
            flat[j] = flat[j + 1];
            runs[j] = runs[j + 1];
            cursor[j] = cursor[j + 1];
            head[j] = head[j + 1];
        }
        active--;
    }

    /**
     * Copies input {@code i}'s keys from its cursor (which holds the least key of all inputs) while
     * they are below {@code bound} (if {@code bounded}: otherwise no other input has keys left),
     * and until {@code fuel} runs out; returns the work done.
     */
    private long copyRun(int i, boolean bounded, long bound, long fuel) {
        if (flat[i]) return runs[i] || !bounded ? copyFlatRun(i, bounded, bound, fuel) : copyFlatKeys(i, bound, fuel);
        int c = cursor[i];
        int end = keyCount[i];
        long[] ks = inKeys[i];
        long key = head[i];
        long used = 0;
        while (true) {
            used += copyKey(i, c, key);
            if (++c >= end || used >= fuel) break;
            key = ks[c];
            if (bounded && key >= bound) break;
        }
        moveTo(i, c);
        return used;
    }

    /**
     * {@link #copyRun} of a flat input (one value per key, one update per value): a tight loop
     * that reads none of its offsets. Where one large input meets small ones, as in a merge into
     * the top batch, most keys come in long runs from it.
     */
    private long copyFlatRun(int i, boolean bounded, long bound, long fuel) {
        room(1, 1, 1);
        int c = cursor[i];
        int end = keyCount[i];
        // as far as the output has room for (room() made some), and as far as the fuel goes
        long space = Math.min(Math.min(keys.length - nk, keyOffsets.length - 1 - nk),
                Math.min(Math.min(vals.length - nv, valOffsets.length - 1 - nv), Math.min(times.length - nu, diffs.length - nu)));
        int limit = (int) Math.min(end, c + Math.min(space, Math.max(fuel, 1)));
        long[] ks = inKeys[i];
        long[] vs = inVals[i];
        long[] ts = inTimes[i];
        long[] ds = inDiffs[i];
        long floor = this.floor;
        long[] outKeys = keys;
        int[] outKeyOff = keyOffsets;
        long[] outVals = vals;
        int[] outValOff = valOffsets;
        long[] outTimes = times;
        long[] outDiffs = diffs;
        int k = nk;
        int v = nv;
        int u = nu;
        int from = c;
        long key = head[i];
        while (true) {
            long t = ts[c];
            outKeys[k] = key;
            outKeyOff[k++] = v;
            outVals[v] = vs[c];
            outValOff[v++] = u;
            outTimes[u] = t < floor ? floor : t;
            outDiffs[u++] = ds[c];
            if (++c >= limit) break;
            key = ks[c];
            if (bounded && key >= bound) break;
        }
        nk = k;
        nv = v;
        nu = u;
        moveTo(i, c);
        return c - from;
    }

    /**
     * {@link #copyRun} of a flat input among others alike in size: a key at a time, none of its
     * offsets read. Its own loop: folded into {@link #copyRun}'s behind a flag, four-way merges
     * of small flat batches were 20% slower.
     */
    private long copyFlatKeys(int i, long bound, long fuel) {
        int c = cursor[i];
        int end = keyCount[i];
        long[] ks = inKeys[i];
        long[] vs = inVals[i];
        long[] ts = inTimes[i];
        long[] ds = inDiffs[i];
        long key = head[i];
        int from = c;
        while (true) {
            appendSingle(key, vs[c], ts[c], ds[c]);
            if (++c >= end || c - from >= fuel) break;
            key = ks[c];
            if (key >= bound) break;
        }
        moveTo(i, c);
        return c - from;
    }

    /** Appends a key with one value and one update, its time advanced (a single time cannot consolidate). */
    private void appendSingle(long key, long val, long time, long diff) {
        room(1, 1, 1);
        keys[nk] = key;
        keyOffsets[nk++] = nv;
        vals[nv] = val;
        valOffsets[nv++] = nu;
        times[nu] = time < floor ? floor : time;
        diffs[nu++] = diff;
    }

    /** Copies key {@code key}, input {@code i}'s {@code k}-th, held by no other input; returns the work done. */
    private int copyKey(int i, int k, long key) {
        int[] keyOff = inKeyOff[i];
        int[] valOff = inValOff[i];
        long[] vs = inVals[i];
        long[] ts = inTimes[i];
        long[] ds = inDiffs[i];
        int v = keyOff[k];
        int ve = keyOff[k + 1];
        int from = valOff[v];
        if (ve == v + 1 && valOff[ve] == from + 1) {
            appendSingle(key, vs[v], ts[from], ds[from]);
            return 1;
        }
        room(1, ve - v, valOff[ve] - from);
        int startVals = nv;
        for (; v < ve; v++) appendVal(vs[v], ts, ds, valOff[v], valOff[v + 1]);
        closeKey(key, startVals);
        return Math.max(valOff[ve] - from, 1);
    }

    /** Appends value {@code val} with its time run {@code [i, ie)} advanced and consolidated, unless it all cancels. */
    private void appendVal(long val, long[] ts, long[] ds, int i, int ie) {
        vals[nv] = val;
        valOffsets[nv] = nu;
        if (ie == i + 1) {
            // one update (the usual case once a batch is compacted): advancing it consolidates nothing
            long t = ts[i];
            times[nu] = t < floor ? floor : t;
            diffs[nu++] = ds[i];
            nv++;
        } else if (ts[i] >= floor) {
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

    /** Merges key {@code key}, held by the {@code m} inputs in {@link #members}. */
    private int mergeKey(long key, int m) {
        int read = 0;
        // while every input holds the key with one value and one update (the usual case), gather
        // those updates into the small scratch on the way
        int singles = 0;
        int valsHeld = 0;
        for (int j = 0; j < m; j++) {
            int i = members[j];
            int k = cursor[i];
            int[] keyOff = inKeyOff[i];
            int[] valOff = inValOff[i];
            int v = keyOff[k];
            int ve = keyOff[k + 1];
            int u = valOff[v];
            int ue = valOff[ve];
            valCursor[j] = v;
            valEnd[j] = ve;
            valsHeld += ve - v;
            read += ue - u;
            if (singles == j && j < SMALL && ve == v + 1 && ue == u + 1) {
                long t = inTimes[i][u];
                addSmall(singles++, inVals[i][v], t < floor ? floor : t, inDiffs[i][u]);
            }
        }
        room(1, valsHeld, read);
        if (singles == m) {
            emitSmall(key, m);
            return read;
        }
        if (read <= SMALL) {
            mergeSmallKey(key, m);
            return read;
        }
        int startVals = nv;
        while (true) {
            int first = -1;
            int holders = 0;
            long min = 0;
            for (int j = 0; j < m; j++) {
                if (valCursor[j] >= valEnd[j]) continue;
                long v = inVals[members[j]][valCursor[j]];
                if (first < 0 || v < min) {
                    first = j;
                    min = v;
                    holders = 1;
                } else if (v == min) {
                    holders++;
                }
            }
            if (first < 0) break;
            if (holders == 1) {
                int i = members[first];
                int v = valCursor[first]++;
                appendVal(min, inTimes[i], inDiffs[i], inValOff[i][v], inValOff[i][v + 1]);
                continue;
            }
            int s = 0;
            for (int j = first; j < m; j++) {
                if (valCursor[j] < valEnd[j] && inVals[members[j]][valCursor[j]] == min) same[s++] = j;
            }
            int start = nu;
            vals[nv] = min;
            valOffsets[nv] = nu;
            nu = mergeRuns(s);
            if (nu > start) nv++; // a value whose updates all cancelled is not kept
            for (int x = 0; x < s; x++) valCursor[same[x]]++;
        }
        closeKey(key, startVals);
        return read;
    }

    /**
     * {@link #mergeKey} for a key with at most {@link #SMALL} updates over all its inputs (the
     * usual case: a key in several batches with a value or two in each): its (val, time, diff)
     * triples, times advanced, are insertion-sorted into scratch, then consolidated as they are
     * written out.
     */
    private void mergeSmallKey(long key, int m) {
        int c = 0;
        for (int j = 0; j < m; j++) {
            int i = members[j];
            long[] vs = inVals[i];
            int[] valOff = inValOff[i];
            long[] ts = inTimes[i];
            long[] ds = inDiffs[i];
            for (int v = valCursor[j]; v < valEnd[j]; v++) {
                for (int u = valOff[v]; u < valOff[v + 1]; u++) addSmall(c++, vs[v], ts[u] < floor ? floor : ts[u], ds[u]);
            }
        }
        emitSmall(key, c);
    }

    /** Inserts {@code (val, time, diff)} into the first {@code c} entries of the small scratch, kept sorted by (val, time). */
    private void addSmall(int c, long val, long time, long diff) {
        long[] gv = smallVals;
        long[] gt = smallTimes;
        long[] gd = smallDiffs;
        int p = c;
        while (p > 0 && (gv[p - 1] > val || (gv[p - 1] == val && gt[p - 1] > time))) {
            gv[p] = gv[p - 1];
            gt[p] = gt[p - 1];
            gd[p] = gd[p - 1];
            p--;
        }
        gv[p] = val;
        gt[p] = time;
        gd[p] = diff;
    }

    /** Writes key {@code key} from the {@code c} sorted entries of the small scratch, consolidated; nothing if all cancel. */
    private void emitSmall(long key, int c) {
        long[] gv = smallVals;
        long[] gt = smallTimes;
        long[] gd = smallDiffs;
        int startVals = nv;
        int x = 0;
        while (x < c) {
            long val = gv[x];
            int valStart = nu;
            while (x < c && gv[x] == val) {
                long t = gt[x];
                long sum = gd[x++];
                while (x < c && gv[x] == val && gt[x] == t) sum += gd[x++];
                if (sum != 0) {
                    times[nu] = t;
                    diffs[nu++] = sum;
                }
            }
            if (nu > valStart) {
                vals[nv] = val;
                valOffsets[nv++] = valStart;
            }
        }
        closeKey(key, startVals);
    }

    /**
     * Appends the merge of one value's time runs from the {@code s} inputs in {@link #same} (at
     * least two), advanced and consolidated; returns the new end of the output. More than two
     * runs are merged pairwise through scratch, oldest first.
     */
    private int mergeRuns(int s) {
        int i0 = members[same[0]];
        int i1 = members[same[1]];
        int v0 = valCursor[same[0]];
        int v1 = valCursor[same[1]];
        long[] t0 = inTimes[i0];
        long[] d0 = inDiffs[i0];
        int from0 = inValOff[i0][v0];
        int to0 = inValOff[i0][v0 + 1];
        long[] t1 = inTimes[i1];
        long[] d1 = inDiffs[i1];
        int from1 = inValOff[i1][v1];
        int to1 = inValOff[i1][v1 + 1];
        if (s == 2) return TotalRuns.merge(t0, d0, from0, to0, t1, d1, from1, to1, floor, times, diffs, nu);
        int total = 0;
        for (int x = 0; x < s; x++) {
            int i = members[same[x]];
            int v = valCursor[same[x]];
            total += inValOff[i][v + 1] - inValOff[i][v];
        }
        if (runTimes.length < total) {
            runTimes = new long[total];
            runDiffs = new long[total];
            runTimes2 = new long[total];
            runDiffs2 = new long[total];
        }
        int len = TotalRuns.merge(t0, d0, from0, to0, t1, d1, from1, to1, floor, runTimes, runDiffs, 0);
        for (int x = 2; x < s - 1; x++) {
            int i = members[same[x]];
            int v = valCursor[same[x]];
            len = TotalRuns.merge(runTimes, runDiffs, 0, len, inTimes[i], inDiffs[i], inValOff[i][v], inValOff[i][v + 1], floor, runTimes2, runDiffs2, 0);
            long[] t = runTimes;
            runTimes = runTimes2;
            runTimes2 = t;
            long[] d = runDiffs;
            runDiffs = runDiffs2;
            runDiffs2 = d;
        }
        int last = members[same[s - 1]];
        int v = valCursor[same[s - 1]];
        return TotalRuns.merge(runTimes, runDiffs, 0, len, inTimes[last], inDiffs[last], inValOff[last][v], inValOff[last][v + 1], floor, times, diffs, nu);
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
        releaseWorkspace();
        MergeScratch scratch = MergeScratch.ofThread();
        // the arrays are the pool's again once a later merge retires the batch (if it was never shared)
        return new Batch(new LongColumn(scratch.finish(keys, nk), nk), scratch.finish(keyOffsets, nk + 1),
                new LongColumn(scratch.finish(vals, nv), nv), scratch.finish(valOffsets, nv + 1),
                scratch.finish(times, nu), scratch.finish(diffs, nu), nu, 1, description, nu == 0 ? Long.MIN_VALUE : Math.max(floor, inputMaxTime))
                .pooled(scratch);
    }
}
