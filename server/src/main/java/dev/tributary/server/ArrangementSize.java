package dev.tributary.server;

import java.util.List;

/**
 * What a relation's dataflow holds ({@link Tributary#arrangementSize}), summed over the workers:
 * {@code records}, the updates in the arrangements it built plus records its operators keep
 * waiting, and their {@code bytes} on the heap; {@code parts}, the same for each arrangement (by
 * its operator's name) and each other state, which add up to the totals. {@code pagedBytes}: the
 * bytes of arrangement batches held in {@linkplain dev.tributary.arrangements.Paging paged} parts,
 * in files and on the heap only while read (not in {@code bytes}).
 */
public record ArrangementSize(long records, long bytes, long pagedBytes, List<Part> parts) {
    public ArrangementSize {
        parts = List.copyOf(parts);
    }

    public ArrangementSize(long records, long bytes, List<Part> parts) {
        this(records, bytes, 0, parts);
    }

    /** One arrangement or other state of the dataflow. */
    public record Part(String name, long records, long bytes, long pagedBytes) {
        public Part(String name, long records, long bytes) {
            this(name, records, bytes, 0);
        }
    }
}
