package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.BiConsumer;

/**
 * An array value whose shape is not the default one: more than one dimension, or a lower bound
 * other than 1 ({@code '[0:1]={1,2}'}). Holds each dimension's length and lower bound and the
 * elements flat, in row-major order (the last subscript varying fastest), as PostgreSQL stores
 * and prints them.
 *
 * <p>Every other array, the one-dimensional ones subscripted from 1 (nearly all of them) and the
 * empty one, stays a plain immutable {@link List} of its elements, as {@link SqlType} documents:
 * its shape is implied, and rows, codecs and functions written for such arrays read it
 * unchanged. Invariant, so that each array value has one Java form: a {@code ShapedArray} has at
 * least one element and is not one-dimensional with lower bound 1; {@link #of} enforces it.
 *
 * <p>A {@code ShapedArray} is itself the {@link List} of its elements in storage order, because
 * that is what {@code unnest}, {@code = ANY}, {@code array_to_string} and {@code cardinality}
 * want of a multidimensional array: they were right for it without a change. What depends on the
 * shape (text, comparison, subscripts, encoding) asks {@link #dimensions}, {@link #length} and
 * {@link #lower}, which answer for plain lists too. A flat array rather than nested lists keeps
 * a value to one object and one array however many dimensions it has, and makes slicing index
 * arithmetic. {@link #equals} compares shapes as well (so a {@code {{1,2}}} is not equal to a
 * {@code {1,2}} from this side; a plain list's own {@code equals} cannot know, which is one more
 * reason shapes are never compared through {@code equals} but through {@link Values#compare}).
 */
public final class ShapedArray extends AbstractList<Object> implements RandomAccess {
    /** PostgreSQL's limit on an array's dimensions (MAXDIM). */
    public static final int MAX_DIMENSIONS = 6;

    private final int[] lengths;
    private final int[] lowers;
    private final Object[] elements;

    private ShapedArray(int[] lengths, int[] lowers, Object[] elements) {
        this.lengths = lengths;
        this.lowers = lowers;
        this.elements = elements;
    }

    /**
     * The array of {@code elements} (row-major; taken over, not copied) with the dimensions'
     * {@code lengths} and {@code lowers} bounds: the empty list when there are no elements, a plain
     * list when one-dimensional from 1. 54000 past {@link #MAX_DIMENSIONS} dimensions or when an
     * upper bound passes int, as in PostgreSQL.
     */
    public static List<Object> of(int[] lengths, int[] lowers, Object[] elements) {
        if (elements.length == 0) return Collections.emptyList();
        if (lengths.length > MAX_DIMENSIONS) throw tooManyDimensions(lengths.length);
        long n = 1;
        for (int d = 0; d < lengths.length; d++) {
            n *= lengths[d];
            if ((long) lowers[d] + lengths[d] - 1 > Integer.MAX_VALUE) {
                throw new SqlException("54000", "array upper bound is too large: " + ((long) lowers[d] + lengths[d] - 1));
            }
        }
        if (n != elements.length) throw new IllegalArgumentException("dimensions " + Arrays.toString(lengths) + " do not hold " + elements.length + " elements");
        if (lengths.length == 1 && lowers[0] == 1) return Collections.unmodifiableList(Arrays.asList(elements));
        return new ShapedArray(lengths.clone(), lowers.clone(), elements);
    }

    /** The array of {@code elements} (taken over) in the shape of {@code like}, which has as many. */
    public static List<Object> shapedLike(List<?> like, Object[] elements) {
        if (like instanceof ShapedArray s) return new ShapedArray(s.lengths, s.lowers, elements);
        return Collections.unmodifiableList(Arrays.asList(elements));
    }

    /** 54000 for an array of {@code n} dimensions, as PostgreSQL words it. */
    public static SqlException tooManyDimensions(int n) {
        return new SqlException("54000", "number of array dimensions (" + n + ") exceeds the maximum allowed (" + MAX_DIMENSIONS + ")");
    }

    /** How many dimensions the array {@code a} has: 0 when empty. */
    public static int dimensions(List<?> a) {
        return a instanceof ShapedArray s ? s.lengths.length : a.isEmpty() ? 0 : 1;
    }

    /** The length of dimension {@code d} (from 0) of {@code a}, which has it. */
    public static int length(List<?> a, int d) {
        return a instanceof ShapedArray s ? s.lengths[d] : a.size();
    }

    /** The lower bound of dimension {@code d} (from 0) of {@code a}, which has it. */
    public static int lower(List<?> a, int d) {
        return a instanceof ShapedArray s ? s.lowers[d] : 1;
    }

    /** Whether every lower bound of {@code a} is 1. */
    public static boolean fromOne(List<?> a) {
        if (!(a instanceof ShapedArray s)) return true;
        for (int l : s.lowers) if (l != 1) return false;
        return true;
    }

    /** The lengths of {@code a}'s dimensions (a fresh array). */
    public static int[] lengths(List<?> a) {
        int[] out = new int[dimensions(a)];
        for (int d = 0; d < out.length; d++) out[d] = length(a, d);
        return out;
    }

    /** The lower bounds of {@code a}'s dimensions (a fresh array). */
    public static int[] lowers(List<?> a) {
        int[] out = new int[dimensions(a)];
        for (int d = 0; d < out.length; d++) out[d] = lower(a, d);
        return out;
    }

    /** The bounds of {@code a}'s dimensions as PostgreSQL writes them: {@code [1:2][0:3]}; empty for the empty array. */
    public static String boundsText(List<?> a) {
        StringBuilder b = new StringBuilder();
        for (int d = 0; d < dimensions(a); d++) {
            long lower = lower(a, d);
            b.append('[').append(lower).append(':').append(lower + length(a, d) - 1).append(']');
        }
        return b.toString();
    }

    /**
     * Appends {@code a} to {@code b} nested one level per dimension, each level's items between
     * {@code open} and {@code close} and separated by commas, each element as {@code element}
     * appends it: the form both an array's text ({@code {{1,2},{3,4}}}) and its JSON have.
     */
    public static void appendNested(StringBuilder b, List<?> a, char open, char close, BiConsumer<StringBuilder, Object> element) {
        if (a.isEmpty()) {
            b.append(open).append(close);
            return;
        }
        appendLevel(b, a, lengths(a), 0, 0, open, close, element);
    }

    private static int appendLevel(StringBuilder b, List<?> a, int[] lengths, int d, int at, char open, char close, BiConsumer<StringBuilder, Object> element) {
        b.append(open);
        for (int k = 0; k < lengths[d]; k++) {
            if (k > 0) b.append(',');
            if (d + 1 < lengths.length) at = appendLevel(b, a, lengths, d + 1, at, open, close, element);
            else element.accept(b, a.get(at++));
        }
        b.append(close);
        return at;
    }

    @Override
    public Object get(int index) {
        return elements[index];
    }

    @Override
    public int size() {
        return elements.length;
    }

    @Override
    public Object[] toArray() {
        return elements.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShapedArray s && Arrays.equals(lengths, s.lengths) && Arrays.equals(lowers, s.lowers) && Arrays.equals(elements, s.elements);
    }

    @Override
    public int hashCode() {
        return (super.hashCode() * 31 + Arrays.hashCode(lengths)) * 31 + Arrays.hashCode(lowers);
    }
}
