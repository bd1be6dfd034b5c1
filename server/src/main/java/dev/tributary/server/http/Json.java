package dev.tributary.server.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the console API speaks, without a JSON library on the classpath: writing
 * strings, string lists and nested lists of strings (values go out as PostgreSQL's text output),
 * and reading a request body that is one object of string members ({@code {"sql": "..."}}).
 */
final class Json {
    private Json() {}

    /** Appends {@code s} as a JSON string (escaped as the json type escapes it), or {@code null}. */
    static StringBuilder string(StringBuilder b, String s) {
        if (s == null) return b.append("null");
        dev.tributary.sql.types.Json.quote(b, s);
        return b;
    }

    /** Appends {@code items} as a JSON array of strings (null items as {@code null}). */
    static StringBuilder strings(StringBuilder b, List<String> items) {
        b.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) b.append(',');
            string(b, items.get(i));
        }
        return b.append(']');
    }

    /** Thrown for a body that is not one JSON object of string members. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message);
        }
    }

    /** The members of {@code text}, a JSON object whose members are all strings. */
    static Map<String, String> stringObject(String text) throws Malformed {
        Reader r = new Reader(text);
        Map<String, String> members = new LinkedHashMap<>();
        r.expect('{');
        if (!r.take('}')) {
            do {
                String name = r.string();
                r.expect(':');
                members.put(name, r.string());
            } while (r.take(','));
            r.expect('}');
        }
        r.end();
        return members;
    }

    /** A cursor over the body's text. */
    private static final class Reader {
        private final String s;
        private int i;

        Reader(String s) {
            this.s = s;
        }

        private void blanks() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        }

        boolean take(char c) {
            blanks();
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        void expect(char c) throws Malformed {
            if (!take(c)) throw new Malformed("expected '" + c + "' at offset " + i);
        }

        void end() throws Malformed {
            blanks();
            if (i != s.length()) throw new Malformed("unexpected text at offset " + i);
        }

        String string() throws Malformed {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw new Malformed("unterminated string");
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c < 0x20) throw new Malformed("control character in a string at offset " + (i - 1));
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) throw new Malformed("unterminated string");
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) throw new Malformed("short \\u escape");
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException x) {
                            throw new Malformed("bad \\u escape at offset " + (i - 2));
                        }
                        i += 4;
                    }
                    default -> throw new Malformed("bad escape at offset " + (i - 2));
                }
            }
        }
    }
}
