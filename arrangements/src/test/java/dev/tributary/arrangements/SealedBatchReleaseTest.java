package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The batches an arrangement sends are reused only once every reader has released them and the
 * trace has merged them away: a reader that keeps batches without releasing them reads them
 * unchanged however long it keeps them, and releasing a batch twice is refused.
 */
class SealedBatchReleaseTest {
    private static final int STEPS = 120;
    private static final int PER_STEP = 200;

    /** What a batch held when it arrived: its (key, val, time) -> diff. */
    private static TreeMap<String, Long> contents(Batch b) {
        TreeMap<String, Long> out = new TreeMap<>();
        Cursor c = b.cursor();
        while (c.keyValid()) {
            while (c.valValid()) {
                String kv = ((LongColumn) c.keyColumn()).getLong(c.keyIndex()) + "," + ((LongColumn) c.valColumn()).getLong(c.valIndex());
                c.forEachTime((t, off, d) -> out.put(kv + "@" + t[off], d));
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    /** A reader of the batches that reads each as it arrives, keeps it in {@code kept} (with its contents) and releases it when {@code release}. */
    private static Stream<ListContainer<Batch>> reader(Stream<ListContainer<Batch>> batches, boolean release, List<Batch> kept, List<TreeMap<String, Long>> seen) {
        Scope scope = batches.scope();
        OperatorBuilder b = scope.operator(release ? "releasing" : "keeping");
        InputPort<ListContainer<Batch>> in = b.input(batches, Pact.pipeline());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        b.build(() -> in.forEach((cap, msg) -> {
            for (Batch batch : msg) {
                kept.add(batch);
                seen.add(contents(batch));
                if (release) batch.release();
            }
        }));
        return out.stream();
    }

    private record Run(List<Batch> released, List<Batch> kept, List<TreeMap<String, Long>> keptSeen) {}

    /** Arranges a sliding window of random (long, long) records read by a releasing reader and, with {@code keeper}, one that never releases. */
    private static Run run(boolean keeper) {
        List<Batch> released = new ArrayList<>();
        List<Batch> kept = new ArrayList<>();
        List<TreeMap<String, Long>> keptSeen = new ArrayList<>();
        Timely.run(Config.workers(1), worker -> {
            record Handles(InputHandle<Updates> input, Probe probe) {}
            Handles h = worker.dataflow("release", scope -> {
                InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                Arrange.Arranged a = Arrange.arrange(in.stream(), "window", new LongColumn(), new LongColumn());
                // no reader of the trace: the operator's own handle lets it merge as the frontier moves
                a.trace().drop();
                Probe p = reader(a.batches(), true, released, new ArrayList<>()).probe();
                if (keeper) reader(a.batches(), false, kept, keptSeen);
                return new Handles(in, p);
            });
            SplittableRandom random = new SplittableRandom(3);
            long[][] window = new long[4][PER_STEP];
            for (long t = 0; t < STEPS; t++) {
                Updates u = h.input().staged();
                long[] slot = window[(int) (t % window.length)];
                for (int i = 0; i < PER_STEP; i++) {
                    if (t >= window.length) {
                        ((LongColumn) u.keys()).add(slot[i] >>> 8);
                        ((LongColumn) u.vals()).add(slot[i] & 0xFF);
                        u.push(t, -1);
                    }
                    slot[i] = random.nextInt(5000) << 8 | random.nextInt(4);
                    ((LongColumn) u.keys()).add(slot[i] >>> 8);
                    ((LongColumn) u.vals()).add(slot[i] & 0xFF);
                    u.push(t, 1);
                }
                h.input().advanceTo(t + 1);
                long done = t;
                worker.stepWhile(() -> h.probe().lessEqual(done));
            }
            h.input().close();
            worker.stepWhile(() -> !h.probe().isDone());
        });
        return new Run(released, kept, keptSeen);
    }

    @Test
    void batchesEveryReaderReleasedAreReused() {
        Run r = run(false);
        assertThat(r.released()).hasSize(STEPS);
        assertThat(r.released()).as("sealed batches released and merged away").anyMatch(Batch::recycled);
    }

    @Test
    void aReaderThatKeepsBatchesReadsThemUnchanged() {
        Run r = run(true);
        assertThat(r.kept()).hasSize(STEPS);
        for (int i = 0; i < r.kept().size(); i++) {
            Batch b = r.kept().get(i);
            assertThat(b.recycled()).as("%s is kept by a reader", b).isFalse();
            assertThat(contents(b)).as("%s as it arrived", b).isEqualTo(r.keptSeen().get(i));
        }
    }

    @Test
    void aBatchReleasedTwiceIsRefused() {
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        ((LongColumn) u.keys()).add(1);
        ((LongColumn) u.vals()).add(2);
        u.push(0, 1);
        batcher.push(u);
        Batch b = batcher.seal(dev.tributary.timely.Antichain.of(1));
        b.sendTo(1, true);
        b.release();
        assertThatThrownBy(b::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("released more times than it was sent");
    }
}
