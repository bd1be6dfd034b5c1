package dev.tributary.arrangements;

/** A cursor over one batch: positions are indexes into its trie. */
final class BatchCursor implements Cursor {
    /**
     * A batch gets its seeks found in advance ({@link #prepareSeeks}) only when it has at least
     * this many keys: smaller ones stay in the cache, where galloping from key to key is cheaper.
     */
    static final int PREPARED_MIN_KEYS = 1 << 14;
    /** ... and at least this many keys per probe: denser probes share the cache lines galloping reads. */
    static final int PREPARED_MIN_GAP = 64;
    /** A batch of {@code long} keys searched through fences ({@link LongColumn#lowerBounds(LongColumn, int[], int, int[], LongColumn.Fences)}) from this many keys. */
    static final int FENCED_MIN_KEYS = 1 << 16;
    /**
     * A batch whose prepared probes have found their key less than half the time, over at least
     * this many probes, gets a {@link KeyFilter}: the recent merges of a trace each hold a small
     * share of the keys, and most probes would search them in vain.
     */
    static final long FILTER_AFTER_PROBES = 256;
    /**
     * A batch too small to prepare is still prepared through a filter, from this many keys, once
     * its seeks have found their key less than half the time (as above): galloping to a key it
     * lacks costs a dozen mispredicted comparisons, the filter a load. Under churn over many keys
     * most of a trace's small batches hold the recent changes of other keys.
     */
    static final int FILTERED_MIN_KEYS = 256;

    private Batch batch;
    /**
     * The plain batch read: {@link #batch} itself, or where that is parted, its part {@link #part}
     * (positions are indexes into it). Past the last key: {@code key == cur.keys.size()}, with
     * {@code part} the last part (stepped there) or {@code parts.length} (a seek past every key,
     * which loads no part).
     */
    private Batch cur;
    private int part;
    private int key;
    private int val;
    /**
     * The prepared probes and, for each, its position in the batch (the first key {@code >=} it),
     * or -1 where the batch's filter says it lacks the key (position not sought).
     */
    private final ProbeWalk probes = new ProbeWalk();
    private int[] probeAt;
    /** Scratch for the positions of the probes whose keys the batch holds ({@link #touchUpdates}). */
    private int[] held;
    /** Scratch for the probes' mixed hashes (when the caller has none) and the filter words they fall in. */
    private long[] scratchMixed;
    private long[] words;
    /** Scratch for the probes a filter lets through, and their positions. */
    private int[] passed;
    private int[] passedAt;
    /** Keeps the reads that bring a probe's updates into the cache from being optimized away. */
    private long touched;

    /**
     * Whether the batch may still be read; a cursor used after its trace has recycled the batch
     * (a trace cursor kept past the trace's next change) fails here when assertions are on.
     */
    private boolean live() {
        if (batch.recycled()) {
            throw new AssertionError("a cursor read " + batch + " after its trace's merges recycled it: a trace cursor is valid only until the trace next changes");
        }
        return true;
    }

    /** Lets go of the batch read and the probes prepared, until the next {@link #aim}. */
    void forget() {
        batch = null;
        cur = null;
        probes.reset(null);
    }

    /** The batch read. */
    Batch batch() {
        return batch;
    }

    BatchCursor(Batch batch) {
        this.batch = batch;
        this.cur = batch;
        rewindKeys();
    }

    /** Points this cursor at {@code batch} from its first key, forgetting prepared probes (keeping their scratch). */
    void aim(Batch batch) {
        this.batch = batch;
        this.cur = batch;
        probes.reset(null);
        rewindKeys();
    }

    @Override
    public boolean keyValid() {
        return key < cur.keys.size();
    }

    @Override
    public boolean valValid() {
        return keyValid() && val < valEnd(key);
    }

    @Override
    public Column keyColumn() {
        return cur.keys;
    }

    @Override
    public int keyIndex() {
        return key;
    }

    @Override
    public Column valColumn() {
        return cur.vals;
    }

