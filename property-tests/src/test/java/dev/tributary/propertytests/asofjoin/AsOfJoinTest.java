package dev.tributary.propertytests.asofjoin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.asofjoin.AsOfJoin;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.KV;
import dev.tributary.propertytests.Guard;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The as-of lookup against its definition, recomputed from scratch: at every time {@code T}, the
 * output accumulated at {@code T} equals, for each fact present at {@code T} whose lookup time is
 * {@code <= T}, the fact joined with the dimension accumulated at its lookup time (nothing before
 * the since; the NULL row under LEFT where nothing matches). That is the desugaring over
 * {@code CHANGES(x AS OF lit)} with {@code change_time <= expr AND expr <= now()}, evaluated on
 * the accumulated inputs. Random dimension histories with retractions, facts with lookup times
 * before the since, in the past and in the future, fact retractions (also of facts never
 * inserted, so counts go negative), one to three workers.
 */
class AsOfJoinTest {
    private static final DataType<Long> L = DataType.longs();
    private static final DataType<KV<Long, Long>> PAIR = DataType.pairs(L, L);
    private static final Comparator<Fact> FACT_ORDER =
            Comparator.comparingLong(Fact::id).thenComparingLong(Fact::key).thenComparingLong(Fact::lookup);
    private static final DataType<Fact> FACT = DataType.ordered(FACT_ORDER);

    /** A dimension change: the value {@code val} of {@code key}, at {@code time}. */
    record DimUpdate(long key, long val, long time, long diff) {}

    /** An outer row: it looks up {@code key} as of {@code lookup}. */
    record Fact(long id, long key, long lookup) {}

    /** A change of the outer rows at {@code time}. */
    record FactUpdate(Fact fact, long time, long diff) {}

    @Provide
    Arbitrary<List<DimUpdate>> dimension() {
        return Combinators.combine(Arbitraries.longs().between(0, 3), Arbitraries.longs().between(0, 2),
                Arbitraries.longs().between(0, 20), Arbitraries.of(1L, 1L, -1L))
                .as(DimUpdate::new).list().ofMaxSize(30);
    }

    @Provide
    Arbitrary<List<FactUpdate>> facts() {
        Arbitrary<Fact> fact = Combinators.combine(Arbitraries.longs().between(0, 5), Arbitraries.longs().between(0, 3),
                Arbitraries.longs().between(0, 30)).as(Fact::new);
        return Combinators.combine(fact, Arbitraries.longs().between(0, 20), Arbitraries.of(1L, 1L, -1L))
                .as(FactUpdate::new).list().ofMaxSize(20);
    }

    @Property(seed = "801")
    void lookupEqualsItsDefinitionAtEveryTime(@ForAll("dimension") List<DimUpdate> dim, @ForAll("facts") List<FactUpdate> facts,
            @ForAll @IntRange(min = 0, max = 10) int since, @ForAll boolean left, @ForAll @IntRange(min = 1, max = 3) int workers) {
        List<Object[]> out = run(dim, facts, since, left, workers);
        for (long at = 0; at <= 32; at++) {
            assertThat(accumulate(out, at)).as("output at %d (since %d, %s, %d workers)", at, since, left ? "LEFT" : "inner", workers)
                    .isEqualTo(model(dim, facts, since, left, at));
        }
    }

    private static String render(Fact d, Long v) {
        return d.id() + ":" + d.key() + "@" + d.lookup() + "=" + (v == null ? "NULL" : v.toString());
    }

    /** The definition, on the inputs accumulated at {@code at}. */
    static Map<String, Long> model(List<DimUpdate> dim, List<FactUpdate> facts, long since, boolean left, long at) {
        Map<Fact, Long> present = new TreeMap<>(FACT_ORDER);
        for (FactUpdate u : facts) if (u.time() <= at) present.merge(u.fact(), u.diff(), Long::sum);
        Map<String, Long> out = new TreeMap<>();
        for (var e : present.entrySet()) {
            Fact d = e.getKey();
            long c = e.getValue();
            if (c == 0 || d.lookup() > at) continue;
            Map<Long, Long> values = new TreeMap<>();
            if (d.lookup() >= since) {
                for (DimUpdate u : dim) if (u.key() == d.key() && u.time() <= d.lookup()) values.merge(u.val(), u.diff(), Long::sum);
            }
            values.values().removeIf(n -> n == 0);
            for (var v : values.entrySet()) out.merge(render(d, v.getKey()), c * v.getValue(), Long::sum);
            if (left && values.isEmpty()) out.merge(render(d, null), c, Long::sum);
        }
        out.values().removeIf(n -> n == 0);
        return out;
    }

    static Map<String, Long> accumulate(List<Object[]> out, long at) {
        Map<String, Long> acc = new TreeMap<>();
        for (Object[] o : out) if ((Long) o[1] <= at) acc.merge((String) o[0], (Long) o[2], Long::sum);
        acc.values().removeIf(n -> n == 0);
        return acc;
    }

    /** Runs the lookup on {@code workers} workers, each feeding a share of the updates in time order; returns every output update. */
    static List<Object[]> run(List<DimUpdate> dim, List<FactUpdate> facts, long since, boolean left, int workers) {
        List<DimUpdate> dims = new ArrayList<>(dim);
        dims.sort(Comparator.comparingLong(DimUpdate::time));
        List<FactUpdate> fs = new ArrayList<>(facts);
        fs.sort(Comparator.comparingLong(FactUpdate::time));
        List<Object[]> out = Collections.synchronizedList(new ArrayList<>());
        Guard.run(Config.workers(workers), w -> {
            InputSession<KV<Long, Long>>[] dimIn = new InputSession[1];
            InputSession<Fact>[] factIn = new InputSession[1];
            Probe probe = w.dataflow("asof", scope -> {
                dimIn[0] = InputSession.create(scope, "prices", PAIR);
                factIn[0] = InputSession.create(scope, "orders", FACT);
                Arrangement<Long, Long> byKey = dimIn[0].collection().arrangeByKey(KV::key, L, KV::val, L);
                AsOfJoin<String> join = AsOfJoin.lookup(factIn[0].collection(), Fact::key, Fact::lookup, since, byKey, left,
                        AsOfJoinTest::render, DataType.strings());
                return join.output().inspect((s, t, d) -> out.add(new Object[] {s, t[0], d})).probe();
            });
            int di = 0;
            int fi = 0;
            for (long t = 0; t <= 20; t++) {
                dimIn[0].advanceTo(t);
                factIn[0].advanceTo(t);
                for (; di < dims.size() && dims.get(di).time() == t; di++) {
                    DimUpdate u = dims.get(di);
                    if (di % w.peers() == w.index()) dimIn[0].update(KV.of(u.key(), u.val()), u.diff());
                }
                for (; fi < fs.size() && fs.get(fi).time() == t; fi++) {
                    FactUpdate u = fs.get(fi);
                    if (fi % w.peers() == w.index()) factIn[0].update(u.fact(), u.diff());
                }
                if (t % 4 == 0) {
                    long upTo = t;
                    w.stepWhile(() -> probe.lessThan(new long[] {upTo}));
                }
            }
            dimIn[0].close();
            factIn[0].close();
            w.stepWhile(() -> !probe.isDone());
        }, Duration.ofSeconds(30));
        return out;
    }
}
