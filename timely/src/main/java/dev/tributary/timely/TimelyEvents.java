package dev.tributary.timely;

/**
 * Introspection hook: what the runtime does, as it does it.
 *
 * <p>Called on the worker thread that does the work, synchronously; an implementation must be
 * thread-safe when there are several workers, and cheap. With no listener configured the runtime
 * pays one null check per event site.
 */
public interface TimelyEvents {
    /** An operator's logic is about to run. */
    default void operatorScheduled(int worker, int dataflow, int operator, String name) {}

    /** An operator sent a container of {@code records} records at {@code time} on output {@code port}. */
    default void messagesSent(int worker, int dataflow, int operator, int port, long[] time, int records) {}

    /** The frontier of input {@code port} of an operator changed. */
    default void frontierChanged(int worker, int dataflow, int operator, int port, Antichain frontier) {}
}
