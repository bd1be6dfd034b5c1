package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Trace;
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

    /**
     * With totally ordered times a reduce derives a key's output before the round from its input
     * less the fresh updates. A fresh retraction that cancelled in a merge against the history
     * it retracts is gone from the input trace, and still had a count before the round: here
     * the trace completes every merge as it begins, so the history of 7 (advanced to time 1)
     * and its retraction at time 1 cancel before the count reads the trace.
     */
    @Test
    void aFreshRetractionMergedAwayInTheInputTraceStillRetractsTheCount() {
        // (record, time, diff), stepped time by time until the output passes each
        long[][] script = {{7, 0, 1}, {8, 0, 1}, {20, 1, 1}, {21, 2, 1}, {22, 3, 1}, {23, 4, 1}, {7, 5, -1}, {24, 6, 1}, {7, 7, 2}, {7, 8, -1}, {8, 8, -1}};
        long last = script[script.length - 1][1];
        List<Object[]> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("count", scope -> {
                in[0] = InputSession.create(scope, "in", DataType.longs());
                Arrangement<Long, Unit> arranged = Arrangement.arrange(in[0].collection().stream(), "bySelf", DataType.longs(), DataType.unit(), Trace.UNFUELED);
                Arrangement<Long, Long> counts = arranged.count();
                // the count's share is then the input trace's only reader, and nothing holds its
                // batches apart: each merges with the history below it as it arrives
                arranged.trace().drop();
                return counts.asCollection().inspect((d, t, diff) -> out.add(new Object[] {d.key() * 100 + d.val(), t[0], diff})).probe();
            });
            for (long t = 0; t <= last; t++) {
                for (long[] u : script) {
                    if (u[1] == t) in[0].update(u[0], u[2]);
                }
                in[0].advanceTo(t + 1);
                long passed = t;
                w.stepWhile(() -> probe.lessEqual(passed));
            }
            in[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
        for (long t = 0; t <= last; t++) {
            Map<Long, Long> counts = new HashMap<>();
            for (long[] u : script) {
                if (u[1] <= t) counts.merge(u[0], u[2], Long::sum);
            }
            // the count's records as key * 100 + count
            Map<Long, Long> expected = new HashMap<>();
            counts.forEach((k, n) -> {
                if (n != 0) expected.put(k * 100 + n, 1L);
            });
            assertThat(at(out, t)).as("time %d", t).isEqualTo(expected);
        }
    }

    /**
     * The same with a reducer that reads the values in order: a fresh value that cancelled in a
     * merge gets a place among the key's values to derive the output before the round, and that
     * place was after the trace's values, so a max took it for the greatest. Found by
     * SeededRebuildPropertyTest (a restored view's import, compacted to its checkpoint); here one
     * key holds the values of the script above.
     */
    @Test
    void aFreshRetractionMergedAwayInTheInputTraceLeavesTheValuesInOrder() {
        long[][] script = {{7, 0, 1}, {8, 0, 1}, {20, 1, 1}, {21, 2, 1}, {22, 3, 1}, {23, 4, 1}, {7, 5, -1}, {24, 6, 1}, {7, 7, 2}, {7, 8, -1}, {8, 8, -1}};
        long last = script[script.length - 1][1];
        DataType<Long> l = DataType.longs();
        List<Object[]> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe probe = w.dataflow("max", scope -> {
                in[0] = InputSession.create(scope, "in", l);
                // every record under key 0, as the value
                dev.tributary.timely.Stream<dev.tributary.arrangements.Updates> keyed = in[0].collection().stream().unary("key", dev.tributary.timely.Pact.pipeline(),
                        dev.tributary.arrangements.Updates.type(l.newColumn(1), l.newColumn(1), 1), (input, output) -> input.forEach((cap, data) -> {
                            dev.tributary.arrangements.Updates o = output.newContainer(data.size());
                            for (int i = 0; i < data.size(); i++) {
                                l.append(o.keys(), 0L);
                                l.append(o.vals(), l.get(data.keys(), i));
                                o.push(data.times(), i, data.diffs()[i]);
                            }
                            output.send(cap, o);
                        }));
                Arrangement<Long, Long> arranged = Arrangement.arrange(keyed, "byKey", l, l, Trace.UNFUELED);
                Collection<KV<Long, Long>> max = arranged.max();
                // the max's share is the input trace's only reader, as for the count above
                arranged.trace().drop();
                return max.inspect((d, t, diff) -> out.add(new Object[] {d.val(), t[0], diff})).probe();
            });
            for (long t = 0; t <= last; t++) {
                for (long[] u : script) {
                    if (u[1] == t) in[0].update(u[0], u[2]);
                }
                in[0].advanceTo(t + 1);
                long passed = t;
                w.stepWhile(() -> probe.lessEqual(passed));
            }
            in[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
        for (long t = 0; t <= last; t++) {
            Map<Long, Long> counts = new HashMap<>();
            for (long[] u : script) {
                if (u[1] <= t) counts.merge(u[0], u[2], Long::sum);
            }
            long max = counts.entrySet().stream().filter(e -> e.getValue() > 0).mapToLong(Map.Entry::getKey).max().getAsLong();
            assertThat(at(out, t)).as("time %d", t).isEqualTo(Map.of(max, 1L));
        }
    }

    private static Map<Long, Long> at(List<Object[]> updates, long time) {
        Map<Long, Long> m = new HashMap<>();
        for (Object[] u : updates) {
            if ((long) u[1] <= time) m.merge((Long) u[0], (Long) u[2], Long::sum);
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }

    /**
     * A reduce's and a top-k's outputs are traces they write themselves: once the input stops
     * changing they go on merging in the worker's idle steps, as an arrangement does, until each
     * key holds one update (before, the history of every round stayed for good).
     */
    @Test
    void anIdleReduceOrTopKMergesItsOutputToOneUpdatePerKey() {
        int keys = 1000;
        int rounds = 10;
        DataType<Long> l = DataType.longs();
        Timely.run(Config.workers(1), w -> {
            InputSession<KV<Long, Long>>[] in = new InputSession[1];
            List<Arrangement<Long, Long>> outputs = new ArrayList<>();
            Probe probe = w.dataflow("reduces", scope -> {
                in[0] = InputSession.create(scope, "in", DataType.pairs(l, l));
                Arrangement<Long, Long> byKey = in[0].collection().arrangeByKey(KV::key, l, KV::val, l);
                outputs.add(byKey.reduce("count", (k, vals, out) -> out.add((long) vals.size(), 1), l));
                outputs.add(byKey.topK("min", 0, 1));
                return outputs.get(0).asCollection().concat(outputs.get(1).asCollection()).probe();
            });
            for (int r = 0; r < rounds; r++) {
                for (long k = 0; k < keys; k++) in[0].insert(KV.of(k, (long) (rounds - r))); // a new count and a new least value
                in[0].advanceTo(r + 1);
                w.stepWhile(() -> probe.lessThan(in[0].time()));
            }
            for (Arrangement<Long, Long> out : outputs) assertThat(out.trace().trace().updateCount()).isGreaterThan(keys);
            for (int step = 0; step < 100_000 && outputs.stream().anyMatch(o -> o.trace().trace().updateCount() > keys); step++) w.step();
            for (Arrangement<Long, Long> out : outputs) assertThat(out.trace().trace().updateCount()).as(out.toString()).isEqualTo(keys);
            in[0].close();
        });
    }
}
