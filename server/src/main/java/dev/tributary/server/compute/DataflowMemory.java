package dev.tributary.server.compute;

import dev.tributary.arrangements.HeldState;
import dev.tributary.sql.catalog.Settings;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code max_dataflow_memory}: how many bytes one dataflow (a materialized view's, an index's, a
 * query's or a subscription's) may hold on all workers together, in arrangements, operator state
 * and buffered updates. One instance is shared by the workers' copies of the dataflow; each
 * reports what its copy holds after taking input, and the copy that finds the sum past the limit
 * fails the dataflow, which then reports 53200 ({@link Dataflows#failed}) instead of running the
 * heap out of memory. What each copy last reported is read without locking: a check may see
 * another worker's figure a little late, never a wrong one.
 */
public final class DataflowMemory implements HeldState.Limit {
    private final long limit;
    private final AtomicLongArray held;

    /** A limit of {@code limit} bytes for one dataflow on {@code workers} workers. */
    public DataflowMemory(long limit, int workers) {
        this.limit = limit;
        this.held = new AtomicLongArray(workers);
    }

    /** The limit in bytes. */
    long limit() {
        return limit;
    }

    @Override
    public String exceeded(int worker, long bytes) {
        held.lazySet(worker, bytes);
        long sum = 0;
        for (int w = 0; w < held.length(); w++) sum += held.get(w);
        if (sum <= limit) return null;
        return "it holds " + Settings.showBytes(roundToMegabytes(sum)) + ", more than max_dataflow_memory (" + Settings.showBytes(limit) + ")";
    }

    private static long roundToMegabytes(long bytes) {
        return bytes < 1 << 20 ? bytes : (bytes + (1 << 19)) >> 20 << 20;
    }
}
