package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Iterative scopes: a record that enters a loop goes round exactly as often as the loop says, at
 * times {@code (t, 0), (t, 1), ...}, and leaves at its outer time; the outer frontier waits for it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopTest {
    private static final int OUTER_TIMES = 3;

    /** One execution of the loop body: a record at a time. */
    record Visit(int worker, long outer, long round, long value) {}

    private static long seed(long outer, int worker) {
        return 1_000_000 * outer + 1_000 * worker;
    }

    @ParameterizedTest(name = "k={0}, workers={1}")
    @CsvSource({"1, 1", "2, 1", "3, 1", "7, 1", "1, 2", "2, 2", "5, 2", "10, 2", "4, 3"})
    void loopRunsExactlyKRoundsAndTheOuterFrontierWaitsForIt(int k, int workers) {
        ConcurrentLinkedQueue<Visit> visits = new ConcurrentLinkedQueue<>();
        Captured<LongContainer> out = new Captured<>();
        Timely.run(Config.workers(workers), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("loop", scope -> {
                InputHandle<LongContainer> input = scope.input("seeds", LongContainer.TYPE);
                Scope inner = scope.iterative("iterate");
                assertThat(inner.arity()).isEqualTo(2);
                assertThat(inner.parent()).isSameAs(scope);
                Feedback<LongContainer> fb = inner.feedback("back", LongContainer.TYPE, 1);
                int me = scope.worker();
                // exchange inside the loop so that records change workers between rounds
                Stream<LongContainer> body = input.stream().enter(inner).concat(fb.stream()).exchange()
                        .unary("step", Pact.pipeline(), LongContainer.TYPE, (i, o) -> i.forEach((cap, data) -> {
                            LongContainer next = o.newContainer();
                            for (int j = 0; j < data.size(); j++) {
                                visits.add(new Visit(me, cap.time()[0], cap.time()[1], data.get(j)));
                                next.add(data.get(j) + 1);
                            }
                            o.send(cap, next);
                        }));
                fb.connect(filterRounds(body, "again", r -> r < k - 1));
                probe[0] = filterRounds(body, "done", r -> r == k - 1).leave().capture(out).probe();
                return input;
            });
            for (long t = 0; t < OUTER_TIMES; t++) {
                in.staged().add(seed(t, worker.index()));
                in.advanceTo(t + 1);
                long time = t;
                worker.stepWhile(() -> probe[0].lessEqual(time));
                // every seed of every worker at time t has finished its k rounds
                List<Long> finished = new ArrayList<>();
                for (Captured.Event<LongContainer> e : out.events()) {
                    if (e.time()[0] == time) {
                        for (int j = 0; j < e.data().size(); j++) finished.add(e.data().get(j));
                    }
                }
                List<Long> expected = new ArrayList<>();
                for (int w = 0; w < worker.peers(); w++) expected.add(seed(time, w) + k);
                assertThat(finished).as("at outer time %d, seen from worker %d", time, worker.index()).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(probe[0].lessEqual(time + 1)).as("this worker's input still holds %d", time + 1).isTrue();
            }
        });

        Map<String, Long> perSeedRound = new TreeMap<>();
        for (Visit v : visits) {
            long seed = v.value() - v.round();
            assertThat(seed).as("value at round %d of %s", v.round(), v).isEqualTo(seed(v.outer(), (int) (seed % 1_000_000 / 1_000)));
            perSeedRound.merge(seed + "/" + v.round(), 1L, Long::sum);
        }
        Map<String, Long> expected = new TreeMap<>();
        for (long t = 0; t < OUTER_TIMES; t++) {
            for (int w = 0; w < workers; w++) {
                for (long r = 0; r < k; r++) expected.put(seed(t, w) + "/" + r, 1L);
            }
        }
        assertThat(perSeedRound).as("each seed visits rounds 0..k-1 exactly once").isEqualTo(expected);
        assertThat(out.events()).allSatisfy(e -> assertThat(e.time()).hasSize(1));
        assertThat(out.frontiers()).hasSize(workers).allSatisfy(f -> assertThat(f.isEmpty()).isTrue());
    }

    @Test
    void nestedLoopsRunTheProductOfTheirRounds() {
        int outerRounds = 3;
        int innerRounds = 4;
        ConcurrentLinkedQueue<long[]> innerTimes = new ConcurrentLinkedQueue<>();
        Captured<LongContainer> out = new Captured<>();
        Timely.run(Config.workers(2), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("nested", scope -> {
                InputHandle<LongContainer> input = scope.input("seeds", LongContainer.TYPE);
                Scope s1 = scope.iterative("outer");
                Scope s2 = s1.iterative("inner");
                assertThat(s2.arity()).isEqualTo(3);
                Feedback<LongContainer> fb1 = s1.feedback("back1", LongContainer.TYPE, 1);
                Feedback<LongContainer> fb2 = s2.feedback("back2", LongContainer.TYPE, 1);
                Stream<LongContainer> x1 = input.stream().enter(s1).concat(fb1.stream());
                Stream<LongContainer> x2 = x1.enter(s2).concat(fb2.stream())
                        .unary("step", Pact.exchange(), LongContainer.TYPE, (i, o) -> i.forEach((cap, data) -> {
                            LongContainer next = o.newContainer();
                            for (int j = 0; j < data.size(); j++) {
                                innerTimes.add(cap.time().clone());
                                next.add(data.get(j) + 1);
                            }
                            o.send(cap, next);
                        }));
                fb2.connect(filter(x2, "again2", t -> t[2] < innerRounds - 1));
                Stream<LongContainer> y = filter(x2, "done2", t -> t[2] == innerRounds - 1).leave();
                fb1.connect(filter(y, "again1", t -> t[1] < outerRounds - 1));
                filter(y, "done1", t -> t[1] == outerRounds - 1).leave().capture(out);
                return input;
            });
            in.staged().add(100 * (worker.index() + 1));
        });
        assertThat(innerTimes).hasSize(2 * outerRounds * innerRounds);
        for (int w = 0; w < 2; w++) {
            for (long i = 0; i < outerRounds; i++) {
                for (long j = 0; j < innerRounds; j++) {
                    long[] expected = {0, i, j};
                    assertThat(innerTimes.stream().filter(t -> java.util.Arrays.equals(t, expected)).count()).isEqualTo(2);
                }
            }
        }
        List<Long> results = new ArrayList<>();
        for (Captured.Event<LongContainer> e : out.events()) {
            assertThat(e.time()).containsExactly(0);
            for (int j = 0; j < e.data().size(); j++) results.add(e.data().get(j));
        }
        assertThat(results).containsExactlyInAnyOrder(100L + outerRounds * innerRounds, 200L + outerRounds * innerRounds);
    }

    @Test
    void aFeedbackThatIsNeverConnectedFailsTheBuild() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("open", scope -> {
            Scope inner = scope.iterative("iterate");
            inner.feedback("dangling", LongContainer.TYPE, 1);
            return null;
        }))).isInstanceOf(IllegalStateException.class).hasMessageContaining("'open'").hasMessageContaining("'dangling'").hasMessageContaining("connect");
    }

    @Test
    void aFeedbackNeedsAPositiveIncrement() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Timely.run(Config.workers(1), worker -> worker.dataflow("zero", scope -> {
            scope.iterative("iterate").feedback("still", LongContainer.TYPE, 0);
            return null;
        }))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'still'").hasMessageContaining("positive");
    }

    private static Stream<LongContainer> filterRounds(Stream<LongContainer> s, String name, java.util.function.LongPredicate round) {
        return filter(s, name, t -> round.test(t[t.length - 1]));
    }

    private static Stream<LongContainer> filter(Stream<LongContainer> s, String name, java.util.function.Predicate<long[]> keep) {
        return s.unary(name, Pact.pipeline(), LongContainer.TYPE, (i, o) -> i.forEach((cap, data) -> {
            if (!keep.test(cap.time())) return;
            LongContainer copy = o.newContainer();
            LongContainer.TYPE.appendAll(data, copy);
            o.send(cap, copy);
        }));
    }
}
