package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The plain model the arrangement tests recompute answers from: a list of updates
 * {@code (key, val, time, diff)}; the contents at {@code t} is the sum of the diffs of updates
 * whose time is {@code <= t} (product order), per {@code (key, val)}, zeros removed.
 *
 * <p>Keys and values are small {@code long}s in the model. A {@link Codec} stores them in one of
 * the column classes through an order-preserving table, so the model's numeric order is the
 * column's order and every column class goes through the same batcher, merger and cursor code.
 */
final class Model {
    private Model() {}

    /** One update. The time array is never mutated. */
    record Update(long key, long val, long[] time, long diff) {
        @Override
        public String toString() {
            return "(" + key + ", " + val + ", " + Timestamps.toString(time) + ", " + diff + ")";
        }
    }

    /** A {@code (key, val)} in model order. */
    record KeyVal(long key, long val) implements Comparable<KeyVal> {
        @Override
        public int compareTo(KeyVal o) {
            int c = Long.compare(key, o.key);
            return c != 0 ? c : Long.compare(val, o.val);
        }

        @Override
        public String toString() {
            return "(" + key + ", " + val + ")";
        }
    }

    /** A {@code (key, val, time)}, ordered as a batch orders its updates (times lexicographically). */
    record Entry(long key, long val, List<Long> time) implements Comparable<Entry> {
        Entry(long key, long val, long[] time) {
            this(key, val, Arrays.stream(time).boxed().toList());
        }

        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(key, o.key);
            if (c != 0) return c;
            c = Long.compare(val, o.val);
            if (c != 0) return c;
            for (int k = 0; k < time.size(); k++) {
                c = Long.compare(time.get(k), o.time.get(k));
                if (c != 0) return c;
            }
            return 0;
        }

