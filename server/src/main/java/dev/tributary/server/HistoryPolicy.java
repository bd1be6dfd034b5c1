package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;

/**
 * How far back an object's history stays readable ({@code RETAIN HISTORY}): {@code forMillis}
 * behind the present, or everything from {@code pinAt} on. Exactly one of the two is set; the
 * other is -1. Kept as resolved, so a durable {@code PIN AT now()} is not evaluated again.
 */
record HistoryPolicy(long forMillis, long pinAt) {
    /** The earliest time the object must stay readable at when the present is {@code now}. */
    long since(long now) {
        return forMillis >= 0 ? Math.max(0, now - forMillis) : pinAt;
    }

    /** The policy as the durable catalog records it: {@code FOR ms} or {@code PIN AT t}. */
    String text() {
        return forMillis >= 0 ? "FOR " + forMillis : "PIN AT " + pinAt;
    }

    /** The policy a statement's {@code RETAIN HISTORY} clause asks for, bound with {@code binder}; null without one. */
    static HistoryPolicy of(Statement.RetainHistory r, Binder binder) {
        if (r == null) return null;
        if (r.pinAt() != null) return new HistoryPolicy(-1, binder.systemTime(r.pinAt(), "RETAIN HISTORY PIN AT"));
        Interval i = (Interval) binder.constant(r.interval(), SqlType.INTERVAL);
        if (i.months() != 0) throw new SqlException("22023", "RETAIN HISTORY FOR takes days, hours, minutes and seconds, not months", r.pos());
        long ms = i.days() * 86_400_000L + Math.floorDiv(i.micros(), 1000);
        if (ms < 0) throw new SqlException("22023", "RETAIN HISTORY FOR takes a positive interval, not " + i, r.pos());
        return new HistoryPolicy(ms, -1);
    }
}
