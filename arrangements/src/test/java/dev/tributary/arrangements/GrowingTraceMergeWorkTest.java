package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A trace that only grows (an append-only table: distinct rows, one commit after another) pays
 * for its merges in copies of every row: each merge reads its inputs whole. This pins how many
 * times, on average, a row is read by merges over the trace's growth to 184 batches, with a
 * little fuel after each commit, and with its worker idle between commits (merging until the
 * trace reports no more work, as an arrange operator does while nothing else runs).
 */
class GrowingTraceMergeWorkTest {
    @Test
    void aGrowingTraceOfRowsReadsEachRowAFewTimes() {
        assertThat(readsPerRow(false)).as("merge reads per row").isLessThan(4.0);
    }

    @Test
    void idleMergesBetweenCommitsReadEachRowAFewTimesToo() {
        assertThat(readsPerRow(true)).as("merge reads per row, idle between commits").isLessThan(7.0);
    }

    private static double readsPerRow(boolean idle) {
        TraceHandle h = Trace.create("growing", new BytesColumn(), new UnitColumn(), 1);
        Batcher batcher = new Batcher(new BytesColumn(), new UnitColumn(), 1);
        SplittableRandom random = new SplittableRandom(26);
        int batches = 184;
        int rows = 5_000;
        byte[] row = new byte[100];
        for (int b = 0; b < batches; b++) {
            Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
            for (int i = 0; i < rows; i++) {
                random.nextBytes(row);
                ((BytesColumn) u.keys()).add(row);
                ((UnitColumn) u.vals()).add();
                u.push(b, 1);
            }
            batcher.push(u);
            h.trace().insert(batcher.seal(Antichain.of(b + 1)));
            h.setPhysicalCompaction(Antichain.of(b + 1));
            h.setLogicalCompaction(Antichain.of(b + 1));
            h.trace().exert(rows);
            for (int i = 0; idle && i < 1_000_000 && h.trace().exert(Trace.IDLE_FUEL); i++) {
                // the worker has nothing else to do until the next commit
            }
        }
        double perRow = (double) h.trace().mergeWork() / ((long) batches * rows);
        System.out.printf("merge work per row %.2f (idle %b), batches held %d%n", perRow, idle, h.trace().batches().size());
        return perRow;
    }
}
