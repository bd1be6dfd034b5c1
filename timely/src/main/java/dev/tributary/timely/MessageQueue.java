package dev.tributary.timely;

/**
 * The messages waiting at one input, first in first out, as three parallel columns of a ring
 * (time, container, the pool that takes the container back) rather than as {@link Message}
 * objects: queueing a message from this worker allocates nothing, and since no message object
 * exists, none can be reused while a consumer still holds it.
 *
 * <p>Read the oldest message with the {@code peek} methods, then {@link #pop} it, which clears
 * its slot so the queue keeps no container alive; a message pushed meanwhile (by the consumer,
 * say) goes behind the others. Capacity is a power of two and only grows. One worker's thread.
 */
final class MessageQueue {
    private long[][] times = new long[8][];
    private Container[] data = new Container[8];
    private ContainerPool<?>[] homes = new ContainerPool<?>[8];
    private int head;
    private int count;

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    /** Queues {@code d} at {@code time}; {@code home} (or {@code null}) takes the container back once it is read. */
    void push(long[] time, Container d, ContainerPool<?> home) {
        if (count == times.length) grow();
        int tail = (head + count) & (times.length - 1);
        times[tail] = time;
        data[tail] = d;
        homes[tail] = home;
        count++;
    }

    long[] peekTime() {
        checkNotEmpty();
        return times[head];
    }

    Container peekData() {
        checkNotEmpty();
        return data[head];
    }

    ContainerPool<?> peekHome() {
        checkNotEmpty();
        return homes[head];
    }

    /** Removes the oldest message. */
    void pop() {
        checkNotEmpty();
        times[head] = null;
        data[head] = null;
        homes[head] = null;
        head = (head + 1) & (times.length - 1);
        count--;
    }

    private void checkNotEmpty() {
        if (count == 0) throw new IllegalStateException("no message is waiting; check isEmpty() first");
    }

    /** Doubles the ring, unwrapping it so that {@code head} is 0. */
    private void grow() {
        int n = times.length;
        times = unwrap(times, new long[2 * n][]);
        data = unwrap(data, new Container[2 * n]);
        homes = unwrap(homes, new ContainerPool<?>[2 * n]);
        head = 0;
    }

    private <T> T[] unwrap(T[] from, T[] to) {
        int n = from.length;
        System.arraycopy(from, head, to, 0, n - head);
        System.arraycopy(from, 0, to, n - head, head);
        return to;
    }

    /** Slots holding a container, counted over the whole ring: for tests that nothing stays referenced. */
    int referencedSlots() {
        int r = 0;
        for (int i = 0; i < times.length; i++) {
            if (times[i] != null || data[i] != null || homes[i] != null) r++;
        }
        return r;
    }
}
