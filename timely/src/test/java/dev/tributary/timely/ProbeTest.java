package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Probes: a worker that waits for a probe to pass t has seen, upstream, every record of t from every worker. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProbeTest {
    private static final int ROUNDS = 5;
    private static final int PER_WORKER = 700;

    /**
     * With an exchange edge a worker often reads a peer's records before it hears the peer's
     * progress; the probe must still not pass t before every worker's records at t went by.
     */
    @ParameterizedTest(name = "workers={0}, exchange={1}")
    @CsvSource({"1, true", "2, true", "3, true", "2, false", "3, false"})
    void waitingOnAProbeMeansEveryWorkersRecordsAtThatTimeHavePassed(int workers, boolean exchange) {
        ConcurrentHashMap<Long, AtomicLong> countedAt = new ConcurrentHashMap<>();
        AtomicLong probesDone = new AtomicLong();
        Timely.run(Config.workers(workers), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("probed", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                probe[0] = (exchange ? input.stream().exchange() : input.stream())
                        .inspect((time, data) -> countedAt.computeIfAbsent(time[0], k -> new AtomicLong()).addAndGet(data.size()))
                        .probe();
                return input;
            });
            assertThat(probe[0].lessEqual(0)).isTrue();
            assertThat(probe[0].isDone()).isFalse();
            for (long t = 0; t < ROUNDS; t++) {
                for (int i = 0; i < PER_WORKER; i++) in.staged().add(t * 1_000_000 + worker.index() * 1_000 + i);
                in.advanceTo(t + 1);
                long time = t;
                worker.stepWhile(() -> probe[0].lessEqual(time));

                assertThat(countedAt.get(time).get()).as("records at %d seen once the probe passed it", time)
                        .isEqualTo((long) PER_WORKER * worker.peers());
                assertThat(probe[0].lessThan(time + 1)).as("time %d is complete", time).isFalse();
                assertThat(probe[0].lessThan(new long[] {time + 1})).isFalse();
                assertThat(probe[0].lessEqual(new long[] {time})).isFalse();
                assertThat(probe[0].lessEqual(time + 1)).as("this worker's input still holds %d", time + 1).isTrue();
                assertThat(probe[0].frontier().dominates(Antichain.of(time + 1))).isTrue();
                assertThat(probe[0].isDone()).isFalse();
            }
            worker.drain();
            assertThat(worker.isIdle()).isTrue();
            assertThat(probe[0].isDone()).isTrue();
            assertThat(probe[0].frontier()).isEqualTo(Antichain.empty(1));
            probesDone.incrementAndGet();
        });
        assertThat(probesDone.get()).isEqualTo(workers);
        for (long t = 0; t < ROUNDS; t++) assertThat(countedAt.get(t).get()).isEqualTo((long) PER_WORKER * workers);
    }

    @Test
    void aProbeDoesNotPassATimeThatAnotherWorkerStillHolds() {
        CountDownLatch worker0Checked = new CountDownLatch(1);
        AtomicLong stepsWhileHeld = new AtomicLong();
        Timely.run(Config.workers(2), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("held", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                probe[0] = input.stream().exchange().probe();
                return input;
            });
            if (worker.index() == 0) {
                try {
                    in.staged().add(1);
                    in.advanceTo(5);
                    // worker 1 has not stepped at all: its input still holds 0, so the frontier stays at 0
                    for (int i = 0; i < 2_000; i++) {
                        worker.step();
                        assertThat(probe[0].lessEqual(0)).as("after %d steps", i).isTrue();
                        stepsWhileHeld.incrementAndGet();
                    }
                } finally {
                    worker0Checked.countDown();
                }
                worker.stepWhile(() -> probe[0].lessThan(5));
                assertThat(probe[0].frontier()).isEqualTo(Antichain.of(5));
            } else {
                try {
                    assertThat(worker0Checked.await(30, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                in.advanceTo(5);
                worker.stepWhile(() -> probe[0].lessThan(5));
            }
        });
        assertThat(stepsWhileHeld.get()).isEqualTo(2_000);
    }

    @Test
    void aProbeInsideALoopScopeSeesTimesOfArityTwo() {
        Timely.run(Config.workers(1), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("inner", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                Scope inner = scope.iterative("loop");
                Feedback<LongContainer> fb = inner.feedback("back", LongContainer.TYPE, 1);
                Stream<LongContainer> body = input.stream().enter(inner).concat(fb.stream());
                fb.connect(body.unary("none", Pact.pipeline(), LongContainer.TYPE, (i, o) -> i.forEach((cap, data) -> {})));
                probe[0] = body.probe();
                return input;
            });
            assertThat(probe[0].frontier()).isEqualTo(Antichain.of(new long[] {0, 0}));
            in.advanceTo(3);
            worker.stepWhile(() -> probe[0].lessThan(new long[] {3, 0}));
            assertThat(probe[0].frontier()).isEqualTo(Antichain.of(new long[] {3, 0}));
        });
    }
}
