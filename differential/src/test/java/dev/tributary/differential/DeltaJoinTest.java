package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A three-way delta join made of half-joins (each input's changes meet the other inputs'
 * arrangements, later inputs at {@code <= t} and earlier ones at {@code < t}) has, at every time,
 * the same accumulated output as the join of the accumulated inputs, recomputed from scratch;
 * with simultaneous changes to several inputs, retractions, and one to three workers.
 */
class DeltaJoinTest {
    private static final DataType<Long> L = DataType.longs();
    private static final DataType<KV<Long, Long>> P = DataType.pairs(L, L);

    /** One update: input, (key, value), time, diff. */
    record U(int input, long key, long val, long time, long diff) {}

    private static List<U> history(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<U> out = new ArrayList<>();
        for (long t = 0; t < 30; t++) {
            int n = r.nextInt(6);
            for (int i = 0; i < n; i++) out.add(new U(r.nextInt(3), r.nextInt(4), r.nextInt(3), t, r.nextInt(4) == 0 ? -1 : 1));
        }
        return out;
    }

    /** The join of the three inputs on their keys, accumulated at {@code at}, recomputed from scratch. */
    private static Map<String, Long> oracle(List<U> history, long at) {
        List<List<long[]>> acc = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (U u : history) if (u.time() <= at) acc.get(u.input()).add(new long[] {u.key(), u.val(), u.diff()});
        Map<String, Long> out = new TreeMap<>();
        for (long[] a : acc.get(0)) {
            for (long[] b : acc.get(1)) {
                if (b[0] != a[0]) continue;
                for (long[] c : acc.get(2)) {
                    if (c[0] != a[0]) continue;
                    out.merge(a[0] + ":" + a[1] + ":" + b[1] + ":" + c[1], a[2] * b[2] * c[2], Long::sum);
                }
            }
        }
        out.values().removeIf(n -> n == 0);
        return out;
    }

    /**
     * The three-way join of {@code changes} on their keys as a delta join: the term of input i
     * looks its changes up in the other inputs' {@code lookups}, inputs after i at {@code <= t},
     * inputs before it at {@code < t}, all taken to begin at {@code asOf}.
     */
    private static Collection<String> deltaJoin(List<Collection<KV<Long, Long>>> changes, List<Arrangement<Long, Long>> lookups, long asOf) {
        DataType<List<Long>> rows = DataType.ordered((List<Long> x, List<Long> y) -> x.toString().compareTo(y.toString()));
        Collection<String> all = null;
        for (int i = 0; i < 3; i++) {
            int self = i;
            Collection<List<Long>> partial = changes.get(i).map(kv -> {
                List<Long> row = new ArrayList<>(List.of(kv.key(), -1L, -1L, -1L));
                row.set(1 + self, kv.val());
                return row;
            }, rows);
            for (int j = 0; j < 3; j++) {
                if (j == i) continue;
                int other = j;
                partial = partial.halfJoin(row -> row.get(0), lookups.get(j), new HalfJoin.ReadTime.OwnTime<>(j < i, asOf), false, (row, v) -> {
                    List<Long> next = new ArrayList<>(row);
                    next.set(1 + other, v);
                    return next;
                }, rows, null);
            }
            Collection<String> term = partial.map(row -> row.get(0) + ":" + row.get(1) + ":" + row.get(2) + ":" + row.get(3), DataType.strings());
            all = all == null ? term : all.concat(term);
        }
        return all;
    }

