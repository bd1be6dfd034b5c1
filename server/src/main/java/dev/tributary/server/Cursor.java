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

    private Cursor(List<String> columns, List<SqlType> types, boolean subscribed) {
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        this.subscribed = subscribed;
    }

    /** A cursor over the rows of {@code answer}. */
    static Cursor over(Result answer) {
        Cursor c = new Cursor(answer.columns(), answer.types(), false);
        c.rows.addAll(answer.rows());
        return c;
    }

    /** A cursor to be fed by a subscription: {@link #listener()} goes to the subscription, then {@link #attach}. */
    static Cursor subscribing() {
        return new Cursor(List.of(), List.of(), true);
    }

    synchronized void attach(Subscription s) {
        subscription = s;
        columns = s.columns();
        types = s.types();
    }

    Subscription.Listener listener() {
        return new Subscription.Listener() {
            @Override
            public void onChanges(Result batch) {
                synchronized (Cursor.this) {
                    rows.addAll(batch.rows());
                    Cursor.this.notifyAll();
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
                while (rows.isEmpty() && error == null && !done && !session.cancelRequested) {
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
        while (out.size() < n && !rows.isEmpty()) out.add(rows.poll());
        return new Result("FETCH " + out.size(), columns, types, out);
    }

    @Override
    public void close() {
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
