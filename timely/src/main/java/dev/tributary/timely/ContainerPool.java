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

    /**
     * The bytes of empty containers waiting in the pools one worker owns; any worker may return
     * one. When the owner returns a container and the budget is spent, the pools it returned
     * containers to least recently give theirs up first: the budget goes to the dataflows at
     * work (a view's build), not to those that were busy once and then idle (the tables loaded
     * before it, whose full pools had spent the budget and left the build none).
     */
    static final class Budget {
        private final java.util.concurrent.atomic.AtomicLong pooled = new java.util.concurrent.atomic.AtomicLong();
        /** The owner's pools that may hold containers, least recently returned to first; the owning worker's alone. */
        private final java.util.LinkedHashMap<ContainerPool<?>, Boolean> holders = new java.util.LinkedHashMap<>(16, 0.75f, true);

        /** Notes that the owner just took a container from {@code pool} or returned one to it. */
        void used(ContainerPool<?> pool) {
            holders.put(pool, Boolean.TRUE);
        }

        void forget(ContainerPool<?> pool) {
            holders.remove(pool);
        }

        /** Empties the least recently used of the owner's pools but {@code keep} until {@code bytes} more fit; whether they do. */
        boolean evictFor(long bytes, ContainerPool<?> keep) {
            var it = holders.keySet().iterator();
            while (pooled.get() + bytes > WORKER_POOLED_BYTES && it.hasNext()) {
                ContainerPool<?> p = it.next();
                if (p == keep) continue;
                p.empty();
                it.remove();
            }
            return pooled.get() + bytes <= WORKER_POOLED_BYTES;
        }

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

    /** Set once the pool's dataflow is dropped: what comes back then is left to the garbage collector. */
    private volatile boolean closed;

    /**
     * Lets go of the pooled containers and gives their bytes back to the worker's {@link Budget},
     * when the pool's dataflow is dropped, on the owning worker. Without it every dropped
     * dataflow's pools kept their share of the budget for good, and after a few builds nothing
     * was pooled any more. (A container another worker returns just as the pool closes may still
     * count until then: one container's bytes, not a pool's.)
     */
    void close() {
        closed = true;
        empty();
        budget.forget(this);
    }

    /** Lets go of every pooled container (on the owning worker). */
    private void empty() {
        for (C c; (c = free.pollLast()) != null; ) budget.give(c.heapBytes());
        if (returned != null) for (C c; (c = returned.poll()) != null; ) budget.give(c.heapBytes());
    }

    C acquire() {
        return acquire(0);
    }

    /** A pooled container, or a new one with room for about {@code records} records (see {@link ContainerType#create(int)}). */
    C acquire(int records) {
        // a pool taken from is one other workers may return containers to: it may be asked to give them up
        budget.used(this);
        C c = free.pollLast();
        if (c == null && returned != null) c = returned.poll();
        if (c == null) return type.create(records);
        budget.give(c.heapBytes());
        return c;
    }

    @SuppressWarnings("unchecked")
    void release(Container c, int byWorker) {
        if (closed) return;
        c.clear();
        long bytes = c.heapBytes();
        if (bytes > MAX_POOLED_BYTES) return;
        if (byWorker == owner) {
            if (free.size() < LIMIT && (budget.take(bytes) || budget.evictFor(bytes, this) && budget.take(bytes))) {
                free.addLast((C) c);
                budget.used(this);
            }
        } else if (budget.take(bytes) && !returned.offer((C) c)) {
            budget.give(bytes);
        }
    }
}
