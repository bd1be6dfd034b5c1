package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The paths for {@code long} data that make no object per record ({@link InputSession#updateLong},
 * {@link Arrangement#joinLongs}, {@link Reducer.Output#addLong}): the same updates as the boxed
 * paths, and a clear error where the data is not longs. The oracle properties (property-tests)
 * check {@code joinLongs} and the reducers against recomputation.
 */
class LongPathsTest {
    /** Feeds {@code (record, time, diff)} triples through {@code updateLong} (or {@code update}) into {@code build}, on {@code workers} workers. */
    private static List<SmokeTest.Upd<Long>> run(int workers, boolean primitive, long[][] input,
            java.util.function.Function<Collection<Long>, Collection<Long>> build) {
        List<SmokeTest.Upd<Long>> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] session = new InputSession[1];
            Probe probe = w.dataflow("test", scope -> {
                session[0] = InputSession.create(scope, "in", DataType.longs());
                return build.apply(session[0].collection()).inspect((d, t, diff) -> out.add(new SmokeTest.Upd<>(d, t[0], diff))).probe();
            });
            long time = 0;
            for (int i = 0; i < input.length; i++) {
                long[] u = input[i];
                if (u[1] != time) {
                    time = u[1];
                    session[0].advanceTo(time);
                    w.step();
                }
                if (i % w.peers() != w.index()) continue;
                if (primitive) session[0].updateLong(u[0], u[2]);
                else session[0].update(u[0], u[2]);
            }
            session[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
        return out;
    }

    /** Records {@code key * 100 + val}, in time order, with retractions. */
    private static final long[][] INPUT = {{101, 0, 1}, {102, 0, 1}, {205, 0, 2}, {101, 1, -1}, {303, 1, 1}, {207, 2, 1}, {205, 2, -2}, {102, 3, -1}, {104, 3, 1}};

    private static Arrangement<Long, Long> byKey(Collection<Long> c) {
        return c.arrangeByKey(x -> x / 100, DataType.longs(), x -> x % 100, DataType.longs());
    }

    @Test
    void joinLongsMakesTheUpdatesOfJoin() {
        for (int w = 1; w <= 3; w++) {
            List<SmokeTest.Upd<Long>> boxed = run(w, false, INPUT, c -> byKey(c).join(byKey(c.map(x -> x + 10, DataType.longs())),
                    (k, v1, v2) -> k * 10_000 + v1 * 100 + v2, DataType.longs()));
            List<SmokeTest.Upd<Long>> primitive = run(w, true, INPUT, c -> byKey(c).joinLongs(byKey(c.map(x -> x + 10, DataType.longs())),
                    (k, v1, v2) -> k * 10_000 + v1 * 100 + v2));
            for (long t = 0; t <= 3; t++) {
                Map<Long, Long> expected = SmokeTest.accumulate(boxed, t);
                assertThat(SmokeTest.accumulate(primitive, t)).as("w=%d t=%d", w, t).isEqualTo(expected);
            }
            assertThat(SmokeTest.accumulate(primitive, 3)).as("w=%d", w).isEqualTo(Map.of(10_414L, 1L, 20_717L, 1L, 30_313L, 1L));
        }
    }

    @Test
    void countAndSumThroughAddLongAtEveryTime() {
        for (int w = 1; w <= 3; w++) {
            List<SmokeTest.Upd<Long>> counts = run(w, true, INPUT, c -> byKey(c).count().flatten((k, n) -> k * 100 + n, DataType.longs()));
            assertThat(SmokeTest.accumulate(counts, 0)).as("w=%d", w).isEqualTo(Map.of(102L, 1L, 202L, 1L));
            assertThat(SmokeTest.accumulate(counts, 1)).as("w=%d", w).isEqualTo(Map.of(101L, 1L, 202L, 1L, 301L, 1L));
            assertThat(SmokeTest.accumulate(counts, 2)).as("w=%d", w).isEqualTo(Map.of(101L, 1L, 201L, 1L, 301L, 1L));
            assertThat(SmokeTest.accumulate(counts, 3)).as("w=%d", w).isEqualTo(Map.of(101L, 1L, 201L, 1L, 301L, 1L));
            List<SmokeTest.Upd<Long>> sums = run(w, true, INPUT, c -> byKey(c).sum(v -> v).map(kv -> kv.key() * 100 + kv.val(), DataType.longs()));
            assertThat(SmokeTest.accumulate(sums, 0)).as("w=%d", w).isEqualTo(Map.of(103L, 1L, 210L, 1L));
            assertThat(SmokeTest.accumulate(sums, 3)).as("w=%d", w).isEqualTo(Map.of(104L, 1L, 207L, 1L, 303L, 1L));
        }
    }

    @Test
    void updateLongIsUpdate() {
        for (int w = 1; w <= 2; w++) {
            List<SmokeTest.Upd<Long>> boxed = run(w, false, INPUT, c -> c);
            List<SmokeTest.Upd<Long>> primitive = run(w, true, INPUT, c -> c);
            for (long t = 0; t <= 3; t++) assertThat(SmokeTest.accumulate(primitive, t)).isEqualTo(SmokeTest.accumulate(boxed, t));
        }
    }

    @Test
    void theLongPathsRefuseOtherTypes() {
        assertThatThrownBy(() -> Timely.run(Config.workers(1), w -> w.dataflow("strings", scope -> {
            InputSession<String> s = InputSession.create(scope, "in", DataType.strings());
            s.updateLong(1, 1);
            return s.collection().probe();
        }))).hasStackTraceContaining("updateLong on input").hasStackTraceContaining("not longs");
        assertThatThrownBy(() -> Timely.run(Config.workers(1), w -> w.dataflow("strings", scope -> {
            Collection<Long> c = InputSession.create(scope, "in", DataType.longs()).collection();
            Arrangement<Long, String> a = c.arrangeByKey(x -> x, DataType.longs(), x -> "v" + x, DataType.strings());
            return a.joinLongs(byKey(c), (k, x, y) -> k).probe();
        }))).hasStackTraceContaining("joinLongs needs long keys and values");
        assertThatThrownBy(() -> Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] session = new InputSession[1];
            Probe probe = w.dataflow("addLong", scope -> {
                session[0] = InputSession.create(scope, "in", DataType.longs());
                return byKey(session[0].collection()).reduce("wrong", (k, in, out) -> out.addLong(1, 1), DataType.strings()).asCollection().probe();
            });
            session[0].updateLong(101, 1);
            session[0].close();
            w.stepWhile(() -> !probe.isDone());
        })).hasStackTraceContaining("addLong on a reduce whose output type is");
    }
}
