package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dropped dataflow lets go of its attachments (the state accounting hangs traces off them), so
 * the dataflow's slot, which the worker keeps, holds nothing alive; its drop actions run once.
 */
class DropAttachmentsTest {
    /** Stands for state attached to a dataflow. */
    static final class Marker {}

    @Test
    void droppingADataflowClearsItsAttachments() {
        List<Object> seen = new ArrayList<>();
        Timely.run(Config.workers(1), w -> {
            Scope[] scope = new Scope[1];
            int[] runs = {0};
            int index = w.dataflow("attached", s -> {
                scope[0] = s;
                seen.add(s.attachment(Marker.class, Marker::new));
                s.onDrop(() -> runs[0]++);
                return s.dataflowIndex();
            });
            seen.add(scope[0].attachment(Marker.class, Marker::new));
            w.dropDataflow(index);
            w.dropDataflow(index);
            seen.add(scope[0].attachment(Marker.class, Marker::new));
            seen.add(runs[0]);
        });
        assertThat(seen.get(1)).as("one attachment per type while it lives").isSameAs(seen.get(0));
        assertThat(seen.get(2)).as("none left after the drop").isNotSameAs(seen.get(0));
        assertThat(seen.get(3)).isEqualTo(1);
    }

    /**
     * A dropped dataflow leaves nothing behind that a step visits or that holds memory: a server
     * builds one per query, and each left its tracker and operators reachable (46 KB per SELECT 1)
     * and made every later step walk it.
     */
    @Test
    void droppedDataflowsAreForgotten() {
        List<Object> seen = new ArrayList<>();
        Timely.run(Config.workers(1), w -> {
            int before = w.dataflowsHeld();
            java.lang.ref.WeakReference<?>[] last = new java.lang.ref.WeakReference<?>[1];
            for (int i = 0; i < 1000; i++) {
                int index = w.dataflow("query", s -> {
                    InputHandle<LongContainer> in = s.input("in", LongContainer.TYPE);
                    in.stream().probe();
                    last[0] = new java.lang.ref.WeakReference<>(in);
                    return s.dataflowIndex();
                });
                w.step();
                w.dropDataflow(index);
            }
            seen.add(w.dataflowsHeld() - before);
            seen.add(w.dataflowFailure(5));
            for (int i = 0; i < 5 && last[0].get() != null; i++) System.gc();
            seen.add(last[0].get() == null);
        });
        assertThat(seen.get(0)).as("dataflows held after 1000 built and dropped").isEqualTo(0);
        assertThat(seen.get(1)).isNull();
        assertThat(seen.get(2)).as("the last dropped dataflow's input is garbage").isEqualTo(true);
    }
}
