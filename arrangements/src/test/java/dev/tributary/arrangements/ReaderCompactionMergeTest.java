package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A reader's compaction moving after the arrangement's input has stopped: the merges it allows
 * run in the worker's idle steps, though no input schedules the arrange operator any more. (An
 * idle windowed query once kept its expired rows and their retractions, 184,002 updates where
 * 2 were left after merging, until its next input came.)
 */
class ReaderCompactionMergeTest {
    record Handles(InputHandle<Updates> input, Arrange.Arranged arranged, Probe probe) {}

    @Test
    void anIdleArrangementMergesWhatAReadersCompactionAllows() {
        AtomicLong held = new AtomicLong(-1);
        AtomicLong heldBefore = new AtomicLong(-1);
        Timely.run(Config.workers(1), worker -> {
            Handles h = worker.dataflow("arrange", scope -> {
                InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                Arrange.Arranged a = Arrange.arrange(in.stream(), "test", new LongColumn(), new LongColumn());
                return new Handles(in, a, a.batches().probe());
            });
            TraceHandle reader = h.arranged().trace();
            for (long t = 0; t < 2; t++) {
                Updates u = h.input().staged();
                for (int k = 0; k < 1_000; k++) {
                    ((LongColumn) u.keys()).add(k);
                    ((LongColumn) u.vals()).add(0);
                    u.push(t, t == 0 ? 1 : -1);
                }
                h.input().advanceTo(t + 1);
                long done = t;
                worker.stepWhile(() -> h.probe().lessEqual(done));
            }
            Trace trace = reader.trace();
            // the reader still reads at time 0: the insertions and their retractions stay apart
            for (int i = 0; i < 10_000 && trace.merging(); i++) worker.step();
            heldBefore.set(trace.updateCount());
            reader.setLogicalCompaction(Antichain.of(2));
            reader.setPhysicalCompaction(Antichain.of(2));
            for (int i = 0; i < 10_000 && trace.merging(); i++) worker.step();
            held.set(trace.updateCount());
            reader.drop();
        });
        assertThat(heldBefore.get()).as("updates held while the reader reads at 0").isEqualTo(2_000);
        assertThat(held.get()).as("updates held once the reader's compaction passed the retractions and the worker idled").isZero();
    }
}
