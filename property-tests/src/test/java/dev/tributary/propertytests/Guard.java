package dev.tributary.propertytests;

import dev.tributary.timely.Config;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** Runs a computation in its own thread and fails the test, instead of hanging, if it does not finish in time. */
public final class Guard {
    private Guard() {}

    /** Runs {@code program} on {@code config}'s workers; rethrows what the run threw; fails after {@code limit}. */
    public static void run(Config config, Consumer<Worker> program, Duration limit) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                Timely.run(config, program);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "guarded-run");
        runner.setDaemon(true);
        runner.start();
        try {
            runner.join(limit.toMillis());
            if (runner.isAlive()) {
                runner.interrupt();
                runner.join(limit.toMillis());
                throw new AssertionError("Timely.run did not return within " + limit + " (the computation never completed)");
            }
        } catch (InterruptedException e) {
            runner.interrupt();
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for Timely.run", e);
        }
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) throw r;
        if (t instanceof Error e) throw e;
        if (t != null) throw new IllegalStateException(t);
    }
}
