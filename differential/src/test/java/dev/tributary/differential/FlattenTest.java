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
 * arrangement's flatten counts what it read into the dataflow's {@link Hydration}, and advances
 * the times before the import's since to it, so that what was written at many times reaches the
 * new dataflow as one time.
 */
class FlattenTest {
    private static final DataType<Long> L = DataType.longs();

    /** A dataflow arranging (long, long) pairs by key: its input, its arrangement, a probe on it. */
    private record Source(InputSession<KV<Long, Long>> in, Arrangement<Long, Long> arranged, Probe built) {
        static Source on(dev.tributary.timely.Worker w) {
            Object[] made = new Object[2];
            Probe built = w.dataflow("source", scope -> {
                InputSession<KV<Long, Long>> in = InputSession.create(scope, "in", DataType.pairs(L, L));
                Arrangement<Long, Long> arranged = in.collection().arrangeByKey(KV::key, L, KV::val, L);
                made[0] = in;
                made[1] = arranged;
                return arranged.asCollection().probe();
            });
            @SuppressWarnings("unchecked")
            Source s = new Source((InputSession<KV<Long, Long>>) made[0], (Arrangement<Long, Long>) made[1], built);
            return s;
        }
    }

    @Test
    void aLargeImportIsFlattenedInBoundedStepsAndCounted() {
        int n = 100_000;
        Timely.run(Config.workers(1), w -> {
            Source source = Source.on(w);
            InputSession<KV<Long, Long>> in = source.in();
            Arrangement<Long, Long> arranged = source.arranged();
            Probe built = source.built();
            for (long i = 0; i < n; i++) in.insert(KV.of(i, i * 3));
            in.advanceTo(1);
            w.stepWhile(() -> built.lessThan(1));

            Map<KV<Long, Long>, Long> seen = new HashMap<>();
            long[] sinceStep = new long[1];
            Hydration[] hydration = new Hydration[1];
            Probe probe = w.dataflow("reader", scope -> {
                hydration[0] = Hydration.of(scope);
                return arranged.importInto(scope).asCollection().inspect((kv, t, diff) -> {
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
            in.close();
        });
    }

    /**
     * Ten rounds of writes (each key changed at every round, some keys deleted again) then an
     * import: the new dataflow sees every existing update at the import's since, one per value,
     * and the accumulation is the arrangement's contents; a reduce over it evaluates each key once
     * and its output holds one update per key.
     */
    @Test
    void anImportAdvancesTheTimesBeforeItsSinceToItAndAddsThemUp() {
        int keys = 1000;
        int rounds = 10;
        Timely.run(Config.workers(1), w -> {
            Source source = Source.on(w);
            InputSession<KV<Long, Long>> in = source.in();
            Arrangement<Long, Long> arranged = source.arranged();
            Probe built = source.built();
            for (int r = 0; r < rounds; r++) {
                for (long k = 0; k < keys; k++) {
                    in.insert(KV.of(k, (long) r));
                    if (r > 0) in.update(KV.of(k, (long) r - 1), -1);
                }
                if (r == rounds - 1) for (long k = 0; k < keys; k += 2) in.update(KV.of(k, (long) r), -1);
                in.advanceTo(r + 1);
                w.stepWhile(() -> built.lessThan(in.time()));
            }
            // the source's batches not all merged yet: some hold the times they were written at
            assertThat(arranged.trace().batches().size()).isGreaterThan(1);

            // the import's time: the trace's since, but not past the last time it holds (how far
            // the seal got behind the compaction depends on how the worker scheduled its steps)
            long since = Math.min(arranged.trace().logicalCompaction().get(0)[0], arranged.trace().upper().get(0)[0] - 1);
            assertThat(since).isPositive();
            Map<KV<Long, Long>, Long> seen = new HashMap<>();
            java.util.Set<Long> times = new java.util.HashSet<>();
            long[] updates = new long[1];
            Arrangement<Long, Long>[] counted = new Arrangement[1];
            Probe probe = w.dataflow("reader", scope -> {
                Arrangement<Long, Long> imported = arranged.importInto(scope);
                Collection<KV<Long, Long>> flat = imported.asCollection().inspect((kv, t, diff) -> {
                    seen.merge(kv, diff, Long::sum);
                    times.add(t[0]);
                    updates[0]++;
                });
                counted[0] = flat.arrangeByKey(KV::key, L, KV::val, L).reduce("count", (k, vals, out) -> out.add((long) vals.size(), 1), L);
                return flat.concat(counted[0].asCollection()).probe();
            });
            w.stepWhile(() -> probe.lessThan(rounds));
            assertThat(times).containsExactly(since);
            assertThat(updates[0]).isLessThan((long) keys * (2 * rounds - 1));
            seen.values().removeIf(d -> d == 0);
            assertThat(seen).hasSize(keys / 2);
            for (long k = 1; k < keys; k += 2) assertThat(seen.get(KV.of(k, (long) rounds - 1))).isEqualTo(1L);
            assertThat(counted[0].trace().trace().updateCount()).isEqualTo(keys / 2);
            in.close();
        });
    }
}
