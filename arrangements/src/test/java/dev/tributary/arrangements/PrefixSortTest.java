package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A prefix sort orders records as a sort by the full order does: byte strings of every length
 * up to 90 bytes, sharing prefixes up to 80 bytes long, repeated many times, with bytes above 0x7f (unsigned order), ties broken
 * by a value (read by its prefix, or only through the order) and a third field, in random order
 * or with the keys in order already, with keys short enough that the prefixes are whole keys or
 * not. Seeded random data.
 */
class PrefixSortTest {
    @Test
    void ordersAsTheFullOrderDoes() {
        for (long seed = 1; seed <= 32; seed++) {
            Random random = new Random(seed);
            int n = 1 + random.nextInt(seed % 4 == 0 ? 50_000 : 3_000);
            BytesColumn keys = new BytesColumn();
            BytesColumn vals = new BytesColumn();
            long[] second = new long[n];
            // a few distinct lengths and alphabets: shared prefixes, exact 8- and 16-byte boundaries
            int distinct = 1 + random.nextInt(seed % 3 == 0 ? 5 : n);
            byte[][] pool = new byte[distinct][];
            for (int d = 0; d < distinct; d++) {
                // every fourth seed: keys up to 90 bytes alike for up to 80 (past the bytes the sort walks)
                boolean longKeys = seed % 4 == 2;
                byte[] b = new byte[random.nextInt(longKeys ? 90 : seed % 3 == 1 ? 16 : 24)];
                int shared = longKeys ? random.nextInt(80) : 9;
                for (int k = 0; k < b.length; k++) b[k] = (byte) (k < shared && seed % 2 == 0 ? 'p' : random.nextInt(seed % 5 == 0 ? 2 : 256));
                pool[d] = b;
            }
            int[][] picks = new int[n][];
            for (int i = 0; i < n; i++) picks[i] = new int[] {random.nextInt(distinct), random.nextInt(distinct)};
            // some inputs come with their keys in order already (a reduce's output), their values not
            if (seed % 7 == 0) Arrays.sort(picks, (x, y) -> Arrays.compareUnsigned(pool[x[0]], pool[y[0]]));
            for (int i = 0; i < n; i++) {
                keys.add(pool[picks[i][0]]);
                vals.add(pool[picks[i][1]]);
                second[i] = random.nextInt(7);
            }
            long[] hi = new long[n];
            long[] lo = new long[n];
            boolean whole = true;
            for (int i = 0; i < n; i++) {
                hi[i] = keys.prefix(i, 0);
                lo[i] = keys.prefix(i, 8);
                whole &= keys.length(i) <= 15;
            }
            // keys of at most 15 bytes carry their length in the last byte, as the batcher gives them
            if (whole) for (int i = 0; i < n; i++) lo[i] |= keys.length(i);
            IndexSort.Order full = (x, y) -> {
                int c = keys.compare(x, keys, y);
                if (c == 0) c = vals.compare(x, vals, y);
                return c != 0 ? c : Long.compare(second[x], second[y]);
            };
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) idx[i] = i;
            // with and without the values' prefixes
            if (seed % 2 == 0) new PrefixSort().sort(idx, n, hi, lo, keys, vals, whole, full);
            else new PrefixSort().sort(idx, n, hi, lo, full);
            Integer[] expected = new Integer[n];
            for (int i = 0; i < n; i++) expected[i] = i;
            Arrays.sort(expected, full::compare);
            for (int i = 1; i < n; i++) {
                assertThat(full.compare(idx[i - 1], idx[i])).as("seed %d, positions %d and %d", seed, i - 1, i).isLessThanOrEqualTo(0);
            }
            assertThat(Arrays.stream(idx).sorted().toArray()).as("a permutation").isEqualTo(java.util.stream.IntStream.range(0, n).toArray());
            for (int i = 0; i < n; i++) assertThat(full.compare(idx[i], expected[i])).isZero();
        }
    }

    /** Keys of one length that tie past the bytes the sort walks (70 bytes alike, then one of 4): still ordered by their last byte before their values. */
    @Test
    void keysAlikePastTheWalkedBytesAreOrderedByTheFullOrder() {
        Random random = new Random(5);
        int n = 5_000;
        BytesColumn keys = new BytesColumn();
        BytesColumn vals = new BytesColumn();
        for (int i = 0; i < n; i++) {
            byte[] k = new byte[71];
            Arrays.fill(k, 0, 70, (byte) 'p');
            k[70] = (byte) random.nextInt(4);
            keys.add(k);
            vals.add(new byte[] {(byte) random.nextInt(256), (byte) random.nextInt(256)});
        }
        long[] hi = new long[n];
        long[] lo = new long[n];
        for (int i = 0; i < n; i++) {
            hi[i] = keys.prefix(i, 0);
            lo[i] = keys.prefix(i, 8);
        }
        IndexSort.Order full = (x, y) -> {
            int c = keys.compare(x, keys, y);
            return c != 0 ? c : vals.compare(x, vals, y);
        };
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) idx[i] = i;
        new PrefixSort().sort(idx, n, hi, lo, keys, vals, false, full);
        for (int i = 1; i < n; i++) assertThat(full.compare(idx[i - 1], idx[i])).as("positions %d and %d", i - 1, i).isLessThanOrEqualTo(0);
    }
}
