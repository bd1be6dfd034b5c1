package dev.tributary.server;

import dev.tributary.timely.Config;
import dev.tributary.timely.Execution;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The worker thread that owns every dataflow of a database, and the queue through which the
 * coordinator talks to it.
 *
 * <p>Dataflows are built, fed, read and dropped only on the worker's thread; the coordinator
 * hands it commands with {@link #call} and waits for their result. Between commands the worker
 * steps its dataflows, so maintained views keep up (and subscribers hear of changes) without
 * anyone asking. One worker for now: every command sees all of the data.
 */
final class Engine implements AutoCloseable {
    private final LinkedBlockingQueue<Runnable> commands = new LinkedBlockingQueue<>();
    private final Execution execution;
    private volatile boolean closed;
    private volatile Thread thread;

    Engine() {
        execution = Timely.execute(Config.workers(1), this::loop);
    }

    private void loop(Worker worker) {
        thread = Thread.currentThread();
        this.worker = worker;
        while (!closed) {
            Runnable command = commands.poll();
            if (command != null) {
                command.run();
                continue;
            }
            if (!worker.step()) {
                try {
                    command = commands.poll(1, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (command != null) command.run();
            }
        }
        Runnable rest;
        while ((rest = commands.poll()) != null) rest.run();
    }

    private Worker worker;

    /** Runs {@code command} on the worker thread and returns what it returns, or throws what it throws. */
    <T> T call(Function<Worker, T> command) {
        if (Thread.currentThread() == thread) return command.apply(worker);
        if (closed) throw new IllegalStateException("the database is closed");
        CompletableFuture<T> result = new CompletableFuture<>();
        commands.add(() -> {
            try {
                result.complete(command.apply(worker));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the database", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) throw r;
            if (c instanceof Error err) throw err;
            throw new IllegalStateException(c);
        }
    }

    /** Whether the caller is the worker thread (a subscriber's callback, for example). */
    boolean onWorkerThread() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Thread t = thread;
        if (t != null) t.interrupt();
        try {
            execution.join();
        } catch (RuntimeException e) {
            // the worker was interrupted out of its loop; nothing is left to report
        }
    }
}
