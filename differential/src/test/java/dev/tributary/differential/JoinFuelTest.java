package dev.tributary.differential;

import static dev.tributary.differential.FuelSteps.accumulated;
import static dev.tributary.differential.FuelSteps.recorder;
import static dev.tributary.differential.FuelSteps.step;

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
        // per worker (inspect runs on the worker that holds the update): pairs seen, and the most seen in one step
        long[] seen = new long[workers];
        long[] mostInAStep = new long[workers];
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[2];
            Probe probe = w.dataflow("fuel", scope -> {
                in[0] = InputSession.create(scope, "left", L);
                in[1] = InputSession.create(scope, "right", L);
                Arrangement<Long, Long> left = in[0].collection().arrangeByKey(x -> x % 2, L, x -> x, L);
                Arrangement<Long, Long> right = in[1].collection().arrangeByKey(y -> y % 2, L, y -> y, L);
                Collection<Long> joined = longs ? left.joinLongs(right, (k, a, b) -> a * 100_000 + b)
                        : left.join(right, (k, a, b) -> a * 100_000 + b, L);
                return joined.inspect(recorder(out, seen, w.index())).probe();
            });
            boolean first = w.index() == 0;
            load(in, first);
            // part of the first join: one step, which brings at most one activation's fuel
            step(w, seen, mostInAStep);
            // changes while the first join is unfinished: retract left values, add right ones
            if (first) {
                for (long x = 0; x < 100; x++) in[0].remove(x);
                for (long y = RIGHT; y < RIGHT + 100; y++) in[1].insert(y);
            }
            in[0].advanceTo(2);
            in[1].advanceTo(2);
            step(w, seen, mostInAStep);
            if (first) {
                for (long y = 1; y < RIGHT + 100; y += 2) in[1].remove(y);
                for (long x = LEFT; x < LEFT + 10; x++) in[0].insert(x);
            }
            in[0].advanceTo(3);
            in[1].advanceTo(3);
            while (probe.lessThan(3)) step(w, seen, mostInAStep);
            in[0].close();
            in[1].close();
            while (!probe.isDone()) step(w, seen, mostInAStep);
        });
        assertThat(java.util.Arrays.stream(seen).max().getAsLong()).as("the most output pairs of a worker").isGreaterThan(JoinCore.FUEL);
        // a step may run the join twice: its own turn, and (once in Worker.YIELD_EVERY steps) the
        // turn of the operators that yielded, which a join whose time slice ended is among
        for (long pairs : mostInAStep) assertThat(pairs).as("a worker's output pairs in one step").isLessThanOrEqualTo(2L * JoinCore.FUEL);
        for (long t = 0; t < 3; t++) {
            assertThat(accumulated(out, t)).as("join at time %d", t).isEqualTo(oracle(t));
        }
    }

    /**
     * The half-join likewise: 1,600 records each meeting 500 values (800,000 outputs) leave a
     * fuel's worth per step, the last record's values whole, and the rest follows exactly.
     */
    @ParameterizedTest(name = "workers={0}")
    @CsvSource({"1", "2"})
    void aLargeHalfJoinIsSpreadOverStepsAndExact(int workers) {
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        long[] seen = new long[workers];
        long[] mostInAStep = new long[workers];
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[2];
            Probe probe = w.dataflow("fuel", scope -> {
                in[0] = InputSession.create(scope, "records", L);
                in[1] = InputSession.create(scope, "values", L);
                Arrangement<Long, Long> values = in[1].collection().arrangeByKey(y -> y % 2, L, y -> y, L);
                return in[0].collection().halfJoin(x -> x % 2, values, false, (a, b) -> a * 100_000 + b, L)
                        .inspect(recorder(out, seen, w.index())).probe();
            });
            boolean first = w.index() == 0;
            load(in, first);
            step(w, seen, mostInAStep);
            if (first) for (long x = 0; x < 100; x++) in[0].remove(x);
            in[0].advanceTo(2);
            in[1].advanceTo(2);
            while (probe.lessThan(2)) step(w, seen, mostInAStep);
            in[0].close();
            in[1].close();
            while (!probe.isDone()) step(w, seen, mostInAStep);
        });
        assertThat(java.util.Arrays.stream(seen).max().getAsLong()).as("the most outputs of a worker").isGreaterThan(JoinCore.FUEL);
        // twice at most: its own turn, and that of the worker's idle pass (the values' arrangement
        // merges there once the half-join's compaction moves), which runs what is scheduled by then
        for (long n : mostInAStep) assertThat(n).as("a worker's outputs in one step").isLessThanOrEqualTo(2L * (JoinCore.FUEL + RIGHT / 2));
        for (long t = 0; t < 2; t++) {
            Map<Long, Long> expected = new HashMap<>();
            for (long x = t >= 1 ? 100 : 0; x < LEFT; x++) {
                for (long y = x % 2; y < RIGHT; y += 2) expected.put(x * 100_000 + y, 1L);
            }
            assertThat(accumulated(out, t)).as("half-join at time %d", t).isEqualTo(expected);
        }
    }

    /** Worker 0 inserts the left values 0..LEFT and the right ones 0..RIGHT at time 0; every worker advances to 1. */
    private static void load(InputSession<Long>[] in, boolean first) {
        if (first) {
            for (long x = 0; x < LEFT; x++) in[0].insert(x);
            for (long y = 0; y < RIGHT; y++) in[1].insert(y);
        }
        in[0].advanceTo(1);
        in[1].advanceTo(1);
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
