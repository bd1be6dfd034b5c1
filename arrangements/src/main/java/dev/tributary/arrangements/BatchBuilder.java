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
        this.keys = keyProto.emptyLike(Math.max(capacity, 1));
        this.vals = valProto.emptyLike(Math.max(capacity, 1));
        this.arity = arity;
        int c = Math.max(capacity, 4);
        keyOffsets = new int[c + 1];
        valOffsets = new int[c + 1];
        times = new long[c * arity];
        diffs = new long[c];
    }

    /** Appends an update; the caller guarantees order and consolidation. */
    void push(Column kc, int ki, Column vc, int vi, long[] t, int toff, long diff) {
        int nk = keys.size();
        if (nk == 0 || !keys.equal(nk - 1, kc, ki)) {
            if (nk + 2 > keyOffsets.length) keyOffsets = Arrays.copyOf(keyOffsets, keyOffsets.length * 2);
            keyOffsets[nk] = vals.size();
            keys.append(kc, ki);
            appendVal(vc, vi);
        } else if (!vals.equal(vals.size() - 1, vc, vi)) {
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
        int[] ko = Arrays.copyOf(keyOffsets, nk + 1);
        ko[nk] = nv;
        int[] vo = Arrays.copyOf(valOffsets, nv + 1);
        vo[nv] = updates;
        keys.trim();
        vals.trim();
        return new Batch(keys, ko, vals, vo, Arrays.copyOf(times, updates * arity), Arrays.copyOf(diffs, updates), arity, description);
    }
}
