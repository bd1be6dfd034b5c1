package dev.tributary.arrangements;

import java.util.Arrays;

/**
 * Builds a {@link Batch} from updates pushed in {@code (key, val, time)} order, already
 * consolidated (no zero diffs, no repeated {@code (key, val, time)}).
 */
final class BatchBuilder {
    private final Column keys;
    private final Column vals;
    private final int arity;
    private int[] keyOffsets;
    private int[] valOffsets;
    private long[] times;
    private long[] diffs;
    private int updates;

    BatchBuilder(Column keyProto, Column valProto, int arity, int capacity) {
        this(keyProto, valProto, arity, capacity, capacity, capacity);
    }

    /** A builder sized for at most the given numbers of updates, keys and values. */
    BatchBuilder(Column keyProto, Column valProto, int arity, int updates, int keyCount, int valCount) {
        this(keyProto, valProto, arity, updates, keyCount, valCount, 0, 0);
    }

    /** {@link #BatchBuilder(Column, Column, int, int, int, int)}, with the bytes the keys and values take where known (0: not known). */
    BatchBuilder(Column keyProto, Column valProto, int arity, int updates, int keyCount, int valCount, long keyBytes, long valBytes) {
        this.keys = keyBytes > 0 ? keyProto.emptyLike(Math.max(keyCount, 1), keyBytes) : keyProto.emptyLike(Math.max(keyCount, 1));
        this.vals = valBytes > 0 ? valProto.emptyLike(Math.max(valCount, 1), valBytes) : valProto.emptyLike(Math.max(valCount, 1));
        this.arity = arity;
        int c = Math.max(updates, 1);
        keyOffsets = new int[Math.max(keyCount, 1) + 1];
        valOffsets = new int[Math.max(valCount, 1) + 1];
        times = new long[c * arity];
        diffs = new long[c];
    }

    /** Appends an update; the caller guarantees order and consolidation. */
    void push(Column kc, int ki, Column vc, int vi, long[] t, int toff, long diff) {
        int nk = keys.size();
        boolean newKey = nk == 0 || !keys.equal(nk - 1, kc, ki);
        push(kc, ki, vc, vi, t, toff, diff, newKey, newKey || !vals.equal(vals.size() - 1, vc, vi));
    }

    /**
     * {@link #push}, told whether the update starts a new key and whether it starts a new value
     * (a merge knows where its keys and values begin: no comparison with the last ones).
     */
    void push(Column kc, int ki, Column vc, int vi, long[] t, int toff, long diff, boolean newKey, boolean newVal) {
        if (newKey) {
            int nk = keys.size();
            if (nk + 2 > keyOffsets.length) keyOffsets = Arrays.copyOf(keyOffsets, keyOffsets.length * 2);
            keyOffsets[nk] = vals.size();
            keys.append(kc, ki);
            appendVal(vc, vi);
        } else if (newVal) {
            appendVal(vc, vi);
        }
        if (updates == diffs.length) {
            diffs = Arrays.copyOf(diffs, updates * 2);
            times = Arrays.copyOf(times, updates * 2 * arity);
        }
        System.arraycopy(t, toff, times, updates * arity, arity);
        diffs[updates++] = diff;
    }

    private void appendVal(Column vc, int vi) {
        int nv = vals.size();
        if (nv + 2 > valOffsets.length) valOffsets = Arrays.copyOf(valOffsets, valOffsets.length * 2);
        valOffsets[nv] = updates;
        vals.append(vc, vi);
    }

    int updates() {
        return updates;
    }

    Batch build(Description description) {
        int nk = keys.size();
        int nv = vals.size();
        // Arrays are copied only where the guess at capacity was too large.
        int[] ko = keyOffsets.length == nk + 1 ? keyOffsets : Arrays.copyOf(keyOffsets, nk + 1);
        ko[nk] = nv;
        int[] vo = valOffsets.length == nv + 1 ? valOffsets : Arrays.copyOf(valOffsets, nv + 1);
        vo[nv] = updates;
        keys.trim();
        vals.trim();
        long[] t = times.length == updates * arity ? times : Arrays.copyOf(times, updates * arity);
        long[] d = diffs.length == updates ? diffs : Arrays.copyOf(diffs, updates);
        return new Batch(keys, ko, vals, vo, t, d, arity, description);
    }
}
