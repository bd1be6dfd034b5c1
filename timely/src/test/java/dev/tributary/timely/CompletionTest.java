package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A computation ends: once every program returns and its inputs close, every dataflow completes and the run returns. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionTest {

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 3})
    void runReturnsOnceEveryDataflowHasCompleted(int workers) {
        AtomicLong sum = new AtomicLong();
        Set<Integer> indexes = ConcurrentHashMap.newKeySet();
        Probe[][] probes = new Probe[workers][];
        Worker[] workerOf = new Worker[workers];
        Timely.run(Config.workers(workers), worker -> {
            assertThat(worker.peers()).isEqualTo(workers);
            assertThat(worker.router().workers()).isEqualTo(workers);
            indexes.add(worker.index());
            workerOf[worker.index()] = worker;
            InputHandle<LongContainer> in = worker.dataflow("first", scope -> {
                assertThat(scope.worker()).isEqualTo(worker.index());
                assertThat(scope.peers()).isEqualTo(workers);
                assertThat(scope.arity()).isEqualTo(1);
                assertThat(scope.parent()).isNull();
                assertThat(scope.name()).isEqualTo("first");
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                Probe p = input.stream().exchange().inspect((t, data) -> {
                    for (int i = 0; i < data.size(); i++) sum.addAndGet(data.get(i));
                }).probe();
                probes[worker.index()] = new Probe[] {p, null};
                return input;
            });
            // a second dataflow with no input handle at all: a source that sends once and drops its capability
            probes[worker.index()][1] = worker.dataflow("second", scope -> {
                OperatorBuilder b = scope.operator("once");
                OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
                b.build(cap -> () -> {
                    if (!cap.isValid()) return;
                    out.send(cap, LongContainer.of(1_000_000));
                    cap.drop();
                });
                return out.stream().exchange().inspect((t, data) -> sum.addAndGet(data.size() * data.get(0))).probe();
            });
            for (long v = 1; v <= 100; v++) {
                if (v % workers == worker.index()) in.staged().add(v);
            }
        });
        assertThat(indexes).hasSize(workers);
        assertThat(sum.get()).isEqualTo(5050 + 1_000_000L * workers);
        // after the run, every worker's dataflows are complete (read here only because its thread has ended)
        for (int w = 0; w < workers; w++) {
            assertThat(workerOf[w].isIdle()).isTrue();
            assertThat(probes[w][0].isDone()).isTrue();
            assertThat(probes[w][1].isDone()).isTrue();
        }
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 3})
    void aProgramThatBuildsNothingOrSendsNothingStillReturns(int workers) {
        Timely.run(Config.workers(workers), worker -> {});
        Timely.run(Config.workers(workers), worker -> worker.dataflow("silent", scope -> scope.input("numbers", LongContainer.TYPE).stream().probe()));
        Execution e = Timely.execute(Config.workers(workers), worker -> worker.dataflow("silent", scope -> scope.input("numbers", LongContainer.TYPE)));
        e.join();
        e.join(); // joining again is harmless
    }

    @Test
    void drainClosesInputsAndStepsUntilIdle() {
        Timely.run(Config.workers(2), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("drain", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                probe[0] = input.stream().exchange().probe();
                return input;
            });
            in.staged().add(worker.index());
            assertThat(worker.isIdle()).isFalse();
            worker.drain();
            assertThat(in.isClosed()).isTrue();
            assertThat(worker.isIdle()).isTrue();
            assertThat(probe[0].isDone()).isTrue();
            assertThat(worker.step()).as("nothing left to do").isFalse();
        });
    }

    @Test
    void recordsForADataflowAPeerHasNotBuiltYetWaitForIt() {
        CountDownLatch sent = new CountDownLatch(1);
        ConcurrentLinkedQueue<Long> arrivedAtOne = new ConcurrentLinkedQueue<>();
        Router router = new Router(2);
        long[] forOne = java.util.stream.LongStream.range(0, 200).filter(v -> router.route(v) == 1).toArray();
        assertThat(forOne).isNotEmpty();
        Timely.run(Config.workers(2), worker -> {
            worker.dataflow("zero", scope -> scope.input("numbers", LongContainer.TYPE));
            if (worker.index() == 1) {
                // keep stepping (and so receiving) before dataflow "one" exists here
                worker.stepWhile(() -> sent.getCount() > 0);
                worker.step();
            }
            InputHandle<LongContainer> in = worker.dataflow("one", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                int me = scope.worker();
                input.stream().exchange().sink("collect", Pact.pipeline(), (cap, data) -> {
                    for (int i = 0; i < data.size(); i++) {
                        if (me == 1) arrivedAtOne.add(data.get(i));
                    }
                });
                return input;
            });
            if (worker.index() == 0) {
                for (long v : forOne) in.staged().add(v);
                in.flush();
                for (int i = 0; i < 50; i++) worker.step(); // the exchange sends to worker 1 now
                sent.countDown();
            }
        });
        assertThat(arrivedAtOne).containsExactlyInAnyOrder(java.util.Arrays.stream(forOne).boxed().toArray(Long[]::new));
    }
}
