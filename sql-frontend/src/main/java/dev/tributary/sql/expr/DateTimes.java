package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.time.temporal.JulianFields;
import java.util.Locale;

/**
 * Date, time and interval arithmetic, {@code extract}/{@code date_part} and {@code date_trunc}
 * as PostgreSQL 15 computes them (session time zone UTC, so TIMESTAMPTZ behaves as TIMESTAMP).
 *
 * <p>Adding an interval adds months first (clamping the day to the month's end), then days, then
 * microseconds. A timestamp difference is an interval of days and time, no months
 * ({@code justify_hours}).
 */
public final class DateTimes {
    private DateTimes() {}

    private static SqlException intervalOutOfRange() {
        return new SqlException("22008", "interval out of range");
    }

    private static SqlException timestampOutOfRange() {
        return new SqlException("22008", "timestamp out of range");
    }

    private static int toInt(long v) {
        if (v != (int) v) throw intervalOutOfRange();
        return (int) v;
    }

    // ------------------------------------------------------------------------- arithmetic

    /** {@code ts + iv}; an infinite timestamp stays as it is. */
    public static LocalDateTime plus(LocalDateTime ts, Interval iv) {
        if (!InfiniteTimes.isFinite(ts)) return ts;
        try {
            return ts.plusMonths(iv.months()).plusDays(iv.days()).plus(iv.micros(), ChronoUnit.MICROS);
        } catch (DateTimeException | ArithmeticException e) {
            throw timestampOutOfRange();
        }
    }

    public static LocalDateTime minus(LocalDateTime ts, Interval iv) {
        return plus(ts, negate(iv));
    }

    public static Interval difference(LocalDateTime a, LocalDateTime b) {
        if (!InfiniteTimes.isFinite(a) || !InfiniteTimes.isFinite(b)) throw new SqlException("22008", "cannot subtract infinite timestamps");
        long us = ChronoUnit.MICROS.between(b, a);
        return new Interval(0, toInt(us / Interval.MICROS_PER_DAY), us % Interval.MICROS_PER_DAY);
    }

    /** {@code d + days}; an infinite date stays as it is. */
    public static LocalDate plusDays(LocalDate d, long days) {
        if (!InfiniteTimes.isFinite(d)) return d;
        try {
            return d.plusDays(days);
        } catch (DateTimeException e) {
            throw new SqlException("22008", "date out of range");
        }
    }

    /** {@code a - b} in days; 22008 for an infinite date. */
    public static long daysBetween(LocalDate b, LocalDate a) {
        if (!InfiniteTimes.isFinite(a) || !InfiniteTimes.isFinite(b)) throw new SqlException("22008", "cannot subtract infinite dates");
        return ChronoUnit.DAYS.between(b, a);
    }

    /** {@code date + time}: an infinite date gives the infinite timestamp of its sign. */
    public static LocalDateTime atTime(LocalDate d, LocalTime t) {
        return InfiniteTimes.isFinite(d) ? d.atTime(t) : InfiniteTimes.atStartOfDay(d);
    }

    public static LocalTime plus(LocalTime t, Interval iv) {
        long us = Math.floorMod(t.toNanoOfDay() / 1000 + iv.micros() % Interval.MICROS_PER_DAY, Interval.MICROS_PER_DAY);
        return LocalTime.ofNanoOfDay(us * 1000);
    }

    public static Interval negate(Interval iv) {
        if (iv.months() == Integer.MIN_VALUE || iv.days() == Integer.MIN_VALUE || iv.micros() == Long.MIN_VALUE) {
            throw intervalOutOfRange();
        }
        return new Interval(-iv.months(), -iv.days(), -iv.micros());
    }

    public static Interval add(Interval a, Interval b) {
        try {
            return new Interval(toInt((long) a.months() + b.months()), toInt((long) a.days() + b.days()),
                    Math.addExact(a.micros(), b.micros()));
        } catch (ArithmeticException e) {
            throw intervalOutOfRange();
        }
    }

    public static Interval subtract(Interval a, Interval b) {
        return add(a, negate(b));
    }

    private static double tsRound(double d) {
        return Math.rint(d * 1e6) / 1e6;
    }

    /** {@code interval_mul}: fractional months spill into days (30 per month), fractional days into time. */
    public static Interval multiply(Interval iv, double factor) {
        double m = iv.months() * factor, d = iv.days() * factor;
        if (Double.isNaN(m) || Math.abs(m) > Integer.MAX_VALUE || Math.abs(d) > Integer.MAX_VALUE) throw intervalOutOfRange();
        int months = (int) m;
        int days = (int) d;
        double monthRemainderDays = tsRound((m - months) * 30);
        double secRemainder = tsRound((d - days + monthRemainderDays - (int) monthRemainderDays) * 86400);
        if (Math.abs(secRemainder) >= 86400) {
            days += (int) (secRemainder / 86400);
            secRemainder -= (int) (secRemainder / 86400) * 86400.0;
        }
        days += (int) monthRemainderDays;
        double t = Math.rint(iv.micros() * factor + secRemainder * 1e6);
        if (Double.isNaN(t) || Math.abs(t) >= 9.2e18) throw intervalOutOfRange();
        return new Interval(months, days, (long) t);
    }

