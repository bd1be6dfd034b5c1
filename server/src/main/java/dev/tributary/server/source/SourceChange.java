package dev.tributary.server.source;

/**
 * What one record of a keyed source (ENVELOPE UPSERT or DEBEZIUM) does to the row of its
 * primary key: sets it, or deletes it. Applied in order within a commit, so the last record of a
 * key wins; a delete of a key that holds no row changes nothing. The rows hold the values of the
 * source's columns, in order; a delete's, only its key columns' (the others null).
 */
public sealed interface SourceChange {
    /** The values of the change's row: the new row, or the deleted key's. */
    Object[] row();

    /** {@code row} is the new row of its key (inserted, or replacing the one there). */
    record Upsert(Object[] row) implements SourceChange {}

    /** The row of {@code row}'s key, if any, is deleted. */
    record Delete(Object[] row) implements SourceChange {}
}
