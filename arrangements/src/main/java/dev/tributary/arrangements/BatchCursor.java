package dev.tributary.arrangements;

/** A cursor over one batch: positions are indexes into its trie. */
final class BatchCursor implements Cursor {
    private final Batch batch;
    private int key;
    private int val;

    BatchCursor(Batch batch) {
        this.batch = batch;
        rewindKeys();
    }

    @Override
    public boolean keyValid() {
        return key < batch.keys.size();
    }

    @Override
    public boolean valValid() {
        return keyValid() && val < batch.keyOffsets[key + 1];
    }

    @Override
    public Column keyColumn() {
        return batch.keys;
    }

    @Override
    public int keyIndex() {
        return key;
    }

    @Override
    public Column valColumn() {
        return batch.vals;
    }

    @Override
    public int valIndex() {
        return val;
    }

    @Override
    public void stepKey() {
        key++;
        if (keyValid()) val = batch.keyOffsets[key];
    }

    @Override
    public void seekKey(Column column, int i) {
        int n = batch.keys.size();
        if (key >= n || batch.keys.compare(key, column, i) >= 0) {
            rewindVals();
            return;
        }
        // gallop, then binary search: seeks usually land near the current position; but from the
        // first key (a fresh cursor, a point lookup) galloping would only double the comparisons
        int step = 1;
        int lo = key;
        int hi = key == 0 ? n : key + 1;
        while (hi < n && batch.keys.compare(hi, column, i) < 0) {
            lo = hi;
            step <<= 1;
            hi = Math.min(n, lo + step);
        }
        while (lo + 1 < hi) {
            int mid = (lo + hi) >>> 1;
            if (batch.keys.compare(mid, column, i) < 0) lo = mid;
            else hi = mid;
        }
        key = hi;
        if (keyValid()) val = batch.keyOffsets[key];
    }

    @Override
    public void stepVal() {
        val++;
    }

    @Override
    public void seekVal(Column column, int i) {
        if (!keyValid()) return;
        int end = batch.keyOffsets[key + 1];
        while (val < end && batch.vals.compare(val, column, i) < 0) val++;
    }

    @Override
    public void rewindVals() {
        if (keyValid()) val = batch.keyOffsets[key];
    }

    @Override
    public void rewindKeys() {
        key = 0;
        val = batch.keys.size() > 0 ? batch.keyOffsets[0] : 0;
    }

    @Override
    public void forEachTime(TimeDiffConsumer consumer) {
        int arity = batch.arity;
        for (int u = batch.valOffsets[val], e = batch.valOffsets[val + 1]; u < e; u++) consumer.accept(batch.times, u * arity, batch.diffs[u]);
    }

    @Override
    public long accumulate(long[] time) {
        int arity = batch.arity;
        long sum = 0;
        for (int u = batch.valOffsets[val], e = batch.valOffsets[val + 1]; u < e; u++) {
            if (Times.lessEqual(batch.times, u * arity, time, 0, arity)) sum += batch.diffs[u];
        }
        return sum;
    }
}
