package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A transient dataflow that imported a shared trace gives its share back when dropped, and
 * never runs again; the dataflow that owns the trace goes on as before.
 */
class DropDataflowTest {
    private static final DataType<Long> L = DataType.longs();

    @Test
    void droppingAnImportingDataflowReleasesItsHandleAndStopsIt() {
        Timely.run(Config.workers(1), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Arrangement<Long, Unit>[] table = new Arrangement[1];
            Probe owner = w.dataflow("table", scope -> {
                in[0] = InputSession.create(scope, "t", L);
                table[0] = in[0].collection().arrangeBySelf();
                return table[0].asCollection().probe();
            });
            in[0].insert(1L);
            in[0].advanceTo(1);
            w.stepWhile(() -> owner.lessThan(1));
            int before = table[0].trace().trace().handleCount();

            List<Long> seen = new ArrayList<>();
            int[] index = new int[1];
            Probe reader = w.dataflow("select", scope -> {
                index[0] = scope.dataflowIndex();
                return table[0].importInto(scope).asCollection().inspect((kv, t, d) -> seen.add(kv.key())).probe();
            });
            w.stepWhile(() -> reader.lessThan(1));
            assertThat(seen).containsExactly(1L);
            assertThat(table[0].trace().trace().handleCount()).isEqualTo(before + 1);

            w.dropDataflow(index[0]);
            assertThat(table[0].trace().trace().handleCount()).isEqualTo(before);
            in[0].insert(2L);
            in[0].advanceTo(2);
            w.stepWhile(() -> owner.lessThan(2));
            assertThat(seen).as("a dropped dataflow sees nothing more").containsExactly(1L);
            in[0].close();
            w.stepWhile(() -> !owner.isDone());
        });
    }
}
