package dev.tributary.server;

import dev.tributary.sql.SqlException;

/**
 * The source of system time, in milliseconds since the epoch: the wall clock, or a manual clock
 * for tests and demos that moves only when told to ({@code ADVANCE CLOCK}).
 */
public sealed interface Clock {
    long now();

    static Clock wall() {
        return new Wall();
    }

    static Clock manual(long start) {
        return new Manual(start);
    }

    /** The wall clock; it cannot be advanced by hand. */
    final class Wall implements Clock {
        @Override
        public long now() {
            return System.currentTimeMillis();
        }
    }

    /** A clock that stands still until advanced; it never moves backwards. */
    final class Manual implements Clock {
        private long now;

        Manual(long start) {
            now = start;
        }

        @Override
        public synchronized long now() {
            return now;
        }

        /** Moves the clock to {@code to}; 22023 if that is in its past. */
        public synchronized void advanceTo(long to) {
            if (to < now) {
                throw new SqlException("22023", "cannot move the clock backwards from " + now + " to " + to + " (milliseconds since the epoch)");
            }
            now = to;
        }
    }
}
