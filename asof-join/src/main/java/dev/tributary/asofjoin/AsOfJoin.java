package dev.tributary.asofjoin;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.HalfJoin;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The correlated lookup {@code x AS OF SYSTEM TIME expr SINCE lit}: each fact {@code d} meets the
 * values of its key in the dimension {@code x} as they were at the fact's own lookup time
 * {@code expr(d)}, once, and the result is fixed forever after.
 *
 * <p>What holds, at every time {@code T}: the output accumulated at {@code T} is, for each fact
 * {@code d} in the facts accumulated at {@code T} whose lookup time is {@code <= T}, {@code d}
 * joined with the dimension accumulated at {@code expr(d)}; nothing when {@code expr(d) < lit};
 * with {@code left}, {@code f(d, null)} where that join is empty. This is what the desugaring over
 * {@code CHANGES(x AS OF lit)} computes (the dimension's changes with {@code change_time <= expr},
 * summed, present once {@code expr <= now()}); the property tests check the two agree.
 *
 * <p>It runs on one {@link HalfJoin} with {@link HalfJoin.ReadTime.AsOf} read times, not on a
 * decorrelated join: a fact waits until the dimension's frontier passes its lookup time, is
 * looked up once in the dimension's arrangement, leaves at the later of its own time and the
 * lookup time, and is forgotten. The dimension's trace is held at logical compaction {@code lit}
 * for as long as the dataflow lives, so the state is the dimension's history since {@code lit}
 * plus the facts still waiting, both reported by {@link #waiting()} and {@link #historyUpdates()}.
 * A retraction of a fact reads the same (pinned) history and retracts exactly what the fact
 * produced.
 */
public final class AsOfJoin<R> {
    private final Collection<R> output;
    private final HalfJoin.Accounting accounting;

    private AsOfJoin(Collection<R> output, HalfJoin.Accounting accounting) {
        this.output = output;
        this.accounting = accounting;
    }

    /**
     * Builds the lookup of {@code facts} in {@code dimension} on this worker.
     *
     * @param keyOf the fact's key in the dimension's arrangement
     * @param lookupTime the fact's lookup time {@code expr(d)}, in the dimension's time
     * @param since {@code lit}: lookups before it see nothing; the dimension's history from it on
     *     is kept. The dimension's arrangement must still be readable there.
     * @param left LEFT JOIN semantics: {@code f(d, null)} when the lookup finds nothing
     * @throws IllegalArgumentException if the dimension's history before {@code since} is already compacted
     */
    public static <D, K, V, R> AsOfJoin<R> lookup(Collection<D> facts, Function<? super D, ? extends K> keyOf,
            ToLongFunction<? super D> lookupTime, long since, Arrangement<K, V> dimension, boolean left,
            BiFunction<? super D, ? super V, ? extends R> f, DataType<R> outType) {
        HalfJoin.Accounting accounting = new HalfJoin.Accounting();
        Collection<R> out = facts.halfJoin(keyOf, dimension, new HalfJoin.ReadTime.AsOf<>(lookupTime, since), left, f, outType, accounting);
        return new AsOfJoin<>(out, accounting);
    }

    /** The looked-up facts. */
    public Collection<R> output() {
        return output;
    }

    /** Facts on this worker waiting for the dimension to pass their lookup time. */
    public long waiting() {
        return accounting.waiting();
    }

    /** Updates of the dimension's history this worker's shard keeps for the lookup (0 once the dataflow is done). */
    public long historyUpdates() {
        return accounting.historyUpdates();
    }

    /** Heap bytes of that history. */
    public long historyBytes() {
        return accounting.historyBytes();
    }
}
