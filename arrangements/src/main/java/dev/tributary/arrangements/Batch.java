package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;

/**
 * An immutable, sorted, consolidated set of updates, stored as a trie of columns.
 *
 * <p>Layout: distinct keys in order; for key {@code k} its distinct values are
 * {@code vals[keyOffsets[k] .. keyOffsets[k+1])} in order; for value {@code v} its updates are
 * {@code (times, diffs)[valOffsets[v] .. valOffsets[v+1])} in time order. Invariants: no diff is
 * zero, no {@code (key, val, time)} repeats, every key has a value and every value an update,
 * and every time lies within the {@link Description}. A batch is never changed once built, so
 * any number of readers and dataflows may hold it without copying.
 *
 * <p>The arrays may be longer than their contents: the counts are the columns' sizes and
 * {@link #updateCount()}. A (long, long) batch that a trace sealed or merged has its arrays from
 * its worker's {@link MergeScratch}, and they go back there for the next batches once nobody can
 * read it: its trace has retired it (merged it into another) and every reader it was sent to has
 * {@linkplain #release() released} it. A reader that never releases only keeps the arrays from
 * being reused. Batches handed out otherwise ({@link TraceHandle#batches()}, a snapshot, an
 * import's replay) are marked {@linkplain #share() shared} and never reused. A trace cursor reads
 * its batches too, which is why it is valid only until its trace next changes.
 */
public final class Batch {
    final Column keys;
    final int[] keyOffsets;
    final Column vals;
    final int[] valOffsets;
    final long[] times;
    final long[] diffs;
    /** Updates in the batch: the used length of {@link #diffs} ({@code times} holds {@code arity} longs per update). */
    final int updates;
    final int arity;
    private final Description description;
    /**
     * With one-coordinate (totally ordered) times, the greatest time in the batch or a bound of it
     * from above (MIN_VALUE if empty); otherwise MAX_VALUE. A bound that is too high only costs a
     * compaction that finds nothing to consolidate.
     */
    final long maxTime;
    /**
     * Every key has exactly one value ({@code keyOffsets[k] == k}), and every value exactly one
     * update ({@code valOffsets[v] == v}): common (a table arranged by its unique key, a count),
     * and then a cursor need not read the offsets, each a cache miss in a large batch.
     */
    final boolean oneValPerKey;
    final boolean oneUpdatePerVal;
    /**
     * Which keys the batch may hold, built once sparse probes have mostly missed it (see
     * {@link BatchCursor#prepareSeeks}); null until then. Not part of the batch's value: a cache
     * that only its worker writes, and that any reader may use once it is there.
     */
    KeyFilter filter;
    /** The key column's {@link LongColumn#fences()}, made when prepared seeks first search a large batch of long keys; null until then (a cache like {@link #filter}). */
    LongColumn.Fences fences;

    /**
     * Whether every update of the batch has the same time and the same diff, found out with its
     * fences (null until then): a large batch compacted to its since, of records counted once,
     * which is what most of a trace's data is. A cursor over it then reads no time or diff, two
     * cache misses per key looked up in a batch far larger than the cache.
     */
    Uniform uniform;

    /** See {@link #uniform}; {@code same} false: the updates differ (or times have several coordinates). */
    record Uniform(boolean same, long[] time, long diff) {
        static final Uniform MIXED = new Uniform(false, null, 0);

        /** Scans {@code b} (stopping at the first difference). */
        static Uniform of(Batch b) {
            if (b.arity != 1 || b.updates == 0) return MIXED;
            long t = b.times[0];
            long d = b.diffs[0];
            for (int i = 1; i < b.updates; i++) {
                if (b.times[i] != t || b.diffs[i] != d) return MIXED;
            }
            return new Uniform(true, new long[] {t}, d);
        }
    }

    /**
     * A parted batch's pieces, in key order, each a plain batch of a range of its keys (no key in
     * two parts); null for a plain batch, whose data are the fields above. A parted batch has none
     * of those (its columns and arrays are null): it is read through its cursor, merged part by
     * part, and written by checkpoints part by part. See {@link Paging}.
     */
    final Part[] parts;
    /** A parted batch's last key of each part (a column like its keys), to find where a seek lands; null for a plain batch. */
    final Column bounds;
    /** A parted batch's empty key and value columns, the kind of its parts' (for building batches like it); null for a plain batch. */
    private final Column keyProto;
    private final Column valProto;
    /** A parted batch's key and value counts (a plain batch's are its columns' sizes). */
    private final int partedKeys;
    private final int partedVals;

