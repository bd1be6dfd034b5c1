package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement.CopyOptions;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * COPY's two data formats, as PostgreSQL reads and writes them.
 *
 * <p>Text: one line per row, fields split by the delimiter (tab), the null string ({@code \N})
 * for NULL, and backslash escapes ({@code \b \f \n \r \t \v \\}, {@code \ooo} octal, {@code \xhh}
 * hex, a backslash before any other character meaning that character). A field is NULL when its
 * raw text, before escapes, equals the null string. CSV: fields split by the delimiter (comma),
 * quoted with the quote character (a quoted field may hold delimiters and newlines; inside it the
 * escape character before a quote or itself stands for that character), an unquoted field equal
 * to the null string (empty) is NULL and a quoted one never is. In both, a line {@code \.} alone
 * ends the data; both {@code \n} and {@code \r\n} end a line.
 */
public final class CopyText {
    private CopyText() {}

    /**
     * Splits the bytes of a COPY FROM stream into records of fields, fed in chunks of any size (a
     * chunk may end inside a line or a character). Each complete record goes to {@code sink} with
     * its 1-based line number and its text (for error context, decoded only when asked for); NULL
     * fields are null. Errors of
     * the data itself (bad UTF-8, an unterminated quote) are {@link SqlException}s whose context
     * names {@code table} and the line, as PostgreSQL's do.
     */
    static final class Reader {
        private final String table;
        private final CopyOptions options;
        private final Sink sink;
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
        private long line;
        private boolean ended;

        interface Sink {
            void record(long line, LineText text, List<String> fields);
        }

        /** A record's line as text, decoded when asked for: a load of a million lines asks for none. */
        interface LineText {
            String text();
        }

        /** Decodes UTF-8, reporting malformed input; one per reader, reset per use. */
        private final java.nio.charset.CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

        Reader(String table, CopyOptions options, Sink sink) {
            this.table = table;
            this.options = options;
            this.sink = sink;
        }

        /** The number of the last line read. */
        long line() {
            return line;
        }

        /** Reads {@code len} bytes at {@code off}: every record they complete goes to the sink. */
        void feed(byte[] b, int off, int len) {
            if (ended) return;
            pending.write(b, off, len);
            byte[] buf = pending.toByteArray();
            int start = 0;
            boolean quoted = false;
            for (int i = 0; i < buf.length && !ended; i++) {
                byte c = buf[i];
                if (options.csv()) {
                    if (quoted) {
                        if (c == options.escape() && options.escape() != options.quote() && i + 1 < buf.length
                                && (buf[i + 1] == options.quote() || buf[i + 1] == options.escape())) {
                            i++;
                        } else if (c == options.quote()) {
                            quoted = false;
                        }
                        continue;
                    }
                    if (c == options.quote()) {
                        quoted = true;
                        continue;
                    }
                } else if (c == '\\' && i + 1 < buf.length && buf[i + 1] != '\n' && buf[i + 1] != '\r') {
                    i++; // an escaped character never ends a line
                    continue;
                }
                if (c == '\n') {
                    int end = i > start && buf[i - 1] == '\r' ? i - 1 : i;
                    line(buf, start, end);
                    start = i + 1;
                }
            }
            pending.reset();
            if (!ended) pending.write(buf, start, buf.length - start);
        }

        /** The end of the data: a last line without a newline is a record too. */
        void finish() {
            if (ended) return;
            byte[] buf = pending.toByteArray();
            pending.reset();
            if (buf.length > 0) {
                int end = buf[buf.length - 1] == '\r' ? buf.length - 1 : buf.length;
                if (options.csv() && unterminatedQuote(buf, end)) {
                    line++;
                    throw new SqlException("22P04", "unterminated CSV quoted field")
                            .withContext("COPY " + table + ", line " + line + ": \"" + shorten(utf8(buf, 0, end)) + "\"");
                }
                line(buf, 0, end);
            }
            ended = true;
        }

        private boolean unterminatedQuote(byte[] buf, int end) {
            boolean quoted = false;
            for (int i = 0; i < end; i++) {
                byte c = buf[i];
                if (quoted && c == options.escape() && options.escape() != options.quote() && i + 1 < end
                        && (buf[i + 1] == options.quote() || buf[i + 1] == options.escape())) {
                    i++;
                } else if (c == options.quote()) {
                    quoted = !quoted;
                }
            }
            return quoted;
        }

        private void line(byte[] buf, int from, int to) {
            if (to - from == 2 && buf[from] == '\\' && buf[from + 1] == '.') {
                ended = true;
                return;
            }
            line++;
            // its fields are decoded (and so checked to be UTF-8) now; the whole line only for an error's context
            LineText text = () -> utf8(buf, from, to);
            List<String> fields = options.csv() ? csvFields(buf, from, to) : textFields(buf, from, to);
            sink.record(line, text, fields);
        }

