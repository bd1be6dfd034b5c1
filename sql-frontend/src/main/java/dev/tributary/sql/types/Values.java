package dev.tributary.sql.types;

import dev.tributary.sql.SqlException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * PostgreSQL's text form of each SQL value, both ways, and the SQL order of values.
 *
 * <p>{@link #toText} prints what psql shows (with the session time zone UTC and
 * {@code IntervalStyle = postgres}, {@code DateStyle = ISO, MDY}); {@link #fromText} reads what a
 * string literal means when cast to a type, raising PostgreSQL's data errors (22P02 for malformed
 * numbers and booleans, 22003 when out of range, 22007/22008 for dates and times).
 *
 * <p>Values are the Java representations fixed by {@link SqlType}: NUMERIC's NaN and ±Infinity
 * are {@link NonFiniteNumeric}, ±infinity dates and timestamps are {@link InfiniteTimes}. Not
 * supported (PostgreSQL has it): {@code 24:00:00} as a time.
 */
public final class Values {
    private Values() {}

    // ------------------------------------------------------------------------------ output

    /** The value as psql prints it, or null for SQL NULL. */
    public static String toText(Object v, SqlType t) {
        if (v == null) return null;
        return switch (t.kind()) {
            case BOOLEAN -> ((Boolean) v) ? "t" : "f";
            case SMALLINT, INTEGER, BIGINT -> v.toString();
            case DOUBLE -> doubleText((Double) v);
            case REAL -> realText(((Double) v).floatValue());
            case NUMERIC -> v instanceof NonFiniteNumeric n ? n.text() : ((BigDecimal) v).toPlainString();
            case TEXT, VARCHAR, CHAR, UNKNOWN, JSON -> (String) v;
            case JSONB -> v.toString();
            case BYTEA, UUID -> v.toString();
            case DATE -> dateText((LocalDate) v);
            case TIME -> timeText((LocalTime) v);
            case TIMESTAMP -> timestampText((LocalDateTime) v);
            case TIMESTAMPTZ -> timestamptzText((Instant) v);
            case INTERVAL -> intervalText((Interval) v);
            case ARRAY -> t.isVector() ? String.join(" ", ((List<?>) v).stream().map(e -> toText(e, t.element())).toList()) : arrayText((List<?>) v, t.element());
            case RECORD -> recordText((List<?>) v, t);
        };
    }

