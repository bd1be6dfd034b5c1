package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Capabilities: an operator built with an initial capability holds the frontier downstream at its
 * time, moves it by downgrading, and releases it by dropping; capability misuse is refused with a
 * message that names the operator and the times involved.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CapabilityTest {
    private static long[] t(long... c) {
        return c;
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 3})
    void aSourceDowngradesAndDropsItsInitialCapability(int workers) {
        Captured<LongContainer> out = new Captured<>();
        ConcurrentHashMap<Integer, Antichain> frontierWhileHeld = new ConcurrentHashMap<>();
        Timely.run(Config.workers(workers), worker -> {
            boolean[] release = new boolean[1];
            Runnable[] activate = new Runnable[1];
            Probe probe = worker.dataflow("source", scope -> {
                OperatorBuilder b = scope.operator("src");
                OutputPort<LongContainer> output = b.output(LongContainer.TYPE);
                activate[0] = b.activator();
                int me = scope.worker();
                b.build(cap -> {
                    assertThat(cap.time()).containsExactly(0);
                    assertThat(cap.isValid()).isTrue();
                    return () -> {
                        if (!cap.isValid()) return;
                        if (cap.time()[0] == 0) {
                            output.send(cap, LongContainer.of(me * 10L + 1, me * 10L + 2));
                            cap.downgrade(5);
                        } else if (release[0]) {
                            output.send(cap, LongContainer.of(me * 10L + 5));
                            output.send(cap, t(7), LongContainer.of(me * 10L + 7));
                            cap.drop();
                        }
                    };
                });
                return output.stream().exchange().capture(out).probe();
            });
            // the source holds 5 on this worker until told to release, so the frontier stops exactly there
            worker.stepWhile(() -> probe.lessThan(5));
            frontierWhileHeld.put(worker.index(), probe.frontier());
            release[0] = true;
            activate[0].run();
            worker.stepWhile(() -> !probe.isDone());
        });
        assertThat(frontierWhileHeld).hasSize(workers).allSatisfy((w, f) -> assertThat(f).isEqualTo(Antichain.of(5)));
        Map<Long, List<Long>> byTime = new TreeMap<>();
        for (Captured.Event<LongContainer> e : out.events()) {
            assertThat(e.frontierAtArrival().lessEqual(e.time())).as("frontier %s at a message of %s", e.frontierAtArrival(), e.time()[0]).isTrue();
            for (int i = 0; i < e.data().size(); i++) byTime.computeIfAbsent(e.time()[0], k -> new java.util.ArrayList<>()).add(e.data().get(i));
        }
        assertThat(byTime.keySet()).containsExactly(0L, 5L, 7L);
        for (int w = 0; w < workers; w++) {
            assertThat(byTime.get(0L)).contains(w * 10L + 1, w * 10L + 2);
            assertThat(byTime.get(5L)).contains(w * 10L + 5);
            assertThat(byTime.get(7L)).contains(w * 10L + 7);
        }
        assertThat(byTime.get(0L)).hasSize(2 * workers);
        assertThat(out.frontiers()).hasSize(workers).allSatisfy(f -> assertThat(f.isEmpty()).isTrue());
    }

    @Test
    void retainedAndDelayedCapabilitiesHoldTheFrontierUntilDropped() {
        Timely.run(Config.workers(1), worker -> {
            Capability[] kept = new Capability[2];
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("hold", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                probe[0] = input.stream().unary("holder", Pact.pipeline(), LongContainer.TYPE, (i, o) -> i.forEach((cap, data) -> {
                    if (kept[0] == null) {
                        kept[0] = cap.retain();
                        kept[1] = cap.delayed(t(3));
                    }
                })).probe();
                return input;
            });
            in.staged().add(1);
            in.advanceTo(10);
            worker.stepWhile(() -> kept[0] == null || probe[0].lessThan(0));
            for (int i = 0; i < 100; i++) worker.step();
            assertThat(probe[0].frontier()).as("retained at 0 and delayed to 3").isEqualTo(Antichain.of(0));
            kept[0].drop();
            worker.stepWhile(() -> probe[0].lessThan(3));
            assertThat(probe[0].frontier()).isEqualTo(Antichain.of(3));
            kept[1].downgrade(8);
            worker.stepWhile(() -> probe[0].lessThan(8));
            assertThat(probe[0].frontier()).isEqualTo(Antichain.of(8));
            kept[1].drop();
            worker.stepWhile(() -> probe[0].lessThan(10));
            assertThat(probe[0].frontier()).as("only the input's 10 is left").isEqualTo(Antichain.of(10));
            assertThat(kept[1].isValid()).isFalse();
            assertThat(kept[1].toString()).contains("holder#1").contains("dropped");
        });
    }

    @Test
    void capabilityMisuseIsRefusedNamingTheOperatorAndTimes() {
        Map<String, Throwable> errors = new ConcurrentHashMap<>();
        Capability[] escaped = new Capability[1];
        String[] name = new String[1];
        Timely.run(Config.workers(1), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("misuse", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                OperatorBuilder b = scope.operator("user");
                InputPort<LongContainer> port = b.input(input.stream(), Pact.pipeline());
                b.output(LongContainer.TYPE);
                name[0] = b.displayName();
                b.build(() -> port.forEach((cap, data) -> {
                    record(errors, "downgrade borrowed", () -> cap.downgrade(t(9)));
                    record(errors, "drop borrowed", cap::drop);
                    record(errors, "delay backwards", () -> cap.delayed(t(1)));
                    record(errors, "delay wrong arity", () -> cap.delayed(t(4, 0)));
                    Capability owned = cap.delayed(t(6));
                    record(errors, "downgrade backwards", () -> owned.downgrade(t(4)));
                    owned.drop();
                    record(errors, "drop twice", owned::drop);
                    record(errors, "retain dropped", owned::retain);
                    escaped[0] = cap;
                }));
                return input;
            });
            in.advanceTo(2);
            in.staged().add(1);
            in.advanceTo(3);
            worker.stepWhile(() -> escaped[0] == null);
            record(errors, "retain escaped borrowed", escaped[0]::retain);
        });
        String op = "'" + name[0] + "'";
        assertThat(name[0]).isEqualTo("user#1");
        assertThat(errors.get("downgrade borrowed")).isInstanceOf(IllegalStateException.class).hasMessageContaining(op).hasMessageContaining("borrowed");
        assertThat(errors.get("drop borrowed")).isInstanceOf(IllegalStateException.class).hasMessageContaining(op).hasMessageContaining("borrowed");
        assertThat(errors.get("delay backwards")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(op).hasMessageContaining("at 2").hasMessageContaining("time 1");
        assertThat(errors.get("delay wrong arity")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(op).hasMessageContaining("(4, 0)");
        assertThat(errors.get("downgrade backwards")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(op).hasMessageContaining("at 6").hasMessageContaining("time 4");
        assertThat(errors.get("drop twice")).isInstanceOf(IllegalStateException.class).hasMessageContaining(op).hasMessageContaining("dropped");
        assertThat(errors.get("retain dropped")).isInstanceOf(IllegalStateException.class).hasMessageContaining(op);
        assertThat(errors.get("retain escaped borrowed")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(op).hasMessageContaining("only inside its callback");
    }

    @Test
    void anOperatorWithoutOutputsCannotTakeAnInitialCapability() {
        assertThatThrownBy(() -> Timely.run(Config.workers(2), worker -> worker.dataflow("nooutput", scope -> {
            scope.input("numbers", LongContainer.TYPE);
            scope.operator("lonely").build(cap -> () -> {});
            return null;
        }))).isInstanceOf(IllegalStateException.class).hasMessageContaining("'lonely#1'").hasMessageContaining("no outputs");
    }

    @Test
    void anOperatorIsBuiltOnce() {
        assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("twice", scope -> {
            OperatorBuilder b = scope.operator("op");
            b.output(LongContainer.TYPE);
            b.build(() -> {});
            b.build(() -> {});
            return null;
        }))).isInstanceOf(IllegalStateException.class).hasMessageContaining("'op#0'").hasMessageContaining("already built");
    }

    private static void record(Map<String, Throwable> errors, String what, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            errors.put(what, e);
            return;
        }
        errors.put(what, new AssertionError(what + " was accepted"));
    }
}
