package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import org.junit.jupiter.api.Test;

/**
 * A dataflow's {@link HeldState} counts the arrangements built in it, each once however many
 * handles share it; an arrangement imported from another dataflow is that dataflow's; other
 * registered state is read when asked.
 */
class HeldStateTest {
    record Built(InputHandle<Updates> input, Arrange.Arranged arranged, Probe probe, HeldState held) {}

    @Test
    void countsOwnArrangementsOnceAndNotImportedOnes() {
        Timely.run(Config.workers(1), worker -> {
            Built a = worker.dataflow("a", scope -> {
                InputHandle<Updates> in = scope.input("updates", Updates.type(new LongColumn(), new LongColumn(), 1));
                Arrange.Arranged arranged = Arrange.arrange(in.stream(), "a", new LongColumn(), new LongColumn());
                HeldState.of(scope).trace(arranged.trace().trace()); // registered again: still counted once
                return new Built(in, arranged, arranged.batches().probe(), HeldState.of(scope));
            });
            Updates u = a.input().staged();
            for (long k = 0; k < 5; k++) {
                ((LongColumn) u.keys()).add(k);
                ((LongColumn) u.vals()).add(k * 10);
                u.push(0, 1);
            }
            a.input().advanceTo(1);
            worker.stepWhile(() -> a.probe().lessEqual(0));
            assertThat(a.held().total().records()).isEqualTo(5);
            assertThat(a.held().total().bytes()).isPositive();
            assertThat(a.held().parts()).extracting(HeldState.Part::name).containsExactly("a");

            long[] waiting = {3};
            HeldState[] other = new HeldState[1];
            Probe p = worker.dataflow("b", scope -> {
                Arrange.Arranged imported = Arrange.importTrace(a.arranged().trace(), scope, "a");
                other[0] = HeldState.of(scope);
                other[0].other("waiting", () -> waiting[0], () -> 8 * waiting[0]);
                return imported.batches().probe();
            });
            worker.stepWhile(() -> p.lessEqual(0));
            assertThat(other[0].parts()).containsExactly(new HeldState.Part("waiting", new HeldState.Size(3, 24)));
            waiting[0] = 0;
            assertThat(other[0].total()).isEqualTo(HeldState.Size.ZERO);

            a.input().close();
            a.arranged().trace().drop();
        });
    }
}
