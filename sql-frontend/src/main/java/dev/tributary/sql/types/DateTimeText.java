package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL input syntax for dates, times, timestamps and intervals, the common subset of what
 * {@code date_in}, {@code time_in}, {@code timestamp_in} and {@code interval_in} accept with
 * {@code DateStyle = ISO, MDY}: ISO dates ({@code 2024-01-02}, {@code 20240102}), US dates
 * ({@code 1/2/2024}), {@code BC}, a time with optional fraction and AM/PM, a zone as
 * {@code Z}/{@code UTC}/{@code +hh[:mm]} or a region name; intervals in the postgres and verbose
 * styles ({@code 1 year 2 mons 3 days 04:05:06}, {@code @ 1 day ago}) and ISO 8601 ({@code P1Y2M}).
 *
 * <p>Malformed text is 22007; a well-formed field out of its range ({@code 2024-02-30}) is 22008.
 */
final class DateTimeText {
    private DateTimeText() {}

    private static final Pattern ISO_DATE = Pattern.compile("(\\d{1,7})-(\\d{1,2})-(\\d{1,2})");
    private static final Pattern COMPACT_DATE = Pattern.compile("(\\d{4})(\\d{2})(\\d{2})");
    private static final Pattern US_DATE = Pattern.compile("(\\d{1,2})/(\\d{1,2})/(\\d{1,7})");
    private static final Pattern TIME = Pattern.compile(
            "(\\d{1,2}):(\\d{2})(?::(\\d{2})(\\.\\d*)?)?(?:\\s*(am|pm))?");
    private static final Pattern ZONE = Pattern.compile("(?:z|utc|gmt|([+-])(\\d{1,2})(?::?(\\d{2}))?)");

    /** The parts of a date/time string: a date, a time, a zone offset in seconds (or null), BC. */
    private record Parts(LocalDate date, LocalTime time, Integer offsetSeconds, ZoneId zone) {}

    /** 1 for {@code infinity}, -1 for {@code -infinity} (any case, blanks around), 0 for anything else. */
    private static int infinity(String s) {
        String v = s.strip();
        if (v.equalsIgnoreCase("infinity")) return 1;
        if (v.equalsIgnoreCase("-infinity")) return -1;
        return 0;
    }

    static LocalDate parseDate(String s) {
        int inf = infinity(s);
        if (inf != 0) return (LocalDate) InfiniteTimes.of(SqlType.Kind.DATE, inf);
        Parts p = parse(s, SqlType.DATE, true, false);
        return p.date;
    }

    static LocalTime parseTime(String s) {
        Parts p = parse(s, SqlType.TIME, false, true);
        return p.time == null ? LocalTime.MIDNIGHT : p.time;
    }

    static LocalDateTime parseTimestamp(String s) {
        if (withoutZone(s)) {
            // PostgreSQL's own output form, without the regular expressions (as isoTimestamptz)
            Instant fast = isoTimestamptz(s);
            if (fast != null) return LocalDateTime.ofEpochSecond(fast.getEpochSecond(), fast.getNano(), ZoneOffset.UTC);
        }
        return parseTimestampGenerally(s);
    }

    /** {@link #parseTimestamp} by the general path, for any form PostgreSQL accepts. */
    static LocalDateTime parseTimestampGenerally(String s) {
        int inf = infinity(s);
        if (inf != 0) return (LocalDateTime) InfiniteTimes.of(SqlType.Kind.TIMESTAMP, inf);
        Parts p = parse(s, SqlType.TIMESTAMP, true, false);
        return p.date.atTime(p.time == null ? LocalTime.MIDNIGHT : p.time);
    }

    static Instant parseTimestamptz(String s) {
        Instant fast = isoTimestamptz(s);
        return fast != null ? fast : parseTimestamptzGenerally(s);
    }

    /** {@link #parseTimestamptz} by the general path, for any form PostgreSQL accepts. */
    static Instant parseTimestamptzGenerally(String s) {
        int inf = infinity(s);
        if (inf != 0) return (Instant) InfiniteTimes.of(SqlType.Kind.TIMESTAMPTZ, inf);
        Parts p = parse(s, SqlType.TIMESTAMPTZ, true, false);
        LocalDateTime ldt = p.date.atTime(p.time == null ? LocalTime.MIDNIGHT : p.time);
        if (p.zone != null) return ldt.atZone(p.zone).toInstant();
        int off = p.offsetSeconds == null ? 0 : p.offsetSeconds;
        return ldt.toInstant(ZoneOffset.UTC).minusSeconds(off);
    }

