package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * An import replays the trace up to its upper, and a reader of the import (a join) can read the
 * trace through what it received, however the trace merges meanwhile and whatever the handle it
 * was imported through allows.
 *
 * <p>Issue 23's worker crash ({@code ../shared/repro/join-batch-boundary.sql}): the server imports
 * through a read handle that needs no boundaries, and a quiet table's trace ends in empty batches.
 * The import skipped those, so a join acknowledged the end of the last non-empty batch, a boundary
 * nothing held; the trace merged it away, and the join's next read through it threw.
 */
class ImportBoundaryTest {
    private static Batch batchAt(Batcher batcher, SplittableRandom random, long time, int updates) {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (int i = 0; i < updates; i++) {
            ((LongColumn) u.keys()).add(random.nextInt(20));
            ((LongColumn) u.vals()).add(random.nextInt(3));
            u.push(time, 1);
        }
        batcher.push(u);
        return batcher.seal(Antichain.of(time + 1));
    }

    @Test
    void aReaderOfAnImportReachesTheUpperAndReadsThroughItWhileTheTraceMerges() {
        SplittableRandom random = new SplittableRandom(5);
        TraceHandle writer = Trace.create("quiet", new LongColumn(), new LongColumn(), 1);
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        long t = 0;
        for (; t < 8; t++) writer.trace().insert(batchAt(batcher, random, t, 5));
        for (; t < 12; t++) writer.trace().insert(batchAt(batcher, random, t, 0)); // a quiet table: empty batches
        long upperAtImport = t;
        // the server's read handle: history kept from the start, no boundary needed
        TraceHandle reader = writer.share();
        reader.setPhysicalCompaction(Antichain.empty(1));
        writer.setPhysicalCompaction(Antichain.of(upperAtImport));
        writer.setLogicalCompaction(Antichain.of(upperAtImport));

        List<Long> received = new ArrayList<>();
        TraceHandle[] joinShare = new TraceHandle[1];
        long[] end = {t};
        int[] dataflow = new int[1];
        Timely.run(Config.workers(1), w -> {
            Probe probe = w.dataflow("view", scope -> {
                dataflow[0] = scope.dataflowIndex();
                Arrange.Arranged imported = Arrange.importTrace(reader, scope, "quiet");
                joinShare[0] = imported.trace().share(); // what a join takes when it is built
                Probe p = imported.batches().probe();
                imported.batches().sink("acknowledge", Pact.pipeline(), (cap, batches) -> {
                    for (int i = 0; i < batches.size(); i++) received.add(batches.get(i).upper().get(0)[0]);
                });
                return p;
            });
            w.stepWhile(() -> probe.lessThan(upperAtImport));
            assertThat(received).as("uppers of the batches the import replayed").isNotEmpty();
            assertThat(received.get(received.size() - 1)).as("the last replayed batch ends at the trace's upper").isEqualTo(upperAtImport);

            // the trace goes on: more batches, merged as far as any handle lets them
            for (long s = end[0]; s < end[0] + 40; s++) {
                writer.trace().insert(batchAt(batcher, random, s, random.nextInt(3)));
                writer.setPhysicalCompaction(Antichain.of(s + 1));
                writer.setLogicalCompaction(Antichain.of(s + 1));
                while (writer.trace().exert(1 << 20)) {
                    // merge all that may be merged
                }
            }
            // the join has acknowledged what it received and reads through it
            long checksum = 0;
            Cursor c = joinShare[0].cursorThrough(Antichain.of(upperAtImport));
            while (c.keyValid()) {
                while (c.valValid()) {
                    long[] sum = {0};
                    c.forEachTime((time, off, d) -> sum[0] += d);
                    checksum += sum[0];
                    c.stepVal();
                }
                c.stepKey();
            }
            assertThat(checksum).as("updates read through the import's upper").isEqualTo(8 * 5);
            joinShare[0].drop();
            w.dropDataflow(dataflow[0]); // the import would follow the trace for as long as it lives
        });
    }
}
