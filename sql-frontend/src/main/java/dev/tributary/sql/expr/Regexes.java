package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * PostgreSQL's POSIX regular-expression match operators {@code ~ ~* !~ !~*} on text: true when the
 * pattern matches anywhere in the string (not only the whole string), {@code *} for a
 * case-insensitive match, {@code !} negated; NULL when either side is NULL.
 *
 * <p>Patterns are run by {@link java.util.regex}, whose syntax agrees with PostgreSQL's advanced
 * regular expressions for the common constructs (classes, anchors, quantifiers, groups,
 * alternation, {@code [[:alpha:]]}-style classes are translated); an invalid pattern is 2201B.
 * Compiled patterns are cached: a catalog query matches one pattern against every row.
 */
public final class Regexes {
    private Regexes() {}

    private static final int CACHE_LIMIT = 256;
    private static final ConcurrentHashMap<String, Pattern> CACHE = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<String, Pattern> CACHE_CI = new ConcurrentHashMap<>();

    /** {@code l op r} for one of the operators {@code ~ ~* !~ !~*}, both sides coerced to text. */
    public static ScalarExpr match(String op, ScalarExpr l, ScalarExpr r, int pos) {
        boolean negated = op.startsWith("!");
        boolean ci = op.endsWith("*");
        ScalarExpr s = textOperand(l, op, r, pos);
        ScalarExpr p = textOperand(r, op, l, pos);
        if (p instanceof ScalarExpr.Literal lit && lit.value() instanceof String text) compile(text, ci); // report a bad pattern when bound
        return new ScalarExpr.Call(op, List.of(s, p), SqlType.BOOLEAN, x -> matches((String) x[0], (String) x[1], ci) != negated, true);
    }

    private static ScalarExpr textOperand(ScalarExpr e, String op, ScalarExpr other, int pos) {
        ScalarExpr c = Casts.tryCoerce(e, SqlType.TEXT, CastContext.IMPLICIT, pos);
        if (c == null) {
            throw new SqlException("42883", "operator does not exist: " + e.type() + " " + op + " " + other.type(), pos,
                    "No operator matches the given name and argument types. You might need to add explicit type casts.");
        }
        return c;
    }

    /** Whether {@code pattern} matches somewhere in {@code s}. */
    public static boolean matches(String s, String pattern, boolean caseInsensitive) {
        return compile(pattern, caseInsensitive).matcher(s).find();
    }

    /**
     * {@code substring(s FROM pattern)}: the part of {@code s} that the first parenthesised
     * group of the first match captured, or the whole match if the pattern has no group; NULL
     * if there is no match (or the group took no part in it), as in PostgreSQL.
     */
    public static String substring(String s, String pattern) {
        java.util.regex.Matcher m = compile(pattern, false).matcher(s);
        if (!m.find()) return null;
        return m.groupCount() > 0 ? m.group(1) : m.group();
    }

    private static Pattern compile(String pattern, boolean ci) {
        ConcurrentHashMap<String, Pattern> cache = ci ? CACHE_CI : CACHE;
        Pattern p = cache.get(pattern);
        if (p != null) return p;
        try {
            p = Pattern.compile(translate(pattern), ci ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw new SqlException("2201B", "invalid regular expression: " + e.getDescription());
        }
        if (cache.size() >= CACHE_LIMIT) cache.clear();
        cache.put(pattern, p);
        return p;
    }

    /** POSIX bracket classes ({@code [[:digit:]]}) in Java's spelling ({@code \p{Digit}}). */
    private static String translate(String pattern) {
        if (!pattern.contains("[:")) return pattern;
        return pattern.replace("[:alpha:]", "\\p{Alpha}").replace("[:digit:]", "\\p{Digit}")
                .replace("[:alnum:]", "\\p{Alnum}").replace("[:upper:]", "\\p{Upper}")
                .replace("[:lower:]", "\\p{Lower}").replace("[:space:]", "\\s")
                .replace("[:punct:]", "\\p{Punct}").replace("[:xdigit:]", "\\p{XDigit}");
    }
}
