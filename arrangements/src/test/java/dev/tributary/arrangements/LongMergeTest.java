package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The (long, long) merge path agrees with the general one, update for update. */
class LongMergeTest {
    private static Batch batch(Column keys, Column vals, long[][] updates, long lower, long upper) {
        Batcher batcher = new Batcher(keys, vals, 1);
        Updates u = new Updates(keys.emptyLike(16), vals.emptyLike(16), 1);
        for (long[] x : updates) {
            if (keys instanceof LongColumn) {
                ((LongColumn) u.keys()).add(x[0]);
                ((LongColumn) u.vals()).add(x[1]);
            } else {
                @SuppressWarnings("unchecked")
                ObjectColumn<Long> k = (ObjectColumn<Long>) u.keys();
                @SuppressWarnings("unchecked")
                ObjectColumn<Long> v = (ObjectColumn<Long>) u.vals();
                k.add(x[0]);
                v.add(x[1]);
            }
            u.push(x[2], x[3]);
        }
        batcher.push(u);
        if (lower > 0) batcher.seal(Antichain.of(lower));
        return batcher.seal(Antichain.of(upper));
    }

    private static List<String> contents(Batch b) {
        List<String> out = new ArrayList<>();
        Cursor c = b.cursor();
        while (c.keyValid()) {
            while (c.valValid()) {
                Object key = c.keyColumn().get(c.keyIndex());
                Object val = c.valColumn().get(c.valIndex());
                c.forEachTime((t, off, d) -> out.add(key + "," + val + "@" + t[off] + ":" + d));
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    @Test
    void agreesWithTheGeneralMerge() {
        Random r = new Random(11);
        for (int round = 0; round < 300; round++) {
            int n = 1 + r.nextInt(60);
            long split = 1 + r.nextInt(10);
            long end = split + 1 + r.nextInt(10);
            List<long[]> first = new ArrayList<>();
            List<long[]> second = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long key = r.nextInt(8);
                long val = r.nextInt(4);
                long diff = r.nextBoolean() ? 1 : -1;
                if (r.nextBoolean()) first.add(new long[] {key, val, r.nextInt((int) split), diff});
                else second.add(new long[] {key, val, split + r.nextInt((int) (end - split)), diff});
            }
            long since = r.nextInt((int) end + 2);
            Comparator<Long> natural = Comparator.naturalOrder();
            Batch la = batch(new LongColumn(), new LongColumn(), first.toArray(new long[0][]), 0, split);
            Batch lb = batch(new LongColumn(), new LongColumn(), second.toArray(new long[0][]), split, end);
            Batch oa = batch(new ObjectColumn<>(natural), new ObjectColumn<>(natural), first.toArray(new long[0][]), 0, split);
            Batch ob = batch(new ObjectColumn<>(natural), new ObjectColumn<>(natural), second.toArray(new long[0][]), split, end);
            Merger fast = new Merger(la, lb, Antichain.of(since));
            Merger general = new Merger(oa, ob, Antichain.of(since));
            // feed the fast path little fuel at a time: resuming must not change the result
            while (!fast.isDone()) fast.work(1 + r.nextInt(5));
            Batch f = fast.result();
            Batch g = general.finish();
            assertThat(contents(f)).as("round %d", round).isEqualTo(contents(g));
            assertThat(f.keyCount()).isEqualTo(g.keyCount());
            assertThat(f.valCount()).isEqualTo(g.valCount());
            assertThat(f.updateCount()).isEqualTo(g.updateCount());
            assertThat(f.description()).isEqualTo(g.description());
        }
    }
}
