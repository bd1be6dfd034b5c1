package dev.tributary.timely;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * What the workers of one execution share: an inbox per worker (data messages and progress
 * batches, each sender's items in the order sent), wake-ups for parked workers, and the first
 * failure.
 */
final class Fabric {
    final int peers;
    final TimelyEvents events;
    /** See {@link Config#containFailures()}. */
    final boolean containFailures;
    private final ManyToOneConcurrentLinkedQueue<Object>[] inboxes;
    private final Thread[] threads;
    private final AtomicIntegerArray parked;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @SuppressWarnings("unchecked")
    Fabric(int peers, TimelyEvents events, boolean containFailures) {
        this.peers = peers;
        this.events = events;
        this.containFailures = containFailures;
        this.inboxes = new ManyToOneConcurrentLinkedQueue[peers];
        for (int i = 0; i < peers; i++) inboxes[i] = new ManyToOneConcurrentLinkedQueue<>();
        this.threads = new Thread[peers];
        this.parked = new AtomicIntegerArray(peers);
        // links the compare-and-set now: its first use, in fail(), often comes with the heap full,
        // where linking it could itself run out of memory and end the failing worker's thread
        // without a word to the others
        failure.compareAndSet(null, null);
    }

    void register(int worker, Thread thread) {
        threads[worker] = thread;
    }

    void send(int to, Object item) {
        inboxes[to].offer(item);
        if (parked.get(to) != 0) {
            Thread t = threads[to];
            if (t != null) LockSupport.unpark(t);
        }
    }

    Object poll(int worker) {
        return inboxes[worker].poll();
    }

    boolean hasMail(int worker) {
        return !inboxes[worker].isEmpty();
    }

    /** Parks the calling worker for at most {@code nanos}, unless mail or a failure is waiting. */
    void park(int worker, long nanos) {
        parked.set(worker, 1);
        try {
            if (!hasMail(worker) && failure.get() == null) LockSupport.parkNanos(this, nanos);
        } finally {
            parked.set(worker, 0);
        }
    }

    /** Records the first failure and wakes every worker so each can stop. */
    void fail(Throwable t) {
        if (failure.compareAndSet(null, t)) {
            for (Thread th : threads) {
                if (th != null) LockSupport.unpark(th);
            }
        }
    }

    Throwable failure() {
        return failure.get();
    }
}
