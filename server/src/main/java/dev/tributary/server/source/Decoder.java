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