    @Override
    public int valIndex() {
        return val;
    }

    @Override
    public void stepKey() {
        assert live();
        key++;
        if (batch.parts != null && key >= cur.keys.size()) nextPart();
        if (keyValid()) val = firstVal(key);
    }

    /** Past the current part's last key: to the next part's first, if there is a next part. */
    private void nextPart() {
        Part[] parts = batch.parts;
        if (part + 1 >= parts.length) return;
        part++;
        cur = parts[part].batch();
        key = 0;
    }

    /**
     * For a parted batch, moves to the part where the first key {@code >=} key {@code i} of
     * {@code column} would be, if that is a later part (from its first key); past the last part
     * if every key is smaller.
     */
    private void seekPart(Column column, int i) {
        Part[] parts = batch.parts;
        Column bounds = batch.bounds;
        if (part >= parts.length || bounds.compare(part, column, i) >= 0) return;
        int lo = part;
        int hi = parts.length;
        // the first part whose last key is >= the key sought: it holds the first key >= it
        while (lo + 1 < hi) {
            int mid = (lo + hi) >>> 1;
            if (bounds.compare(mid, column, i) < 0) lo = mid;
            else hi = mid;
        }
        if (hi == parts.length) {
            // every key is smaller: no key, without reading the last part
            part = parts.length;
            key = cur.keys.size();
            return;
        }
        part = hi;
        cur = parts[hi].batch();
        key = 0;
    }

    @Override
    public void prepareSeeks(Column keys) {
        prepare(keys, null);
    }

    /**
     * {@link #prepareSeeks}; returns whether the seeks were prepared (the batch is large enough
     * for it). {@code mixed}: the probes' hashes through {@link KeyFilter#mix}, if the caller has
     * them (several batches check one set of probes against their filters), or null.
     */
    boolean prepare(Column keys, long[] mixed) {
        assert live();
        probes.reset(null);
        // a parted batch is sought part by part: its parts come and go from the heap
        if (batch.parts != null) return false;
        int m = keys.size();
        int n = cur.keys.size();
        if (m == 0 || keys.getClass() != cur.keys.getClass()) return false;
        if (n < PREPARED_MIN_KEYS || n / m < PREPARED_MIN_GAP) {
            // small, or probed densely: galloping unless most seeks miss the batch (then its filter turns them away)
            if (cur.filter == null) {
                if (!filterDue(n)) return false;
                cur.buildFilter();
            }
        }
        if (probeAt == null || probeAt.length < m) probeAt = new int[m];
        KeyFilter filter = cur.filter;
        if (filter == null) {
            search(keys, null, m, probeAt);
            int found = touchUpdates(keys, null, probeAt, m);
            cur.probed += m;
            cur.probesFound += found;
            if (filterDue(n)) cur.buildFilter();
        } else {
            if (passed == null || passed.length < m) {
                passed = new int[m];
                passedAt = new int[m];
            }
            if (mixed == null) mixed = KeyFilter.mixAll(keys, scratchMixed = grown(scratchMixed, m));
            // the filter's words first, with no branch between their loads: a branch on an
            // answer (as unpredictable as whether the batch holds the key) mispredicts, and the
            // loads after it restart, where together their misses overlap (twice as fast, D16)
            long[] w = words = grown(words, m);
            for (int p = 0; p < m; p++) w[p] = filter.word(mixed[p]);
            int c = 0;
            for (int p = 0; p < m; p++) {
                probeAt[p] = -1;
                passed[c] = p;
                c += KeyFilter.holds(w[p], mixed[p]) ? 1 : 0;
            }
            search(keys, passed, c, passedAt);
            for (int j = 0; j < c; j++) probeAt[passed[j]] = passedAt[j];
            // only the probes the filter let through
            touchUpdates(keys, passed, passedAt, c);
        }
        probes.reset(keys);
        return true;
    }

