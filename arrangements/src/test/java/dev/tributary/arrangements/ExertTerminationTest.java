package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.Probe;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@code Trace.exert} returns whether more work remains; the arrange operator re-activates itself
 * while it returns true. These are the smallest cases of a trace that claims work it will not do
 * (the shrunk counterexample of {@link TracePropertyTest#exertEventuallyReportsNoMoreWork}).
 */
class ExertTerminationTest {
    /**
     * Two batches that were not merged on insertion (sizes 3 and 1 land on different levels), the
     * handle's logical compaction advanced, its physical frontier left at the start: idle merging
     * may not erase the boundary between the batches, so there is no work exert may do, yet the
     * older batch is not compacted to the new since and exert keeps returning true.
     */
    @Test
    void exertStopsClaimingWorkItMayNotDo() {
        TraceHandle h = Trace.create("t", new LongColumn(), new LongColumn(), 1);
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        List<Update> updates = List.of(
                new Update(1, 0, new long[] {0}, 1), new Update(1, 1, new long[] {0}, 1), new Update(1, 2, new long[] {0}, 1),
                new Update(2, 0, new long[] {1}, 1));
        batcher.push(Model.longUpdates(updates));
        h.trace().insert(batcher.seal(Antichain.of(1)));
        h.trace().insert(batcher.seal(Antichain.of(2)));
        h.setLogicalCompaction(Antichain.of(1));

        int calls = 0;
        while (h.trace().exert(1_000) && calls < 1_000) calls++;
        List<Batch> batches = h.trace().batches();
        assertThat(Model.readAt(h, new long[] {1}, Codec.LONG, Codec.LONG)).isEqualTo(Model.accumulate(updates, new long[] {1}));
        assertThat(calls)
                .as("exert kept returning true without changing the trace: %s, batches %s, physical %s", h.trace(), batches, h.physicalCompaction())
                .isLessThan(1_000);
    }

    record Handles(InputHandle<Updates> input, Arrange.Arranged arranged, Probe probe) {}

    /**
     * A dataflow whose arrangement is still held, with its logical compaction advanced, completes
     * once its input is closed: the arrange operator stops re-activating itself when merging is done.
     */
    @Test
    void arrangementHeldWithAdvancedLogicalCompactionLetsTheDataflowComplete() {
        AtomicBoolean completed = new AtomicBoolean();
        Dataflows.runWithin(Duration.ofSeconds(20), Config.workers(1), worker -> {
            Handles h = worker.dataflow("arrange", scope -> {
                InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                Arrange.Arranged a = Arrange.arrange(in.stream(), "held", new LongColumn(), new LongColumn());
                return new Handles(in, a, a.batches().probe());
            });
            long[][] input = {{1, 0, 0}, {1, 1, 0}, {1, 2, 0}, {2, 0, 1}};
            for (long[] r : input) {
                h.input().advanceTo(r[2]);
                Updates staged = h.input().staged();
                ((LongColumn) staged.keys()).add(r[0]);
                ((LongColumn) staged.vals()).add(r[1]);
                staged.push(r[2], 1);
            }
            h.input().advanceTo(2);
            worker.stepWhile(() -> h.probe().lessEqual(1));
            h.arranged().trace().setLogicalCompaction(Antichain.of(1));
            h.input().close();
            // One worker, nothing in flight: a few rounds complete the dataflow; 10,000 is far more than enough.
            for (int round = 0; round < 10_000 && !worker.isIdle(); round++) worker.step();
            completed.set(worker.isIdle());
            // Let the run finish either way.
            h.arranged().trace().drop();
        });
        assertThat(completed).as("the dataflow completed within 10,000 rounds of its input closing while a handle was held").isTrue();
    }
}
