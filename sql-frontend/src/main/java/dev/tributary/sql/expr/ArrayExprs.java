package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * PostgreSQL's one-dimensional arrays in expressions: {@code ARRAY[...]}, subscripts,
 * comparisons, {@code x op ANY/ALL (array)}, and the functions {@code array_to_string},
 * {@code array_upper}, {@code array_lower}, {@code array_length}, {@code cardinality}.
 *
 * <p>Arrays are 1-based. A subscript outside the array, or NULL, gives NULL; comparisons go
 * element by element (NULL elements above every value) and then by length, as PostgreSQL's btree
 * order of arrays does.
 */
public final class ArrayExprs {
    private ArrayExprs() {}

    /** {@code ARRAY[e1, e2, ...]}: the elements' common type's array; 42P18 for an empty one without a type. */
    public static ScalarExpr construct(List<ScalarExpr> elements, int pos) {
        if (elements.isEmpty()) {
            throw new SqlException("42P18", "cannot determine type of empty array", pos,
                    "Explicitly cast to the desired type, for example ARRAY[]::integer[].");
        }
        List<SqlType> types = Types.typesOf(elements);
        SqlType common = Types.common(types, "ARRAY", pos);
        SqlType element = common.kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : common;
        if (element.isArray()) throw new SqlException("0A000", "multidimensional arrays are not supported", pos);
        List<ScalarExpr> coerced = Types.coerceAll(elements, element, pos);
        return new ScalarExpr.Call("array", coerced, SqlType.array(element), x -> Collections.unmodifiableList(Arrays.asList(x.clone())), false);
    }

    /** The empty array of {@code type} (ARRAY(subquery) with no rows). */
    public static ScalarExpr empty(SqlType type) {
        return new ScalarExpr.Literal(List.of(), type);
    }

    /** {@code array[index]}: 42804 when {@code array} is not an array. */
    public static ScalarExpr subscript(ScalarExpr array, ScalarExpr index, int pos) {
        if (!array.type().isArray()) {
            throw new SqlException("42804", "cannot subscript type " + array.type() + " because it does not support subscripting", pos);
        }
        ScalarExpr i = Casts.tryCoerce(index, SqlType.INTEGER, CastContext.IMPLICIT, pos);
        if (i == null) throw new SqlException("42804", "array subscript must have type integer", pos);
        int lower = array.type().isVector() ? 0 : 1; // a vector (int2vector) is subscripted from 0
        return new ScalarExpr.Call("[]", List.of(array, i), array.type().element(), x -> {
            List<?> a = (List<?>) x[0];
            long k = (Long) x[1] - lower;
            return k >= 0 && k < a.size() ? a.get((int) k) : null;
        }, true);
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
        return new ScalarExpr.Call("||", List.of(a, b), array, x -> {
            if (leftArray && rightArray && x[0] == null && x[1] == null) return null;
            List<Object> out = new ArrayList<>();
            if (leftArray) {
                if (x[0] != null) out.addAll((List<?>) x[0]);
            } else {
                out.add(x[0]);
            }
            if (rightArray) {
                if (x[1] != null) out.addAll((List<?>) x[1]);
            } else {
                out.add(x[1]);
            }
            return Collections.unmodifiableList(out);
        }, false);
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
            case "array_to_string", "array_upper", "array_lower", "array_length", "cardinality" -> true;
            default -> false;
        };
    }

    /** One of the array functions {@link #isArrayFunction} names; 42883 for arguments it does not take. */
    public static ScalarExpr function(String name, List<ScalarExpr> args, int pos) {
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
                yield new ScalarExpr.Call(name, List.of(array, dim), SqlType.INTEGER, x -> {
                    List<?> a = (List<?>) x[0];
                    if (a.isEmpty() || (Long) x[1] != 1) return null;
                    return name.equals("array_lower") ? 1L : (long) a.size();
                }, true);
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
