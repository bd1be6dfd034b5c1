package dev.tributary.arrangements;

/**
 * The sorted keys a cursor was prepared with ({@link Cursor#prepareSeeks}) and how far its seeks
 * have come through them: seeks move forward, so each finds its probe from where the last stopped.
 */
final class ProbeWalk {
    /** The prepared keys; null: none (never prepared, or the preparation declined). */
    Column keys;
    /** The first probe not yet passed. */
    int next;

    /** Walks {@code keys} from their first (null: forgets any). */
    void reset(Column keys) {
        this.keys = keys;
        next = 0;
    }

    /** The index of key {@code i} of {@code column} among the probes, at or after {@link #next}, or -1 if it is not one. */
    int find(Column column, int i) {
        if (keys == null || keys.getClass() != column.getClass()) return -1;
        int m = keys.size();
        while (next < m && keys.compare(next, column, i) < 0) next++;
        return next < m && keys.equal(next, column, i) ? next : -1;
    }
}
