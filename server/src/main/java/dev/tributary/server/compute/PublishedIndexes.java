package dev.tributary.server.compute;

import dev.tributary.arrangements.TraceSnapshot;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The index contents the workers publish for connection threads, so that a point query can be
 * answered on the thread that received it, without the coordinator's lock and without a round
 * trip through the workers.
 *
 * <p>For every index, each worker publishes, after each of its steps in which something changed,
 * a {@link Shard}: a {@link TraceSnapshot} of its part of the index and one of the errors of the
 * collection indexed. A reader takes every worker's latest shard; each is immutable and exact at
 * every time from its {@code since} up to (not including) its {@code upper}, so the shards answer
 * together at any time inside all of those ranges (see the coordinator's point reads).
 * Entries are written only by the workers and removed by the coordinator after the index's
 * dataflows are dropped.
 */
public final class PublishedIndexes {
    /**
     * One worker's part of an index at one moment.
     *
     * @param rows the worker's shard of the index, by key
     * @param errors the worker's shard of the indexed collection's errors, or null when that
     *     collection cannot fail (a table)
     */
    public record Shard(TraceSnapshot rows, TraceSnapshot errors) {
        /** The first time not yet complete in both traces (their times are single longs). */
        long upper() {
            return errors == null ? first(rows.upper()) : Math.min(first(rows.upper()), first(errors.upper()));
        }

        /** The first time both traces can be read at exactly. */
        long since() {
            return errors == null ? first(rows.since()) : Math.max(first(rows.since()), first(errors.since()));
        }

        private static long first(dev.tributary.timely.Antichain f) {
            return f.isEmpty() ? Long.MAX_VALUE : f.get(0)[0];
        }
    }

    private final int workers;
    private final ConcurrentHashMap<Long, AtomicReferenceArray<Shard>> byIndex = new ConcurrentHashMap<>();

    PublishedIndexes(int workers) {
        this.workers = workers;
    }

    /** Worker {@code worker}'s newest shard of index {@code id}. Called on that worker's thread. */
    void publish(long id, int worker, Shard shard) {
        byIndex.computeIfAbsent(id, k -> new AtomicReferenceArray<>(workers)).set(worker, shard);
        if (waiters.get() > 0) wakeReaders();
    }

    /** Wakes the readers waiting in {@link #awaitReadable}, to look at the shards again. */
    private void wakeReaders() {
        lock.lock();
        try {
            published.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Readers in {@link #awaitReadable}; a publish wakes them only when there are any. */
    private final java.util.concurrent.atomic.AtomicInteger waiters = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    private final java.util.concurrent.locks.Condition published = lock.newCondition();

    /**
     * Every worker's latest shard of index {@code id} into {@code into}, once they are readable
     * through {@code through} ({@link #readableThrough}), waiting for the workers to publish them
     * for at most {@code timeoutNanos} (asked only if it must wait) and while {@code giveUp} is false: a point read right after
     * a write waits here, on its own thread, for the write to reach the index, instead of taking
     * the coordinator to wait for it. False when they are not readable through it by then (or
     * some worker has published none, the index is gone, or it failed: see {@link #fail}).
     */
    public boolean awaitReadable(long id, long through, Shard[] into, java.util.function.LongSupplier timeoutNanos, java.util.function.BooleanSupplier giveUp) {
        if (!read(id, into)) return false;
        if (readableThrough(into) >= through) return true;
        long end = System.nanoTime() + timeoutNanos.getAsLong();
        waiters.incrementAndGet();
        lock.lock();
        try {
            while (true) {
                // read again under the lock: a publish after this read signals this wait
                if (failed.contains(id) || !read(id, into)) return false;
                if (readableThrough(into) >= through) return true;
                long left = end - System.nanoTime();
                if (left <= 0 || giveUp.getAsBoolean()) return false;
                // bounded: a signal lost to a race costs a millisecond, not the timeout
                published.awaitNanos(Math.min(left, 1_000_000L));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
            waiters.decrementAndGet();
        }
    }

    /**
     * Every worker's latest shard of index {@code id}, by worker index, into {@code into}; false
     * when some worker has published none yet (or the index is gone).
     */
    public boolean read(long id, Shard[] into) {
        AtomicReferenceArray<Shard> shards = byIndex.get(id);
        if (shards == null) return false;
        for (int w = 0; w < workers; w++) {
            Shard s = shards.get(w);
            if (s == null) return false;
            into[w] = s;
        }
        return true;
    }

    /**
     * The latest time every one of {@code shards} (one index's, by worker) is complete through and
     * can be read at exactly; {@code Long.MIN_VALUE} when there is none (history compacted past
     * what they hold).
     */
    public static long readableThrough(Shard[] shards) {
        long upper = Long.MAX_VALUE;
        long since = Long.MIN_VALUE;
        for (Shard s : shards) {
            upper = Math.min(upper, s.upper());
            since = Math.max(since, s.since());
        }
        return upper - 1 < since ? Long.MIN_VALUE : upper - 1;
    }

    /** Whether every one of {@code shards} (one index's, by worker) is complete through {@code t} and can be read at it exactly. */
    public static boolean exactAt(Shard[] shards, long t) {
        for (Shard s : shards) {
            if (t < s.since() || t >= s.upper()) return false;
        }
        return true;
    }

    /** How many workers publish shards: the length of the array {@link #read} fills. */
    public int workers() {
        return workers;
    }

    /** Indexes whose dataflow (or one they are computed from) failed: their shards will never catch up. */
    private final java.util.Set<Long> failed = ConcurrentHashMap.newKeySet();

    /** Index {@code id} will not be published further: its dataflow or one it reads failed. Wakes its readers. */
    void fail(long id) {
        failed.add(id);
        wakeReaders();
    }

    /** Forgets index {@code id}, once no worker holds it any more. */
    void remove(long id) {
        byIndex.remove(id);
        failed.remove(id);
    }
}
