package dev.tributary.differential;

import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;

/**
 * How an operator finds the keys of a new batch in a trace.
 *
 * <p>Walking the batch and the trace in step, each seeking the other's key when behind, suits
 * keys that are dense in each other. When the new keys are sparse in the trace (a step's hundred
 * keys against millions), each walk step is a search of every batch of the trace, most of it cache
 * and TLB misses, and the keys between the new ones are never needed. Then the operator tells the
 * trace's cursor the keys first ({@link Cursor#prepareSeeks}), so that its large batches search
 * for all of them at once with their misses overlapping and skip the keys their filters say they
 * lack, and looks each key up exactly ({@link Cursor#seekKeyExact}). A reduce always looks keys
 * up one by one, so it always prepares.
 */
final class Seeks {
    private Seeks() {}

    /** Probes are sparse when the trace's largest batch has at least this many keys per probe key. */
    static final long SPARSE_GAP = 8;

    /** Whether {@code probeKeys} sorted probes are sparse in a trace whose largest batch has {@code largestBatchKeys} keys. */
    static boolean sparse(long probeKeys, long largestBatchKeys) {
        return largestBatchKeys >= SPARSE_GAP * Math.max(1, probeKeys);
    }

    /** {@code c}, told that it will be looked up for the keys of {@code keys} in order ({@link Cursor#prepareSeeks}). */
    static Cursor prepared(Cursor c, Column keys) {
        c.prepareSeeks(keys);
        return c;
    }
}
