package dev.tributary.timely;

import java.util.ArrayDeque;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Empty containers of one type owned by one worker, so steady-state traffic allocates none.
 *
 * <p>The owning worker takes containers; whichever worker consumed a message gives its container
 * back: the owner into a plain deque, other workers through a bounded lock-free queue. When the
 * queue is full the container is left to the garbage collector: recycling is an optimization,
 * never a reason to wait. So is a container grown past {@link #MAX_POOLED_BYTES} (one message of
 * a million records, say): pools are for the steady state, and such containers kept in them
 * held gigabytes after a view's hydration. At most {@link #LIMIT} wait in each.
 */
final class ContainerPool<C extends Container> {
    private static final int LIMIT = 16;
    static final long MAX_POOLED_BYTES = 512L << 10;
    final ContainerType<C> type;
    final int owner;
    private final ArrayDeque<C> free = new ArrayDeque<>();
    private final ManyToOneConcurrentArrayQueue<C> returned;

    ContainerPool(ContainerType<C> type, int owner, int peers) {
        this.type = type;
        this.owner = owner;
        this.returned = peers > 1 ? new ManyToOneConcurrentArrayQueue<>(LIMIT) : null;
    }

    C acquire() {
        C c = free.pollLast();
        if (c != null) return c;
        if (returned != null && (c = returned.poll()) != null) return c;
        return type.create();
    }

    @SuppressWarnings("unchecked")
    void release(Container c, int byWorker) {
        c.clear();
        if (c.heapBytes() > MAX_POOLED_BYTES) return;
        if (byWorker == owner) {
            if (free.size() < LIMIT) free.addLast((C) c);
        } else {
            returned.offer((C) c);
        }
    }
}
