package dev.tributary.timely;

/**
 * A running computation: one thread per worker. {@link #join} waits for every worker and
 * reports the first failure.
 */
public final class Execution implements AutoCloseable {
    private final Thread[] threads;
    private final Fabric fabric;

    Execution(Thread[] threads, Fabric fabric) {
        this.threads = threads;
        this.fabric = fabric;
    }

    /**
     * Waits until every worker's program has returned and its dataflows have completed.
     *
     * @throws OperatorFailedException if an operator threw, naming it
     * @throws RuntimeException whatever a worker's program threw (for example on misuse of an input)
     */
    public void join() {
        boolean interrupted = false;
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    fabric.fail(e);
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        Throwable f = fabric.failure();
        if (f instanceof RuntimeException r) throw r;
        if (f instanceof Error e) throw e;
        if (f != null) throw new IllegalStateException("the computation failed: " + f, f);
    }

    @Override
    public void close() {
        join();
    }
}