        private List<String> textFields(byte[] buf, int from, int to) {
            List<String> fields = new ArrayList<>();
            byte[] nul = options.nullString().getBytes(StandardCharsets.UTF_8);
            int i = from;
            while (true) {
                int start = i;
                ByteArrayOutputStream field = new ByteArrayOutputStream();
                while (i < to && buf[i] != options.delimiter()) {
                    byte c = buf[i++];
                    if (c != '\\') {
                        field.write(c);
                        continue;
                    }
                    if (i >= to) {
                        field.write('\\'); // a backslash at the end of the line stands for itself
                        break;
                    }
                    byte e = buf[i++];
                    switch (e) {
                        case 'b' -> field.write('\b');
                        case 'f' -> field.write('\f');
                        case 'n' -> field.write('\n');
                        case 'r' -> field.write('\r');
                        case 't' -> field.write('\t');
                        case 'v' -> field.write(0x0b);
                        case 'x' -> {
                            int v = 0;
                            int n = 0;
                            while (n < 2 && i < to && Character.digit(buf[i], 16) >= 0) {
                                v = v * 16 + Character.digit(buf[i++], 16);
                                n++;
                            }
                            if (n == 0) field.write('x');
                            else field.write(v);
                        }
                        default -> {
                            if (e >= '0' && e <= '7') {
                                int v = e - '0';
                                for (int n = 1; n < 3 && i < to && buf[i] >= '0' && buf[i] <= '7'; n++) v = v * 8 + (buf[i++] - '0');
                                field.write(v & 0xff);
                            } else {
                                field.write(e);
                            }
                        }
                    }
                }
                boolean isNull = java.util.Arrays.equals(buf, start, i, nul, 0, nul.length);
                byte[] bytes = field.toByteArray();
                fields.add(isNull ? null : utf8(bytes, 0, bytes.length));
                if (i >= to) return fields;
                i++; // the delimiter
            }
        }

        private List<String> csvFields(byte[] buf, int from, int to) {
            List<String> fields = new ArrayList<>(16);
            String nul = options.nullString();
            int i = from;
            while (true) {
                // an unquoted field (most of them) is its bytes as they are: no copy before decoding
                int end = i;
                while (end < to && buf[end] != options.delimiter() && buf[end] != options.quote()) end++;
                if (end == to || buf[end] == options.delimiter()) {
                    String value = utf8(buf, i, end);
                    fields.add(value.equals(nul) ? null : value);
                    if (end >= to) return fields;
                    i = end + 1;
                    continue;
                }
                ByteArrayOutputStream field = new ByteArrayOutputStream();
                boolean everQuoted = false;
                boolean quoted = false;
                while (i < to) {
                    byte c = buf[i];
                    if (quoted) {
                        if (c == options.escape() && i + 1 < to && (buf[i + 1] == options.quote() || buf[i + 1] == options.escape())
                                && !(options.escape() == options.quote() && buf[i + 1] != options.quote())) {
                            field.write(buf[i + 1]);
                            i += 2;
                            continue;
                        }
                        if (c == options.quote()) {
                            quoted = false;
                            i++;
                            continue;
                        }
                        field.write(c);
                        i++;
                        continue;
                    }
                    if (c == options.delimiter()) break;
                    if (c == options.quote()) {
                        quoted = true;
                        everQuoted = true;
                        i++;
                        continue;
                    }
                    field.write(c);
                    i++;
                }
                byte[] bytes = field.toByteArray();
                String value = utf8(bytes, 0, bytes.length);
                fields.add(!everQuoted && value.equals(nul) ? null : value);
                if (i >= to) return fields;
                i++; // the delimiter
            }
        }

        private String utf8(byte[] b, int from, int to) {
            int ascii = from;
            while (ascii < to && b[ascii] >= 0) ascii++;
            // ASCII, as most data is: every byte is its character
            if (ascii == to) return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
            try {
                return decoder.reset().decode(ByteBuffer.wrap(b, from, to - from)).toString();
            } catch (CharacterCodingException e) {
                int bad = from;
                while (bad < to && b[bad] >= 0) bad++;
                StringBuilder hex = new StringBuilder();
                for (int k = bad; k < Math.min(to, bad + 2); k++) hex.append(k > bad ? " " : "").append(String.format("0x%02x", b[k] & 0xff));
                throw new SqlException("22021", "invalid byte sequence for encoding \"UTF8\": " + hex)
                        .withContext("COPY " + table + ", line " + line);
            }
        }
    }

    /** A line of context as PostgreSQL shows it: at most 100 characters, then "...". */
    static String shorten(String text) {
        return text.length() <= 100 ? text : text.substring(0, 100) + "...";
    }

    /** Writes rows in COPY's text or CSV format, one line (ending in a newline) per row. */
    public static final class Writer {
        private final CopyOptions options;

        public Writer(CopyOptions options) {
            this.options = options;
        }

        /** One row: its fields (null for NULL) as a line. */
        public String line(List<String> fields) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) b.append(options.delimiter());
                String f = fields.get(i);
                if (f == null) b.append(options.nullString());
                else if (options.csv()) csv(b, f, i == 0);
                else text(b, f);
            }
            return b.append('\n').toString();
        }

        private void text(StringBuilder b, String f) {
            for (int i = 0; i < f.length(); i++) {
                char c = f.charAt(i);
                switch (c) {
                    case '\\' -> b.append("\\\\");
                    case '\b' -> b.append("\\b");
                    case '\f' -> b.append("\\f");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    case 0x0b -> b.append("\\v");
                    default -> {
                        if (c == options.delimiter()) b.append('\\');
                        b.append(c);
                    }
                }
            }
        }

        private void csv(StringBuilder b, String f, boolean first) {
            boolean quote = f.equals(options.nullString()) || (first && f.equals("\\."));
            for (int i = 0; i < f.length() && !quote; i++) {
                char c = f.charAt(i);
                quote = c == options.delimiter() || c == options.quote() || c == '\n' || c == '\r';
            }
            if (!quote) {
                b.append(f);
                return;
            }
            b.append(options.quote());
            for (int i = 0; i < f.length(); i++) {
                char c = f.charAt(i);
                if (c == options.quote() || c == options.escape()) b.append(options.escape());
                b.append(c);
            }
            b.append(options.quote());
        }
    }
}