    /** {@code interval_div}. */
    public static Interval divide(Interval iv, double factor) {
        if (factor == 0) throw Numerics.divisionByZero();
        double m = iv.months() / factor, d = iv.days() / factor;
        if (Double.isNaN(m) || Math.abs(m) > Integer.MAX_VALUE || Math.abs(d) > Integer.MAX_VALUE) throw intervalOutOfRange();
        int months = (int) m;
        int days = (int) d;
        double monthRemainderDays = tsRound((m - months) * 30);
        double secRemainder = tsRound((d - days + monthRemainderDays - (int) monthRemainderDays) * 86400);
        if (Math.abs(secRemainder) >= 86400) {
            days += (int) (secRemainder / 86400);
            secRemainder -= (int) (secRemainder / 86400) * 86400.0;
        }
        days += (int) monthRemainderDays;
        double t = Math.rint(iv.micros() / factor + secRemainder * 1e6);
        if (Double.isNaN(t) || Math.abs(t) >= 9.2e18) throw intervalOutOfRange();
        return new Interval(months, days, (long) t);
    }

    // ---------------------------------------------------------------------------- fields

    /** The canonical name of a unit as PostgreSQL's {@code DecodeUnits} reads it, or the input lower-cased. */
    static String unit(String field) {
        String f = field.strip().toLowerCase(Locale.ROOT);
        return switch (f) {
            case "microsecond", "microseconds", "us", "usec", "usecs", "microsecon" -> "microseconds";
            case "millisecond", "milliseconds", "ms", "msec", "msecs", "millisecon" -> "milliseconds";
            case "second", "seconds", "s", "sec", "secs" -> "second";
            case "minute", "minutes", "m", "min", "mins" -> "minute";
            case "hour", "hours", "h", "hr", "hrs" -> "hour";
            case "day", "days", "d" -> "day";
            case "week", "weeks", "w" -> "week";
            case "month", "months", "mon", "mons" -> "month";
            case "quarter", "qtr" -> "quarter";
            case "year", "years", "y", "yr", "yrs" -> "year";
            case "decade", "decades", "dec", "decs" -> "decade";
            case "century", "centuries", "c", "cent" -> "century";
            case "millennium", "millennia", "mil", "mils" -> "millennium";
            default -> f;
        };
    }

    private static boolean known(String u) {
        return switch (u) {
            case "microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter", "year",
                 "decade", "century", "millennium", "epoch", "dow", "isodow", "doy", "isoyear", "julian", "timezone",
                 "timezone_hour", "timezone_minute" -> true;
            default -> false;
        };
    }

    private static SqlException unrecognized(String field, SqlType t) {
        return new SqlException("22023", "unit \"" + field.strip().toLowerCase(Locale.ROOT) + "\" not recognized for type " + t.kind().pgName());
    }

    private static SqlException unsupported(String field, SqlType t) {
        return new SqlException("0A000", "unit \"" + field.strip().toLowerCase(Locale.ROOT) + "\" not supported for type " + t.kind().pgName());
    }

    /**
     * {@code EXTRACT(field FROM v)} for a value of type {@code t} (DATE, TIME, TIMESTAMP,
     * TIMESTAMPTZ, INTERVAL) as PostgreSQL 15's NUMERIC result: seconds with scale 6,
     * milliseconds 3, epoch 6 (0 for a date), the rest integers.
     */
    public static Object extract(String field, Object v, SqlType t) {
        String u = unit(field);
        if (!known(u)) throw unrecognized(field, t);
        int inf = InfiniteTimes.sign(v);
        if (inf != 0) return extractInfinite(u, field, inf, t);
        return switch (t.kind()) {
            case DATE -> extractDate(u, field, (LocalDate) v, t);
            case TIMESTAMP -> extractTimestamp(u, field, (LocalDateTime) v, t, false);
            case TIMESTAMPTZ -> extractTimestamp(u, field,
                    LocalDateTime.ofInstant((java.time.Instant) v, java.time.ZoneOffset.UTC), t, true);
            case TIME -> extractTime(u, field, (LocalTime) v, t);
            case INTERVAL -> extractInterval(u, field, (Interval) v, t);
            default -> throw new IllegalArgumentException("extract from " + t);
        };
    }

