package dev.tributary.changeslog;

import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;

/**
 * {@code CHANGES(x AS OF since)}: a collection's history from a time on, as an append-only
 * collection of change records.
 *
 * <p>What holds, at every time {@code T >= since}: the output holds, once each, the records
 * {@code f(d, t, n)} for every {@code (d, t)} with {@code since <= t <= T} whose updates in the
 * input sum to {@code n != 0}, where the input's updates before {@code since} count as made at
 * {@code since} (so the first records are the input's contents at {@code since}). Nothing is ever
 * retracted. The input must still hold its history from {@code since} on.
 *
 * <p>It is three operators: times before {@code since} moved to it ({@link Collection#delay}),
 * consolidation (so each {@code (d, t)} is one record), and the updates' times and counts made part
 * of the data ({@link Collection#reify}).
 */
public final class ChangeLog {
    private ChangeLog() {}

    public static <D, R> Collection<R> of(Collection<D> input, long since, Collection.Reifier<? super D, ? extends R> f, DataType<R> outType) {
        return input.delay(t -> Math.max(t, since)).consolidate().reify(f, outType);
    }
}
