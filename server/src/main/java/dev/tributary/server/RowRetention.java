package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tables {@code WITH (APPEND ONLY, RETAIN ROWS FOR interval)}: a row is deleted once it is that
 * old, by its commit time, as a queue drops what it no longer keeps.
 *
 * <p>The deletion is a subscription of the server's own to the rows whose time has come,
 * {@code SELECT * FROM t STREAM WHERE now() >= PROCTIME() + interval} (a temporal filter over
 * each row's commit time), whose insertions a thread of its own deletes from the table in
 * commits of their own. It needs nothing durable of its own: after a restart the subscription's
 * snapshot is the rows whose time has come and that are still there (a deletion that was not
 * durable is made again; one that was is not in it). The table keeps its history for the rows'
 * lifetime (a hold at now - interval), so their commit times survive a restart. Only append-only
 * tables: no one else deletes their rows, so a row the subscription names is there to delete.
 */
final class RowRetention {
    /** A retained table: its id, qualified name and how long its rows live, in ms. */
    record Retained(long id, String name, long millis) {}

    private final Map<Long, Retained> tables = new HashMap<>();
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
        pending.add(r);
    }

    synchronized void dropped(long id) {
        Retained r = tables.remove(id);
        if (r != null) pending.remove(r);
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
        for (Retained r : tables.values()) out.put(r.id(), Math.max(0, now - r.millis()));
        return out;
    }

    /** The subscription that names each row of {@code r} once its time has come. */
    static String expiring(Retained r) {
        return "SUBSCRIBE (SELECT * FROM " + r.name() + " STREAM WHERE now() >= PROCTIME() + INTERVAL '" + r.millis() + " milliseconds')";
    }
}
