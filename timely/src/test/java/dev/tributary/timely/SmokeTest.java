package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void exchangeDeliversEveryRecordOnceToItsOwner() {
        for (int workers : new int[] {1, 2, 4}) {
            AtomicLong sum = new AtomicLong();
            AtomicLong count = new AtomicLong();
            ConcurrentHashMap<Long, Integer> owner = new ConcurrentHashMap<>();
            Router router = new Router(workers);
            Timely.run(Config.workers(workers), worker -> {
                InputHandle<LongContainer> in = worker.dataflow("x", scope -> {
                    InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                    int me = scope.worker();
                    input.stream().exchange().sink("sum", Pact.pipeline(), (cap, data) -> {
                        for (int i = 0; i < data.size(); i++) {
                            long v = data.get(i);
                            sum.addAndGet(v);
                            count.incrementAndGet();
                            assertThat(router.route(v)).isEqualTo(me);
                            owner.put(v, me);
                        }
                    });
                    return input;
                });
                for (long t = 0; t < 10; t++) {
                    for (long v = 0; v < 1000; v++) {
                        if (v % worker.peers() == worker.index()) in.staged().add(t * 1000 + v);
                    }
                    in.advanceTo(t + 1);
                }
            });
            assertThat(count.get()).isEqualTo(10_000);
            assertThat(sum.get()).isEqualTo(9999L * 10000 / 2);
        }
    }

    @Test
    void loopRunsExactlyKRounds() {
        int k = 7;
        AtomicLong rounds = new AtomicLong();
        Timely.run(Config.workers(2), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("loop", scope -> {
                InputHandle<LongContainer> input = scope.input("seed", LongContainer.TYPE);
                Scope inner = scope.iterative("iterate");
                Feedback<LongContainer> fb = inner.feedback("back", LongContainer.TYPE, 1);
                Stream<LongContainer> body = input.stream().enter(inner).concat(fb.stream())
                        .unary("step", Pact.pipeline(), LongContainer.TYPE, (i, o) -> i.forEach((cap, data) -> {
                            LongContainer next = o.newContainer();
                            for (int j = 0; j < data.size(); j++) {
                                if (cap.time()[1] < k - 1) next.add(data.get(j));
                                rounds.incrementAndGet();
                            }
                            o.send(cap, next);
                        }));
                fb.connect(body);
                body.leave().probe();
                return input;
            });
            if (worker.index() == 0) in.staged().add(42);
        });
        assertThat(rounds.get()).isEqualTo(k);
    }
}
