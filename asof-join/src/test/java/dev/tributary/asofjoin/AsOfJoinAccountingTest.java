package dev.tributary.asofjoin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.KV;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the lookup holds: facts waiting for a future lookup time are counted until the dimension
 * passes it, the dimension's history since the given since stays readable, and a since the
 * dimension has already compacted past is refused when the dataflow is built.
 */
class AsOfJoinAccountingTest {
    private static final DataType<Long> L = DataType.longs();
    private static final DataType<KV<Long, Long>> PAIR = DataType.pairs(L, L);

    @Test
    void waitingFactsAndHistoryAreCountedAndFutureLookupsWaitForTheDimension() {
        List<String> out = new ArrayList<>();
        List<long[]> counts = new ArrayList<>();
        Timely.run(Config.workers(1), w -> {
            InputSession<KV<Long, Long>>[] prices = new InputSession[1];
            InputSession<KV<Long, Long>>[] orders = new InputSession[1];
            AsOfJoin<String>[] join = new AsOfJoin[1];
            Probe probe = w.dataflow("asof", scope -> {
                prices[0] = InputSession.create(scope, "prices", PAIR);
                orders[0] = InputSession.create(scope, "orders", PAIR);
                Arrangement<Long, Long> bySym = prices[0].collection().arrangeByKey(KV::key, L, KV::val, L);
                // an order is (sym, lookup time)
                join[0] = AsOfJoin.lookup(orders[0].collection(), KV::key, KV::val, 0, bySym, true,
                        (o, price) -> o.val() + "->" + price, DataType.strings());
                return join[0].output().inspect((s, t, d) -> out.add(s + "@" + t[0] + "x" + d)).probe();
            });
            for (long t = 0; t < 3; t++) {
                prices[0].advanceTo(t);
                orders[0].advanceTo(t);
                if (t > 0) prices[0].update(KV.of(1L, t - 1), -1);
                prices[0].update(KV.of(1L, t), 1);
            }
            prices[0].advanceTo(3);
            orders[0].advanceTo(3);
            orders[0].update(KV.of(1L, 1L), 1);     // looks up time 1: ready
            orders[0].update(KV.of(1L, 100L), 1);   // looks up time 100: waits
            prices[0].advanceTo(4);
            orders[0].advanceTo(4);
            w.stepWhile(() -> probe.lessThan(4));
            counts.add(new long[] {join[0].waiting(), join[0].historyUpdates()});
            prices[0].advanceTo(101);
            orders[0].advanceTo(101);
            w.stepWhile(() -> probe.lessThan(101));
            counts.add(new long[] {join[0].waiting(), join[0].historyUpdates()});
            w.drain();
            counts.add(new long[] {join[0].waiting(), join[0].historyUpdates()});
        });
        // the order timed 1 got the price at 1, at its own time 3; the one timed 100 the price then (2), at 100
        assertThat(out).containsExactly("1->1@3x1", "100->2@100x1");
        assertThat(counts.get(0)).as("waiting, history at 4").containsExactly(1, 5);
        assertThat(counts.get(1)).as("waiting, history at 101").containsExactly(0, 5);
        assertThat(counts.get(2)).as("after the dataflow ends").containsExactly(0, 0);
    }

    @Test
    void aSinceThatTheDimensionHasCompactedPastIsRefused() {
        Timely.run(Config.workers(1), w -> {
            InputSession<KV<Long, Long>>[] prices = new InputSession[1];
            Arrangement<Long, Long>[] bySym = new Arrangement[1];
            Probe probe = w.dataflow("prices", scope -> {
                prices[0] = InputSession.create(scope, "prices", PAIR);
                bySym[0] = prices[0].collection().arrangeByKey(KV::key, L, KV::val, L);
                return bySym[0].asCollection().probe();
            });
            prices[0].update(KV.of(1L, 1L), 1);
            prices[0].advanceTo(10);
            w.stepWhile(() -> probe.lessThan(10));
            bySym[0].trace().setLogicalCompaction(Antichain.of(10)); // the one reader so far reads only at 10 and later
            assertThatThrownBy(() -> w.dataflow("late", scope -> {
                InputSession<KV<Long, Long>> orders = InputSession.create(scope, "orders", PAIR);
                return AsOfJoin.lookup(orders.collection(), KV::key, KV::val, 5, bySym[0].importInto(scope), false,
                        (o, p) -> p, L).output().probe();
            })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be read as of 5");
            prices[0].close();
            w.stepWhile(() -> !probe.isDone());
        });
    }
}
