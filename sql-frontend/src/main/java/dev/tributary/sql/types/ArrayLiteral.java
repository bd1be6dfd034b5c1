package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * PostgreSQL's text input of arrays: {@code {1,2}}, nested braces for more dimensions
 * ({@code {{1,2},{3,4}}}), and optional explicit bounds before an {@code =}
 * ({@code [0:1]={1,2}}, {@code [2]={5,6}}). Elements are unquoted (trimmed; {@code NULL} in
 * any case is SQL NULL) or double-quoted, a backslash escaping the next character in either.
 * Sub-arrays of one level must have the same length; what is not well formed is 22P02 with
 * PostgreSQL's detail, a reversed bound 2202E, more than six dimensions 54000.
 *
 * <p>One object per literal: it walks the text once, collecting the elements flat and each
 * level's length, which is the form {@link ShapedArray} keeps.
 */
final class ArrayLiteral {
    private final String text;
    private final SqlType element;
    private int i;
    /** The elements' texts (null for NULL), converted only once the whole text is known to be well formed, as PostgreSQL does. */
    private final List<String> elements = new ArrayList<>();
    /** The length of each level, -1 until its first sub-array closes. */
    private final int[] lengths = new int[ShapedArray.MAX_DIMENSIONS];
    /** The level at which elements sit (the dimensions), -1 until the first element. */
    private int dimensions = -1;

    private ArrayLiteral(String text, SqlType element) {
        this.text = text;
        this.element = element;
        Arrays.fill(lengths, -1);
    }

    /** The array {@code text} spells, of {@code element} values. */
    static List<Object> parse(String text, SqlType element) {
        return new ArrayLiteral(text, element).parse();
    }

    private List<Object> parse() {
        skipSpace();
        List<long[]> declared = new ArrayList<>(); // {lower, upper} per dimension
        if (peek() == '[') {
            while (peek() == '[') {
                i++;
                Long a = bound();
                long lower = 1, upper;
                if (a != null && peek() == ':') {
                    i++;
                    Long b = bound();
                    if (b == null) throw malformed("\"[\" must introduce explicitly-specified array dimensions.");
                    lower = a;
                    upper = b;
                } else if (a != null) {
                    upper = a;
                } else {
                    throw malformed("\"[\" must introduce explicitly-specified array dimensions.");
                }
                if (peek() != ']') throw malformed("Missing \"]\" after array dimensions.");
                i++;
                if (declared.size() == ShapedArray.MAX_DIMENSIONS) throw ShapedArray.tooManyDimensions(declared.size() + 1);
                if (upper < lower) throw new SqlException("2202E", "upper bound cannot be less than lower bound");
                declared.add(new long[] {lower, upper});
            }
            skipSpace();
            if (peek() != '=') throw malformed("Missing \"=\" after array dimensions.");
            i++;
            skipSpace();
            if (peek() != '{') throw malformed("Array contents must start with \"{\".");
        } else if (peek() != '{') {
            throw malformed("Array value must start with \"{\" or dimension information.");
        }
        level(0);
        skipSpace();
        if (i < text.length()) throw malformed("Junk after closing right brace.");
        int n = Math.max(dimensions, 0);
        int[] lowers = new int[n];
        Arrays.fill(lowers, 1);
        if (!declared.isEmpty()) {
            boolean matches = declared.size() == n;
            for (int d = 0; matches && d < n; d++) {
                long[] b = declared.get(d);
                matches = b[1] - b[0] + 1 == lengths[d];
                lowers[d] = (int) b[0];
            }
            if (!matches) throw malformed("Specified array dimensions do not match array contents.");
        }
        Object[] values = new Object[elements.size()];
        for (int k = 0; k < values.length; k++) values[k] = Values.fromText(elements.get(k), element);
        return ShapedArray.of(Arrays.copyOf(lengths, n), lowers, values);
    }

    /** The brace-enclosed list at {@code i}, at nesting {@code depth} (0 for the outermost). */
    private void level(int depth) {
        if (depth == ShapedArray.MAX_DIMENSIONS) throw ShapedArray.tooManyDimensions(depth + 1);
        i++;
        skipSpace();
        if (peek() == '}') {
            if (depth > 0) throw malformed("Unexpected \"}\" character.");
            i++;
            return; // {}: the empty array
        }
        int count = 0;
        while (true) {
            skipSpace();
            char c = peek();
            if (c == '{') {
                if (dimensions >= 0 && depth + 1 >= dimensions) throw malformed("Unexpected \"{\" character.");
                level(depth + 1);
            } else {
                if (i >= text.length()) throw malformed("Unexpected end of input.");
                if (c == ',' || c == '}') throw malformed("Unexpected \"" + c + "\" character.");
                if (dimensions < 0) dimensions = depth + 1;
                else if (dimensions != depth + 1) throw malformed("Unexpected array element.");
                elements.add(element());
            }
            count++;
            skipSpace();
            c = peek();
            if (c == ',') {
                i++;
            } else if (c == '}') {
                i++;
                break;
            } else if (i >= text.length()) {
                throw malformed("Unexpected end of input.");
            } else {
                throw malformed("Unexpected array element.");
            }
        }
        if (lengths[depth] < 0) lengths[depth] = count;
        else if (lengths[depth] != count) throw malformed("Multidimensional arrays must have sub-arrays with matching dimensions.");
    }

    /** The text of one element at {@code i} (null for NULL): quoted, or unquoted up to a delimiter and trimmed. */
    private String element() {
        StringBuilder b = new StringBuilder();
        if (peek() == '"') {
            i++;
            while (true) {
                if (i >= text.length()) throw malformed("Unexpected end of input.");
                char c = text.charAt(i++);
                if (c == '"') break;
                if (c == '\\') {
                    if (i >= text.length()) throw malformed("Unexpected end of input.");
                    c = text.charAt(i++);
                }
                b.append(c);
            }
            return b.toString();
        }
        boolean escaped = false;
        int kept = 0; // the length without trailing white space that was not escaped
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == ',' || c == '}' || c == '{' || c == '"') break;
            i++;
            if (c == '\\') {
                if (i >= text.length()) throw malformed("Unexpected end of input.");
                b.append(text.charAt(i++));
                escaped = true;
                kept = b.length();
            } else {
                b.append(c);
                if (!Character.isWhitespace(c)) kept = b.length();
            }
        }
        b.setLength(kept);
        if (!escaped && b.toString().equalsIgnoreCase("null")) return null;
        return b.toString();
    }

    /** An optionally signed integer at {@code i}, or null when there is none. */
    private Long bound() {
        int start = i;
        if (peek() == '-' || peek() == '+') i++;
        int digits = i;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') i++;
        if (i == digits || i - digits > 10) {
            i = start;
            return null;
        }
        long v = Long.parseLong(text.substring(start, i));
        if (v != (int) v) {
            i = start;
            return null;
        }
        return v;
    }

    private char peek() {
        return i < text.length() ? text.charAt(i) : 0;
    }

    private void skipSpace() {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
    }

    private SqlException malformed(String detail) {
        return new SqlException("22P02", "malformed array literal: \"" + text + "\"").withDetail(detail);
    }
}
