package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A capability set keeps an antichain of owned capabilities, and a failed downgrade leaves it as it was. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CapabilitySetTest {
    private static long[] t(long... c) {
        return c;
    }

    private static List<long[]> times(CapabilitySet s) {
        List<long[]> out = new ArrayList<>();
        for (Capability c : s.sorted()) out.add(c.time());
        return out;
    }

    /** {@code insert} holds a copy; the capability made for it is dropped again. */
    private static void insertAt(CapabilitySet set, Capability cap, long[] time) {
        Capability c = cap.delayed(time);
        set.insert(c);
        c.drop();
    }

    @Test
    void insertKeepsTheMinimalCapabilitiesAndDowngradeToReplacesThem() {
        List<String> seen = new ArrayList<>();
        Timely.run(Config.workers(1), worker -> {
            worker.dataflow("caps", scope -> {
                OperatorBuilder b = scope.iterative("loop").operator("holder");
                b.output(LongContainer.TYPE);
                b.build(cap -> {
                    CapabilitySet set = new CapabilitySet();
                    insertAt(set, cap, t(3, 5));
                    insertAt(set, cap, t(5, 0));
                    insertAt(set, cap, t(4, 6));
                    seen.add("dominated " + times(set).size());
                    insertAt(set, cap, t(2, 2));
                    seen.add("evicted " + times(set).size() + " " + Timestamps.toString(times(set).get(0)));
                    insertAt(set, cap, t(5, 0));
                    set.downgradeTo(Antichain.fromTimes(2, List.of(t(3, 3), t(6, 0))), "holder");
                    seen.add("downgraded " + Timestamps.toString(times(set).get(0)) + " " + Timestamps.toString(times(set).get(1)));
                    try {
                        set.downgradeTo(Antichain.fromTimes(2, List.of(t(3, 4), t(1, 9))), "holder");
                    } catch (IllegalStateException e) {
                        seen.add("refused " + e.getMessage());
                    }
                    seen.add("unchanged " + Timestamps.toString(times(set).get(0)) + " " + Timestamps.toString(times(set).get(1)));
                    set.downgradeTo(Antichain.of(t(7, 7)), "holder");
                    seen.add("again " + times(set).size() + " " + Timestamps.toString(times(set).get(0)));
                    set.downgradeTo(Antichain.empty(2), "holder");
                    seen.add("empty " + set.isEmpty());
                    cap.drop();
                    return () -> {};
                });
                return null;
            });
            worker.drain();
        });
        assertThat(seen).hasSize(7);
        assertThat(seen.get(0)).isEqualTo("dominated 2");
        assertThat(seen.get(1)).isEqualTo("evicted 2 (2, 2)");
        assertThat(seen.get(2)).isEqualTo("downgraded (3, 3) (6, 0)");
        assertThat(seen.get(3)).startsWith("refused operator 'holder' holds no capability at or before (1, 9)");
        assertThat(seen.get(4)).isEqualTo("unchanged (3, 3) (6, 0)");
        assertThat(seen.get(5)).isEqualTo("again 1 (7, 7)");
        assertThat(seen.get(6)).isEqualTo("empty true");
    }
}
