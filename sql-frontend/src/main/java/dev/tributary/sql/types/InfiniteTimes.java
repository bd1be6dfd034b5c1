package dev.tributary.sql.types;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * {@code infinity} and {@code -infinity} of DATE, TIMESTAMP and TIMESTAMPTZ: the extreme values of
 * their Java types ({@link LocalDate#MAX}, {@link LocalDateTime#MIN}, ...), far outside
 * PostgreSQL's finite range, so that they order, group and join correctly with no special case.
 *
 * <p>TIMESTAMPTZ's are {@link LocalDateTime#MAX}/{@link LocalDateTime#MIN} at UTC (not
 * {@link Instant#MAX}), so a conversion between TIMESTAMP and TIMESTAMPTZ at UTC maps infinity to
 * infinity by itself. A DATE's start of day is not TIMESTAMP's infinity: use {@link #atStartOfDay}.
 * Arithmetic must not reach Java's range checks: callers test {@link #sign} first.
 */
public final class InfiniteTimes {
    private InfiniteTimes() {}

    public static final Instant INSTANT_MAX = LocalDateTime.MAX.toInstant(ZoneOffset.UTC);
    public static final Instant INSTANT_MIN = LocalDateTime.MIN.toInstant(ZoneOffset.UTC);

    /** 1 for infinity, -1 for -infinity, 0 for a finite DATE, TIMESTAMP or TIMESTAMPTZ value (or anything else). */
    public static int sign(Object v) {
        return switch (v) {
            case LocalDate d -> d.equals(LocalDate.MAX) ? 1 : d.equals(LocalDate.MIN) ? -1 : 0;
            case LocalDateTime t -> t.equals(LocalDateTime.MAX) ? 1 : t.equals(LocalDateTime.MIN) ? -1 : 0;
            case Instant i -> i.equals(INSTANT_MAX) ? 1 : i.equals(INSTANT_MIN) ? -1 : 0;
            case null, default -> 0;
        };
    }

    public static boolean isFinite(Object v) {
        return sign(v) == 0;
    }

    /** The infinity of {@code sign} (1 or -1) of a DATE, TIMESTAMP or TIMESTAMPTZ. */
    public static Object of(SqlType.Kind kind, int sign) {
        return switch (kind) {
            case DATE -> sign > 0 ? LocalDate.MAX : LocalDate.MIN;
            case TIMESTAMP -> sign > 0 ? LocalDateTime.MAX : LocalDateTime.MIN;
            case TIMESTAMPTZ -> sign > 0 ? INSTANT_MAX : INSTANT_MIN;
            default -> throw new IllegalArgumentException(kind + " has no infinity");
        };
    }

    /** The date at midnight, infinity staying infinity. */
    public static LocalDateTime atStartOfDay(LocalDate d) {
        int s = sign(d);
        return s == 0 ? d.atStartOfDay() : s > 0 ? LocalDateTime.MAX : LocalDateTime.MIN;
    }

    /** The timestamp's date, infinity staying infinity. */
    public static LocalDate toLocalDate(LocalDateTime t) {
        int s = sign(t);
        return s == 0 ? t.toLocalDate() : s > 0 ? LocalDate.MAX : LocalDate.MIN;
    }

    /** {@code "infinity"} or {@code "-infinity"} as PostgreSQL prints them, or null for a finite value. */
    public static String text(Object v) {
        int s = sign(v);
        return s == 0 ? null : s > 0 ? "infinity" : "-infinity";
    }
}
