package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * A running SUBSCRIBE: first the snapshot of the query at its AS OF time (the time it started,
 * by default; none with {@code SNAPSHOT = false}), then every change, each delivered once, in
 * time order, one batch per time, until its UP TO time. Rows of a batch are
 * {@code (change_time timestamptz, [change_progressed boolean,] change_diff bigint, columns...)},
 * or with {@code ENVELOPE UPSERT} {@code change_state text} ({@code upsert}, {@code delete},
 * {@code key_violation}) in place of the diff; a batch is delivered only when its time is
 * complete, so a batch is never revised. With {@code PROGRESS}, a batch of one row with
 * {@code change_progressed} true says every change before its time has been delivered. Close it
 * to stop the dataflow.
 */
public final class Subscription implements AutoCloseable {
    /** Receives the batches, on the engine's thread: return quickly. */
    public interface Listener {
        /** All changes at one time (the snapshot first, at the start time). */
        void onChanges(Result batch);

        /** The query met an error at some time; the subscription stops. */
        default void onError(SqlException error) {}

        /** The stream is over (its UP TO time reached, or its inputs dropped): nothing follows; close the subscription. */
        default void onDone() {}
    }

    /**
     * What a running subscription's dataflow holds and what its streams have done: the records
     * in its arrangements (summed over the workers), the rows its streams dropped as late, and
     * the watermark of its streams in event time (the least, if several; -1 without streams), in
     * the units of the event time column (microseconds for a timestamp). {@code settled} says that
     * its arrangements have done the merging their frontiers allow: until then {@code records}
     * also counts updates that cancel or that compaction will drop (a merge in progress counts
     * both its inputs), so a sample of what the dataflow needs to hold is taken once settled.
     */
    public record Status(long records, long lateRows, long watermark, boolean settled) {}

    private final Runnable cancel;
    private final java.util.function.Supplier<Status> status;
    private final List<String> columns;
    private final List<SqlType> types;
    private volatile boolean closed;

    Subscription(Runnable cancel, java.util.function.Supplier<Status> status, List<String> columns, List<SqlType> types) {
        this.cancel = cancel;
        this.status = status;
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
    }

    /** Its status now, read from every worker; null once it is closed. */
    public Status status() {
        return closed ? null : status.get();
    }

    /** The column names of the delivered rows, {@code change_time} and {@code change_diff} first. */
    public List<String> columns() {
        return columns;
    }

    public List<SqlType> types() {
        return types;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        cancel.run();
    }
}
