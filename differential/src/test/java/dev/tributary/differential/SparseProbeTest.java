package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Joins and reduces whose new batches have a few keys against traces of tens of thousands: the
 * sparse case, in which they look each key up exactly after preparing the trace's cursor
 * ({@link Seeks}). Each worker's share of the trace is large enough for its batch to search the
 * probes at once, and half the new keys are absent from it, so the batch also gets a key filter
 * after some steps. The output at every time is checked against recomputation from the inputs.
 */
class SparseProbeTest {
    private static final int KEYS = 40_000;
    private static final int STEPS = 30;
    /** New left records per step and worker: half with keys of the right side, half with keys beyond them. */
    private static final int PER_STEP = 20;

    private static long record(long key, long val) {
        return key << 20 | val;
    }

    private static Arrangement<Long, Long> byKey(Collection<Long> c) {
        return c.arrangeByKey(x -> x >>> 20, DataType.longs(), x -> x & 0xFFFFF, DataType.longs());
    }

    @Test
    void fewKeysMeetALargeTrace() {
        assertThat(Seeks.sparse(KEYS / Seeks.SPARSE_GAP, batchOfKeys(KEYS).keyCount())).isTrue();
        assertThat(Seeks.sparse(KEYS / Seeks.SPARSE_GAP + 1, batchOfKeys(KEYS).keyCount())).isFalse();
        for (int workers = 1; workers <= 2; workers++) {
            List<SmokeTest.Upd<Long>> joined = Collections.synchronizedList(new ArrayList<>());
            List<SmokeTest.Upd<Long>> counted = Collections.synchronizedList(new ArrayList<>());
            List<long[]> leftLog = Collections.synchronizedList(new ArrayList<>());
            Timely.run(Config.workers(workers), w -> {
                List<InputSession<Long>> sessions = new ArrayList<>();
                List<Probe> probes = new ArrayList<>();
                w.dataflow("sparse", scope -> {
                    InputSession<Long> left = InputSession.create(scope, "left", DataType.longs());
                    InputSession<Long> right = InputSession.create(scope, "right", DataType.longs());
                    sessions.add(left);
                    sessions.add(right);
                    Arrangement<Long, Long> a = byKey(left.collection());
                    Arrangement<Long, Long> b = byKey(right.collection());
                    probes.add(a.joinLongs(b, (k, v1, v2) -> k * 1_000_000 + v1 * 1000 + v2)
                            .inspect((d, t, diff) -> joined.add(new SmokeTest.Upd<>(d, t[0], diff))).probe());
                    probes.add(a.count().flatten((k, n) -> k * 1000 + n, DataType.longs())
                            .inspect((d, t, diff) -> counted.add(new SmokeTest.Upd<>(d, t[0], diff))).probe());
                    return null;
                });
                InputSession<Long> left = sessions.get(0);
                InputSession<Long> right = sessions.get(1);
                for (int k = w.index(); k < KEYS; k += w.peers()) {
                    right.updateLong(record(k, k % 7), 1);
                    left.updateLong(record(k, 1), 1);
                    leftLog.add(new long[] {k, 1, 0, 1});
                }
                SplittableRandom random = new SplittableRandom(5 + w.index());
                for (long t = 1; t <= STEPS; t++) {
                    left.advanceTo(t);
                    right.advanceTo(t);
                    for (int i = 0; i < PER_STEP; i++) {
                        long k = random.nextInt(KEYS) + (i % 2 == 0 ? 0 : KEYS);
                        long v = 2 + random.nextInt(3);
                        left.updateLong(record(k, v), 1);
                        leftLog.add(new long[] {k, v, t, 1});
                        if (t % 3 == 0 && k < KEYS) {
                            left.updateLong(record(k, 1), -1);
                            leftLog.add(new long[] {k, 1, t, -1});
                        }
                    }
                    // each time its own batch of a few dozen keys
                    long before = t - 1;
                    w.stepWhile(() -> probes.get(0).lessEqual(before) || probes.get(1).lessEqual(before));
                }
                left.close();
                right.close();
                w.stepWhile(() -> !probes.get(0).isDone() || !probes.get(1).isDone());
            });
            for (long t = 0; t <= STEPS; t++) {
                Map<Long, Long> left = new HashMap<>();
                for (long[] u : leftLog) {
                    if (u[2] <= t) left.merge(u[0] << 20 | u[1], u[3], Long::sum);
                }
                left.values().removeIf(n -> n == 0);
                Map<Long, Long> expectJoin = new HashMap<>();
                Map<Long, Long> counts = new HashMap<>();
                left.forEach((x, n) -> {
                    long k = x >>> 20;
                    if (k < KEYS) expectJoin.merge(k * 1_000_000 + (x & 0xFFFFF) * 1000 + k % 7, n, Long::sum);
                    counts.merge(k, n, Long::sum);
                });
                Map<Long, Long> expectCount = new HashMap<>();
                counts.forEach((k, n) -> {
                    if (n != 0) expectCount.put(k * 1000 + n, 1L);
                });
                assertThat(SmokeTest.accumulate(joined, t)).as("join, %d workers, t=%d", workers, t).isEqualTo(expectJoin);
                assertThat(SmokeTest.accumulate(counted, t)).as("count, %d workers, t=%d", workers, t).isEqualTo(expectCount);
            }
        }
    }

    private static Batch batchOfKeys(int n) {
        Batcher b = new Batcher(new LongColumn(1), new LongColumn(1), 1);
        Updates u = new Updates(new LongColumn(n), new LongColumn(n), 1);
        for (int i = 0; i < n; i++) {
            ((LongColumn) u.keys()).add(i);
            ((LongColumn) u.vals()).add(0);
            u.push(0, 1);
        }
        b.push(u);
        return b.seal(Antichain.of(new long[] {1}));
    }
}