        @Override
        public String toString() {
            return "(" + key + ", " + val + ", " + time + ")";
        }
    }

    static boolean lessEqual(long[] a, long[] b) {
        for (int k = 0; k < a.length; k++) {
            if (a[k] > b[k]) return false;
        }
        return true;
    }

    /** The contents at {@code t}: per {@code (key, val)}, the sum of diffs at times {@code <= t}, zeros removed. */
    /** {@code (long, long)} updates with one-coordinate times as a container for a {@link Batcher}. */
    static Updates longUpdates(Collection<Update> updates) {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (Update x : updates) {
            ((LongColumn) u.keys()).add(x.key());
            ((LongColumn) u.vals()).add(x.val());
            u.push(x.time()[0], x.diff());
        }
        return u;
    }

    static SortedMap<KeyVal, Long> accumulate(Collection<Update> updates, long[] t) {
        SortedMap<KeyVal, Long> out = new TreeMap<>();
        for (Update u : updates) {
            if (lessEqual(u.time(), t)) out.merge(new KeyVal(u.key(), u.val()), u.diff(), Long::sum);
        }
        out.values().removeIf(d -> d == 0);
        return out;
    }

    /** The updates as a consolidated multiset: per {@code (key, val, time)} the summed diff, zeros removed. */
    static SortedMap<Entry, Long> consolidate(Collection<Update> updates) {
        SortedMap<Entry, Long> out = new TreeMap<>();
        for (Update u : updates) out.merge(new Entry(u.key(), u.val(), u.time()), u.diff(), Long::sum);
        out.values().removeIf(d -> d == 0);
        return out;
    }

    /** The updates whose time lies in {@code [lower, upper)}: {@code >=} some element of lower, not {@code >=} any of upper. */
    static List<Update> within(Collection<Update> updates, Antichain lower, Antichain upper) {
        List<Update> out = new ArrayList<>();
        for (Update u : updates) {
            if (lower.lessEqual(u.time()) && !upper.lessEqual(u.time())) out.add(u);
        }
        return out;
    }

    /** What {@code handle.readAt(t)} reports, decoded; a {@code (key, val)} reported twice fails the test. */
    static SortedMap<KeyVal, Long> readAt(TraceHandle handle, long[] t, Codec keys, Codec vals) {
        SortedMap<KeyVal, Long> out = new TreeMap<>();
        handle.readAt(t, (kc, k, vc, v, n) -> {
            KeyVal kv = new KeyVal(keys.decode(kc, k), vals.decode(vc, v));
            Long previous = out.put(kv, n);
            assertThat(previous).as("readAt(%s) reported %s twice", Timestamps.toString(t), kv).isNull();
        });
        return out;
    }

    /** The updates of {@code batch}, decoded, read through its cursor. */
    static List<Update> updatesOf(Batch batch, Codec keys, Codec vals) {
        List<Update> out = new ArrayList<>();
        Cursor c = batch.cursor();
        while (c.keyValid()) {
            long key = keys.decode(c.keyColumn(), c.keyIndex());
            while (c.valValid()) {
                long val = vals.decode(c.valColumn(), c.valIndex());
                c.forEachTime((times, off, diff) -> out.add(new Update(key, val, Arrays.copyOfRange(times, off, off + batch.arity()), diff)));
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    /** Every batch of the handle's trace, decoded. */
    static List<Update> updatesOf(List<Batch> batches, Codec keys, Codec vals) {
        List<Update> out = new ArrayList<>();
        for (Batch b : batches) out.addAll(updatesOf(b, keys, vals));
        return out;
    }

    /**
     * Checks the invariants of a batch: the trie offsets are well formed (every key has a value
     * and every value an update), keys strictly increase, values strictly increase within a key,
     * times strictly increase within a value (so no {@code (key, val, time)} repeats), no diff is
     * zero, and every time lies within the description.
     */
    static void checkBatch(Batch b, Codec keys, Codec vals) {
        checkBatch(b, keys, vals, true);
    }

    /**
     * As {@link #checkBatch(Batch, Codec, Codec)}, but for a batch that may have been compacted by
     * a merge ({@code sealed == false}): its times are advanced by its since, so they are fixed
     * points of advancing and {@code >=} lower, but may lie beyond upper.
     */
    static void checkBatch(Batch b, Codec keys, Codec vals, boolean sealed) {
        if (b.isParted()) {
            // each part a batch of its own, all with the batch's description, keys rising across parts, bounds their last keys
            int nk = 0;
            int nv = 0;
            int nu = 0;
            Batch previous = null;
            for (int i = 0; i < b.parts.length; i++) {
                Batch p = b.parts[i].batch();
                assertThat(p.isParted()).isFalse();
                // a parted batch spanned over an empty neighbour has a wider description than its parts were built with
                assertThat(p.since()).as("%s: part %d", b, i).isEqualTo(b.since());
                assertThat(b.lower().dominates(p.lower()) && p.upper().dominates(b.upper())).as("%s: part %d's %s within it", b, i, p.description()).isTrue();
                assertThat(p.isEmpty()).as("%s: part %d is empty", b, i).isFalse();
                checkBatch(p, keys, vals, sealed);
                assertThat(b.bounds.compare(i, p.keys, p.keys.size() - 1)).as("%s: bound of part %d", b, i).isZero();
                if (previous != null) {
                    assertThat(previous.keys.compare(previous.keys.size() - 1, p.keys, 0)).as("%s: part %d starts at or before part %d ends", b, i, i - 1).isNegative();
                }
                previous = p;
                nk += p.keyCount();
                nv += p.valCount();
                nu += p.updateCount();
            }
            assertThat(new int[] {b.keyCount(), b.valCount(), b.updateCount()}).as("%s counts", b).containsExactly(nk, nv, nu);
            return;
        }
        int nk = b.keys.size();
        int nv = b.vals.size();
        int nu = b.updateCount();
        int a = b.arity;
        assertThat(b.recycled()).as("%s is in the trace but was recycled", b).isFalse();
        // the arrays may be longer than their contents (pooled), but by no more than the pool's slack;
        // shared ones (the same offsets or diffs as many other batches) are as long as the longest
        assertThat(b.keyOffsets.length).as("%s key offsets", b).isBetween(nk + 1, b.isShared(b.keyOffsets) ? Integer.MAX_VALUE : nk + 1 + MergeScratch.slack(nk + 1));
        assertThat(b.valOffsets.length).as("%s value offsets", b).isBetween(nv + 1, b.isShared(b.valOffsets) ? Integer.MAX_VALUE : nv + 1 + MergeScratch.slack(nv + 1));
        assertThat(b.diffs.length).as("%s diffs", b).isBetween(nu, b.isShared(b.diffs) ? Integer.MAX_VALUE : nu + MergeScratch.slack(nu));
        assertThat(b.times.length).as("%s times", b).isBetween(nu * a, nu * a + MergeScratch.slack(nu * a));
        assertThat(b.keyOffsets[0]).isZero();
        assertThat(b.keyOffsets[nk]).as("%s last key offset", b).isEqualTo(nv);
        assertThat(b.valOffsets[0]).isZero();
        assertThat(b.valOffsets[nv]).as("%s last value offset", b).isEqualTo(nu);
        for (int k = 0; k < nk; k++) {
            assertThat(b.keyOffsets[k]).as("%s: key %s has no value", b, b.keys.get(k)).isLessThan(b.keyOffsets[k + 1]);
            if (k > 0) {
                assertThat(b.keys.compare(k - 1, b.keys, k)).as("%s: keys %s, %s out of order", b, b.keys.get(k - 1), b.keys.get(k)).isNegative();
                assertThat(keys.decode(b.keys, k - 1)).isLessThan(keys.decode(b.keys, k));
            }
            for (int v = b.keyOffsets[k]; v < b.keyOffsets[k + 1]; v++) {
                assertThat(b.valOffsets[v]).as("%s: value %s of key %s has no update", b, b.vals.get(v), b.keys.get(k)).isLessThan(b.valOffsets[v + 1]);
                if (v > b.keyOffsets[k]) {
                    assertThat(b.vals.compare(v - 1, b.vals, v)).as("%s: values of key %s out of order", b, b.keys.get(k)).isNegative();
                    assertThat(vals.decode(b.vals, v - 1)).isLessThan(vals.decode(b.vals, v));
                }
                for (int u = b.valOffsets[v]; u < b.valOffsets[v + 1]; u++) {
                    long[] t = Arrays.copyOfRange(b.times, u * a, u * a + a);
                    assertThat(b.diffs[u]).as("%s: zero diff at (%s, %s, %s)", b, b.keys.get(k), b.vals.get(v), Timestamps.toString(t)).isNotZero();
                    assertThat(b.lower().lessEqual(t)).as("%s: time %s before lower", b, Timestamps.toString(t)).isTrue();
                    if (sealed) {
                        assertThat(b.upper().lessEqual(t)).as("%s: time %s not before upper", b, Timestamps.toString(t)).isFalse();
                    } else {
                        long[] advanced = t.clone();
                        Times.advance(advanced, 0, b.since(), new long[a]);
                        assertThat(advanced).as("%s: time %s not advanced by its since", b, Timestamps.toString(t)).isEqualTo(t);
                    }
                    if (u > b.valOffsets[v]) {
                        assertThat(Times.compare(b.times, (u - 1) * a, b.times, u * a, a))
                                .as("%s: times of (%s, %s) out of order or repeated", b, b.keys.get(k), b.vals.get(v)).isNegative();
                    }
                }
            }
        }
    }

    /**
     * Keys and values of the model stored in one column class. Model value {@code v} is stored as
     * entry {@code v} of a table sorted in the column's order, so numeric order is column order.
     */
    enum Codec {
        LONG, BYTES, STRINGS, UNIT;

        static final int DOMAIN = 64;
        private static final byte[][] BYTE_TABLE = byteTable();
        private static final String[] STRING_TABLE = stringTable();

        Column column() {
            return switch (this) {
                case LONG -> new LongColumn();
                case BYTES -> new BytesColumn();
                case STRINGS -> ObjectColumn.<String>natural();
                case UNIT -> new UnitColumn();
            };
        }

        /** The largest model value this codec stores plus one (a unit column stores only 0). */
        int domain() {
            return this == UNIT ? 1 : DOMAIN;
        }

        @SuppressWarnings("unchecked")
        void add(Column c, long v) {
            switch (this) {
                case LONG -> ((LongColumn) c).add(v);
                case BYTES -> ((BytesColumn) c).add(BYTE_TABLE[(int) v]);
                case STRINGS -> ((ObjectColumn<String>) c).add(STRING_TABLE[(int) v]);
                case UNIT -> {
                    if (v != 0) throw new IllegalArgumentException("a unit column stores only 0, not " + v);
                    ((UnitColumn) c).add();
                }
            }
        }

        /** A one-value column holding {@code v}, for seeks. */
        Column single(long v) {
            Column c = column();
            add(c, v);
            return c;
        }

        long decode(Column c, int i) {
            return switch (this) {
                case LONG -> ((LongColumn) c).getLong(i);
                case BYTES -> {
                    byte[] b = ((BytesColumn) c).getBytes(i);
                    int at = Arrays.binarySearch(BYTE_TABLE, b, Arrays::compareUnsigned);
                    if (at < 0) throw new AssertionError("bytes " + Arrays.toString(b) + " were never stored");
                    yield at;
                }
                case STRINGS -> {
                    int at = Arrays.binarySearch(STRING_TABLE, (String) ((ObjectColumn<?>) c).getValue(i));
                    if (at < 0) throw new AssertionError("string " + c.get(i) + " was never stored");
                    yield at;
                }
                case UNIT -> 0;
            };
        }

        /** Distinct byte strings with empty, prefixes of each other, and bytes above 0x7f (negative as Java bytes). */
        private static byte[][] byteTable() {
            Random r = new Random(42);
            byte[] alphabet = {0, 1, 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
            java.util.TreeSet<byte[]> set = new java.util.TreeSet<>(Arrays::compareUnsigned);
            set.add(new byte[0]);
            while (set.size() < DOMAIN) {
                // short strings, and long ones sharing their first 7 to 17 bytes (a sort may order
                // by a fixed-length prefix first: the strings must differ past it, and in length)
                int shared = r.nextBoolean() ? 7 + r.nextInt(11) : 0;
                byte[] b = new byte[shared + r.nextInt(4)];
                for (int i = 0; i < b.length; i++) b[i] = i < shared ? (byte) 0x42 : alphabet[r.nextInt(alphabet.length)];
                set.add(b);
            }
            return set.toArray(new byte[0][]);
        }

        private static String[] stringTable() {
            Random r = new Random(43);
            java.util.TreeSet<String> set = new java.util.TreeSet<>();
            set.add("");
            while (set.size() < DOMAIN) {
                StringBuilder sb = new StringBuilder();
                for (int i = r.nextInt(4); i > 0; i--) sb.append("aAz\u00e9".charAt(r.nextInt(4)));
                set.add(sb.toString());
            }
            return set.toArray(new String[0]);
        }
    }
}