    /**
     * An array as PostgreSQL prints it: {@code {1,2,NULL}}, nested braces for each further
     * dimension ({@code {{1,2},{3,4}}}), led by its bounds when one is not 1
     * ({@code [0:1]={1,2}}); an element double-quoted (with {@code "} and {@code \} escaped) when
     * it is empty, is {@code NULL} spelled out, or holds a brace, comma, quote, backslash or white
     * space.
     */
    public static String arrayText(List<?> elements, SqlType element) {
        StringBuilder b = new StringBuilder();
        if (!ShapedArray.fromOne(elements)) b.append(ShapedArray.boundsText(elements)).append('=');
        ShapedArray.appendNested(b, elements, '{', '}', (to, v) -> {
            String e = toText(v, element);
            if (e == null) {
                to.append("NULL");
            } else if (e.isEmpty() || e.equalsIgnoreCase("null") || e.chars().anyMatch(c -> "{},\"\\".indexOf(c) >= 0 || Character.isWhitespace(c))) {
                to.append('"').append(e.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            } else {
                to.append(e);
            }
        });
        return b.toString();
    }

    /**
     * A composite value as PostgreSQL prints it: {@code (7,1)}, NULL fields empty, a field
     * double-quoted (with {@code "} and {@code \\} doubled) when it is empty or holds a
     * parenthesis, comma, quote, backslash or white space.
     */
    public static String recordText(List<?> fields, SqlType t) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) b.append(',');
            String f = toText(fields.get(i), t.fieldTypes().get(i));
            if (f == null) continue;
            if (f.isEmpty() || f.chars().anyMatch(c -> "(),\"\\".indexOf(c) >= 0 || Character.isWhitespace(c))) {
                b.append('"').append(f.replace("\\", "\\\\").replace("\"", "\"\"")).append('"');
            } else {
                b.append(f);
            }
        }
        return b.append(')').toString();
    }

    /** PostgreSQL's array input ({@link ArrayLiteral}); 22P02 for what is not one. */
    private static List<Object> parseArray(String s, SqlType t) {
        return ArrayLiteral.parse(s, t.element());
    }

    /** Shortest round-trip digits, fixed notation for decimal exponents -4..14 as PostgreSQL 12+. */
    public static String doubleText(double d) {
        if (Double.isNaN(d)) return "NaN";
        if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        BigDecimal b = oneDigit(new BigDecimal(Double.toString(d)), x -> x.doubleValue() == d);
        return shortestText(b, 15);
    }

    /** As {@link #doubleText} for a float: fixed notation for decimal exponents -4..5. */
    public static String realText(float f) {
        if (Float.isNaN(f)) return "NaN";
        if (Float.isInfinite(f)) return f > 0 ? "Infinity" : "-Infinity";
        if (f == 0) return (1 / f < 0) ? "-0" : "0";
        BigDecimal b = oneDigit(new BigDecimal(Float.toString(f)), x -> x.floatValue() == f);
        return shortestText(b, 6);
    }

    /**
     * Java's {@code toString} prints at least two significant digits where one would round-trip
     * ({@code 4.9E-324} for {@code 5e-324}); PostgreSQL's Ryu prints the shortest, so try one digit.
     */
    private static BigDecimal oneDigit(BigDecimal javaDigits, java.util.function.Predicate<BigDecimal> roundTrips) {
        BigDecimal s = javaDigits.stripTrailingZeros();
        if (s.precision() != 2) return s;
        java.math.MathContext one = new java.math.MathContext(1, RoundingMode.HALF_EVEN);
        BigDecimal nearest = s.round(one);
        if (roundTrips.test(nearest)) return nearest;
        BigDecimal other = s.round(new java.math.MathContext(1, s.signum() > 0 ? RoundingMode.DOWN : RoundingMode.UP));
        if (other.equals(nearest)) other = s.round(new java.math.MathContext(1, s.signum() > 0 ? RoundingMode.UP : RoundingMode.DOWN));
        return roundTrips.test(other) ? other : s;
    }

    private static String shortestText(BigDecimal shortest, int fixedBelow) {
        BigDecimal d = shortest.stripTrailingZeros();
        int exp = d.precision() - d.scale() - 1;
        if (exp >= -4 && exp < fixedBelow) {
            return d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString();
        }
        String digits = d.unscaledValue().abs().toString();
        StringBuilder b = new StringBuilder();
        if (d.signum() < 0) b.append('-');
        b.append(digits.charAt(0));
        if (digits.length() > 1) b.append('.').append(digits, 1, digits.length());
        b.append('e').append(exp < 0 ? '-' : '+');
        int a = Math.abs(exp);
        if (a < 10) b.append('0');
        b.append(a);
        return b.toString();
    }

    public static String dateText(LocalDate d) {
        if (!InfiniteTimes.isFinite(d)) return InfiniteTimes.text(d);
        int y = d.getYear();
        boolean bc = y <= 0;
        if (bc) y = 1 - y;
        String ys = y < 1000 ? String.format("%04d", y) : Integer.toString(y);
        return ys + "-" + two(d.getMonthValue()) + "-" + two(d.getDayOfMonth()) + (bc ? " BC" : "");
    }

    public static String timeText(LocalTime t) {
        StringBuilder b = new StringBuilder();
        b.append(two(t.getHour())).append(':').append(two(t.getMinute())).append(':');
        appendSeconds(b, t.getSecond(), t.getNano() / 1000);
        return b.toString();
    }

    public static String timestampText(LocalDateTime ts) {
        if (!InfiniteTimes.isFinite(ts)) return InfiniteTimes.text(ts);
        String date = dateText(ts.toLocalDate());
        if (date.endsWith(" BC")) {
            return date.substring(0, date.length() - 3) + " " + timeText(ts.toLocalTime()) + " BC";
        }
        return date + " " + timeText(ts.toLocalTime());
    }

    /** A timestamptz in the session's time zone (UTC): the offset goes before a BC, as PostgreSQL prints it ({@code 0044-03-15 12:00:00+00 BC}). */
    public static String timestamptzText(Instant v) {
        if (!InfiniteTimes.isFinite(v)) return InfiniteTimes.text(v);
        String local = timestampText(LocalDateTime.ofInstant(v, ZoneOffset.UTC));
        return local.endsWith(" BC") ? local.substring(0, local.length() - 3) + "+00 BC" : local + "+00";
    }

    /** {@code IntervalStyle = postgres}: {@code 1 year 2 mons -3 days +04:05:06.5}. */
    public static String intervalText(Interval iv) {
        StringBuilder b = new StringBuilder();
        boolean[] zeroBefore = {true, false}; // [isZero, isBefore]
        addPart(b, iv.months() / 12, "year", zeroBefore);
        addPart(b, iv.months() % 12, "mon", zeroBefore);
        addPart(b, iv.days(), "day", zeroBefore);
        long t = iv.micros();
        if (zeroBefore[0] || t != 0) {
            boolean minus = t < 0;
            long a = Math.abs(t);
            long hours = a / 3_600_000_000L;
            long rest = a % 3_600_000_000L;
            long minutes = rest / 60_000_000L;
            rest %= 60_000_000L;
            if (!zeroBefore[0]) b.append(' ');
            b.append(minus ? "-" : (zeroBefore[1] ? "+" : ""));
            b.append(hours < 10 ? "0" + hours : Long.toString(hours)).append(':').append(two((int) minutes)).append(':');
            appendSeconds(b, (int) (rest / 1_000_000L), (int) (rest % 1_000_000L));
        }
        return b.toString();
    }

    private static void addPart(StringBuilder b, int value, String unit, boolean[] zeroBefore) {
        if (value == 0) return;
        if (!zeroBefore[0]) b.append(' ');
        if (zeroBefore[1] && value > 0) b.append('+');
        b.append(value).append(' ').append(unit);
        if (value != 1) b.append('s');
        zeroBefore[1] = value < 0;
        zeroBefore[0] = false;
    }

    private static void appendSeconds(StringBuilder b, int sec, int micros) {
        b.append(two(sec));
        if (micros != 0) {
            String f = String.format("%06d", micros);
            int end = f.length();
            while (f.charAt(end - 1) == '0') end--;
            b.append('.').append(f, 0, end);
        }
    }

    private static String two(int v) {
        return v < 10 ? "0" + v : Integer.toString(v);
    }

    // ------------------------------------------------------------------------------- input

    /**
     * What the string {@code s} means as a value of type {@code t}, by PostgreSQL's input function
     * for the type (with the type's length, precision and scale applied as an input function with
     * a type modifier does: too-long VARCHAR/CHAR is 22001 unless the excess is blanks).
     */
    /** A {@link SqlType#vector}'s text: its elements separated by spaces. */
    private static List<Object> parseVector(String s, SqlType t) {
        List<Object> out = new java.util.ArrayList<>();
        for (String part : s.trim().split("\\s+")) if (!part.isEmpty()) out.add(fromText(part, t.element()));
        return java.util.Collections.unmodifiableList(out);
    }

    public static Object fromText(String s, SqlType t) {
        if (s == null) return null;
        return switch (t.kind()) {
            case BOOLEAN -> parseBoolean(s);
            case SMALLINT, INTEGER, BIGINT -> parseInteger(s, t);
            case DOUBLE -> parseDouble(s, t);
            case REAL -> parseDouble(s, t);
            case NUMERIC -> applyNumericTypmod(parseNumeric(s), t);
            case TEXT, UNKNOWN -> s;
            case JSON -> Json.parse(s);
            case JSONB -> Jsonb.parse(s);
            case VARCHAR -> fitString(s, t, false);
            case CHAR -> fitString(s, t, false);
            case BYTEA -> parseBytea(s);
            case UUID -> parseUuid(s);
            case DATE -> DateTimeText.parseDate(s);
            case TIME -> DateTimeText.parseTime(s);
            case TIMESTAMP -> DateTimeText.parseTimestamp(s);
            case TIMESTAMPTZ -> DateTimeText.parseTimestamptz(s);
            case INTERVAL -> DateTimeText.parseInterval(s);
            case ARRAY -> t.isVector() ? parseVector(s, t) : parseArray(s, t);
            case RECORD -> throw new SqlException("0A000", "input of anonymous composite types is not implemented");
        };
    }

    static SqlException invalidSyntax(SqlType t, String s) {
        String code = switch (t.kind()) {
            case DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL -> "22007";
            default -> "22P02";
        };
        // PostgreSQL's input functions name time and timestamp by their short names
        String type = switch (t.kind()) {
            case TIME -> "time";
            case TIMESTAMP -> "timestamp";
            default -> t.kind().pgName();
        };
        return new SqlException(code, "invalid input syntax for type " + type + ": \"" + s + "\"");
    }

    public static Boolean parseBoolean(String s) {
        String v = s.strip().toLowerCase(Locale.ROOT);
        if (!v.isEmpty()) {
            if ("true".startsWith(v) || "yes".startsWith(v) || v.equals("1") || v.equals("on")) return Boolean.TRUE;
            if ("false".startsWith(v) || "no".startsWith(v) || v.equals("0") || (v.length() >= 2 && "off".startsWith(v))) {
                return Boolean.FALSE;
            }
        }
        throw invalidSyntax(SqlType.BOOLEAN, s);
    }

    public static Long parseInteger(String s, SqlType t) {
        String v = s.strip();
        int i = 0;
        boolean neg = false;
        if (i < v.length() && (v.charAt(i) == '+' || v.charAt(i) == '-')) {
            neg = v.charAt(i) == '-';
            i++;
        }
        if (i == v.length()) throw invalidSyntax(t, s);
        long acc = 0;
        boolean overflow = false;
        for (; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') throw invalidSyntax(t, s);
            if (!overflow) {
                // accumulate negatively so Long.MIN_VALUE is reachable
                long next = acc * 10 - (c - '0');
                if (acc < Long.MIN_VALUE / 10 || next > acc) overflow = true;
                else acc = next;
            }
        }
        if (!neg) {
            if (acc == Long.MIN_VALUE) overflow = true;
            else acc = -acc;
        }
        if (overflow || !inRange(acc, t)) {
            throw new SqlException("22003", "value \"" + s + "\" is out of range for type " + t.kind().pgName());
        }
        return acc;
    }

    /** Whether {@code v} fits the integer kind of {@code t}. */
    public static boolean inRange(long v, SqlType t) {
        return switch (t.kind()) {
            case SMALLINT -> v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
            case INTEGER -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
            default -> true;
        };
    }

    /** The text forms of numbers, compiled once: a COPY parses one per value, and compiling the pattern each time took most of its time. */
    private static final java.util.regex.Pattern FLOAT_TEXT = java.util.regex.Pattern.compile("([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(e[+-]?[0-9]+)?");
    private static final java.util.regex.Pattern NUMERIC_TEXT = java.util.regex.Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");
    private static final java.util.regex.Pattern NUMERIC_INFINITY = java.util.regex.Pattern.compile("(?i)[+-]?(inf|infinity)");

    public static Double parseDouble(String s, SqlType t) {
        String v = s.strip();
        String l = v.toLowerCase(Locale.ROOT);
        String body = l.startsWith("+") || l.startsWith("-") ? l.substring(1) : l;
        boolean neg = l.startsWith("-");
        if (body.equals("nan") && l.equals(body)) return Double.NaN;
        if (body.equals("infinity") || body.equals("inf")) return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        if (!FLOAT_TEXT.matcher(body).matches()) throw invalidSyntax(t, s);
        double d = Double.parseDouble(l);
        boolean nonZero = false;
        for (int i = 0; i < body.length() && body.charAt(i) != 'e'; i++) nonZero |= body.charAt(i) >= '1' && body.charAt(i) <= '9';
        if (t.kind() == SqlType.Kind.REAL) {
            float f = (float) d;
            if (Float.isInfinite(f) || (f == 0 && nonZero)) {
                throw new SqlException("22003", "\"" + s + "\" is out of range for type real");
            }
            return (double) f;
        }
        if (Double.isInfinite(d) || (d == 0 && nonZero)) {
            throw new SqlException("22003", "\"" + s + "\" is out of range for type double precision");
        }
        return d;
    }

    /** PostgreSQL's limits of a NUMERIC value: digits before the decimal point, and after it. */
    private static final int NUMERIC_MAX_WEIGHT_DIGITS = 131_072;
    private static final int NUMERIC_MAX_SCALE = 16_383;

    /**
     * The NUMERIC written {@code text} (digits, a point, an exponent, a sign), within
     * PostgreSQL's limits (131072 digits before the point, 16383 after): 22003 "value overflows
     * numeric format" otherwise, found before a long text is parsed (a million digits took
     * 20-36 s) or an exponent is expanded. {@code text} must be BigDecimal's syntax.
     */
    public static BigDecimal numeric(String text) {
        if (text.length() > NUMERIC_MAX_WEIGHT_DIGITS + NUMERIC_MAX_SCALE + 16) throw new SqlException("22003", "value overflows numeric format");
        BigDecimal d;
        try {
            d = new BigDecimal(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new SqlException("22003", "value overflows numeric format");
        }
        long intDigits = (long) d.precision() - d.scale();
        if (d.signum() != 0 && (intDigits > NUMERIC_MAX_WEIGHT_DIGITS || d.scale() > NUMERIC_MAX_SCALE)) {
            throw new SqlException("22003", "value overflows numeric format");
        }
        return d;
    }

    /**
     * A NUMERIC literal with PostgreSQL's display scale (the digits after the point, at least 0),
     * or {@code NaN} (no sign), {@code inf}/{@code infinity} (either sign) in any case.
     */
    public static Object parseNumeric(String s) {
        String v = s.strip();
        if (!NUMERIC_TEXT.matcher(v).matches()) {
            if (v.equalsIgnoreCase("nan")) return NonFiniteNumeric.NAN;
            if (NUMERIC_INFINITY.matcher(v).matches()) {
                return v.startsWith("-") ? NonFiniteNumeric.NEGATIVE_INFINITY : NonFiniteNumeric.POSITIVE_INFINITY;
            }
            throw invalidSyntax(SqlType.NUMERIC, s);
        }
        BigDecimal d = numeric(v.startsWith("+") ? v.substring(1) : v);
        if (d.scale() < 0) d = d.setScale(0);
        return d;
    }

    /**
     * Rounds to the scale of {@code numeric(p,s)} and checks the precision: 22003 numeric field
     * overflow. NaN fits every typmod; an infinity none.
     */
    public static Object applyNumericTypmod(Object v, SqlType t) {
        if (t.length() < 0 || v == NonFiniteNumeric.NAN) return v;
        if (v instanceof NonFiniteNumeric) {
            throw new SqlException("22003", "numeric field overflow").withDetail(
                    "A field with precision " + t.length() + ", scale " + Math.max(t.scale(), 0) + " cannot hold an infinite value.");
        }
        return applyNumericTypmod((BigDecimal) v, t);
    }

    /** {@link #applyNumericTypmod(Object, SqlType)} of a finite value. */
    public static BigDecimal applyNumericTypmod(BigDecimal d, SqlType t) {
        if (t.length() < 0) return d;
        int p = t.length();
        int sc = Math.max(t.scale(), 0);
        BigDecimal r = d.setScale(sc, RoundingMode.HALF_UP);
        int intDigits = r.signum() == 0 ? 0 : r.precision() - r.scale();
        if (intDigits > p - sc) {
            throw new SqlException("22003", "numeric field overflow");
        }
        return r;
    }

    /**
     * A string fitted to VARCHAR(n) or CHAR(n): too long is an error (22001) unless only blanks
     * are cut, or {@code truncate} (an explicit cast); CHAR is padded with blanks.
     */
    public static String fitString(String s, SqlType t, boolean truncate) {
        int n = t.length();
        if (n >= 0) {
            int len = s.codePointCount(0, s.length());
            if (len > n) {
                int cut = s.offsetByCodePoints(0, n);
                if (!truncate) {
                    for (int i = cut; i < s.length(); i++) {
                        if (s.charAt(i) != ' ') throw new SqlException("22001", "value too long for type " + t);
                    }
                }
                s = s.substring(0, cut);
                len = n;
            }
            if (t.kind() == SqlType.Kind.CHAR && len < n) s = s + " ".repeat(n - len);
        }
        return s;
    }

    public static Bytea parseBytea(String s) {
        if (s.startsWith("\\x")) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            int i = 2;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    i++;
                    continue;
                }
                int hi = Character.digit(c, 16);
                if (hi < 0) throw new SqlException("22P02", "invalid hexadecimal digit: \"" + c + "\"");
                if (i + 1 >= s.length()) throw new SqlException("22P02", "invalid hexadecimal data: odd number of digits");
                char c2 = s.charAt(i + 1);
                int lo = Character.digit(c2, 16);
                if (lo < 0) throw new SqlException("22P02", "invalid hexadecimal digit: \"" + c2 + "\"");
                out.write(hi * 16 + lo);
                i += 2;
            }
            return Bytea.copyOf(out.toByteArray());
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < utf8.length; i++) {
            byte c = utf8[i];
            if (c != '\\') {
                out.write(c);
            } else if (i + 1 < utf8.length && utf8[i + 1] == '\\') {
                out.write('\\');
                i++;
            } else if (i + 3 < utf8.length && isOct(utf8[i + 1], '3') && isOct(utf8[i + 2], '7') && isOct(utf8[i + 3], '7')) {
                out.write((utf8[i + 1] - '0') * 64 + (utf8[i + 2] - '0') * 8 + (utf8[i + 3] - '0'));
                i += 3;
            } else {
                throw invalidSyntax(SqlType.BYTEA, s);
            }
        }
        return Bytea.copyOf(out.toByteArray());
    }

    /**
     * A uuid as PostgreSQL reads one: 32 hex digits (either case), a hyphen allowed after any
     * group of four, the whole optionally in braces; surrounding white space is not allowed.
     */
    static java.util.UUID parseUuid(String s) {
        int i = 0;
        int end = s.length();
        if (end > 0 && s.charAt(0) == '{') {
            if (s.charAt(end - 1) != '}') throw invalidSyntax(SqlType.UUID, s);
            i = 1;
            end--;
        }
        long hi = 0;
        long lo = 0;
        int digits = 0;
        while (i < end) {
            char c = s.charAt(i++);
            int d = Character.digit(c, 16);
            if (d < 0 || c > 'f') throw invalidSyntax(SqlType.UUID, s);
            if (digits < 16) hi = hi << 4 | d;
            else lo = lo << 4 | d;
            digits++;
            if (digits == 32) break;
            // a hyphen may follow each group of four digits, but not end the value
            if (digits % 4 == 0 && i < end && s.charAt(i) == '-') i++;
        }
        if (digits != 32 || i != end) throw invalidSyntax(SqlType.UUID, s);
        return new java.util.UUID(hi, lo);
    }

    /** PostgreSQL's uuid order: the bytes, unsigned (Java's UUID compares signed longs). */
    static int compareUuid(java.util.UUID a, java.util.UUID b) {
        int c = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return c != 0 ? c : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    private static boolean isOct(byte b, char max) {
        return b >= '0' && b <= max;
    }

    // ------------------------------------------------------------------------------- order

    /** SQL order of two non-null values of type {@code t} (PostgreSQL's btree order, C collation). */
    public static int compare(Object a, Object b, SqlType t) {
        return switch (t.kind()) {
            case BOOLEAN -> Boolean.compare((Boolean) a, (Boolean) b);
            case SMALLINT, INTEGER, BIGINT -> Long.compare((Long) a, (Long) b);
            case REAL, DOUBLE -> compareDouble((Double) a, (Double) b);
            case NUMERIC -> NonFiniteNumeric.compare(a, b);
            case TEXT, VARCHAR, UNKNOWN, JSON -> compareText((String) a, (String) b);
            case JSONB -> ((Jsonb) a).compareTo((Jsonb) b);
            case CHAR -> compareText(rtrim((String) a), rtrim((String) b));
            case BYTEA -> ((Bytea) a).compareTo((Bytea) b);
            case UUID -> compareUuid((java.util.UUID) a, (java.util.UUID) b);
            case DATE -> ((LocalDate) a).compareTo((LocalDate) b);
            case TIME -> ((LocalTime) a).compareTo((LocalTime) b);
            case TIMESTAMP -> ((LocalDateTime) a).compareTo((LocalDateTime) b);
            case TIMESTAMPTZ -> ((Instant) a).compareTo((Instant) b);
            case INTERVAL -> ((Interval) a).compareTo((Interval) b);
            case ARRAY -> compareArrays((List<?>) a, (List<?>) b, t.element());
            case RECORD -> {
                int c = 0;
                for (int i = 0; i < t.fieldTypes().size() && c == 0; i++) {
                    Object x = ((List<?>) a).get(i), y = ((List<?>) b).get(i);
                    c = x == null ? (y == null ? 0 : 1) : y == null ? -1 : compare(x, y, t.fieldTypes().get(i));
                }
                yield c;
            }
        };
    }

    /**
     * As PostgreSQL orders arrays: element by element in storage order (NULL above every value),
     * then the shorter first, then by shape: fewer dimensions first, then dimension by dimension
     * the shorter, then the lower bounds. Equal only when elements and shape are.
     */
    private static int compareArrays(List<?> a, List<?> b, SqlType element) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            Object x = a.get(i);
            Object y = b.get(i);
            int c = x == null ? (y == null ? 0 : 1) : y == null ? -1 : compare(x, y, element);
            if (c != 0) return c;
        }
        int c = Integer.compare(a.size(), b.size());
        if (c != 0 || !(a instanceof ShapedArray || b instanceof ShapedArray)) return c;
        int n = ShapedArray.dimensions(a);
        c = Integer.compare(n, ShapedArray.dimensions(b));
        for (int d = 0; c == 0 && d < n; d++) c = Integer.compare(ShapedArray.length(a, d), ShapedArray.length(b, d));
        for (int d = 0; c == 0 && d < n; d++) c = Integer.compare(ShapedArray.lower(a, d), ShapedArray.lower(b, d));
        return c;
    }

    /** PostgreSQL's float order: NaN equals NaN and sorts above every other value; -0 equals 0. */
    public static int compareDouble(double a, double b) {
        if (Double.isNaN(a)) return Double.isNaN(b) ? 0 : 1;
        if (Double.isNaN(b)) return -1;
        return a < b ? -1 : (a > b ? 1 : 0);
    }

    /** Code point order, which is the byte order of UTF-8 (the C collation). */
    public static int compareText(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i), y = b.charAt(i);
            if (x != y) {
                boolean sx = Character.isSurrogate(x), sy = Character.isSurrogate(y);
                if (sx != sy) return sx ? 1 : -1;
                return Character.compare(x, y);
            }
        }
        return Integer.compare(a.length(), b.length());
    }

    /** The string without trailing blanks: how CHAR(n) compares and converts to text. */
    public static String rtrim(String s) {
        int e = s.length();
        while (e > 0 && s.charAt(e - 1) == ' ') e--;
        return s.substring(0, e);
    }
}
