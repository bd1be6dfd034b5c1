package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.ShapedArray;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What PostgreSQL does with arrays that depends on their shape (see {@link ShapedArray}): an
 * element by subscripts, slices, concatenation ({@code ||}, {@code array_cat}), and stacking
 * equally shaped arrays into one of a dimension more ({@code ARRAY[ARRAY[..], ..]},
 * {@code array_agg} of arrays). Values in, values out; NULL handling is the callers'.
 */
public final class ArrayShapes {
    private ArrayShapes() {}

    /**
     * The element at {@code subscripts}, one per dimension, each counted from its dimension's
     * lower bound; NULL (Java null) when one is outside the array or their number is not the
     * array's dimensions, as in PostgreSQL.
     */
    public static Object element(List<?> a, long[] subscripts) {
        if (subscripts.length != ShapedArray.dimensions(a)) return null;
        int at = 0;
        for (int d = 0; d < subscripts.length; d++) {
            int length = ShapedArray.length(a, d);
            long k = subscripts[d] - ShapedArray.lower(a, d);
            if (k < 0 || k >= length) return null;
            at = at * length + (int) k;
        }
        return a.get(at);
    }

    /**
     * The slice {@code a[lower[0]:upper[0]][lower[1]:upper[1]]...}, a bound null where omitted
     * (the dimension's own), dimensions past the bounds given taken whole: the bounds are clipped
     * to the array's, and the result's lower bounds are all 1. The empty array when a range is
     * empty after clipping, or when more dimensions are sliced than the array has.
     */
    public static List<Object> slice(List<?> a, Long[] lower, Long[] upper) {
        int n = ShapedArray.dimensions(a);
        if (n == 0 || lower.length > n) return Collections.emptyList();
        int[] from = new int[n], lengths = new int[n];
        for (int d = 0; d < n; d++) {
            long lo = ShapedArray.lower(a, d), hi = lo + ShapedArray.length(a, d) - 1;
            long l = d < lower.length && lower[d] != null ? Math.max(lower[d], lo) : lo;
            long u = d < upper.length && upper[d] != null ? Math.min(upper[d], hi) : hi;
            if (l > u) return Collections.emptyList();
            from[d] = (int) (l - lo);
            lengths[d] = (int) (u - l + 1);
        }
        int total = 1;
        for (int length : lengths) total *= length;
        Object[] out = new Object[total];
        // walk the slice's positions in row-major order, carrying like an odometer
        int[] at = new int[n];
        for (int k = 0; k < total; k++) {
            int flat = 0;
            for (int d = 0; d < n; d++) flat = flat * ShapedArray.length(a, d) + from[d] + at[d];
            out[k] = a.get(flat);
            for (int d = n - 1; d >= 0 && ++at[d] == lengths[d]; d--) at[d] = 0;
        }
        int[] ones = new int[n];
        Arrays.fill(ones, 1);
        return ShapedArray.of(lengths, ones, out);
    }

    /**
     * {@code a || b} of two arrays (PostgreSQL's {@code array_cat}): an empty one gives the other;
     * arrays of equal dimensions join along the first, keeping {@code a}'s bounds; an array and
     * one of a dimension fewer of its elements' shape adds that as the last (or first) item of
     * the first dimension. 2202E for anything else.
     */
    public static List<?> concat(List<?> a, List<?> b) {
        int na = ShapedArray.dimensions(a), nb = ShapedArray.dimensions(b);
        if (na == 0) return b;
        if (nb == 0) return a;
        List<?> outer = na >= nb ? a : b;
        int[] lengths = ShapedArray.lengths(outer), lowers = ShapedArray.lowers(outer);
        if (na == nb) {
            for (int d = 1; d < na; d++) {
                if (ShapedArray.length(a, d) != ShapedArray.length(b, d) || ShapedArray.lower(a, d) != ShapedArray.lower(b, d)) {
                    throw incompatible("Arrays with differing element dimensions are not compatible for concatenation.");
                }
            }
            lengths[0] += ShapedArray.length(b, 0);
        } else if (Math.abs(na - nb) == 1) {
            List<?> inner = na > nb ? b : a;
            for (int d = 0; d < Math.min(na, nb); d++) {
                if (ShapedArray.length(inner, d) != lengths[d + 1] || ShapedArray.lower(inner, d) != lowers[d + 1]) {
                    throw incompatible("Arrays with differing dimensions are not compatible for concatenation.");
                }
            }
            lengths[0]++;
        } else {
            throw incompatible("Arrays of " + na + " and " + nb + " dimensions are not compatible for concatenation.");
        }
        Object[] out = new Object[a.size() + b.size()];
        for (int i = 0; i < a.size(); i++) out[i] = a.get(i);
        for (int i = 0; i < b.size(); i++) out[a.size() + i] = b.get(i);
        return ShapedArray.of(lengths, lowers, out);
    }

