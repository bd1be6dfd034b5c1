package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.fail;

import dev.tributary.timely.Config;
import dev.tributary.timely.Execution;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.time.Duration;
import java.util.function.Consumer;

/** Runs a timely computation from a test, failing instead of hanging if it does not complete in time. */
final class Dataflows {
    private Dataflows() {}

    static void runWithin(Duration limit, Config config, Consumer<Worker> program) {
        Execution execution = Timely.execute(config, program);
        Thread joiner = new Thread(execution::join, "test-joiner");
        Throwable[] failure = new Throwable[1];
        joiner.setUncaughtExceptionHandler((t, e) -> failure[0] = e);
        joiner.setDaemon(true);
        joiner.start();
        try {
            joiner.join(limit.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (joiner.isAlive()) fail("the computation did not complete within " + limit + "; its workers are still running");
        if (failure[0] instanceof RuntimeException r) throw r;
        if (failure[0] instanceof Error e) throw e;
    }
}
