package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A large seal whose records mostly repeat (a grouping's build) is added up through a hash table
 * before it is sorted, and gives the same batch as sorting everything would: every distinct
 * (key, value) with its summed diff, those summing to zero gone. A large seal of distinct records
 * skips the table. Seeded random data, byte-string keys and values.
 */
class HashConsolidationTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Pushes {@code n} records over {@code distinct} (key, value)s, diffs +1 or -1, and seals them; checks the batch against a sum by map. */
    private static Batcher sealChecked(int n, int distinct, long seed, Batcher batcher) {
        Map<String, Long> expected = new TreeMap<>();
        Random random = new Random(seed);
        Updates u = new Updates(new BytesColumn(), new BytesColumn(), 1);
        for (int i = 0; i < n; i++) {
            int r = random.nextInt(distinct);
            String key = "k" + r % 997;
            String val = "v" + r;
            // some pairs cancel out entirely: they must not reach the batch
            long diff = r % 5 == 0 ? (i % 2 == 0 ? 1 : -1) : random.nextBoolean() ? 1 : 2;
            ((BytesColumn) u.keys()).add(bytes(key));
            ((BytesColumn) u.vals()).add(bytes(val));
            u.push(3, diff);
            expected.merge(key + "/" + val, diff, Long::sum);
            if (u.size() == 1000) {
                batcher.push(u);
                u = new Updates(new BytesColumn(), new BytesColumn(), 1);
            }
        }
        batcher.push(u);
        if (batcher.consolidations > 0) assertThat(batcher.buffered()).as("records buffered when combined as they came").isLessThanOrEqualTo(distinct);
        expected.values().removeIf(d -> d == 0);
        Batch b = batcher.seal(Antichain.of(4));
        Map<String, Long> actual = new TreeMap<>();
        Cursor c = b.cursor();
        while (c.keyValid()) {
            while (c.valValid()) {
                String kv = new String(((BytesColumn) c.keyColumn()).getBytes(c.keyIndex()), StandardCharsets.UTF_8) + "/"
                        + new String(((BytesColumn) c.valColumn()).getBytes(c.valIndex()), StandardCharsets.UTF_8);
                c.forEachTime((times, off, diff) -> {
                    assertThat(times[off]).isEqualTo(3);
                    actual.merge(kv, diff, Long::sum);
                });
                c.stepVal();
            }
            c.stepKey();
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(b.updateCount()).isEqualTo(expected.size());
        return batcher;
    }

    /** A batcher that never consolidates before its seal. */
    private static Batcher sealOnly() {
        return new Batcher(new BytesColumn(), new BytesColumn(), 1, Integer.MAX_VALUE, true);
    }

    @Test
    void repeatedRecordsAreAddedUpByHashAndGiveTheSortedBatch() {
        for (long seed = 1; seed <= 3; seed++) {
            assertThat(sealChecked(200_000, 20_000, seed, sealOnly()).hashConsolidations).isEqualTo(1);
        }
    }

    /** Pushed 1000 at a time, the repeats are found by the first sample and combined as they come: the seal has nothing left to add up. */
    @Test
    void repeatedRecordsPushedInChunksAreCombinedAsTheyCome() {
        for (long seed = 1; seed <= 3; seed++) {
            Batcher b = sealChecked(200_000, 20_000, seed, new Batcher(new BytesColumn(), new BytesColumn(), 1));
            assertThat(b.consolidations).isEqualTo(1);
            assertThat(b.hashConsolidations).isZero();
        }
    }

    @Test
    void distinctRecordsSkipTheHashTable() {
        Batcher b = sealChecked(100_000, Integer.MAX_VALUE, 9, new Batcher(new BytesColumn(), new BytesColumn(), 1));
        assertThat(b.hashConsolidations).isZero();
        assertThat(b.consolidations).isZero();
    }
}
