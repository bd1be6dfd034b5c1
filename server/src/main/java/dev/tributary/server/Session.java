package dev.tributary.server;

import dev.tributary.sql.row.Row;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One client's state: whether it is inside a transaction block, the writes that block has made
 * (committed together at one time by COMMIT), and whether an error has aborted the block.
 */
public final class Session {
    boolean inTransaction;
    /** Whether the block is the extended protocol's implicit one, which its next Sync ends. */
    boolean implicit;
    boolean aborted;
    /** Table id to row to signed count, for the open transaction. */
    final Map<Long, Map<Row, Long>> pending = new LinkedHashMap<>();
    final Map<String, String> settings = new HashMap<>();

    Session() {}

    void reset() {
        inTransaction = false;
        implicit = false;
        aborted = false;
        pending.clear();
    }

    /** Whether the session is in a transaction block (PostgreSQL's {@code T} status) or a failed one ({@code E}). */
    public char status() {
        return !inTransaction || implicit ? 'I' : aborted ? 'E' : 'T';
    }
}
