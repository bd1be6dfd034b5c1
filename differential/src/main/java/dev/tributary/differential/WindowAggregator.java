package dev.tributary.differential;

import java.util.function.Consumer;

/**
 * A key's aggregate in a window, as {@link Panes} and {@link SessionWindows} keep it:
 * accumulators made by {@link #create}, updated by {@link #add} (with the update's multiplicity,
 * negative for a retraction), merged by {@link #merge} (a pane into a window; a session into the
 * session that absorbs it), and read by {@link #results}. A merged accumulator may go on taking
 * updates; one merged into another is not used again except to be merged once more (a pane's
 * into each window that holds it).
 */
public interface WindowAggregator<K, D, A, R> {
    A create();

    void add(A acc, D data, long diff);

    /** Adds the accumulator {@code from} into {@code into}. */
    void merge(A into, A from);

    /** The rows of {@code key}'s window {@code [start, end)} from its accumulator (none when it holds no rows). */
    void results(K key, long start, long end, A acc, Consumer<R> out);
}
