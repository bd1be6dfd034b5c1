package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads JSON text (RFC 8259) as PostgreSQL's input functions do, with their errors: a lexer that
 * reads one token ahead and a recursive-descent parser, so that a bad document fails with the
 * same detail PostgreSQL gives ({@code Token "x" is invalid.}, {@code Expected ":", but found
 * "1".}). For {@code json} the text is only checked; for {@code jsonb} its escapes are decoded
 * (surrogate pairs checked, {@code \u0000} refused) and a {@link Jsonb} is built.
 */
final class JsonText {
    private enum Token { OBJECT_START, OBJECT_END, ARRAY_START, ARRAY_END, COMMA, COLON, STRING, NUMBER, TRUE, FALSE, NULL, END }

    private final String s;
    private final boolean build;
    private int depth;
    /** The current token, its text {@code [start, end)}, and for a string its decoded value when building. */
    private Token token;
    private int start;
    private int end;
    private String string;

    private JsonText(String s, boolean build) {
        this.s = s;
        this.build = build;
    }

    /** {@code text} if it is one JSON value (surrounding whitespace allowed); 22P02 otherwise. */
    static void check(String text) {
        new JsonText(text, false).document();
    }

    static Jsonb parseJsonb(String text) {
        return new JsonText(text, true).document();
    }

    /**
     * The members of the array or object that {@code text} is (checked as {@code json}): for an
     * object each key (decoded) and its value's text as written, for an array each element's
     * text with a null key; null when {@code text} is a scalar. What {@code json}'s operators
     * take apart, keeping each part's text as written, as PostgreSQL's do.
     */
    static List<Member> members(String text) {
        JsonText p = new JsonText(text, false);
        p.next(0);
        List<Member> out = new ArrayList<>();
        switch (p.token) {
            case OBJECT_START -> {
                p.nest();
                p.next(p.end);
                if (p.token != Token.OBJECT_END) {
                    while (true) {
                        if (p.token != Token.STRING) throw p.unexpected("Expected string, but found");
                        String key = p.decodedString();
                        p.next(p.end);
                        if (p.token != Token.COLON) throw p.unexpected("Expected \":\", but found");
                        p.next(p.end);
                        int from = p.start;
                        p.value();
                        out.add(new Member(key, text.substring(from, p.lastEnd)));
                        if (p.token == Token.COMMA) {
                            p.next(p.end);
                            continue;
                        }
                        if (p.token != Token.OBJECT_END) throw p.unexpected("Expected \",\" or \"}\", but found");
                        break;
                    }
                }
            }
            case ARRAY_START -> {
                p.nest();
                p.next(p.end);
                if (p.token != Token.ARRAY_END) {
                    while (true) {
                        int from = p.start;
                        p.value();
                        out.add(new Member(null, text.substring(from, p.lastEnd)));
                        if (p.token == Token.COMMA) {
                            p.next(p.end);
                            continue;
                        }
                        if (p.token != Token.ARRAY_END) throw p.unexpected("Expected \",\" or \"]\", but found");
                        break;
                    }
                }
            }
            default -> {
                p.value();
                p.expectEnd();
                return null;
            }
        }
        p.next(p.end);
        p.expectEnd();
        return out;
    }

    /** A member of a {@code json} array or object: its key (null in an array) and its text as written. */
    record Member(String key, String text) {}

    /** The end of the last token a {@link #value()} consumed. */
    private int lastEnd;

    private Jsonb document() {
        next(skip(0));
        Jsonb v = value();
        expectEnd();
        return v;
    }

    private void expectEnd() {
        if (token != Token.END) throw unexpected("Expected end of input, but found");
    }

