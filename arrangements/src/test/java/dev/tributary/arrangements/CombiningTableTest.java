package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link CombiningTable} against a map from {@code (key, val, time)} to the sum of its diffs, in
 * the order each first arrived: records that share their bytes but split them differently
 * between key and value, that differ only in trailing zero bytes (the packing pads with zeros),
 * that are longer than a word, at times of two coordinates, over enough records that the table
 * grows many times.
 */
class CombiningTableTest {
    private static final int ARITY = 2;

    @Test
    void addsUpEqualRecordsAndKeepsTheOrderOfFirstArrival() {
        SplittableRandom random = new SplittableRandom(7);
        byte[][] strings = strings(random);
        CombiningTable table = new CombiningTable(new BytesColumn(), ARITY, 16);
        Map<String, long[]> expected = new LinkedHashMap<>();
        for (int message = 0; message < 200; message++) {
            Updates u = new Updates(new BytesColumn(), new BytesColumn(), ARITY);
            for (int i = 0, n = random.nextInt(1, 600); i < n; i++) {
                byte[] k = strings[random.nextInt(strings.length)];
                byte[] v = strings[random.nextInt(strings.length)];
                long[] time = {random.nextInt(3), random.nextInt(2)};
                long diff = random.nextInt(-3, 4);
                ((BytesColumn) u.keys()).add(k);
                ((BytesColumn) u.vals()).add(v);
                u.push(time, diff);
                expected.computeIfAbsent(Arrays.toString(k) + "|" + Arrays.toString(v) + "|" + Arrays.toString(time), x -> new long[1])[0] += diff;
            }
            table.add(u);
        }
        assertThat(table.size()).isEqualTo(expected.size());
        Updates drained = new Updates(new BytesColumn(), new BytesColumn(), ARITY);
        table.drainTo(drained);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < drained.size(); i++) {
            long[] time = Arrays.copyOfRange(drained.times(), i * ARITY, (i + 1) * ARITY);
            got.add(Arrays.toString(((BytesColumn) drained.keys()).getBytes(i)) + "|" + Arrays.toString(((BytesColumn) drained.vals()).getBytes(i))
                    + "|" + Arrays.toString(time) + "=" + drained.diffs()[i]);
        }
        List<String> want = new ArrayList<>();
        expected.forEach((record, sum) -> want.add(record + "=" + sum[0]));
        assertThat(got).containsExactlyElementsOf(want);
        assertThat(table.size()).isZero();
    }

    @Test
    void unitValuesCombineByKeyAndTime() {
        CombiningTable table = new CombiningTable(new UnitColumn(), 1, 4);
        Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
        for (int i = 0; i < 10_000; i++) {
            ((BytesColumn) u.keys()).add(new byte[] {(byte) (i % 300 >> 8), (byte) (i % 300), (byte) (i % 7)});
            ((UnitColumn) u.vals()).add();
            u.push(i % 2, 1);
        }
        table.add(u);
        Updates drained = new Updates(new BytesColumn(), new UnitColumn(), 1);
        table.drainTo(drained);
        long total = 0;
        for (int i = 0; i < drained.size(); i++) total += drained.diffs()[i];
        // (i % 300, i % 7, i % 2) repeats every lcm(300, 7, 2) = 2100 updates
        assertThat(drained.size()).isEqualTo(2100);
        assertThat(total).isEqualTo(10_000);
    }

    /** Byte strings of 0 to 20 bytes: prefixes of each other, with and without trailing zeros, and splits of one another. */
    private static byte[][] strings(SplittableRandom random) {
        List<byte[]> out = new ArrayList<>();
        out.add(new byte[0]);
        out.add(new byte[] {0});
        out.add(new byte[] {0, 0});
        out.add(new byte[] {'a', 'b'});
        out.add(new byte[] {'a'});
        out.add(new byte[] {'b', 'c'});
        out.add(new byte[] {'c'});
        out.add(new byte[8]);
        out.add(new byte[9]);
        while (out.size() < 400) {
            byte[] b = new byte[random.nextInt(21)];
            for (int i = 0; i < b.length; i++) b[i] = (byte) (random.nextBoolean() ? 0 : random.nextInt(256));
            out.add(b);
        }
        return out.toArray(new byte[0][]);
    }
}