    private static Map<String, Long> run(List<U> history, int workers, long at) {
        List<Object[]> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(workers), w -> {
            List<InputSession<KV<Long, Long>>> in = new ArrayList<>();
            Probe probe = w.dataflow("delta", scope -> {
                for (int i = 0; i < 3; i++) in.add(InputSession.create(scope, "in" + i, P));
                List<Arrangement<Long, Long>> arr = new ArrayList<>();
                for (int i = 0; i < 3; i++) arr.add(in.get(i).collection().arrangeByKey(KV::key, L, KV::val, L));
                List<Collection<KV<Long, Long>>> changes = new ArrayList<>();
                for (int i = 0; i < 3; i++) changes.add(in.get(i).collection());
                return deltaJoin(changes, arr, 0).inspect((s, t, d) -> out.add(new Object[] {s, t[0], d})).probe();
            });
            for (U u : history) {
                if (u.time() > in.get(0).time()[0]) for (InputSession<KV<Long, Long>> s : in) s.advanceTo(u.time());
                if ((u.key() + u.val() + u.time()) % w.peers() == w.index()) in.get(u.input()).update(KV.of(u.key(), u.val()), u.diff());
            }
            for (InputSession<KV<Long, Long>> s : in) s.close();
            w.stepWhile(() -> !probe.isDone());
        });
        Map<String, Long> acc = new TreeMap<>();
        for (Object[] o : out) if ((Long) o[1] <= at) acc.merge((String) o[0], (Long) o[2], Long::sum);
        acc.values().removeIf(n -> n == 0);
        return acc;
    }

    /**
     * The delta join made in a second dataflow over the first one's arrangements, after half the
     * history, with those arrangements' history compacted (as the server's indexes are when a view
     * is made over existing rows): the existing rows arrive at once, and at every time from then on
     * the output equals the join. Issue 23's repro ({@code ../shared/repro/delta-join-existing-rows.sh})
     * gave each existing row twice: a strict read just before a change's (old) time met the
     * history the traces had not compacted yet.
     */
    private static Map<String, Long> runOverCompactedImports(List<U> history, int workers, long split, long at) {
        List<Object[]> out = Collections.synchronizedList(new ArrayList<>());
        Timely.run(Config.workers(workers), w -> {
            List<InputSession<KV<Long, Long>>> in = new ArrayList<>();
            List<Arrangement<Long, Long>> arr = new ArrayList<>();
            Probe stored = w.dataflow("stored", scope -> {
                for (int i = 0; i < 3; i++) in.add(InputSession.create(scope, "in" + i, P));
                for (int i = 0; i < 3; i++) arr.add(in.get(i).collection().arrangeByKey(KV::key, L, KV::val, L));
                return arr.get(0).batches().concat(arr.get(1).batches()).concat(arr.get(2).batches()).probe();
            });
            // the server's read handles: history kept from the last read on, no boundaries
            List<dev.tributary.arrangements.TraceHandle> readers = new ArrayList<>();
            for (Arrangement<Long, Long> a : arr) {
                dev.tributary.arrangements.TraceHandle r = a.trace().share();
                r.setPhysicalCompaction(dev.tributary.timely.Antichain.empty(1));
                readers.add(r);
            }
            int next = feed(w, history, in, 0, split, stored);
            // some of the history compacted to the split, some not
            for (int i = 0; i < 3; i++) {
                readers.get(i).setLogicalCompaction(dev.tributary.timely.Antichain.of(split - i % 2));
                for (int round = 0; round < 3 && readers.get(i).trace().exert(1 << 20); round++) {
                    // a few rounds of merging, as idle workers do
                }
            }
            Probe view = w.dataflow("view", scope -> {
                List<Arrangement<Long, Long>> imported = new ArrayList<>();
                for (int i = 0; i < 3; i++) imported.add(arr.get(i).importInto(scope, readers.get(i)));
                List<Arrangement<Long, Long>> lookups = new ArrayList<>();
                for (int i = 0; i < 3; i++) lookups.add(arr.get(i).importInto(scope, readers.get(i)));
                List<Collection<KV<Long, Long>>> changes = new ArrayList<>();
                for (int i = 0; i < 3; i++) changes.add(imported.get(i).asCollection());
                return deltaJoin(changes, lookups, HalfJoin.asOf(lookups)).inspect((s, t, d) -> out.add(new Object[] {s, t[0], d})).probe();
            });
            feed(w, history, in, next, Long.MAX_VALUE, stored);
            for (dev.tributary.arrangements.TraceHandle r : readers) r.drop();
            for (InputSession<KV<Long, Long>> s : in) s.close();
            w.stepWhile(() -> !stored.isDone() || !view.isDone());
        });
        Map<String, Long> acc = new TreeMap<>();
        for (Object[] o : out) if ((Long) o[1] <= at) acc.merge((String) o[0], (Long) o[2], Long::sum);
        acc.values().removeIf(n -> n == 0);
        return acc;
    }

    /** Feeds the updates of {@code history} from index {@code from} with times before {@code until}, stepping until they are arranged; returns where it stopped. */
    private static int feed(dev.tributary.timely.Worker w, List<U> history, List<InputSession<KV<Long, Long>>> in, int from, long until, Probe probe) {
        int i = from;
        for (; i < history.size() && history.get(i).time() < until; i++) {
            U u = history.get(i);
            if (u.time() > in.get(0).time()[0]) for (InputSession<KV<Long, Long>> s : in) s.advanceTo(u.time());
            if ((u.key() + u.val() + u.time()) % w.peers() == w.index()) in.get(u.input()).update(KV.of(u.key(), u.val()), u.diff());
            long t = u.time();
            w.stepWhile(() -> probe.lessThan(t));
        }
        if (until != Long.MAX_VALUE) {
            for (InputSession<KV<Long, Long>> s : in) s.advanceTo(until);
            w.stepWhile(() -> probe.lessThan(until));
        }
        return i;
    }

    @Test
    void aDeltaJoinOverCompactedImportsCountsTheExistingRowsOnce() {
        long split = 15;
        for (long seed = 1; seed <= 8; seed++) {
            List<U> h = history(seed);
            for (int workers = 1; workers <= 2; workers++) {
                for (long at : new long[] {split, 20, 29}) {
                    assertThat(runOverCompactedImports(h, workers, split, at)).as("seed %d, %d workers, time %d", seed, workers, at).isEqualTo(oracle(h, at));
                }
            }
        }
    }

    @Test
    void deltaJoinOfHalfJoinsEqualsTheJoinAtEveryTime() {
        for (long seed = 1; seed <= 12; seed++) {
            List<U> h = history(seed);
            for (int workers = 1; workers <= 3; workers++) {
                for (long at : new long[] {0, 3, 10, 17, 29}) {
                    assertThat(run(h, workers, at)).as("seed %d, %d workers, time %d", seed, workers, at).isEqualTo(oracle(h, at));
                }
            }
        }
    }
}
