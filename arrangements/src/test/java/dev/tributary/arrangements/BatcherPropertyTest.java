package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Histories.History;
import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The batcher against the model: every sealed batch is sorted, consolidated and holds exactly the
 * input updates whose times lie in its description; descriptions chain; what is not sealed stays
 * buffered, and sealed plus buffered is the input.
 */
class BatcherPropertyTest {
    @Provide
    Arbitrary<History> histories() {
        return Histories.arity1(Arbitraries.longs().between(-2, 2));
    }

    @Property(seed = "20240611")
    void sealedBatchesHoldExactlyTheirRangeSortedAndConsolidated(@ForAll("histories") History h) {
        check(h, new Batcher(h.keys().column(), h.vals().column(), h.arity()), false);
    }

    /** The same with a batcher that consolidates its buffer whenever it reaches four updates and twice its last consolidated size: it may buffer fewer updates, never other ones. */
    @Property(seed = "20261201")
    void consolidatingTheBufferEarlyChangesNoBatch(@ForAll("histories") History h) {
        check(h, new Batcher(h.keys().column(), h.vals().column(), h.arity(), 4, false), true);
    }

    /** Whether the batcher may spill its buffer into sorted runs ({@link Paging} on): it then counts consolidated updates and holds a frontier at or below theirs. */
    boolean spilling() {
        return false;
    }

    private void check(History h, Batcher batcher, boolean compacting) {
        List<Antichain> previousUpper = new ArrayList<>(List.of(Antichain.of(0)));
        List<Batch> batches = Histories.feed(h, batcher, (step, batch, b, pushed) -> {
            Model.checkBatch(batch, h.keys(), h.vals());
            assertThat(batch.lower()).as("batch %d lower is the previous upper", step).isEqualTo(previousUpper.get(0));
            assertThat(batch.upper()).as("batch %d upper is the sealed frontier", step).isEqualTo(h.uppers().get(step));
            assertThat(b.lower()).as("the batcher's next lower").isEqualTo(batch.upper());
            previousUpper.set(0, batch.upper());

            List<Update> inBatch = Model.updatesOf(batch, h.keys(), h.vals());
            assertThat(inBatch).hasSize(batch.updateCount());
            assertThat(Model.consolidate(inBatch))
                    .as("batch %s holds the consolidated updates of its range", batch)
                    .isEqualTo(Model.consolidate(Model.within(h.updates(), batch.lower(), batch.upper())));

            List<Update> waiting = new ArrayList<>();
            for (Update u : pushed) {
                if (batch.upper().lessEqual(u.time())) waiting.add(u);
            }
            if (spilling()) {
                // spilled runs are consolidated, and their least time is known from below: a frontier that holds every waiting update
                assertThat(b.buffered()).as("updates still buffered after sealing %s", batch.upper()).isLessThanOrEqualTo(waiting.size());
                // (updates that cancel need no holding)
                List<long[]> surviving = Model.consolidate(waiting).keySet().stream().map(e -> e.time().stream().mapToLong(Long::longValue).toArray()).toList();
                assertThat(b.pendingFrontier().dominates(Antichain.fromTimes(h.arity(), surviving)))
                        .as("pending frontier %s at or before the times of the waiting updates that do not cancel", b.pendingFrontier()).isTrue();
            } else if (compacting) {
                // consolidated early, the buffer holds at most the waiting updates, and exactly their times but those that cancelled
                assertThat(b.buffered()).as("updates still buffered after sealing %s", batch.upper()).isLessThanOrEqualTo(waiting.size());
                assertThat(Antichain.fromTimes(h.arity(), waiting.stream().map(Update::time).toList()).dominates(b.pendingFrontier()))
                        .as("pending frontier %s within the waiting updates' times", b.pendingFrontier()).isTrue();
            } else {
                assertThat(b.buffered()).as("updates still buffered after sealing %s", batch.upper()).isEqualTo(waiting.size());
                assertThat(b.pendingFrontier()).isEqualTo(Antichain.fromTimes(h.arity(), waiting.stream().map(Update::time).toList()));
            }
        });

        // What stays buffered is sealed by the empty frontier; with the sealed batches it is the input.
        Batch rest = batcher.seal(Antichain.empty(1));
        Model.checkBatch(rest, h.keys(), h.vals());
        assertThat(rest.lower()).isEqualTo(previousUpper.get(0));
        assertThat(batcher.buffered()).isZero();
        List<Update> all = new ArrayList<>(Model.updatesOf(batches, h.keys(), h.vals()));
        all.addAll(Model.updatesOf(rest, h.keys(), h.vals()));
        assertThat(Model.consolidate(all)).isEqualTo(Model.consolidate(h.updates()));
    }

