package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.LongColumn;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** {@code arrangeLongsByKey} arranges a collection of longs exactly as {@code arrangeByKey} with the same functions does, at every time. */
class LongKeyingTest {
    private static final int STEPS = 30;

    @Test
    void theSameArrangementAsArrangeByKeyAtEveryTime() {
        for (int workers = 1; workers <= 2; workers++) {
            Map<String, Map<String, Long>> reads = new ConcurrentHashMap<>();
            Timely.run(Config.workers(workers), w -> {
                List<Arrangement<Long, Long>> both = new ArrayList<>();
                InputSession<Long>[] in = new InputSession[1];
                Probe probe = w.dataflow("keying", scope -> {
                    in[0] = InputSession.create(scope, "records", DataType.longs());
                    Collection<Long> records = in[0].collection();
                    both.add(records.arrangeLongsByKey(x -> x >>> 8, x -> x & 0xFF));
                    both.add(records.arrangeByKey(x -> x >>> 8, DataType.longs(), x -> x & 0xFF, DataType.longs()));
                    return both.get(0).batches().concat(both.get(1).batches()).probe();
                });
                SplittableRandom random = new SplittableRandom(17 + w.index());
                List<Long> live = new ArrayList<>();
                for (long t = 0; t < STEPS; t++) {
                    for (int i = 0; i < 40; i++) {
                        long x = random.nextInt(300) << 8 | random.nextInt(5);
                        in[0].updateLong(x, 1);
                        live.add(x);
                        if (random.nextInt(3) == 0) in[0].updateLong(live.remove(random.nextInt(live.size())), -1);
                    }
                    in[0].advanceTo(t + 1);
                    long done = t;
                    w.stepWhile(() -> probe.lessEqual(done));
                    for (int a = 0; a < 2; a++) {
                        Map<String, Long> seen = reads.computeIfAbsent(a + "@" + t, k -> new ConcurrentHashMap<>());
                        // the handle follows the frontier, t + 1 now; nothing is at t + 1 yet
                        both.get(a).trace().readAt(new long[] {t + 1},
                                (kc, k, vc, v, n) -> seen.merge(((LongColumn) kc).getLong(k) + "," + ((LongColumn) vc).getLong(v), n, Long::sum));
                    }
                }
                in[0].close();
                w.stepWhile(() -> !probe.isDone());
            });
            for (long t = 0; t < STEPS; t++) {
                Map<String, Long> longs = new TreeMap<>(reads.getOrDefault("0@" + t, Map.of()));
                assertThat(longs).as("workers %d time %d", workers, t).isNotEmpty().isEqualTo(new TreeMap<>(reads.getOrDefault("1@" + t, Map.of())));
            }
        }
    }

    @Test
    void aCollectionOfOtherDataIsRefused() {
        Timely.run(Config.workers(1), w -> w.dataflow("refused", scope -> {
            InputSession<String> in = InputSession.create(scope, "strings", DataType.strings());
            assertThatThrownBy(() -> in.collection().arrangeLongsByKey(x -> x, x -> x))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a collection of longs");
            return null;
        }));
    }
}
