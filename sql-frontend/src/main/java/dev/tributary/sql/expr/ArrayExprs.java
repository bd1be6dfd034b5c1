package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.ShapedArray;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * PostgreSQL's arrays in expressions: {@code ARRAY[...]} (of values, or of arrays for one more
 * dimension), subscripts and slices, comparisons, {@code ||}, {@code x op ANY/ALL (array)}, and
 * the functions {@code array_to_string}, {@code array_dims}, {@code array_ndims},
 * {@code array_upper}, {@code array_lower}, {@code array_length}, {@code cardinality},
 * {@code array_cat}, {@code array_append} and {@code array_prepend}.
 *
 * <p>Arrays are subscripted from their lower bounds (1 unless written otherwise). A subscript
 * outside the array, or NULL, gives NULL; comparisons go element by element (NULL elements
 * above every value), then by length and shape, as PostgreSQL's btree order of arrays does.
 * What depends on shapes is {@link ArrayShapes}'.
 */
public final class ArrayExprs {
    private ArrayExprs() {}

    /**
     * {@code ARRAY[e1, e2, ...]}: the elements' common type's array; when the elements are
     * arrays, the array of one more dimension that stacks them. 42P18 for an empty one without a
     * type.
     */
    public static ScalarExpr construct(List<ScalarExpr> elements, int pos) {
        if (elements.isEmpty()) {
            throw new SqlException("42P18", "cannot determine type of empty array", pos,
                    "Explicitly cast to the desired type, for example ARRAY[]::integer[].");
        }
        List<SqlType> types = Types.typesOf(elements);
        SqlType common = Types.common(types, "ARRAY", pos);
        SqlType element = common.kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : common;
        List<ScalarExpr> coerced = Types.coerceAll(elements, element, pos);
        if (element.isArray()) {
            return new ScalarExpr.Call("array", coerced, element, x -> ArrayShapes.stack(x.clone()), false);
        }
        return new ScalarExpr.Call("array", coerced, SqlType.array(element), x -> Collections.unmodifiableList(Arrays.asList(x.clone())), false);
    }

    /** The empty array of {@code type} (ARRAY(subquery) with no rows). */
    public static ScalarExpr empty(SqlType type) {
        return new ScalarExpr.Literal(Collections.emptyList(), type);
    }

    /**
     * {@code array[i][j]...} ({@code uppers} the indexes), or with {@code slice} the slice
     * {@code array[lo:hi]...}: one {@code lowers}/{@code uppers} pair per subscript, null where
     * the text leaves a bound out (a plain index {@code [i]} among slices is the caller's
     * {@code [1:i]}, as PostgreSQL reads it). 42804 when {@code array} is not an array or a
     * subscript not an integer.
     */
    public static ScalarExpr subscript(ScalarExpr array, List<ScalarExpr> lowers, List<ScalarExpr> uppers, boolean slice, int pos) {
        if (array.type().kind() == SqlType.Kind.JSONB) {
            throw new SqlException("0A000", "jsonb subscripting (j['key']) is not supported", pos, "Use the -> operator: j -> 'key'.");
        }
        if (!array.type().isArray()) {
            throw new SqlException("42804", "cannot subscript type " + array.type() + " because it does not support subscripting", pos);
        }
        int n = uppers.size();
        List<ScalarExpr> args = new ArrayList<>(List.of(array));
        int[] lowerArg = new int[n], upperArg = new int[n]; // where each bound is among args; -1 when omitted
        for (int d = 0; d < n; d++) {
            lowerArg[d] = slice ? addIndex(args, lowers.get(d), pos) : -1;
            upperArg[d] = addIndex(args, uppers.get(d), pos);
        }
        // a vector (int2vector) is subscripted from 0: shift its subscripts to count from 1
        long shift = array.type().isVector() ? 1 : 0;
        if (!slice) {
            return new ScalarExpr.Call("[]", args, array.type().element(), x -> {
                long[] at = new long[n];
                for (int d = 0; d < n; d++) at[d] = (Long) x[upperArg[d]] + shift;
                return ArrayShapes.element((List<?>) x[0], at);
            }, true);
        }
        return new ScalarExpr.Call("[:]", args, array.type(), x -> {
            Long[] lo = new Long[n], hi = new Long[n];
            for (int d = 0; d < n; d++) {
                if (lowerArg[d] >= 0) lo[d] = (Long) x[lowerArg[d]] + shift;
                if (upperArg[d] >= 0) hi[d] = (Long) x[upperArg[d]] + shift;
            }
            return ArrayShapes.slice((List<?>) x[0], lo, hi);
        }, true);
    }

