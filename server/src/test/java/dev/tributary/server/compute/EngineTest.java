package dev.tributary.server.compute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.ServerLogs;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker thread outlives an error outside any dataflow even when the heap is so full that the
 * error cannot be logged (issue 25, found by AttackSuiteTest's COPY of a third of the heap): the
 * log line's own OutOfMemoryError had gone on from the worker's catch and ended its thread, the
 * computation stopped with it, the other worker logged that it survived the stop in a loop (3 GB
 * of log in under a minute), and the server answered nothing more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineTest {
    @Test
    void aWorkerSurvivesAnErrorThatCannotBeLogged() throws Exception {
        AtomicBoolean fail = new AtomicBoolean(true);
        try (AutoCloseable full = ServerLogs.failing();
             Engine engine = new Engine(2, w -> {
                 // after its first step worker 1 meets an error outside any dataflow, as a full heap can throw anywhere
                 if (w.index() == 1 && fail.compareAndSet(true, false)) throw new OutOfMemoryError("Java heap space");
             })) {
            for (int i = 0; i < 100; i++) assertThat(engine.callAll(w -> w.index())).containsExactly(0, 1);
            assertThat(fail).isFalse();
        }
    }
}