    /** Probes sought in the batch by prepared seeks before it had a filter, and how many found their key. */
    long probed;
    long probesFound;

    /**
     * Where the arrays go back to when a merge retires the batch (null: they are left to the
     * collector). Only the batch's worker thread reads or changes this and the fields below
     * (its trace, its writer and the readers it was sent to).
     */
    private MergeScratch pool;
    /** Handed outside the trace: someone may read it at any later time, so its arrays are never reused. */
    private boolean shared;
    /** Readers it was sent to that have not released it yet. */
    private int holds;
    /** Its trace no longer holds it (a merge retired it, or it was never in one). */
    private boolean retired;
    /** Its arrays went back to the pool: nothing may read it any more (checked by assertions). */
    private boolean recycled;

    Batch(Column keys, int[] keyOffsets, Column vals, int[] valOffsets, long[] times, long[] diffs, int arity, Description description) {
        this(keys, keyOffsets, vals, valOffsets, times, diffs, diffs.length, arity, description, maxTime(times, diffs.length, arity));
    }

    /**
     * A batch of the first {@code updates} entries of {@code diffs} (the offsets arrays hold one
     * more entry than their column's size) whose times (arity 1) are known to be at most
     * {@code maxTime}, sparing the scan for it (a merge knows a bound from its inputs).
     */
    Batch(Column keys, int[] keyOffsets, Column vals, int[] valOffsets, long[] times, long[] diffs, int updates, int arity,
            Description description, long maxTime) {
        this.keys = keys;
        this.vals = vals;
        this.times = times;
        this.updates = updates;
        this.arity = arity;
        this.description = description;
        this.maxTime = maxTime;
        this.oneValPerKey = vals.size() == keys.size();
        this.oneUpdatePerVal = updates == vals.size();
        // Offsets 0, 1, 2, ... and diffs all 1 are the same array for every such batch. Not for
        // batches of longs, whose arrays go back to their pool for reuse (and are few).
        boolean pooled = keys instanceof LongColumn && vals instanceof LongColumn;
        boolean identityKeys = !pooled && oneValPerKey;
        boolean identityVals = !pooled && oneUpdatePerVal;
        boolean unitDiffs = !pooled && allOnes(diffs, updates);
        this.keyOffsets = identityKeys ? SharedArrays.identity(keys.size() + 1) : keyOffsets;
        this.valOffsets = identityVals ? SharedArrays.identity(vals.size() + 1) : valOffsets;
        this.diffs = unitDiffs ? SharedArrays.ones(updates) : diffs;
        this.sharedArrays = (identityKeys ? SHARED_KEY_OFFSETS : 0) | (identityVals ? SHARED_VAL_OFFSETS : 0) | (unitDiffs ? SHARED_DIFFS : 0);
        this.parts = null;
        this.bounds = null;
        this.keyProto = null;
        this.valProto = null;
        this.partedKeys = 0;
        this.partedVals = 0;
    }

    /**
     * A parted batch of {@code parts} (at least one; in key order, no key in two), whose last keys
     * are {@code bounds}' values, described by {@code description}.
     */
    Batch(Part[] parts, Column bounds, Column keyProto, Column valProto, int arity, Description description) {
        if (parts.length == 0 || bounds.size() != parts.length) {
            throw new IllegalArgumentException("a parted batch needs at least one part and a bound for each: " + parts.length + " parts, " + bounds.size() + " bounds");
        }
        this.parts = parts;
        this.bounds = bounds;
        this.keyProto = keyProto.emptyLike(1);
        this.valProto = valProto.emptyLike(1);
        this.arity = arity;
        this.description = description;
        int nk = 0;
        int nv = 0;
        long nu = 0;
        long max = Long.MIN_VALUE;
        for (Part p : parts) {
            nk += p.keyCount;
            nv += p.valCount;
            nu += p.updateCount;
            max = Math.max(max, p.maxTime);
        }
        if (nu > Integer.MAX_VALUE) throw new IllegalArgumentException("a batch holds at most " + Integer.MAX_VALUE + " updates, not " + nu);
        this.partedKeys = nk;
        this.partedVals = nv;
        this.updates = (int) nu;
        this.maxTime = arity == 1 ? max : Long.MAX_VALUE;
        this.keys = null;
        this.vals = null;
        this.keyOffsets = null;
        this.valOffsets = null;
        this.times = null;
        this.diffs = null;
        this.oneValPerKey = false;
        this.oneUpdatePerVal = false;
        this.sharedArrays = 0;
    }

