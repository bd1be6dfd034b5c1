package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Sequences;
import java.util.HashMap;
import java.util.Map;

/**
 * The values of the database's sequences. Each sequence holds the value it last gave and
 * whether it has given it ({@code is_called}); {@link #next} advances it under this object's
 * lock, from any thread (a dataflow's worker evaluating {@code nextval} per row too), outside
 * transactions: a rollback leaves a gap, as in PostgreSQL.
 *
 * <p>Durability: before a value beyond the last one recorded is given, a value
 * {@link #RESERVE} further on is recorded ({@link Reserver}); a restart resumes after the
 * recorded value, so a value once given is never given again, at the cost of a gap of up to
 * {@link #RESERVE} values after a restart (PostgreSQL's is 32).
 *
 * <p>{@code currval} and {@code lastval} answer from the session whose statement is running
 * ({@link #statementOf}): nextval runs only in statements the coordinator runs one at a time
 * (never in a maintained view), so that is the session that asked.
 */
final class SequenceValues implements Sequences {
    /** How many values one record reserves ahead. */
    static final long RESERVE = 1024;

    /** Records that values up to {@code through} of sequence {@code id} may have been given. */
    interface Reserver {
        void reserve(long id, long through);
    }

    /** One sequence's counter. */
    private static final class State {
        final CatalogItem.Sequence definition;
        long value;
        boolean called;
        /** The value beyond which nothing has been recorded as given (see {@link Reserver}). */
        long reserved;

        State(CatalogItem.Sequence definition) {
            this.definition = definition;
            this.value = definition.start();
            this.reserved = definition.increment() > 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private final Map<Long, State> states = new HashMap<>();
    private final Reserver reserver;
    /** The session whose statement the coordinator is running. */
    private volatile Session statementSession;

    SequenceValues(Reserver reserver) {
        this.reserver = reserver;
    }

    /** The statement of {@code session} starts: currval and lastval answer for it. */
    void statementOf(Session session) {
        statementSession = session;
    }

    /** Sequence {@code q} is made, at its start. */
    synchronized void created(CatalogItem.Sequence q) {
        states.put(q.id(), new State(q));
    }

    /** Sequence {@code id} is dropped. */
    synchronized void dropped(long id) {
        states.remove(id);
    }

    /** After a restart: values up to {@code through} of sequence {@code id} may have been given; the next is after it. */
    synchronized void recovered(long id, long through) {
        State s = states.get(id);
        if (s == null) return;
        s.value = through;
        s.called = true;
        s.reserved = through;
    }

    @Override
    public synchronized long next(long id) {
        State s = state(id);
        CatalogItem.Sequence q = s.definition;
        long v;
        if (!s.called) {
            v = s.value;
        } else {
            long step = q.increment();
            boolean past = step > 0 ? s.value > q.max() - step : s.value < q.min() - step;
            if (past) {
                if (!q.cycle()) {
                    throw new SqlException("2200H", "nextval: reached " + (step > 0 ? "maximum" : "minimum") + " value of sequence \"" + q.name() + "\" ("
                            + (step > 0 ? q.max() : q.min()) + ")");
                }
                v = step > 0 ? q.min() : q.max();
            } else {
                v = s.value + step;
            }
        }
        if (q.increment() > 0 ? v > s.reserved : v < s.reserved) {
            long through = q.increment() > 0 ? Math.min(q.max(), v + RESERVE * q.increment()) : Math.max(q.min(), v + RESERVE * q.increment());
            reserver.reserve(id, through);
            s.reserved = through;
        }
        s.value = v;
        s.called = true;
        Session session = statementSession;
        if (session != null) {
            session.sequenceValues.put(id, v);
            session.lastSequenceValue = v;
        }
        return v;
    }

    @Override
    public synchronized long current(long id) {
        State s = state(id);
        Session session = statementSession;
        Long v = session == null ? null : session.sequenceValues.get(id);
        if (v == null) throw new SqlException("55000", "currval of sequence \"" + s.definition.name() + "\" is not yet defined in this session");
        return v;
    }

    @Override
    public synchronized long last() {
        Session session = statementSession;
        if (session == null || session.lastSequenceValue == null) throw new SqlException("55000", "lastval is not yet defined in this session");
        return session.lastSequenceValue;
    }

    @Override
    public synchronized Object[] read(long id) {
        State s = state(id);
        return new Object[] {s.value, 0L, s.called};
    }

    @Override
    public synchronized long set(long id, long value, boolean called) {
        State s = state(id);
        CatalogItem.Sequence q = s.definition;
        if (value < q.min() || value > q.max()) {
            throw new SqlException("22003", "setval: value " + value + " is out of bounds for sequence \"" + q.name() + "\" (" + q.min() + ".." + q.max() + ")");
        }
        // set back or forth, it is recorded as given: a restart resumes after it
        reserver.reserve(id, value);
        s.reserved = value;
        s.value = value;
        s.called = called;
        return value;
    }

    private State state(long id) {
        State s = states.get(id);
        if (s == null) throw new SqlException("42P01", "the sequence was dropped");
        return s;
    }
}
