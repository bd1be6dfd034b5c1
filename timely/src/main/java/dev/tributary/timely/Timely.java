package dev.tributary.timely;

import java.util.function.Consumer;

/**
 * Runs a timely dataflow computation: {@code program} runs once on each worker thread, builds
 * dataflows and feeds their inputs; when it returns, the worker closes its inputs and keeps
 * running until its dataflows complete.
 *
 * <pre>{@code
 * Timely.run(Config.workers(2), worker -> {
 *     var input = worker.dataflow("example", scope -> scope.input("numbers", LongContainer.TYPE));
 *     ...
 * });
 * }</pre>
 */
public final class Timely {
    private Timely() {}

    /** Starts the workers and returns at once. */
    public static Execution execute(Config config, Consumer<Worker> program) {
        Fabric fabric = new Fabric(config.workers(), config.events(), config.containFailures());
        Thread[] threads = new Thread[config.workers()];
        for (int i = 0; i < threads.length; i++) {
            Worker w = new Worker(i, fabric);
            threads[i] = new Thread(() -> {
                try {
                    program.accept(w);
                    w.drain();
                } catch (DataflowAbortedException e) {
                    // another worker failed first; join() reports that failure
                } catch (Throwable t) {
                    fabric.fail(t);
                }
            }, "tributary-worker-" + i);
            threads[i].setDaemon(true);
            fabric.register(i, threads[i]);
        }
        for (Thread t : threads) t.start();
        return new Execution(threads, fabric);
    }

    /** Runs to completion; see {@link Execution#join()} for what it throws. */
    public static void run(Config config, Consumer<Worker> program) {
        execute(config, program).join();
    }
}