    /** Whether the batch is held in {@linkplain Paging parts} (read through cursors only: {@link #keys()} and {@link #vals()} have nothing to give). */
    public boolean isParted() {
        return parts != null;
    }

    /** The first value of key {@code k} of a plain batch ({@code k == keyCount()}: the value count). */
    int valOf(int k) {
        return k == keys.size() ? vals.size() : oneValPerKey ? k : keyOffsets[k];
    }

    /** The first update of value {@code v} of a plain batch ({@code v == valCount()}: the update count). */
    int updateOf(int v) {
        return v == vals.size() ? updates : oneUpdatePerVal ? v : valOffsets[v];
    }

    /** A plain batch of this plain batch's keys {@code [from, to)} and their values and updates, copied, with its description. */
    Batch slice(int from, int to) {
        int v0 = valOf(from);
        int v1 = valOf(to);
        int u0 = updateOf(v0);
        int u1 = updateOf(v1);
        Column k = keys.emptyLike(to - from);
        k.appendRange(keys, from, to);
        Column v = vals.emptyLike(v1 - v0);
        v.appendRange(vals, v0, v1);
        int[] ko = new int[to - from + 1];
        for (int i = from; i <= to; i++) ko[i - from] = valOf(i) - v0;
        int[] vo = new int[v1 - v0 + 1];
        for (int i = v0; i <= v1; i++) vo[i - v0] = updateOf(i) - u0;
        long[] t = java.util.Arrays.copyOfRange(times, u0 * arity, u1 * arity);
        long[] d = java.util.Arrays.copyOfRange(diffs, u0, u1);
        return new Batch(k, ko, v, vo, t, d, arity, description);
    }

    /** A parted batch's parts, in key order. @throws IllegalStateException if the batch is plain */
    public java.util.List<Part> parts() {
        if (parts == null) throw new IllegalStateException(this + " is not held in parts");
        return java.util.List.of(parts);
    }

    /** An empty key column of the batch's kind. */
    Column keyProto() {
        return parts != null ? keyProto : keys;
    }

    /** An empty value column of the batch's kind. */
    Column valProto() {
        return parts != null ? valProto : vals;
    }

    /** The bytes the keys take where they are bytes ({@link Column#bytesUsed}). */
    long keyBytes() {
        if (parts == null) return keys.bytesUsed();
        long n = 0;
        for (Part p : parts) n += p.keyBytes;
        return n;
    }

    /** The bytes the values take where they are bytes ({@link Column#bytesUsed}). */
    long valBytes() {
        if (parts == null) return vals.bytesUsed();
        long n = 0;
        for (Part p : parts) n += p.valBytes;
        return n;
    }

    /** About how many bytes the batch's encoding takes ({@link BatchCodec}): what a merge of it writes. */
    long encodedBytes() {
        return keyBytes() + valBytes() + 4L * (keyCount() + valCount()) + 8L * updates * (arity + 1);
    }

    /** Which of the batch's arrays are {@link SharedArrays} (held by many batches, so counted by none). */
    private final int sharedArrays;
    private static final int SHARED_KEY_OFFSETS = 1;
    private static final int SHARED_VAL_OFFSETS = 2;
    private static final int SHARED_DIFFS = 4;

    /** Whether {@code array} is one of this batch's arrays that it shares with other batches ({@link SharedArrays}; longer than its contents). */
    boolean isShared(Object array) {
        return array == keyOffsets && (sharedArrays & SHARED_KEY_OFFSETS) != 0
                || array == valOffsets && (sharedArrays & SHARED_VAL_OFFSETS) != 0
                || array == diffs && (sharedArrays & SHARED_DIFFS) != 0;
    }

    private static boolean allOnes(long[] diffs, int updates) {
        for (int i = 0; i < updates; i++) if (diffs[i] != 1) return false;
        return true;
    }

