package dev.tributary.differential;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;
import java.util.List;

/**
 * How an operator seeks a trace for the keys of a new batch, in key order.
 *
 * <p>{@link Cursor#seekKey} gallops forward from the cursor's key, which is right when the probes
 * are dense in the trace. When they are sparse (a step's hundred keys against a trace of
 * millions) each gallop covers a gap of thousands of keys, touching about {@code 2 log2(gap)}
 * cache lines that no other probe shares, and a join or reduce then spends most of its time in
 * cache and TLB misses. Restarting each seek from the first key instead makes every probe walk the
 * same exponential steps and bisect the same intervals: their first levels stay in the cache, so a
 * probe misses about as often as a binary search from scratch does (a cache model of a 10^7-key
 * batch and 100 sorted probes: 13 instead of 29 lines missed per probe with 2 MiB of cache, 11
 * instead of 17 pages with 2048 TLB entries). Where the trace fits in the cache both ways cost
 * the same few comparisons, so only sparse probes restart.
 */
final class Seeks {
    private Seeks() {}

    /** Probes are sparse when the trace's largest batch has at least this many keys per probe key. */
    static final long SPARSE_GAP = 1024;

    /** Whether {@code probeKeys} sorted probes are sparse in a trace of {@code batches}. */
    static boolean sparse(long probeKeys, List<Batch> batches) {
        long largest = 0;
        for (Batch b : batches) largest = Math.max(largest, b.keyCount());
        return largest >= SPARSE_GAP * Math.max(1, probeKeys);
    }

    /** The number of keys in {@code batches} (with repeats across batches): an upper bound of their distinct keys. */
    static long keys(List<Batch> batches) {
        long n = 0;
        for (Batch b : batches) n += b.keyCount();
        return n;
    }

    /** Moves {@code c} to the first key {@code >=} key {@code i} of {@code column}, from its first key if {@code sparse}. */
    static void seek(Cursor c, Column column, int i, boolean sparse) {
        if (sparse) c.rewindKeys();
        c.seekKey(column, i);
    }
}
