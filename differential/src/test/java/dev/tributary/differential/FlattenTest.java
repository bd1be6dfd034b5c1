package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Hydration;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Flattening an arrangement into a collection reads a bounded number of updates per step of its
 * worker, so that a dataflow built over a large existing arrangement leaves the worker between
 * bounded steps; the accumulated output is still the arrangement's contents, and an imported
 * arrangement's flatten counts what it read into the dataflow's {@link Hydration}.
 */
class FlattenTest {
    private static final DataType<Long> L = DataType.longs();

    @Test
    void aLargeImportIsFlattenedInBoundedStepsAndCounted() {
        int n = 100_000;
        Timely.run(Config.workers(1), w -> {
            InputSession<KV<Long, Long>>[] in = new InputSession[1];
            Arrangement<Long, Long>[] arranged = new Arrangement[1];
            Probe built = w.dataflow("source", scope -> {
                in[0] = InputSession.create(scope, "in", DataType.pairs(L, L));
                arranged[0] = in[0].collection().arrangeByKey(KV::key, L, KV::val, L);
                return arranged[0].asCollection().probe();
            });
            for (long i = 0; i < n; i++) in[0].insert(KV.of(i, i * 3));
            in[0].advanceTo(1);
            w.stepWhile(() -> built.lessThan(1));

            Map<KV<Long, Long>, Long> seen = new HashMap<>();
            long[] sinceStep = new long[1];
            Hydration[] hydration = new Hydration[1];
            Probe probe = w.dataflow("reader", scope -> {
                hydration[0] = Hydration.of(scope);
                return arranged[0].importInto(scope).asCollection().inspect((kv, t, diff) -> {
                    seen.merge(kv, diff, Long::sum);
                    sinceStep[0]++;
                }).probe();
            });
            assertThat(hydration[0].total()).isEqualTo(n);
            long most = 0;
            int steps = 0;
            while (probe.lessThan(1)) {
                sinceStep[0] = 0;
                w.step();
                most = Math.max(most, sinceStep[0]);
                if (sinceStep[0] > 0) steps++;
            }
            assertThat(most).isLessThanOrEqualTo(Collection.FLATTEN_BUDGET).isLessThanOrEqualTo(n / 4);
            assertThat(steps).isGreaterThanOrEqualTo(n / Collection.FLATTEN_BUDGET).isGreaterThanOrEqualTo(4);
            assertThat(seen).hasSize(n);
            for (long i = 0; i < n; i++) assertThat(seen.get(KV.of(i, i * 3))).isEqualTo(1L);
            assertThat(hydration[0].done()).isEqualTo(n);
            in[0].close();
        });
    }
}
