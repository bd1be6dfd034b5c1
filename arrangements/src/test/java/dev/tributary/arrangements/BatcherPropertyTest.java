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
        Batcher batcher = new Batcher(h.keys().column(), h.vals().column(), h.arity());
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
            assertThat(b.buffered()).as("updates still buffered after sealing %s", batch.upper()).isEqualTo(waiting.size());
            assertThat(b.pendingFrontier()).isEqualTo(Antichain.fromTimes(h.arity(), waiting.stream().map(Update::time).toList()));
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
}
