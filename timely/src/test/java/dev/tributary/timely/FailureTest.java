package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures and misuse: each is reported with its type and a message naming the operator or input,
 * the time, and what is held; a failure on one worker stops every worker, so the run returns.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailureTest {
    private static long[] t(long... c) {
        return c;
    }

    @Test
    void sendingWithoutAValidCapabilityIsRefusedNamingOperatorTimeAndHeldCapabilities() {
        Map<String, Throwable> errors = new ConcurrentHashMap<>();
        String[] name = new String[2];
        Timely.run(Config.workers(1), worker -> worker.dataflow("send", scope -> {
            scope.input("numbers", LongContainer.TYPE); // operator 0, so the source below is #1
            OperatorBuilder b = scope.operator("src");
            OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
            name[0] = b.displayName();
            OperatorBuilder other = scope.operator("other");
            other.output(LongContainer.TYPE);
            name[1] = other.displayName();
            Capability[] foreign = new Capability[1];
            other.build(cap -> {
                foreign[0] = cap;
                return () -> {
                    if (cap.isValid()) cap.drop();
                };
            });
            b.build(cap -> () -> {
                if (!cap.isValid()) return;
                Capability later = cap.delayed(t(3));
                cap.drop();
                record(errors, "dropped", () -> out.send(cap, LongContainer.of(1)));
                record(errors, "dropped at a time", () -> out.send(cap, t(4), LongContainer.of(1)));
                record(errors, "before", () -> out.send(later, t(1), LongContainer.of(1)));
                record(errors, "foreign", () -> out.send(foreign[0], LongContainer.of(1)));
                out.send(later, t(3), LongContainer.of(1)); // at the capability's time: fine
                later.drop();
            });
            return null;
        }));
        assertThat(name).containsExactly("src#1", "other#2");
        assertThat(errors.get("dropped")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'src#1'").hasMessageContaining("at time 0").hasMessageContaining("no longer valid")
                .hasMessageContaining("it holds {3}");
        assertThat(errors.get("dropped at a time")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'src#1'").hasMessageContaining("at time 4").hasMessageContaining("it holds {3}");
        assertThat(errors.get("before")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'src#1'").hasMessageContaining("at time 1").hasMessageContaining("it holds {3}")
                .hasMessageContaining("at or before 1");
        assertThat(errors.get("foreign")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'src#1'").hasMessageContaining("'other#2'").hasMessageContaining("it holds {3}");
    }

    @Test
    void anUncaughtSendErrorFailsTheRunAsTheOperatorsFailure() {
        Throwable thrown = catchThrowable(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("send", scope -> {
            OperatorBuilder b = scope.operator("late");
            OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
            b.build(cap -> () -> {
                cap.downgrade(5);
                out.send(cap, t(2), LongContainer.of(1));
            });
            return null;
        })));
        assertThat(thrown).isInstanceOf(OperatorFailedException.class).hasMessageContaining("'late#0'");
        OperatorFailedException f = (OperatorFailedException) thrown;
        assertThat(f.operator()).isEqualTo("late#0");
        assertThat(f.worker()).isZero();
        assertThat(f.getCause()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'late#0'").hasMessageContaining("at time 2").hasMessageContaining("it holds {5}");
    }

    @Test
    void advancingAnInputBackwardsFailsTheRunWithTheOriginalException() {
        assertThatThrownBy(() -> Timely.run(Config.workers(2), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("backwards", scope -> scope.input("numbers", LongContainer.TYPE));
            in.advanceTo(5);
            assertThat(in.time()).containsExactly(5);
            in.advanceTo(5); // staying put is allowed
            in.advanceTo(3);
        })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("input 'numbers'").hasMessageContaining("from 5").hasMessageContaining("back to 3");
    }

    @Test
    void advancingAnInputToATimeOfTheWrongShapeIsRefused() {
        Map<String, Throwable> errors = new ConcurrentHashMap<>();
        Timely.run(Config.workers(1), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("shape", scope -> scope.input("numbers", LongContainer.TYPE));
            record(errors, "arity", () -> in.advanceTo(t(1, 2)));
            record(errors, "negative", () -> in.advanceTo(-1));
        });
        assertThat(errors.get("arity")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input 'numbers'").hasMessageContaining("(1, 2)");
        assertThat(errors.get("negative")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input 'numbers'").hasMessageContaining("-1");
    }

    @Test
    void usingAClosedInputIsRefusedNamingTheInput() {
        Map<String, Throwable> errors = new ConcurrentHashMap<>();
        AtomicBoolean closedTwice = new AtomicBoolean();
        Timely.run(Config.workers(1), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("closed", scope -> scope.input("numbers", LongContainer.TYPE));
            in.staged().add(1);
            in.close();
            assertThat(in.isClosed()).isTrue();
            in.close();
            closedTwice.set(true);
            record(errors, "staged", in::staged);
            record(errors, "send", () -> in.send(LongContainer.of(2)));
            record(errors, "advance", () -> in.advanceTo(4));
            record(errors, "time", in::time);
        });
        assertThat(closedTwice).as("close is idempotent").isTrue();
        assertThat(errors).hasSize(4).allSatisfy((what, e) -> assertThat(e).as(what).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("input 'numbers' (numbers#0) is closed"));
        assertThat(errors.get("staged")).hasMessageContaining("send to");
        assertThat(errors.get("advance")).hasMessageContaining("advance");
    }

    @Test
    void sendingOnAClosedInputFailsTheRunWithTheOriginalException() {
        assertThatThrownBy(() -> Timely.run(Config.workers(2), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("closed", scope -> scope.input("numbers", LongContainer.TYPE));
            in.close();
            if (worker.index() == 1) in.staged().add(1);
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("input 'numbers'").hasMessageContaining("closed");
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 3})
    void anOperatorThatThrowsFailsTheRunNamingItAndStopsEveryWorker(int workers) {
        long poison = 13;
        int failing = new Router(workers).route(poison);
        String[] name = new String[1];
        Throwable thrown = catchThrowable(() -> Timely.run(Config.workers(workers), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("boom", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                OperatorBuilder b = scope.operator("explode");
                name[0] = b.displayName();
                InputPort<LongContainer> port = b.input(input.stream(), Pact.exchange());
                OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
                b.build(() -> port.forEach((cap, data) -> {
                    for (int i = 0; i < data.size(); i++) {
                        if (data.get(i) == poison) throw new ArithmeticException("cannot digest " + poison);
                    }
                    LongContainer c = out.newContainer();
                    LongContainer.TYPE.appendAll(data, c);
                    out.send(cap, c);
                }));
                probe[0] = out.stream().probe();
                return input;
            });
            if (worker.index() == 0) in.staged().add(poison);
            in.advanceTo(1);
            // this wait can only end by the failure: the poisoned time never completes
            worker.stepWhile(() -> probe[0].lessEqual(0));
        }));
        assertThat(thrown).isInstanceOf(OperatorFailedException.class)
                .hasMessageContaining("'explode#1'").hasMessageContaining("worker " + failing).hasMessageContaining("cannot digest 13");
        OperatorFailedException f = (OperatorFailedException) thrown;
        assertThat(f.operator()).isEqualTo(name[0]).isEqualTo("explode#1");
        assertThat(f.worker()).isEqualTo(failing);
        assertThat(f.getCause()).isInstanceOf(ArithmeticException.class).hasMessage("cannot digest 13");
    }

    /**
     * With failures contained (a server's workers): the failing dataflow stops on every worker
     * and its probes say why, naming the dataflow, the operator and the cause; a dataflow beside
     * it goes on and completes, and so does the run.
     */
    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 3})
    void aContainedFailureStopsOnlyItsDataflowOnEveryWorker(int workers) {
        long poison = 13;
        int failing = new Router(workers).route(poison);
        Map<Integer, Throwable> seen = new ConcurrentHashMap<>();
        Map<Integer, Long> healthy = new ConcurrentHashMap<>();
        Map<Integer, String> logged = new ConcurrentHashMap<>();
        Timely.run(Config.workers(workers).containingFailures(), worker -> {
            worker.onDataflowFailure((dataflow, cause) -> logged.put(worker.index(), dataflow + ": " + cause.getMessage()));
            Probe[] probe = new Probe[2];
            InputHandle<LongContainer> in = worker.dataflow("boom", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                OperatorBuilder b = scope.operator("explode");
                InputPort<LongContainer> port = b.input(input.stream(), Pact.exchange());
                OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
                b.build(() -> port.forEach((cap, data) -> {
                    for (int i = 0; i < data.size(); i++) {
                        if (data.get(i) == poison) throw new OutOfMemoryError("cannot digest " + poison);
                    }
                    LongContainer c = out.newContainer();
                    LongContainer.TYPE.appendAll(data, c);
                    out.send(cap, c);
                }));
                probe[0] = out.stream().probe();
                return input;
            });
            long[] sum = new long[1];
            InputHandle<LongContainer> other = worker.dataflow("fine", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                probe[1] = input.stream().exchange().inspect((time, data) -> {
                    for (int i = 0; i < data.size(); i++) sum[0] += data.get(i);
                }).probe();
                return input;
            });
            if (worker.index() == 0) {
                in.staged().add(poison);
                other.staged().add(poison);
            }
            in.advanceTo(1);
            other.advanceTo(1);
            try {
                worker.stepWhile(() -> probe[0].lessEqual(0));
            } catch (DataflowFailedException e) {
                seen.put(worker.index(), e);
            }
            assertThat(worker.dataflowFailure(0)).isNotNull();
            assertThat(worker.dataflowFailure(1)).isNull();
            assertThat(worker.lostState()).as("an operator's error is its dataflow's alone").isNull();
            in.close();
            other.close();
            worker.stepWhile(() -> !probe[1].isDone());
            healthy.put(worker.index(), sum[0]);
        });
        assertThat(seen).hasSize(workers).allSatisfy((w, e) -> assertThat(e).isInstanceOf(DataflowFailedException.class)
                .hasMessageContaining("'boom'").hasMessageContaining("'explode#1'").hasMessageContaining("worker " + failing)
                .hasMessageContaining("cannot digest 13")
                .cause().isInstanceOf(OperatorFailedException.class).cause().isInstanceOf(OutOfMemoryError.class));
        assertThat(healthy.values().stream().mapToLong(Long::longValue).sum()).as("the other dataflow's data").isEqualTo(poison);
        assertThat(logged).as("the failure is reported once, where it happened").containsOnlyKeys(failing);
        assertThat(logged.get(failing)).startsWith("boom: operator 'explode#1' failed");
    }

    @Test
    void anAssertionErrorInAnOperatorIsReportedAsItsFailure() {
        Throwable thrown = catchThrowable(() -> {
            Execution execution = Timely.execute(Config.workers(2), worker -> worker.dataflow("assert", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                input.stream().sink("check", Pact.pipeline(), (cap, data) -> {});
                OperatorBuilder b = scope.operator("strict");
                b.output(LongContainer.TYPE);
                b.build(cap -> () -> {
                    throw new AssertionError("invariant broken at " + Timestamps.toString(cap.time()));
                });
                return input;
            }));
            execution.close(); // close() joins
        });
        assertThat(thrown).isInstanceOf(OperatorFailedException.class).hasMessageContaining("'strict#2'");
        assertThat(thrown.getCause()).isInstanceOf(AssertionError.class).hasMessage("invariant broken at 0");
    }

    @Test
    void aWorkerProgramFailureStopsAWorkerWaitingOnAProbe() {
        Throwable thrown = catchThrowable(() -> Timely.execute(Config.workers(2), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("wait", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                probe[0] = input.stream().probe();
                return input;
            });
            if (worker.index() == 1) throw new ArithmeticException("worker 1 gives up");
            in.advanceTo(1);
            // worker 1's input never advances: only the failure ends this wait
            worker.stepWhile(() -> probe[0].lessEqual(0));
        }).join());
        assertThat(thrown).isInstanceOf(ArithmeticException.class).hasMessage("worker 1 gives up");
    }

    @Test
    void buildingMistakesSurfaceWithTheirOwnType() {
        assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> {
            Scope[] top = new Scope[1];
            worker.dataflow("first", scope -> top[0] = scope);
            top[0].operator("late");
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("'first'").hasMessageContaining("already built");

        assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> {
            Stream<LongContainer> s = worker.dataflow("a", scope -> scope.input("numbers", LongContainer.TYPE).stream());
            worker.dataflow("b", scope -> {
                scope.operator("reader").input(s, Pact.pipeline());
                return null;
            });
        })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'reader#0'").hasMessageContaining("another dataflow ('a')");

        assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("scopes", scope -> {
            Stream<LongContainer> s = scope.input("numbers", LongContainer.TYPE).stream();
            Scope inner = scope.iterative("loop");
            inner.operator("inside").input(s, Pact.pipeline());
            return null;
        }))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'inside#1'").hasMessageContaining("enter()");

        assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("top", scope ->
                scope.input("numbers", LongContainer.TYPE).stream().leave())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'top'").hasMessageContaining("no scope to leave");

        assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("deep", scope -> {
            Stream<LongContainer> s = scope.input("numbers", LongContainer.TYPE).stream();
            return s.enter(scope.iterative("outer").iterative("inner"));
        }))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'inner'").hasMessageContaining("not nested directly");

        assertThatThrownBy(() -> Config.workers(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
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

    /**
     * An error outside every operator (here where a worker's input is split among the workers,
     * as a full heap could make it) may have lost a message or a change of progress: the worker
     * says so, for whoever runs it to stop rather than wait on a frontier that may never move.
     */
    @Test
    void anErrorOutsideEveryOperatorMarksTheWorkersStateLost() {
        ContainerType<LongContainer> exploding = new ContainerType<>() {
            @Override
            public LongContainer create() {
                return LongContainer.TYPE.create();
            }

            @Override
            public void appendAll(LongContainer from, LongContainer into) {
                LongContainer.TYPE.appendAll(from, into);
            }

            @Override
            public void partition(LongContainer input, Container[] outputs, Router router) {
                throw new OutOfMemoryError("no room to split the input");
            }
        };
        Map<Integer, Throwable> lost = new ConcurrentHashMap<>();
        catchThrowable(() -> Timely.run(Config.workers(2).containingFailures(), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("split", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                OperatorBuilder b = scope.operator("sink");
                InputPort<LongContainer> port = b.input(input.stream(), Pact.exchange(exploding));
                b.build(() -> port.forEach((cap, data) -> {}));
                return input;
            });
            assertThat(worker.lostState()).isNull();
            if (worker.index() != 0) return;
            in.staged().add(7);
            Throwable thrown = catchThrowable(worker::step);
            assertThat(thrown).isInstanceOf(OutOfMemoryError.class);
            lost.put(worker.index(), worker.lostState());
        }));
        assertThat(lost.get(0)).isInstanceOf(OutOfMemoryError.class).hasMessage("no room to split the input");
    }
}
