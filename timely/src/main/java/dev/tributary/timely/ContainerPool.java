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
 * held gigabytes after a view's hydration. At most {@link #LIMIT} wait in each, and all the
 * pools a worker owns hold at most {@link #WORKER_POOLED_BYTES} together ({@link Budget}): a
 * worker has a pool per channel of every dataflow, and after a large build each pool's limit
 * of full containers added up to 50 MB of empty containers on two workers for four views.
 */
final class ContainerPool<C extends Container> {
    private static final int LIMIT = 16;
    static final long MAX_POOLED_BYTES = 512L << 10;
    static final long WORKER_POOLED_BYTES = 8L << 20;
    final ContainerType<C> type;
    final int owner;
    private final Budget budget;
    private final ArrayDeque<C> free = new ArrayDeque<>();
    private final ManyToOneConcurrentArrayQueue<C> returned;

    /** The bytes of empty containers waiting in the pools one worker owns; any worker may return one. */
    static final class Budget {
        private final java.util.concurrent.atomic.AtomicLong pooled = new java.util.concurrent.atomic.AtomicLong();

        /** Counts {@code bytes} more as pooled, unless that would pass {@link #WORKER_POOLED_BYTES}. */
        boolean take(long bytes) {
            if (pooled.get() + bytes > WORKER_POOLED_BYTES) return false;
            pooled.addAndGet(bytes);
            return true;
        }

        void give(long bytes) {
            pooled.addAndGet(-bytes);
        }

        long pooled() {
            return pooled.get();
        }
    }

    ContainerPool(ContainerType<C> type, int owner, int peers, Budget budget) {
        this.type = type;
        this.owner = owner;
        this.budget = budget;
        this.returned = peers > 1 ? new ManyToOneConcurrentArrayQueue<>(LIMIT) : null;
    }

    C acquire() {
        C c = free.pollLast();
        if (c == null && returned != null) c = returned.poll();
        if (c == null) return type.create();
        budget.give(c.heapBytes());
        return c;
    }

    @SuppressWarnings("unchecked")
    void release(Container c, int byWorker) {
        c.clear();
        long bytes = c.heapBytes();
        if (bytes > MAX_POOLED_BYTES) return;
        if (byWorker == owner) {
            if (free.size() < LIMIT && budget.take(bytes)) free.addLast((C) c);
        } else if (budget.take(bytes) && !returned.offer((C) c)) {
            budget.give(bytes);
        }
    }
}
