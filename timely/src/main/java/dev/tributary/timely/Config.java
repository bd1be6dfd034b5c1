package dev.tributary.timely;

/**
 * How to run a computation.
 *
 * @param workers worker threads, each running every dataflow; at least 1
 * @param events introspection hook, or {@code null} for none
 * @param containFailures whether an operator that throws fails only its dataflow (on every
 *     worker), which stops running and whose probes then throw {@link DataflowFailedException},
 *     while the others go on; otherwise it stops the whole computation and
 *     {@link Execution#join()} rethrows it
 */
public record Config(int workers, TimelyEvents events, boolean containFailures) {
    public Config {
        if (workers < 1) throw new IllegalArgumentException("a computation needs at least one worker, not " + workers);
    }

    /** One worker per core, no event hook. */
    public static Config defaults() {
        return new Config(Runtime.getRuntime().availableProcessors(), null, false);
    }

    public static Config workers(int workers) {
        return new Config(workers, null, false);
    }

    public Config withEvents(TimelyEvents events) {
        return new Config(workers, events, containFailures);
    }

    /** This configuration, with failures contained to the dataflow they happen in (a server's). */
    public Config containingFailures() {
        return new Config(workers, events, true);
    }
}
