package dev.tributary.propertytests;

import dev.tributary.timely.Config;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Runs a computation in its own thread and fails the test, instead of hanging, if it does not finish in time. */
public final class Guard {
    private Guard() {}

    /** Runs {@code program} on {@code config}'s workers; rethrows what the run threw; fails after {@code limit}. */
    public static void run(Config config, Consumer<Worker> program, Duration limit) {
        within(limit, () -> Timely.run(config, program), () -> "Timely.run did not return within " + limit + " (the computation never completed)");
    }

    /**
     * Runs {@code body} on its own thread; rethrows what it threw; if it has not finished after
     * {@code limit}, interrupts it and fails with {@code timeout}'s message (which should say how
     * to reproduce the hang).
     */
    public static void within(Duration limit, Runnable body, Supplier<String> timeout) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                body.run();
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
                throw new AssertionError(timeout.get());
            }
        } catch (InterruptedException e) {
            runner.interrupt();
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a guarded run", e);
        }
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) throw r;
        if (t instanceof Error e) throw e;
        if (t != null) throw new IllegalStateException(t);
    }
}
