package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class ArrangeSmokeTest {
    record Handles(InputHandle<Updates> input, Arrange.Arranged arranged, Probe probe) {}

    @Test
    void arrangedContentsMatchModelAtEveryTime() {
        for (int workers = 1; workers <= 2; workers++) {
            Random r = new Random(1);
            long[][] updates = new long[2000][];
            for (int i = 0; i < updates.length; i++) {
                updates[i] = new long[] {r.nextInt(50), r.nextInt(5), i / 100, r.nextBoolean() ? 1 : -1};
            }
            Map<Long, Map<String, Long>> readings = new ConcurrentHashMap<>();
            Timely.run(Config.workers(workers), worker -> {
                Handles h = worker.dataflow("arrange", scope -> {
                    InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                    Arrange.Arranged a = Arrange.arrange(in.stream(), "test", new LongColumn(), new LongColumn());
                    return new Handles(in, a, a.batches().probe());
                });
                for (long t = 0; t < 20; t++) {
                    for (int i = 0; i < updates.length; i++) {
                        if (updates[i][2] == t && i % worker.peers() == worker.index()) {
                            Updates u = h.input().staged();
                            ((LongColumn) u.keys()).add(updates[i][0]);
                            ((LongColumn) u.vals()).add(updates[i][1]);
                            u.push(t, updates[i][3]);
                        }
                    }
                    h.input().advanceTo(t + 1);
                    long done = t;
                    worker.stepWhile(() -> h.probe().lessEqual(done));
                    Map<String, Long> seen = readings.computeIfAbsent(t, k -> new ConcurrentHashMap<>());
                    h.arranged().trace().readAt(new long[] {t}, (kc, k, vc, v, n) -> seen.merge(kc.get(k) + "," + vc.get(v), n, Long::sum));
                    h.arranged().trace().setLogicalCompaction(Antichain.of(t));
                }
                h.arranged().trace().drop();
            });
            for (long t = 0; t < 20; t++) {
                Map<String, Long> expected = new HashMap<>();
                for (long[] u : updates) {
                    if (u[2] <= t) expected.merge(u[0] + "," + u[1], u[3], Long::sum);
                }
                expected.values().removeIf(v -> v == 0);
                assertThat(readings.get(t)).as("workers %d time %d", workers, t).isEqualTo(expected);
            }
        }
    }
}
