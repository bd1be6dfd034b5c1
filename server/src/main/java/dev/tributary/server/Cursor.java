package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A cursor declared in a transaction block (DECLARE c CURSOR FOR ...), read forward by FETCH and
 * gone with CLOSE or the end of the block.
 *
 * <p>Over a query, the rows are the query's answer at DECLARE time. Over a SUBSCRIBE, the rows
 * are the subscription's as they arrive ({@code change_time, change_diff, columns...}); FETCH
 * takes those already there, waiting up to its timeout for the first. The waiting is on this
 * object's monitor, which the subscription's deliveries and a cancel of the session notify.
 *
 * <p>Bounded: a subscription's rows left unfetched, beyond its snapshot and the batch being
 * delivered, may number at most {@code bufferRows} (the session's, from {@code --subscribe-buffer-rows}); past it the rows
 * are dropped, the subscription is closed, and FETCH fails with 53400, so a client that declares
 * a cursor and stops fetching cannot fill the heap.
 */
final class Cursor implements AutoCloseable {
    private List<String> columns;
    private List<SqlType> types;
    private final ArrayDeque<Object[]> rows = new ArrayDeque<>();
    private final boolean subscribed;
    /** The subscription feeding the cursor; null over a query and once closed. */
    private Subscription subscription;
    private SqlException error;
    /** The subscription is over: no rows will come. */
    private boolean done;
    private final String name;
    private final long bufferRows;
    /** The snapshot's rows not fetched yet (they come first): they do not count against {@code bufferRows}. */
    private long snapshotLeft = -1;
    /** A consumer group's read (see {@link GroupRead}), or null; and what closing gives back to the group. */
    private GroupRead group;
    private Runnable release = () -> {};

    private Cursor(List<String> columns, List<SqlType> types, boolean subscribed) {
        this(columns, types, subscribed, "", Long.MAX_VALUE);
    }

    private Cursor(List<String> columns, List<SqlType> types, boolean subscribed, String name, long bufferRows) {
        this.name = name;
        this.bufferRows = bufferRows;
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        this.subscribed = subscribed;
    }

    /** The cursor's columns and their types, as a result without rows (what a Describe of it answers). */
    Result shape() {
        return new Result("", columns, types, List.of());
    }

    /** A cursor over the rows of {@code answer}. */
    static Cursor over(Result answer) {
        Cursor c = new Cursor(answer.columns(), answer.types(), false);
        c.rows.addAll(answer.rows());
        return c;
    }

    /**
     * Cursor {@code name}, to be fed by a subscription, holding at most {@code bufferRows} unfetched
     * rows beyond a batch: {@link #listener()} goes to the subscription, then {@link #attach}.
     */
    static Cursor subscribing(String name, long bufferRows) {
        return new Cursor(List.of(), List.of(), true, name, bufferRows);
    }

    /**
     * Cursor {@code name} of a consumer group: {@code read} filters its subscription's batches and
     * follows what FETCH hands out; {@code release} runs when it closes. Its rows are
     * {@code columns}; with no partition held it has no subscription and stays empty.
     */
    static Cursor grouped(String name, long bufferRows, GroupRead read, Runnable release, List<String> columns, List<SqlType> types) {
        Cursor c = new Cursor(columns, types, true, name, bufferRows);
        c.group = read;
        c.release = release;
        c.snapshotLeft = 0;
        return c;
    }

    synchronized void attach(Subscription s) {
        subscription = s;
        if (group != null) return; // its columns are its own: the progress column is not the client's
        columns = s.columns();
        types = s.types();
    }

    /** The consumer group's read of this cursor, or null. */
    GroupRead group() {
        return group;
    }

    Subscription.Listener listener() {
        return new Subscription.Listener() {
            @Override
            public void onChanges(Result batch) {
                Subscription overflowed = null;
                synchronized (Cursor.this) {
                    if (error != null && rows.isEmpty() && subscription == null) return;
                    if (snapshotLeft < 0) snapshotLeft = batch.rows().size();
                    long before = rows.size() - snapshotLeft;
                    if (before > 0 && before + batch.rows().size() > bufferRows) {
                        rows.clear();
                        error = new SqlException("53400", "cursor \"" + name + "\" was not fetched from: " + (before + batch.rows().size())
                                + " rows of its subscription waited, more than the limit of " + bufferRows + "; the subscription is dropped", 0,
                                "FETCH more often, or raise the server's --subscribe-buffer-rows.");
                        overflowed = subscription;
                        subscription = null;
                    } else {
                        rows.addAll(group != null ? group.filter(batch) : batch.rows());
                    }
                    Cursor.this.notifyAll();
                }
                if (overflowed != null) {
                    Subscription s = overflowed;
                    // closing waits for the workers, one of which is delivering this batch: another thread does it
                    Thread.ofVirtual().name("tributary-cursor-overflow").start(s::close);
                }
            }

            @Override
            public void onDone() {
                synchronized (Cursor.this) {
                    done = true;
                    Cursor.this.notifyAll();
                }
            }

            @Override
            public void onError(SqlException e) {
                synchronized (Cursor.this) {
                    if (error == null) error = e;
                    Cursor.this.notifyAll();
                }
            }
        };
    }

    /**
     * Up to {@code n} rows. Over a subscription with none there yet, waits up to {@code timeoutMillis}
     * (negative: without limit) for the first, and returns what is there then, perhaps nothing;
     * once the subscription is over (UP TO reached, an input dropped) it returns what is left without waiting.
     *
     * @throws SqlException 57014 if {@code session} is cancelled while waiting; the subscription's
     *     error once its rows are all fetched
     */
    synchronized Result fetch(long n, long timeoutMillis, Session session) {
        if (subscribed && n > 0) {
            long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000;
            session.aboutToWait();
            session.waitingOn = this;
            try {
                while (firstRowEmpty() && error == null && !done && !session.cancelRequested) {
                    long left = deadline == Long.MAX_VALUE ? 0 : (deadline - System.nanoTime()) / 1_000_000;
                    if (deadline != Long.MAX_VALUE && left <= 0) break;
                    try {
                        wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw Session.canceled();
                    }
                }
            } finally {
                session.waitingOn = null;
            }
            if (session.consumeCancel()) throw Session.canceled();
            if (rows.isEmpty() && error != null) throw error;
        }
        List<Object[]> out = new ArrayList<>();
        while (out.size() < n && !firstRowEmpty()) out.add(group != null ? group.fetched(rows.poll()) : rows.poll());
        if (group != null) firstRowEmpty(); // progress marks right behind the last row are passed too
        if (snapshotLeft > 0) snapshotLeft = Math.max(0, snapshotLeft - out.size());
        return new Result("FETCH " + out.size(), columns, types, out);
    }

    /**
     * Whether no row is there for the client: a consumer group's progress marks at the head are
     * passed on to its read first (they are not rows).
     */
    private boolean firstRowEmpty() {
        if (group != null) {
            while (!rows.isEmpty() && rows.peek()[0] == GroupRead.PROGRESS) group.progressed((Long) rows.poll()[1]);
        }
        return rows.isEmpty();
    }

    @Override
    public void close() {
        release.run();
        release = () -> {};
        Subscription s;
        // not under the monitor: closing waits for the workers, one of which may be delivering to us
        synchronized (this) {
            s = subscription;
            subscription = null;
            rows.clear();
        }
        if (s != null) s.close();
    }
}
