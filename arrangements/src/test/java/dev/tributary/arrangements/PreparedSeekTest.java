package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.timely.Antichain;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Seeks prepared for many probe keys at once ({@link Cursor#prepareSeeks}, {@link Column#lowerBounds},
 * {@link KeyFilter}) against the same seeks made one at a time on unprepared cursors: the same
 * positions, the same found or not found, the same values and updates read at each found key,
 * before and after a batch gets its filter.
 */
class PreparedSeekTest {
    /** Large enough for prepared seeks and for fences. */
    private static final int KEYS = Math.max(3 * BatchCursor.PREPARED_MIN_KEYS, BatchCursor.FENCED_MIN_KEYS + 1000);

    @Test
    void lowerBoundsOfLongsAndBytesMatchALinearScan() {
        SplittableRandom random = new SplittableRandom(1);
        for (int trial = 0; trial < 200; trial++) {
            int n = random.nextInt(0, 300);
            long[] values = sortedDistinct(random, n, 1000);
            long[] probes = new long[random.nextInt(0, 40)];
            for (int p = 0; p < probes.length; p++) probes[p] = random.nextLong(-5, 1010);
            Arrays.sort(probes);
            int[] which = new int[probes.length];
            int count = 0;
            for (int p = 0; p < probes.length; p++) {
                if (random.nextBoolean()) which[count++] = p;
            }
            LongColumn longs = longs(values);
            LongColumn longProbes = longs(probes);
            BytesColumn bytes = bytes(values);
            BytesColumn byteProbes = bytes(probes);
            int[] all = new int[probes.length];
            int[] some = new int[count];
            for (Column[] pair : new Column[][] {{longs, longProbes}, {bytes, byteProbes}}) {
                pair[0].lowerBounds(pair[1], null, probes.length, all);
                for (int p = 0; p < probes.length; p++) assertThat(all[p]).as("%s, probe %d", pair[0].getClass().getSimpleName(), probes[p]).isEqualTo(linear(values, probes[p]));
                pair[0].lowerBounds(pair[1], which, count, some);
                for (int j = 0; j < count; j++) assertThat(some[j]).isEqualTo(linear(values, probes[which[j]]));
            }
        }
    }

    @Test
    void fencedLowerBoundsMatchTheUnfencedOnes() {
        SplittableRandom random = new SplittableRandom(7);
        for (int n : new int[] {1, 2, 16, 17, 63, 64, 65, 127, 128, 129, 143, 144, 145, 255, 256, 257, 1000, 4095, 4096, 4097, 70_001, 200_000, -50_000, -300_000}) {
            // negative: clustered values (runs of neighbours, then a jump), which interpolation guesses badly
            long[] values = n > 0 ? sortedDistinct(random, n, 10L * n) : clustered(random, -n);
            n = values.length;
            LongColumn column = longs(values);
            LongColumn.Fences fences = column.fences();
            for (int trial = 0; trial < 5; trial++) {
                TreeSet<Long> set = new TreeSet<>();
                set.add(-1L);
                set.add(values[0]);
                set.add(values[n - 1]);
                set.add(values[n - 1] + 1);
                for (int p = 0; p < 100; p++) set.add(random.nextBoolean() ? values[random.nextInt(n)] : random.nextLong(values[0] - 3, values[n - 1] + 4));
                long[] probes = set.stream().mapToLong(Long::longValue).toArray();
                int[] which = new int[probes.length];
                int count = 0;
                for (int p = 0; p < probes.length; p++) {
                    if (random.nextBoolean()) which[count++] = p;
                }
                int[] expected = new int[probes.length];
                int[] actual = new int[probes.length];
                column.lowerBounds(longs(probes), null, probes.length, expected);
                column.lowerBounds(longs(probes), null, probes.length, actual, fences);
                assertThat(actual).as("n = %d", n).isEqualTo(expected);
                column.lowerBounds(longs(probes), which, count, expected);
                column.lowerBounds(longs(probes), which, count, actual, fences);
                assertThat(Arrays.copyOf(actual, count)).as("n = %d, a subset", n).isEqualTo(Arrays.copyOf(expected, count));
            }
        }
    }

    @Test
    void fencedLowerBoundsHoldAtTheEndsOfTheLongRange() {
        SplittableRandom random = new SplittableRandom(8);
        TreeSet<Long> set = new TreeSet<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE));
        while (set.size() < 5000) set.add(random.nextLong());
        long[] values = set.stream().mapToLong(Long::longValue).toArray();
        LongColumn column = longs(values);
        TreeSet<Long> probeSet = new TreeSet<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE));
        while (probeSet.size() < 300) probeSet.add(random.nextBoolean() ? values[random.nextInt(values.length)] : random.nextLong());
        long[] probes = probeSet.stream().mapToLong(Long::longValue).toArray();
        int[] actual = new int[probes.length];
        column.lowerBounds(longs(probes), null, probes.length, actual, column.fences());
        for (int p = 0; p < probes.length; p++) assertThat(actual[p]).as("probe %d", probes[p]).isEqualTo(linear(values, probes[p]));
    }

    @Test
    void preparedExactSeeksFindWhatPlainSeeksFindBeforeAndAfterTheFilter() {
        SplittableRandom random = new SplittableRandom(2);
        Batch batch = batch(sortedDistinct(random, KEYS, 100L * KEYS), random);
        int rounds = 0;
        // probes mostly absent: after FILTER_AFTER_PROBES of them the batch gets a filter
        while (batch.filter == null) {
            compareRound(List.of(batch), probes(random, batch, 100, 0.2), random);
            rounds++;
            assertThat(rounds).as("a filter for a batch that probes mostly miss").isLessThan(10);
        }
        for (int r = 0; r < 20; r++) compareRound(List.of(batch), probes(random, batch, 100, 0.3), random);
        assertThat(batch.fences).as("a batch this large is searched through fences").isNotNull();
        assertThat(batch.heapBytes()).isGreaterThan(batch.filter.heapBytes());
    }

    @Test
    void aLargeBatchOfOneTimeAndDiffIsReadWithoutItsUpdateArraysAndReadsTheSame() {
        for (boolean mixed : new boolean[] {false, true}) {
            SplittableRandom random = new SplittableRandom(8);
            long[] keys = sortedDistinct(random, KEYS, 50L * KEYS);
            Batcher batcher = new Batcher(new LongColumn(1), new LongColumn(1), 1);
            Updates u = new Updates(new LongColumn(keys.length), new LongColumn(keys.length), 1);
            for (int i = 0; i < keys.length; i++) {
                for (int v = 0; v < 1 + (i % 3 == 0 ? 1 : 0); v++) {
                    ((LongColumn) u.keys()).add(keys[i]);
                    ((LongColumn) u.vals()).add(v);
                    // one update differs in the mixed batch: the last
                    u.push(3, mixed && i == keys.length - 1 ? 5 : 2);
                }
            }
            batcher.push(u);
            Batch batch = batcher.seal(Antichain.of(new long[] {10}));
            long[] probes = probes(random, batch, 200, 0.5);
            Cursor c = batch.cursor();
            c.prepareSeeks(longs(probes));
            assertThat(batch.uniform).isNotNull();
            assertThat(batch.uniform.same()).as("mixed %s", mixed).isEqualTo(!mixed);
            LongColumn target = new LongColumn(1);
            for (long probe : probes) {
                target.clear();
                target.add(probe);
                int i = java.util.Arrays.binarySearch(keys, probe);
                assertThat(c.seekKeyExact(target, 0)).isEqualTo(i >= 0);
                if (i < 0) continue;
                long diff = mixed && i == keys.length - 1 ? 5 : 2;
                List<Long> expected = new ArrayList<>(List.of(probe, 0L, 3L, diff));
                if (i % 3 == 0) expected.addAll(List.of(1L, 3L, diff));
                c.rewindVals();
                assertThat(contents(c)).as("key %d", probe).isEqualTo(expected);
                c.rewindVals();
                assertThat(c.accumulate(new long[] {2})).isZero();
                assertThat(c.accumulate(new long[] {3})).isEqualTo(diff);
            }
        }
    }

    @Test
    void aBatchThatProbesMostlyFindGetsNoFilter() {
        SplittableRandom random = new SplittableRandom(3);
        Batch batch = batch(sortedDistinct(random, KEYS, 4L * KEYS), random);
        for (int r = 0; r < 10; r++) compareRound(List.of(batch), probes(random, batch, 100, 0.9), random);
        assertThat(batch.filter).isNull();
    }

    /**
     * A batch too small to prepare is searched key to key; once its exact seeks have mostly
     * missed it, it is prepared through a filter, and reads the same. One whose seeks mostly find
     * their key, or that is tinier than {@link BatchCursor#FILTERED_MIN_KEYS}, is never filtered.
     */
    @Test
    void aSmallBatchThatSeeksMostlyMissGetsAFilterAndReadsTheSame() {
        SplittableRandom random = new SplittableRandom(9);
        int small = BatchCursor.PREPARED_MIN_KEYS / 8;
        Batch missed = batch(sortedDistinct(random, small, 100L * small), random);
        Batch found = batch(sortedDistinct(random, small, 100L * small), random);
        Batch tiny = batch(sortedDistinct(random, BatchCursor.FILTERED_MIN_KEYS / 2, 100L * small), random);
        int rounds = 0;
        while (missed.filter == null) {
            compareRound(List.of(missed), probes(random, missed, 100, 0.02), random);
            rounds++;
            assertThat(rounds).as("a filter for a small batch that seeks mostly miss").isLessThan(10);
        }
        for (int r = 0; r < 20; r++) {
            compareRound(List.of(missed), probes(random, missed, 100, 0.3), random);
            compareRound(List.of(found), probes(random, found, 100, 0.9), random);
            compareRound(List.of(tiny), probes(random, tiny, 40, 0.05), random);
        }
        assertThat(missed.fences).as("too small for fences").isNull();
        assertThat(found.filter).isNull();
        assertThat(tiny.filter).isNull();
    }

    @Test
    void filtersAreBuiltOnlyWhereEqualKeysHashAlike() {
        assertThat(KeyFilter.applies(new LongColumn(1))).isTrue();
        assertThat(KeyFilter.applies(new BytesColumn())).isTrue();
        // compareTo-equal BigDecimals (1.0, 1.00) have different hash codes: a filter would lose one
        assertThat(KeyFilter.applies(new ObjectColumn<java.math.BigDecimal>(java.math.BigDecimal::compareTo, 1))).isFalse();
    }

    @Test
    void aTraceOfLargeAndSmallBatchesReadsAsOne() {
        SplittableRandom random = new SplittableRandom(4);
        List<Batch> batches = new ArrayList<>();
        batches.add(batch(sortedDistinct(random, KEYS, 50L * KEYS), random));
        batches.add(batch(sortedDistinct(random, KEYS / 2, 50L * KEYS), random));
        batches.add(batch(sortedDistinct(random, 500, 50L * KEYS), random));
        for (int r = 0; r < 30; r++) {
            // probes drawn from every batch and from none of them
            long[] probes = probes(random, batches.get(r % 3), 100, 0.4);
            compareRound(batches, probes, random);
        }
        assertThat(batches.get(0).filter).isNotNull();
    }

    @Test
    void aStepAfterAnExactSeekGoesToTheNextKeyOfEveryBatch() {
        SplittableRandom random = new SplittableRandom(5);
        List<Batch> batches = List.of(batch(sortedDistinct(random, KEYS, 20L * KEYS), random),
                batch(sortedDistinct(random, KEYS, 20L * KEYS), random));
        for (int r = 0; r < 10; r++) {
            long[] probes = probes(random, batches.get(r % 2), 60, 0.5);
            Cursor prepared = Batch.cursor(batches);
            prepared.prepareSeeks(longs(probes));
            Cursor plain = Batch.cursor(batches);
            LongColumn target = new LongColumn(1);
            for (long probe : probes) {
                if (!seekBoth(prepared, plain, target, probe)) continue;
                plain.stepKey();
                prepared.stepKey();
                assertThat(prepared.keyValid()).isEqualTo(plain.keyValid());
                if (plain.keyValid()) assertThat(key(prepared)).as("the key after %d", probe).isEqualTo(key(plain));
            }
        }
    }

    @Test
    void aStepAfterAFailedExactSeekIsRefused() {
        SplittableRandom random = new SplittableRandom(6);
        Cursor c = Batch.cursor(List.of(batch(new long[] {1, 3, 5}, random), batch(new long[] {2, 4}, random)));
        assertThat(c.seekKeyExact(longs(new long[] {6}), 0)).isFalse();
        assertThatThrownBy(c::stepKey).isInstanceOf(IllegalStateException.class).hasMessageContaining("seek or rewind first");
        c.rewindKeys();
        assertThat(key(c)).isEqualTo(1);
    }

    /** One round: the probes prepared on one cursor and sought exactly, against a plain cursor sought one by one. */
    private static void compareRound(List<Batch> batches, long[] probes, SplittableRandom random) {
        Cursor prepared = Batch.cursor(batches);
        prepared.prepareSeeks(longs(probes));
        Cursor plain = Batch.cursor(batches);
        LongColumn target = new LongColumn(1);
        for (long probe : probes) {
            if (seekBoth(prepared, plain, target, probe)) assertThat(contents(prepared)).as("key %d", probe).isEqualTo(contents(plain));
        }
        // a plain (not exact) prepared seek lands where a plain one does
        Cursor again = Batch.cursor(batches);
        again.prepareSeeks(longs(probes));
        Cursor fresh = Batch.cursor(batches);
        for (long probe : probes) {
            if (random.nextInt(4) == 0) continue;
            target.clear();
            target.add(probe);
            again.seekKey(target, 0);
            fresh.seekKey(target, 0);
            assertThat(again.keyValid()).isEqualTo(fresh.keyValid());
            if (fresh.keyValid()) assertThat(key(again)).isEqualTo(key(fresh));
        }
    }

    /**
     * Seeks {@code plain} to {@code probe} and {@code prepared} exactly to it, through the one-value
     * column {@code target} (as a reduce's probe key is); checks that both agree on whether it is
     * there and returns that.
     */
    private static boolean seekBoth(Cursor prepared, Cursor plain, LongColumn target, long probe) {
        target.clear();
        target.add(probe);
        plain.seekKey(target, 0);
        boolean found = plain.keyValid() && plain.keyColumn().equal(plain.keyIndex(), target, 0);
        assertThat(prepared.seekKeyExact(target, 0)).as("key %d", probe).isEqualTo(found);
        return found;
    }

    private static long key(Cursor c) {
        return ((LongColumn) c.keyColumn()).getLong(c.keyIndex());
    }

    /** The current key's values and their (time, diff)s, read through; leaves the values exhausted. */
    private static List<Long> contents(Cursor c) {
        List<Long> out = new ArrayList<>();
        out.add(key(c));
        while (c.valValid()) {
            out.add(((LongColumn) c.valColumn()).getLong(c.valIndex()));
            c.forEachTime((t, off, diff) -> {
                out.add(t[off]);
                out.add(diff);
            });
            c.stepVal();
        }
        return out;
    }

    /** {@code n} sorted probes: a share {@code present} of them keys of the batch, the rest random (almost always absent). */
    private static long[] probes(SplittableRandom random, Batch batch, int n, double present) {
        TreeSet<Long> set = new TreeSet<>();
        LongColumn keys = (LongColumn) batch.keys;
        long max = keys.getLong(keys.size() - 1);
        while (set.size() < n) {
            if (random.nextDouble() < present) set.add(keys.getLong(random.nextInt(keys.size())));
            else set.add(random.nextLong(-10, max + 10));
        }
        return set.stream().mapToLong(Long::longValue).toArray();
    }

    /** A batch of the keys, each with one to three values, each value with one or two times (batches of a test overlap in time: cursors do not mind). */
    private static Batch batch(long[] keys, SplittableRandom random) {
        Batcher batcher = new Batcher(new LongColumn(1), new LongColumn(1), 1);
        Updates u = new Updates(new LongColumn(keys.length), new LongColumn(keys.length), 1);
        for (long k : keys) {
            for (int v = random.nextInt(1, 4); v > 0; v--) {
                long val = random.nextInt(10);
                for (int t = random.nextInt(1, 3); t > 0; t--) {
                    ((LongColumn) u.keys()).add(k);
                    ((LongColumn) u.vals()).add(val);
                    u.push(random.nextInt(10), 1 + random.nextInt(3));
                }
            }
        }
        batcher.push(u);
        return batcher.seal(Antichain.of(new long[] {10}));
    }

    private static long[] clustered(SplittableRandom random, int n) {
        long[] values = new long[n];
        long v = random.nextLong(-1000, 1000);
        for (int i = 0; i < n; i++) {
            values[i] = v;
            v += random.nextInt(100) == 0 ? 1 + random.nextLong(1L << 40) : 1 + random.nextInt(3);
        }
        return values;
    }

    private static long[] sortedDistinct(SplittableRandom random, int n, long range) {
        TreeSet<Long> set = new TreeSet<>();
        while (set.size() < n) set.add(random.nextLong(range));
        return set.stream().mapToLong(Long::longValue).toArray();
    }

    private static int linear(long[] sorted, long x) {
        int i = 0;
        while (i < sorted.length && sorted[i] < x) i++;
        return i;
    }

    private static LongColumn longs(long[] values) {
        LongColumn c = new LongColumn(values.length);
        for (long v : values) c.add(v);
        return c;
    }

    /** Big-endian with the sign bit flipped, so that bytewise order is numeric order. */
    private static BytesColumn bytes(long[] values) {
        BytesColumn c = new BytesColumn();
        for (long v : values) c.add(ByteBuffer.allocate(8).putLong(v ^ Long.MIN_VALUE).array());
        return c;
    }
}
