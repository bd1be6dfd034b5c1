package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import org.junit.jupiter.api.Test;

/** Merging a (key, value) with several updates of multi-coordinate times keeps every update (the merge's scratch grows by times, not only by updates). */
class ManyTimesMergeTest {
    @Test
    void mergesSixProductTimesOfOneValueFromEachSide() {
        for (int arity = 2; arity <= 3; arity++) {
            TraceHandle h = Trace.create("many", new LongColumn(), new LongColumn(), arity, Trace.UNFUELED);
            h.setPhysicalCompaction(Antichain.empty(arity));
            Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), arity);
            long expected = 0;
            for (int batch = 0; batch < 2; batch++) {
                Updates u = new Updates(new LongColumn(), new LongColumn(), arity);
                for (int i = 0; i < 6; i++) {
                    ((LongColumn) u.keys()).add(7);
                    ((LongColumn) u.vals()).add(1);
                    long[] t = new long[arity];
                    t[0] = batch;
                    t[arity - 1] = i;
                    u.push(t, i + 1);
                    expected += i + 1;
                }
                batcher.push(u);
                long[] upper = new long[arity];
                upper[0] = batch + 1;
                h.trace().insert(batcher.seal(Antichain.of(upper)));
            }
            while (h.trace().exert(1 << 20)) {
                // until compact
            }
            long[] late = new long[arity];
            late[0] = 5;
            late[arity - 1] = 100;
            long[] sum = {0};
            h.readAt(late, (kc, k, vc, v, n) -> sum[0] += n);
            assertThat(sum[0]).as("arity %d", arity).isEqualTo(expected);
            assertThat(h.trace().updateCount()).isEqualTo(12);
        }
    }
}
