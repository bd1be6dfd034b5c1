package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement.CopyOptions;
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
     * its 1-based line number, its text (for error context, decoded only when asked for) and its
     * {@link Fields}, checked to be UTF-8. Errors of the data itself (bad UTF-8, an unterminated
     * quote) are {@link SqlException}s whose context names {@code table} and the line, as
     * PostgreSQL's do.
     */
    static final class Reader {
        private final String table;
        private final CopyOptions options;
        private final Sink sink;
        /** The data not yet split into lines: {@code buf[0 .. length)}, a partial line at most once a chunk is read. */
        private byte[] buf = new byte[1 << 16];
        private int length;
        private long line;
        private boolean ended;
        private final Fields fields = new Fields(this);
        private final byte[] nullBytes;

        interface Sink {
            void record(long line, LineText text, Fields fields);
        }

        /** A record's line as text, decoded when asked for: a load of a million lines asks for none. */
        interface LineText {
            String text();
        }

        /** The line being read, as the sink sees it: one per reader (a line's own object was a tenth of a COPY's parse), valid during its record call. */
        private final class Current implements LineText {
            private byte[] buf;
            private int from;
            private int to;

            @Override
            public String text() {
                return utf8(buf, from, to);
            }
        }

        private final Current current = new Current();

        /** Decodes UTF-8, reporting malformed input; one per reader, reset per use. */
        private final java.nio.charset.CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

        /** The names of the fields a JSON line's keys fill, in order (JSON lines only). */
        private final List<String> columns;

        Reader(String table, CopyOptions options, Sink sink) {
            this(table, options, List.of(), sink);
        }

        /** A reader whose JSON lines fill the fields named {@code columns} (the COPY's columns, in order). */
        Reader(String table, CopyOptions options, List<String> columns, Sink sink) {
            this.table = table;
            this.options = options;
            this.columns = List.copyOf(columns);
            this.sink = sink;
            this.nullBytes = options.nullString().getBytes(StandardCharsets.UTF_8);
        }

        /** Forgets everything fed so far, to read a new stream (a source's next record) from its first line. */
        void reset() {
            length = 0;
            line = 0;
            ended = false;
        }

        /** The number of the last line read. */
        long line() {
            return line;
        }

        /**
         * Reads {@code len} bytes at {@code off}: every record they complete goes to the sink. The
         * lines are split where they are; only a line the chunk leaves incomplete is copied, to be
         * read again from its start with the next chunk (a loader's chunk of a megabyte was copied
         * whole before it was split).
         */
        void feed(byte[] b, int off, int len) {
            if (ended) return;
            int end = off + len;
            if (length > 0) {
                // the line begun earlier usually ends at the chunk's first newline: only that much joins it
                int upTo = off;
                while (upTo < end && b[upTo] != '\n') upTo++;
                upTo = Math.min(upTo + 1, end);
                append(b, off, upTo);
                off = upTo;
                splitBuffer();
                if (ended || off == end) return;
                if (length > 0) {
                    // a newline in quotes: the rest of the chunk joins the line (one more pass, not one per newline)
                    append(b, off, end);
                    splitBuffer();
                    return;
                }
            }
            int rest = split(b, off, end);
            if (!ended) append(b, rest, end);
        }

        private void append(byte[] b, int from, int to) {
            int n = to - from;
            if (length + n > buf.length) buf = java.util.Arrays.copyOf(buf, Math.max(length + n, 2 * buf.length));
            System.arraycopy(b, from, buf, length, n);
            length += n;
        }

        /** Splits the lines {@link #buf} completes, and keeps what follows the last of them. */
        private void splitBuffer() {
            int rest = split(buf, 0, length);
            if (ended) {
                length = 0;
                return;
            }
            System.arraycopy(buf, rest, buf, 0, length - rest);
            length -= rest;
        }

        /** Sends each line that ends in {@code b[from .. to)} to {@link #line}; where the incomplete line after them starts. */
        private int split(byte[] b, int from, int to) {
            int start = from;
            boolean quoted = false;
            boolean csv = options.csv();
            byte quote = (byte) options.quote();
            byte escape = (byte) options.escape();
            // outside quotes only a newline and a quote (CSV) or a backslash (text) matter, inside
            // them only a quote and the escape: the next of them is found eight bytes at a time
            byte special = csv ? quote : (byte) '\\';
            for (int i = from; i < to && !ended; i++) {
                i = quoted ? indexOfEither(b, i, to, quote, escape) : indexOfEither(b, i, to, (byte) '\n', special);
                if (i == to) break;
                byte c = b[i];
                if (csv) {
                    if (quoted) {
                        if (c == escape && escape != quote && i + 1 < to && (b[i + 1] == quote || b[i + 1] == escape)) {
                            i++;
                        } else if (c == quote) {
                            quoted = false;
                        }
                        continue;
                    }
                    if (c == quote) {
                        quoted = true;
                        continue;
                    }
                } else if (c == '\\' && i + 1 < to && b[i + 1] != '\n' && b[i + 1] != '\r') {
                    i++; // an escaped character never ends a line
                    continue;
                }
                if (c == '\n') {
                    int end = i > start && b[i - 1] == '\r' ? i - 1 : i;
                    line(b, start, end);
                    start = i + 1;
                }
            }
            return start;
        }

        /** The end of the data: a last line without a newline is a record too. */
        void finish() {
            if (ended) return;
            int n = length;
            length = 0;
            if (n > 0) {
                int end = buf[n - 1] == '\r' ? n - 1 : n;
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
            // its fields are checked to be UTF-8 now; the whole line is decoded only for an error's context
            current.buf = buf;
            current.from = from;
            current.to = to;
            fields.clear(buf, !options.json() && asciiWithoutNul(buf, from, to));
            if (options.json()) {
                if (!jsonFields(buf, from, to)) return;
            } else if (options.csv()) {
                csvFields(buf, from, to);
            } else {
                textFields(buf, from, to);
            }
            sink.record(line, current, fields);
        }

        /**
         * A JSON line's fields: for each column, the value of the key that names it (exactly), as
         * {@code jsonb_populate_record} takes it: a string as its text, a number, boolean, object
         * or array as jsonb writes it, a missing key or JSON null as NULL; keys naming no column
         * are ignored. False for a blank line, which holds no row.
         */
        private boolean jsonFields(byte[] buf, int from, int to) {
            String text = utf8(buf, from, to);
            if (text.isBlank()) return false;
            dev.tributary.sql.types.Jsonb doc;
            try {
                doc = (dev.tributary.sql.types.Jsonb) dev.tributary.sql.types.Values.fromText(text, dev.tributary.sql.types.SqlType.JSONB);
            } catch (SqlException e) {
                throw e.withContext("COPY " + table + ", line " + line + ": \"" + shorten(text) + "\"");
            }
            if (!(doc instanceof dev.tributary.sql.types.Jsonb.Obj object)) {
                String what = doc instanceof dev.tributary.sql.types.Jsonb.Arr ? "an array" : "a scalar";
                throw new SqlException("22023", "COPY FROM with FORMAT json takes an object per line, not " + what)
                        .withContext("COPY " + table + ", line " + line + ": \"" + shorten(text) + "\"");
            }
            for (String column : columns) {
                dev.tributary.sql.types.Jsonb v = null;
                // keys are unique once parsed (the last of a repeated one kept)
                for (int k = 0; k < object.keys().size() && v == null; k++) {
                    if (object.keys().get(k).equals(column)) v = object.values().get(k);
                }
                String field = fieldText(v);
                if (field == null) {
                    fields.add(EMPTY, 0, 0, true);
                } else {
                    byte[] b = field.getBytes(StandardCharsets.UTF_8);
                    fields.add(b, 0, b.length, false);
                }
            }
            return true;
        }

        private static final byte[] EMPTY = new byte[0];

        /**
         * A JSON value as the text of the column it fills, as {@code jsonb_populate_record} takes
         * it: a string as its text, a number, boolean, object or array as jsonb writes it, JSON
         * null (or no value, null) as NULL.
         */
        static String fieldText(dev.tributary.sql.types.Jsonb v) {
            return switch (v) {
                case null -> null;
                case dev.tributary.sql.types.Jsonb.Null n -> null;
                case dev.tributary.sql.types.Jsonb.Str str -> str.value();
                case dev.tributary.sql.types.Jsonb.Num n -> n.value().toPlainString();
                case dev.tributary.sql.types.Jsonb.Bool b -> b.value() ? "true" : "false";
                case dev.tributary.sql.types.Jsonb.Arr a -> a.toString();
                case dev.tributary.sql.types.Jsonb.Obj o -> o.toString();
            };
        }

        private void textFields(byte[] buf, int from, int to) {
            byte delimiter = (byte) options.delimiter();
            int i = from;
            while (true) {
                int start = i;
                // a field without a backslash (most of them) is its bytes as they are, read where they are
                int end = indexOfEither(buf, i, to, delimiter, (byte) '\\');
                if (end == to || buf[end] == delimiter) {
                    fields.inLine(i, end, isNullString(buf, i, end));
                    if (end >= to) return;
                    i = end + 1;
                    continue;
                }
                fields.begin();
                while (i < to && buf[i] != delimiter) {
                    byte c = buf[i++];
                    if (c != '\\') {
                        fields.put(c);
                        continue;
                    }
                    if (i >= to) {
                        fields.put((byte) '\\'); // a backslash at the end of the line stands for itself
                        break;
                    }
                    byte e = buf[i++];
                    switch (e) {
                        case 'b' -> fields.put((byte) '\b');
                        case 'f' -> fields.put((byte) '\f');
                        case 'n' -> fields.put((byte) '\n');
                        case 'r' -> fields.put((byte) '\r');
                        case 't' -> fields.put((byte) '\t');
                        case 'v' -> fields.put((byte) 0x0b);
                        case 'x' -> {
                            int v = 0;
                            int n = 0;
                            while (n < 2 && i < to && Character.digit(buf[i], 16) >= 0) {
                                v = v * 16 + Character.digit(buf[i++], 16);
                                n++;
                            }
                            fields.put((byte) (n == 0 ? 'x' : v));
                        }
                        default -> {
                            if (e >= '0' && e <= '7') {
                                int v = e - '0';
                                for (int n = 1; n < 3 && i < to && buf[i] >= '0' && buf[i] <= '7'; n++) v = v * 8 + (buf[i++] - '0');
                                fields.put((byte) v);
                            } else {
                                fields.put(e);
                            }
                        }
                    }
                }
                fields.end(isNullString(buf, start, i));
                if (i >= to) return;
                i++; // the delimiter
            }
        }

        private void csvFields(byte[] buf, int from, int to) {
            byte delimiter = (byte) options.delimiter();
            byte quote = (byte) options.quote();
            byte escape = (byte) options.escape();
            int i = from;
            while (true) {
                // an unquoted field (most of them) is its bytes as they are, read where they are
                int end = indexOfEither(buf, i, to, delimiter, quote);
                if (end == to || buf[end] == delimiter) {
                    fields.inLine(i, end, isNullString(buf, i, end));
                    if (end >= to) return;
                    i = end + 1;
                    continue;
                }
                fields.begin();
                boolean everQuoted = false;
                boolean quoted = false;
                int start = i;
                while (i < to) {
                    byte c = buf[i];
                    if (quoted) {
                        if (c == escape && i + 1 < to && (buf[i + 1] == quote || buf[i + 1] == escape)
                                && !(escape == quote && buf[i + 1] != quote)) {
                            fields.put(buf[i + 1]);
                            i += 2;
                            continue;
                        }
                        if (c == quote) {
                            quoted = false;
                            i++;
                            continue;
                        }
                        fields.put(c);
                        i++;
                        continue;
                    }
                    if (c == delimiter) break;
                    if (c == quote) {
                        quoted = true;
                        everQuoted = true;
                        i++;
                        continue;
                    }
                    fields.put(c);
                    i++;
                }
                fields.end(!everQuoted && isNullString(buf, start, i));
                if (i >= to) return;
                i++; // the delimiter
            }
        }

        /** Whether the raw text {@code b[from .. to)} is the null string (its length first: CSV's is empty, and most fields are not). */
        private boolean isNullString(byte[] b, int from, int to) {
            return to - from == nullBytes.length && java.util.Arrays.equals(b, from, to, nullBytes, 0, nullBytes.length);
        }

        /** The string whose UTF-8 is {@code b[from .. to)}; 22021 naming the line if it is not UTF-8. */
        String utf8(byte[] b, int from, int to) {
            if (ascii(b, from, to)) return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
            try {
                return decoder.reset().decode(ByteBuffer.wrap(b, from, to - from)).toString();
            } catch (CharacterCodingException e) {
                throw notUtf8(b, from, to);
            }
        }

        /** 22021 naming the line if {@code b[from .. to)} is not UTF-8. */
        void checkUtf8(byte[] b, int from, int to) {
            int i = asciiPrefix(b, from, to); // ASCII without NUL, most fields: one pass
            if (i == to) return;
            for (int k = i; k < to; k++) {
                // NUL is valid UTF-8 but no text may hold it (PostgreSQL's answer, also for an escaped \000)
                if (b[k] == 0) throw new SqlException("22021", "invalid byte sequence for encoding \"UTF8\": 0x00").withContext("COPY " + table + ", line " + line);
            }
            utf8(b, from, to);
        }

        private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
        private static final long ONES = 0x0101010101010101L;
        private static final long HIGHS = 0x8080808080808080L;

        /**
         * Where the first byte of {@code b[from .. to)} that is NUL or not ASCII is ({@code to} if
         * none): eight bytes at a time while a word's bytes are all 1 to 127, then one at a time.
         * A word {@code w} holds a NUL or a byte from 128 when {@code (w - ONES) | w} has a high
         * bit: subtracting one from a byte of 1 to 127 leaves its high bit clear, from 0 sets it
         * (a byte of 128 or more has it in {@code w} anyway), and borrows come only from a 0.
         */
        static int asciiPrefix(byte[] b, int from, int to) {
            int i = from;
            for (; i + 8 <= to; i += 8) {
                long w = (long) LONGS.get(b, i);
                if (((w - ONES | w) & HIGHS) != 0) break;
            }
            while (i < to && b[i] > 0) i++;
            return i;
        }

        /**
         * Where the first {@code x} or {@code y} of {@code b[from .. to)} is ({@code to} if
         * neither is there), eight bytes at a time: a word XORed with {@code x} in every byte has
         * a 0 byte where {@code x} was, and the lowest flag of {@code (t - ONES) & ~t & HIGHS} is
         * the first 0 byte of {@code t} (a borrow makes false flags only above a true one).
         */
        static int indexOfEither(byte[] b, int from, int to, byte x, byte y) {
            long xs = ONES * (x & 0xFF), ys = ONES * (y & 0xFF);
            int i = from;
            for (; i + 8 <= to; i += 8) {
                long w = (long) LONGS.get(b, i);
                long tx = w ^ xs, ty = w ^ ys;
                long found = ((tx - ONES) & ~tx | (ty - ONES) & ~ty) & HIGHS;
                if (found != 0) return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
            while (i < to && b[i] != x && b[i] != y) i++;
            return i;
        }

        private static boolean asciiWithoutNul(byte[] b, int from, int to) {
            return asciiPrefix(b, from, to) == to;
        }

        private static boolean ascii(byte[] b, int from, int to) {
            for (int i = from; i < to; i++) if (b[i] < 0) return false;
            return true;
        }

        private SqlException notUtf8(byte[] b, int from, int to) {
            int bad = from;
            while (bad < to && b[bad] >= 0) bad++;
            StringBuilder hex = new StringBuilder();
            for (int k = bad; k < Math.min(to, bad + 2); k++) hex.append(k > bad ? " " : "").append(String.format("0x%02x", b[k] & 0xff));
            return new SqlException("22021", "invalid byte sequence for encoding \"UTF8\": " + hex).withContext("COPY " + table + ", line " + line);
        }
    }

    /**
     * The fields of one record, each its bytes after quotes and escapes are undone (checked to be
     * UTF-8) or NULL; reused record after record, so a field's bytes are read before the next
     * record, in place ({@link #data}, {@link #start}, {@link #end}) or as a {@link #string}.
     *
     * <p>A field that is the line's own bytes (no quotes or escapes: most of them) is read where
     * it is, in the line; only one whose bytes differ is copied, into this record's own array.
     * When the whole line is ASCII without NUL (checked eight bytes at a time), a field read in
     * the line needs no UTF-8 check of its own. Copying and checking every field on its own was
     * a fifth of a COPY's parse.
     */
    static final class Fields {
        private final Reader reader;
        /** The bytes of the line being read. */
        private byte[] line;
        /** Whether {@link #line} is ASCII without NUL, from the line's start to its end. */
        private boolean lineClean;
        /** The bytes of the fields that are not the line's own, back to back. */
        private byte[] data = new byte[256];
        private int used;
        private int[] starts = new int[16];
        private int[] ends = new int[16];
        private boolean[] nulls = new boolean[16];
        /** Whether field {@code i} is in {@link #line} (else in {@link #data}). */
        private boolean[] inLine = new boolean[16];
        private int count;

        private Fields(Reader reader) {
            this.reader = reader;
        }

        /** The number of fields. */
        int count() {
            return count;
        }

        boolean isNull(int i) {
            return nulls[i];
        }

        /** The bytes field {@code i} is in: it is {@code data(i)[start(i) .. end(i))}. */
        byte[] data(int i) {
            return inLine[i] ? line : data;
        }

        int start(int i) {
            return starts[i];
        }

        int end(int i) {
            return ends[i];
        }

        /** Field {@code i} as a string, null for NULL. */
        String string(int i) {
            return nulls[i] ? null : reader.utf8(data(i), starts[i], ends[i]);
        }

        /** The fields as strings (null for NULL). */
        List<String> strings() {
            List<String> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) out.add(string(i));
            return out;
        }

        /** Starts a record of the line in {@code line}; {@code clean} if it is ASCII without NUL throughout. */
        private void clear(byte[] line, boolean clean) {
            this.line = line;
            this.lineClean = clean;
            used = 0;
            count = 0;
        }

        private void grow() {
            if (count < starts.length) return;
            starts = java.util.Arrays.copyOf(starts, count * 2);
            ends = java.util.Arrays.copyOf(ends, count * 2);
            nulls = java.util.Arrays.copyOf(nulls, count * 2);
            inLine = java.util.Arrays.copyOf(inLine, count * 2);
        }

        /** Starts a field of bytes of its own ({@link #put} them, then {@link #end}). */
        private void begin() {
            grow();
            starts[count] = used;
        }

        private void put(byte b) {
            if (used == data.length) data = java.util.Arrays.copyOf(data, used * 2);
            data[used++] = b;
        }

        private void end(boolean isNull) {
            if (!isNull) reader.checkUtf8(data, starts[count], used);
            ends[count] = used;
            inLine[count] = false;
            nulls[count++] = isNull;
        }

        /** A field that is {@code b[from .. to)}, copied. */
        private void add(byte[] b, int from, int to, boolean isNull) {
            begin();
            int n = to - from;
            if (used + n > data.length) data = java.util.Arrays.copyOf(data, Math.max(used + n, data.length * 2));
            System.arraycopy(b, from, data, used, n);
            used += n;
            end(isNull);
        }

        /** A field that is the line's bytes {@code [from .. to)}, read where they are. */
        private void inLine(int from, int to, boolean isNull) {
            grow();
            if (!isNull && !lineClean) reader.checkUtf8(line, from, to);
            starts[count] = from;
            ends[count] = to;
            inLine[count] = true;
            nulls[count++] = isNull;
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
