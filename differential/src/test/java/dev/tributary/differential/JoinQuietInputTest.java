package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A join whose one input stops changing still lets that input's trace merge: it acknowledges the
 * empty batches the quiet input's arrangement adds (and never sends) from the input frontier,
 * instead of holding every later batch pending.
 */
class JoinQuietInputTest {
    private static final DataType<Long> L = DataType.longs();

    @Test
    void theQuietSideKeepsAFewBatchesOverManySteps() {
        AtomicLong matches = new AtomicLong();
        int[] batches = new int[1];
        Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] in = new InputSession[2];
            Arrangement<Long, Long>[] quiet = new Arrangement[1];
            Probe probe = w.dataflow("join", scope -> {
                in[0] = InputSession.create(scope, "quiet", L);
                in[1] = InputSession.create(scope, "busy", L);
                quiet[0] = in[0].collection().arrangeByKey(x -> x % 10, L, x -> x, L);
                Arrangement<Long, Long> busy = in[1].collection().arrangeByKey(x -> x % 10, L, x -> x, L);
                return quiet[0].join(busy, (k, a, b) -> a, L).inspect((d, t, diff) -> matches.addAndGet(diff)).probe();
            });
            for (long x = 0; x < 10; x++) in[0].insert(x);
            for (long t = 1; t <= 300; t++) {
                in[1].insert(t);
                in[0].advanceTo(t);
                in[1].advanceTo(t);
                w.stepWhile(() -> probe.lessThan(in[1].time()));
            }
            batches[0] = quiet[0].trace().trace().batchCount();
            in[0].close();
            in[1].close();
            w.stepWhile(() -> !probe.isDone());
        });
        assertThat(matches.get()).isEqualTo(300);
        assertThat(batches[0]).as("batches of the quiet input's trace after 300 steps").isLessThan(30);
    }
}
