package dev.tributary.server.slt;

import dev.tributary.server.slt.SltRecord.SortMode;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the original sqllogictest harness turns a result into the strings it compares: one string
 * per value, chosen by the query's column type letter, then sorted by the sort mode, then either
 * listed or hashed.
 *
 * <ul>
 *   <li>{@code NULL} is {@code NULL} under every letter.</li>
 *   <li>Booleans are {@code 1}/{@code 0} under every letter, as the original harness receives
 *       them from PostgreSQL through ODBC (it turns {@code t}/{@code f} into 1/0).</li>
 *   <li>{@code I}: integers as they are; other numbers truncated toward zero (the harness
 *       reads a REAL under I as an integer); text that is not a number is 0.</li>
 *   <li>{@code R}: {@code %.3f}.</li>
 *   <li>{@code T} (and any other letter): PostgreSQL's text output, the empty string as
 *       {@code (empty)}, characters outside printable ASCII as {@code @}.</li>
 * </ul>
 */
public final class SltValues {
    private static final Pattern HASH = Pattern.compile("(\\d+) values hashing to ([0-9a-f]{32})");

    private SltValues() {}

    /** One value rendered under {@code letter}. */
    public static String render(Object v, SqlType type, char letter) {
        if (v == null) return "NULL";
        if (v instanceof Boolean b) {
            String s = b ? "1" : "0";
            return letter == 'R' ? s + ".000" : s;
        }
        return switch (letter) {
            case 'I' -> integer(v, type);
            case 'R' -> real(v, type);
            default -> text(Values.toText(v, type));
        };
    }

    private static String integer(Object v, SqlType type) {
        return switch (v) {
            case Long l -> Long.toString(l);
            case Integer n -> Integer.toString(n);
            case Double d when Double.isNaN(d) || Double.isInfinite(d) -> Values.toText(v, type);
            case Double d -> new BigDecimal(d).setScale(0, RoundingMode.DOWN).toPlainString();
            case Float f -> new BigDecimal(f).setScale(0, RoundingMode.DOWN).toPlainString();
            case BigDecimal d -> d.setScale(0, RoundingMode.DOWN).toPlainString();
            case String s -> parseOr(s, "0", d -> d.setScale(0, RoundingMode.DOWN).toPlainString());
            default -> text(Values.toText(v, type));
        };
    }

    private static String real(Object v, SqlType type) {
        return switch (v) {
            case Long l -> String.format(Locale.ROOT, "%.3f", (double) l);
            case Integer n -> String.format(Locale.ROOT, "%.3f", (double) n);
            case Double d -> String.format(Locale.ROOT, "%.3f", d);
            case Float f -> String.format(Locale.ROOT, "%.3f", (double) f);
            case BigDecimal d -> d.setScale(3, RoundingMode.HALF_EVEN).toPlainString();
            case String s -> parseOr(s, "0.000", d -> d.setScale(3, RoundingMode.HALF_EVEN).toPlainString());
            default -> text(Values.toText(v, type));
        };
    }

    private static String parseOr(String s, String otherwise, java.util.function.Function<BigDecimal, String> f) {
        try {
            return f.apply(new BigDecimal(s.strip()));
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static String text(String s) {
        if (s.isEmpty()) return "(empty)";
        StringBuilder b = new StringBuilder(s.length());
        // one mark per code point, as the expected results' generator writes them
        s.codePoints().forEach(c -> b.append(c < ' ' || c > '~' ? '@' : (char) c));
        return b.toString();
    }

    /** The rows of a result rendered under {@code letters}; missing letters render as T. */
    public static List<List<String>> renderRows(List<Object[]> rows, List<SqlType> types, String letters) {
        List<List<String>> out = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            List<String> r = new ArrayList<>(row.length);
            for (int c = 0; c < row.length; c++) {
                char letter = c < letters.length() ? letters.charAt(c) : 'T';
                r.add(render(row[c], types.get(c), letter));
            }
            out.add(r);
        }
        return out;
    }

    /** Rows compared value by value as strings, as the harness's row sort does. */
    public static final Comparator<List<String>> ROW_ORDER = (a, b) -> {
        for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
            int c = a.get(k).compareTo(b.get(k));
            if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
    };

    /** The values in the order the sort mode compares them. */
    public static List<String> values(List<List<String>> rows, SortMode sort) {
        List<List<String>> rs = new ArrayList<>(rows);
        if (sort == SortMode.ROWSORT) rs.sort(ROW_ORDER);
        List<String> vs = new ArrayList<>();
        for (List<String> r : rs) vs.addAll(r);
        if (sort == SortMode.VALUESORT) vs.sort(Comparator.naturalOrder());
        return vs;
    }

    /** The MD5 of every value followed by a newline, in lowercase hex. */
    public static String md5(List<String> values) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            for (String v : values) {
                md.update(v.getBytes(StandardCharsets.UTF_8));
                md.update((byte) '\n');
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JVM has MD5", e);
        }
    }

    /** The harness's hash line: {@code N values hashing to <md5>}. */
    public static String hashLine(List<String> values) {
        return values.size() + " values hashing to " + md5(values);
    }

    /** Whether the expected lines are a single hash line. */
    public static boolean isHashLine(List<String> expected) {
        return expected.size() == 1 && HASH.matcher(expected.get(0).strip()).matches();
    }

    /** The matcher of a hash line, for its count and digest. */
    static Matcher hashMatcher(String line) {
        Matcher m = HASH.matcher(line.strip());
        return m.matches() ? m : null;
    }

    /**
     * Whether {@code expected} (the lines after {@code ----}) describes the result: as a hash line,
     * as one value per line (the public corpus), or as one row per line with values separated by
     * spaces (the form other engines' corpora use; runs of whitespace are compared as one).
     */
    public static boolean matches(List<String> expected, List<List<String>> sortedRows, List<String> values) {
        if (isHashLine(expected)) return expected.get(0).strip().equals(hashLine(values));
        if (expected.size() == values.size()) {
            boolean same = true;
            for (int k = 0; k < values.size() && same; k++) same = expected.get(k).strip().equals(values.get(k).strip());
            if (same) return true;
        }
        if (expected.size() == sortedRows.size()) {
            for (int k = 0; k < sortedRows.size(); k++) {
                if (!squash(expected.get(k)).equals(squash(String.join(" ", sortedRows.get(k))))) return false;
            }
            return true;
        }
        return false;
    }

    private static String squash(String s) {
        return s.strip().replaceAll("\\s+", " ");
    }
}