    /** The value that starts at the current token; leaves the token after it current. */
    private Jsonb value() {
        Jsonb v;
        switch (token) {
            case OBJECT_START -> v = object();
            case ARRAY_START -> v = array();
            case STRING -> v = build ? new Jsonb.Str(string) : null;
            case NUMBER -> v = build ? new Jsonb.Num(Values.numeric(s.substring(start, end))) : null;
            case TRUE -> v = Jsonb.Bool.TRUE;
            case FALSE -> v = Jsonb.Bool.FALSE;
            case NULL -> v = Jsonb.Null.NULL;
            default -> throw unexpected("Expected JSON value, but found");
        }
        lastEnd = end;
        next(end);
        return v;
    }

    private Jsonb object() {
        nest();
        next(end);
        List<String> keys = build ? new ArrayList<>() : null;
        List<Jsonb> values = build ? new ArrayList<>() : null;
        if (token != Token.OBJECT_END) {
            if (token != Token.STRING) throw unexpected("Expected string or \"}\", but found");
            while (true) {
                if (token != Token.STRING) throw unexpected("Expected string, but found");
                if (build) keys.add(string);
                next(end);
                if (token != Token.COLON) throw unexpected("Expected \":\", but found");
                next(end);
                Jsonb v = value();
                if (build) values.add(v);
                if (token == Token.COMMA) {
                    next(end);
                    continue;
                }
                if (token != Token.OBJECT_END) throw unexpected("Expected \",\" or \"}\", but found");
                break;
            }
        }
        depth--;
        return build ? Jsonb.Obj.of(keys, values) : null;
    }

    private Jsonb array() {
        nest();
        next(end);
        List<Jsonb> elements = build ? new ArrayList<>() : null;
        if (token != Token.ARRAY_END) {
            if (!startsValue(token)) throw unexpected("Expected array element or \"]\", but found");
            while (true) {
                Jsonb v = value();
                if (build) elements.add(v);
                if (token == Token.COMMA) {
                    next(end);
                    continue;
                }
                if (token != Token.ARRAY_END) throw unexpected("Expected \",\" or \"]\", but found");
                break;
            }
        }
        depth--;
        return build ? new Jsonb.Arr(elements) : null;
    }

    private static boolean startsValue(Token t) {
        return switch (t) {
            case OBJECT_START, ARRAY_START, STRING, NUMBER, TRUE, FALSE, NULL -> true;
            case OBJECT_END, ARRAY_END, COMMA, COLON, END -> false;
        };
    }

    private void nest() {
        if (++depth > 6400) throw new SqlException("54001", "stack depth limit exceeded", 0, "JSON nests too deeply.");
    }

    private SqlException unexpected(String expected) {
        if (token == Token.END) return invalid("The input string ended unexpectedly.");
        return invalid(expected + " \"" + s.substring(start, end) + "\".");
    }

    private static SqlException invalid(String detail) {
        return new SqlException("22P02", "invalid input syntax for type json").withDetail(detail);
    }

    // ------------------------------------------------------------------------------------------
    // The lexer

