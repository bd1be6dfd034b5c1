package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An import replays the trace's batches once and then lets go of them: once the source's merges
 * have replaced them, nothing the importing dataflow keeps holds them. Before, the import's logic
 * kept the list it replayed for as long as the dataflow lived, so a view kept a second copy of
 * the table under it.
 */
class ImportReleaseTest {
    @Test
    void replayedBatchesAreNotKeptByTheImport() {
        Timely.run(Config.workers(1), worker -> {
            HeldStateTest.Built a = worker.dataflow("a", scope -> {
                InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                Arrange.Arranged arranged = Arrange.arrange(in.stream(), "a", new LongColumn(), new LongColumn(), Trace.UNFUELED);
                return new HeldStateTest.Built(in, arranged, arranged.batches().probe(), HeldState.of(scope));
            });
            push(worker, a, 0, 0);
            List<WeakReference<Batch>> replayed = new ArrayList<>();
            for (Batch b : a.arranged().trace().trace().batches()) replayed.add(new WeakReference<>(b));
            assertThat(replayed).isNotEmpty();
            Arrange.Arranged[] imported = new Arrange.Arranged[1];
            Probe p = worker.dataflow("b", scope -> {
                imported[0] = Arrange.importTrace(a.arranged().trace(), scope, "a");
                return imported[0].batches().probe();
            });
            worker.stepWhile(() -> p.lessEqual(0));
            imported[0].trace().drop(); // the reader needs no history: the source may merge freely
            a.arranged().trace().setLogicalCompaction(dev.tributary.timely.Antichain.of(new long[] {8}));
            a.arranged().trace().setPhysicalCompaction(dev.tributary.timely.Antichain.of(new long[] {8}));
            for (long t = 1; t < 8; t++) push(worker, a, t, 100 * t);
            for (int i = 0; i < 1000; i++) worker.step();
            for (int i = 0; i < 3; i++) System.gc();
            assertThat(replayed).as("the replayed batches, merged away in the source").allMatch(r -> r.get() == null);
            a.input().close();
            a.arranged().trace().drop();
        });
    }

    private static void push(dev.tributary.timely.Worker worker, HeldStateTest.Built a, long t, long first) {
        Updates u = a.input().staged();
        for (long k = first; k < first + 50; k++) {
            ((LongColumn) u.keys()).add(k);
            ((LongColumn) u.vals()).add(k);
            u.push(t, 1);
        }
        a.input().advanceTo(t + 1);
        worker.stepWhile(() -> a.probe().lessEqual(t));
    }
}
