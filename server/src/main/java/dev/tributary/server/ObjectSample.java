package dev.tributary.server;

/**
 * One object with a dataflow of its own (a table, materialized view or index) as the metrics see
 * it at one moment ({@link Tributary#sampleObjects}): how far its upper is behind the clock, and
 * what its dataflow holds ({@link ArrangementSize}'s totals).
 *
 * @param lagMillis how far the time it is complete up to trails the clock's now, 0 when it is
 *     caught up (an upper ahead of the clock, as after a restart, is no lag)
 */
public record ObjectSample(long id, String schema, String name, String kind, long lagMillis, long records, long bytes, long pagedBytes) {
    /** Every object at one moment, with what else the metrics read under the coordinator at that moment. */
    public record Samples(long takenAtNanos, int subscriptions, java.util.List<ObjectSample> objects) {
        public Samples {
            objects = java.util.List.copyOf(objects);
        }
    }
}