    private int skip(int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) i++;
        return i;
    }

    /** Reads the token at or after {@code i} (after whitespace). */
    private void next(int i) {
        i = skip(i);
        start = i;
        if (i >= s.length()) {
            token = Token.END;
            end = i;
            return;
        }
        char c = s.charAt(i);
        end = i + 1;
        switch (c) {
            case '{' -> token = Token.OBJECT_START;
            case '}' -> token = Token.OBJECT_END;
            case '[' -> token = Token.ARRAY_START;
            case ']' -> token = Token.ARRAY_END;
            case ',' -> token = Token.COMMA;
            case ':' -> token = Token.COLON;
            case '"' -> {
                token = Token.STRING;
                end = string(i);
            }
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    token = Token.NUMBER;
                    end = number(i);
                } else {
                    end = word(i);
                    if (end == i) end = i + Character.charCount(s.codePointAt(i));
                    token = switch (s.substring(i, end)) {
                        case "true" -> Token.TRUE;
                        case "false" -> Token.FALSE;
                        case "null" -> Token.NULL;
                        default -> throw invalid("Token \"" + s.substring(i, end) + "\" is invalid.");
                    };
                }
            }
        }
    }

    /** The end of the letters, digits, underscores and non-ASCII characters from {@code i}: how far a bad token reaches. */
    private int word(int i) {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 0x80 || c == '_' || c >= 0x80)) break;
            i++;
        }
        return i;
    }

    private int number(int i) {
        int from = i;
        boolean error = false;
        if (s.charAt(i) == '-') i++;
        if (i < s.length() && s.charAt(i) == '0') {
            i++;
        } else if (i < s.length() && s.charAt(i) >= '1' && s.charAt(i) <= '9') {
            while (i < s.length() && isDigit(s.charAt(i))) i++;
        } else {
            error = true;
        }
        if (i < s.length() && s.charAt(i) == '.') {
            i++;
            if (i < s.length() && isDigit(s.charAt(i))) {
                while (i < s.length() && isDigit(s.charAt(i))) i++;
            } else {
                error = true;
            }
        }
        if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
            if (i < s.length() && isDigit(s.charAt(i))) {
                while (i < s.length() && isDigit(s.charAt(i))) i++;
            } else {
                error = true;
            }
        }
        int tail = word(i);
        if (error || tail > i) throw invalid("Token \"" + s.substring(from, tail) + "\" is invalid.");
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The end of the string token at {@code i}; when building, its decoded value in {@link #string}. */
    private int string(int i) {
        StringBuilder b = build ? new StringBuilder() : null;
        int from = i;
        i++;
        int high = -1;
        while (true) {
            if (i >= s.length()) throw invalid("Token \"" + s.substring(from) + "\" is invalid.");
            char c = s.charAt(i);
            if (c == '"') break;
            if (c < 0x20) throw invalid("Character with value 0x" + String.format("%02x", (int) c) + " must be escaped.");
            if (c != '\\') {
                if (high >= 0 && build) throw invalid("Unicode low surrogate must follow a high surrogate.");
                if (b != null) b.append(c);
                i++;
                continue;
            }
            if (i + 1 >= s.length()) throw invalid("Token \"" + s.substring(from) + "\" is invalid.");
            char e = s.charAt(i + 1);
            if (e == 'u') {
                int code = 0;
                for (int k = 0; k < 4; k++) {
                    int d = i + 2 + k < s.length() ? Character.digit(s.charAt(i + 2 + k), 16) : -1;
                    if (d < 0) throw invalid("\"\\u\" must be followed by four hexadecimal digits.");
                    code = code * 16 + d;
                }
                i += 6;
                if (!build) continue;
                if (Character.isHighSurrogate((char) code)) {
                    if (high >= 0) throw invalid("Unicode high surrogate must not follow a high surrogate.");
                    high = code;
                } else if (Character.isLowSurrogate((char) code)) {
                    if (high < 0) throw invalid("Unicode low surrogate must follow a high surrogate.");
                    b.append((char) high).append((char) code);
                    high = -1;
                } else {
                    if (high >= 0) throw invalid("Unicode low surrogate must follow a high surrogate.");
                    if (code == 0) throw new SqlException("22P05", "unsupported Unicode escape sequence").withDetail("\\u0000 cannot be converted to text.");
                    b.append((char) code);
                }
                continue;
            }
            if (high >= 0 && build) throw invalid("Unicode low surrogate must follow a high surrogate.");
            char decoded = switch (e) {
                case '"' -> '"';
                case '\\' -> '\\';
                case '/' -> '/';
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                default -> throw invalid("Escape sequence \"\\" + new String(Character.toChars(s.codePointAt(i + 1))) + "\" is invalid.");
            };
            if (b != null) b.append(decoded);
            i += 2;
        }
        if (high >= 0 && build) throw invalid("Unicode low surrogate must follow a high surrogate.");
        if (b != null) string = b.toString();
        return i + 1;
    }

    /** The current string token decoded (for a {@code json} object's key). */
    private String decodedString() {
        JsonText p = new JsonText(s, true);
        p.string(start);
        return p.string;
    }
}
