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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Collection#flatMapOr} whose expansion is larger than its fuel emits it over several
 * steps and is still exact, records added and retracted while it is unfinished included: what
 * SQL's cross product of table functions relies on to leave the worker (and every statement
 * waiting on it) between steps. The oracle recomputes the expansion of the input at each time.
 */
class FlatMapFuelTest {
    private static final DataType<Long> L = DataType.longs();
    /** Records 0..N, each expanding to 1,000 values and one error for every tenth: 300,000 outputs, several activations' fuel. */
    private static final int N = 300;
    private static final int EACH = 1000;

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void aLargeExpansionIsSpreadOverStepsAndExact(int workers) {
        Run run = run(workers, records -> records.flatMapOr((x, o) -> {
            for (long i = 0; i < EACH; i++) o.ok(x * 10_000 + i);
            if (x % 10 == 0) o.other(-x);
        }, L, L), 0, N, 50, 20);
        run.assertSpread(Collection.FLAT_MAP_FUEL + EACH + 1); // it stops between records: at most one record's expansion past the fuel
        for (long t = 0; t < 2; t++) assertThat(accumulated(run.out(), t)).as("expansion at time %d", t).isEqualTo(oracle(t));
    }

    /** Records 0..BIG_N, each expanding (lazily) to BIG_EACH values, several activations' fuel each. */
    private static final int BIG_N = 3;
    private static final int BIG_EACH = 150_000;

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void oneRecordsLargeExpansionIsSpreadOverStepsAndExact(int workers) {
        Run run = run(workers, records -> records.expandOr(x -> {
            if (x == 1) return null;
            long[] next = {0};
            return (o, budget) -> {
                for (long k = 0; k < budget && next[0] < BIG_EACH; k++, next[0]++) o.ok(x * 1_000_000 + next[0]);
                if (next[0] < BIG_EACH) return true;
                if (x == 2) o.other(-x);
                return false;
            };
        }, L, L), 0, BIG_N, 1, 1);
        run.assertSpread(Collection.FLAT_MAP_FUEL); // it stops within a record: never more than the fuel in a step
        for (long t = 0; t < 2; t++) assertThat(accumulated(run.out(), t)).as("expansion at time %d", t).isEqualTo(bigOracle(t));
    }

    /**
     * {@link Collection#expandColumnsOr}: a record's results written into the output column, a
     * budget at a time, the record read again at each call from wherever its container is
     * (copied when the activation stops within it): spread over steps and exact, as expandOr.
     */
    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void oneRecordsLargeColumnExpansionIsSpreadOverStepsAndExact(int workers) {
        Run run = run(workers, records -> records.<Long, Long>expandColumnsOr((from, i, position, o, budget) -> {
            long x = ((dev.tributary.arrangements.LongColumn) from).getLong(i);
            if (x == 1) return Collection.ColumnExpander.DONE;
            long next = position;
            for (long k = 0; k < budget && next < BIG_EACH; k++, next++) {
                ((dev.tributary.arrangements.LongColumn) o.into()).add(x * 1_000_000 + next);
                o.ok();
            }
            if (next < BIG_EACH) return next;
            if (x == 2) o.other(-x);
            return Collection.ColumnExpander.DONE;
        }, L, L), 0, BIG_N, 1, 1);
        run.assertSpread(Collection.FLAT_MAP_FUEL);
        for (long t = 0; t < 2; t++) assertThat(accumulated(run.out(), t)).as("expansion at time %d", t).isEqualTo(bigOracle(t));
    }

    /**
     * Runs {@code expand} over records {@code from..to-1} inserted at time 0; while their
     * expansion is unfinished, retracts the first {@code retract} of them and inserts
     * {@code insert} more ({@code to..}) at time 1.
     */
    private static Run run(int workers, java.util.function.Function<Collection<Long>, KV<Collection<Long>, Collection<Long>>> expand,
            long from, long to, long retract, long insert) {
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        long[] seen = new long[workers];
        long[] mostInAStep = new long[workers];
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("fuel", scope -> {
                in[0] = InputSession.create(scope, "records", L);
                KV<Collection<Long>, Collection<Long>> split = expand.apply(in[0].collection());
                return split.key().concat(split.val()).inspect(recorder(out, seen, w.index())).probe();
            });
            boolean first = w.index() == 0;
            if (first) for (long x = from; x < to; x++) in[0].insert(x);
            in[0].advanceTo(1);
            step(w, seen, mostInAStep);
            if (first) {
                for (long x = from; x < from + retract; x++) in[0].remove(x);
                for (long x = to; x < to + insert; x++) in[0].insert(x);
            }
            in[0].advanceTo(2);
            while (probe.lessThan(2)) step(w, seen, mostInAStep);
            in[0].close();
            while (!probe.isDone()) step(w, seen, mostInAStep);
        });
        return new Run(out, seen, mostInAStep);
    }

    /** What a {@link #run} gave: the output by time, the outputs of each worker, and the most a worker emitted in one step. */
    private record Run(Map<Long, Map<Long, Long>> out, long[] seen, long[] mostInAStep) {
        /** The output took several activations' fuel, and no step of a worker emitted more than {@code mostPerStep}. */
        void assertSpread(long mostPerStep) {
            assertThat(java.util.Arrays.stream(seen).max().getAsLong()).as("the most outputs of a worker").isGreaterThan(2L * Collection.FLAT_MAP_FUEL);
            // a step may run the operator twice: its own turn, and (once in Worker.YIELD_EVERY
            // steps) the turn of the operators that yielded, which one whose slice ended is among
            for (long n : mostInAStep) assertThat(n).as("a worker's outputs in one step").isLessThanOrEqualTo(2 * mostPerStep);
        }
    }

    /** The large expansions of the records present at {@code t}, recomputed: record 1 makes nothing, record 2 also an error. */
    private static Map<Long, Long> bigOracle(long t) {
        Map<Long, Long> expected = new HashMap<>();
        for (long x : t == 0 ? new long[] {0, 1, 2} : new long[] {1, 2, BIG_N}) {
            if (x == 1) continue;
            for (long i = 0; i < BIG_EACH; i++) expected.put(x * 1_000_000 + i, 1L);
            if (x == 2) expected.put(-x, 1L);
        }
        return expected;
    }

    /** The expansion of the records present at {@code t}, recomputed. */
    private static Map<Long, Long> oracle(long t) {
        Map<Long, Long> expected = new HashMap<>();
        for (long x = t >= 1 ? 50 : 0; x < (t >= 1 ? N + 20 : N); x++) {
            for (long i = 0; i < EACH; i++) expected.put(x * 10_000 + i, 1L);
            if (x % 10 == 0) expected.merge(-x, 1L, Long::sum);
        }
        return expected;
    }
}
