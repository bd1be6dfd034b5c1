package dev.tributary.arrangements;

import static dev.tributary.arrangements.TestColumns.add;
import static dev.tributary.arrangements.TestColumns.column;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Model.KeyVal;
import dev.tributary.timely.Antichain;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A sliding window (each step inserts fresh records and retracts those inserted {@code WINDOW}
 * steps earlier, with the since following the time) reads exactly the live records at every step,
 * and the trace stays within a few times the live records: merges whose results shrink keep them
 * at their level, where the retractions of the next batches meet them, instead of leaving
 * cancelled-out history at ever higher levels. Both for (long, long) traces, which merge four
 * batches at once, and for traces of other columns, which merge pairs.
 */
class SlidingWindowTest {
    private static final int WINDOW = 10;
    private static final int PER_STEP = 300;
    private static final int STEPS = 400;

    @Test
    void aLongTraceHoldsAFewTimesTheLiveRecords() {
        run(true);
    }

    @Test
    void aTraceOfOtherColumnsHoldsAFewTimesTheLiveRecords() {
        run(false);
    }

    /** Every (key, val) of the trace with its diffs summed over all times (all are at or before the read time). */
    private static SortedMap<KeyVal, Long> contents(TraceHandle trace) {
        SortedMap<KeyVal, Long> out = new TreeMap<>();
        Cursor c = trace.cursor();
        while (c.keyValid()) {
            long k = (Long) c.keyColumn().get(c.keyIndex());
            while (c.valValid()) {
                KeyVal kv = new KeyVal(k, (Long) c.valColumn().get(c.valIndex()));
                c.forEachTime((t, off, d) -> out.merge(kv, d, (a, b) -> a + b == 0 ? null : a + b));
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    private static void run(boolean longs) {
        TraceHandle trace = Trace.create("window", column(longs), column(longs), 1);
        trace.setPhysicalCompaction(Antichain.empty(1));
        Batcher batcher = new Batcher(column(longs), column(longs), 1);
        SplittableRandom random = new SplittableRandom(5);
        long[][] keys = new long[WINDOW][PER_STEP];
        long[][] vals = new long[WINDOW][PER_STEP];
        SortedMap<KeyVal, Long> live = new TreeMap<>();
        long maxHeld = 0;
        for (int t = 0; t < STEPS; t++) {
            Updates u = new Updates(column(longs), column(longs), 1);
            int slot = t % WINDOW;
            for (int i = 0; i < PER_STEP; i++) {
                if (t >= WINDOW) {
                    add(u.keys(), keys[slot][i]);
                    add(u.vals(), vals[slot][i]);
                    u.push(t, -1);
                    live.merge(new KeyVal(keys[slot][i], vals[slot][i]), -1L, (a, b) -> a + b == 0 ? null : a + b);
                }
                keys[slot][i] = random.nextInt(5000);
                vals[slot][i] = random.nextInt(10);
                add(u.keys(), keys[slot][i]);
                add(u.vals(), vals[slot][i]);
                u.push(t, 1);
                live.merge(new KeyVal(keys[slot][i], vals[slot][i]), 1L, (a, b) -> a + b == 0 ? null : a + b);
            }
            batcher.push(u);
            trace.trace().insert(batcher.seal(Antichain.of(t + 1)));
            trace.setLogicalCompaction(Antichain.of(t + 1));
            if (t % 37 == 0) assertThat(contents(trace)).as("step %d", t).isEqualTo(live);
            if (t >= STEPS / 2) maxHeld = Math.max(maxHeld, trace.trace().updateCount());
        }
        assertThat(contents(trace)).isEqualTo(live);
        // the live records are WINDOW * PER_STEP; this holds 2-4 times that, and held 10-14 times
        // that when every merge result moved up a level however much it had shrunk
        assertThat(maxHeld).as("most updates held in the second half").isLessThan(5L * WINDOW * PER_STEP);
    }
}
