package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Interval;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.IsoFields;
import java.time.temporal.JulianFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A date/time template of PostgreSQL's {@code to_char(timestamp|timestamptz|interval, text)},
 * {@code to_date(text, text)} and {@code to_timestamp(text, text)}, compiled once.
 *
 * <p>Pattern words are matched longest first and case-sensitively ({@code Month}, {@code MONTH}
 * and {@code month} differ in output case; {@code yyyy} is {@code YYYY}); a word may carry the
 * prefixes {@code FM} (no padding) or {@code TM} (names unpadded; the C locale's names are the
 * English ones) and the suffixes {@code TH}/{@code th} (ordinal) or {@code SP} (accepted, no
 * effect). Other text is copied: a double-quoted string (a backslash in it takes the next
 * character literally) or {@code \"} for a quote; a backslash elsewhere is itself.
 *
 * <p>Reading ({@link #parse}) follows PostgreSQL 15 outside FX mode: spaces before fields are
 * skipped, a separator in the template matches one separator or space (or nothing), a number
 * takes its width unless the next element is not a digit (or FM is given), and then as many
 * digits as there are. Errors are PostgreSQL's: 22007 for input that does not fit the template,
 * 22008 for values out of range.
 */
final class DateTimeFormat {

    /** What a pattern word stands for. */
    enum Field {
        AD_DOTS, AD, AM_DOTS, AM, CC, DAY, DY, DDD, DD, D, FF1, FF2, FF3, FF4, FF5, FF6, FX, HH, HH12, HH24, IDDD, ID, IW, IYYY, IYY, IY, I,
        J, MI, MM, MONTH, MON, MS, OF, Q, RM, SSSS, SS, TZH, TZM, TZ, US, WW, W, Y_YYY, YYYY, YYY, YY, Y
    }

    /** How a word's name-like output is cased: {@code MONTH}, {@code Month}, {@code month}. */
    enum Case { UPPER, CAPITAL, LOWER }

    /** Which calendar a word belongs to when reading; the two may not be mixed. */
    enum Calendar { NONE, GREGORIAN, ISO }

    /** A pattern word as spelled in a template. */
    record Word(String spelling, Field field, Case letters) {
        boolean digits() {
            return switch (field) {
                case AD_DOTS, AD, AM_DOTS, AM, DAY, DY, FX, MONTH, MON, OF, RM, TZH, TZ -> false;
                default -> true;
            };
        }

        Calendar calendar() {
            return switch (field) {
                case DDD, DD, D, MM, MONTH, MON, RM, W, WW, Y_YYY, YYYY, YYY, YY, Y -> Calendar.GREGORIAN;
                case IDDD, ID, IW, IYYY, IYY, IY, I -> Calendar.ISO;
                default -> Calendar.NONE;
            };
        }
    }

    /** One element of a compiled template. */
    sealed interface Node permits Pattern, Text {}

    /** A pattern word with its modifiers. */
    record Pattern(Word word, boolean fill, boolean translate, boolean ordinal, boolean upperOrdinal) implements Node {}

    /** One character of text; {@code separator} and {@code space} as reading treats them. */
    record Text(String text, boolean separator, boolean space) implements Node {}

    private static final List<Word> WORDS = new ArrayList<>();

    private static void word(Field f, String... spellings) {
        for (String s : spellings) {
            Case c = s.equals(s.toUpperCase(Locale.ROOT)) ? Case.UPPER : s.equals(s.toLowerCase(Locale.ROOT)) ? Case.LOWER : Case.CAPITAL;
            WORDS.add(new Word(s, f, c));
        }
    }

    static {
        word(Field.AD_DOTS, "A.D.", "B.C.", "a.d.", "b.c.");
        word(Field.AD, "AD", "BC", "ad", "bc");
        word(Field.AM_DOTS, "A.M.", "P.M.", "a.m.", "p.m.");
        word(Field.AM, "AM", "PM", "am", "pm");
        word(Field.DAY, "DAY", "Day", "day");
        word(Field.DY, "DY", "Dy", "dy");
        word(Field.MONTH, "MONTH", "Month", "month");
        word(Field.MON, "MON", "Mon", "mon");
        word(Field.RM, "RM", "rm");
        word(Field.TZ, "TZ", "tz");
        for (Field f : Field.values()) {
            if (List.of(Field.AD_DOTS, Field.AD, Field.AM_DOTS, Field.AM, Field.DAY, Field.DY, Field.MONTH, Field.MON, Field.RM, Field.TZ).contains(f)) continue;
            String s = f == Field.Y_YYY ? "Y,YYY" : f.name();
            word(f, s, s.toLowerCase(Locale.ROOT));
        }
        word(Field.SSSS, "SSSSS", "sssss");
    }

    private final List<Node> nodes;

    private static final TemplateCache<DateTimeFormat> CACHE = new TemplateCache<>(DateTimeFormat::new);

    /** The template compiled, from a small cache (templates are nearly always constants). */
    static DateTimeFormat of(String template) {
        return CACHE.get(template);
    }

    private DateTimeFormat(String t) {
        List<Node> out = new ArrayList<>();
        int i = 0;
        while (i < t.length()) {
            boolean fill = false, translate = false;
            if (t.startsWith("FM", i) || t.startsWith("fm", i)) {
                fill = true;
                i += 2;
            } else if (t.startsWith("TM", i) || t.startsWith("tm", i)) {
                translate = true;
                i += 2;
            }
            if (i >= t.length()) break;
            Word w = null;
            for (Word c : WORDS) if (t.startsWith(c.spelling(), i) && (w == null || c.spelling().length() > w.spelling().length())) w = c;
            if (w != null) {
                i += w.spelling().length();
                boolean ordinal = false, upper = false;
                if (t.startsWith("TH", i) || t.startsWith("th", i)) {
                    ordinal = true;
                    upper = t.charAt(i) == 'T';
                    i += 2;
                } else if (t.startsWith("SP", i)) {
                    i += 2;
                }
                out.add(new Pattern(w, fill, translate, ordinal, upper));
                continue;
            }
            char c = t.charAt(i);
            if (c == '"') {
                i++;
                while (i < t.length()) {
                    char q = t.charAt(i);
                    if (q == '"') {
                        i++;
                        break;
                    }
                    if (q == '\\' && i + 1 < t.length()) i++;
                    int n = Character.charCount(t.codePointAt(i));
                    out.add(new Text(t.substring(i, i + n), false, false));
                    i += n;
                }
                continue;
            }
            if (c == '\\' && i + 1 < t.length() && t.charAt(i + 1) == '"') c = t.charAt(++i);
            int n = Character.charCount(t.codePointAt(i));
            out.add(new Text(t.substring(i, i + n), isSeparator(c), Character.isWhitespace(c) && c < 128));
            i += n;
        }
        this.nodes = List.copyOf(out);
    }

    /** Printable ASCII that is neither a letter nor a digit. */
    private static boolean isSeparator(char c) {
        return c > ' ' && c < 0x7f && !Character.isLetterOrDigit(c);
    }

    // --------------------------------------------------------------------------- to_char

    private static final String[] MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December"};
    private static final String[] DAYS = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    private static final String[] ROMAN_MONTHS = {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"};

    /**
     * The broken-down value to_char prints: a timestamp's calendar fields (year 0 is 1 BC), or
     * an interval's fields, each truncated toward zero.
     */
    private record Fields(long year, int mon, long mday, long hour, long min, long sec, long fsec, long yday, int wday,
                          boolean interval, String zone) {}

    /** {@code to_char(timestamp, template)}. */
    String format(LocalDateTime ts) {
        return format(fields(ts, null));
    }

    /** {@code to_char(timestamptz, template)} in the session's time zone (always UTC here). */
    String format(Instant ts) {
        return format(fields(LocalDateTime.ofInstant(ts, ZoneOffset.UTC), "UTC"));
    }

    /** {@code to_char(interval, template)}; words tied to calendar dates are 22007. */
    String format(Interval iv) {
        long time = iv.micros();
        long year = iv.months() / 12;
        int mon = iv.months() % 12;
        long yday = (year * 12 + mon) * 30 + iv.days();
        return format(new Fields(year, mon, iv.days(), time / 3_600_000_000L, time / 60_000_000L % 60, time / 1_000_000L % 60, time % 1_000_000L,
                yday, 0, true, null));
    }

    private static Fields fields(LocalDateTime ts, String zone) {
        return new Fields(ts.getYear(), ts.getMonthValue(), ts.getDayOfMonth(), ts.getHour(), ts.getMinute(), ts.getSecond(), ts.getNano() / 1000,
                ts.getDayOfYear(), ts.getDayOfWeek().getValue() % 7, false, zone);
    }

    private static SqlException notForInterval() {
        return new SqlException("22007", "invalid format specification for an interval value", 0, "Intervals are not tied to specific calendar dates.");
    }

    /** {@code v} printed at least {@code width} wide with leading zeros (after a minus sign); {@code width} 0 is as it is. */
    private static String zeros(long v, int width) {
        String s = Long.toString(Math.abs(v));
        int pad = width - s.length() - (v < 0 ? 1 : 0);
        return (v < 0 ? "-" : "") + (pad > 0 ? "0".repeat(pad) : "") + s;
    }

    private static String cased(String name, Case c) {
        return switch (c) {
            case UPPER -> name.toUpperCase(Locale.ROOT);
            case LOWER -> name.toLowerCase(Locale.ROOT);
            case CAPITAL -> name;
        };
    }

    /** The date the fields name, months and days beyond their ranges carried over (as intervals need). */
    private static LocalDate date(Fields f) {
        long m = f.year() * 12 + f.mon() - 1;
        return LocalDate.of((int) Math.floorDiv(m, 12), (int) Math.floorMod(m, 12) + 1, 1).plusDays(f.mday() - 1);
    }

    /** The year as printed: a BC year counts from 1 backwards, an interval's as it is. */
    private static long shownYear(long year, boolean interval) {
        return interval || year > 0 ? year : 1 - year;
    }

    private static long isoYear(Fields f) {
        return date(f).get(IsoFields.WEEK_BASED_YEAR);
    }

    private String format(Fields f) {
        StringBuilder out = new StringBuilder();
        for (Node node : nodes) {
            if (node instanceof Text t) {
                out.append(t.text());
                continue;
            }
            Pattern p = (Pattern) node;
            Word w = p.word();
            boolean fm = p.fill();
            String s = switch (w.field()) {
                case AD_DOTS, AD -> {
                    if (f.interval()) throw notForInterval();
                    String v = f.year() <= 0 ? (w.field() == Field.AD ? "BC" : "B.C.") : (w.field() == Field.AD ? "AD" : "A.D.");
                    yield w.letters() == Case.LOWER ? v.toLowerCase(Locale.ROOT) : v;
                }
                case AM_DOTS, AM -> {
                    String v = f.hour() % 24 >= 12 ? (w.field() == Field.AM ? "PM" : "P.M.") : (w.field() == Field.AM ? "AM" : "A.M.");
                    yield w.letters() == Case.LOWER ? v.toLowerCase(Locale.ROOT) : v;
                }
                case HH, HH12 -> number(p, zeros(f.hour() % 12 == 0 ? 12 : f.hour() % 12, fm ? 0 : f.hour() >= 0 ? 2 : 3));
                case HH24 -> number(p, zeros(f.hour(), fm ? 0 : f.hour() >= 0 ? 2 : 3));
                case MI -> number(p, zeros(f.min(), fm ? 0 : f.min() >= 0 ? 2 : 3));
                case SS -> number(p, zeros(f.sec(), fm ? 0 : f.sec() >= 0 ? 2 : 3));
                case FF1, FF2, FF3, FF4, FF5, FF6 -> {
                    int n = w.field().ordinal() - Field.FF1.ordinal() + 1;
                    yield number(p, zeros(f.fsec() / (long) Math.pow(10, 6 - n), n));
                }
                case MS -> number(p, zeros(f.fsec() / 1000, 3));
                case US -> number(p, zeros(f.fsec(), 6));
                case SSSS -> number(p, Long.toString(f.hour() * 3600 + f.min() * 60 + f.sec()));
                case TZ -> {
                    if (f.interval()) throw notForInterval();
                    yield f.zone() == null ? "" : w.letters() == Case.LOWER ? f.zone().toLowerCase(Locale.ROOT) : f.zone();
                }
                case TZH -> {
                    if (f.interval()) throw notForInterval();
                    yield "+00";
                }
                case TZM -> {
                    if (f.interval()) throw notForInterval();
                    yield "00";
                }
                case OF -> {
                    if (f.interval()) throw notForInterval();
                    yield fm ? "+0" : "+00";
                }
                case Y_YYY -> {
                    long y = shownYear(f.year(), f.interval());
                    yield number(p, (y / 1000) + "," + zeros(y - y / 1000 * 1000, 3));
                }
                case YYYY, YYY, YY, Y -> number(p, year(shownYear(f.year(), f.interval()), w.field(), fm, f));
                case IYYY, IYY, IY, I -> number(p, year(shownYear(isoYear(f), f.interval()), w.field(), fm, f));
                case MONTH, MON -> {
                    if (f.interval()) throw notForInterval();
                    String name = MONTHS[f.mon() - 1];
                    if (w.field() == Field.MON) yield cased(name.substring(0, 3), w.letters());
                    String v = cased(name, w.letters());
                    yield fm || p.translate() ? v : pad(v, 9);
                }
                case DAY, DY -> {
                    if (f.interval()) throw notForInterval();
                    String name = DAYS[f.wday()];
                    if (w.field() == Field.DY) yield cased(name.substring(0, 3), w.letters());
                    String v = cased(name, w.letters());
                    yield fm || p.translate() ? v : pad(v, 9);
                }
                case MM -> number(p, zeros(f.mon(), fm ? 0 : f.mon() >= 0 ? 2 : 3));
                case DDD -> number(p, zeros(f.yday(), fm ? 0 : 3));
                case IDDD -> {
                    LocalDate d = date(f);
                    long v = (d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR) - 1) * 7L + d.getDayOfWeek().getValue();
                    yield number(p, zeros(v, fm ? 0 : 3));
                }
                case DD -> number(p, zeros(f.mday(), fm ? 0 : 2));
                case D -> {
                    if (f.interval()) throw notForInterval();
                    yield number(p, Integer.toString(f.wday() + 1));
                }
                case ID -> {
                    if (f.interval()) throw notForInterval();
                    yield number(p, Integer.toString(f.wday() == 0 ? 7 : f.wday()));
                }
                case WW -> number(p, zeros((f.yday() - 1) / 7 + 1, fm ? 0 : 2));
                case IW -> number(p, zeros(date(f).get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), fm ? 0 : 2));
                case W -> number(p, Long.toString((f.mday() - 1) / 7 + 1));
                case Q -> f.mon() == 0 ? "" : number(p, Integer.toString((f.mon() - 1) / 3 + 1));
                case CC -> {
                    long c = f.interval() ? f.year() / 100 : f.year() > 0 ? (f.year() - 1) / 100 + 1 : f.year() / 100 - 1;
                    yield number(p, c <= 99 && c >= -99 ? zeros(c, fm ? 0 : c >= 0 ? 2 : 3) : Long.toString(c));
                }
                case J -> number(p, Long.toString(date(f).getLong(JulianFields.JULIAN_DAY)));
                case RM -> {
                    if (f.mon() == 0 && f.year() == 0) yield "";
                    int m = f.mon() == 0 ? (f.year() >= 0 ? 12 : 1) : f.mon() < 0 ? 12 + f.mon() + 1 : f.mon();
                    String v = cased(ROMAN_MONTHS[m - 1], w.letters());
                    yield fm ? v : v + " ".repeat(Math.max(0, 4 - v.length()));
                }
                case FX -> "";
            };
            out.append(s);
        }
        return out.toString();
    }

    /**
     * A year's last digits as YYYY (4), YYY (3), YY (2) or Y (1) print them: zero-padded, one
     * wider when the year (the calendar year, also for the ISO words) is negative.
     */
    private static String year(long y, Field word, boolean fm, Fields f) {
        int n = switch (word) {
            case YYYY, IYYY -> 4;
            case YYY, IYY -> 3;
            case YY, IY -> 2;
            default -> 1;
        };
        long v = n == 4 ? y : y % (long) Math.pow(10, n);
        return zeros(v, fm ? 0 : shownYear(f.year(), f.interval()) >= 0 ? n : n + 1);
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    private static String number(Pattern p, String digits) {
        return p.ordinal() ? digits + Ordinals.suffix(digits, p.upperOrdinal()) : digits;
    }

    // ---------------------------------------------------------------------- to_date/to_timestamp

    /**
     * A value read by {@link #parse}: a date (null beyond PostgreSQL's dates), a time of day in
     * microseconds, a zone offset in seconds (or null), and the fractional digits FFn asked for (or 0).
     */
    record Parsed(LocalDate date, long micros, Integer offsetSeconds, int fractionDigits) {}

    /** What reading gathers, each field 0 when not given (as PostgreSQL keeps them). */
    private static final class Gathered {
        Calendar calendar = Calendar.NONE;
        boolean pm, twelveHour;
        int hh, mi, ss, ssss, d, dd, ddd, mm, ms, us, ff, year, bc, cc, j, ww, w, yysz, tzsign, tzh, tzm;
    }

    private static SqlException badFormat(String message) {
        return new SqlException("22007", message);
    }

    private static final String FIXED_WIDTH_HINT = "If your source string is not fixed-width, try using the \"FM\" modifier.";

    /** {@code to_date}/{@code to_timestamp}: the input read against the template. */
    Parsed parse(String in) {
        Gathered g = new Gathered();
        int s = 0;
        boolean fx = false;
        int extraSkip = 0;
        for (int k = 0; k < nodes.size() && s < in.length(); k++) {
            Node n = nodes.get(k);
            boolean isFx = n instanceof Pattern pp && pp.word().field() == Field.FX;
            if (!fx && !isFx && (n instanceof Pattern || k == 0)) {
                while (s < in.length() && isSpace(in.charAt(s))) {
                    s++;
                    extraSkip++;
                }
            }
            if (n instanceof Text t) {
                if (t.separator() || t.space()) {
                    if (!fx) {
                        extraSkip--;
                        if (s < in.length() && (isSpace(in.charAt(s)) || isSeparator(in.charAt(s)))) {
                            s++;
                            extraSkip++;
                        }
                    } else {
                        s += Character.charCount(in.codePointAt(s));
                    }
                } else if (!fx && extraSkip > 0) {
                    extraSkip--;
                } else if (s < in.length()) {
                    s += Character.charCount(in.codePointAt(s));
                }
                continue;
            }
            Pattern p = (Pattern) n;
            Calendar cal = p.word().calendar();
            if (cal != Calendar.NONE) {
                if (g.calendar == Calendar.NONE) g.calendar = cal;
                else if (g.calendar != cal) {
                    throw new SqlException("22007", "invalid combination of date conventions", 0,
                            "Do not mix Gregorian and ISO week date conventions in a formatting template.");
                }
            }
            String name = p.word().spelling();
            int[] at = {s};
            switch (p.word().field()) {
                case FX -> fx = true;
                case AM_DOTS -> {
                    g.pm = set(g.pm ? 1 : 0, choose(in, at, new String[] {"a.m.", "p.m."}, name) % 2, name) == 1;
                    g.twelveHour = true;
                }
                case AM -> {
                    g.pm = set(g.pm ? 1 : 0, choose(in, at, new String[] {"am", "pm"}, name) % 2, name) == 1;
                    g.twelveHour = true;
                }
                case AD_DOTS -> g.bc = set(g.bc, choose(in, at, new String[] {"a.d.", "b.c."}, name), name);
                case AD -> g.bc = set(g.bc, choose(in, at, new String[] {"ad", "bc"}, name), name);
                case HH, HH12 -> {
                    g.hh = set(g.hh, integer(in, at, 2, p, k), name);
                    g.twelveHour = true;
                    skipOrdinal(in, at, p);
                }
                case HH24 -> g.hh = field(g.hh, in, at, 2, p, k);
                case MI -> g.mi = field(g.mi, in, at, 2, p, k);
                case SS -> g.ss = field(g.ss, in, at, 2, p, k);
                case MS -> {
                    int from = at[0];
                    int v = integer(in, at, 3, p, k);
                    int len = at[0] - from;
                    g.ms = set(g.ms, v, name) * (len == 1 ? 100 : len == 2 ? 10 : 1);
                    skipOrdinal(in, at, p);
                }
                case FF1, FF2, FF3, FF4, FF5, FF6, US -> {
                    int width = p.word().field() == Field.US ? 6 : p.word().field().ordinal() - Field.FF1.ordinal() + 1;
                    if (p.word().field() != Field.US) g.ff = width;
                    int from = at[0];
                    int v = integer(in, at, width, p, k);
                    int len = at[0] - from;
                    g.us = set(g.us, v, name);
                    for (int z = len; z < 6; z++) g.us *= 10;
                    skipOrdinal(in, at, p);
                }
                case SSSS -> g.ssss = field(g.ssss, in, at, 4, p, k);
                case TZ, OF -> throw new SqlException("0A000", "formatting field \"" + name + "\" is only supported in to_char");
                case TZH -> {
                    char c = at[0] < in.length() ? in.charAt(at[0]) : '\0';
                    if (c == '+' || c == '-' || c == ' ') {
                        g.tzsign = c == '-' ? -1 : 1;
                        at[0]++;
                    } else {
                        g.tzsign = extraSkip > 0 && at[0] > 0 && in.charAt(at[0] - 1) == '-' ? -1 : 1;
                    }
                    g.tzh = set(g.tzh, integer(in, at, 2, p, k), name);
                }
                case TZM -> {
                    if (g.tzsign == 0) g.tzsign = 1;
                    g.tzm = set(g.tzm, integer(in, at, 2, p, k), name);
                }
                case MONTH -> g.mm = set(g.mm, choose(in, at, MONTHS, name) + 1, name);
                case MON -> g.mm = set(g.mm, choose(in, at, abbreviations(MONTHS), name) + 1, name);
                case MM -> g.mm = field(g.mm, in, at, 2, p, k);
                case DAY -> g.d = set(g.d, choose(in, at, DAYS, name), name) + 1;
                case DY -> g.d = set(g.d, choose(in, at, abbreviations(DAYS), name), name) + 1;
                case DDD, IDDD -> g.ddd = field(g.ddd, in, at, 3, p, k);
                case DD -> g.dd = field(g.dd, in, at, 2, p, k);
                case D -> g.d = field(g.d, in, at, 1, p, k);
                case ID -> {
                    g.d = set(g.d, integer(in, at, 1, p, k), name);
                    if (++g.d > 7) g.d = 1;
                    skipOrdinal(in, at, p);
                }
                case WW, IW -> g.ww = field(g.ww, in, at, 2, p, k);
                case Q -> {
                    integer(in, at, 1, p, k);
                    skipOrdinal(in, at, p);
                }
                case CC -> g.cc = field(g.cc, in, at, 2, p, k);
                case Y_YYY -> {
                    java.util.regex.Matcher m = THOUSANDS.matcher(in).region(at[0], in.length());
                    if (!m.lookingAt()) throw badFormat("invalid input string for \"Y,YYY\"");
                    long v;
                    try {
                        v = Long.parseLong(m.group(1)) * 1000 + Long.parseLong(m.group(2));
                    } catch (NumberFormatException e) {
                        throw badFormat("invalid input string for \"Y,YYY\"");
                    }
                    g.year = set(g.year, (int) v, name);
                    g.yysz = 4;
                    at[0] = m.end();
                    skipOrdinal(in, at, p);
                }
                case YYYY, IYYY -> {
                    g.year = field(g.year, in, at, 4, p, k);
                    g.yysz = 4;
                }
                case YYY, IYY, YY, IY, Y, I -> {
                    Field f = p.word().field();
                    int width = f == Field.YYY || f == Field.IYY ? 3 : f == Field.YY || f == Field.IY ? 2 : 1;
                    int from = at[0];
                    g.year = set(g.year, integer(in, at, width, p, k), name);
                    if (at[0] - from < 4) g.year = nearest2020(g.year);
                    g.yysz = width;
                    skipOrdinal(in, at, p);
                }
                case RM -> g.mm = set(g.mm, 12 - choose(in, at, reversed(ROMAN_MONTHS), name), name);
                case W -> g.w = field(g.w, in, at, 1, p, k);
                case J -> g.j = field(g.j, in, at, 1, p, k);
            }
            s = at[0];
            if (!fx) {
                extraSkip = 0;
                while (s < in.length() && isSpace(in.charAt(s))) {
                    s++;
                    extraSkip++;
                }
            }
        }
        return assemble(g, in);
    }

    /** Y,YYY's input: thousands, a comma, up to three digits. */
    private static final java.util.regex.Pattern THOUSANDS = java.util.regex.Pattern.compile("\\s*([+-]?\\d+),(\\d{1,3})");

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0b;
    }

    private static int leadingSpaces(String in, int from) {
        int k = from;
        while (k < in.length() && isSpace(in.charAt(k))) k++;
        return k - from;
    }

    private static String[] abbreviations(String[] names) {
        String[] a = new String[names.length];
        for (int i = 0; i < names.length; i++) a[i] = names[i].substring(0, 3);
        return a;
    }

    private static String[] reversed(String[] names) {
        String[] a = new String[names.length];
        for (int i = 0; i < names.length; i++) a[i] = names[names.length - 1 - i];
        return a;
    }

    private static int nearest2020(int year) {
        if (year < 70) return year + 2000;
        if (year < 100) return year + 1900;
        if (year < 520) return year + 2000;
        if (year < 1000) return year + 1000;
        return year;
    }

    /** An integer field ({@link #integer}) stored into {@code old}'s place, then an ordinal suffix skipped. */
    private int field(int old, String in, int[] at, int width, Pattern p, int k) {
        int v = set(old, integer(in, at, width, p, k), p.word().spelling());
        skipOrdinal(in, at, p);
        return v;
    }

    private static void skipOrdinal(String in, int[] at, Pattern p) {
        if (p.ordinal()) at[0] = Math.min(in.length(), at[0] + 2);
    }

    private static int set(int old, int value, String name) {
        if (old != 0 && old != value) {
            throw badFormat("conflicting values for \"" + name + "\" field in formatting string")
                    .withDetail("This value contradicts a previous setting for the same field type.");
        }
        return value;
    }

    /** The index of the first of {@code names} the input starts with, ignoring case. */
    private static int choose(String in, int[] at, String[] names, String word) {
        for (int i = 0; i < names.length; i++) {
            String nm = names[i];
            if (in.regionMatches(true, at[0], nm, 0, nm.length())) {
                at[0] += nm.length();
                return i;
            }
        }
        String rest = in.substring(at[0]);
        for (int i = 0; i < rest.length(); i++) {
            if (isSpace(rest.charAt(i))) {
                rest = rest.substring(0, i);
                break;
            }
        }
        throw badFormat("invalid value \"" + rest + "\" for \"" + word + "\"")
                .withDetail("The given value did not match any of the allowed values for this field.");
    }

    /** Whether the element after {@code k} cannot be part of a number, so a number may take all the digits there are. */
    private boolean nextIsSeparator(int k) {
        if (nodes.get(k) instanceof Pattern p && p.ordinal()) return true;
        if (k + 1 >= nodes.size()) return true;
        return switch (nodes.get(k + 1)) {
            case Pattern p -> !p.word().digits();
            case Text t -> !(t.text().length() == 1 && Character.isDigit(t.text().charAt(0)) && t.text().charAt(0) < 128);
        };
    }

    /**
     * An integer field of {@code width} digits at {@code at[0]} (spaces first skipped), or as
     * many digits as there are when FM is given or the next element is not a digit.
     */
    private int integer(String in, int[] at, int width, Pattern p, int k) {
        int start = at[0] + leadingSpaces(in, at[0]);
        String name = p.word().spelling();
        String copy = in.substring(start, Math.min(in.length(), start + width));
        int end;
        if (p.fill() || nextIsSeparator(k)) {
            end = scanLong(in, start, in.length());
        } else {
            if (copy.length() < width) {
                throw new SqlException("22007", "source string too short for \"" + name + "\" formatting field", 0, FIXED_WIDTH_HINT)
                        .withDetail("Field requires " + width + " characters, but only " + copy.length() + " remain.");
            }
            end = scanLong(in, start, start + width);
            int used = end - start;
            if (used > 0 && used < width) {
                throw new SqlException("22007", "invalid value \"" + copy + "\" for \"" + name + "\"", 0, FIXED_WIDTH_HINT)
                        .withDetail("Field requires " + width + " characters, but only " + used + " could be parsed.");
            }
        }
        if (end == start) {
            // PostgreSQL measures "nothing read" from before the spaces: a fixed-width field
            // after spaces that holds no digits reads as 0
            if (start > at[0] && !(p.fill() || nextIsSeparator(k))) {
                at[0] = start;
                return 0;
            }
            throw badFormat("invalid value \"" + copy + "\" for \"" + name + "\"").withDetail("Value must be an integer.");
        }
        String digits = in.substring(start, end).strip();
        long v;
        try {
            v = Long.parseLong(digits.startsWith("+") ? digits.substring(1) : digits);
        } catch (NumberFormatException e) {
            v = Long.MAX_VALUE;
        }
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new SqlException("22008", "value for \"" + name + "\" in source string is out of range")
                    .withDetail("Value must be in the range " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ".");
        }
        at[0] = end;
        return (int) v;
    }

    /** Where C's strtol stops reading an integer at {@code from} (spaces, a sign, digits), bounded by {@code limit}; {@code from} when there is none. */
    private static int scanLong(String in, int from, int limit) {
        int k = from;
        while (k < limit && isSpace(in.charAt(k))) k++;
        if (k < limit && (in.charAt(k) == '+' || in.charAt(k) == '-')) k++;
        int digits = k;
        while (k < limit && in.charAt(k) >= '0' && in.charAt(k) <= '9') k++;
        return k == digits ? from : k;
    }

    private static SqlException fieldOutOfRange(String in) {
        return new SqlException("22008", "date/time field value out of range: \"" + in + "\"");
    }

    /** The gathered fields made into a date, time and zone, with PostgreSQL's defaults and checks. */
    private static Parsed assemble(Gathered g, String in) {
        long year = 0;
        int mon = 1, mday = 1;
        int hour = 0, min = 0, sec = 0;
        boolean yearSet = false, monSet = false, daySet = false;
        if (g.ssss != 0) {
            hour = g.ssss / 3600;
            min = g.ssss % 3600 / 60;
            sec = g.ssss % 60;
        }
        if (g.ss != 0) sec = g.ss;
        if (g.mi != 0) min = g.mi;
        if (g.hh != 0) hour = g.hh;
        if (g.twelveHour) {
            if (hour < 1 || hour > 12) {
                throw new SqlException("22007", "hour \"" + hour + "\" is invalid for the 12-hour clock", 0,
                        "Use the 24-hour clock, or give an hour between 1 and 12.");
            }
            if (g.pm && hour < 12) hour += 12;
            else if (!g.pm && hour == 12) hour = 0;
        }
        if (g.year != 0) {
            if (g.cc != 0 && g.yysz <= 2) {
                int cc = g.bc != 0 ? -g.cc : g.cc;
                year = g.year % 100;
                if (year != 0) year = cc >= 0 ? year + (cc - 1) * 100L : (cc + 1) * 100L - year + 1;
                else year = cc * 100L + (cc >= 0 ? 0 : 1);
            } else {
                year = g.year;
                if (g.bc != 0) year = -year;
                if (year < 0) year++;
            }
            yearSet = true;
        } else if (g.cc != 0) {
            int cc = g.bc != 0 ? -g.cc : g.cc;
            year = cc >= 0 ? (cc - 1) * 100L + 1 : cc * 100L + 1;
            yearSet = true;
        }
        if (g.j != 0) {
            LocalDate d;
            try {
                d = LocalDate.MIN.with(JulianFields.JULIAN_DAY, g.j);
            } catch (DateTimeException e) {
                throw new SqlException("22008", "date out of range: \"" + in + "\"");
            }
            year = d.getYear();
            mon = d.getMonthValue();
            mday = d.getDayOfMonth();
            yearSet = monSet = daySet = true;
        }
        int ddd = g.ddd;
        if (g.ww != 0) {
            if (g.calendar == Calendar.ISO) {
                LocalDate d = isoWeekStart(year, g.ww);
                if (d == null) return new Parsed(null, 0, null, 0);
                if (g.d != 0) d = d.plusDays(g.d > 1 ? g.d - 2 : 6);
                year = d.getYear();
                mon = d.getMonthValue();
                mday = d.getDayOfMonth();
                yearSet = monSet = daySet = true;
            } else {
                ddd = (g.ww - 1) * 7 + 1;
            }
        }
        int dd = g.dd;
        if (g.w != 0) dd = (g.w - 1) * 7 + 1;
        if (dd != 0) {
            mday = dd;
            daySet = true;
        }
        if (g.mm != 0) {
            mon = g.mm;
            monSet = true;
        }
        if (ddd != 0 && (mon <= 1 || mday <= 1)) {
            if (year == 0 && g.bc == 0) throw badFormat("cannot calculate day of year without year information");
            if (g.calendar == Calendar.ISO) {
                LocalDate d = isoWeekStart(year, 1);
                if (d == null) return new Parsed(null, 0, null, 0);
                d = d.plusDays(ddd - 1);
                year = d.getYear();
                mon = d.getMonthValue();
                mday = d.getDayOfMonth();
                yearSet = monSet = daySet = true;
            } else {
                boolean leap = java.time.Year.isLeap(year);
                int[] sums = leap ? new int[] {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}
                        : new int[] {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};
                int i = 1;
                while (i <= 12 && ddd > sums[i]) i++;
                if (mon <= 1) mon = i;
                if (mday <= 1) mday = ddd - sums[i - 1];
                monSet = daySet = true;
            }
        }
        long fsec = (long) g.ms * 1000 + g.us;
        if (yearSet || monSet || daySet) {
            if (monSet && (mon < 1 || mon > 12)) throw fieldOutOfRange(in);
            if (daySet && (mday < 1 || mday > 31)) throw fieldOutOfRange(in);
            if (yearSet && monSet && daySet && mon >= 1 && mon <= 12 && mday > java.time.YearMonth.of((int) Math.max(-999_999_999, Math.min(999_999_999, year)), mon).lengthOfMonth()) {
                throw fieldOutOfRange(in);
            }
        }
        if (hour < 0 || hour >= 24 || min < 0 || min >= 60 || sec < 0 || sec >= 60 || fsec < 0 || fsec >= 1_000_000) throw fieldOutOfRange(in);
        Integer offset = null;
        if (g.tzsign != 0) {
            if (g.tzh < 0 || g.tzh > 15 || g.tzm < 0 || g.tzm >= 60) {
                throw new SqlException("22009", "time zone displacement out of range: \"" + in + "\"");
            }
            offset = g.tzsign * (g.tzh * 3600 + g.tzm * 60);
        }
        // PostgreSQL's calendar arithmetic carries an impossible day into the next month (0-02-30 is 0-03-01)
        LocalDate date = null; // beyond every date PostgreSQL has: the caller says which range
        if (mon >= 1 && mon <= 12 && year >= -4713 && year <= 5_874_898) date = LocalDate.of((int) year, mon, 1).plusDays(mday - 1);
        return new Parsed(date, ((hour * 60L + min) * 60 + sec) * 1_000_000L + fsec, offset, g.ff);
    }

    /** The Monday of ISO week {@code week} of ISO year {@code year}; null beyond the calendar. */
    private static LocalDate isoWeekStart(long year, int week) {
        try {
            LocalDate jan4 = LocalDate.of(Math.toIntExact(year), 1, 4);
            return jan4.minusDays(jan4.getDayOfWeek().getValue() - 1).plusWeeks(week - 1);
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

    /** The earliest date and timestamp PostgreSQL has: 4714-11-24 BC. */
    private static final LocalDate FIRST = LocalDate.of(-4713, 11, 24);

    /** {@code to_date(text, template)}; 22008 outside PostgreSQL's date range. */
    LocalDate toDate(String in) {
        Parsed p = parse(in);
        if (p.date() == null || p.date().isBefore(FIRST) || p.date().isAfter(LocalDate.of(5_874_897, 12, 31))) {
            throw new SqlException("22008", "date out of range: \"" + in + "\"");
        }
        return p.date();
    }

    /** {@code to_timestamp(text, template)} in the session's time zone (UTC); 22008 outside PostgreSQL's range. */
    Instant toTimestamp(String in) {
        Parsed p = parse(in);
        if (p.date() == null) throw new SqlException("22008", "timestamp out of range");
        LocalDateTime local = p.date().atStartOfDay().plusNanos(p.micros() * 1000);
        Instant t = local.toInstant(ZoneOffset.UTC).minusSeconds(p.offsetSeconds() == null ? 0 : p.offsetSeconds());
        if (p.fractionDigits() > 0 && p.fractionDigits() < 6) {
            // FFn also sets the result's precision: rounded half away from zero, as a timestamp(n)
            long unit = (long) Math.pow(10, 6 - p.fractionDigits());
            long micros = t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
            long rounded = micros >= 0 ? (micros + unit / 2) / unit * unit : -((-micros + unit / 2) / unit * unit);
            t = Instant.ofEpochSecond(Math.floorDiv(rounded, 1_000_000L), Math.floorMod(rounded, 1_000_000L) * 1000);
        }
        if (t.isBefore(FIRST.atStartOfDay().toInstant(ZoneOffset.UTC)) || t.isAfter(LocalDateTime.of(294_276, 12, 31, 23, 59, 59, 999_999_000).toInstant(ZoneOffset.UTC))) {
            throw new SqlException("22008", "timestamp out of range");
        }
        return t;
    }
}
