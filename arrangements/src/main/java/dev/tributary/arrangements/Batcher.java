package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Buffers unsorted updates until their times are complete, then seals them into a batch.
 *
 * <p>{@link #seal(Antichain)} takes every buffered update whose time is not {@code >=} the new
 * frontier (its time can no longer receive updates), sorts it by {@code (key, val, time)},
 * consolidates, and builds one batch described by {@code [previous upper, upper)}; updates at
 * later times stay buffered. Sorting works on an index array and the columns, with no object per
 * update; buffers are reused across seals.
 */
public final class Batcher {
    private final Column keyProto;
    private final Column valProto;
    private final int arity;
    private Updates buffer;
    private Updates spare;
    private final IndexSort sorter = new IndexSort();
    private final PrefixSort prefixSort = new PrefixSort();
    /** Seals of byte-string keys larger than this sort with {@link PrefixSort}. */
    static final int PREFIX_SORT_MIN = 1 << 10;
    private final LongTripleSort longSort = new LongTripleSort();
    private int[] index = new int[16];
    // per consolidated (key, val, time): its first record and its summed diff; reused
    private int[] groupFirst = new int[16];
    private long[] groupSum = new long[16];
    // the consolidated records in order, for (long, long) batches; reused
    private long[] sortedKeys = new long[0];
    private long[] sortedVals = new long[0];
    private long[] sortedTimes = new long[0];
    private long[] sortedDiffs = new long[0];
    private Antichain lower;
    private final Antichain since;

    /** Never written: the values of a unit column, as longs, for the (long, long) sort. */
    private long[] zeros = new long[0];

    private long[] zeros(int n) {
        if (zeros.length < n) zeros = new long[Math.max(n, zeros.length * 2)];
        return zeros;
    }

    public Batcher(Column keyProto, Column valProto, int arity) {
        this(keyProto, valProto, arity, CombiningTable.supports(keyProto, valProto) ? HASH_MIN : COMPACT_MIN, true);
    }

    /**
     * A batcher that considers consolidating its buffer from {@code compactMin} updates on, and
     * with {@code sampling} false consolidates it then whatever a sample would say (for tests).
     */
    Batcher(Column keyProto, Column valProto, int arity, int compactMin, boolean sampling) {
        if (compactMin < 1) throw new IllegalArgumentException("compactMin must be positive, not " + compactMin);
        this.compactMin = compactMin;
        this.sampling = sampling;
        this.compactAt = compactMin;
        this.keyProto = keyProto;
        this.valProto = valProto;
        this.arity = arity;
        this.buffer = new Updates(keyProto.emptyLike(16), valProto.emptyLike(16), arity);
        this.spare = new Updates(keyProto.emptyLike(16), valProto.emptyLike(16), arity);
        this.lower = Antichain.of(new long[arity]);
        this.since = lower;
    }

    /**
     * Copies {@code updates} into the buffer, consolidating it when it has grown large and looks
     * like it would shrink; once it did, adds each update to its buffered copy, if any, as it comes.
     */
    public void push(Updates updates) {
        if (updates.arity() != arity) throw new IllegalArgumentException("updates of arity " + updates.arity() + " pushed to a batcher of arity " + arity);
        if (combining != null) {
            combining.add(updates);
        } else {
            buffer.appendAll(updates);
            if (buffer.size() >= compactAt) compactIfRepetitive();
        }
        if (Paging.enabled() && arity == 1 && pendingBytes() >= Paging.partBytes() * SPILL_PARTS && BatchCodec.encodable(keyProto, valProto)) spill();
    }

    /**
     * With {@link Paging} on, a buffer of this many parts' bytes is sealed into a sorted run and
     * paged out ({@link #spill}): a hydration or a large transaction, all at one time, would
     * otherwise need the whole of its updates on the heap until its time is complete.
     */
    static final long SPILL_PARTS = 32;

    /**
     * Runs spilled from the buffer, sorted and consolidated, each with the least time it may hold
     * (arity 1; a bound from below): what {@link #seal} merges with the buffer's updates.
     */
    private List<Run> runs = new ArrayList<>();

    private record Run(Batch batch, long minTime) {}

    /**
     * Seals the whole buffer (every time) into a run, paged out, and merges runs of comparable
     * sizes, so that a load of n updates in runs of r is read O(log(n / r)) times, not n / r.
     */
    private void spill() {
        Antichain pending = bufferFrontier();
        if (pending.isEmpty()) return;
        Antichain keep = lower;
        Batch all = sealBuffer(Antichain.empty(arity));
        lower = keep;
        runs.add(new Run(all, pending.get(0)[0]));
        while (runs.size() >= 2 && 2L * runs.get(runs.size() - 1).batch.updateCount() >= runs.get(runs.size() - 2).batch.updateCount()) {
            Run newer = runs.remove(runs.size() - 1);
            Run older = runs.remove(runs.size() - 1);
            long min = Math.min(older.minTime, newer.minTime);
            Antichain from = Antichain.of(Math.min(older.batch.lower().get(0)[0], newer.batch.lower().get(0)[0]));
            Batch merged = mergeRuns(older.batch, newer.batch, new Description(from, Antichain.empty(arity), since));
            // the runs are this batcher's alone: their files go now, not when a collection finds them
            Paging.discard(older.batch, merged);
            Paging.discard(newer.batch, merged);
            runs.add(new Run(merged, min));
        }
    }

    /** {@code a} and {@code b} (sorted runs of any ranges) merged into one batch described by {@code d}, their times as they are. */
    private Batch mergeRuns(Batch a, Batch b, Description d) {
        ColumnMerge m = new ColumnMerge(a, b, Antichain.of(Long.MIN_VALUE), d);
        m.work(Long.MAX_VALUE);
        return m.result();
    }

    /** Whether records of these columns are consolidated through a hash table (all but (long, long) ones, which sort fast enough). */
    private static boolean hashable(Column keys, Column vals) {
        return !(keys instanceof LongColumn && vals instanceof LongColumn);
    }

    /**
     * While the buffered records combine their repeats as they come: the records, each distinct
     * one once with its diffs added up ({@code null} until a sample finds the buffer repetitive,
     * and again after each seal, and for columns it does not {@link CombiningTable#supports}). A
     * grouping's build (a million rows onto a hundred thousand groups' sums) then holds its
     * distinct records only, and each update probes a table of that size, not, at the seal, a
     * table and a buffer of a million records at random. The {@link #buffer} is empty meanwhile.
     */
    private CombiningTable combining;

    /** Starts combining: the buffer's records move into a new {@link #combining} table, repeats added up. */
    private void startCombining() {
        combining = new CombiningTable(buffer.vals(), arity, buffer.size());
        combining.add(buffer);
        buffer.clear();
    }

    /** Ends combining, if it had started: the combined records back in the {@link #buffer}; whether it had. */
    private boolean stopCombining() {
        if (combining == null) return false;
        combining.drainTo(buffer);
        combining = null;
        return true;
    }

    /**
     * The buffer size at which {@link #push} next considers consolidating it. Updates wait here
     * until their time is complete, and a time can gather far more updates than distinct
     * {@code (key, val, time)}s: a grouping over a large join's output, every one of whose pairs
     * lands on one of a few groups. Consolidating early keeps such a buffer at the size of its
     * distinct records.
     */
    private int compactAt;
    /** The smallest buffer worth consolidating before its seal ({@link #COMPACT_MIN} but in tests). */
    private final int compactMin;
    /** How many times the buffer was consolidated before a seal (for tests). */
    int consolidations;
    /** Whether a sample decides if consolidating early is worth it (always, but in tests). */
    private final boolean sampling;
    static final int COMPACT_MIN = 1 << 20;
    /** The records {@link #compactIfRepetitive} samples, and the slots of its hash set. */
    private static final int SAMPLE = 4096;
    private long[] sampleSlots;

    /**
     * Consolidates the buffer if a sample finds at most half of its records distinct: a buffer of
     * byte-string records starts {@link #combining} (sampled by hash value, so that
     * repeats spread over the whole buffer count), one of longs sorts in place if its latest
     * {@link #SAMPLE} records say so. Either way moves {@link #compactAt} so that the work stays a
     * constant share of the pushing: twice the consolidated size after a consolidation, four
     * times the size after a sample that found the records mostly distinct (a large load of
     * distinct records then pays for a few samples and nothing else).
     */
    private void compactIfRepetitive() {
        int n = buffer.size();
        if (CombiningTable.supports(buffer.keys(), buffer.vals())) {
            if (sampling && !repetitive(n, null)) {
                compactAt = mark(4L * n);
                return;
            }
            consolidations++;
            startCombining();
            return;
        }
        int sampled = Math.min(SAMPLE, n);
        if (sampling && distinctInSample(n, sampled) > sampled / 2) {
            compactAt = mark(4L * n);
            return;
        }
        consolidations++;
        if (index.length < n) index = new int[Math.max(n, index.length * 2)];
        for (int i = 0; i < n; i++) index[i] = i;
        sort(n);
        int groups = consolidate(buffer.keys(), buffer.vals(), buffer.times(), buffer.diffs(), n);
        spare.clear();
        for (int g = 0; g < groups; g++) {
            spare.appendFrom(buffer, groupFirst[g]);
            spare.diffs()[g] = groupSum[g];
        }
        Updates t = buffer;
        buffer = spare;
        spare = t;
        spare.clear();
        compactAt = mark(Math.max(compactMin, 2L * buffer.size()));
    }

    /** Seals at least this large consider {@link #consolidateByHash}: a view's build, not a round's changes. */
    static final int HASH_MIN = 1 << 14;

    /**
     * Before a large seal's sort: adds up the repeats among the first {@code count} records of
     * {@link #index} through a hash table, when a sample says at least half of them are repeats,
     * and returns how many distinct records remain there (their diffs in the buffer now the sums;
     * those that sum to zero dropped). A sort of a million records is bound by the memory it reads
     * at random, a hash pass mostly by reading the buffer in order: a grouping's build (a
     * million rows into a hundred thousand groups' sums, or ten thousand groups' values) then
     * sorts what is distinct, not every row. The sample is by hash value, so every copy of a
     * sampled record is in it and its share of repeats is the whole's (a sample of the latest
     * records would not see repeats spread across the buffer). Batches of longs have a faster sort
     * of their own and skip this.
     */
    private int consolidateByHash(int count) {
        Column keys = buffer.keys();
        Column vals = buffer.vals();
        if (count < HASH_MIN || !hashable(keys, vals)) return count;
        long[] times = buffer.times();
        long[] diffs = buffer.diffs();
        if (!repetitive(count, index)) return count;
        int kept = consolidation.addUp(keys, vals, times, arity, diffs, index, count);
        hashConsolidations++;
        return kept;
    }

    /**
     * Whether at most half of the first {@code count} records ({@code index}'s, or the buffer's
     * own order when it is {@code null}) are distinct, by a sample of about {@link #SAMPLE}
     * records taken by hash value: every copy of a sampled record is in it, so its share of
     * repeats is the whole's.
     */
    private boolean repetitive(int count, int[] index) {
        Column keys = buffer.keys();
        Column vals = buffer.vals();
        long[] times = buffer.times();
        int shift = Math.max(0, 31 - Integer.numberOfLeadingZeros(count / SAMPLE));
        clearSample();
        int sampled = 0;
        int sampledDistinct = 0;
        for (int i = 0; i < count && sampledDistinct < SAMPLE; i++) {
            long hx = recordHash(keys, vals, times, index == null ? i : index[i]);
            if (shift > 0 && hx >>> (64 - shift) != 0) continue;
            sampled++;
            if (addToSample(hx)) sampledDistinct++;
        }
        return sampled >= 64 && 2L * sampledDistinct <= sampled;
    }

    /** How many seals {@link #consolidateByHash} shrank (for tests). */
    int hashConsolidations;

    /** {@code size} as a buffer size to consolidate at, capped where an array still fits. */
    private static int mark(long size) {
        return (int) Math.min(Integer.MAX_VALUE - 8, size);
    }

    /** How many distinct {@code (key, val, time)}s the last {@code sampled} of the {@code n} buffered records hold (by hash: at most that many). */
    private int distinctInSample(int n, int sampled) {
        clearSample();
        Column keys = buffer.keys();
        Column vals = buffer.vals();
        long[] times = buffer.times();
        int distinct = 0;
        for (int i = n - sampled; i < n; i++) if (addToSample(recordHash(keys, vals, times, i))) distinct++;
        return distinct;
    }

    /** A hash of buffered record {@code x}'s key, value and time ({@link Consolidation#hash}). */
    private long recordHash(Column keys, Column vals, long[] times, int x) {
        return Consolidation.hash(keys, vals, times, arity, x);
    }

    /** Adds up the buffer's repeats ({@link #consolidateByHash}). */
    private final Consolidation consolidation = new Consolidation();

    private void clearSample() {
        if (sampleSlots == null) sampleSlots = new long[2 * SAMPLE];
        else Arrays.fill(sampleSlots, 0L);
    }

    /** Adds record hash {@code h} to the sample's set (at most {@link #SAMPLE} distinct); whether it was new. */
    private boolean addToSample(long h) {
        long[] slots = sampleSlots;
        long tag = h == 0 ? 1 : h;
        int slot = (int) (tag & (slots.length - 1));
        while (slots[slot] != 0 && slots[slot] != tag) slot = (slot + 1) & (slots.length - 1);
        if (slots[slot] != 0) return false;
        slots[slot] = tag;
        return true;
    }

    /**
     * The bytes pushing {@code incoming} more updates would allocate beyond what the buffer holds:
     * if it must grow, its new arrays (twice its length, or what the updates need if more),
     * allocated while the old ones are still held (so that a dataflow can fail itself on its
     * memory limit before a growth runs the heap out).
     */
    public long growthBytes(int incoming) {
        if (combining != null) return 0;
        long needed = (long) buffer.size() + incoming;
        int capacity = buffer.capacity();
        if (needed <= capacity) return 0;
        // the arrays grow to the larger of twice their length and what is needed, as they are
        long perRecord = (buffer.heapBytes() + capacity - 1) / capacity;
        return perRecord * Math.max(needed, 2L * capacity);
    }

    /**
     * About the bytes a seal of the whole buffer allocates beyond it: the batch it builds (the
     * buffer's size again) and the sort's scratch (an index and two prefix words per record).
     */
    public long sealBytes() {
        long n = buffer.size() + (combining == null ? 0 : combining.size());
        return n == 0 ? 0 : pendingBytes() + 24 * n;
    }

    /** The number of buffered updates (spilled ones included). */
    public int buffered() {
        long spilled = 0;
        for (Run r : runs) spilled += r.batch.updateCount();
        return (int) Math.min(Integer.MAX_VALUE, buffer.size() + (combining == null ? 0 : combining.size()) + spilled);
    }

    /** The heap bytes of the updates waiting in the buffer (or the combining table). */
    private long pendingBytes() {
        return buffer.heapBytes() + (combining == null ? 0 : combining.heapBytes());
    }

    /** The heap bytes of the buffers and sorting scratch, for {@link HeldState#buffer}. */
    public long heapBytes() {
        return buffer.heapBytes() + spare.heapBytes() + (combining == null ? 0 : combining.heapBytes()) + (gathered == null ? 0 : gathered.heapBytes())
                + 8L * (sortedKeys.length + sortedVals.length + sortedTimes.length + sortedDiffs.length + groupSum.length + prefixHi.length + prefixLo.length)
                + prefixSort.heapBytes()
                + 4L * (index.length + groupFirst.length);
    }

    /** The lower bound of the next batch: the upper of the last one sealed. */
    public Antichain lower() {
        return lower;
    }

    /** Starts the batches at {@code lower} instead of the least time: for a trace seeded up to there (see {@link Seed}). */
    void resumeAt(Antichain lower) {
        if (buffered() != 0) throw new IllegalStateException("a batcher holding updates cannot resume at " + lower);
        this.lower = lower;
    }

    /** The minimal times of buffered updates (what a holder of this batcher must keep capabilities for). */
    public Antichain pendingFrontier() {
        Antichain buffered = bufferFrontier();
        if (runs.isEmpty()) return buffered;
        Antichain.Builder b = new Antichain.Builder(arity);
        for (int i = 0; i < buffered.size(); i++) b.insert(buffered.get(i));
        for (Run r : runs) b.insert(new long[] {r.minTime});
        return b.build();
    }

    /** The minimal times of the updates in the buffer (not the spilled runs). */
    private Antichain bufferFrontier() {
        stopCombining();
        Antichain.Builder b = new Antichain.Builder(arity);
        long[] times = buffer.times();
        long[] last = null;
        for (int i = 0; i < buffer.size(); i++) {
            if (last != null && Times.equal(last, 0, times, i * arity, arity)) continue;
            last = Arrays.copyOfRange(times, i * arity, (i + 1) * arity);
            b.insert(last);
        }
        return b.build();
    }

    /** Seals every buffered update at a time not {@code >=} {@code upper} into a batch {@code [lower, upper)}. */
    public Batch seal(Antichain upper) {
        if (runs.isEmpty()) return sealBuffer(upper);
        Batch out = sealBuffer(upper);
        Description d = out.description();
        List<Run> later = new ArrayList<>();
        for (Run r : runs) {
            Batch ready;
            Batch rest;
            if (upper.isEmpty() || r.batch.maxTime < upper.get(0)[0]) {
                ready = r.batch;
                rest = null;
            } else if (r.minTime >= upper.get(0)[0]) {
                ready = null;
                rest = r.batch;
            } else {
                ready = BatchCodec.before(r.batch, upper);
                rest = BatchCodec.from(r.batch, upper);
            }
            if (ready != null && !ready.isEmpty()) {
                Batch merged = mergeRuns(out, ready, d);
                Paging.discard(out, merged, rest);
                Paging.discard(ready, merged, rest);
                out = merged;
            }
            if (ready != r.batch && rest != r.batch) Paging.discard(r.batch, out, rest); // cut in two: the run itself is done with
            if (rest != null && !rest.isEmpty()) later.add(new Run(rest, Math.max(r.minTime, upper.get(0)[0])));
        }
        runs = later;
        return out;
    }

    /** {@link #seal} of the buffer alone. */
    private Batch sealBuffer(Antichain upper) {
        boolean combined = stopCombining();
        int n = buffer.size();
        if (index.length < n) index = new int[Math.max(n, index.length * 2)];
        long[] times = buffer.times();
        int ready = 0;
        spare.clear();
        for (int i = 0; i < n; i++) {
            if (Times.beyond(upper, times, i * arity)) spare.appendFrom(buffer, i);
            else index[ready++] = i;
        }
        // combined as they came, the records are distinct already
        if (!combined) ready = consolidateByHash(ready);
        sort(ready);
        Column keys = buffer.keys();
        Column vals = buffer.vals();
        int a = arity;
        long[] diffs = buffer.diffs();
        Batch batch = a == 1 && keys instanceof LongColumn lk && vals instanceof LongColumn lv
                ? buildLongs(lk.array(), lv.array(), times, diffs, ready, new Description(lower, upper, since))
                : build(keys, vals, times, diffs, ready, new Description(lower, upper, since));
        Updates t = buffer;
        buffer = spare;
        spare = t;
        spare.clear();
        lower = upper;
        compactAt = mark(Math.max(compactMin, 2L * buffer.size()));
        releaseIdleScratch();
        // a large seal (a load, a hydration) leaves the heap as soon as it is built
        return Paging.partitioned(batch);
    }

    /** Scratch past this many entries is let go once a seal no longer needs it. */
    static final int KEEP_SCRATCH = 1 << 12;
    /** Heap bytes per kept entry a buffer may hold (its keys' and values' bytes included) before it is let go. */
    private static final int KEEP_BYTES_PER_ENTRY = 64;

    /**
     * After a seal: lets go of buffers and sort scratch far larger than what is left to seal, sized
     * for a large seal (a load of a million rows), so that an arrangement does not keep empty
     * buffers of its largest batch's size for as long as it lives (a 1M-row table kept 130 MB of
     * them beside its 86 MB of data; a view's hydration, hundreds; and 65k entries kept by each of a
     * view's arrange operators were 30 MB of v1's 60). Up to {@link #KEEP_SCRATCH}
     * entries stay, so a stream of small seals allocates nothing; a large seal grows its buffers
     * again, by doubling, which costs little beside sorting that many updates.
     */
    private void releaseIdleScratch() {
        long keep = 4L * buffer.size() + KEEP_SCRATCH;
        long keepBytes = keep * KEEP_BYTES_PER_ENTRY;
        if (spare.times().length / Math.max(1, arity) > keep || spare.heapBytes() > keepBytes) {
            spare = new Updates(spare.keys().emptyLike(16), spare.vals().emptyLike(16), arity);
        }
        if (buffer.size() < keep / 4 && (buffer.times().length / Math.max(1, arity) > keep || buffer.heapBytes() > keepBytes)) {
            Updates small = new Updates(buffer.keys().emptyLike(16), buffer.vals().emptyLike(16), arity);
            small.appendAll(buffer);
            buffer = small;
        }
        if (index.length > keep) index = new int[16];
        if (prefixHi.length > keep) {
            prefixHi = new long[0];
            prefixLo = new long[0];
        }
        if (groupFirst.length > keep) {
            groupFirst = new int[16];
            groupSum = new long[16];
        }
        if (sortedKeys.length > keep) {
            sortedKeys = new long[0];
            sortedVals = new long[0];
            sortedTimes = new long[0];
            sortedDiffs = new long[0];
        }
        if (zeros.length > keep) zeros = new long[0];
        if (gathered != null && (gathered.times().length / Math.max(1, arity) > keep || gathered.heapBytes() > keepBytes)) gathered = null;
        sorter.releaseScratch(keep);
        prefixSort.releaseScratch(keep);
    }

    /**
     * Whether the records last sorted all have one time: a view's build reads everything at one
     * time, and then neither the sort nor the consolidation compares times, a cache miss each in
     * a buffer of a million records whose keys and values tie (its groups).
     */
    private boolean oneTime;

    /** Sorts the first {@code count} entries of {@link #index}, records of the buffer, by {@code (key, val, time)}. */
    private void sort(int count) {
        Column keys = buffer.keys();
        Column vals = buffer.vals();
        long[] times = buffer.times();
        int a = arity;
        oneTime = oneTime(times, count);
        // arity 0 compares no time: what the comparators below do once the times are known to tie
        int ta = oneTime ? 0 : a;
        if (a == 1 && keys instanceof LongColumn lk && (vals instanceof LongColumn || vals instanceof UnitColumn)) {
            // A unit value sorts as the value 0 of every record.
            long[] v = vals instanceof LongColumn lv ? lv.array() : zeros(buffer.size());
            longSort.sort(index, count, lk.array(), v, times);
        } else if (keys instanceof BytesColumn bk) {
            // byte-string keys (rows): compared by their first 16 bytes as two longs, taken once,
            // and only past those by their bytes, instead of a byte-by-byte compare per comparison
            int n = buffer.size();
            if (prefixHi.length < n) {
                prefixHi = new long[Math.max(n, prefixHi.length * 2)];
                prefixLo = new long[prefixHi.length];
            }
            long[] hi = prefixHi;
            long[] lo = prefixLo;
            int longest = 0;
            for (int i = 0; i < count; i++) {
                int r = index[i];
                hi[r] = bk.prefix(r, 0);
                lo[r] = bk.prefix(r, 8);
                longest = Math.max(longest, bk.length(r));
            }
            // Keys of at most 15 bytes (encoded integer and short text keys) leave the second
            // prefix's last byte zero: with the length there, the prefixes are the whole key (a
            // key that is another's prefix has the smaller length), and records whose prefixes tie
            // have one key, which the sort then need not find out by reading each key's length.
            boolean whole = longest <= 15;
            if (whole) for (int i = 0; i < count; i++) lo[index[i]] |= bk.length(index[i]);
            IndexSort.Order order = (x, y) -> {
                int c = Long.compareUnsigned(hi[x], hi[y]);
                if (c == 0) c = Long.compareUnsigned(lo[x], lo[y]);
                if (c == 0) {
                    int lx = bk.length(x);
                    int ly = bk.length(y);
                    c = lx <= 16 && ly <= 16 ? Integer.compare(lx, ly) : bk.compare(x, bk, y);
                }
                return c != 0 ? c : compareValTime(vals, times, ta, x, y);
            };
            // a large seal sorts the prefixes beside the indexes (sequential), a small one through the order
            if (count > PREFIX_SORT_MIN) prefixSort.sort(index, count, hi, lo, bk, vals instanceof BytesColumn bv ? bv : null, whole, order);
            else sorter.sort(index, count, order);
        } else sorter.sort(index, count, (x, y) -> {
            int c = keys.compare(x, keys, y);
            return c != 0 ? c : compareValTime(vals, times, ta, x, y);
        });
    }

    /** Whether the first {@code count} records of {@link #index} have the same time (of arity 1). */
    private boolean oneTime(long[] times, int count) {
        if (arity != 1 || count == 0) return false;
        long t = times[index[0]];
        // every buffered record: read in the buffer's order, not at random through the index
        if (count == buffer.size()) return allEqual(times, count, t);
        for (int i = 1; i < count; i++) if (times[index[i]] != t) return false;
        return true;
    }

    /** Whether {@code values[0, count)} all equal {@code v}. */
    private static boolean allEqual(long[] values, int count, long v) {
        for (int i = 0; i < count; i++) if (values[i] != v) return false;
        return true;
    }

    /** Records {@code x} and {@code y} of the buffer by value, then time: the order after the key. */
    private static int compareValTime(Column vals, long[] times, int arity, int x, int y) {
        int c = vals.compare(x, vals, y);
        return c != 0 || arity == 0 ? c : Times.compare(times, x * arity, times, y * arity, arity);
    }

    /** The sort's key prefixes by buffer position (byte-string keys), kept between seals. */
    private long[] prefixHi = new long[0];
    private long[] prefixLo = new long[0];

    /**
     * Groups the first {@code count} records of {@link #index} (sorted) by {@code (key, val, time)}:
     * for each group whose diffs do not cancel, its first record in {@link #groupFirst} and its
     * summed diff in {@link #groupSum}. Returns how many groups there are.
     */
    private int consolidate(Column keys, Column vals, long[] times, long[] diffs, int count) {
        if (groupFirst.length < count) {
            groupFirst = new int[Math.max(count, groupFirst.length * 2)];
            groupSum = new long[groupFirst.length];
        }
        int a = oneTime ? 0 : arity;
        int groups = 0;
        int i = 0;
        while (i < count) {
            int first = index[i];
            long sum = diffs[first];
            int j = i + 1;
            while (j < count) {
                int next = index[j];
                if (!keys.equal(first, keys, next) || !vals.equal(first, vals, next) || !Times.equal(times, first * a, times, next * a, a)) break;
                sum += diffs[next];
                j++;
            }
            if (sum != 0) {
                groupFirst[groups] = first;
                groupSum[groups++] = sum;
            }
            i = j;
        }
        return groups;
    }

    /** Seals of more records than this copy them into sorted order before consolidating (see {@link #build}). */
    static final int GATHER_MIN = 1 << 12;
    /** The records of a large seal in sorted order (see {@link #build}); reused, let go when idle. */
    private Updates gathered;

    /**
     * Consolidates the {@code ready} sorted records of {@link #index} into a batch, through the
     * columns. A large seal first copies its records into sorted order: consolidating, counting
     * and building each compare or copy neighbours in that order, which in the buffer lie
     * anywhere (random rows: a cache miss per record and pass), in the copy side by side.
     */
    private Batch build(Column keys, Column vals, long[] times, long[] diffs, int ready, Description description) {
        if (ready > GATHER_MIN) {
            if (gathered == null) gathered = new Updates(keyProto.emptyLike(ready), valProto.emptyLike(ready), arity, ready);
            gathered.clear();
            if (oneTime && ready == buffer.size() && allEqual(diffs, ready, 1)) {
                // a view's build: every record at one time, once (rows of a table); only the keys
                // and values are read at random, a cache miss or two fewer per record
                long t = times[index[0]];
                Column gk = gathered.keys();
                Column gv = gathered.vals();
                for (int i = 0; i < ready; i++) {
                    int x = index[i];
                    gk.append(keys, x);
                    gv.append(vals, x);
                    gathered.push(t, 1);
                    index[i] = i;
                }
            } else {
                for (int i = 0; i < ready; i++) {
                    gathered.appendFrom(buffer, index[i]);
                    index[i] = i;
                }
            }
            keys = gathered.keys();
            vals = gathered.vals();
            times = gathered.times();
            diffs = gathered.diffs();
        }
        int a = arity;
        // Consolidate first, then count the keys and values that survive, so the batch's arrays
        // are allocated at their final size and never copied to trim them.
        int groups = consolidate(keys, vals, times, diffs, ready);
        int distinctKeys = 0;
        int distinctVals = 0;
        long keyBytes = 0;
        long valBytes = 0;
        for (int g = 0; g < groups; g++) {
            int x = groupFirst[g];
            if (g == 0 || !keys.equal(groupFirst[g - 1], keys, x)) {
                distinctKeys++;
                distinctVals++;
                keyBytes += keys.bytesOf(x);
                valBytes += vals.bytesOf(x);
            } else if (!vals.equal(groupFirst[g - 1], vals, x)) {
                distinctVals++;
                valBytes += vals.bytesOf(x);
            }
        }
        BatchBuilder builder = new BatchBuilder(keyProto, valProto, arity, groups, distinctKeys, distinctVals, keyBytes, valBytes);
        for (int g = 0; g < groups; g++) {
            int x = groupFirst[g];
            builder.push(keys, x, vals, x, times, x * a, groupSum[g]);
        }
        return builder.build(description);
    }

    /**
     * {@link #build} for (long, long) records at arity-1 times, reading the buffer's arrays
     * directly: one pass consolidates the sorted records into sequential scratch and counts the
     * distinct keys and values, so the batch's arrays are allocated at their final size and filled
     * by a second, sequential pass.
     */
    /** The arrays of every empty (long, long) batch the batcher seals: nothing writes a batch's arrays, and no pool takes these. */
    private static final long[] NO_LONGS = new long[0];
    private static final int[] NO_OFFSETS = new int[1];

    private Batch buildLongs(long[] k, long[] v, long[] t, long[] d, int ready, Description description) {
        if (sortedKeys.length < ready) {
            int cap = Math.max(ready, sortedKeys.length * 2);
            sortedKeys = new long[cap];
            sortedVals = new long[cap];
            sortedTimes = new long[cap];
            sortedDiffs = new long[cap];
        }
        long[] sk = sortedKeys;
        long[] sv = sortedVals;
        long[] st = sortedTimes;
        long[] sd = sortedDiffs;
        int groups = 0;
        int distinctKeys = 0;
        int distinctVals = 0;
        int i = 0;
        while (i < ready) {
            int first = index[i];
            long key = k[first];
            long val = v[first];
            long time = t[first];
            long sum = d[first];
            int j = i + 1;
            while (j < ready) {
                int next = index[j];
                if (k[next] != key || v[next] != val || t[next] != time) break;
                sum += d[next];
                j++;
            }
            if (sum != 0) {
                if (groups == 0 || sk[groups - 1] != key) {
                    distinctKeys++;
                    distinctVals++;
                } else if (sv[groups - 1] != val) {
                    distinctVals++;
                }
                sk[groups] = key;
                sv[groups] = val;
                st[groups] = time;
                sd[groups++] = sum;
            }
            i = j;
        }
        if (groups == 0) {
            // a frontier advance without data (one per step on a quiet input): arrays shared by all such batches, never pooled
            return new Batch(new LongColumn(NO_LONGS, 0), NO_OFFSETS, new LongColumn(NO_LONGS, 0), NO_OFFSETS, NO_LONGS, NO_LONGS, 0, 1, description,
                    Long.MIN_VALUE);
        }
        // from the thread's pool where it has arrays that fit: a batch its readers release and its trace merges away gives them back
        MergeScratch pool = MergeScratch.ofThread();
        long[] keys = pool.longsFitting(distinctKeys);
        int[] keyOffsets = pool.intsFitting(distinctKeys + 1);
        long[] vals = pool.longsFitting(distinctVals);
        int[] valOffsets = pool.intsFitting(distinctVals + 1);
        long[] times = pool.longsFitting(groups);
        long[] diffs = pool.longsFitting(groups);
        System.arraycopy(st, 0, times, 0, groups);
        System.arraycopy(sd, 0, diffs, 0, groups);
        int nk = 0;
        int nv = 0;
        for (int g = 0; g < groups; g++) {
            if (g == 0 || sk[g - 1] != sk[g]) {
                keys[nk] = sk[g];
                keyOffsets[nk++] = nv;
                vals[nv] = sv[g];
                valOffsets[nv++] = g;
            } else if (sv[g - 1] != sv[g]) {
                vals[nv] = sv[g];
                valOffsets[nv++] = g;
            }
        }
        keyOffsets[nk] = nv;
        valOffsets[nv] = groups;
        return new Batch(new LongColumn(keys, nk), keyOffsets, new LongColumn(vals, nv), valOffsets, times, diffs, groups, 1, description,
                Batch.maxTime(times, groups, 1));
    }
}