    /**
     * {@code s} read without regular expressions when it is exactly PostgreSQL's own output form,
     * {@code YYYY-MM-DD HH:MM:SS[.f{1,6}][+HH[:MM]]} (or with a {@code T}, or {@code Z}): what
     * COPY and drivers send almost always, parsed at a tenth of the general path's cost. Null
     * for anything else (other forms, out-of-range fields), which the general path reads or
     * reports.
     */
    static Instant isoTimestamptz(String s) {
        int n = s.length();
        if (n < 19 || s.charAt(4) != '-' || s.charAt(7) != '-' || (s.charAt(10) != ' ' && s.charAt(10) != 'T') || s.charAt(13) != ':' || s.charAt(16) != ':') return null;
        int year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
        int hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
        if (year < 1 || month < 1 || month > 12 || day < 1 || day > 28 && day > java.time.YearMonth.of(year, month).lengthOfMonth()
                || hour > 23 || minute > 59 || second > 59) return null;
        int i = 19;
        int nanos = 0;
        if (i < n && s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && i - start < 6 && Character.isDigit(s.charAt(i))) nanos = nanos * 10 + (s.charAt(i++) - '0');
            if (i == start || (i < n && Character.isDigit(s.charAt(i)))) return null;
            for (int k = i - start; k < 9; k++) nanos *= 10;
        }
        int offset = 0;
        if (i < n) {
            char sign = s.charAt(i);
            if (sign == 'Z' && i + 1 == n) {
                i++;
            } else if ((sign == '+' || sign == '-') && i + 3 <= n) {
                int oh = digits(s, i + 1, 2);
                int om = 0;
                i += 3;
                if (i < n) {
                    if (s.charAt(i) != ':' || i + 3 != n) return null;
                    om = digits(s, i + 1, 2);
                    i += 3;
                }
                if (oh < 0 || om < 0 || oh > 15 || om > 59) return null;
                offset = (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
            } else {
                return null;
            }
        }
        if (i != n || (year | month | day | hour | minute | second) < 0) return null;
        long days = java.time.LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(days * 86400 + hour * 3600L + minute * 60L + second - offset, nanos);
    }

