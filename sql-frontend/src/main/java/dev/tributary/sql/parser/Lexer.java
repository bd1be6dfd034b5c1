package dev.tributary.sql.parser;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.parser.Token.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into tokens the way PostgreSQL's scanner does.
 *
 * <p>Faithful where users notice: unquoted identifiers fold ASCII letters to lower case;
 * {@code ''} and {@code ""} escape quotes; {@code E'..'} strings take backslash escapes;
 * {@code $tag$..$tag$} quotes; string constants separated by whitespace holding a newline join;
 * {@code /* *}{@code /} comments nest; an operator is the longest run of operator characters,
 * less trailing {@code +}/{@code -} unless it holds one of {@code ~!@#%^&|`?} (so {@code a=-1}
 * is {@code =} then {@code -}). Errors carry PostgreSQL's wording and the offending offset.
 */
final class Lexer {
    private static final String OP_CHARS = "+-*/<>=~!@#%^&|`?";
    private static final String OP_SPECIAL = "~!@#%^&|`?";

    private final String sql;
    private int i;
    private final List<Token> out = new ArrayList<>();

    private Lexer(String sql) {
        this.sql = sql;
    }

    /** The tokens of {@code sql}, ending with one EOF token at {@code sql.length()}. */
    static List<Token> lex(String sql) {
        Lexer l = new Lexer(sql);
        l.run();
        return l.out;
    }

    private static SqlException error(String message, int start) {
        return new SqlException("42601", message, start + 1);
    }

    private SqlException nearError(String what, int start) {
        return error(what + " at or near \"" + sql.substring(start) + "\"", start);
    }

    private char at(int k) {
        return k < sql.length() ? sql.charAt(k) : '\0';
    }

    private static boolean identStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    }

    private static boolean identPart(char c) {
        return identStart(c) || (c >= '0' && c <= '9') || c == '$';
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private void run() {
        int n = sql.length();
        while (true) {
            skipSpaceAndComments();
            if (i >= n) break;
            int s = i;
            char c = sql.charAt(i);
            if ((c == 'e' || c == 'E') && at(i + 1) == '\'') {
                i++;
                out.add(new Token(Type.STRING, quoted(s, true), s, i));
            } else if ((c == 'b' || c == 'B' || c == 'x' || c == 'X') && at(i + 1) == '\'') {
                throw new SqlException("0A000", "bit-string constants are not supported", s + 1);
            } else if ((c == 'u' || c == 'U') && at(i + 1) == '&' && (at(i + 2) == '\'' || at(i + 2) == '"')) {
                throw new SqlException("0A000", "Unicode escape strings (U&) are not supported", s + 1);
            } else if ((c == 'n' || c == 'N') && at(i + 1) == '\'') {
                i++;
                out.add(new Token(Type.STRING, quoted(s, false), s, i));
            } else if (identStart(c)) {
                while (i < n && identPart(sql.charAt(i))) i++;
                out.add(new Token(Type.IDENT, fold(sql.substring(s, i)), s, i));
            } else if (digit(c) || (c == '.' && digit(at(i + 1)))) {
                number();
            } else if (c == '\'') {
                out.add(new Token(Type.STRING, quoted(s, false), s, i));
            } else if (c == '"') {
                quotedIdent();
            } else if (c == '$') {
                dollar();
            } else if (c == '(') {
                single(Type.LPAREN);
            } else if (c == ')') {
                single(Type.RPAREN);
            } else if (c == ',') {
                single(Type.COMMA);
            } else if (c == ';') {
                single(Type.SEMI);
            } else if (c == '[') {
                single(Type.LBRACKET);
            } else if (c == ']') {
                single(Type.RBRACKET);
            } else if (c == '.') {
                single(Type.DOT);
            } else if (c == ':') {
                if (at(i + 1) == ':') {
                    i += 2;
                    out.add(new Token(Type.CAST, "::", s, i));
                } else {
                    single(Type.COLON);
                }
            } else if (OP_CHARS.indexOf(c) >= 0) {
                operator();
            } else {
                throw error("syntax error at or near \"" + new String(Character.toChars(sql.codePointAt(s))) + "\"", s);
            }
        }
        out.add(new Token(Type.EOF, "", n, n));
    }

    private void single(Type t) {
        out.add(new Token(t, sql.substring(i, i + 1), i, i + 1));
        i++;
    }

    /** ASCII-only lower-casing, as PostgreSQL folds identifiers. */
    static String fold(String s) {
        StringBuilder b = null;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c >= 'A' && c <= 'Z') {
                if (b == null) b = new StringBuilder(s.substring(0, k));
                b.append((char) (c + 32));
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }

    private void skipSpaceAndComments() {
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B) {
                i++;
            } else if (c == '-' && at(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') i++;
            } else if (c == '/' && at(i + 1) == '*') {
                int s = i;
                int depth = 0;
                while (true) {
                    if (i >= n) throw nearError("unterminated /* comment", s);
                    if (sql.charAt(i) == '/' && at(i + 1) == '*') {
                        depth++;
                        i += 2;
                    } else if (sql.charAt(i) == '*' && at(i + 1) == '/') {
                        depth--;
                        i += 2;
                        if (depth == 0) break;
                    } else {
                        i++;
                    }
                }
            } else {
                return;
            }
        }
    }

    private void number() {
        int s = i;
        int n = sql.length();
        boolean integer = true;
        while (i < n && digit(sql.charAt(i))) i++;
        if (at(i) == '.' && at(i + 1) != '.') {
            integer = false;
            i++;
            while (i < n && digit(sql.charAt(i))) i++;
        }
        if (at(i) == 'e' || at(i) == 'E') {
            int save = i;
            i++;
            if (at(i) == '+' || at(i) == '-') i++;
            if (digit(at(i))) {
                integer = false;
                while (i < n && digit(sql.charAt(i))) i++;
            } else {
                i = save;
            }
        }
        if (i < n && identStart(sql.charAt(i))) {
            throw error("trailing junk after numeric literal at or near \"" + sql.substring(s, i + 1) + "\"", s);
        }
        out.add(new Token(integer ? Type.INTEGER : Type.NUMBER, sql.substring(s, i), s, i));
    }

    /** Reads a '...' string starting at i (the quote), with continuation lines; leaves i after it. */
    private String quoted(int tokenStart, boolean escapes) {
        StringBuilder b = new StringBuilder();
        int n = sql.length();
        while (true) {
            i++; // opening quote
            while (true) {
                if (i >= n) throw nearError("unterminated quoted string", tokenStart);
                char c = sql.charAt(i);
                if (c == '\'') {
                    if (at(i + 1) == '\'') {
                        b.append('\'');
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                if (c == '\\' && escapes) {
                    i = escape(b, i, tokenStart);
                    continue;
                }
                b.append(c);
                i++;
            }
            // A string continues after whitespace that holds a newline.
            int k = i;
            boolean newline = false;
            while (k < n && " \t\n\r\f".indexOf(sql.charAt(k)) >= 0) {
                if (sql.charAt(k) == '\n' || sql.charAt(k) == '\r') newline = true;
                k++;
            }
            if (newline && at(k) == '\'') {
                i = k;
                continue;
            }
            return b.toString();
        }
    }

    private int escape(StringBuilder b, int k, int tokenStart) {
        char e = at(k + 1);
        if (k + 1 >= sql.length()) throw nearError("unterminated quoted string", tokenStart);
        switch (e) {
            case 'b' -> b.append('\b');
            case 'f' -> b.append('\f');
            case 'n' -> b.append('\n');
            case 'r' -> b.append('\r');
            case 't' -> b.append('\t');
            case 'x' -> {
                int j = k + 2;
                int v = 0;
                while (j < k + 4 && Character.digit(at(j), 16) >= 0) v = v * 16 + Character.digit(at(j++), 16);
                if (j == k + 2) {
                    b.append('x');
                    return k + 2;
                }
                b.append((char) v);
                return j;
            }
            case 'u', 'U' -> {
                int len = e == 'u' ? 4 : 8;
                int v = 0;
                for (int j = 0; j < len; j++) {
                    int d = Character.digit(at(k + 2 + j), 16);
                    if (d < 0) throw new SqlException("22025", "invalid Unicode escape",
                            k + 1, "Unicode escapes must be \\uXXXX or \\UXXXXXXXX.");
                    v = v * 16 + d;
                }
                if (!Character.isValidCodePoint(v) || v == 0) {
                    throw new SqlException("22P05", "invalid Unicode escape value", k + 1);
                }
                b.appendCodePoint(v);
                return k + 2 + len;
            }
            default -> {
                if (e >= '0' && e <= '7') {
                    int j = k + 1;
                    int v = 0;
                    while (j < k + 4 && at(j) >= '0' && at(j) <= '7') v = v * 8 + (at(j++) - '0');
                    b.append((char) (v & 0xFF));
                    return j;
                }
                b.append(e);
            }
        }
        return k + 2;
    }

    private void quotedIdent() {
        int s = i;
        int n = sql.length();
        StringBuilder b = new StringBuilder();
        i++;
        while (true) {
            if (i >= n) throw nearError("unterminated quoted identifier", s);
            char c = sql.charAt(i);
            if (c == '"') {
                if (at(i + 1) == '"') {
                    b.append('"');
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            b.append(c);
            i++;
        }
        if (b.isEmpty()) throw error("zero-length delimited identifier at or near \"\"\"\"", s);
        out.add(new Token(Type.QUOTED_IDENT, b.toString(), s, i));
    }

    private void dollar() {
        int s = i;
        int n = sql.length();
        if (digit(at(i + 1))) {
            i++;
            while (i < n && digit(sql.charAt(i))) i++;
            if (i < n && identPart(sql.charAt(i))) {
                throw error("trailing junk after parameter at or near \"" + sql.substring(s, i + 1) + "\"", s);
            }
            out.add(new Token(Type.PARAM, sql.substring(s + 1, i), s, i));
            return;
        }
        // $tag$ ... $tag$
        int k = i + 1;
        while (k < n && identPart(sql.charAt(k)) && sql.charAt(k) != '$') k++;
        if (at(k) != '$' || (k > i + 1 && !identStart(sql.charAt(i + 1)))) {
            throw error("syntax error at or near \"$\"", s);
        }
        String tag = sql.substring(i, k + 1);
        int body = k + 1;
        int close = sql.indexOf(tag, body);
        if (close < 0) throw nearError("unterminated dollar-quoted string", s);
        i = close + tag.length();
        out.add(new Token(Type.STRING, sql.substring(body, close), s, i));
    }

    private void operator() {
        int s = i;
        int n = sql.length();
        int e = i;
        while (e < n && OP_CHARS.indexOf(sql.charAt(e)) >= 0) {
            if (e > s && ((sql.charAt(e) == '-' && at(e + 1) == '-') || (sql.charAt(e) == '/' && at(e + 1) == '*'))) break;
            e++;
        }
        if (e - s > 1) {
            boolean special = false;
            for (int k = s; k < e; k++) if (OP_SPECIAL.indexOf(sql.charAt(k)) >= 0) special = true;
            if (!special) {
                while (e - s > 1 && (sql.charAt(e - 1) == '+' || sql.charAt(e - 1) == '-')) e--;
            }
        }
        String op = sql.substring(s, e);
        if (op.equals("!=")) op = "<>";
        i = e;
        out.add(new Token(Type.OP, op, s, e));
    }
}
