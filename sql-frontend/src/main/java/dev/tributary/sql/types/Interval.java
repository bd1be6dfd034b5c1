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
