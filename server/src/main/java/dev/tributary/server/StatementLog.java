package dev.tributary.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The newest statements the database ran, at most {@link #capacity} of them, each with its
 * session, text, start, duration, rows and error: what {@code tributary_internal.statement_log}
 * shows (as PostgreSQL's pg_stat_statements shows statements, but one entry per run, not summed).
 *
 * <p>Thread-safe: statements end on their clients' threads, some without the coordinator's lock
 * (a prepared point read), and the sampler reads it under that lock. Noting a statement is one
 * small allocation under this object's own monitor, so that logging every statement costs the
 * statements nothing they would notice.
 */
final class StatementLog {
    /**
     * One statement that ended: {@code id} counts statements from 1 (so two runs of the same text
     * in the same millisecond are two entries); {@code sqlState} and {@code error} are null when
     * it succeeded; {@code rows} the rows it returned or changed.
     */
    record Entry(long id, int pid, String user, String query, long startedMillis, long durationNanos, long rows, String sqlState, String error) {}

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private int capacity;
    private long next = 1;

    StatementLog(int capacity) {
        this.capacity = Math.max(0, capacity);
    }

    /** Keeps at most {@code capacity} entries from now on, the newest (0: none). */
    synchronized void capacity(int capacity) {
        this.capacity = Math.max(0, capacity);
        while (entries.size() > this.capacity) entries.pollFirst();
    }

    /** Notes a statement of {@code session} that started at {@code startedMillis} and ran {@code durationNanos}. */
    void ended(Session session, String query, long startedMillis, long durationNanos, Result result, dev.tributary.sql.SqlException error) {
        int pid = session.backendPid;
        String user = session.sessionUser();
        long rows = result == null ? 0 : rowsOf(result);
        synchronized (this) {
            if (capacity == 0) return;
            if (entries.size() == capacity) entries.pollFirst();
            entries.addLast(new Entry(next++, pid, user, redacted(query), startedMillis, durationNanos, rows,
                    error == null ? null : error.sqlState(), error == null ? null : error.getMessage()));
        }
    }

    /**
     * What changed since entry {@code after} was the newest a reader had seen: the id of the
     * oldest entry kept ({@link Long#MAX_VALUE} when none is), and the entries newer than
     * {@code after}, oldest first. Entries never change, so a reader that keeps what it saw reads
     * only these (a sample of the whole log each second had cost more than all else it samples).
     */
    record Since(long oldest, List<Entry> newer) {}

    synchronized Since since(long after) {
        List<Entry> newer = new ArrayList<>();
        for (var it = entries.descendingIterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.id() <= after) break;
            newer.add(e);
        }
        java.util.Collections.reverse(newer);
        return new Since(entries.isEmpty() ? Long.MAX_VALUE : entries.peekFirst().id(), newer);
    }

    /** The rows a statement returned, or those its command tag counts (INSERT 0 3, UPDATE 2, SELECT 5 of CREATE TABLE AS). */
    static long rowsOf(Result r) {
        if (r.hasRows()) return r.rows().size();
        String tag = r.tag();
        int space = tag.lastIndexOf(' ');
        if (space < 0) return 0;
        try {
            return Long.parseLong(tag.substring(space + 1));
        } catch (NumberFormatException e) {
            return 0; // a tag without a count (CREATE TABLE)
        }
    }

    /**
     * {@code query}, unless it may hold a password (CREATE/ALTER ROLE ... PASSWORD): a log others
     * read must not show one, so such a statement is shown by its kind only.
     */
    static String redacted(String query) {
        String lower = query.toLowerCase(java.util.Locale.ROOT);
        return lower.contains("password") ? "<a statement with a password, not shown>" : query;
    }
}
