package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.util.List;

/**
 * PostgreSQL's {@code json}: a value is its text, kept as written once it is checked to be one
 * JSON value (RFC 8259), as PostgreSQL keeps {@code json} (not {@code jsonb}). Also how values of
 * other types are written into JSON ({@code json_build_object}, {@code to_json}).
 */
public final class Json {
    private Json() {}

    /** {@code text} if it is one JSON value (surrounding whitespace allowed); 22P02 otherwise. */
    public static String parse(String text) {
        int end = new Checker(text).value(skip(text, 0));
        if (skip(text, end) != text.length()) throw invalid(text, "Expected end of input, but found more.");
        return text;
    }

    /** {@code v}, a value of {@code type}, as JSON: numbers and booleans bare, JSON as it is, arrays as arrays, the rest as strings. */
    public static String of(Object v, SqlType type) {
        StringBuilder b = new StringBuilder();
        append(b, v, type);
        return b.toString();
    }

    static void append(StringBuilder b, Object v, SqlType type) {
        if (v == null) {
            b.append("null");
            return;
        }
        switch (type.kind()) {
            case BOOLEAN -> b.append((Boolean) v ? "true" : "false");
            case SMALLINT, INTEGER, BIGINT -> b.append(Values.toText(v, type));
            // NaN and the infinities are no JSON numbers: strings, as PostgreSQL writes them
            case NUMERIC -> {
                if (v instanceof NonFiniteNumeric) quote(b, Values.toText(v, type));
                else b.append(Values.toText(v, type));
            }
            case REAL, DOUBLE -> {
                double d = (Double) v;
                if (Double.isFinite(d)) b.append(Values.toText(v, type));
                else quote(b, Values.toText(v, type));
            }
            case JSON -> b.append((String) v);
            case ARRAY -> {
                ShapedArray.appendNested(b, (List<?>) v, '[', ']', (to, e) -> append(to, e, type.element()));
            }
            case TEXT, VARCHAR, CHAR, UNKNOWN -> quote(b, (String) v);
            default -> quote(b, Values.toText(v, type));
        }
    }

    /** {@code s} as a JSON string, escaped as PostgreSQL escapes it. */
    public static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        b.append('"');
    }

    private static int skip(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) i++;
        return i;
    }

    private static SqlException invalid(String text, String detail) {
        return new SqlException("22P02", "invalid input syntax for type json").withDetail(detail);
    }

    /** A recursive-descent check of one value; each method returns the index after what it read. */
    private static final class Checker {
        private final String s;
        private int depth;

        Checker(String s) {
            this.s = s;
        }

        int value(int i) {
            if (i >= s.length()) throw invalid(s, "The input string ended unexpectedly.");
            char c = s.charAt(i);
            return switch (c) {
                case '{' -> object(i);
                case '[' -> array(i);
                case '"' -> string(i);
                case 't' -> word(i, "true");
                case 'f' -> word(i, "false");
                case 'n' -> word(i, "null");
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) yield number(i);
                    throw invalid(s, "Token \"" + c + "\" is invalid.");
                }
            };
        }

        private int nest(int i) {
            if (++depth > 6400) throw new SqlException("54001", "stack depth limit exceeded", 0, "JSON nests too deeply.");
            return i + 1;
        }

        int object(int i) {
            i = skip(s, nest(i));
            if (i < s.length() && s.charAt(i) == '}') {
                depth--;
                return i + 1;
            }
            while (true) {
                if (i >= s.length() || s.charAt(i) != '"') throw invalid(s, "Expected string or \"}\".");
                i = skip(s, string(i));
                if (i >= s.length() || s.charAt(i) != ':') throw invalid(s, "Expected \":\".");
                i = skip(s, value(skip(s, i + 1)));
                if (i < s.length() && s.charAt(i) == ',') {
                    i = skip(s, i + 1);
                    continue;
                }
                if (i < s.length() && s.charAt(i) == '}') {
                    depth--;
                    return i + 1;
                }
                throw invalid(s, "Expected \",\" or \"}\".");
            }
        }

        int array(int i) {
            i = skip(s, nest(i));
            if (i < s.length() && s.charAt(i) == ']') {
                depth--;
                return i + 1;
            }
            while (true) {
                i = skip(s, value(i));
                if (i < s.length() && s.charAt(i) == ',') {
                    i = skip(s, i + 1);
                    continue;
                }
                if (i < s.length() && s.charAt(i) == ']') {
                    depth--;
                    return i + 1;
                }
                throw invalid(s, "Expected \",\" or \"]\".");
            }
        }

        int string(int i) {
            i++;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == '"') return i + 1;
                if (c < 0x20) throw invalid(s, "Character with value 0x" + String.format("%02x", (int) c) + " must be escaped.");
                if (c == '\\') {
                    if (i + 1 >= s.length()) break;
                    char e = s.charAt(i + 1);
                    if (e == 'u') {
                        if (i + 6 > s.length() || !s.substring(i + 2, i + 6).matches("[0-9a-fA-F]{4}")) throw invalid(s, "\"\\u\" must be followed by four hexadecimal digits.");
                        i += 6;
                        continue;
                    }
                    if ("\"\\/bfnrt".indexOf(e) < 0) throw invalid(s, "Escape sequence \"\\" + e + "\" is invalid.");
                    i += 2;
                    continue;
                }
                i++;
            }
            throw invalid(s, "The input string ended unexpectedly.");
        }

        int number(int i) {
            int start = i;
            if (s.charAt(i) == '-') i++;
            int digits = i;
            while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
            if (i == digits || (s.charAt(digits) == '0' && i - digits > 1)) throw invalid(s, "Token \"" + s.substring(start, Math.max(i, start + 1)) + "\" is invalid.");
            if (i < s.length() && s.charAt(i) == '.') {
                int f = ++i;
                while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
                if (i == f) throw invalid(s, "Token \"" + s.substring(start, i) + "\" is invalid.");
            }
            if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                i++;
                if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
                int e = i;
                while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
                if (i == e) throw invalid(s, "Token \"" + s.substring(start, i) + "\" is invalid.");
            }
            return i;
        }

        int word(int i, String w) {
            if (!s.startsWith(w, i)) {
                int end = i;
                while (end < s.length() && Character.isLetterOrDigit(s.charAt(end))) end++;
                throw invalid(s, "Token \"" + s.substring(i, Math.max(end, i + 1)) + "\" is invalid.");
            }
            return i + w.length();
        }
    }
}
