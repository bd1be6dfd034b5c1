package dev.tributary.server.compute;

import dev.tributary.server.ServerLog;
import dev.tributary.sql.SqlException;
import dev.tributary.timely.Config;
import dev.tributary.timely.Execution;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The worker threads that own every dataflow of a database, and the queues through which the
 * coordinator talks to them.
 *
 * <p>Dataflows are built, fed, read and dropped only on the workers' threads. The coordinator
 * hands every worker the same command with {@link #callAll}, in the same order, so all workers
 * build the same dataflows in the same order (timely's rule) and each answers for its shard.
 * Between commands the workers step their dataflows, so maintained views keep up (and
 * subscribers hear of changes) without anyone asking.
 */
final class Engine implements AutoCloseable {
    private final int workers;
    private final List<LinkedBlockingQueue<Runnable>> queues = new ArrayList<>();
    private final Thread[] threads;
    private final Execution execution;
    private final java.util.function.Consumer<Worker> afterStep;
    private volatile boolean closed;

    /**
     * Starts {@code workers} worker threads; each calls {@code afterStep} with itself after
     * every command and every step of its dataflows (where it publishes what readers on other
     * threads may see, and completes the reads whose dataflows are done).
     */
    Engine(int workers, java.util.function.Consumer<Worker> afterStep) {
        if (workers < 1) throw new IllegalArgumentException("a database needs at least one worker, not " + workers);
        this.workers = workers;
        this.afterStep = afterStep;
        this.threads = new Thread[workers];
        for (int i = 0; i < workers; i++) queues.add(new LinkedBlockingQueue<>());
        // one statement's failing dataflow must not stop the others, nor the worker threads
        execution = Timely.execute(Config.workers(workers).containingFailures(), this::loop);
    }

    int workers() {
        return workers;
    }

    /** The worker threads that have started (each ends when the engine closes, or when its worker stops). */
    List<Thread> threads() {
        List<Thread> out = new ArrayList<>(workers);
        for (Thread t : threads) if (t != null) out.add(t);
        return out;
    }

    /** The longest a worker with nothing to do sleeps before it looks at its queue again. */
    private static final long IDLE_PARK_NANOS = 1_000_000L;

    private void loop(Worker worker) {
        LinkedBlockingQueue<Runnable> commands = queues.get(worker.index());
        threads[worker.index()] = Thread.currentThread();
        register(worker);
        worker.onDataflowFailure(Engine::dataflowFailed);
        worker.commandWaiting(() -> !commands.isEmpty());
        worker.afterLightWork(() -> afterStep.accept(worker));
        int index = worker.index();
        try {
            serve(worker, commands, index);
        } finally {
            // the database is closing (or this worker stopped): nothing its dataflows would still
            // compute is wanted, and draining them could wait for ever on a worker already gone
            try {
                worker.abandon();
            } catch (RuntimeException | Error e) {
                // what failed here is garbage of a worker that is ending; what ended it is reported
            }
        }
    }

    private void serve(Worker worker, LinkedBlockingQueue<Runnable> commands, int index) {
        while (!closed) {
            try {
                if (worker.lostState() instanceof VirtualMachineError lost) {
                    // a command that stepped the worker caught it: it ends the thread all the same
                    throw lost;
                }
                Runnable command = commands.poll();
                if (command != null) {
                    command.run();
                    afterStep.accept(worker);
                    continue;
                }
                boolean worked = worker.step();
                afterStep.accept(worker);
                if (!worked) {
                    // idle until a command (enqueue unparks) or another worker's message (the
                    // fabric unparks): waiting on the command queue alone left a message from the
                    // other worker unseen for up to the whole wait, once per hop of a commit
                    // through the dataflows, so a read of a view after a write took milliseconds
                    worker.park(IDLE_PARK_NANOS);
                    if (Thread.interrupted()) return;
                    command = commands.poll();
                    if (command != null) {
                        command.run();
                        afterStep.accept(worker);
                    }
                }
            } catch (dev.tributary.timely.DataflowAbortedException e) {
                // another worker's thread has ended, and with it the computation: every step from
                // now on would throw this again (it was logged in a loop, gigabytes a minute);
                // this worker ends too, and every statement is told so (Engine.await)
                stopped(index, e);
                return;
            } catch (RuntimeException | Error e) {
                if (worker.lostState() instanceof VirtualMachineError lost) {
                    // The worker's own routing or progress failed (out of memory between
                    // operators): a message or a change of progress may be lost, and a statement
                    // waiting on a frontier would wait for ever. The thread ends; a server then
                    // exits to be restarted (PgServer.exitOnFatalErrors), and every statement of
                    // an embedded database is told the worker stopped (Engine.await).
                    stopped(index, lost);
                    Thread.UncaughtExceptionHandler fatal = Thread.getDefaultUncaughtExceptionHandler();
                    if (fatal != null) fatal.uncaughtException(Thread.currentThread(), lost);
                    throw lost;
                }
                // An operator's failure stops only its dataflow (timely contains it); anything
                // else that escapes a step must not end the thread every statement waits on.
                if (closed) return;
                survived(index, e);
            }
        }
    }

    // What a worker logs while it survives an error. Each never throws: making the line allocates
    // (its text, a string concatenation's first linkage), and with the heap still full an
    // OutOfMemoryError there had gone on from the worker's catch and ended its thread. The line
    // is made inside the try, and nothing is allocated before it (no capturing lambda).

    private static void dataflowFailed(String dataflow, dev.tributary.timely.OperatorFailedException cause) {
        try {
            ServerLog.error("dataflow '" + dataflow + "' failed: " + cause.getMessage(), cause.getCause());
        } catch (Throwable ignored) {
            // the line is lost; the worker goes on
        }
    }

    private static void survived(int worker, Throwable e) {
        try {
            ServerLog.error("worker " + worker + " survived an error outside any dataflow: " + e, e);
        } catch (Throwable ignored) {
            // the line is lost; the worker goes on
        }
    }

    private static void stopped(int worker, Throwable e) {
        try {
            ServerLog.error("worker " + worker + " stops: " + e, null);
        } catch (Throwable ignored) {
            // the line is lost
        }
    }

    /**
     * Runs {@code command} on every worker (concurrently, each on its own thread) and returns their
     * results by worker index; if any throws, throws that (an {@link SqlException} first; that a
     * worker had stopped, XX000, only when no worker reported what went wrong).
     */
    <T> List<T> callAll(Function<Worker, T> command) {
        for (Thread t : threads) {
            if (t == Thread.currentThread()) throw new IllegalStateException("a worker cannot wait for the workers; call from outside the engine");
        }
        if (closed) throw new IllegalStateException("the database is closed");
        List<CompletableFuture<T>> results = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            CompletableFuture<T> result = new CompletableFuture<>();
            results.add(result);
            enqueue(i, () -> {
                try {
                    result.complete(command.apply(currentWorker()));
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        }
        List<T> out = new ArrayList<>(workers);
        Throwable failure = null;
        for (int i = 0; i < workers; i++) {
            CompletableFuture<T> r = results.get(i);
            try {
                out.add(await(r, i));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the database", e);
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (failure == null || (c instanceof SqlException && !(failure instanceof SqlException))) failure = c;
                out.add(null);
            } catch (SqlException stopped) {
                // a worker that stopped before it ran the command: the failure another worker
                // reported for this command (what stopped them) says more, so it wins when seen
                if (failure == null) failure = stopped;
                out.add(null);
            }
        }
        if (failure instanceof RuntimeException r) throw r;
        if (failure instanceof Error err) throw err;
        if (failure != null) throw new IllegalStateException(failure);
        return out;
    }

    /** Queues {@code command} for worker {@code i} and wakes it if it is idle. */
    private void enqueue(int i, Runnable command) {
        queues.get(i).add(command);
        Thread t = threads[i];
        if (t != null) java.util.concurrent.locks.LockSupport.unpark(t);
    }

    /**
     * Worker {@code i}'s result, waiting for it while the worker lives: a worker thread that has
     * ended will never answer, and waiting on it would hang every session behind this one.
     */
    private <T> T await(CompletableFuture<T> r, int i) throws InterruptedException, ExecutionException {
        while (true) {
            try {
                return r.get(100, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                Thread t = threads[i];
                if (t != null && !t.isAlive()) {
                    throw new SqlException("XX000", "worker " + i + " of the database has stopped; restart the server (the server log says why)");
                }
            }
        }
    }

    /**
     * Queues {@code command} on every worker and returns at once, with a future done when every
     * worker has run it (exceptionally with the first failure). Commands keep their order with
     * those of {@link #callAll}: whatever is called later sees this one's effects.
     */
    CompletableFuture<Void> sendAll(java.util.function.Consumer<Worker> command) {
        if (closed) throw new IllegalStateException("the database is closed");
        List<CompletableFuture<Void>> parts = new ArrayList<>(workers);
        for (int i = 0; i < workers; i++) {
            CompletableFuture<Void> part = new CompletableFuture<>();
            parts.add(part);
            enqueue(i, () -> {
                try {
                    command.accept(currentWorker());
                    part.complete(null);
                } catch (Throwable t) {
                    part.completeExceptionally(t);
                }
            });
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]));
    }

    /** Waits for {@code done}, a future of {@link #sendAll}, while the workers live (XX000 if one has stopped). */
    void await(CompletableFuture<?> done) {
        while (true) {
            try {
                done.get(100, TimeUnit.MILLISECONDS);
                return;
            } catch (java.util.concurrent.TimeoutException e) {
                for (int i = 0; i < workers; i++) {
                    Thread t = threads[i];
                    if (t != null && !t.isAlive()) {
                        throw new SqlException("XX000", "worker " + i + " of the database has stopped; restart the server (the server log says why)");
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the database", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    /** Runs {@code command} on every worker and returns worker 0's result. */
    <T> T call(Function<Worker, T> command) {
        return callAll(command).get(0);
    }

    private final ThreadLocal<Worker> current = new ThreadLocal<>();

    private Worker currentWorker() {
        return current.get();
    }

    /** Called by each worker thread before its loop, so commands can find their worker. */
    private void register(Worker w) {
        current.set(w);
    }

    /** How long {@link #close} waits for the workers to leave their loops before it interrupts them. */
    private static final long CLOSE_GRACE_MILLIS = 10_000;

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        // Woken, not interrupted: an interrupt closes a file channel a worker is writing a paged
        // batch through, which failed that dataflow at every shutdown. Only a worker still busy
        // after CLOSE_GRACE_MILLIS (a command blocked on something else) is interrupted.
        for (Thread t : threads) if (t != null) java.util.concurrent.locks.LockSupport.unpark(t);
        long deadline = System.nanoTime() + CLOSE_GRACE_MILLIS * 1_000_000L;
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t == null) continue;
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (t.isAlive()) t.interrupt();
        }
        if (interrupted) Thread.currentThread().interrupt();
        try {
            execution.join();
        } catch (RuntimeException e) {
            // the workers were interrupted out of their loops; nothing is left to report
        }
    }
}
