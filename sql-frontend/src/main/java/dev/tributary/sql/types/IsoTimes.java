package dev.tributary.sql.types;

/**
 * Dates and timestamps in the form PostgreSQL itself writes them, which COPY data and drivers
 * almost always hold, read straight from their ASCII bytes with no objects and no regular
 * expressions: {@code YYYY-MM-DD} for a date; for a timestamp that, a {@code ' '} or {@code 'T'},
 * {@code HH:MM:SS} and an optional fraction of 1 to 6 digits; for a timestamptz also an optional
 * {@code Z}, {@code ±HH} or {@code ±HH:MM} offset (a timestamptz without one is at UTC, as
 * {@link Values#fromText} reads it).
 *
 * <p>Contract: each reader gives exactly the value {@link Values#fromText} gives for the same text
 * (a DATE as its epoch day, a TIMESTAMP or TIMESTAMPTZ as microseconds since 1970-01-01 00:00
 * UTC, as {@code RowCodec} encodes them), or {@link #NONE}, with nothing reported, for anything
 * else: another form, a year outside 1 to 9999, a field out of range ({@code 2015-02-30},
 * {@code 24:00:00}), blanks, more fraction digits. The caller then reads the text by the general
 * path, which accepts it or raises PostgreSQL's error. So these readers may refuse what the general
 * one accepts, but never accept what it refuses, nor read anything differently.
 *
 * <p>Bytes, not a {@code String}, because a COPY's fields are bytes: making a string, an
 * {@link java.time.Instant} and a {@link java.time.LocalDateTime} per field was a tenth of a
 * Nexmark load's parsing. {@link Values#fromText} does not read through this class on purpose:
 * it is the reference these readers are tested against (as its own fast reading of strings,
 * {@code DateTimeText.isoTimestamptz}, is tested against its general one), so a mistake here
 * cannot hide by being made on both sides.
 */
public final class IsoTimes {
    private IsoTimes() {}

    /** What a reader returns for text it does not read: never a result, since years 1 to 9999 are far inside a long's range. */
    public static final long NONE = Long.MIN_VALUE;

    /** The epoch day of the DATE {@code b[from .. to)}, or {@link #NONE}. */
    public static long date(byte[] b, int from, int to) {
        return to - from == 10 ? dateAt(b, from) : NONE;
    }

    /** The microseconds since 1970-01-01 00:00 of the TIMESTAMP {@code b[from .. to)} (no offset allowed), or {@link #NONE}. */
    public static long timestamp(byte[] b, int from, int to) {
        return read(b, from, to, false);
    }

    /** The microseconds since the epoch of the TIMESTAMPTZ {@code b[from .. to)} (UTC unless it has an offset), or {@link #NONE}. */
    public static long timestamptz(byte[] b, int from, int to) {
        return read(b, from, to, true);
    }

    private static long read(byte[] b, int from, int to, boolean zoned) {
        if (to - from < 19) return NONE;
        long days = dateAt(b, from);
        byte t = b[from + 10];
        if (days == NONE || (t != ' ' && t != 'T') || b[from + 13] != ':' || b[from + 16] != ':') return NONE;
        int hour = two(b, from + 11), minute = two(b, from + 14), second = two(b, from + 17);
        if ((hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) return NONE;
        int i = from + 19;
        int micros = 0;
        if (i < to && b[i] == '.') {
            int start = ++i;
            while (i < to && i - start < 6 && digit(b[i])) micros = micros * 10 + (b[i++] - '0');
            // a seventh digit would round: the general path's to do
            if (i == start || (i < to && digit(b[i]))) return NONE;
            for (int k = i - start; k < 6; k++) micros *= 10;
        }
        int offset = 0;
        if (i < to) {
            if (!zoned) return NONE; // a timestamp's zone is dropped by the general path
            byte sign = b[i];
            if (sign == 'Z' && i + 1 == to) {
                offset = 0;
            } else if ((sign == '+' || sign == '-') && i + 3 <= to) {
                int oh = two(b, i + 1);
                int om = 0;
                i += 3;
                if (i < to) {
                    if (b[i] != ':' || i + 3 != to) return NONE;
                    om = two(b, i + 1);
                }
                if (oh < 0 || om < 0 || oh > 15 || om > 59) return NONE;
                offset = (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
            } else {
                return NONE;
            }
        }
        return (days * 86_400L + hour * 3600L + minute * 60L + second - offset) * 1_000_000L + micros;
    }

    /** The epoch day of the 10 bytes {@code YYYY-MM-DD} at {@code from}, a valid date of years 1 to 9999, or {@link #NONE}. */
    private static long dateAt(byte[] b, int from) {
        if (b[from + 4] != '-' || b[from + 7] != '-') return NONE;
        int hi = two(b, from), lo = two(b, from + 2), month = two(b, from + 5), day = two(b, from + 8);
        if ((hi | lo | month | day) < 0) return NONE;
        int year = hi * 100 + lo;
        if (year < 1 || month < 1 || month > 12 || day < 1 || day > lengthOfMonth(year, month)) return NONE;
        return epochDay(year, month, day);
    }

    private static int lengthOfMonth(int year, int month) {
        return switch (month) {
            case 2 -> year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /**
     * Days from 1970-01-01 to a valid proleptic Gregorian date of a year from 1 on. Counted in
     * years that start on March 1, so that a leap day is the last day of its year and the days
     * before a month are a linear formula: {@code (153 * m + 2) / 5} for the m-th month from March.
     */
    static long epochDay(int year, int month, int day) {
        long y = month <= 2 ? year - 1 : year; // >= 0
        int m = month <= 2 ? month + 9 : month - 3;
        long dayOfYear = (153 * m + 2) / 5 + day - 1;
        // 719468: days from 0000-03-01 to 1970-01-01
        return 365 * y + y / 4 - y / 100 + y / 400 + dayOfYear - 719_468;
    }

    /** The two ASCII digits at {@code i} as a number, or negative if either is not a digit. */
    private static int two(byte[] b, int i) {
        int hi = b[i] - '0', lo = b[i + 1] - '0';
        if (hi < 0 || hi > 9 || lo < 0 || lo > 9) return -1;
        return hi * 10 + lo;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }
}