    /** Whether {@code s} ends, after its 19 characters of date and time, in nothing but a fraction: no zone for a timestamp to drop. */
    private static boolean withoutZone(String s) {
        for (int i = 19; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) return false;
        }
        return s.length() >= 19;
    }

    /** The number written by the {@code count} ASCII digits of {@code s} from {@code from}, or -1 if one is not a digit. */
    private static int digits(String s, int from, int count) {
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static Parts parse(String s, SqlType t, boolean needDate, boolean timeOnly) {
        String v = s.strip().toLowerCase(Locale.ROOT);
        if (v.equals("epoch") && !timeOnly) return new Parts(LocalDate.of(1970, 1, 1), null, null, null);
        LocalDate date = null;
        LocalTime time = null;
        Integer offset = null;
        ZoneId zone = null;
        boolean bc = false;
        if (!timeOnly) {
            Matcher m;
            int y, mo, d;
            if ((m = ISO_DATE.matcher(v)).lookingAt()) {
                y = Integer.parseInt(m.group(1));
                mo = Integer.parseInt(m.group(2));
                d = Integer.parseInt(m.group(3));
            } else if ((m = COMPACT_DATE.matcher(v)).lookingAt() && (m.end() == v.length() || !Character.isDigit(v.charAt(m.end())))) {
                y = Integer.parseInt(m.group(1));
                mo = Integer.parseInt(m.group(2));
                d = Integer.parseInt(m.group(3));
            } else if ((m = US_DATE.matcher(v)).lookingAt()) {
                mo = Integer.parseInt(m.group(1));
                d = Integer.parseInt(m.group(2));
                y = Integer.parseInt(m.group(3));
                if (m.group(3).length() <= 2) y += y < 70 ? 2000 : 1900;
            } else {
                throw Values.invalidSyntax(t, s);
            }
            String rest = v.substring(m.end());
            if (!rest.isEmpty() && !Character.isWhitespace(rest.charAt(0)) && rest.charAt(0) != 't') {
                throw Values.invalidSyntax(t, s);
            }
            if (rest.startsWith("t")) rest = rest.substring(1);
            rest = rest.strip();
            if (rest.equals("bc") || rest.endsWith(" bc")) {
                bc = true;
                rest = rest.substring(0, rest.length() - 2).strip();
            } else if (rest.equals("ad") || rest.endsWith(" ad")) {
                rest = rest.substring(0, rest.length() - 2).strip();
            }
            if (y == 0 && bc) throw outOfRange(s);
            try {
                date = LocalDate.of(bc ? 1 - y : y, mo, d);
            } catch (DateTimeException e) {
                throw outOfRange(s);
            }
            v = rest;
        }
        if (!v.isEmpty()) {
            Matcher m = TIME.matcher(v);
            if (m.lookingAt()) {
                int h = Integer.parseInt(m.group(1));
                int mi = Integer.parseInt(m.group(2));
                int sec = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
                long micros = 0;
                if (m.group(4) != null && m.group(4).length() > 1) {
                    micros = new BigDecimal("0" + m.group(4)).movePointRight(6).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
                }
                if (m.group(5) != null) {
                    if (h < 1 || h > 12) throw outOfRange(s);
                    if (m.group(5).equals("am") && h == 12) h = 0;
                    else if (m.group(5).equals("pm") && h != 12) h += 12;
                }
                if (h > 23 || mi > 59 || sec > 59) throw outOfRange(s);
                long total = ((h * 60L + mi) * 60 + sec) * 1_000_000L + micros;
                if (total >= Interval.MICROS_PER_DAY) throw outOfRange(s);
                time = LocalTime.ofNanoOfDay(total * 1000);
                v = v.substring(m.end()).strip();
            }
            if (!v.isEmpty()) {
                Matcher z = ZONE.matcher(v);
                if (z.matches()) {
                    if (z.group(1) == null) {
                        offset = 0;
                    } else {
                        int oh = Integer.parseInt(z.group(2));
                        int om = z.group(3) == null ? 0 : Integer.parseInt(z.group(3));
                        if (oh > 15 || om > 59) throw outOfRange(s);
                        offset = (z.group(1).equals("-") ? -1 : 1) * (oh * 3600 + om * 60);
                    }
                } else {
                    try {
                        zone = ZoneId.of(s.strip().substring(s.strip().length() - v.length()));
                    } catch (DateTimeException e) {
                        throw Values.invalidSyntax(t, s);
                    }
                }
            }
        }
        if (timeOnly && time == null) throw Values.invalidSyntax(t, s);
        return new Parts(date, time, offset, zone);
    }

    private static SqlException outOfRange(String s) {
        return new SqlException("22008", "date/time field value out of range: \"" + s + "\"");
    }

    // ------------------------------------------------------------------------------ interval

    private static final Pattern NUMBER_UNIT = Pattern.compile("([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))\\s*([a-z]*)");
    private static final Pattern TIME_PART = Pattern.compile("([+-]?)(\\d+):(\\d+)(?::(\\d+(?:\\.\\d*)?))?");
    private static final Pattern ISO = Pattern.compile(
            "p(?:([+-]?[\\d.]+)y)?(?:([+-]?[\\d.]+)m)?(?:([+-]?[\\d.]+)w)?(?:([+-]?[\\d.]+)d)?"
                    + "(?:t(?:([+-]?[\\d.]+)h)?(?:([+-]?[\\d.]+)m)?(?:([+-]?[\\d.]+)s)?)?");

    /** Accumulates an interval's fields as PostgreSQL does: fractions spill into smaller units. */
    private static final class Acc {
        long months;
        long days;
        BigDecimal micros = BigDecimal.ZERO;

        void add(BigDecimal n, String unit, SqlType t, String s) {
            switch (unit) {
                case "microsecond", "microseconds", "us", "usec", "usecs", "microsecon" -> micros = micros.add(n);
                case "millisecond", "milliseconds", "ms", "msec", "msecs", "millisecon" -> micros = micros.add(n.movePointRight(3));
                case "second", "seconds", "s", "sec", "secs", "" -> micros = micros.add(n.movePointRight(6));
                case "minute", "minutes", "m", "min", "mins" -> micros = micros.add(n.multiply(BigDecimal.valueOf(60_000_000L)));
                case "hour", "hours", "h", "hr", "hrs" -> micros = micros.add(n.multiply(BigDecimal.valueOf(3_600_000_000L)));
                case "day", "days", "d" -> addDays(n);
                case "week", "weeks", "w" -> addDays(n.multiply(BigDecimal.valueOf(7)));
                case "month", "months", "mon", "mons" -> addMonths(n);
                case "year", "years", "y", "yr", "yrs" -> addYears(n, 1);
                case "decade", "decades", "dec", "decs" -> addYears(n, 10);
                case "century", "centuries", "c", "cent" -> addYears(n, 100);
                case "millennium", "millennia", "mil", "mils" -> addYears(n, 1000);
                default -> throw Values.invalidSyntax(t, s);
            }
        }

        void addDays(BigDecimal n) {
            BigDecimal whole = n.setScale(0, RoundingMode.DOWN);
            days += whole.longValueExact();
            micros = micros.add(n.subtract(whole).multiply(BigDecimal.valueOf(Interval.MICROS_PER_DAY)));
        }

        void addMonths(BigDecimal n) {
            BigDecimal whole = n.setScale(0, RoundingMode.DOWN);
            months += whole.longValueExact();
            addDays(n.subtract(whole).multiply(BigDecimal.valueOf(30)));
        }

        void addYears(BigDecimal n, int factor) {
            months += n.multiply(BigDecimal.valueOf(12L * factor)).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        }

        Interval toInterval(boolean negate, String s) {
            long us = micros.setScale(0, RoundingMode.HALF_EVEN).longValueExact();
            long m = negate ? -months : months, d = negate ? -days : days;
            if (negate) us = -us;
            if (m != (int) m || d != (int) d) throw new SqlException("22015", "interval field value out of range: \"" + s + "\"");
            return new Interval((int) m, (int) d, us);
        }
    }

    static Interval parseInterval(String s) {
        SqlType t = SqlType.INTERVAL;
        String v = s.strip().toLowerCase(Locale.ROOT);
        if (v.isEmpty()) throw Values.invalidSyntax(t, s);
        Acc acc = new Acc();
        try {
            Matcher iso = ISO.matcher(v);
            if (v.startsWith("p") && iso.matches()) {
                String[] units = {"year", "month", "week", "day", "hour", "minute", "second"};
                for (int i = 0; i < 7; i++) {
                    if (iso.group(i + 1) != null) acc.add(new BigDecimal(iso.group(i + 1)), units[i], t, s);
                }
                return acc.toInterval(false, s);
            }
            if (v.startsWith("@")) v = v.substring(1).strip();
            boolean ago = false;
            if (v.endsWith(" ago") || v.equals("ago")) {
                ago = true;
                v = v.substring(0, v.length() - 3).strip();
            }
            int i = 0;
            boolean any = false;
            while (i < v.length()) {
                while (i < v.length() && (Character.isWhitespace(v.charAt(i)) || v.charAt(i) == ',')) i++;
                if (i >= v.length()) break;
                Matcher tm = TIME_PART.matcher(v).region(i, v.length());
                if (tm.lookingAt()) {
                    boolean neg = tm.group(1).equals("-");
                    BigDecimal us = BigDecimal.valueOf(Long.parseLong(tm.group(2))).multiply(BigDecimal.valueOf(3_600_000_000L))
                            .add(BigDecimal.valueOf(Long.parseLong(tm.group(3))).multiply(BigDecimal.valueOf(60_000_000L)));
                    if (tm.group(4) != null) us = us.add(new BigDecimal(tm.group(4)).movePointRight(6));
                    acc.micros = acc.micros.add(neg ? us.negate() : us);
                    i = tm.end();
                    any = true;
                    continue;
                }
                Matcher nm = NUMBER_UNIT.matcher(v).region(i, v.length());
                if (!nm.lookingAt()) throw Values.invalidSyntax(t, s);
                BigDecimal n = new BigDecimal(nm.group(1).startsWith("+") ? nm.group(1).substring(1) : nm.group(1));
                String unit = nm.group(2);
                int end = nm.end();
                if (unit.isEmpty()) {
                    // a bare number followed by a time is days ('1 12:00'); otherwise seconds
                    int j = end;
                    while (j < v.length() && Character.isWhitespace(v.charAt(j))) j++;
                    if (j < v.length() && TIME_PART.matcher(v).region(j, v.length()).lookingAt()) unit = "day";
                    else if (j < v.length()) throw Values.invalidSyntax(t, s);
                }
                acc.add(n, unit, t, s);
                i = end;
                any = true;
            }
            if (!any) throw Values.invalidSyntax(t, s);
            return acc.toInterval(ago, s);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new SqlException("22015", "interval field value out of range: \"" + s + "\"");
        }
    }
}
