package dev.tributary.bench;

import dev.tributary.timely.Config;
import dev.tributary.timely.Execution;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Runs one long-lived timely computation whose workers do a fixed amount of work each time the
 * benchmark thread asks, so a JMH invocation measures that work and not thread start-up or
 * dataflow construction.
 *
 * <p>Each worker builds its dataflows once ({@link Program#build}), then loops: it steps the
 * runtime (with the runtime's own spin/yield/park idling) until the benchmark thread requests the
 * next batch, runs {@link Batch#run} on its own thread, and counts down the batch's latch. The
 * benchmark thread publishes a request, unparks the workers and waits on the latch, so it burns no
 * CPU the workers need (the benchmark machine has as many cores as workers).
 */
final class RoundDriver implements AutoCloseable {
    /** Builds a worker's dataflows, on that worker's thread; returns what it does per batch. */
    @FunctionalInterface
    interface Program {
        Batch build(Worker worker);
    }

    /** One batch of work, run on the worker's thread; {@code number} counts from 1. */
    @FunctionalInterface
    interface Batch {
        void run(long number);
    }

    private final int workers;
    private final Thread[] threads;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Execution execution;
    private volatile long requested;
    private volatile boolean stopping;
    private volatile CountDownLatch done;
    private volatile Thread benchmarkThread;

    RoundDriver(int workers, Program program) {
        this.workers = workers;
        this.threads = new Thread[workers];
        CountDownLatch started = new CountDownLatch(workers);
        this.execution = Timely.execute(Config.workers(workers), worker -> {
            threads[worker.index()] = Thread.currentThread();
            try {
                Batch batch = program.build(worker);
                started.countDown();
                long[] seen = {0};
                BooleanSupplier waiting = () -> requested == seen[0] && !stopping;
                while (true) {
                    worker.stepWhile(waiting);
                    if (stopping) return;
                    long n = ++seen[0];
                    CountDownLatch latch = done;
                    batch.run(n);
                    latch.countDown();
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                Thread b = benchmarkThread;
                if (b != null) LockSupport.unpark(b);
                started.countDown();
                throw t;
            }
        });
        await(started);
    }

    /** Asks every worker for one batch and waits until all have finished it. */
    void runBatch() {
        benchmarkThread = Thread.currentThread();
        CountDownLatch latch = new CountDownLatch(workers);
        done = latch;
        requested = requested + 1; // only this thread writes it
        for (Thread t : threads) LockSupport.unpark(t);
        await(latch);
    }

    private void await(CountDownLatch latch) {
        try {
            while (!latch.await(100, TimeUnit.MILLISECONDS)) checkFailure();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the workers", e);
        }
        checkFailure();
    }

    private void checkFailure() {
        Throwable f = failure.get();
        if (f != null) throw new IllegalStateException("a worker failed: " + f, f);
    }

    /** Lets the workers' programs return, which closes the inputs, and waits for the dataflows to complete. */
    @Override
    public void close() {
        stopping = true;
        for (Thread t : threads) {
            if (t != null) LockSupport.unpark(t);
        }
        execution.join();
        checkFailure();
    }
}
