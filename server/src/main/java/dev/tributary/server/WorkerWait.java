package dev.tributary.server;

import dev.tributary.sql.SqlException;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A statement's wait for work the workers complete (a read's parts, a build's hydration) with the
 * coordinator free meanwhile: while it waits in the coordinator's monitor, other sessions'
 * statements (writes included, at later times) run, and the workers step them between its steps.
 * What the waiting statement holds (its read time, its dataflow's imports, whose handles keep
 * their history) does not depend on the lock.
 */
final class WorkerWait {
    /** The coordinator, whose monitor a waiting statement lets go of. */
    private final Object monitor;
    /** Whether the database closed: a wait then ends with 57P01. */
    private final BooleanSupplier closed;

    WorkerWait(Object monitor, BooleanSupplier closed) {
        this.monitor = monitor;
        this.closed = closed;
    }

    /**
     * Waits until {@code done} (completed by a worker) is, with the coordinator's monitor released
     * meanwhile (if held), running {@code eachTurn} at every look; 57P01 if the database closes.
     */
    void await(Future<?> done, Runnable eachTurn) {
        for (int spins = 0; !done.isDone(); spins++) {
            if (closed.getAsBoolean()) throw new SqlException("57P01", "terminating connection due to administrator command");
            eachTurn.run();
            if (spins < 200) {
                Thread.onSpinWait();
                continue;
            }
            try {
                if (Thread.holdsLock(monitor)) monitor.wait(1);
                else LockSupport.parkNanos(1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SqlException("57014", "canceling statement: the server is shutting down");
            }
        }
    }
}
