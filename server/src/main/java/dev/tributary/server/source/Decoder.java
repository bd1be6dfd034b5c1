package dev.tributary.server.source;

/**
 * A source's format (JSON, CSV, TEXT, BYTES): how its records are delimited in a stream of bytes
 * (a file), and how one record becomes the values of the source's columns, in their order.
 * Not thread-safe: one per running source.
 */
public interface Decoder {
    /**
     * The end of the first record in {@code b[from, to)}: the index of the newline that ends it
     * (a CSV record's quoted newlines do not), or -1 when no record ends there yet.
     */
    int recordEnd(byte[] b, int from, int to);

    /**
     * The row that the record {@code b[off, off + len)} (without its newline) holds, or null for
     * a record that holds none (a blank JSON line).
     */
    Object[] decode(byte[] b, int off, int len) throws DecodeException;

    /**
     * Whether the source is keyed (ENVELOPE UPSERT or DEBEZIUM): its records are changes to the
     * rows of their keys, read with {@link #change}, not rows to append, read with {@link #decode}.
     */
    default boolean keyed() {
        return false;
    }

    /**
     * The change a keyed source's record makes: {@code value[off, off + len)} is the record
     * ({@code value} null for a message without one, a Kafka tombstone, which deletes its key) and
     * {@code key} the message's key, or null (a file's or a webhook's records have none, so their
     * key columns come from the record). A key that is a JSON object fills the key columns of its
     * fields' names; any other key is the one key column's value, as text. Null for a record that
     * changes nothing (a blank JSON line).
     *
     * @throws DecodeException the record or key cannot be read, or leaves a key column null
     */
    default SourceChange change(byte[] key, byte[] value, int off, int len) throws DecodeException {
        throw new IllegalStateException("change() is for keyed sources (keyed() true); this source appends rows: read them with decode()");
    }

    /** Whether a file's first record is a header line to skip (CSV's {@code HEADER}). */
    boolean header();

    /** How a message that arrives whole (a webhook's body) is cut into records: {@link #messageRecords}. */
    enum Records {
        /** Records end where {@link #recordEnd} says (CSV, TEXT); a last one without a newline counts. */
        LINES,
        /**
         * Each JSON value is a record, whatever whitespace (newlines included) lies inside or
         * between them; a message that is one array holds a record per element.
         */
        JSON_VALUES,
        /** The whole message is one record (BYTES). */
        WHOLE
    }

    /** How this format cuts a whole message into records. */
    Records messageRecords();
}