    /** Adds {@code index} (as an integer) to {@code args} and returns where; -1 when it is null (omitted). */
    private static int addIndex(List<ScalarExpr> args, ScalarExpr index, int pos) {
        if (index == null) return -1;
        ScalarExpr i = Casts.tryCoerce(index, SqlType.INTEGER, CastContext.ASSIGNMENT, pos);
        if (i == null) throw new SqlException("42804", "array subscript must have type integer", pos);
        args.add(i);
        return args.size() - 1;
    }

    /**
     * {@code l || r} with an array on either side: two arrays (of one element type) end to end,
     * or an element added at the start or end; NULL arrays count as empty, as in PostgreSQL.
     */
    static ScalarExpr concat(ScalarExpr l, ScalarExpr r, int pos) {
        boolean la = l.type().isArray(), ra = r.type().isArray();
        SqlType element = Types.common(List.of(la ? l.type().element() : l.type(), ra ? r.type().element() : r.type()), "||", pos);
        if (element.kind() == SqlType.Kind.UNKNOWN) element = SqlType.TEXT;
        SqlType array = SqlType.array(element);
        boolean leftArray = la || (l.type().kind() == SqlType.Kind.UNKNOWN && ra && !(r.type().kind() == SqlType.Kind.UNKNOWN));
        boolean rightArray = ra || (r.type().kind() == SqlType.Kind.UNKNOWN && la);
        ScalarExpr a = Casts.tryCoerce(l, leftArray ? array : element, CastContext.IMPLICIT, pos);
        ScalarExpr b = Casts.tryCoerce(r, rightArray ? array : element, CastContext.IMPLICIT, pos);
        if (a == null || b == null) {
            throw new SqlException("42883", "operator does not exist: " + l.type() + " || " + r.type(), pos,
                    "No operator matches the given name and argument types. You might need to add explicit type casts.");
        }
        return new ScalarExpr.Call("||", List.of(a, b), array, concatenation(leftArray, rightArray), false);
    }

    /** {@code ||} of arrays ({@code array_cat}), or of an array and an element on the side that is not one. */
    private static ScalarExpr.Impl concatenation(boolean leftArray, boolean rightArray) {
        return x -> {
            if (leftArray && rightArray) return x[0] == null && x[1] == null ? null : ArrayShapes.concat(orEmpty(x[0]), orEmpty(x[1]));
            return leftArray ? ArrayShapes.withElement(orEmpty(x[0]), x[1], true) : ArrayShapes.withElement(orEmpty(x[1]), x[0], false);
        };
    }

    /** A NULL array as the empty one, as {@code ||} takes it. */
    private static List<?> orEmpty(Object array) {
        return array == null ? Collections.emptyList() : (List<?>) array;
    }

