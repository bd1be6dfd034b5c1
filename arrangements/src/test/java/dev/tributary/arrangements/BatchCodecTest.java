package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.tributary.timely.Antichain;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link BatchCodec}: batches of every encodable column kind come back equal from their bytes,
 * bad bytes are refused with an {@link IllegalArgumentException} (never another exception, nor
 * an allocation a lying count asked for), and splitting a batch at a frontier partitions its
 * updates by time.
 */
class BatchCodecTest {
    enum Kind {
        BYTES, LONGS, UNIT;

        Column column() {
            return switch (this) {
                case BYTES -> new BytesColumn();
                case LONGS -> new LongColumn();
                case UNIT -> new UnitColumn();
            };
        }

        /** Appends a random value from a small domain, so that keys and values repeat. */
        void addRandom(Column c, Random rnd, int domain) {
            switch (this) {
                case BYTES -> {
                    // lengths from 0: the empty string is a value too
                    int v = rnd.nextInt(domain);
                    byte[] b = new byte[v % 7];
                    for (int i = 0; i < b.length; i++) b[i] = (byte) (v * 31 + i * 97);
                    ((BytesColumn) c).add(b);
                }
                case LONGS -> ((LongColumn) c).add(rnd.nextInt(domain) - domain / 2L);
                case UNIT -> ((UnitColumn) c).add();
            }
        }
    }

    static final long MAX_COORD = 5;

    static List<Arguments> kinds() {
        List<Arguments> out = new ArrayList<>();
        for (Kind k : Kind.values()) {
            for (Kind v : Kind.values()) {
                for (int arity = 1; arity <= 2; arity++) out.add(Arguments.of(k, v, arity));
            }
        }
        return out;
    }

    /** A random time of {@code arity} coordinates in {@code [0, MAX_COORD]}. */
    static long[] randomTime(Random rnd, int arity) {
        long[] t = new long[arity];
        for (int i = 0; i < arity; i++) t[i] = rnd.nextInt((int) MAX_COORD + 1);
        return t;
    }

    /** A random frontier of one or (at arity 2) up to three elements, or sometimes the empty one. */
    static Antichain randomFrontier(Random rnd, int arity) {
        if (rnd.nextInt(8) == 0) return Antichain.empty(arity);
        List<long[]> ts = new ArrayList<>();
        int n = arity == 1 ? 1 : 1 + rnd.nextInt(3);
        for (int i = 0; i < n; i++) ts.add(randomTime(rnd, arity));
        return Antichain.fromTimes(arity, ts);
    }

    /** A random frontier {@code f} with {@code lower <= f <= upper} (one of them if none is found). */
    static Antichain randomBetween(Random rnd, Antichain lower, Antichain upper) {
        for (int attempt = 0; attempt < 200; attempt++) {
            Antichain f = randomFrontier(rnd, lower.arity());
            if (lower.dominates(f) && f.dominates(upper)) return f;
        }
        return rnd.nextBoolean() ? lower : upper;
    }

    /**
     * A batch sealed by a {@link Batcher} from {@code n} random updates: the second of two seals,
     * so that its lower is a random frontier too; its arrays are the batcher's (pooled, shared or
     * longer than their contents, as in a trace).
     */
    static Batch randomBatch(Random rnd, Kind kk, Kind vk, int arity, int n) {
        Antichain first = randomBetween(rnd, Antichain.of(new long[arity]), Antichain.empty(arity));
        Antichain second = randomBetween(rnd, first, Antichain.empty(arity));
        Batcher batcher = new Batcher(kk.column(), vk.column(), arity);
        Updates u = new Updates(kk.column(), vk.column(), arity);
        // few keys and values for many updates: values with several updates each
        int domain = 1 + rnd.nextInt(Math.max(1, n / 3 + 1));
        for (int i = 0; i < n; i++) {
            kk.addRandom(u.keys(), rnd, domain);
            vk.addRandom(u.vals(), rnd, 3);
            u.push(randomTime(rnd, arity), rnd.nextInt(7) - 3);
        }
        batcher.push(u);
        batcher.seal(first);
        return batcher.seal(second);
    }

