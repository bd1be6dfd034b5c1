package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.List;

/**
 * What a trace held at one moment, as one reader saw it: its batches, its upper, and the reader's
 * logical compaction frontier. Everything in it is immutable, so once published (through a
 * {@code volatile} field or another safe hand-over) it may be read from any thread while the
 * owning worker goes on inserting and merging; the trace's later merges make new batches and
 * leave these alone.
 *
 * <p>Reads at a time {@code t} with {@code since <= t} and {@code t} not {@code >=} {@code upper}
 * are exact and final: every update at or before {@code t} is in the batches, and none can come.
 *
 * @param batches the trace's batches, oldest first
 * @param upper everything before this frontier is in the batches
 * @param since the oldest time the batches can still be read at exactly
 * @param version the trace's change count when the snapshot was taken: equal versions and
 *     frontiers mean equal contents
 */
public record TraceSnapshot(List<Batch> batches, Antichain upper, Antichain since, long version) {
    public TraceSnapshot {
        batches = List.copyOf(batches);
    }

    /** A cursor over every batch, read as one; each call makes a new one, so threads never share it. */
    public Cursor cursor() {
        return Batch.cursor(batches);
    }

    /** Whether a read at {@code time} is exact and final (see above). */
    public boolean readableAt(long[] time) {
        return since.lessEqual(time) && !upper.lessEqual(time);
    }
}
