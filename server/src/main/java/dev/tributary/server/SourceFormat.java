package dev.tributary.server;

import dev.tributary.server.protobuf.ProtobufRows;
import dev.tributary.server.protobuf.ProtobufSchema;
import dev.tributary.server.source.DecodeException;
import dev.tributary.server.source.Decoder;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A source's FORMAT as a {@link Decoder}, reading records as COPY FROM reads its lines (the same
 * parser, so a CSV file loads the same through COPY and through a source):
 * <ul>
 *   <li>{@code JSON}: one JSON document per record; with the default columns ({@code data jsonb})
 *       the whole document, otherwise an object whose keys fill the columns of their names, as
 *       {@code jsonb_populate_record} takes them ({@code COPY ... (FORMAT json)});</li>
 *   <li>{@code CSV}: COPY's CSV (options {@code HEADER}, {@code DELIMITER}, {@code QUOTE},
 *       {@code ESCAPE}, {@code NULL}), one field per column;</li>
 *   <li>{@code TEXT}: the record as one {@code text} value; {@code BYTES}: as one {@code bytea}.</li>
 *   <li>{@code PROTOBUF}: a message (a Kafka message's value, a webhook's body) is one protobuf
 *       message of the type {@code (MESSAGE '...', SCHEMA ...)} names, its fields filling the
 *       columns of their names ({@link ProtobufRows}); without columns, every field is one. A
 *       protobuf message has no delimiter, so a file of them cannot be cut into records: FROM
 *       DIRECTORY refuses the format.</li>
 * </ul>
 * A record ends at a newline (for CSV, one outside quotes). A record that does not fit (bad
 * JSON, a wrong number of fields, a value its column's type cannot take) is a
 * {@link DecodeException}; the source counts it and goes on or stops, as it was made to.
 */
final class SourceFormat implements Decoder {
    enum Kind { JSON, CSV, TEXT, BYTES, PROTOBUF }

    private final Kind kind;
    private final List<Column> columns;
    private final List<SqlType> types;
    private final Statement.CopyOptions copy;
    /** The parser of JSON objects into columns and of CSV records; null for the whole-record forms. */
    private final CopyText.Reader reader;
    /** PROTOBUF's reading of messages into the columns; null for the other formats. */
    private final ProtobufRows protobuf;
    private final Object[][] parsed = new Object[1][];
    private DecodeException failed;

    private SourceFormat(Kind kind, List<Column> columns, Statement.CopyOptions copy, String source, ProtobufRows protobuf) {
        this.kind = kind;
        this.protobuf = protobuf;
        this.columns = List.copyOf(columns);
        this.types = dev.tributary.sql.bind.Binder.typesOf(columns);
        this.copy = copy;
        boolean whole = kind == Kind.TEXT || kind == Kind.BYTES || kind == Kind.PROTOBUF || kind == Kind.JSON && wholeDocument(columns);
        this.reader = whole ? null : new CopyText.Reader(source, copy, columns.stream().map(Column::name).toList(), this::record);
    }

    /**
     * The columns a source of {@code format} (with {@code options}) has when CREATE SOURCE names
     * none; 42601 for CSV, which needs them. PROTOBUF's are its message's fields.
     */
    static List<Column> defaultColumns(String format, List<Statement.SourceOption> options, int pos) {
        return switch (kind(format, pos)) {
            case PROTOBUF -> ProtobufRows.columnsOf(ProtobufSchema.of(options, pos).message());
            case JSON -> List.of(new Column("data", SqlType.JSONB, true, false));
            case TEXT -> List.of(new Column("text", SqlType.TEXT, true, false));
            case BYTES -> List.of(new Column("data", SqlType.BYTEA, true, false));
            case CSV -> throw new SqlException("42601", "a source of FORMAT CSV needs its columns: CREATE SOURCE name (column type, ...) FROM ...", pos);
        };
    }

    /** The format {@code format} names with {@code options}, over {@code columns}; 42601/0A000/22023 for what it cannot be. */
    static SourceFormat of(String format, List<Statement.SourceOption> options, List<Column> columns, String source, int pos) {
        Kind kind = kind(format, pos);
        if (kind == Kind.PROTOBUF) {
            ProtobufRows rows = ProtobufRows.forSource(ProtobufSchema.of(options, pos).message(), columns, pos);
            return new SourceFormat(kind, columns, Statement.CopyOptions.JSON, source, rows);
        }
        if ((kind == Kind.TEXT || kind == Kind.BYTES) && (columns.size() != 1 || columns.get(0).type().kind() != (kind == Kind.TEXT ? SqlType.Kind.TEXT : SqlType.Kind.BYTEA))) {
            throw new SqlException("42P16", "a source of FORMAT " + kind + " has one column, of type " + (kind == Kind.TEXT ? "text" : "bytea"), pos);
        }
        boolean csv = kind == Kind.CSV;
        char delimiter = ',', quote = '"', escape = '"';
        String nullString = "";
        Statement.CopyHeader header = Statement.CopyHeader.NONE;
        for (Statement.SourceOption o : options) {
            if (!csv) throw new SqlException("42601", "option \"" + o.name() + "\" not recognized for FORMAT " + kind, o.pos(), "Only FORMAT CSV takes options.");
            switch (o.name()) {
                case "HEADER" -> header = switch (o.value().toLowerCase(Locale.ROOT)) {
                    case "true", "on", "1" -> Statement.CopyHeader.SKIP;
                    case "false", "off", "0" -> Statement.CopyHeader.NONE;
                    default -> throw new SqlException("22023", "HEADER requires a Boolean value", o.pos());
                };
                case "DELIMITER" -> delimiter = oneCharacter(o);
                case "QUOTE" -> quote = oneCharacter(o);
                case "ESCAPE" -> escape = oneCharacter(o);
                case "NULL" -> nullString = o.value();
                default -> throw new SqlException("42601", "option \"" + o.name() + "\" not recognized", o.pos(),
                        "FORMAT CSV takes HEADER, DELIMITER, QUOTE, ESCAPE and NULL.");
            }
        }
        if (csv && (delimiter == quote || delimiter == '\n' || delimiter == '\r')) {
            throw new SqlException("22023", "the CSV delimiter must be one character that is not the quote nor a newline", pos);
        }
        Statement.CopyOptions copy = kind == Kind.JSON ? Statement.CopyOptions.JSON
                : new Statement.CopyOptions(true, delimiter, nullString, header, quote, escape);
        return new SourceFormat(kind, columns, copy, source, null);
    }

    private static char oneCharacter(Statement.SourceOption o) {
        if (o.value().length() != 1) throw new SqlException("22023", o.name() + " must be a single one-byte character", o.pos());
        return o.value().charAt(0);
    }

    private static Kind kind(String format, int pos) {
        if (format == null) throw new SqlException("42601", "a source needs FORMAT JSON, CSV, TEXT, BYTES or PROTOBUF", pos);
        try {
            return Kind.valueOf(format);
        } catch (IllegalArgumentException e) {
            throw new SqlException(format.equals("AVRO") ? "0A000" : "42601",
                    "FORMAT " + format + " is not supported for sources", pos, "Sources read FORMAT JSON, CSV, TEXT, BYTES or PROTOBUF.");
        }
    }

    private static boolean wholeDocument(List<Column> columns) {
        return columns.size() == 1 && columns.get(0).type().kind() == SqlType.Kind.JSONB && columns.get(0).name().equals("data");
    }

    @Override
    public boolean header() {
        return copy.header() != Statement.CopyHeader.NONE;
    }

    @Override
    public Records messageRecords() {
        return switch (kind) {
            case JSON -> Records.JSON_VALUES;
            case CSV, TEXT -> Records.LINES;
            case BYTES, PROTOBUF -> Records.WHOLE;
        };
    }

    @Override
    public int recordEnd(byte[] b, int from, int to) {
        if (kind != Kind.CSV) {
            for (int i = from; i < to; i++) if (b[i] == '\n') return i;
            return -1;
        }
        boolean quoted = false;
        byte q = (byte) copy.quote(), e = (byte) copy.escape();
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (quoted) {
                if (c == e && e != q && i + 1 < to && (b[i + 1] == q || b[i + 1] == e)) i++;
                else if (c == q) quoted = false;
            } else if (c == q) {
                quoted = true;
            } else if (c == '\n') {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Object[] decode(byte[] b, int off, int len) throws DecodeException {
        switch (kind) {
            case BYTES -> {
                return new Object[] {dev.tributary.sql.types.Bytea.copyOf(java.util.Arrays.copyOfRange(b, off, off + len))};
            }
            case TEXT -> {
                return new Object[] {utf8(b, off, len)};
            }
            case PROTOBUF -> {
                return protobuf.decode(b, off, len);
            }
            default -> { }
        }
        if (reader == null) {
            String text = utf8(b, off, len);
            if (text.isBlank()) return null;
            try {
                return new Object[] {Values.fromText(text, SqlType.JSONB)};
            } catch (SqlException e) {
                throw new DecodeException(e.getMessage());
            }
        }
        parsed[0] = null;
        failed = null;
        try {
            reader.reset();
            reader.feed(b, off, len);
            reader.finish();
        } catch (SqlException e) {
            throw new DecodeException(e.getMessage());
        }
        if (failed != null) throw failed;
        return parsed[0];
    }

    /** A record's fields from the reader, as the columns' values (a failure kept for {@link #decode} to throw). */
    private void record(long line, CopyText.Reader.LineText text, CopyText.Fields fields) {
        if (fields.count() != columns.size()) {
            failed = new DecodeException(fields.count() > columns.size() ? "extra data after last expected column"
                    : "missing data for column \"" + columns.get(fields.count()).name() + "\"");
            return;
        }
        Object[] row = new Object[columns.size()];
        for (int i = 0; i < row.length; i++) {
            String f = fields.string(i);
            try {
                row[i] = Values.fromText(f, types.get(i));
                if (row[i] == null && !columns.get(i).nullable()) {
                    failed = new DecodeException("null value in column \"" + columns.get(i).name() + "\" violates not-null constraint");
                    return;
                }
            } catch (SqlException e) {
                failed = new DecodeException("column " + columns.get(i).name() + ": " + e.getMessage());
                return;
            }
        }
        parsed[0] = row;
    }

    private static String utf8(byte[] b, int off, int len) throws DecodeException {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b, off, len)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new DecodeException("invalid byte sequence for encoding \"UTF8\"");
        }
    }
}