    @Test
    void sealSortsConsolidatesAndKeepsLaterUpdates() {
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        long[][] input = {{5, 1, 3, 1}, {2, 9, 1, 1}, {2, 9, 1, -1}, {2, 1, 0, 4}, {2, 1, 1, 1}, {2, 1, 0, 2}, {7, 0, 2, 1}};
        for (long[] r : input) {
            ((LongColumn) u.keys()).add(r[0]);
            ((LongColumn) u.vals()).add(r[1]);
            u.push(r[2], r[3]);
        }
        batcher.push(u);
        Batch b = batcher.seal(Antichain.of(3));
        Model.checkBatch(b, Codec.LONG, Codec.LONG);
        assertThat(Model.updatesOf(b, Codec.LONG, Codec.LONG).toString()).isEqualTo("[(2, 1, 0, 6), (2, 1, 1, 1), (7, 0, 2, 1)]");
        assertThat(b.keyCount()).isEqualTo(2);
        assertThat(b.valCount()).isEqualTo(2);
        assertThat(batcher.buffered()).isEqualTo(1);
        assertThat(batcher.pendingFrontier()).isEqualTo(Antichain.of(3));
        Batch next = batcher.seal(Antichain.of(4));
        assertThat(next.lower()).isEqualTo(Antichain.of(3));
        assertThat(Model.updatesOf(next, Codec.LONG, Codec.LONG).toString()).isEqualTo("[(5, 1, 3, 1)]");
    }

    @Test
    void manyUpdatesInReverseOrderAreSortedAcrossSortRuns() {
        // More than one insertion-sorted run of the index sort, fed in descending order.
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        List<Update> model = new ArrayList<>();
        for (int i = 200; i > 0; i--) {
            long key = i % 37;
            long val = i % 3;
            long time = i % 5;
            ((LongColumn) u.keys()).add(key);
            ((LongColumn) u.vals()).add(val);
            u.push(time, 1);
            model.add(new Update(key, val, new long[] {time}, 1));
        }
        batcher.push(u);
        Batch b = batcher.seal(Antichain.empty(1));
        Model.checkBatch(b, Codec.LONG, Codec.LONG);
        assertThat(Model.consolidate(Model.updatesOf(b, Codec.LONG, Codec.LONG))).isEqualTo(Model.consolidate(model));
    }

