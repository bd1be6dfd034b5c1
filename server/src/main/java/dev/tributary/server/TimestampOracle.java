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

    TimestampOracle(Clock clock) {
        this.clock = clock;
    }

    Clock clock() {
        return clock;
    }

    synchronized long writeTime() {
        long t = Math.max(clock.now(), Math.max(lastWrite, lastRead) + 1);
        lastWrite = t;
        return t;
    }

    synchronized long readTime() {
        long t = Math.max(clock.now(), Math.max(lastWrite, lastRead));
        lastRead = t;
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
        return Math.max(lastWrite, lastRead) + 1;
    }
}
