package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link Stream#capture} saw, from every worker: each container with its time, and each
 * worker's last frontier. Thread-safe; meant for tests and examples.
 */
public final class Captured<C extends Container> {
    /** One container as it arrived, with the frontier of the capturing input when it was read. */
    public record Event<C>(int worker, long[] time, C data, Antichain frontierAtArrival) {}

    private final List<Event<C>> events = new ArrayList<>();
    private final List<Antichain> frontiers = new ArrayList<>();

    synchronized void record(int worker, long[] time, C data, Antichain frontier) {
        events.add(new Event<>(worker, time, data, frontier));
    }

    synchronized void frontier(int worker, Antichain frontier) {
        while (frontiers.size() <= worker) frontiers.add(null);
        frontiers.set(worker, frontier);
    }

    /** Every container captured so far, in arrival order per worker. */
    public synchronized List<Event<C>> events() {
        return new ArrayList<>(events);
    }

    /** The last frontier each worker saw, by worker index. */
    public synchronized List<Antichain> frontiers() {
        return new ArrayList<>(frontiers);
    }
}
