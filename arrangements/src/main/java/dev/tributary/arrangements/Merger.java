package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.List;

/**
 * A resumable merge of adjacent batches into one, applying logical compaction.
 *
 * <p>The inputs are given oldest first, each one's upper the next one's lower; the result covers
 * {@code [first.lower, last.upper)}. Each update's time is advanced by {@code since} (the trace's
 * logical compaction frontier when the merge began), then updates equal in {@code (key, val,
 * time)} are consolidated and zeros dropped: this is how history behind the since, and keys whose
 * updates cancel, free memory. {@link #work(long)} does at most about that many updates' worth of
 * work, stopping at a key boundary, so a large merge is spread over many insertions.
 *
 * <p>(long, long) batches at arity-1 times merge in one pass however many there are
 * ({@link LongMerge}); other batches in one pass too, through their columns' comparisons
 * ({@link ColumnMerge}).
 */
final class Merger {
    private final List<Batch> inputs;
    private final Antichain since;
    private final LongMerge fast;
    /** The merge on the general path. */
    private final ColumnMerge general;
    private Batch result;

    Merger(List<Batch> inputs, Antichain since) {
        this(inputs, since, 1);
    }

    /**
     * A merge that expects about {@code expected} of the inputs' updates to survive (1: all of
     * them); it sizes its output for that and grows it if more survive. It keeps {@code inputs}
     * itself: the caller hands the list over and does not change it.
     */
    Merger(List<Batch> inputs, Antichain since, double expected) {
        if (inputs.size() < 2) throw new IllegalArgumentException("a merge needs at least two batches, not " + inputs.size());
        for (int i = 1; i < inputs.size(); i++) {
            if (!inputs.get(i - 1).upper().equals(inputs.get(i).lower())) {
                throw new IllegalArgumentException("batches " + inputs.get(i - 1).description() + " and " + inputs.get(i).description() + " are not adjacent");
            }
        }
        this.inputs = inputs;
        this.since = since;
        if (LongMerge.applies(inputs)) {
            fast = new LongMerge(inputs, since.isEmpty() ? Long.MIN_VALUE : since.get(0)[0], expected);
            general = null;
        } else {
            fast = null;
            general = new ColumnMerge(inputs, since);
        }
    }

    Merger(Batch older, Batch newer, Antichain since) {
        this(List.of(older, newer), since);
    }

    boolean isDone() {
        return result != null;
    }

    Batch result() {
        return result;
    }

    /** The batches being merged, oldest first. */
    List<Batch> inputs() {
        return inputs;
    }

    /** Updates in the inputs: the work the whole merge does. */
    long inputUpdates() {
        long n = 0;
        for (int i = 0; i < inputs.size(); i++) n += inputs.get(i).updateCount();
        return n;
    }

    /** Does about {@code fuel} updates of work; returns the fuel left over. */
    long work(long fuel) {
        if (result != null) return fuel;
        if (fast != null) {
            fuel = fast.work(fuel);
            if (fast.isDone()) {
                Description d = description();
                retireInputs();
                result = fast.build(d);
            }
            return fuel;
        }
        fuel = general.work(fuel);
        if (general.isDone()) {
            // retired after the result is built: the general path's builder does not take the inputs' arrays
            result = general.result();
            retireInputs();
        }
        return fuel;
    }

    private Description description() {
        return new Description(inputs.get(0).lower(), inputs.get(inputs.size() - 1).upper(), since);
    }

    /**
     * Gives the inputs' arrays back to their pool, where they may (see {@link Batch#recycle()}):
     * the merge has read them for the last time, and its trace replaces them by the result. Done
     * before the result's arrays are finished, so that those can be the inputs' own.
     */
    private void retireInputs() {
        for (int i = 0; i < inputs.size(); i++) inputs.get(i).recycle();
    }

    /** Completes the merge at once. */
    Batch finish() {
        while (result == null) work(Long.MAX_VALUE);
        return result;
    }
}