    static long maxTime(long[] times, int updates, int arity) {
        if (arity != 1) return Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < updates; i++) max = Math.max(max, times[i]);
        return max;
    }

    /** An empty batch covering {@code [lower, upper)}. */
    static Batch empty(Column keyProto, Column valProto, int arity, Antichain lower, Antichain upper, Antichain since) {
        return new BatchBuilder(keyProto, valProto, arity, 0).build(new Description(lower, upper, since));
    }

    /**
     * Two adjacent batches, one of them empty, as one: the non-empty one's data (shared, not
     * copied) over both time ranges. An empty batch only moves a boundary, so joining it to its
     * neighbour costs nothing, where merging it would rewrite the neighbour.
     */
    static Batch spanning(Batch older, Batch newer) {
        if (!older.upper().equals(newer.lower())) {
            throw new IllegalArgumentException("batches " + older.description() + " and " + newer.description() + " are not adjacent");
        }
        Batch data = older.isEmpty() ? newer : older;
        if (!older.isEmpty() && !newer.isEmpty()) throw new IllegalArgumentException("neither batch is empty");
        if (data.parts != null) {
            return new Batch(data.parts, data.bounds, data.keyProto, data.valProto, data.arity, new Description(older.lower(), newer.upper(), data.since()));
        }
        Batch spanned = new Batch(data.keys, data.keyOffsets, data.vals, data.valOffsets, data.times, data.diffs, data.updates, data.arity,
                new Description(older.lower(), newer.upper(), data.since()), data.maxTime);
        // the arrays are the spanned batch's now: it replaces both in the trace, and only it may give them back
        spanned.pool = data.pool;
        // readers still holding the data batch release that one, not this: then never reuse the arrays
        spanned.shared = data.shared || data.holds > 0;
        data.pool = null;
        // the same keys: what was learnt about searching them holds (a quiet trace spans a batch per step)
        spanned.filter = data.filter;
        spanned.fences = data.fences;
        spanned.uniform = data.uniform;
        spanned.probed = data.probed;
        spanned.probesFound = data.probesFound;
        return spanned;
    }

    public Description description() {
        return description;
    }

    public Antichain lower() {
        return description.lower();
    }

    public Antichain upper() {
        return description.upper();
    }

    public Antichain since() {
        return description.since();
    }

    public int arity() {
        return arity;
    }

    public int keyCount() {
        return parts != null ? partedKeys : keys.size();
    }

    public int valCount() {
        return parts != null ? partedVals : vals.size();
    }

    public int updateCount() {
        return updates;
    }

    public boolean isEmpty() {
        return updates == 0;
    }

    /** This batch (of {@link LongColumn}s), its arrays to go back to {@code pool} once nobody can read it. */
    Batch pooled(MergeScratch pool) {
        this.pool = pool;
        return this;
    }

    /** Marks the batch as held outside its trace: it will never be recycled. */
    Batch share() {
        shared = true;
        return this;
    }

    /** Marks every batch of {@code batches} {@linkplain #share() shared}, and returns the list. */
    static java.util.List<Batch> share(java.util.List<Batch> batches) {
        for (int i = 0; i < batches.size(); i++) batches.get(i).shared = true;
        return batches;
    }

    /**
     * The batch is about to be sent to {@code readers} inputs, each of which may {@link #release}
     * it once; {@code inTrace}: it is also being inserted into a trace, which will retire it.
     */
    void sendTo(int readers, boolean inTrace) {
        holds = readers;
        retired = !inTrace;
        // only the writer that sealed it has it yet, so its arrays may go to this thread's pool in the end
        // (not an empty batch's: the batcher shares those among all its empty batches)
        if (updates > 0 && keys instanceof LongColumn && vals instanceof LongColumn) pool = MergeScratch.ofThread();
    }

    /**
     * Tells the batch that this reader of its arrangement's stream is done with it: it will not
     * read it again, nor keep any column of it. Once every reader it was sent to has released it
     * and its trace has merged it away, its arrays are reused for other batches, so a reader must
     * release each batch it received at most once, and only on the worker's thread. Releasing is
     * optional: a batch that some reader never releases is left to the garbage collector. A batch
     * that is shared, or that did not come from a trace's writer, ignores releases.
     *
     * @throws IllegalStateException if the batch is released more times than it was sent
     */
    public void release() {
        // nothing to count for a batch whose arrays will never be reused (shared, or not from a pool), nor off its thread
        if (pool == null || shared || pool.owner != Thread.currentThread()) return;
        if (holds <= 0) {
            throw new IllegalStateException(this + " released more times than it was sent: a reader releases each batch it received once");
        }
        holds--;
        free();
    }

    /**
     * Pins the batch for a reader that keeps a cursor over it past its trace's next change (a
     * {@link HeldCursor}): its arrays are not reused until a matching {@link #release}. Like a
     * release, it counts nothing for a batch whose arrays will never be reused.
     */
    void hold() {
        if (pool == null || shared || pool.owner != Thread.currentThread()) return;
        holds++;
    }

    /**
     * Builds the batch's {@link #filter}. Its words come from the pool the batch's arrays go back
     * to, and go back with them, when this is the pool's thread and the batch is not shared (a
     * filter is one byte per key, built for most large merge results a reader probes sparsely).
     */
    void buildFilter() {
        MergeScratch p = pool != null && !shared && pool.owner == Thread.currentThread() ? pool : null;
        filter = KeyFilter.of(keys, p);
    }

    /** Called by the trace once a merge has replaced this batch: the trace will not read it again. */
    void recycle() {
        retired = true;
        free();
    }

    /** Gives the arrays back to their pool if nobody can read the batch any more. */
    private void free() {
        if (pool == null || shared || recycled || holds > 0 || !retired) return;
        recycled = true;
        assert poison();
        pool.recycle(((LongColumn) keys).array());
        pool.recycle(keyOffsets);
        pool.recycle(((LongColumn) vals).array());
        pool.recycle(valOffsets);
        pool.recycle(times);
        pool.recycle(diffs);
        if (filter != null) pool.recycle(filter.words());
        pool = null;
    }

    /** Whether the batch's arrays went back to a pool; a reader of such a batch is a bug (a stale trace cursor). */
    boolean recycled() {
        return recycled;
    }

    /** With assertions on (tests), overwrites the recycled arrays, so that a stale reader that escapes the checks reads nonsense rather than old data. */
    private boolean poison() {
        java.util.Arrays.fill(((LongColumn) keys).array(), 0x5EED_DEAD_5EED_DEADL);
        java.util.Arrays.fill(keyOffsets, Integer.MIN_VALUE);
        java.util.Arrays.fill(((LongColumn) vals).array(), 0x5EED_DEAD_5EED_DEADL);
        java.util.Arrays.fill(valOffsets, Integer.MIN_VALUE);
        java.util.Arrays.fill(times, Long.MIN_VALUE);
        java.util.Arrays.fill(diffs, 0);
        if (filter != null) java.util.Arrays.fill(filter.words(), 0L);
        return true;
    }

    /**
     * The key column (distinct keys in order).
     *
     * @throws IllegalStateException if the batch is {@linkplain #isParted parted} (read it through a cursor)
     */
    public Column keys() {
        if (parts != null) throw new IllegalStateException(this + " is held in parts: read its keys through a cursor");
        return keys;
    }

    /**
     * The value column (per key, distinct values in order).
     *
     * @throws IllegalStateException if the batch is {@linkplain #isParted parted} (read it through a cursor)
     */
    public Column vals() {
        if (parts != null) throw new IllegalStateException(this + " is held in parts: read its values through a cursor");
        return vals;
    }

    /** Heap bytes of the batch's arrays and columns (and of its key filter and fences, if it has them). */
    public long heapBytes() {
        // a parted batch's parts are on the heap only while paging keeps them, within its budget
        if (parts != null) return 64 + bounds.heapBytes() + 64L * parts.length;
        return 64 + keys.heapBytes() + vals.heapBytes()
                + ((sharedArrays & SHARED_KEY_OFFSETS) != 0 ? 0 : Column.arrayBytes(keyOffsets.length, 4))
                + ((sharedArrays & SHARED_VAL_OFFSETS) != 0 ? 0 : Column.arrayBytes(valOffsets.length, 4))
                + Column.arrayBytes(times.length, 8) + ((sharedArrays & SHARED_DIFFS) != 0 ? 0 : Column.arrayBytes(diffs.length, 8))
                + (filter == null ? 0 : filter.heapBytes()) + (fences == null ? 0 : fences.bytes());
    }

    /** A cursor over {@code batches} read as one (they may overlap in keys). */
    public static Cursor cursor(java.util.List<Batch> batches) {
        CursorList c = new CursorList();
        c.aim(batches, batches.size());
        return c;
    }

    /** A cursor over this batch alone. */
    public Cursor cursor() {
        return new BatchCursor(this);
    }

    @Override
    public String toString() {
        return "Batch" + description + " of " + updateCount() + " updates" + (parts != null ? " in " + parts.length + " parts" : "");
    }
}
