package dev.tributary.server.source;

import java.util.List;
import java.util.Map;

/**
 * What a running {@link Connector} sees of its source. Positions are text the connector writes
 * and reads back (an offset, a byte count), by part (a file's name, a partition's number); the
 * source's progress table holds them.
 */
public interface SourceContext {
    /** The source's name, for messages. */
    String name();

    /** The connector's options, by upper-case name, as CREATE SOURCE gave them (validated already). */
    Map<String, String> options();

    /** The positions committed so far, by part: where this run resumes. Read-only, current after every {@link #commit}. */
    Map<String, String> positions();

    /**
     * Writes {@code rows} (each the values of the source's columns, in order) and moves each part
     * in {@code positions} to its new position, in one commit; returns once it is durable.
     * Either both land or neither does. A part mapped to null is removed (its progress row
     * retracted): how a connector forgets parts it no longer needs (a webhook's old idempotency
     * keys); {@code positions} may be any map that takes null values.
     *
     * @throws SourceStopped when the source must stop (nothing was committed)
     * @throws IllegalArgumentException a row that does not fit the columns (a connector's bug)
     */
    void commit(List<Object[]> rows, Map<String, String> positions);

    /**
     * {@link #commit}, but returning once the previous such commit is durable, not this one: a
     * connector reads its next batch while this one is written (the positions move at once, as
     * the rows are in the log's queue; a crash keeps a prefix of the commits, each whole). For a
     * connector that need not tell anyone when its rows are durable.
     */
    default void commitPipelined(List<Object[]> rows, Map<String, String> positions) {
        commit(rows, positions);
    }

    /**
     * A keyed source's commit (ENVELOPE UPSERT or DEBEZIUM, {@link Decoder#keyed}): each change
     * sets or deletes the row of its key, in order, and the parts in {@code positions} move, in one
     * commit; returns once it is durable. As {@link #commit} otherwise.
     */
    void commitChanges(List<SourceChange> changes, Map<String, String> positions);

    /** {@link #commitChanges}, returning once the previous commit is durable (see {@link #commitPipelined}). */
    default void commitChangesPipelined(List<SourceChange> changes, Map<String, String> positions) {
        commitChanges(changes, positions);
    }

    /**
     * Reports a record that could not be decoded, at {@code position} (for the report): counted
     * and shown in SHOW SOURCES; then skipped, or (ON DECODE ERROR STOP) the source stops.
     *
     * @throws SourceStopped when the setting stops the source on decode errors
     */
    void decodeError(String position, String message);

    /** The source's format. */
    Decoder decoder();

    /** Whether the source must stop: a connector checks it between reads. */
    boolean stopping();

    /** Waits up to {@code millis} ms, or less if the source is stopping: a polling connector's pause. */
    void pause(long millis);

    /** What the connector is doing, for SHOW SOURCES ({@code running}, {@code waiting for files}, an outage). */
    void state(String state);
}
