package dev.tributary.propertytests.differential;

import dev.tributary.differential.KV;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

/**
 * The reference's vocabulary: multisets as maps from element to count, with no zero counts (counts
 * may be negative), and what each operator does to one, written from scratch without anything
 * incremental. Every method returns a new map and leaves its arguments alone.
 */
final class Multisets {
    private Multisets() {}

    /** The sum of the diffs of the updates at times {@code <= time}, per datum. */
    static <D> Map<D, Long> accumulate(List<Upd<D>> updates, long time) {
        Map<D, Long> m = new HashMap<>();
        for (Upd<D> u : updates) {
            if (u.time() <= time) add(m, u.data(), u.diff());
        }
        return m;
    }

    /** Adds {@code n} copies of {@code d} to {@code m} in place, dropping it at zero. */
    static <D> void add(Map<D, Long> m, D d, long n) {
        if (n == 0) return;
        Long sum = m.merge(d, n, Long::sum);
        if (sum == 0) m.remove(d);
    }

    static <D> Map<D, Long> plus(Map<D, Long> a, Map<D, Long> b) {
        Map<D, Long> m = new HashMap<>(a);
        b.forEach((d, n) -> add(m, d, n));
        return m;
    }

    static <D> Map<D, Long> negate(Map<D, Long> a) {
        Map<D, Long> m = new HashMap<>();
        a.forEach((d, n) -> m.put(d, -n));
        return m;
    }

    static <D, R> Map<R, Long> map(Map<D, Long> a, Function<? super D, ? extends R> f) {
        Map<R, Long> m = new HashMap<>();
        a.forEach((d, n) -> add(m, f.apply(d), n));
        return m;
    }

    static <D, R> Map<R, Long> flatMap(Map<D, Long> a, Function<? super D, ? extends Iterable<? extends R>> f) {
        Map<R, Long> m = new HashMap<>();
        a.forEach((d, n) -> {
            for (R r : f.apply(d)) add(m, r, n);
        });
        return m;
    }

    static <D> Map<D, Long> filter(Map<D, Long> a, Predicate<? super D> p) {
        Map<D, Long> m = new HashMap<>();
        a.forEach((d, n) -> {
            if (p.test(d)) m.put(d, n);
        });
        return m;
    }

    /** Each datum with its count replaced by {@code f} of it. */
    static <D> Map<D, Long> threshold(Map<D, Long> a, LongUnaryOperator f) {
        Map<D, Long> m = new HashMap<>();
        a.forEach((d, n) -> add(m, d, f.applyAsLong(n)));
        return m;
    }

    /** Each datum with a positive count, once. */
    static <D> Map<D, Long> distinct(Map<D, Long> a) {
        return threshold(a, n -> n > 0 ? 1 : 0);
    }

    /** {@code (d, n)}, once, for each datum with non-zero count {@code n}. */
    static <D> Map<KV<D, Long>, Long> count(Map<D, Long> a) {
        Map<KV<D, Long>, Long> m = new HashMap<>();
        a.forEach((d, n) -> m.put(KV.of(d, n), 1L));
        return m;
    }

    /** The multiset grouped by {@code key}: per key, its data with their counts, in data order. */
    static <D extends Comparable<? super D>, K> Map<K, TreeMap<D, Long>> group(Map<D, Long> a, Function<? super D, ? extends K> key) {
        Map<K, TreeMap<D, Long>> groups = new HashMap<>();
        a.forEach((d, n) -> groups.computeIfAbsent(key.apply(d), k -> new TreeMap<>()).put(d, n));
        return groups;
    }

    /**
     * The join of {@code a} and {@code b} on keys: every pair with equal keys gives {@code f(a, b)}
     * with the product of their counts.
     */
    static <A, B, K, R> Map<R, Long> join(Map<A, Long> a, Function<? super A, ? extends K> keyA, Map<B, Long> b,
            Function<? super B, ? extends K> keyB, BiFunction<? super A, ? super B, ? extends R> f) {
        Map<R, Long> m = new HashMap<>();
        a.forEach((x, n) -> b.forEach((y, k) -> {
            if (Objects.equals(keyA.apply(x), keyB.apply(y))) add(m, f.apply(x, y), Math.multiplyExact(n, k));
        }));
        return m;
    }

    /** A readable multiset, its elements sorted: {@code {1 x 3, -2 x 5}}. */
    static String show(Map<?, Long> m) {
        List<Map.Entry<?, Long>> entries = new ArrayList<>(m.entrySet());
        entries.sort((x, y) -> ORDER.compare(x.getKey(), y.getKey()));
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < entries.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(entries.get(i).getValue()).append(" x ").append(entries.get(i).getKey());
        }
        return sb.append('}').toString();
    }

    /**
     * What {@code actual} has that {@code expected} lacks (positive) or the reverse (negative),
     * readable; empty when they are equal.
     */
    static String difference(Map<?, Long> expected, Map<?, Long> actual) {
        Map<Object, Long> d = new HashMap<>();
        actual.forEach((x, n) -> add(d, x, n));
        expected.forEach((x, n) -> add(d, x, -n));
        return d.isEmpty() ? "" : show(d);
    }

    /** Numbers numerically, pairs by key then value, anything else by its string. */
    static final Comparator<Object> ORDER = new Comparator<>() {
        @Override
        public int compare(Object x, Object y) {
            if (x instanceof Long a && y instanceof Long b) return Long.compare(a, b);
            if (x instanceof KV<?, ?> a && y instanceof KV<?, ?> b) {
                int c = compare(a.key(), b.key());
                return c != 0 ? c : compare(a.val(), b.val());
            }
            return String.valueOf(x).compareTo(String.valueOf(y));
        }
    };
}
