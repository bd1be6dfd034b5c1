package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A join whose output is larger than its fuel sends it over several steps, and is still exact:
 * batches that arrive while a join is unfinished wait behind it, and the traces merge and compact
 * meanwhile without disturbing the held cursor it reads (assertions poison recycled arrays).
 */
class JoinFuelTest {
    private static final DataType<Long> L = DataType.longs();
    /** Left values per key at time 0; with {@link #RIGHT}, 2 x 800 x 500 = 800,000 pairs, three activations' fuel. */
    private static final int LEFT = 1600;
    private static final int RIGHT = 1000;

    @ParameterizedTest(name = "workers={0} longs={1}")
    @CsvSource({"1,false", "1,true", "2,false", "2,true"})
    void aLargeJoinIsSpreadOverStepsAndExact(int workers, boolean longs) {
        // output value -> diff, per time, from every worker
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        // per worker (inspect runs on the worker that holds the update): pairs seen, and those seen by the end of the first step with any
        long[] seen = new long[workers];
        long[] firstStep = new long[workers];
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[2];
            Probe probe = w.dataflow("fuel", scope -> {
                in[0] = InputSession.create(scope, "left", L);
                in[1] = InputSession.create(scope, "right", L);
                Arrangement<Long, Long> left = in[0].collection().arrangeByKey(x -> x % 2, L, x -> x, L);
                Arrangement<Long, Long> right = in[1].collection().arrangeByKey(y -> y % 2, L, y -> y, L);
                Collection<Long> joined = longs ? left.joinLongs(right, (k, a, b) -> a * 100_000 + b)
                        : left.join(right, (k, a, b) -> a * 100_000 + b, L);
                return joined.inspect((v, t, d) -> {
                    seen[w.index()] += Math.abs(d);
                    synchronized (out) {
                        out.computeIfAbsent(t[0], x -> new HashMap<>()).merge(v, d, (p, q) -> p + q == 0 ? null : p + q);
                    }
                }).probe();
            });
            boolean first = w.index() == 0;
            if (first) {
                for (long x = 0; x < LEFT; x++) in[0].insert(x);
                for (long y = 0; y < RIGHT; y++) in[1].insert(y);
            }
            in[0].advanceTo(1);
            in[1].advanceTo(1);
            // the first step with output brings one activation's fuel, not all of it
            for (int s = 0; s < 100 && seen[w.index()] == 0; s++) w.step();
            firstStep[w.index()] = seen[w.index()];
            // changes while the first join is unfinished: retract left values, add right ones
            if (first) {
                for (long x = 0; x < 100; x++) in[0].remove(x);
                for (long y = RIGHT; y < RIGHT + 100; y++) in[1].insert(y);
            }
            in[0].advanceTo(2);
            in[1].advanceTo(2);
            w.step();
            if (first) {
                for (long y = 1; y < RIGHT + 100; y += 2) in[1].remove(y);
                for (long x = LEFT; x < LEFT + 10; x++) in[0].insert(x);
            }
            in[0].advanceTo(3);
            in[1].advanceTo(3);
            w.stepWhile(() -> probe.lessThan(3));
            in[0].close();
            in[1].close();
            w.stepWhile(() -> !probe.isDone());
        });
        assertThat(java.util.Arrays.stream(firstStep).sum()).as("output pairs after the first step that had any").isPositive();
        for (long pairs : firstStep) assertThat(pairs).as("a worker's output in one step").isLessThanOrEqualTo(JoinCore.FUEL);
        for (long t = 0; t < 3; t++) {
            assertThat(accumulated(out, t)).as("join at time %d", t).isEqualTo(oracle(t));
        }
    }

    private static Map<Long, Long> accumulated(Map<Long, Map<Long, Long>> out, long t) {
        Map<Long, Long> acc = new HashMap<>();
        out.forEach((time, updates) -> {
            if (time <= t) updates.forEach((v, d) -> acc.merge(v, d, (p, q) -> p + q == 0 ? null : p + q));
        });
        return acc;
    }

    /** The join recomputed from the inputs as they stand at {@code t}. */
    private static Map<Long, Long> oracle(long t) {
        Map<Long, Long> left = new HashMap<>();
        Map<Long, Long> right = new HashMap<>();
        for (long x = 0; x < LEFT; x++) left.merge(x, 1L, Long::sum);
        for (long y = 0; y < RIGHT; y++) right.merge(y, 1L, Long::sum);
        if (t >= 1) {
            for (long x = 0; x < 100; x++) left.merge(x, -1L, Long::sum);
            for (long y = RIGHT; y < RIGHT + 100; y++) right.merge(y, 1L, Long::sum);
        }
        if (t >= 2) {
            for (long y = 1; y < RIGHT + 100; y += 2) right.merge(y, -1L, Long::sum);
            for (long x = LEFT; x < LEFT + 10; x++) left.merge(x, 1L, Long::sum);
        }
        Map<Long, Long> expected = new HashMap<>();
        left.forEach((a, da) -> right.forEach((b, db) -> {
            if (a % 2 == b % 2 && da * db != 0) expected.merge(a * 100_000 + b, da * db, (p, q) -> p + q == 0 ? null : p + q);
        }));
        return expected;
    }
}