    /** {@link #randomBatch} of random column kinds, arity (1 or 2) and size (up to 300 updates). */
    static Batch randomOfAnyKind(Random rnd) {
        Kind kk = Kind.values()[rnd.nextInt(3)];
        Kind vk = Kind.values()[rnd.nextInt(3)];
        int arity = 1 + rnd.nextInt(2);
        return randomBatch(rnd, kk, vk, arity, rnd.nextInt(301));
    }

    /** {@code b} with another description (a since the batcher never sets), sharing its arrays. */
    static Batch describedAs(Batch b, Description d) {
        return new Batch(b.keys, b.keyOffsets, b.vals, b.valOffsets, b.times, b.diffs, b.updates, b.arity, d, b.maxTime);
    }

    /** One update of a batch, as read by a cursor. */
    record Row(String key, String val, long[] time, long diff) {
        @Override
        public String toString() {
            return key + "/" + val + "@" + Arrays.toString(time) + "x" + diff;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Row r && key.equals(r.key) && val.equals(r.val) && Arrays.equals(time, r.time) && diff == r.diff;
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + Arrays.hashCode(time);
        }
    }

    static List<Row> rows(Batch b) {
        List<Row> out = new ArrayList<>();
        Cursor c = b.cursor();
        while (c.keyValid()) {
            String key = String.valueOf(c.keyColumn().get(c.keyIndex()));
            while (c.valValid()) {
                String val = String.valueOf(c.valColumn().get(c.valIndex()));
                c.forEachTime((t, off, d) -> out.add(new Row(key, val, Arrays.copyOfRange(t, off, off + b.arity()), d)));
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    static void assertSameBatch(Batch actual, Batch expected) {
        assertThat(actual.description()).isEqualTo(expected.description());
        assertThat(actual.arity()).isEqualTo(expected.arity());
        assertThat(actual.keys().getClass()).isEqualTo(expected.keys().getClass());
        assertThat(actual.vals().getClass()).isEqualTo(expected.vals().getClass());
        assertThat(actual.keyCount()).isEqualTo(expected.keyCount());
        assertThat(actual.valCount()).isEqualTo(expected.valCount());
        assertThat(actual.updateCount()).isEqualTo(expected.updateCount());
        assertThat(rows(actual)).isEqualTo(rows(expected));
    }

    /** The batch invariants: every key has a value, every value an update, no diff is zero. */
    static void assertWellFormed(Batch b) {
        assertThat(b.keyOffsets[0]).isZero();
        for (int k = 0; k < b.keyCount(); k++) assertThat(b.keyOffsets[k + 1]).as("key %d", k).isGreaterThan(b.keyOffsets[k]);
        assertThat(b.keyOffsets[b.keyCount()]).isEqualTo(b.valCount());
        assertThat(b.valOffsets[0]).isZero();
        for (int v = 0; v < b.valCount(); v++) assertThat(b.valOffsets[v + 1]).as("value %d", v).isGreaterThan(b.valOffsets[v]);
        assertThat(b.valOffsets[b.valCount()]).isEqualTo(b.updateCount());
        for (int u = 0; u < b.updateCount(); u++) assertThat(b.diffs[u]).isNotZero();
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void randomBatchesComeBackEqual(Kind kk, Kind vk, int arity) {
        Random rnd = new Random(1000 * kk.ordinal() + 10 * vk.ordinal() + arity);
        int nonEmpty = 0;
        int multiUpdateValues = 0;
        for (int round = 0; round < 60; round++) {
            int n = round < 3 ? 0 : rnd.nextInt(round < 30 ? 20 : 400);
            Batch b = randomBatch(rnd, kk, vk, arity, n);
            if (rnd.nextBoolean()) b = describedAs(b, new Description(b.lower(), b.upper(), randomBetween(rnd, Antichain.of(new long[arity]), b.lower())));
            Batch back = BatchCodec.decode(BatchCodec.encode(b));
            assertSameBatch(back, b);
            assertWellFormed(back);
            if (!b.isEmpty()) nonEmpty++;
            if (b.updateCount() > b.valCount()) multiUpdateValues++;
        }
        assertThat(nonEmpty).as("non-empty batches").isGreaterThan(20);
        assertThat(multiUpdateValues).as("batches with values of several updates").isGreaterThan(10);
    }

    @Test
    void roundTripOfAnyKindAritySizeAndSeed() {
        Random seeds = new Random(424242);
        for (int round = 0; round < 200; round++) {
            long seed = seeds.nextLong();
            Batch b = randomOfAnyKind(new Random(seed));
            assertThat(rows(BatchCodec.decode(BatchCodec.encode(b)))).as("seed %d", seed).isEqualTo(rows(b));
            assertSameBatch(BatchCodec.decode(BatchCodec.encode(b)), b);
        }
    }

    /** What a restart reads of a paged batch's part without decoding it agrees with the part decoded. */
    @Test
    void aSummaryTellsWhatTheDecodedBatchHolds() {
        Random seeds = new Random(20261204);
        for (int round = 0; round < 200; round++) {
            long seed = seeds.nextLong();
            Batch b = BatchCodec.decode(BatchCodec.encode(randomOfAnyKind(new Random(seed))));
            int arity = b.arity;
            BatchCodec.Summary sum = BatchCodec.summarize(java.nio.ByteBuffer.wrap(BatchCodec.encode(b)));
            assertThat(new long[] {sum.arity(), sum.keys(), sum.vals(), sum.updates(), sum.keyBytes(), sum.valBytes()}).as("seed %d", seed)
                    .containsExactly(b.arity, b.keyCount(), b.valCount(), b.updateCount(), b.keys.bytesUsed(), b.vals.bytesUsed());
            assertThat(sum.description()).isEqualTo(b.description());
            assertThat(sum.keyProto().getClass()).isEqualTo(b.keys.getClass());
            assertThat(sum.valProto().getClass()).isEqualTo(b.vals.getClass());
            if (arity == 1 && !b.isEmpty()) assertThat(sum.maxTime()).as("seed %d", seed).isEqualTo(Batch.maxTime(b.times, b.updates, 1));
            if (b.keyCount() > 0) {
                assertThat(sum.ends().compare(0, b.keys, 0)).as("first key, seed %d", seed).isZero();
                assertThat(sum.ends().compare(1, b.keys, b.keyCount() - 1)).as("last key, seed %d", seed).isZero();
            }
        }
        byte[] bytes = BatchCodec.encode(small());
        assertThatThrownBy(() -> BatchCodec.summarize(java.nio.ByteBuffer.wrap(java.util.Arrays.copyOf(bytes, bytes.length - 1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BatchCodec.summarize(java.nio.ByteBuffer.wrap(java.util.Arrays.copyOf(bytes, bytes.length + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("follow");
    }

    @Test
    void emptyBatchesOfEveryKindComeBack() {
        for (Kind kk : Kind.values()) {
            for (Kind vk : Kind.values()) {
                Batch b = Batch.empty(kk.column(), vk.column(), 2, Antichain.of(new long[] {1, 0}),
                        Antichain.fromTimes(2, List.of(new long[] {4, 0}, new long[] {1, 3})), Antichain.of(new long[] {1, 0}));
                Batch back = BatchCodec.decode(BatchCodec.encode(b));
                assertSameBatch(back, b);
                assertThat(back.isEmpty()).isTrue();
            }
        }
    }

    @Test
    void valuesOfSeveralUpdatesAndLongBytesComeBack() {
        Updates u = new Updates(new BytesColumn(), new LongColumn(), 1);
        byte[] big = new byte[10_000];
        new Random(7).nextBytes(big);
        for (int t = 0; t < 5; t++) {
            ((BytesColumn) u.keys()).add(big);
            ((LongColumn) u.vals()).add(t % 2);
            u.push(t, t + 1);
            ((BytesColumn) u.keys()).add(new byte[0]);
            ((LongColumn) u.vals()).add(Long.MIN_VALUE);
            u.push(t, -1);
        }
        Batcher batcher = new Batcher(new BytesColumn(), new LongColumn(), 1);
        batcher.push(u);
        Batch b = batcher.seal(Antichain.empty(1));
        assertThat(b.keyCount()).isEqualTo(2);
        assertThat(b.updateCount()).isEqualTo(10);
        assertSameBatch(BatchCodec.decode(BatchCodec.encode(b)), b);
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void splittingAtAFrontierPartitionsTheUpdatesByTime(Kind kk, Kind vk, int arity) {
        Random rnd = new Random(77 + 1000 * kk.ordinal() + 10 * vk.ordinal() + arity);
        int splitInTwo = 0;
        for (int round = 0; round < 150; round++) {
            Batch b = randomBatch(rnd, kk, vk, arity, round < 2 ? 0 : rnd.nextInt(200));
            Antichain f = b.isEmpty() || rnd.nextBoolean() ? randomBetween(rnd, b.lower(), b.upper()) : aTimeOf(rnd, b);
            Batch before = BatchCodec.before(b, f);
            Batch from = BatchCodec.from(b, f);
            List<Row> all = rows(b);
            List<Row> expectBefore = new ArrayList<>();
            List<Row> expectFrom = new ArrayList<>();
            for (Row r : all) (f.lessEqual(r.time()) ? expectFrom : expectBefore).add(r);
            assertThat(rows(before)).as("before %s", f).isEqualTo(expectBefore);
            assertThat(rows(from)).as("from %s", f).isEqualTo(expectFrom);
            assertThat(before.description()).isEqualTo(new Description(b.lower(), f, b.since()));
            assertThat(from.description()).isEqualTo(new Description(f, b.upper(), b.since()));
            assertWellFormed(before);
            assertWellFormed(from);
            List<Row> union = new ArrayList<>(rows(before));
            union.addAll(rows(from));
            Comparator<Row> order = Comparator.comparing(Row::toString);
            union.sort(order);
            List<Row> sortedAll = new ArrayList<>(all);
            sortedAll.sort(order);
            assertThat(union).isEqualTo(sortedAll);
            // the parts are batches like any other: they encode
            assertSameBatch(BatchCodec.decode(BatchCodec.encode(before)), before);
            assertSameBatch(BatchCodec.decode(BatchCodec.encode(from)), from);
            if (!before.isEmpty() && !from.isEmpty()) splitInTwo++;
        }
        assertThat(splitInTwo).as("batches with updates on both sides of the frontier").isGreaterThan(10);
    }

    /** The time of a random update of {@code b} as a frontier, if it lies within the batch (else the batch's lower). */
    static Antichain aTimeOf(Random rnd, Batch b) {
        List<Row> rows = rows(b);
        Antichain f = Antichain.of(rows.get(rnd.nextInt(rows.size())).time());
        return b.lower().dominates(f) && f.dominates(b.upper()) ? f : b.lower();
    }

    @Test
    void splittingAtABoundaryOfTheBatchReturnsItOrNothing() {
        Batch b = randomBatch(new Random(3), Kind.LONGS, Kind.BYTES, 1, 100);
        assertThat(BatchCodec.before(b, b.upper())).isSameAs(b);
        assertThat(BatchCodec.from(b, b.lower())).isSameAs(b);
        if (!b.lower().equals(b.upper())) {
            assertThat(BatchCodec.before(b, b.lower()).isEmpty()).isTrue();
            assertThat(BatchCodec.from(b, b.upper()).isEmpty()).isTrue();
        }
    }

    @Test
    void splittingOutsideTheBatchIsRefused() {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (int t = 2; t < 8; t++) {
            ((LongColumn) u.keys()).add(t);
            ((LongColumn) u.vals()).add(t);
            u.push(t, 1);
        }
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        batcher.push(u);
        batcher.seal(Antichain.of(2));
        Batch b = batcher.seal(Antichain.of(6));
        assertThat(b.updateCount()).isEqualTo(4);
        assertThat(BatchCodec.before(b, Antichain.of(4)).updateCount()).isEqualTo(2);
        for (Antichain outside : List.of(Antichain.of(1), Antichain.of(7), Antichain.empty(1))) {
            assertThatThrownBy(() -> BatchCodec.before(b, outside)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("within");
            assertThatThrownBy(() -> BatchCodec.from(b, outside)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("within");
        }
        assertThatThrownBy(() -> BatchCodec.before(b, Antichain.of(new long[] {3, 0}))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("arity");
    }

    @Test
    void objectColumnsAreNotEncodable() {
        ObjectColumn<String> objects = ObjectColumn.natural();
        assertThat(BatchCodec.encodable(objects, new LongColumn())).isFalse();
        assertThat(BatchCodec.encodable(new BytesColumn(), objects)).isFalse();
        for (Kind k : Kind.values()) {
            for (Kind v : Kind.values()) assertThat(BatchCodec.encodable(k.column(), v.column())).isTrue();
        }
        Batch b = Batch.empty(objects, new LongColumn(), 1, Antichain.of(0), Antichain.of(1), Antichain.of(0));
        assertThatThrownBy(() -> BatchCodec.encode(b)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ObjectColumn");
    }

    @Test
    void anEncodingOverTheSizeLimitIsRefusedBeforeItIsWritten() {
        // a batch claiming 300M updates over tiny arrays: the size is checked before any of them is read
        int claimed = 300_000_000;
        Batch b = new Batch(new LongColumn(new long[1], 1), new int[] {0, 1}, new LongColumn(new long[1], 1), new int[] {0, claimed}, new long[1],
                new long[] {1}, claimed, 1, new Description(Antichain.of(0), Antichain.of(1), Antichain.of(0)), 0);
        assertThatThrownBy(() -> BatchCodec.encode(b)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("split");
    }

    // ---- corrupt input ----

    /** A small (long, bytes) batch of arity 1 and its encoding. */
    static Batch small() {
        Updates u = new Updates(new LongColumn(), new BytesColumn(), 1);
        for (int i = 0; i < 6; i++) {
            ((LongColumn) u.keys()).add(i / 3);
            ((BytesColumn) u.vals()).add(new byte[] {(byte) (i % 2), 9});
            u.push(i, i + 1);
        }
        Batcher batcher = new Batcher(new LongColumn(), new BytesColumn(), 1);
        batcher.push(u);
        return batcher.seal(Antichain.of(10));
    }

    /** Where the three counts start in an arity-1 encoding whose lower, upper and since have one element each. */
    static final int COUNTS = 14 + 3 * (4 + 8);

    static void assertRefused(byte[] bytes, String message) {
        assertThatThrownBy(() -> BatchCodec.decode(bytes)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    /** Decoding either succeeds or refuses with an IllegalArgumentException, nothing else. */
    static void assertDecodesOrRefuses(byte[] bytes, String what) {
        try {
            BatchCodec.decode(bytes);
        } catch (IllegalArgumentException expected) {
            assertThat(expected.getMessage()).as(what).isNotBlank();
        } catch (Throwable t) {
            fail(what + ": " + t, t);
        }
    }

    static byte[] withInt(byte[] bytes, int at, int value) {
        byte[] copy = bytes.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(at, value);
        return copy;
    }

    @Test
    void wrongMagicVersionOrKindIsRefused() {
        byte[] good = BatchCodec.encode(small());
        for (int i = 0; i < 4; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x20;
            assertRefused(bad, "magic");
        }
        assertRefused(withInt(good, 4, 2), "version 2");
        assertRefused(withInt(good, 8, 0), "arity");
        for (int at : new int[] {12, 13}) {
            for (byte k : new byte[] {0, 4, -1}) {
                byte[] bad = good.clone();
                bad[at] = k;
                assertRefused(bad, "kind");
            }
        }
    }

    @Test
    void everyFlippedHeaderByteIsDecodedOrRefused() {
        byte[] good = BatchCodec.encode(small());
        for (int i = 0; i < COUNTS + 12; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = good.clone();
                bad[i] ^= (byte) (1 << bit);
                assertDecodesOrRefuses(bad, "bit " + bit + " of byte " + i);
            }
        }
    }

    @Test
    void randomCorruptionAnywhereIsDecodedOrRefused() {
        Random rnd = new Random(99);
        for (Kind kk : Kind.values()) {
            for (Kind vk : Kind.values()) {
                byte[] good = BatchCodec.encode(randomBatch(rnd, kk, vk, 2, 40));
                for (int round = 0; round < 300; round++) {
                    byte[] bad = good.clone();
                    for (int flips = 1 + rnd.nextInt(3); flips > 0; flips--) bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt(256);
                    assertDecodesOrRefuses(bad, kk + "/" + vk + " round " + round);
                }
            }
        }
    }

    @Test
    void everyTruncationIsRefused() {
        for (Batch b : List.of(small(), randomBatch(new Random(5), Kind.BYTES, Kind.UNIT, 2, 30))) {
            byte[] good = BatchCodec.encode(b);
            for (int len = 0; len < good.length; len++) {
                byte[] cut = Arrays.copyOf(good, len);
                assertThatThrownBy(() -> BatchCodec.decode(cut)).as("cut at %d of %d", len, good.length).isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] good = BatchCodec.encode(small());
        assertRefused(Arrays.copyOf(good, good.length + 1), "1 bytes follow");
    }

    @Test
    void hugeOrNegativeCountsAreRefusedWithoutAllocating() {
        byte[] good = BatchCodec.encode(small());
        for (int at = COUNTS; at < COUNTS + 12; at += 4) {
            assertRefused(withInt(good, at, Integer.MAX_VALUE), "inconsistent with the length");
            assertRefused(withInt(good, at, Integer.MAX_VALUE - 1), "inconsistent with the length");
            assertRefused(withInt(good, at, -1), "negative");
        }
        // the element count of lower, upper and since
        for (int at = 14; at < COUNTS; at += 12) {
            assertRefused(withInt(good, at, Integer.MAX_VALUE), "truncated");
            assertRefused(withInt(good, at, Integer.MIN_VALUE), "negative");
        }
        // a huge arity with empty frontiers: the times' count times the arity must not overflow
        byte[] arityBomb = BatchCodec.encode(Batch.empty(new UnitColumn(), new UnitColumn(), 1, Antichain.empty(1), Antichain.empty(1), Antichain.empty(1)));
        arityBomb = withInt(arityBomb, 8, Integer.MAX_VALUE);
        arityBomb = withInt(arityBomb, 14 + 3 * 4 + 8, Integer.MAX_VALUE);
        assertRefused(arityBomb, "inconsistent with the length");
    }

    @Test
    void inconsistentOffsetsAndBytesAreRefused() {
        Batch b = small();
        assertThat(b.keyCount()).isEqualTo(2);
        assertThat(b.valCount()).isEqualTo(4);
        byte[] good = BatchCodec.encode(b);
        int valEnds = COUNTS + 12 + 8 * 2;
        int slab = 4 * 2;
        int keyOffsets = valEnds + 4 * 4 + slab;
        int valOffsets = keyOffsets + 4 * 3;
        int diffs = valOffsets + 4 * 5 + 8 * 6;
        assertThat(good.length).isEqualTo(diffs + 8 * 6);
        // a value ending before the previous one, and the last ending past the input
        assertRefused(withInt(good, valEnds + 4, 1), "not monotone");
        assertRefused(withInt(good, valEnds + 12, 1 << 30), "truncated");
        assertRefused(withInt(good, keyOffsets, 1), "start at 1");
        assertRefused(withInt(good, keyOffsets + 4, 0), "not rising");
        assertRefused(withInt(good, keyOffsets + 8, 3), "end at 3");
        assertRefused(withInt(good, valOffsets + 4, 99), "not rising");
        assertRefused(withInt(good, valOffsets + 16, 7), "end at 7");
        byte[] zero = good.clone();
        ByteBuffer.wrap(zero).order(ByteOrder.LITTLE_ENDIAN).putLong(diffs + 8, 0);
        assertRefused(zero, "zero diff");
    }

    @Test
    void aFrontierThatIsNotAnAntichainIsRefused() {
        Batch b = Batch.empty(new LongColumn(), new LongColumn(), 1, Antichain.of(0), Antichain.of(1), Antichain.of(0));
        byte[] good = BatchCodec.encode(b);
        // upper {1} becomes {1, 1}: insert a second element after the first
        ByteBuffer out = ByteBuffer.allocate(good.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        int upperCount = 14 + 12;
        out.put(good, 0, upperCount).putInt(2).put(good, upperCount + 4, 8).putLong(1).put(good, upperCount + 12, good.length - upperCount - 12);
        assertRefused(out.array(), "not an antichain");
    }
}
