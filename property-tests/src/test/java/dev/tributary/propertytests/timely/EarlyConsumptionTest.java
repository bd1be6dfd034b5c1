package dev.tributary.propertytests.timely;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.LongContainer;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Router;
import dev.tributary.timely.Stream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The smallest case of what the random dataflows found, made deterministic: a worker reads a
 * peer's exchanged message before it hears, through the peer's progress, that the message was
 * sent. Its count at the exchange's input is then -1 for a moment, which is allowed; what must
 * not happen is that this -1 cancels what the peer's capability implies there, since the peer
 * still holds that capability and may send more at the same time.
 */
class EarlyConsumptionTest {
    @Test
    @Timeout(60)
    void aProbeWaitsForAPeersCapabilityAfterReadingThePeersMessageEarly() {
        long toWorker0 = firstValueOwnedBy(0, 2);
        AtomicInteger read = new AtomicInteger();
        AtomicReference<Antichain> seenByWorker0 = new AtomicReference<>();
        CountDownLatch worker0Looked = new CountDownLatch(1);
        FrontierLog frontiers = new FrontierLog();
        Harness.run(2, frontiers, worker -> {
            Probe[] probe = new Probe[1];
            InputHandle<LongContainer> input = worker.dataflow("early", scope -> {
                InputHandle<LongContainer> in = scope.input("numbers", LongContainer.TYPE);
                Stream<LongContainer> exchanged = in.stream().exchange();
                exchanged.sink("read", Pact.pipeline(), (cap, data) -> read.addAndGet(data.size()));
                probe[0] = exchanged.probe();
                return in;
            });
            if (worker.index() == 0) {
                // Worker 0 has nothing to send: it closes its input and waits for worker 1's record.
                input.close();
                worker.stepWhile(() -> read.get() == 0);
                for (int i = 0; i < 10; i++) worker.step();
                seenByWorker0.set(probe[0].frontier());
                worker0Looked.countDown();
            } else {
                // Worker 1 sends one record to worker 0 at time 0 and keeps its capability at 0
                // (it does not step, so its progress is not shared) until worker 0 has looked.
                input.staged().add(toWorker0);
                input.flush();
                try {
                    worker0Looked.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        assertThat(read.get()).isEqualTo(1);
        assertThat(seenByWorker0.get())
                .as("worker 1 still held its input capability at 0, so worker 0's probe must still be at 0")
                .isEqualTo(Antichain.of(0));
    }

    private static long firstValueOwnedBy(int worker, int workers) {
        Router router = new Router(workers);
        long v = 0;
        while (router.route(v) != worker) v++;
        return v;
    }
}
