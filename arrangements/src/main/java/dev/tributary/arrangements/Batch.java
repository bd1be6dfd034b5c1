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
 */
public final class Batch {
    final Column keys;
    final int[] keyOffsets;
    final Column vals;
    final int[] valOffsets;
    final long[] times;
    final long[] diffs;
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
    Fences fences;

    /** Fences behind a final field, so that a reader that finds them through a data race sees them whole. */
    record Fences(long[] keys) {}

    /** Probes sought in the batch by prepared seeks before it had a filter, and how many found their key. */
    long probed;
    long probesFound;

    Batch(Column keys, int[] keyOffsets, Column vals, int[] valOffsets, long[] times, long[] diffs, int arity, Description description) {
        this(keys, keyOffsets, vals, valOffsets, times, diffs, arity, description, maxTime(times, diffs.length, arity));
    }

    /** A batch whose times (arity 1) are known to be at most {@code maxTime}, sparing the scan for it (a merge knows a bound from its inputs). */
    Batch(Column keys, int[] keyOffsets, Column vals, int[] valOffsets, long[] times, long[] diffs, int arity, Description description,
                  long maxTime) {
        this.keys = keys;
        this.keyOffsets = keyOffsets;
        this.vals = vals;
        this.valOffsets = valOffsets;
        this.times = times;
        this.diffs = diffs;
        this.arity = arity;
        this.description = description;
        this.maxTime = maxTime;
        this.oneValPerKey = vals.size() == keys.size();
        this.oneUpdatePerVal = diffs.length == vals.size();
    }

    private static long maxTime(long[] times, int updates, int arity) {
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
        Batch spanned = new Batch(data.keys, data.keyOffsets, data.vals, data.valOffsets, data.times, data.diffs, data.arity,
                new Description(older.lower(), newer.upper(), data.since()), data.maxTime);
        // the same keys: what was learnt about searching them holds (a quiet trace spans a batch per step)
        spanned.filter = data.filter;
        spanned.fences = data.fences;
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
        return keys.size();
    }

    public int valCount() {
        return vals.size();
    }

    public int updateCount() {
        return diffs.length;
    }

    public boolean isEmpty() {
        return diffs.length == 0;
    }

    /** The key column (distinct keys in order). */
    public Column keys() {
        return keys;
    }

    /** The value column (per key, distinct values in order). */
    public Column vals() {
        return vals;
    }

    /** Heap bytes of the batch's arrays and columns (and of its key filter and fences, if it has them). */
    public long heapBytes() {
        return 64 + keys.heapBytes() + vals.heapBytes() + Column.arrayBytes(keyOffsets.length, 4) + Column.arrayBytes(valOffsets.length, 4)
                + Column.arrayBytes(times.length, 8) + Column.arrayBytes(diffs.length, 8) + (filter == null ? 0 : filter.heapBytes())
                + (fences == null ? 0 : Column.arrayBytes(fences.keys().length, 8));
    }

    /** A cursor over {@code batches} read as one (they may overlap in keys). */
    public static Cursor cursor(java.util.List<Batch> batches) {
        java.util.List<Cursor> cursors = new java.util.ArrayList<>(batches.size());
        for (Batch b : batches) {
            if (!b.isEmpty()) cursors.add(b.cursor());
        }
        return new CursorList(cursors);
    }

    /** A cursor over this batch alone. */
    public Cursor cursor() {
        return new BatchCursor(this);
    }

    @Override
    public String toString() {
        return "Batch" + description + " of " + updateCount() + " updates";
    }
}