    /**
     * Three million updates to fourteen {@code (key, val, time)}s, pushed 4096 at a time as a
     * join's output would be: the buffer is consolidated as it grows, never holding much more than
     * {@link Batcher#COMPACT_MIN} (or, for byte-string keys with byte-string or unit values, which then combine
     * each update with its buffered copy, {@link Batcher#HASH_MIN}), and the batches are what they would have been.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} keys, {1} values")
    @org.junit.jupiter.params.provider.CsvSource({"LONG,LONG", "LONG,UNIT", "BYTES,STRINGS", "BYTES,BYTES", "BYTES,UNIT"})
    void aBufferOfFewDistinctUpdatesIsConsolidatedAsItGrows(Codec keys, Codec vals) {
        Batcher batcher = new Batcher(keys.column(), vals.column(), 1);
        int largest = 0;
        long[] expected = new long[14];
        for (int chunk = 0; chunk < 3_000_000 / 4096; chunk++) {
            Updates u = new Updates(keys.column(), vals.column(), 1);
            for (int i = 0; i < 4096; i++) {
                int r = (chunk * 4096 + i) % 14;
                keys.add(u.keys(), r % 7);
                vals.add(u.vals(), 0);
                long diff = r % 3 == 0 ? -1 : 2;
                u.push(r / 7, diff);
                expected[r] += diff;
            }
            batcher.push(u);
            largest = Math.max(largest, batcher.buffered());
        }
        if (keys == Codec.BYTES && (vals == Codec.BYTES || vals == Codec.UNIT)) {
            // byte-string records combine their repeats as they come, once a sample of the first ones says so
            assertThat(largest).as("largest buffer").isLessThan(Batcher.HASH_MIN + 4096);
            assertThat(batcher.consolidations).as("early consolidations").isEqualTo(1);
        } else {
            assertThat(largest).as("largest buffer").isLessThan(Batcher.COMPACT_MIN + 4096);
            assertThat(batcher.consolidations).as("early consolidations").isEqualTo(2);
        }
        Batch first = batcher.seal(Antichain.of(1));
        Batch second = batcher.seal(Antichain.of(2));
        List<String> got = new ArrayList<>();
        for (Update x : Model.updatesOf(List.of(first, second), keys, vals)) got.add(x.toString());
        List<String> want = new ArrayList<>();
        for (int time = 0; time < 2; time++) {
            for (int key = 0; key < 7; key++) {
                long d = expected[time * 7 + key];
                if (d != 0) want.add("(" + key + ", 0, " + time + ", " + d + ")");
            }
        }
        assertThat(got).isEqualTo(want);
    }

    /**
     * Seals larger than {@link Batcher#GATHER_MIN} copy their records into sorted order first, the
     * times and diffs too unless every record is at one time with diff 1: byte-string records in
     * random order, repeated, at one time with unit diffs, with one other diff, and at two times
     * of which the seal takes one, give the batches a model of sorting and consolidating gives.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"one time, unit diffs", "one other diff", "two times"})
    void largeSealsGatherTheirRecordsInOrder(String variant) {
        java.util.Random random = new java.util.Random(variant.hashCode());
        Batcher batcher = new Batcher(Codec.BYTES.column(), Codec.BYTES.column(), 1);
        Updates u = new Updates(Codec.BYTES.column(), Codec.BYTES.column(), 1);
        List<Update> model = new ArrayList<>();
        int n = 3 * Batcher.GATHER_MIN;
        for (int i = 0; i < n; i++) {
            long key = random.nextInt(Model.Codec.DOMAIN);
            long val = random.nextInt(3);
            long time = variant.equals("two times") ? random.nextInt(2) : 0;
            long diff = variant.equals("one other diff") && i == n / 2 ? 3 : 1;
            Codec.BYTES.add(u.keys(), key);
            Codec.BYTES.add(u.vals(), val);
            u.push(time, diff);
            if (time == 0) model.add(new Update(key, val, new long[] {time}, diff));
        }
        batcher.push(u);
        Batch b = batcher.seal(Antichain.of(1));
        Model.checkBatch(b, Codec.BYTES, Codec.BYTES);
        assertThat(Model.consolidate(Model.updatesOf(b, Codec.BYTES, Codec.BYTES))).isEqualTo(Model.consolidate(model));
    }

    /** A buffer of distinct updates is sampled, found distinct and left alone: 1.5M updates stay 1.5M until the seal. */
    @Test
    void aBufferOfDistinctUpdatesIsNotConsolidatedEarly() {
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (int i = 0; i < 1_500_000; i++) {
            ((LongColumn) u.keys()).add(i * 7919L % 1_500_007);
            ((LongColumn) u.vals()).add(i);
            u.push(0, 1);
        }
        batcher.push(u);
        assertThat(batcher.buffered()).isEqualTo(1_500_000);
        assertThat(batcher.consolidations).as("early consolidations of distinct updates").isZero();
        Batch b = batcher.seal(Antichain.of(1));
        assertThat(b.updateCount()).isEqualTo(1_500_000);
        Model.checkBatch(b, Codec.LONG, Codec.LONG);
    }
}