    /** Whether the batch, of {@code n} keys, has been missed by enough of its seeks (prepared or not) to be worth a filter. */
    private boolean filterDue(int n) {
        return n >= FILTERED_MIN_KEYS && cur.probed >= FILTER_AFTER_PROBES && 2 * cur.probesFound < cur.probed
                && KeyFilter.applies(cur.keys);
    }

    /** {@code a} if it holds {@code m} longs, else a new array that does. */
    static long[] grown(long[] a, int m) {
        return a != null && a.length >= m ? a : new long[Math.max(m, 16)];
    }

    /** {@link Column#lowerBounds} of the batch's keys, through fences where the batch is large. */
    private void search(Column keys, int[] which, int count, int[] positions) {
        if (cur.keys instanceof LongColumn own && keys instanceof LongColumn probes && own.size() >= FENCED_MIN_KEYS) {
            LongColumn.Fences f = cur.fences;
            if (f == null) {
                cur.fences = f = own.fences();
                cur.uniform = Batch.Uniform.of(cur);
            }
            own.lowerBounds(probes, which, count, positions, f);
        } else {
            cur.keys.lowerBounds(keys, which, count, positions);
        }
    }

    /**
     * Reads, level by level over the probes whose keys the batch holds, the first value and
     * update of each: the reads a seek's caller makes next, each a likely miss in a large batch,
     * issued together. Probe {@code which[j]} ({@code which == null}: {@code j}) of {@code keys}
     * is at position {@code found[j]}, for {@code j < count}; a probe whose key is not there
     * (another key, or past the last) reads nothing more. Returns how many probes found their key.
     */
    private int touchUpdates(Column keys, int[] which, int[] found, int count) {
        int n = cur.keys.size();
        if (held == null || held.length < count) held = new int[keys.size()];
        int[] at = held;
        int m = 0;
        for (int j = 0; j < count; j++) {
            int f = found[j];
            at[m] = f;
            m += f < n && cur.keys.equal(f, keys, which == null ? j : which[j]) ? 1 : 0;
        }
        long sum = 0;
        if (!cur.oneValPerKey) {
            for (int p = 0; p < m; p++) sum += cur.keyOffsets[at[p]];
        }
        if (!cur.oneUpdatePerVal) {
            for (int p = 0; p < m; p++) sum += cur.valOffsets[firstVal(at[p])];
        }
        long[] times = cur.times;
        long[] diffs = cur.diffs;
        int arity = cur.arity;
        Batch.Uniform uniform = cur.uniform;
        if (uniform == null || !uniform.same()) {
            for (int p = 0; p < m; p++) {
                int u = firstUpdate(firstVal(at[p]));
                sum += times[u * arity] + diffs[u];
            }
        }
        if (cur.vals instanceof LongColumn v) {
            for (int p = 0; p < m; p++) sum += v.getLong(firstVal(at[p]));
        }
        touched += sum;
        return m;
    }

    /** Moves forward to position {@code at}, known to be the first key {@code >=} the one sought. */
    private void jump(int at) {
        if (at > key) {
            key = at;
            if (keyValid()) val = firstVal(key);
        } else {
            rewindVals();
        }
    }

    @Override
    public boolean seekKeyExact(Column column, int i) {
        assert live();
        int p = probes.find(column, i);
        if (p < 0) {
            seekKey(column, i);
            boolean found = keyValid() && cur.keys.equal(key, column, i);
            // what decides whether a filter would pay (filterDue)
            cur.probed++;
            if (found) cur.probesFound++;
            return found;
        }
        return seekProbe(column, i, p);
    }

    /**
     * {@link #seekKeyExact} for key {@code i} of {@code column}, known by the caller to equal
     * probe {@code p} of {@code keys}: a {@link CursorList} finds the probe once for all its
     * cursors, where each would otherwise walk the probes to it. A cursor not prepared with
     * {@code keys} seeks as usual.
     */
    boolean seekKeyExact(Column column, int i, Column keys, int p) {
        assert live();
        // behind its own walk (a seekKey went past probe p): what seekKeyExact would do
        if (probes.keys != keys || probes.next > p) return seekKeyExact(column, i);
        probes.next = p;
        return seekProbe(column, i, p);
    }