    /**
     * {@code e || a} ({@code atEnd} false) or {@code a || e}: the element added at the start or
     * end of a one-dimensional (or empty) array, which keeps its lower bound; 22000 for an array
     * of more dimensions.
     */
    public static List<?> withElement(List<?> a, Object e, boolean atEnd) {
        if (ShapedArray.dimensions(a) > 1) throw new SqlException("22000", "argument must be empty or one-dimensional array");
        Object[] out = new Object[a.size() + 1];
        for (int i = 0; i < a.size(); i++) out[atEnd ? i : i + 1] = a.get(i);
        out[atEnd ? a.size() : 0] = e;
        return ShapedArray.of(new int[] {out.length}, new int[] {a.isEmpty() ? 1 : ShapedArray.lower(a, 0)}, out);
    }

    /**
     * {@code ARRAY[a1, a2, ...]} of arrays: one of a dimension more, whose items are the
     * arrays, which must have equal lengths and lower bounds (its own first lower bound is 1).
     * NULL or empty items give the empty array when all are, else 2202E, as in PostgreSQL.
     */
    public static List<Object> stack(Object[] items) {
        List<?> first = null;
        boolean holes = false;
        for (Object item : items) {
            List<?> a = (List<?>) item;
            if (a == null || a.isEmpty()) holes = true;
            else if (first == null) first = a;
            else if (!sameShape(first, a)) throw mismatched();
        }
        if (first == null) return Collections.emptyList();
        if (holes) throw mismatched();
        return stacked(first, items);
    }

    /**
     * {@code array_agg} of arrays: like {@link #stack}, with PostgreSQL's errors for the
     * aggregate (22004 for a NULL input, 2202E for an empty one or one of another shape).
     */
    public static List<Object> accumulate(List<Object> items) {
        List<?> first = null;
        for (Object item : items) {
            List<?> a = (List<?>) item;
            if (a == null) throw new SqlException("22004", "cannot accumulate null arrays");
            if (a.isEmpty()) throw new SqlException("2202E", "cannot accumulate empty arrays");
            if (first == null) first = a;
            else if (!sameShape(first, a)) throw new SqlException("2202E", "cannot accumulate arrays of different dimensionality");
        }
        return first == null ? Collections.emptyList() : stacked(first, items.toArray());
    }

    private static List<Object> stacked(List<?> shape, Object[] items) {
        int n = ShapedArray.dimensions(shape);
        if (n + 1 > ShapedArray.MAX_DIMENSIONS) throw ShapedArray.tooManyDimensions(n + 1);
        int[] lengths = new int[n + 1], lowers = new int[n + 1];
        lengths[0] = items.length;
        lowers[0] = 1;
        for (int d = 0; d < n; d++) {
            lengths[d + 1] = ShapedArray.length(shape, d);
            lowers[d + 1] = ShapedArray.lower(shape, d);
        }
        Object[] out = new Object[items.length * shape.size()];
        int at = 0;
        for (Object item : items) for (Object e : (List<?>) item) out[at++] = e;
        return ShapedArray.of(lengths, lowers, out);
    }

    private static boolean sameShape(List<?> a, List<?> b) {
        return Arrays.equals(ShapedArray.lengths(a), ShapedArray.lengths(b)) && Arrays.equals(ShapedArray.lowers(a), ShapedArray.lowers(b));
    }

    private static SqlException mismatched() {
        return new SqlException("2202E", "multidimensional arrays must have array expressions with matching dimensions");
    }

    private static SqlException incompatible(String detail) {
        return new SqlException("2202E", "cannot concatenate incompatible arrays").withDetail(detail);
    }
}
