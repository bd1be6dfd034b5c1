package dev.tributary.storage;

import dev.tributary.arrangements.Description;
import java.util.List;

/**
 * A durable batch: the updates at times in {@code [lower, upper)} of its description, advanced
 * by its since, held in zero or more parts (none: nothing changed in that interval).
 */
public record BatchMeta(Description description, List<PartMeta> parts) {
    public BatchMeta {
        parts = List.copyOf(parts);
    }

    /** The updates the batch holds. */
    public long records() {
        long n = 0;
        for (PartMeta p : parts) n += p.records();
        return n;
    }
}
