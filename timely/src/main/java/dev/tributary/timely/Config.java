package dev.tributary.timely;

/**
 * How to run a computation.
 *
 * @param workers worker threads, each running every dataflow; at least 1
 * @param events introspection hook, or {@code null} for none
 */
public record Config(int workers, TimelyEvents events) {
    public Config {
        if (workers < 1) throw new IllegalArgumentException("a computation needs at least one worker, not " + workers);
    }

    /** One worker per core, no event hook. */
    public static Config defaults() {
        return new Config(Runtime.getRuntime().availableProcessors(), null);
    }

    public static Config workers(int workers) {
        return new Config(workers, null);
    }

    public Config withEvents(TimelyEvents events) {
        return new Config(workers, events);
    }
}
