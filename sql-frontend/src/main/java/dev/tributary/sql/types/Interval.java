package dev.tributary.sql.types;

/**
 * An INTERVAL value as PostgreSQL keeps it: months, days and microseconds, each signed and kept
 * apart (a month is not a fixed number of days, nor a day a fixed number of microseconds across
 * daylight-saving changes).
 *
 * <p>Ordering and equality follow PostgreSQL: intervals compare by their span with a month as
 * 30 days and a day as 24 hours, so {@code '1 month'} equals {@code '30 days'}.
 */
public record Interval(int months, int days, long micros) implements Comparable<Interval> {
    public static final long MICROS_PER_DAY = 86_400_000_000L;

    /** The span in microseconds with PostgreSQL's 30-day months, as a 128-bit-safe comparison key. */
    private java.math.BigInteger span() {
        return java.math.BigInteger.valueOf(months * 30L + days).multiply(java.math.BigInteger.valueOf(MICROS_PER_DAY))
                .add(java.math.BigInteger.valueOf(micros));
    }

    /**
     * The one interval of this one's equality class that keys use (see
     * {@link dev.tributary.sql.row.Keys#normalize}): no months, and micros carrying the span's
     * sign and under a day in magnitude, except where the days would not fit an int (then months
     * take whole 30-day blocks, and at the very ends of the range micros take whole days).
     */
    public Interval keyForm() {
        java.math.BigInteger[] dm = span().divideAndRemainder(java.math.BigInteger.valueOf(MICROS_PER_DAY));
        long d = dm[0].longValueExact();
        long us = dm[1].longValueExact();
        if (d == (int) d) return months == 0 && days == d && micros == us ? this : new Interval(0, (int) d, us);
        long m = clampToInt(d / 30);
        long rest = d - 30 * m;
        long restDays = clampToInt(rest);
        return new Interval((int) m, (int) restDays, Math.addExact(us, Math.multiplyExact(rest - restDays, MICROS_PER_DAY)));
    }

    private static long clampToInt(long v) {
        return Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    @Override
    public int compareTo(Interval o) {
        return span().compareTo(o.span());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Interval i && compareTo(i) == 0;
    }

    @Override
    public int hashCode() {
        return span().hashCode();
    }
}
