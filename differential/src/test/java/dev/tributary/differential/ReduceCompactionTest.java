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

/**
 * Reduce decides times from the fresh updates as they arrived, not from the compacted trace: a
 * fresh update may already have cancelled against advanced history there, and history advanced
 * into the undecided region must not look new. Found by the property suite's long run; this is
 * its hand-minimised script, replayed step by step.
 */
class ReduceCompactionTest {
    @Test
    void aRetractionThatCancelsInTheCompactedTraceStillRetractsTheOutput() {
        List<Object[]> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("loop", scope -> {
                in[0] = InputSession.create(scope, "in0", DataType.longs());
                Collection<Long> r = in[0].collection().distinct();
                return r.iterate(x -> x.concat(r.enter(x.scope())).distinct())
                        .inspect((d, t, diff) -> out.add(new Object[] {d, t[0], diff}))
                        .probe();
            });
            in[0].updateAt(3L, new long[] {0}, 1);
            in[0].updateAt(3L, new long[] {1}, -2);
            in[0].advanceTo(1);
            for (int i = 0; i < 4; i++) w.step();
            in[0].update(1L, 1);
            in[0].advanceTo(6);
            w.step();
            in[0].update(0L, -2);
            in[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
        assertThat(at(out, 0)).isEqualTo(Map.of(3L, 1L));
        for (long t = 1; t <= 6; t++) assertThat(at(out, t)).as("time %d", t).isEqualTo(Map.of(1L, 1L));
    }

    private static Map<Long, Long> at(List<Object[]> updates, long time) {
        Map<Long, Long> m = new HashMap<>();
        for (Object[] u : updates) {
            if ((long) u[1] <= time) m.merge((Long) u[0], (Long) u[2], Long::sum);
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }
}
