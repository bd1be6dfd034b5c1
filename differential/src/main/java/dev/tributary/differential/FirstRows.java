package dev.tributary.differential;

import java.util.Comparator;
import java.util.HashMap;
import java.util.function.Function;

/**
 * The first rows of each key of a collection that only grows: {@code LIMIT n [OFFSET m]} over an
 * infinite stream, per key.
 *
 * <p>Model: order each key's insertions by time, and within a time by the data's order; the
 * output holds the insertions at positions {@code [offset, offset + limit)} of that order, each
 * at its own time. Since the input only inserts, a row in the output is never displaced by a
 * later one, so the operator needs no record of the rows it passed: per key, how many rows it has
 * seen. Updates wait until the frontier has passed their time (so a time's rows are all in and
 * ordered), then go through; a key that is full passes nothing more. State: a count per key and
 * the updates of times not yet complete. A retraction is refused: the input must only insert.
 */
public final class FirstRows {
    private FirstRows() {}

    /** The first rows of {@code data} per key, as the class describes; {@code limit} -1 for no limit. */
    public static <D, K> Collection<D> of(Collection<D> data, Function<? super D, ? extends K> keyOf, DataType<K> keyType, long limit, long offset) {
        DataType<D> dataType = data.type();
        HashMap<K, long[]> seen = new HashMap<>();
        dev.tributary.arrangements.HeldState.of(data.scope()).other("firstRows", seen::size, () -> 64L * seen.size());
        long end = limit < 0 ? Long.MAX_VALUE : offset + limit;
        @SuppressWarnings("unchecked")
        Comparator<Insertions.Insertion<K, D>> byData = (x, y) -> ((Comparator<Object>) (Comparator<?>) dataType.order()).compare(x.data(), y.data());
        return Insertions.build(data, "firstRows", keyOf, keyType, "a LIMIT over a stream (its count of rows per key)", (at, rows, out) -> {
            rows.sort(byData);
            for (Insertions.Insertion<K, D> r : rows) {
                long[] count = seen.computeIfAbsent(r.key(), k -> new long[1]);
                // the positions [count, count + n) of this row's copies, cut to [offset, end)
                long from = Math.max(count[0], offset);
                long to = Math.min(count[0] + r.count(), end);
                count[0] = Math.min(count[0] + r.count(), end);
                if (to > from) Collection.append(out, dataType, r.data(), at, 0, to - from);
            }
        });
    }
}
