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
        agreeWithTheGeneralMerge(new Random(11), 300, 60, 8, 4);
    }

    /** Few keys and values and many updates: time runs long enough to be copied in bulk. */
    @Test
    void agreesWithTheGeneralMergeOnLongTimeRuns() {
        agreeWithTheGeneralMerge(new Random(12), 100, 400, 3, 2);
    }

    /** Many keys with a single update each: the straight-line copy of a one-update key. */
    @Test
    void agreesWithTheGeneralMergeOnSingleUpdateKeys() {
        agreeWithTheGeneralMerge(new Random(13), 100, 300, 1000, 3);
    }

    private static void agreeWithTheGeneralMerge(Random r, int rounds, int maxUpdates, int keyCount, int valCount) {
        for (int round = 0; round < rounds; round++) {
            int n = 1 + r.nextInt(maxUpdates);
            long split = 1 + r.nextInt(10);
            long end = split + 1 + r.nextInt(10);
            List<long[]> first = new ArrayList<>();
            List<long[]> second = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long key = r.nextInt(keyCount);
                long val = r.nextInt(valCount);
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

    /** The updates {@code (key, val, time, diff)} of the {@code b}-th input, at times in {@code [lower, upper)}. */
    private interface InputUpdates {
        List<long[]> of(int b, long lower, long upper);
    }

    /**
     * Merges {@code inputs} adjacent batches made by {@code updates} on the (long, long) path, fed
     * at most {@code maxFuel} at a time (resuming must not change the result) into an output
     * sized for {@code expected} of them, and on the general path at once; asserts the two agree
     * and returns the (long, long) path's inputs.
     */
    private static List<Batch> assertMergesAgree(Random r, int round, int inputs, InputUpdates updates, double expected, int maxFuel) {
        Comparator<Long> natural = Comparator.naturalOrder();
        List<Batch> fast = new ArrayList<>();
        List<Batch> general = new ArrayList<>();
        long lower = 0;
        for (int b = 0; b < inputs; b++) {
            long upper = lower + 1 + r.nextInt(4);
            long[][] u = updates.of(b, lower, upper).toArray(new long[0][]);
            fast.add(batch(new LongColumn(), new LongColumn(), u, lower, upper));
            general.add(batch(new ObjectColumn<>(natural), new ObjectColumn<>(natural), u, lower, upper));
            lower = upper;
        }
        long since = r.nextInt((int) lower + 2);
        Merger f = new Merger(new ArrayList<>(fast), Antichain.of(since), expected);
        while (!f.isDone()) f.work(1 + r.nextInt(maxFuel));
        Batch g = new Merger(general, Antichain.of(since)).finish();
        assertThat(contents(f.result())).as("round %d", round).isEqualTo(contents(g));
        assertThat(f.result().keyCount()).isEqualTo(g.keyCount());
        assertThat(f.result().valCount()).isEqualTo(g.valCount());
        assertThat(f.result().updateCount()).isEqualTo(g.updateCount());
        assertThat(f.result().description()).isEqualTo(g.description());
        return fast;
    }

    /**
     * The one-pass merge of several batches (the spine merges four at a level) against the
     * general path (both one pass, through different code): keys, values and times shared by two,
     * three or all inputs, with and without advancing by the since, small keys and keys with long
     * time runs.
     */
    @Test
    void aMergeOfSeveralBatchesAgreesWithTheGeneralMerge() {
        Random r = new Random(15);
        for (int round = 0; round < 300; round++) {
            // now and then more inputs than the small scratch holds, as a roll-up of many levels
            // merges, each with one update of the same few keys
            boolean many = round % 10 == 0;
            int inputs = many ? 20 : 2 + r.nextInt(5);
            int keyCount = many ? 1 + r.nextInt(2) : 1 + r.nextInt(round % 3 == 0 ? 4 : 40);
            int perInput = many ? 1 : r.nextInt(round % 5 == 0 ? 200 : 20);
            // an output sized for fewer updates than survive must grow
            double expected = round % 3 == 0 ? 0 : round % 3 == 1 ? 0.3 : 1;
            assertMergesAgree(r, round, inputs, (b, lower, upper) -> {
                List<long[]> updates = new ArrayList<>();
                int count = many ? 1 : r.nextInt(perInput + 1);
                for (int i = 0; i < count; i++) {
                    long time = lower + r.nextInt((int) (upper - lower));
                    updates.add(new long[] {r.nextInt(keyCount), r.nextInt(3), time, r.nextBoolean() ? 1 : -1});
                }
                return updates;
            }, expected, 7);
        }
    }

    /**
     * A flat batch (one value and one update per key, as a count's top batch) merged with others:
     * its keys are copied without reading its offsets, a run at a time up to the next key of any
     * other input, as far as the output has room and the fuel lasts; a long run at once when it
     * holds most of the keys. Against the general path, with the flat batch oldest or not, as
     * large as the others or larger, its times before and after the since, outputs sized too
     * small, and little fuel or much.
     */
    @Test
    void aFlatBatchMergesLikeAnyOther() {
        Random r = new Random(16);
        int flatSeen = 0;
        for (int round = 0; round < 200; round++) {
            int inputs = 2 + r.nextInt(3);
            int flatAt = r.nextInt(inputs);
            int keyRange = 50 + r.nextInt(2000);
            double expected = round % 3 == 0 ? 0 : round % 3 == 1 ? 0.3 : 1;
            List<Batch> fast = assertMergesAgree(r, round, inputs, (b, lower, upper) -> {
                List<long[]> updates = new ArrayList<>();
                if (b == flatAt) {
                    // each key at most once: one value, one update
                    for (long key = 0; key < keyRange; key++) {
                        if (r.nextInt(3) > 0) updates.add(new long[] {key, r.nextInt(5), lower + r.nextInt((int) (upper - lower)), 1 + r.nextInt(3)});
                    }
                } else {
                    int count = r.nextInt(1 + keyRange / (1 + r.nextInt(8)));
                    for (int i = 0; i < count; i++) {
                        updates.add(new long[] {r.nextInt(keyRange + 10), r.nextInt(5), lower + r.nextInt((int) (upper - lower)), r.nextBoolean() ? 1 : -1});
                    }
                }
                return updates;
            }, expected, round % 2 == 0 ? 7 : 500);
            Batch flat = fast.get(flatAt);
            if (flat.oneValPerKey && flat.oneUpdatePerVal && flat.keyCount() > 0) flatSeen++;
        }
        assertThat(flatSeen).as("rounds with a flat input").isEqualTo(200);
    }

    /**
     * Merges reuse scratch arrays on their thread: a batch built earlier must read the same after
     * any number of later merges, including merges whose results shrank (their scratch went back
     * to the pool and was written again).
     */
    @Test
    void laterMergesNeverChangeAnEarlierResult() {
        Random r = new Random(14);
        List<Batch> results = new ArrayList<>();
        List<List<String>> seen = new ArrayList<>();
        for (int round = 0; round < 60; round++) {
            int n = 300 + r.nextInt(2000);
            List<long[]> first = new ArrayList<>();
            List<long[]> second = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long key = r.nextInt(400);
                long val = r.nextInt(3);
                first.add(new long[] {key, val, 0, 1});
                // retract about half of them: the result is smaller than its scratch
                if (r.nextBoolean()) second.add(new long[] {key, val, 1, -1});
            }
            Batch a = batch(new LongColumn(), new LongColumn(), first.toArray(new long[0][]), 0, 1);
            Batch b = batch(new LongColumn(), new LongColumn(), second.toArray(new long[0][]), 1, 2);
            Batch merged = new Merger(a, b, Antichain.of(2)).finish();
            results.add(merged);
            seen.add(contents(merged));
        }
        for (int i = 0; i < results.size(); i++) assertThat(contents(results.get(i))).as("result %d", i).isEqualTo(seen.get(i));
    }
}
