package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Exchange edges: every record arrives exactly once, at its time, on the worker the router names. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExchangeTest {
    record Arrival(int worker, long time, long value) {}

    record Keyed(long key, int from, int seq) {}

    private static final int PER_TIME = 3_000;
    private static final int TIMES = 3;

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 4})
    void everyLongArrivesOnceOnItsOwner(int workers) {
        ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();
        Timely.run(Config.workers(workers), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("exchange", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                int me = scope.worker();
                input.stream().exchange().sink("collect", Pact.pipeline(), (cap, data) -> {
                    for (int i = 0; i < data.size(); i++) arrivals.add(new Arrival(me, cap.time()[0], data.get(i)));
                });
                return input;
            });
            for (long t = 0; t < TIMES; t++) {
                // each worker sends a disjoint share of the values of time t, more than one container's worth
                for (long v = t * PER_TIME; v < (t + 1) * PER_TIME; v++) {
                    if (v % worker.peers() == worker.index()) in.staged().add(v);
                }
                in.advanceTo(t + 1);
            }
        });
        Router router = new Router(workers);
        Map<Long, Arrival> byValue = new HashMap<>();
        Set<Integer> receivers = new HashSet<>();
        for (Arrival a : arrivals) {
            assertThat(byValue.put(a.value(), a)).as("value %d arrived twice", a.value()).isNull();
            assertThat(a.worker()).as("owner of %d", a.value()).isEqualTo(router.route(a.value()));
            assertThat(a.time()).as("time of %d", a.value()).isEqualTo(a.value() / PER_TIME);
            receivers.add(a.worker());
        }
        assertThat(byValue).hasSize(TIMES * PER_TIME);
        assertThat(receivers).as("the router spreads consecutive values over every worker").hasSize(workers);
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 4})
    void listRecordsAreRoutedByTheirKey(int workers) {
        ConcurrentLinkedQueue<Map.Entry<Integer, Keyed>> arrivals = new ConcurrentLinkedQueue<>();
        int perWorker = 500;
        Timely.run(Config.workers(workers), worker -> {
            InputHandle<ListContainer<Keyed>> in = worker.dataflow("keyed", scope -> {
                InputHandle<ListContainer<Keyed>> input = scope.input("records", ListContainer.<Keyed>type(Keyed::key));
                int me = scope.worker();
                input.stream().sink("collect", Pact.exchange(), (cap, data) -> {
                    for (Keyed k : data) arrivals.add(Map.entry(me, k));
                });
                return input;
            });
            ListContainer<Keyed> batch = new ListContainer<>();
            // keys repeat across workers: all records of a key must meet on one worker
            for (int i = 0; i < perWorker; i++) batch.add(new Keyed(i % 50, worker.index(), i));
            in.send(batch);
        });
        Router router = new Router(workers);
        assertThat(arrivals).hasSize(workers * perWorker);
        assertThat(arrivals.stream().map(Map.Entry::getValue).distinct().count()).isEqualTo((long) workers * perWorker);
        for (Map.Entry<Integer, Keyed> a : arrivals) {
            assertThat(a.getKey()).as("owner of key %d", a.getValue().key()).isEqualTo(router.route(a.getValue().key()));
        }
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 4})
    void aStreamReadByTwoOperatorsDeliversEveryRecordToBoth(int workers) {
        ConcurrentLinkedQueue<Long> left = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> right = new ConcurrentLinkedQueue<>();
        Timely.run(Config.workers(workers), worker -> {
            InputHandle<LongContainer> in = worker.dataflow("fanout", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                Stream<LongContainer> s = input.stream().exchange();
                s.sink("left", Pact.pipeline(), (cap, data) -> {
                    for (int i = 0; i < data.size(); i++) left.add(data.get(i));
                });
                s.sink("right", Pact.exchange(), (cap, data) -> {
                    for (int i = 0; i < data.size(); i++) right.add(data.get(i));
                });
                return input;
            });
            for (long v = 0; v < 2_000; v++) {
                if (v % worker.peers() == worker.index()) in.staged().add(v);
            }
        });
        assertThat(left).hasSize(2_000).doesNotHaveDuplicates();
        assertThat(right).hasSize(2_000).containsExactlyInAnyOrderElementsOf(left);
    }

    /**
     * Records given to an input while its dataflow is still being built, more than one
     * container's worth, then the input closed, all arrive: the containers sent before the
     * consumers were connected wait for them. (A transaction block's uncommitted rows are fed so;
     * the first full container was lost, and a block of 600 writes no longer saw its own insert.)
     */
    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void recordsSentWhileTheDataflowIsBuiltArrive(int workers) {
        ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
        int n = 3 * InputHandle.BATCH + 7;
        Timely.run(Config.workers(workers), worker -> {
            worker.dataflow("early", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                if (scope.worker() == 0) {
                    for (long v = 0; v < n; v++) input.staged().add(v);
                    input.flush();
                }
                input.close();
                input.stream().exchange().sink("collect", Pact.pipeline(), (cap, data) -> {
                    for (int i = 0; i < data.size(); i++) arrivals.add(data.get(i));
                });
                return null;
            });
        });
        assertThat(arrivals).hasSize(n);
        assertThat(new HashSet<>(arrivals)).hasSize(n);
    }
}
