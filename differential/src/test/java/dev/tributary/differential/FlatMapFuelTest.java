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
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        long[] seen = new long[workers];
        long[] mostInAStep = new long[workers];
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("fuel", scope -> {
                in[0] = InputSession.create(scope, "records", L);
                KV<Collection<Long>, Collection<Long>> split = in[0].collection().flatMapOr((x, o) -> {
                    for (long i = 0; i < EACH; i++) o.ok(x * 10_000 + i);
                    if (x % 10 == 0) o.other(-x);
                }, L, L);
                return split.key().concat(split.val()).inspect(recorder(out, seen, w.index())).probe();
            });
            boolean first = w.index() == 0;
            if (first) for (long x = 0; x < N; x++) in[0].insert(x);
            in[0].advanceTo(1);
            step(w, seen, mostInAStep);
            // while the first expansion is unfinished: retract some records, add others
            if (first) {
                for (long x = 0; x < 50; x++) in[0].remove(x);
                for (long x = N; x < N + 20; x++) in[0].insert(x);
            }
            in[0].advanceTo(2);
            while (probe.lessThan(2)) step(w, seen, mostInAStep);
            in[0].close();
            while (!probe.isDone()) step(w, seen, mostInAStep);
        });
        assertThat(java.util.Arrays.stream(seen).max().getAsLong()).as("the most outputs of a worker").isGreaterThan(2L * Collection.FLAT_MAP_FUEL);
        // it stops between records: at most one record's expansion past the fuel
        for (long n : mostInAStep) assertThat(n).as("a worker's outputs in one step").isLessThanOrEqualTo(Collection.FLAT_MAP_FUEL + EACH + 1);
        for (long t = 0; t < 2; t++) assertThat(accumulated(out, t)).as("expansion at time %d", t).isEqualTo(oracle(t));
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
