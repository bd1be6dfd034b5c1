package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One arrangement serves several joins and several dataflows; nobody re-arranges it. */
class SharedArrangementTest {
    private static final DataType<Long> L = DataType.longs();

    @Test
    void twoJoinsInOneDataflowAndAJoinInALaterDataflowReadOneTrace() {
        for (int workers = 1; workers <= 2; workers++) {
            List<KV<String, Long>> out = Collections.synchronizedList(new ArrayList<>());
            int[] handles = new int[workers];
            Timely.run(Config.workers(workers), w -> {
                InputSession<KV<Long, Long>>[] in = new InputSession[3];
                Arrangement<Long, Long>[] shared = new Arrangement[1];
                Probe probe = w.dataflow("first", scope -> {
                    for (int i = 0; i < 3; i++) in[i] = InputSession.create(scope, "in" + i, DataType.pairs(L, L));
                    shared[0] = in[0].collection().arrangeByKey(KV::key, L, KV::val, L);
                    Arrangement<Long, Long> b = in[1].collection().arrangeByKey(KV::key, L, KV::val, L);
                    Arrangement<Long, Long> c = in[2].collection().arrangeByKey(KV::key, L, KV::val, L);
                    Collection<KV<String, Long>> ab = shared[0].join(b, (k, x, y) -> KV.of("ab", x * 10 + y), DataType.pairs(DataType.strings(), L));
                    Collection<KV<String, Long>> ac = shared[0].join(c, (k, x, y) -> KV.of("ac", x * 10 + y), DataType.pairs(DataType.strings(), L));
                    return ab.concat(ac).inspect((d, t, diff) -> out.add(d)).probe();
                });
                if (w.index() == 0) {
                    in[0].insert(KV.of(1L, 1L));
                    in[0].insert(KV.of(2L, 2L));
                    in[1].insert(KV.of(1L, 3L));
                    in[2].insert(KV.of(2L, 4L));
                }
                for (InputSession<KV<Long, Long>> s : in) s.advanceTo(1);
                w.stepWhile(() -> probe.lessThan(1));
                // a join of A with B and of A with C: A's trace has the base handle, the arrange
                // operator's own, and one share per join
                handles[w.index()] = shared[0].trace().trace().handleCount();

                InputSession<KV<Long, Long>>[] late = new InputSession[1];
                Probe probe2 = w.dataflow("second", scope -> {
                    late[0] = InputSession.create(scope, "late", DataType.pairs(L, L));
                    Arrangement<Long, Long> imported = shared[0].importInto(scope);
                    Arrangement<Long, Long> d = late[0].collection().arrangeByKey(KV::key, L, KV::val, L);
                    return imported.join(d, (k, x, y) -> KV.of("ad", x * 10 + y), DataType.pairs(DataType.strings(), L)).inspect((x, t, diff) -> out.add(x)).probe();
                });
                late[0].advanceTo(1);
                if (w.index() == 0) late[0].insert(KV.of(1L, 5L));
                late[0].close();
                for (InputSession<KV<Long, Long>> s : in) s.close();
                w.stepWhile(() -> !probe.isDone() || !probe2.isDone());
            });
            Map<KV<String, Long>, Integer> counts = new HashMap<>();
            for (KV<String, Long> kv : out) counts.merge(kv, 1, Integer::sum);
            assertThat(counts).as("workers %d", workers).containsOnlyKeys(KV.of("ab", 13L), KV.of("ac", 24L), KV.of("ad", 15L));
            for (int h : handles) assertThat(h).isEqualTo(4);
        }
    }
}
