package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import org.junit.jupiter.api.Test;

/**
 * Batches whose every key has one value, every value one update and every diff is 1 (a table by
 * its primary key, rows arranged by themselves) hold the same offsets and diffs arrays, counted
 * by none of them; a batch of longs (pooled for reuse) and a batch with other diffs keep their own.
 */
class SharedArraysTest {
    private static Batch rows(long diff, String... keys) {
        BatchBuilder b = new BatchBuilder(new BytesColumn(), new UnitColumn(), 1, keys.length);
        BytesColumn k = new BytesColumn();
        UnitColumn v = new UnitColumn();
        for (String key : keys) {
            k.add(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            v.add();
        }
        for (int i = 0; i < keys.length; i++) b.push(k, i, v, i, new long[] {0}, 0, diff);
        return b.build(new Description(Antichain.of(0), Antichain.of(1), Antichain.of(0)));
    }

    @Test
    void batchesOfOneUpdatePerKeyShareTheirOffsetsAndUnitDiffs() {
        Batch a = rows(1, "a", "b", "c");
        Batch b = rows(1, "x", "y", "z", "zz");
        assertThat(a.keyOffsets).isSameAs(b.keyOffsets).isSameAs(a.valOffsets);
        assertThat(a.diffs).isSameAs(b.diffs);
        for (int i = 0; i <= 4; i++) assertThat(b.keyOffsets[i]).isEqualTo(i);
        for (int i = 0; i < 4; i++) assertThat(b.diffs[i]).isEqualTo(1);
        assertThat(a.isShared(a.keyOffsets) && a.isShared(a.valOffsets) && a.isShared(a.diffs)).isTrue();
        // counted by none: the batch's own bytes are its keys, its times and its object
        assertThat(a.heapBytes()).isEqualTo(64 + a.keys().heapBytes() + a.vals().heapBytes() + Column.arrayBytes(a.times.length, 8));

        Batch twice = rows(2, "a", "b");
        assertThat(twice.diffs).isNotSameAs(a.diffs).containsExactly(2, 2);
        assertThat(twice.isShared(twice.diffs)).isFalse();
        assertThat(twice.keyOffsets).isSameAs(a.keyOffsets);

        BatchBuilder longs = new BatchBuilder(new LongColumn(), new LongColumn(), 1, 2);
        LongColumn k = new LongColumn();
        k.add(1);
        k.add(2);
        longs.push(k, 0, k, 0, new long[] {0}, 0, 1);
        longs.push(k, 1, k, 1, new long[] {0}, 0, 1);
        Batch pooled = longs.build(new Description(Antichain.of(0), Antichain.of(1), Antichain.of(0)));
        assertThat(pooled.keyOffsets).isNotSameAs(a.keyOffsets);
        assertThat(pooled.diffs).isNotSameAs(a.diffs);
    }
}
