package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SmokeTest {
    record Upd<D>(D data, long time, long diff) {}

    /** Runs {@code build} over {@code input} (fed round-robin by worker, time by time), returning all output updates. */
    static <D, R> List<Upd<R>> run(int workers, DataType<D> type, List<Upd<D>> input, Function<Collection<D>, Collection<R>> build) {
        List<Upd<R>> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(workers), w -> {
            InputSession<D>[] session = new InputSession[1];
            Probe probe = w.dataflow("test", scope -> {
                session[0] = InputSession.create(scope, "in", type);
                return build.apply(session[0].collection()).inspect((d, t, diff) -> out.add(new Upd<>(d, t[0], diff))).probe();
            });
            TreeMap<Long, List<Upd<D>>> byTime = new TreeMap<>();
            for (int i = 0; i < input.size(); i++) {
                if (i % w.peers() == w.index()) byTime.computeIfAbsent(input.get(i).time(), k -> new ArrayList<>()).add(input.get(i));
            }
            for (var e : byTime.entrySet()) {
                session[0].advanceTo(e.getKey());
                for (Upd<D> u : e.getValue()) session[0].update(u.data(), u.diff());
                session[0].flush();
                w.step();
            }
            session[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
        return out;
    }

    static <R> Map<R, Long> accumulate(List<Upd<R>> updates, long time) {
        Map<R, Long> m = new java.util.HashMap<>();
        for (Upd<R> u : updates) {
            if (u.time() <= time) m.merge(u.data(), u.diff(), Long::sum);
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }

    @Test
    void countsWordsAtEveryTime() {
        List<Upd<String>> in = List.of(new Upd<>("a", 0, 1), new Upd<>("b", 0, 1), new Upd<>("a", 1, 1), new Upd<>("a", 2, -1), new Upd<>("b", 2, -1),
                new Upd<>("c", 3, 2));
        for (int w = 1; w <= 3; w++) {
            List<Upd<KV<String, Long>>> out = run(w, DataType.natural(), in, Collection::count);
            assertThat(accumulate(out, 0).keySet()).containsExactlyInAnyOrder(KV.of("a", 1L), KV.of("b", 1L));
            assertThat(accumulate(out, 1).keySet()).containsExactlyInAnyOrder(KV.of("a", 2L), KV.of("b", 1L));
            assertThat(accumulate(out, 2).keySet()).containsExactlyInAnyOrder(KV.of("a", 1L));
            assertThat(accumulate(out, 3).keySet()).containsExactlyInAnyOrder(KV.of("a", 1L), KV.of("c", 2L));
        }
    }

    @Test
    void joinsAndReachesThroughAGraph() {
        // edges as (src, dst) pairs encoded src * 100 + dst; roots are node 1
        List<Upd<Long>> in = List.of(new Upd<>(102L, 0, 1), new Upd<>(203L, 0, 1), new Upd<>(304L, 1, 1), new Upd<>(203L, 2, -1), new Upd<>(104L, 3, 1));
        for (int w = 1; w <= 3; w++) {
            List<Upd<Long>> out = run(w, DataType.longs(), in, edges -> {
                Collection<Long> roots = edges.filter(e -> false).map(e -> 1L, DataType.longs()).concat(edges.map(e -> 1L, DataType.longs()).distinct());
                return roots.distinct().iterate(reach -> {
                    var e = edges.enter(reach.scope()).arrangeByKey(x -> x / 100, DataType.longs(), x -> x % 100, DataType.longs());
                    return reach.arrangeBySelf().join(e, (k, u, dst) -> dst, DataType.longs()).concat(reach).distinct();
                });
            });
            assertThat(accumulate(out, 0)).as("w=%d t=0", w).containsOnlyKeys(1L, 2L, 3L);
            assertThat(accumulate(out, 1)).as("w=%d t=1", w).containsOnlyKeys(1L, 2L, 3L, 4L);
            assertThat(accumulate(out, 2)).as("w=%d t=2", w).containsOnlyKeys(1L, 2L);
            assertThat(accumulate(out, 3)).as("w=%d t=3", w).containsOnlyKeys(1L, 2L, 4L);
            assertThat(accumulate(out, 3).values()).containsOnly(1L);
        }
    }

    @Test
    void joinsCollectionsByKeyThroughRetractions() {
        // records n; join n with m where n % 10 == m % 10, output n * 1000 + m
        List<Upd<Long>> in = List.of(new Upd<>(1L, 0, 1), new Upd<>(11L, 0, 1), new Upd<>(2L, 1, 1), new Upd<>(12L, 1, 2), new Upd<>(11L, 2, -1));
        for (int w = 1; w <= 3; w++) {
            List<Upd<Long>> out = run(w, DataType.longs(), in, c -> c.join(c, n -> n % 10, m -> m % 10, DataType.longs(), (n, m) -> n * 1000 + m, DataType.longs()));
            assertThat(accumulate(out, 0)).isEqualTo(Map.of(1001L, 1L, 1011L, 1L, 11001L, 1L, 11011L, 1L));
            assertThat(accumulate(out, 1)).isEqualTo(Map.of(1001L, 1L, 1011L, 1L, 11001L, 1L, 11011L, 1L, 2002L, 1L, 2012L, 2L, 12002L, 2L, 12012L, 4L));
            assertThat(accumulate(out, 2)).isEqualTo(Map.of(1001L, 1L, 2002L, 1L, 2012L, 2L, 12002L, 2L, 12012L, 4L));
        }
    }
}
