package dev.tributary.server;

/**
 * Hands out the times at which transactions commit and reads happen.
 *
 * <p>Invariants: write times strictly increase; a read happens at a time at or after every
 * earlier write (so a session reads its own writes), and every later write gets a greater time
 * than any earlier read (so a read's answer is final: nothing can still arrive at or before it).
 */
final class TimestampOracle {
    private final Clock clock;
    // written under the lock, read without it by decided()
    private volatile long lastWrite = -1;
    private volatile long lastRead = -1;
    /** The latest time the inputs were moved past by {@link #advanceTime} (the clock's ticks), not handed to any read. */
    private long lastAdvance = -1;

    TimestampOracle(Clock clock) {
        this.clock = clock;
    }

    Clock clock() {
        return clock;
    }

    private long latest() {
        return Math.max(Math.max(lastWrite, lastRead), lastAdvance);
    }

    synchronized long writeTime() {
        long t = Math.max(clock.now(), latest() + 1);
        lastWrite = t;
        return t;
    }

    synchronized long readTime() {
        long t = Math.max(clock.now(), latest());
        lastRead = t;
        return t;
    }

    /**
     * A time to complete the inputs through (they are advanced to it + 1) without handing it to
     * a read, for the clock's ticks: later writes get later times, as after a read, but point
     * reads ({@link #decided}) need not wait for the indexes to reach it, since nothing was
     * promised at it.
     */
    synchronized long advanceTime() {
        long t = Math.max(clock.now(), latest());
        lastAdvance = t;
        return t;
    }

    /**
     * The latest time handed out, to a write or a read: a read at or after it sees every write
     * committed so far and nothing any earlier read has not. Lock-free, for point reads that pick
     * their own time (see {@link Coordinator}).
     */
    long decided() {
        return Math.max(lastWrite, lastRead);
    }

    /** The time up to which everything is decided: nothing will be written at or before it. */
    synchronized long upper() {
        return latest() + 1;
    }
}
