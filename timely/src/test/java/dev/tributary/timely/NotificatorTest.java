package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Notificator: each requested time is delivered once, in time order, only after the input frontier
 * has passed it, with a capability that lets the operator send at that time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NotificatorTest {
    private static final int TIMES = 5;
    private static final int PER_WORKER = 2_500; // more than InputHandle.BATCH, so several messages per time
    private static final long LATE = 100;

    record Delivery(int worker, long time, Antichain frontier, long count, Capability capability) {}

    @ParameterizedTest(name = "workers={0}, wait for each time={1}, exchange={2}")
    @CsvSource({"1, false, true", "1, true, true", "2, false, true", "2, true, true", "3, false, true", "3, true, true", "3, true, false"})
    void eachTimeIsDeliveredOnceInOrderAfterTheFrontierPasses(int workers, boolean waitEachTime, boolean exchange) {
        ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Integer> drained = new ConcurrentLinkedQueue<>();
        Captured<LongContainer> out = new Captured<>();
        Timely.run(Config.workers(workers), worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> in = worker.dataflow("notify", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                int me = scope.worker();
                Notificator notificator = new Notificator();
                Map<Long, Long> counts = new HashMap<>();
                Stream<LongContainer> perTime = input.stream().unary("count", exchange ? Pact.exchange() : Pact.pipeline(), LongContainer.TYPE, (i, o) -> {
                    i.forEach((cap, data) -> {
                        long t = cap.time()[0];
                        counts.merge(t, (long) data.size(), Long::sum);
                        notificator.notifyAt(cap); // once per message: several per time
                        // requested in decreasing time order, to be delivered in increasing order
                        notificator.notifyAt(cap.delayed(new long[] {LATE - t}));
                    });
                    notificator.forEachReady(cap -> {
                        long t = cap.time()[0];
                        long n = counts.getOrDefault(t, 0L);
                        counts.remove(t);
                        deliveries.add(new Delivery(me, t, i.frontier(), n, cap));
                        LongContainer c = o.newContainer();
                        c.add(n);
                        o.send(cap, c);
                    }, i.frontier());
                    if (i.frontier().isEmpty() && notificator.isEmpty()) drained.add(me);
                });
                probe[0] = perTime.capture(out).probe();
                return input;
            });
            for (long t = 0; t < TIMES; t++) {
                for (int i = 0; i < PER_WORKER; i++) in.staged().add(value(t, worker.index(), i));
                in.advanceTo(t + 1);
                long time = t;
                if (waitEachTime) worker.stepWhile(() -> probe[0].lessEqual(time));
            }
        });

        Router router = new Router(workers);
        Map<Integer, Map<Long, Long>> expected = new TreeMap<>();
        for (int w = 0; w < workers; w++) expected.put(w, new TreeMap<>());
        for (long t = 0; t < TIMES; t++) {
            for (int w = 0; w < workers; w++) {
                for (int i = 0; i < PER_WORKER; i++) expected.get(exchange ? router.route(value(t, w, i)) : w).merge(t, 1L, Long::sum);
            }
        }
        for (int w = 0; w < workers; w++) {
            int worker = w;
            List<Delivery> mine = deliveries.stream().filter(d -> d.worker() == worker).toList();
            List<Long> times = mine.stream().map(Delivery::time).toList();
            TreeSet<Long> expectedTimes = new TreeSet<>(expected.get(w).keySet());
            for (long t : expected.get(w).keySet()) expectedTimes.add(LATE - t);
            assertThat(times).as("worker %d: each time once, in order", w).containsExactlyElementsOf(expectedTimes);
            for (Delivery d : mine) {
                assertThat(d.frontier().lessEqual(d.time())).as("frontier %s has passed %d", d.frontier(), d.time()).isFalse();
                assertThat(d.capability().isValid()).as("dropped after delivery").isFalse();
                if (d.time() < TIMES) assertThat(d.count()).as("worker %d count at %d", w, d.time()).isEqualTo(expected.get(w).get(d.time()));
            }
        }
        assertThat(new TreeSet<>(drained)).as("workers whose notificator emptied once the input completed")
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, workers).boxed().toList());

        Map<Long, Long> emitted = new TreeMap<>();
        for (Captured.Event<LongContainer> e : out.events()) emitted.merge(e.time()[0], e.data().get(0), Long::sum);
        Map<Long, Long> total = new TreeMap<>();
        for (long t = 0; t < TIMES; t++) {
            total.put(t, (long) PER_WORKER * workers);
            total.put(LATE - t, 0L);
        }
        assertThat(emitted).as("sent at each notified time").isEqualTo(total);
    }

    private static long value(long t, int worker, int i) {
        return t * 1_000_000 + worker * 10_000L + i;
    }
}