    /** {@code l op r} where one side is an array: both as one array type, compared as PostgreSQL does. */
    static ScalarExpr compare(BinaryOp op, ScalarExpr l, ScalarExpr r, int pos) {
        SqlType t;
        if (l.type().isArray() && r.type().isArray()) {
            t = SqlType.array(Types.common(List.of(l.type().element(), r.type().element()), op.symbol(), pos));
        } else {
            t = l.type().isArray() ? l.type() : r.type();
        }
        ScalarExpr a = Casts.tryCoerce(l, t, CastContext.IMPLICIT, pos);
        ScalarExpr b = Casts.tryCoerce(r, t, CastContext.IMPLICIT, pos);
        if (a == null || b == null) {
            throw new SqlException("42883", "operator does not exist: " + l.type() + " " + op.symbol() + " " + r.type(), pos,
                    "No operator matches the given name and argument types. You might need to add explicit type casts.");
        }
        return new ScalarExpr.Call(op.symbol(), List.of(a, b), SqlType.BOOLEAN, x -> holds(op, Values.compare(x[0], x[1], t)), true);
    }

    private static boolean holds(BinaryOp op, int c) {
        return Operators.test(op, c);
    }

    /**
     * {@code left op ANY (array)} ({@code all} false) or {@code ALL}: true, false or NULL by SQL's
     * rules (ANY is true if some comparison is, NULL if none is but one is NULL; an empty array
     * gives false for ANY and true for ALL, whatever {@code left} is).
     */
    public static ScalarExpr quantified(BinaryOp op, ScalarExpr left, ScalarExpr array, boolean all, int pos) {
        if (!op.isComparison()) throw new SqlException("42809", "op ANY/ALL (array) requires operator to yield boolean", pos);
        SqlType arrayType = array.type().isArray() ? array.type()
                : array.type().kind() == SqlType.Kind.UNKNOWN ? SqlType.array(left.type().kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : left.type()) : null;
        if (arrayType == null) throw new SqlException("42809", "op ANY/ALL (array) requires array on right side", pos);
        SqlType element = Types.common(List.of(left.type(), arrayType.element()), op.symbol(), pos);
        if (element.kind() == SqlType.Kind.UNKNOWN) element = SqlType.TEXT;
        ScalarExpr l = Casts.tryCoerce(left, element, CastContext.IMPLICIT, pos);
        ScalarExpr a = Casts.tryCoerce(array, SqlType.array(element), CastContext.IMPLICIT, pos);
        if (l == null || a == null) {
            throw new SqlException("42883", "operator does not exist: " + left.type() + " " + op.symbol() + " " + arrayType.element(), pos,
                    "No operator matches the given name and argument types. You might need to add explicit type casts.");
        }
        SqlType t = element;
        return new ScalarExpr.Call(op.symbol() + (all ? " ALL" : " ANY"), List.of(l, a), SqlType.BOOLEAN, x -> {
            if (x[1] == null) return null;
            List<?> elements = (List<?>) x[1];
            boolean sawNull = false;
            for (Object e : elements) {
                if (x[0] == null || e == null) {
                    sawNull = true;
                    continue;
                }
                boolean h = holds(op, Values.compare(x[0], e, t));
                if (h != all) return h;
            }
            return sawNull && !elements.isEmpty() ? null : all;
        }, false);
    }

    /** Whether {@link #function} resolves {@code name}. */
    public static boolean isArrayFunction(String name) {
        return switch (name) {
            case "array_to_string", "array_upper", "array_lower", "array_length", "cardinality", "array_dims", "array_ndims",
                 "array_cat", "array_append", "array_prepend" -> true;
            default -> false;
        };
    }

