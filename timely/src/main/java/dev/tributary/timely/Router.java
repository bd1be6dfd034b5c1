package dev.tributary.timely;

/**
 * Maps a record's 64-bit key hash to the worker that owns it.
 *
 * <p>Every worker computes the same owner for the same hash, so all records with one key meet on
 * one worker. The hash is mixed first so that keys that are small consecutive integers spread
 * evenly.
 */
public final class Router {
    private final int workers;

    public Router(int workers) {
        this.workers = workers;
    }

    public int workers() {
        return workers;
    }

    /** The owner of a key whose hash is {@code hash}. */
    public int route(long hash) {
        long h = hash * 0x9E3779B97F4A7C15L;
        // the high 32 bits of the mixed hash, scaled to [0, workers) by a multiply, not a division
        return (int) (((h >>> 32) * workers) >>> 32);
    }
}
