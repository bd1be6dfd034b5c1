package dev.tributary.server;

import dev.tributary.server.protobuf.ProtobufRows;
import dev.tributary.server.protobuf.ProtobufSchema;
import dev.tributary.server.source.DecodeException;
import dev.tributary.server.source.Decoder;
import dev.tributary.server.source.SourceChange;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.types.Jsonb;
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
 *
 * <p>A keyed source ({@code ENVELOPE UPSERT} or {@code DEBEZIUM}) reads records as changes
 * ({@link #change}): UPSERT's record is the new row of its key, read as above; DEBEZIUM's a
 * Debezium change event in JSON, {@code {"before": ..., "after": ..., "op": ...}} or the same as
 * the {@code payload} of {@code {"schema": ..., "payload": ...}}, whose {@code after} (an object
 * filling the columns of its keys' names) is the new row, and which deletes the key of its
 * {@code before} when {@code after} is null. {@code before} is never retracted as a row: a source
 * started in the middle of a topic never saw it. A message key (Kafka's) gives the key columns
 * their values, over the record's.
 */
final class SourceFormat implements Decoder {
    enum Kind { JSON, CSV, TEXT, BYTES, PROTOBUF }

    private final Kind kind;
    private final Statement.SourceEnvelope envelope;
    /** The primary key's columns (a keyed source's), by index; empty for ENVELOPE NONE. */
    private final int[] key;
    private final boolean[] isKey;
    private final List<Column> columns;
    private final List<SqlType> types;
    private final Statement.CopyOptions copy;
    /** The parser of JSON objects into columns and of CSV records; null for the whole-record forms. */
    private final CopyText.Reader reader;
    /** PROTOBUF's reading of messages into the columns; null for the other formats. */
    private final ProtobufRows protobuf;
    private final Object[][] parsed = new Object[1][];
    private DecodeException failed;

    private SourceFormat(Kind kind, Statement.SourceEnvelope envelope, int[] key, List<Column> columns, Statement.CopyOptions copy, String source,
                         ProtobufRows protobuf) {
        this.kind = kind;
        this.protobuf = protobuf;
        this.envelope = envelope;
        this.key = key.clone();
        this.isKey = new boolean[columns.size()];
        for (int k : key) isKey[k] = true;
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

    /**
     * The format {@code format} names with {@code options}, over {@code columns}, reading records
     * as {@code envelope} says, keyed by columns {@code key} (empty for NONE); 42601/0A000/22023 for
     * what it cannot be.
     */
    static SourceFormat of(String format, List<Statement.SourceOption> options, List<Column> columns, Statement.SourceEnvelope envelope, int[] key,
                           String source, int pos) {
        Kind kind = kind(format, pos);
        if (envelope == Statement.SourceEnvelope.DEBEZIUM && kind != Kind.JSON) {
            throw new SqlException("0A000", "ENVELOPE DEBEZIUM needs FORMAT JSON, not " + kind, pos,
                    "Debezium's change events are read as JSON ({\"before\": ..., \"after\": ..., \"op\": ...}); use FORMAT JSON, or ENVELOPE UPSERT for rows.");
        }
        if (kind == Kind.PROTOBUF) {
            ProtobufRows rows = ProtobufRows.forSource(ProtobufSchema.of(options, pos).message(), columns, pos);
            return new SourceFormat(kind, envelope, key, columns, Statement.CopyOptions.JSON, source, rows);
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
        return new SourceFormat(kind, envelope, key, columns, copy, source, null);
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
    public boolean keyed() {
        return envelope != Statement.SourceEnvelope.NONE;
    }

    @Override
    public SourceChange change(byte[] messageKey, byte[] value, int off, int len) throws DecodeException {
        Object[] keyRow = messageKey == null ? null : keyOfMessage(messageKey);
        if (value == null) {
            if (keyRow == null) throw new DecodeException("the message has neither a key nor a value: it names no row to delete");
            return new SourceChange.Delete(keyRow);
        }
        if (envelope == Statement.SourceEnvelope.DEBEZIUM) return debezium(keyRow, value, off, len);
        Object[] row = decode(value, off, len);
        return row == null ? null : new SourceChange.Upsert(withKey(row, keyRow));
    }

    /** {@code row} with the key columns of {@code keyRow} (null: none), checked to have every key column. */
    private Object[] withKey(Object[] row, Object[] keyRow) throws DecodeException {
        if (keyRow != null) for (int k : key) row[k] = keyRow[k];
        for (int k : key) {
            if (row[k] == null) {
                throw new DecodeException("key column \"" + columns.get(k).name() + "\" is null: a record of a keyed source needs its key, in the message's key or in the record");
            }
        }
        return row;
    }

    /** One Debezium change event as a change of its key's row (see the class comment); null for an event that changes nothing. */
    private SourceChange debezium(Object[] keyRow, byte[] b, int off, int len) throws DecodeException {
        String text = utf8(b, off, len);
        if (text.isBlank()) return null;
        if (!(json(text) instanceof Jsonb.Obj event)) throw new DecodeException("a Debezium change event is a JSON object, not " + shorten(text));
        event = unwrapped(event);
        if (event == null) {
            // a payload of null: a tombstone with a schema
            return keyRow == null ? null : new SourceChange.Delete(keyRow);
        }
        Jsonb op = event.get("op");
        if (op != null && !(op instanceof Jsonb.Null) && !(op instanceof Jsonb.Str s && (s.value().equals("c") || s.value().equals("u")
                || s.value().equals("d") || s.value().equals("r")))) {
            throw new DecodeException("Debezium operation " + op + " is not supported: the source reads c, u, d and r (create, update, delete, snapshot read)");
        }
        Jsonb after = event.get("after");
        if (after instanceof Jsonb.Obj a) return new SourceChange.Upsert(withKey(filled(a, null), keyRow));
        if (after != null && !(after instanceof Jsonb.Null)) throw new DecodeException("a Debezium event's \"after\" is an object or null, not " + shorten(after.toString()));
        if (keyRow != null) return new SourceChange.Delete(keyRow);
        if (event.get("before") instanceof Jsonb.Obj before) return new SourceChange.Delete(withKey(filled(before, key), null));
        throw new DecodeException("a Debezium event with neither \"after\" nor \"before\" (and no message key) names no row");
    }

    /**
     * {@code doc}'s {@code payload} when it is Debezium's {@code {"schema": ..., "payload": ...}}
     * wrapping (null for a payload of null), else {@code doc} itself.
     */
    private static Jsonb.Obj unwrapped(Jsonb.Obj doc) throws DecodeException {
        Jsonb payload = doc.get("payload");
        if (payload == null || doc.get("op") != null || doc.get("after") != null || doc.get("before") != null) return doc;
        if (payload instanceof Jsonb.Null) return null;
        if (payload instanceof Jsonb.Obj p) return p;
        throw new DecodeException("a Debezium \"payload\" is an object, not " + shorten(payload.toString()));
    }

    /**
     * A message's key as a row holding the key columns only: a JSON object's fields fill the key
     * columns of their names (inside Debezium's {@code payload} when wrapped); any other key is the
     * value, as text, of the one key column.
     */
    private Object[] keyOfMessage(byte[] bytes) throws DecodeException {
        String text = utf8(bytes, 0, bytes.length);
        if (text.stripLeading().startsWith("{")) {
            if (!(json(text) instanceof Jsonb.Obj doc)) throw new DecodeException("the message key is not a JSON object: " + shorten(text));
            Jsonb.Obj k = doc.size() == 2 && doc.get("schema") != null && doc.get("payload") instanceof Jsonb.Obj p ? p : doc;
            Object[] row = filled(k, key);
            for (int c : key) {
                if (row[c] == null) throw new DecodeException("the message key " + shorten(text) + " has no value for key column \"" + columns.get(c).name() + "\"");
            }
            return row;
        }
        if (key.length != 1) {
            throw new DecodeException("the message key " + shorten(text) + " is not a JSON object, so it fills one key column, and the source's key has " + key.length);
        }
        Object[] row = new Object[columns.size()];
        try {
            row[key[0]] = Values.fromText(text, types.get(key[0]));
        } catch (SqlException e) {
            throw new DecodeException("the message key: column " + columns.get(key[0]).name() + ": " + e.getMessage());
        }
        return row;
    }

    /**
     * A row of the values {@code object}'s fields give the columns of their names (as
     * {@code jsonb_populate_record} takes them), only the columns {@code only} when not null;
     * a NOT NULL column other than a key column left null is an error.
     */
    private Object[] filled(Jsonb.Obj object, int[] only) throws DecodeException {
        Object[] row = new Object[columns.size()];
        int n = only == null ? row.length : only.length;
        for (int j = 0; j < n; j++) {
            int i = only == null ? j : only[j];
            String field = CopyText.Reader.fieldText(object.get(columns.get(i).name()));
            try {
                row[i] = field == null ? null : Values.fromText(field, types.get(i));
            } catch (SqlException e) {
                throw new DecodeException("column " + columns.get(i).name() + ": " + e.getMessage());
            }
            if (row[i] == null && only == null && !isKey[i] && !columns.get(i).nullable()) {
                throw new DecodeException("null value in column \"" + columns.get(i).name() + "\" violates not-null constraint");
            }
        }
        return row;
    }

    private static Jsonb json(String text) throws DecodeException {
        try {
            return (Jsonb) Values.fromText(text, SqlType.JSONB);
        } catch (SqlException e) {
            throw new DecodeException(e.getMessage());
        }
    }

    /** {@code text}, cut short for a message. */
    private static String shorten(String text) {
        return text.length() <= 100 ? text : text.substring(0, 100) + "...";
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
                // a keyed source's key may come from the message's key: checked once it is there
                if (row[i] == null && !columns.get(i).nullable() && !isKey[i]) {
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