    /** One of the array functions {@link #isArrayFunction} names; 42883 for arguments it does not take. */
    public static ScalarExpr function(String name, List<ScalarExpr> args, int pos) {
        if (name.equals("array_prepend") && args.size() == 2 && args.get(1).type().isArray()) {
            ScalarExpr first = Casts.tryCoerce(args.get(0), args.get(1).type().element(), CastContext.IMPLICIT, pos);
            if (first == null) throw noFunction(name, pos);
            ScalarExpr c = concat(first, args.get(1), pos);
            return new ScalarExpr.Call(name, ((ScalarExpr.Call) c).args(), c.type(), ((ScalarExpr.Call) c).impl(), false);
        }
        if (args.isEmpty() || !args.get(0).type().isArray()) {
            List<String> types = new ArrayList<>();
            for (ScalarExpr a : args) types.add(a.type().toString());
            throw new SqlException("42883", "function " + name + "(" + String.join(", ", types) + ") does not exist", pos,
                    "No function matches the given name and argument types. You might need to add explicit type casts.");
        }
        ScalarExpr array = args.get(0);
        SqlType element = array.type().element();
        return switch (name) {
            case "array_to_string" -> {
                if (args.size() != 2 && args.size() != 3) throw noFunction(name, pos);
                List<ScalarExpr> a = new ArrayList<>(List.of(array));
                for (ScalarExpr s : args.subList(1, args.size())) a.add(Casts.coerce(s, SqlType.TEXT, CastContext.IMPLICIT, pos));
                yield new ScalarExpr.Call(name, a, SqlType.TEXT, x -> {
                    if (x[0] == null || x[1] == null) return null;
                    StringBuilder b = new StringBuilder();
                    boolean first = true;
                    for (Object e : (List<?>) x[0]) {
                        String s = e == null ? (x.length > 2 ? (String) x[2] : null) : Values.toText(e, element);
                        if (s == null) continue;
                        if (!first) b.append((String) x[1]);
                        b.append(s);
                        first = false;
                    }
                    return b.toString();
                }, false);
            }
            case "array_upper", "array_lower", "array_length" -> {
                if (args.size() != 2) throw noFunction(name, pos);
                ScalarExpr dim = Casts.coerce(args.get(1), SqlType.INTEGER, CastContext.IMPLICIT, pos);
                // a vector (int2vector) is subscripted from 0
                long vectorShift = array.type().isVector() ? -1 : 0;
                yield new ScalarExpr.Call(name, List.of(array, dim), SqlType.INTEGER, x -> {
                    List<?> a = (List<?>) x[0];
                    long d = (Long) x[1] - 1;
                    if (d < 0 || d >= ShapedArray.dimensions(a)) return null;
                    long lower = ShapedArray.lower(a, (int) d) + vectorShift, length = ShapedArray.length(a, (int) d);
                    return switch (name) {
                        case "array_lower" -> lower;
                        case "array_upper" -> lower + length - 1;
                        default -> length;
                    };
                }, true);
            }
            case "array_ndims" -> {
                if (args.size() != 1) throw noFunction(name, pos);
                yield new ScalarExpr.Call(name, List.of(array), SqlType.INTEGER, x -> {
                    int n = ShapedArray.dimensions((List<?>) x[0]);
                    return n == 0 ? null : (long) n;
                }, true);
            }
            case "array_dims" -> {
                if (args.size() != 1) throw noFunction(name, pos);
                yield new ScalarExpr.Call(name, List.of(array), SqlType.TEXT, x -> {
                    List<?> a = (List<?>) x[0];
                    return a.isEmpty() ? null : ShapedArray.boundsText(a);
                }, true);
            }
            case "array_cat", "array_append" -> {
                if (args.size() != 2) throw noFunction(name, pos);
                // the second argument is an array for array_cat, an element for array_append (an untyped literal too)
                ScalarExpr second = Casts.tryCoerce(args.get(1), name.equals("array_cat") ? array.type() : element, CastContext.IMPLICIT, pos);
                if (second == null) throw noFunction(name, pos);
                ScalarExpr c = concat(array, second, pos);
                yield new ScalarExpr.Call(name, ((ScalarExpr.Call) c).args(), c.type(), ((ScalarExpr.Call) c).impl(), false);
            }
            case "cardinality" -> {
                if (args.size() != 1) throw noFunction(name, pos);
                yield new ScalarExpr.Call(name, List.of(array), SqlType.INTEGER, x -> (long) ((List<?>) x[0]).size(), true);
            }
            default -> throw new IllegalArgumentException(name);
        };
    }

    private static SqlException noFunction(String name, int pos) {
        return new SqlException("42883", "function " + name + " does not exist", pos,
                "No function matches the given name and argument types. You might need to add explicit type casts.");
    }
}