    /** The exact seek of prepared probe {@code p}, equal to key {@code i} of {@code column}. */
    private boolean seekProbe(Column column, int i, int p) {
        int at = probeAt[p];
        if (at < 0) return false;
        if (at >= cur.keys.size() || !cur.keys.equal(at, column, i)) {
            // not here: move to the first key past it, but read none of its values (in a
            // large batch the offsets are a cache miss that the preparation did not take)
            if (at > key) key = at;
            return false;
        }
        jump(at);
        return true;
    }

    @Override
    public void seekKey(Column column, int i) {
        assert live();
        int p = probes.find(column, i);
        if (p >= 0 && probeAt[p] >= 0) {
            jump(probeAt[p]);
            return;
        }
        if (batch.parts != null) seekPart(column, i);
        int n = cur.keys.size();
        if (key >= n || cur.keys.compare(key, column, i) >= 0) {
            rewindVals();
            return;
        }
        // gallop, then binary search: seeks usually land near the current position; but from the
        // first key (a fresh cursor, a point lookup) galloping would only double the comparisons
        int step = 1;
        int lo = key;
        int hi = key == 0 ? n : key + 1;
        while (hi < n && cur.keys.compare(hi, column, i) < 0) {
            lo = hi;
            step <<= 1;
            hi = Math.min(n, lo + step);
        }
        while (lo + 1 < hi) {
            int mid = (lo + hi) >>> 1;
            if (cur.keys.compare(mid, column, i) < 0) lo = mid;
            else hi = mid;
        }
        key = hi;
        if (keyValid()) val = firstVal(key);
    }

    @Override
    public void stepVal() {
        assert live();
        val++;
    }

    @Override
    public void seekVal(Column column, int i) {
        assert live();
        if (!keyValid()) return;
        int end = valEnd(key);
        while (val < end && cur.vals.compare(val, column, i) < 0) val++;
    }

    @Override
    public void rewindVals() {
        if (keyValid()) val = firstVal(key);
    }

    @Override
    public void rewindKeys() {
        assert live();
        if (batch.parts != null) {
            part = 0;
            cur = batch.parts[0].batch();
        }
        key = 0;
        val = 0;
    }

    private int firstVal(int k) {
        return cur.oneValPerKey ? k : cur.keyOffsets[k];
    }

    private int valEnd(int k) {
        return cur.oneValPerKey ? k + 1 : cur.keyOffsets[k + 1];
    }

    private int firstUpdate(int v) {
        return cur.oneUpdatePerVal ? v : cur.valOffsets[v];
    }

    private int updateEnd(int v) {
        return cur.oneUpdatePerVal ? v + 1 : cur.valOffsets[v + 1];
    }

    @Override
    public void forEachTime(TimeDiffConsumer consumer) {
        assert live();
        Batch.Uniform uniform = cur.uniform;
        if (uniform != null && uniform.same()) {
            // every update has this time and diff: read neither array
            for (int u = firstUpdate(val), e = updateEnd(val); u < e; u++) consumer.accept(uniform.time(), 0, uniform.diff());
            return;
        }
        int arity = cur.arity;
        for (int u = firstUpdate(val), e = updateEnd(val); u < e; u++) consumer.accept(cur.times, u * arity, cur.diffs[u]);
    }

    @Override
    public long accumulate(long[] time) {
        assert live();
        Batch.Uniform uniform = cur.uniform;
        if (uniform != null && uniform.same()) {
            return Times.lessEqual(uniform.time(), 0, time, 0, 1) ? (long) (updateEnd(val) - firstUpdate(val)) * uniform.diff() : 0;
        }
        int arity = cur.arity;
        long sum = 0;
        for (int u = firstUpdate(val), e = updateEnd(val); u < e; u++) {
            if (Times.lessEqual(cur.times, u * arity, time, 0, arity)) sum += cur.diffs[u];
        }
        return sum;
    }
}