    /**
     * A field of an infinite date or timestamp, as PostgreSQL 15 answers: the fields that grow
     * with time (year, epoch, ...) are the infinity of the value's sign, the others NULL; a unit a
     * date does not have is still an error.
     */
    private static Object extractInfinite(String u, String field, int sign, SqlType t) {
        return switch (u) {
            case "year", "decade", "century", "millennium", "isoyear", "julian", "epoch" ->
                    sign > 0 ? NonFiniteNumeric.POSITIVE_INFINITY : NonFiniteNumeric.NEGATIVE_INFINITY;
            case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute" -> {
                if (t.kind() == Kind.DATE) throw unsupported(field, t);
                yield null;
            }
            default -> null;
        };
    }

    private static BigDecimal extractDate(String u, String field, LocalDate d, SqlType t) {
        return switch (u) {
            case "epoch" -> BigDecimal.valueOf(d.toEpochDay() * 86400L);
            case "julian" -> BigDecimal.valueOf(d.getLong(JulianFields.JULIAN_DAY));
            case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute" ->
                    throw unsupported(field, t);
            default -> BigDecimal.valueOf(dateField(u, d));
        };
    }

    private static long dateField(String u, LocalDate d) {
        int y = d.getYear();
        return switch (u) {
            case "day" -> d.getDayOfMonth();
            case "month" -> d.getMonthValue();
            case "quarter" -> (d.getMonthValue() - 1) / 3 + 1;
            case "year" -> y > 0 ? y : y - 1;
            case "decade" -> y >= 0 ? y / 10 : -((8 - (y - 1)) / 10);
            case "century" -> y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100);
            case "millennium" -> y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000);
            case "week" -> d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
            case "isoyear" -> {
                int iy = d.get(IsoFields.WEEK_BASED_YEAR);
                yield iy > 0 ? iy : iy - 1;
            }
            case "dow" -> d.getDayOfWeek().getValue() % 7;
            case "isodow" -> d.getDayOfWeek().getValue();
            case "doy" -> d.getDayOfYear();
            default -> throw new IllegalStateException(u);
        };
    }

    private static BigDecimal extractTimestamp(String u, String field, LocalDateTime ts, SqlType t, boolean tz) {
        long secMicros = ts.getSecond() * 1_000_000L + ts.getNano() / 1000;
        return switch (u) {
            case "microseconds" -> BigDecimal.valueOf(secMicros);
            case "milliseconds" -> BigDecimal.valueOf(secMicros, 3);
            case "second" -> BigDecimal.valueOf(secMicros, 6);
            case "minute" -> BigDecimal.valueOf(ts.getMinute());
            case "hour" -> BigDecimal.valueOf(ts.getHour());
            case "epoch" -> BigDecimal.valueOf(ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), ts), 6);
            case "julian" -> BigDecimal.valueOf(ts.toLocalDate().getLong(JulianFields.JULIAN_DAY))
                    .add(Numerics.divide(BigDecimal.valueOf(ts.toLocalTime().toNanoOfDay() / 1000), BigDecimal.valueOf(Interval.MICROS_PER_DAY)));
            case "timezone", "timezone_hour", "timezone_minute" -> {
                if (!tz) throw unsupported(field, t);
                yield BigDecimal.ZERO;
            }
            default -> BigDecimal.valueOf(dateField(u, ts.toLocalDate()));
        };
    }

    private static BigDecimal extractTime(String u, String field, LocalTime tm, SqlType t) {
        long secMicros = tm.getSecond() * 1_000_000L + tm.getNano() / 1000;
        return switch (u) {
            case "microseconds" -> BigDecimal.valueOf(secMicros);
            case "milliseconds" -> BigDecimal.valueOf(secMicros, 3);
            case "second" -> BigDecimal.valueOf(secMicros, 6);
            case "minute" -> BigDecimal.valueOf(tm.getMinute());
            case "hour" -> BigDecimal.valueOf(tm.getHour());
            case "epoch" -> BigDecimal.valueOf(tm.toNanoOfDay() / 1000, 6);
            default -> throw unsupported(field, t);
        };
    }

    private static BigDecimal extractInterval(String u, String field, Interval iv, SqlType t) {
        long time = iv.micros();
        long secMicros = time % 60_000_000L;
        int year = iv.months() / 12;
        return switch (u) {
            case "microseconds" -> BigDecimal.valueOf(secMicros);
            case "milliseconds" -> BigDecimal.valueOf(secMicros, 3);
            case "second" -> BigDecimal.valueOf(secMicros, 6);
            case "minute" -> BigDecimal.valueOf((time / 60_000_000L) % 60);
            case "hour" -> BigDecimal.valueOf(time / 3_600_000_000L);
            case "day" -> BigDecimal.valueOf(iv.days());
            case "month" -> BigDecimal.valueOf(iv.months() % 12);
            case "quarter" -> BigDecimal.valueOf((iv.months() % 12) / 3 + 1);
            case "year" -> BigDecimal.valueOf(year);
            case "decade" -> BigDecimal.valueOf(year / 10);
            case "century" -> BigDecimal.valueOf(year / 100);
            case "millennium" -> BigDecimal.valueOf(year / 1000);
            case "epoch" -> {
                long secs = (1461L * (iv.months() / 12) + 120L * (iv.months() % 12) + 4L * iv.days()) * (86400 / 4);
                yield BigDecimal.valueOf(secs).add(BigDecimal.valueOf(time, 6));
            }
            default -> throw unsupported(field, t);
        };
    }

    /** {@code date_part}: {@link #extract} as a double (NULL where extract is NULL). */
    public static Double datePart(String field, Object v, SqlType t) {
        return switch (extract(field, v, t)) {
            case null -> null;
            case NonFiniteNumeric n -> n.asDouble();
            case BigDecimal d -> d.doubleValue();
            default -> throw new IllegalStateException();
        };
    }

    // ------------------------------------------------------------------------------ trunc

    /** {@code date_trunc(field, ts)}. */
    public static LocalDateTime trunc(String field, LocalDateTime ts, SqlType t) {
        // PostgreSQL 15 returns an infinite timestamp without looking at the unit
        if (!InfiniteTimes.isFinite(ts)) return ts;
        String u = unit(field);
        LocalDate d = ts.toLocalDate();
        int y = d.getYear();
        return switch (u) {
            case "microseconds" -> ts;
            case "milliseconds" -> ts.withNano(ts.getNano() / 1_000_000 * 1_000_000);
            case "second" -> ts.truncatedTo(ChronoUnit.SECONDS);
            case "minute" -> ts.truncatedTo(ChronoUnit.MINUTES);
            case "hour" -> ts.truncatedTo(ChronoUnit.HOURS);
            case "day" -> d.atStartOfDay();
            case "week" -> d.with(java.time.temporal.TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).atStartOfDay();
            case "month" -> d.withDayOfMonth(1).atStartOfDay();
            case "quarter" -> LocalDate.of(y, 3 * ((d.getMonthValue() - 1) / 3) + 1, 1).atStartOfDay();
            case "year" -> LocalDate.of(y, 1, 1).atStartOfDay();
            case "decade" -> LocalDate.of(y > 0 ? (y / 10) * 10 : -((8 - (y - 1)) / 10) * 10, 1, 1).atStartOfDay();
            case "century" -> LocalDate.of(y > 0 ? ((y + 99) / 100) * 100 - 99 : -((99 - (y - 1)) / 100) * 100 + 1, 1, 1).atStartOfDay();
            case "millennium" -> LocalDate.of(y > 0 ? ((y + 999) / 1000) * 1000 - 999 : -((999 - (y - 1)) / 1000) * 1000 + 1, 1, 1)
                    .atStartOfDay();
            default -> throw known(u) ? unsupported(field, t) : unrecognized(field, t);
        };
    }

    /** {@code date_trunc(field, interval)}. */
    public static Interval trunc(String field, Interval iv) {
        String u = unit(field);
        long time = iv.micros();
        int year = iv.months() / 12, mon = iv.months() % 12;
        return switch (u) {
            case "microseconds" -> iv;
            case "milliseconds" -> new Interval(iv.months(), iv.days(), time / 1000 * 1000);
            case "second" -> new Interval(iv.months(), iv.days(), time / 1_000_000 * 1_000_000);
            case "minute" -> new Interval(iv.months(), iv.days(), time / 60_000_000L * 60_000_000L);
            case "hour" -> new Interval(iv.months(), iv.days(), time / 3_600_000_000L * 3_600_000_000L);
            case "day" -> new Interval(iv.months(), iv.days(), 0);
            case "month" -> new Interval(iv.months(), 0, 0);
            case "quarter" -> new Interval(year * 12 + 3 * (mon / 3), 0, 0);
            case "year" -> new Interval(year * 12, 0, 0);
            case "decade" -> new Interval(year / 10 * 10 * 12, 0, 0);
            case "century" -> new Interval(year / 100 * 100 * 12, 0, 0);
            case "millennium" -> new Interval(year / 1000 * 1000 * 12, 0, 0);
            case "week" -> throw new SqlException("0A000",
                    "interval units \"" + field.strip().toLowerCase(Locale.ROOT) + "\" not supported because months usually have fractional weeks");
            default -> throw known(u) ? unsupported(field, SqlType.INTERVAL) : unrecognized(field, SqlType.INTERVAL);
        };
    }

}
