package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The (long, long, long) index sort orders exactly as a plain comparator sort, packed or not. */
class LongTripleSortTest {
    @Test
    void ordersLikeAComparatorSort() {
        Random r = new Random(5);
        LongTripleSort sorter = new LongTripleSort();
        for (int round = 0; round < 400; round++) {
            int n = r.nextInt(round < 200 ? 100 : 3000);
            long[] k = new long[n];
            long[] v = new long[n];
            long[] t = new long[n];
            int spread = r.nextInt(4);
            for (int i = 0; i < n; i++) {
                // small ranges take the packed path; huge or negative spans the fallback
                k[i] = switch (spread) {
                    case 0 -> r.nextInt(5);
                    case 1 -> r.nextInt(1_000_000) - 500_000;
                    case 2 -> r.nextLong();
                    default -> r.nextBoolean() ? Long.MIN_VALUE + r.nextInt(3) : Long.MAX_VALUE - r.nextInt(3);
                };
                // values: a small range is packed with the key, a huge one is not
                v[i] = round % 3 == 0 ? r.nextLong() : round % 3 == 1 ? r.nextInt(4) : r.nextInt(70_000) - 35_000;
                t[i] = r.nextInt(3);
            }
            int[] idx = new int[n + 5];
            // sort a shuffled subset of positions, as the batcher does with ready updates
            Integer[] expected = new Integer[n];
            for (int i = 0; i < n; i++) expected[i] = i;
            java.util.Collections.shuffle(Arrays.asList(expected), r);
            for (int i = 0; i < n; i++) idx[i] = expected[i];
            sorter.sort(idx, n, k, v, t);
            Arrays.sort(expected, Comparator.<Integer>comparingLong(i -> k[i]).thenComparingLong(i -> v[i]).thenComparingLong(i -> t[i]));
            for (int i = 0; i < n; i++) {
                int a = idx[i];
                int e = expected[i];
                assertThat(new long[] {k[a], v[a], t[a]}).as("round %d position %d", round, i).containsExactly(k[e], v[e], t[e]);
            }
            assertThat(Arrays.stream(idx, 0, n).sorted().toArray()).as("a permutation").isEqualTo(java.util.stream.IntStream.range(0, n).toArray());
        }
    }

    @Test
    void sortsLongsSortedNearlySortedFarFromSortedAndRandom() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int trial = 0; trial < 400; trial++) {
            int n = random.nextInt(1, 3000);
            long[] p = new long[n];
            int shape = trial % 5;
            for (int i = 0; i < n; i++) p[i] = shape == 3 ? random.nextLong() : 10L * i;
            if (shape == 1) {
                // a few adjacent swaps: a reduce's output
                for (int s = 0; s < n / 40; s++) {
                    int i = random.nextInt(Math.max(1, n - 1));
                    if (i + 1 < n) { long x = p[i]; p[i] = p[i + 1]; p[i + 1] = x; }
                }
            } else if (shape == 2) {
                // few descents, but elements far from their places: the budget runs out
                for (int s = 0; s < Math.max(1, n / 100); s++) {
                    int i = random.nextInt(n);
                    p[i] = random.nextLong(-1000, 10L * n + 1000);
                }
            } else if (shape == 4) {
                for (int i = 0; i < n / 2; i++) { long x = p[i]; p[i] = p[n - 1 - i]; p[n - 1 - i] = x; }
            }
            long[] expected = p.clone();
            java.util.Arrays.sort(expected);
            LongTripleSort.sortLongs(p, n);
            assertThat(p).as("trial %d, shape %d, n %d", trial, shape, n).isEqualTo(expected);
        }
    }
}
