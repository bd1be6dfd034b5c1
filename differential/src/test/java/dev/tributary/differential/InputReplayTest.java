package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link InputSession#updateAll}: recovered parts, each of updates at many times in no order
 * and the parts in no time order, fed with the input's time left at the earliest: a count over
 * them accumulates at every time to the count recomputed from scratch of the updates up to it.
 */
class InputReplayTest {
    private static final int TIMES = 12;

    @Test
    void partsAtManyTimesInNoOrderCountAsTheirUpdatesAtEveryTime() {
        for (int workers = 1; workers <= 2; workers++) {
            // (key, time) -> the count's output changes there, added up over workers
            Map<String, Long> out = new ConcurrentHashMap<>();
            Map<String, Long> model = new TreeMap<>();
            Timely.run(Config.workers(workers), w -> {
                InputSession<Long>[] in = new InputSession[1];
                Probe probe = w.dataflow("replay", scope -> {
                    in[0] = InputSession.create(scope, "recovered", DataType.longs());
                    return in[0].collection().count().inspect((kv, time, diff) -> out.merge(kv.key() + "=" + kv.val() + "@" + time[0], diff, Long::sum)).probe();
                });
                in[0].advanceTo(1);
                SplittableRandom random = new SplittableRandom(5 + w.index());
                for (int part = 0; part < 8; part++) {
                    Updates u = new Updates(new LongColumn(), new UnitColumn(), 1);
                    for (int i = 0; i < 50; i++) {
                        ((LongColumn) u.keys()).add(random.nextInt(6));
                        ((UnitColumn) u.vals()).add();
                        u.push(1 + random.nextInt(TIMES - 1), random.nextInt(3) == 0 ? -1 : 1);
                    }
                    int from = random.nextInt(10);
                    in[0].updateAll(u, from, u.size());
                    synchronized (model) {
                        for (int i = from; i < u.size(); i++) model.merge(((LongColumn) u.keys()).getLong(i) + "@" + u.time(i), u.diff(i), Long::sum);
                    }
                    w.step();
                }
                in[0].advanceTo(TIMES);
                w.stepWhile(() -> probe.lessEqual(TIMES - 1));
                in[0].close();
                w.stepWhile(() -> !probe.isDone());
            });
            for (long t = 1; t < TIMES; t++) {
                Map<Long, Long> counts = new TreeMap<>();
                for (Map.Entry<String, Long> e : model.entrySet()) {
                    String[] kt = e.getKey().split("@");
                    if (Long.parseLong(kt[1]) <= t) counts.merge(Long.parseLong(kt[0]), e.getValue(), Long::sum);
                }
                counts.values().removeIf(n -> n == 0);
                Map<String, Long> accumulated = new TreeMap<>();
                for (Map.Entry<String, Long> e : out.entrySet()) {
                    String[] kt = e.getKey().split("@");
                    if (Long.parseLong(kt[1]) <= t) accumulated.merge(kt[0], e.getValue(), Long::sum);
                }
                accumulated.values().removeIf(n -> n == 0);
                Map<String, Long> expected = new TreeMap<>();
                counts.forEach((k, n) -> expected.put(k + "=" + n, 1L));
                assertThat(accumulated).as("workers %d, the count at %d", workers, t).isEqualTo(expected);
            }
        }
    }

    @Test
    void anUpdateBeforeTheInputsTimeIsRefusedAndNothingOfThePartIsTaken() {
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
        Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("refused", scope -> {
                in[0] = InputSession.create(scope, "recovered", DataType.longs());
                return in[0].collection().inspect((x, time, diff) -> seen.incrementAndGet()).probe();
            });
            in[0].advanceTo(5);
            Updates u = new Updates(new LongColumn(), new UnitColumn(), 1);
            for (long t : new long[] {7, 4}) {
                ((LongColumn) u.keys()).add(t);
                ((UnitColumn) u.vals()).add();
                u.push(t, 1);
            }
            assertThatThrownBy(() -> in[0].updateAll(u, 0, 2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot take an update at 4: the session is at 5");
            in[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
        assertThat(seen.get()).as("updates of the refused part that went in").isZero();
    }
}
