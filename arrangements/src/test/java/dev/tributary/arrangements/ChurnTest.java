package dev.tributary.arrangements;

import static dev.tributary.arrangements.TestColumns.add;
import static dev.tributary.arrangements.TestColumns.column;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A trace under churn (a fixed number of live records; each step inserts fresh ones and retracts
 * as many of the oldest, with the since following the time) keeps its top level to one batch:
 * the batches a probe for a live key searches, counting each batch's keys against the live keys,
 * stay few, where they grew to several whole copies of the keys when the top level filled like
 * any other. The trace also reads exactly the live records, and no insertion waits on a large
 * merge. Both for (long, long) traces, which merge four batches at once, and for traces of other
 * columns, which merge pairs.
 */
class ChurnTest {
    private static final int LIVE = 50_000;
    private static final int PER_STEP = 50;
    private static final int STEPS = 6_000;

    @Test
    void aLongTraceKeepsOneTopBatch() {
        run(true);
    }

    @Test
    void aTraceOfOtherColumnsKeepsOneTopBatch() {
        run(false);
    }

    /** The trace's records, each key times 2^20 plus its value, with their summed diffs, checked against {@code live} (sorted); returns the distinct keys. */
    private static int checkContents(TraceHandle trace, long[] live, long[] scratch) {
        System.arraycopy(live, 0, scratch, 0, live.length);
        java.util.Arrays.sort(scratch);
        int at = 0;
        int keys = 0;
        Cursor c = trace.cursor();
        while (c.keyValid()) {
            long k = (Long) c.keyColumn().get(c.keyIndex());
            boolean any = false;
            while (c.valValid()) {
                long record = k << 20 | (Long) c.valColumn().get(c.valIndex());
                long[] sum = new long[1];
                c.forEachTime((t, off, d) -> sum[0] += d);
                for (long i = 0; i < sum[0]; i++) {
                    assertThat(at).as("more records than live").isLessThan(scratch.length);
                    assertThat(record).isEqualTo(scratch[at++]);
                }
                assertThat(sum[0]).as("record %d's count", record).isGreaterThanOrEqualTo(0);
                any |= sum[0] > 0;
                c.stepVal();
            }
            if (any) keys++;
            c.stepKey();
        }
        assertThat(at).as("records read").isEqualTo(live.length);
        return keys;
    }

    private static void run(boolean longs) {
        TraceHandle trace = Trace.create("churn", column(longs), column(longs), 1);
        trace.setPhysicalCompaction(Antichain.empty(1));
        Batcher batcher = new Batcher(column(longs), column(longs), 1);
        SplittableRandom random = new SplittableRandom(11);
        long[] live = new long[LIVE];
        Updates load = new Updates(column(longs), column(longs), 1);
        for (int i = 0; i < LIVE; i++) {
            live[i] = (long) random.nextInt(LIVE) << 20 | random.nextInt(1 << 20);
            add(load.keys(), live[i] >>> 20);
            add(load.vals(), live[i] & 0xFFFFF);
            load.push(0, 1);
        }
        batcher.push(load);
        trace.trace().insert(batcher.seal(Antichain.of(1)));
        trace.setLogicalCompaction(Antichain.of(1));
        long[] scratch = new long[LIVE];
        int liveKeys = checkContents(trace, live, scratch);
        int next = 0;
        double worst = 0;
        double total = 0;
        int samples = 0;
        for (int t = 1; t <= STEPS; t++) {
            Updates u = new Updates(column(longs), column(longs), 1);
            for (int i = 0; i < PER_STEP; i++) {
                add(u.keys(), live[next] >>> 20);
                add(u.vals(), live[next] & 0xFFFFF);
                u.push(t, -1);
                live[next] = (long) random.nextInt(LIVE) << 20 | random.nextInt(1 << 20);
                add(u.keys(), live[next] >>> 20);
                add(u.vals(), live[next] & 0xFFFFF);
                u.push(t, 1);
                next = (next + 1) % LIVE;
            }
            batcher.push(u);
            trace.trace().insert(batcher.seal(Antichain.of(t + 1)));
            trace.setLogicalCompaction(Antichain.of(t + 1));
            if (t % 500 == 0) liveKeys = checkContents(trace, live, scratch);
            if (t > STEPS / 3) {
                long held = 0;
                for (int k : trace.batchKeyCounts()) held += k;
                double perKey = (double) held / liveKeys;
                worst = Math.max(worst, perKey);
                total += perKey;
                samples++;
            }
        }
        checkContents(trace, live, scratch);
        System.out.printf("churn (%s): mean %.2f batch keys per live key, worst %.2f; most merge work one insertion did %d; forced %d%n",
                longs ? "longs" : "objects", total / samples, worst, trace.trace().maxInsertWork(), trace.trace().forcedMergeWork());
        // with the top level filling like the others: a mean of 2.81 (longs) and 2.61 (objects),
        // at worst 3.84 and 3.07; with the top batch taking in the merges below it, 1.54 and
        // 1.69, at worst 1.92 and 2.04; with merges finishing sooner (effort 16, where it was 4),
        // 1.42 and 1.45, at worst 1.80 and 1.80
        // (seeded, so exact: the bounds sit between the figures at effort 16 and at effort 4)
        assertThat(total / samples).as("the batches' keys per live key, on average over the last two thirds").isLessThan(1.5);
        assertThat(worst).as("the batches' keys per live key, at worst over the last two thirds").isLessThan(1.9);
        // fuelled merges: an insertion gives each merge in progress its fuel (the top merge
        // TOP_FUEL times as much) and no more, never a whole merge at once: at most the fuel of a handful
        // of merges, and far less than merging the trace
        long fuel = Spine.EFFORT << Spine.sizeClass(2 * PER_STEP);
        assertThat(trace.trace().forcedMergeWork()).as("merge work forced by an insertion").isZero();
        assertThat(trace.trace().maxInsertWork()).as("most merge work one insertion did").isLessThan((Spine.TOP_FUEL + 4) * fuel).isLessThan(LIVE / 2);
    }
}
