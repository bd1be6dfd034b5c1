package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tables {@code WITH (APPEND ONLY, RETAIN ROWS FOR interval)}: a row is deleted once it is that
 * old, by its commit time, as a queue drops what it no longer keeps; and tables
 * {@code WITH (APPEND ONLY, RETAIN ROWS n)}: the oldest rows are deleted once more than n are
 * there, as a capped queue drops its oldest.
 *
 * <p>The deletion is a subscription of the server's own to the rows whose time has come,
 * {@code SELECT * FROM t STREAM WHERE now() >= PROCTIME() + interval} (a temporal filter over
 * each row's commit time), whose insertions a thread of its own deletes from the table in
 * commits of their own. It needs nothing durable of its own: after a restart the subscription's
 * snapshot is the rows whose time has come and that are still there (a deletion that was not
 * durable is made again; one that was is not in it). The table keeps its history for the rows'
 * lifetime (a hold at now - interval), so their commit times survive a restart. Only append-only
 * tables: no one else deletes their rows, so a row the subscription names is there to delete.
 *
 * <p>A table capped by count is followed by a subscription to all of it, whose insertions
 * {@link NewestRows} keeps in commit order (the table's rows, encoded, in memory: its size again);
 * once more than n are held, the oldest go to the same deleting thread. Its history is held from
 * the commit time of the oldest row kept, so after a restart the subscription starts there (AS OF
 * the table's since): what comes in its snapshot is older than everything after it. Rows of one
 * commit have no order among them, nor do the rows of that first snapshot. The cap holds
 * a moment after each commit, not within it: a reader may see more than n rows meanwhile.
 */
final class RowRetention {
    /** A retained table: its id, qualified name, and how long its rows live in ms (-1: by count) or how many are kept (-1: by age). */
    record Retained(long id, String name, long millis, long maxRows) {
        boolean byAge() {
            return millis > 0;
        }
    }

    private final Map<Long, Retained> tables = new HashMap<>();
    private final Map<Long, NewestRows> newest = new HashMap<>();
    private final List<Retained> pending = new ArrayList<>();

    /** The interval {@code e} in ms (22023 unless a positive interval without months). */
    static long millis(Expr e, Binder binder) {
        Interval i = (Interval) binder.constant(e, SqlType.INTERVAL);
        if (i.months() != 0) throw new SqlException("22023", "RETAIN ROWS FOR takes days, hours, minutes and seconds, not months", e.pos());
        long ms = i.days() * 86_400_000L + Math.floorDiv(i.micros(), 1000);
        if (ms <= 0) throw new SqlException("22023", "RETAIN ROWS FOR takes a positive interval, not " + i, e.pos());
        return ms;
    }

    synchronized void created(Retained r) {
        tables.put(r.id(), r);
        if (!r.byAge()) newest.put(r.id(), new NewestRows(r.maxRows()));
        pending.add(r);
    }

    synchronized void dropped(long id) {
        Retained r = tables.remove(id);
        newest.remove(id);
        if (r != null) pending.remove(r);
    }

    /** The rows kept of table {@code id}, capped by count; null for one retained by age or not at all. */
    synchronized NewestRows newest(long id) {
        return newest.get(id);
    }

    synchronized Retained get(long id) {
        return tables.get(id);
    }

    /** The tables made since the last call (by CREATE TABLE or a recovery), whose deletions are to start. */
    synchronized List<Retained> takePending() {
        List<Retained> out = new ArrayList<>(pending);
        pending.clear();
        return out;
    }

    /** Per retained table, the time from which it keeps its history: its rows' lifetime back from {@code now}. */
    synchronized Map<Long, Long> holds(long now) {
        Map<Long, Long> out = new HashMap<>();
        for (Retained r : tables.values()) out.put(r.id(), r.byAge() ? Math.max(0, now - r.millis()) : newest.get(r.id()).oldest());
        return out;
    }

    /**
     * The subscription that names each row of {@code r} once its time has come (by age), or that
     * follows all of it from {@code since}, the earliest time its history holds (by count).
     */
    static String expiring(Retained r, long since) {
        return r.byAge() ? "SUBSCRIBE (SELECT * FROM " + r.name() + " STREAM WHERE now() >= PROCTIME() + INTERVAL '" + r.millis() + " milliseconds')"
                : "SUBSCRIBE " + r.name() + " AS OF " + since;
    }

    /**
     * The rows of a table capped at {@code max}, oldest first, as its subscription delivers them:
     * each time's insertions and deletions, and the oldest rows beyond the cap to delete. Its
     * own deletions come back as retractions and are only checked off (the rows were taken off
     * when named); others (a subscription started after a restart replays the deletions made
     * before it) take the row off. Thread-safe: the subscription adds, the holds read
     * {@link #oldest}.
     */
    static final class NewestRows {
        /** One commit's rows, of which those before {@code next} are gone. */
        private static final class Commit {
            final long time;
            final List<Row> rows = new ArrayList<>();
            int next;

            Commit(long time) {
                this.time = time;
            }
        }

        private final long max;
        private final java.util.ArrayDeque<Commit> commits = new java.util.ArrayDeque<>();
        /** The rows named for deletion whose retraction has not come back yet, by count. */
        private final Map<Row, Long> deleting = new HashMap<>();
        private long held;
        /**
         * The present when its subscription began: what it delivers up to there is history
         * replayed (after a restart), whose deletions are in it too, so none is named until later.
         */
        private long replayedUntil = Long.MAX_VALUE;
        /** The commit time of the oldest row kept, or of the last delivery when none is; 0 before the first. */
        private long oldest;

        NewestRows(long max) {
            this.max = max;
        }

        /** Its subscription starts at {@code present}: changes up to there are history, already trimmed. */
        synchronized void following(long present) {
            replayedUntil = present;
        }

        /**
         * Takes the changes at {@code time} (each row with its count: positive inserted, negative
         * deleted); returns the oldest rows now beyond the cap, by count (negative: to delete).
         */
        synchronized Map<Row, Long> changed(long time, Map<Row, Long> changes) {
            Commit c = new Commit(time);
            for (Map.Entry<Row, Long> e : changes.entrySet()) {
                Row row = e.getKey();
                for (long n = e.getValue(); n > 0; n--) c.rows.add(row);
                for (long n = e.getValue(); n < 0; n++) {
                    Long named = deleting.get(row);
                    if (named == null) {
                        // deleted before this subscription began (a restart replays it): among the oldest
                        if (takeOff(row)) held--;
                    } else if (named == 1) {
                        deleting.remove(row);
                    } else {
                        deleting.put(row, named - 1);
                    }
                }
            }
            if (!c.rows.isEmpty()) {
                commits.add(c);
                held += c.rows.size();
            }
            Map<Row, Long> out = new HashMap<>();
            while (held > max && time > replayedUntil) {
                Commit first = commits.peekFirst();
                Row row = first.rows.get(first.next);
                first.rows.set(first.next++, null);
                out.merge(row, -1L, Long::sum);
                deleting.merge(row, 1L, Long::sum);
                held--;
                if (first.next == first.rows.size()) commits.removeFirst();
            }
            oldest = commits.isEmpty() ? time : commits.peekFirst().time;
            return out;
        }

        /** Takes one copy of {@code row} off, searching from the oldest; false when none is held. */
        private boolean takeOff(Row row) {
            for (java.util.Iterator<Commit> it = commits.iterator(); it.hasNext(); ) {
                Commit c = it.next();
                for (int i = c.next; i < c.rows.size(); i++) {
                    if (c.rows.get(i).equals(row)) {
                        // order within a commit does not count: the first kept row takes its place
                        c.rows.set(i, c.rows.get(c.next));
                        c.rows.set(c.next++, null);
                        if (c.next == c.rows.size()) it.remove();
                        return true;
                    }
                }
            }
            return false;
        }

        /** The time from which the table's history must be kept: its oldest row's commit. */
        synchronized long oldest() {
            return oldest;
        }
    }
}
