package dev.tributary.propertytests.sql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Query answers as multisets of rows of normalised values, compared across engines.
 *
 * <p>Normal form: SQL NULL is {@code null}; every number (Tributary's {@code Long} and
 * {@code BigDecimal}, DuckDB's {@code Integer}, {@code BigInteger}, {@code Double},
 * {@code BigDecimal}) is a {@code BigDecimal}; booleans and text stay as they are. Two numbers
 * are equal when they differ by at most one part in 10^9 (plus 10^-9 absolute): {@code avg} is
 * an exact decimal in Tributary and a double in DuckDB, and nothing else in the catalogue is
 * inexact.
 */
final class Rows {
    private Rows() {}

    static final BigDecimal TOLERANCE = new BigDecimal("1e-9");

    static Object normalise(Object v) {
        return switch (v) {
            case null -> null;
            case BigDecimal d -> d;
            case Long l -> BigDecimal.valueOf(l);
            case Integer i -> BigDecimal.valueOf(i);
            case Short s -> BigDecimal.valueOf(s);
            case Byte b -> BigDecimal.valueOf(b);
            case BigInteger i -> new BigDecimal(i);
            case Double d -> new BigDecimal(d);
            case Float f -> new BigDecimal(f);
            case Boolean b -> b;
            case String s -> s;
            default -> v.toString();
        };
    }

    static List<List<Object>> normalise(List<Object[]> rows) {
        List<List<Object>> out = new ArrayList<>();
        for (Object[] r : rows) {
            List<Object> n = new ArrayList<>();
            for (Object v : r) n.add(normalise(v));
            out.add(n);
        }
        out.sort(ORDER);
        return out;
    }

    static boolean close(Object x, Object y) {
        if (x instanceof BigDecimal a && y instanceof BigDecimal b) {
            BigDecimal diff = a.subtract(b).abs();
            BigDecimal scale = a.abs().max(b.abs()).multiply(TOLERANCE).add(TOLERANCE);
            return diff.compareTo(scale) <= 0;
        }
        return Objects.equals(x, y);
    }

    static boolean closeRows(List<Object> x, List<Object> y) {
        if (x.size() != y.size()) return false;
        for (int i = 0; i < x.size(); i++) if (!close(x.get(i), y.get(i))) return false;
        return true;
    }

    /**
     * Whether {@code x} and {@code y} are the same multiset up to numeric tolerance: each row of
     * {@code x} is matched to a distinct close row of {@code y}.
     */
    static boolean sameMultiset(List<List<Object>> x, List<List<Object>> y) {
        if (x.size() != y.size()) return false;
        List<List<Object>> left = new ArrayList<>(y);
        outer:
        for (List<Object> r : x) {
            for (int i = 0; i < left.size(); i++) {
                if (closeRows(r, left.get(i))) {
                    left.remove(i);
                    continue outer;
                }
            }
            return false;
        }
        return true;
    }

    /** Text for a failure message, one row a line. */
    static String show(List<List<Object>> rows) {
        if (rows.isEmpty()) return "    (no rows)";
        StringBuilder b = new StringBuilder();
        for (List<Object> r : rows) {
            b.append("    (");
            for (int i = 0; i < r.size(); i++) {
                if (i > 0) b.append(", ");
                Object v = r.get(i);
                b.append(v == null ? "NULL" : v instanceof String s ? "'" + s + "'"
                        : v instanceof BigDecimal d ? d.round(MathContext.DECIMAL64).stripTrailingZeros().toPlainString() : v.toString());
            }
            b.append(")\n");
        }
        return b.toString().stripTrailing();
    }

    /** Nulls first, then booleans, numbers, text; within a kind, natural order. */
    static final Comparator<List<Object>> ORDER = (x, y) -> {
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            int c = compareValues(x.get(i), y.get(i));
            if (c != 0) return c;
        }
        return Integer.compare(x.size(), y.size());
    };

    private static int rank(Object v) {
        return v == null ? 0 : v instanceof Boolean ? 1 : v instanceof BigDecimal ? 2 : 3;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareValues(Object a, Object b) {
        int c = Integer.compare(rank(a), rank(b));
        if (c != 0 || a == null) return c;
        if (a instanceof Comparable ca && a.getClass() == b.getClass()) return ca.compareTo(b);
        return a.toString().compareTo(b.toString());
    }
}
