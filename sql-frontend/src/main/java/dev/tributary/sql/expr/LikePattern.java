package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import java.util.Locale;

/**
 * A compiled LIKE pattern: {@code %} matches any sequence, {@code _} any one character, the escape
 * character makes the next character literal. The whole string must match.
 *
 * <p>Matching is the two-pointer wildcard algorithm (resume after the last {@code %}), linear in
 * practice and never exponential, unlike a backtracking regex.
 */
public final class LikePattern {
    private static final int ANY_ONE = -1;
    private static final int ANY_SEQ = -2;

    /** Code points, or ANY_ONE / ANY_SEQ. */
    private final int[] tokens;
    private final boolean caseInsensitive;

    private LikePattern(int[] tokens, boolean caseInsensitive) {
        this.tokens = tokens;
        this.caseInsensitive = caseInsensitive;
    }

    /**
     * The pattern compiled with escape character {@code escape} (empty: none; PostgreSQL's default
     * is a backslash). 22019 when the escape has more than one character, 22025 when the pattern
     * ends with the escape character.
     */
    public static LikePattern compile(String pattern, String escape, boolean caseInsensitive) {
        if (escape.codePointCount(0, escape.length()) > 1) {
            throw new SqlException("22019", "invalid escape string", 0, "Escape string must be empty or one character.");
        }
        int esc = escape.isEmpty() ? Integer.MIN_VALUE : escape.codePointAt(0);
        String p = caseInsensitive ? pattern.toLowerCase(Locale.ROOT) : pattern;
        int[] cps = p.codePoints().toArray();
        int[] out = new int[cps.length];
        int n = 0;
        for (int i = 0; i < cps.length; i++) {
            int c = cps[i];
            if (c == esc) {
                if (i + 1 == cps.length) throw new SqlException("22025", "LIKE pattern must not end with escape character");
                out[n++] = cps[++i];
            } else if (c == '%') {
                if (n == 0 || out[n - 1] != ANY_SEQ) out[n++] = ANY_SEQ;
            } else if (c == '_') {
                out[n++] = ANY_ONE;
            } else {
                out[n++] = c;
            }
        }
        return new LikePattern(java.util.Arrays.copyOf(out, n), caseInsensitive);
    }

    /** Whether the whole of {@code s} matches. */
    public boolean matches(String s) {
        int[] str = (caseInsensitive ? s.toLowerCase(Locale.ROOT) : s).codePoints().toArray();
        int si = 0, pi = 0, starP = -1, starS = -1;
        while (si < str.length) {
            if (pi < tokens.length && tokens[pi] == ANY_SEQ) {
                starP = pi++;
                starS = si;
            } else if (pi < tokens.length && (tokens[pi] == ANY_ONE || tokens[pi] == str[si])) {
                pi++;
                si++;
            } else if (starP >= 0) {
                pi = starP + 1;
                si = ++starS;
            } else {
                return false;
            }
        }
        while (pi < tokens.length && tokens[pi] == ANY_SEQ) pi++;
        return pi == tokens.length;
    }
}
