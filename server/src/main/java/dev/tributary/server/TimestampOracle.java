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
    private long lastWrite = -1;
    private long lastRead = -1;
    /** The latest time the inputs were moved past by {@link #advanceTime} (the clock's ticks), not handed to any read. */
    private long lastAdvance = -1;

    /** Where handed-out times are reserved durably before use (null: in memory, nothing to reserve). */
    private java.util.function.LongUnaryOperator reserve;
    private long reserved = Long.MAX_VALUE;
    /**
     * How far past the time handed out a reservation reaches: one durable write per this many
     * ticks of the clock (a second of the wall clock), and after a restart times may run at most
     * this far ahead of the clock until it catches up.
     */
    static final long RESERVE_AHEAD = 1_000;

    TimestampOracle(Clock clock) {
        this.clock = clock;
    }

    /**
     * Makes the oracle durable: it hands out nothing before {@code floor} (the times an earlier
     * run used end below it), and reserves times through {@code reserve} before handing them out.
     */
    synchronized void recovered(long floor, java.util.function.LongUnaryOperator reserve) {
        lastAdvance = Math.max(lastAdvance, floor - 1);
        this.reserve = reserve;
        this.reserved = reserve.applyAsLong(latest() + RESERVE_AHEAD);
    }

    private long handOut(long t) {
        if (t > reserved) reserved = reserve.applyAsLong(t + RESERVE_AHEAD);
        return t;
    }

    Clock clock() {
        return clock;
    }

    private long latest() {
        return Math.max(Math.max(lastWrite, lastRead), lastAdvance);
    }

    synchronized long writeTime() {
        return writeTime(Long.MIN_VALUE);
    }

    /**
     * {@link #writeTime()}, and at least {@code atLeast}: the time the written tables' inputs were
     * already moved to (a DDL statement moves a new table's input to where the others are, which
     * no read or write of this oracle need have reached), since a write there would otherwise be
     * made at a later time than the one its readers are given.
     */
    synchronized long writeTime(long atLeast) {
        long t = handOut(Math.max(Math.max(clock.now(), latest() + 1), atLeast));
        lastWrite = t;
        return t;
    }

    /** Each table's latest write time (absent: none since it was created); read without the lock by point reads. */
    private final java.util.concurrent.ConcurrentHashMap<Long, Long> lastWriteOf = new java.util.concurrent.ConcurrentHashMap<>();

    /** Records that {@code table} was written at {@code time}, a time {@link #writeTime} gave. */
    void wrote(long table, long time) {
        lastWriteOf.merge(table, time, Math::max);
    }

    /**
     * The latest write to any of {@code tables}: a read of them at or after it sees every write to
     * them committed so far, and the same rows as at any later time until their next write.
     * Lock-free, for point reads that pick their own time.
     */
    long lastWrite(long[] tables) {
        long t = -1;
        for (long id : tables) t = Math.max(t, lastWriteOf.getOrDefault(id, -1L));
        return t;
    }

    synchronized long readTime() {
        long t = handOut(Math.max(clock.now(), latest()));
        lastRead = t;
        return t;
    }

    /**
     * A read time for an answer that cannot change without a write (no use of the clock, no
     * temporal filter): the latest time decided, not the clock's. Every write committed so far is
     * at or before it, and the inputs are complete through it already, so a read there moves no
     * input forward: its cost does not grow with the dataflows the inputs feed.
     */
    synchronized long readTimeOfData() {
        long latest = latest();
        long t = handOut(latest < 0 ? clock.now() : latest);
        lastRead = Math.max(lastRead, t);
        return t;
    }

    /**
     * A time to complete the inputs through (they are advanced to it + 1) without handing it to
     * a read, for the clock's ticks: later writes get later times, as after a read, but point
     * reads ({@link #lastWrite(long[])}) need not wait for the indexes to reach it, since nothing
     * was promised at it.
     */
    synchronized long advanceTime() {
        long t = handOut(Math.max(clock.now(), latest()));
        lastAdvance = t;
        return t;
    }

    /** The time up to which everything is decided: nothing will be written at or before it. */
    synchronized long upper() {
        return latest() + 1;
    }
}
