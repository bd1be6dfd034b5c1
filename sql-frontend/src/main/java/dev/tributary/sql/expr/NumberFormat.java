package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A number template of PostgreSQL's {@code to_char(number, text)} and {@code to_number(text,
 * text)}, compiled once: digit positions {@code 9} and {@code 0}, the decimal point {@code .}/
 * {@code D}, group separators {@code ,}/{@code G}, the signs {@code S}, {@code MI}, {@code PL},
 * {@code SG} and {@code PR}, {@code FM}, {@code EEEE}, {@code V}, {@code TH}/{@code th},
 * {@code L}, {@code RN}/{@code rn}; anything else is text copied to the output.
 *
 * <p>The locale is PostgreSQL's C locale: the point is {@code .}, the group separator
 * {@code ,}, the currency symbol a space.
 *
 * <p>Output follows PostgreSQL 15 to the character, including its quirks: a value whose integer
 * part has more digits than the template is all {@code #}; {@code FM} drops padding and
 * trailing fractional zeros not forced by {@code 0}; a double keeps at most 15 significant digits
 * (a real 6); {@code EEEE} ignores everything else in the template. A bad template is 42601.
 */
final class NumberFormat {

    /** The template's pattern words; {@link Key#TEXT} is a literal run. */
    enum Key { DIGIT9, DIGIT0, POINT, COMMA, G, S, MI, PL, SG, PR, FM, EEEE, V, TH_UPPER, TH_LOWER, L, RN_UPPER, RN_LOWER, B, C, SP, TEXT }

    /** One element of a template: a pattern word, or text ({@code key == TEXT}). */
    record Node(Key key, String text) {}

    /** Where an {@code S} sign goes: nowhere, before the first digit, after the last. */
    enum SignPlace { NONE, PRE, POST }

    private final List<Node> nodes;
    private final int pre, post, multi;
    private final int zeroStart; // 1-based digit position of the first 0 before the point; 0: none
    private final int zeroEnd;
    private final boolean decimal, zero, fill, minus, plus, bracket, roman, eeee, multiplied;
    private final SignPlace lsign;
    private final int preLsignNum;

    private static final TemplateCache<NumberFormat> CACHE = new TemplateCache<>(NumberFormat::new);

    /** The template compiled, from a small cache (templates are nearly always constants). */
    static NumberFormat of(String template) {
        return CACHE.get(template);
    }

    private static final String[] WORDS = {",", ".", "0", "9", "B", "C", "D", "EEEE", "FM", "G", "L", "MI", "PL", "PR", "RN", "SG", "SP", "S", "TH", "V",
        "b", "c", "d", "eeee", "fm", "g", "l", "mi", "pl", "pr", "rn", "sg", "sp", "s", "th", "v"};

    private static Key keyOf(String w) {
        return switch (w) {
            case "9" -> Key.DIGIT9;
            case "0" -> Key.DIGIT0;
            case ".", "D", "d" -> Key.POINT;
            case ",", "G", "g" -> w.equals(",") ? Key.COMMA : Key.G;
            case "S", "s" -> Key.S;
            case "MI", "mi" -> Key.MI;
            case "PL", "pl" -> Key.PL;
            case "SG", "sg" -> Key.SG;
            case "PR", "pr" -> Key.PR;
            case "FM", "fm" -> Key.FM;
            case "EEEE", "eeee" -> Key.EEEE;
            case "V", "v" -> Key.V;
            case "TH" -> Key.TH_UPPER;
            case "th" -> Key.TH_LOWER;
            case "L", "l" -> Key.L;
            case "RN" -> Key.RN_UPPER;
            case "rn" -> Key.RN_LOWER;
            case "B", "b" -> Key.B;
            case "C", "c" -> Key.C;
            default -> Key.SP;
        };
    }

    private static SqlException syntax(String message) {
        return new SqlException("42601", message);
    }

    private NumberFormat(String t) {
        List<Node> out = new ArrayList<>();
        int pre = 0, post = 0, multi = 0, zeroStart = 0, zeroEnd = 0, preLsignNum = 0;
        boolean decimal = false, zero = false, fill = false, minus = false, plus = false, bracket = false, roman = false, eeee = false, mult = false,
                lsignSet = false, blank = false;
        SignPlace lsign = SignPlace.NONE;
        int i = 0;
        while (i < t.length()) {
            String word = null;
            for (String w : WORDS) if (t.startsWith(w, i) && (word == null || w.length() > word.length())) word = w;
            if (word == null) {
                i = literal(t, i, out);
                continue;
            }
            i += word.length();
            Key k = keyOf(word);
            if (eeee && k != Key.EEEE) throw syntax("\"EEEE\" must be the last pattern used");
            switch (k) {
                case DIGIT9 -> {
                    if (bracket) throw syntax("\"9\" must be ahead of \"PR\"");
                    if (mult) multi++;
                    else if (decimal) post++;
                    else pre++;
                }
                case DIGIT0 -> {
                    if (bracket) throw syntax("\"0\" must be ahead of \"PR\"");
                    if (!zero && !decimal) {
                        zero = true;
                        zeroStart = pre + 1;
                    }
                    if (!decimal) pre++;
                    else post++;
                    zeroEnd = pre + post;
                }
                case POINT -> {
                    if (decimal) throw syntax("multiple decimal points");
                    if (mult) throw syntax("cannot use \"V\" and decimal point together");
                    decimal = true;
                }
                case S -> {
                    if (lsignSet) throw syntax("cannot use \"S\" twice");
                    if (plus || minus || bracket) throw syntax("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
                    if (!decimal) {
                        lsign = SignPlace.PRE;
                        preLsignNum = pre;
                        lsignSet = true;
                    } else if (lsign == SignPlace.NONE) {
                        lsign = SignPlace.POST;
                        lsignSet = true;
                    }
                }
                case MI -> {
                    if (lsignSet) throw syntax("cannot use \"S\" and \"MI\" together");
                    minus = true;
                }
                case PL -> {
                    if (lsignSet) throw syntax("cannot use \"S\" and \"PL\" together");
                    plus = true;
                }
                case SG -> {
                    if (lsignSet) throw syntax("cannot use \"S\" and \"SG\" together");
                    minus = true;
                    plus = true;
                }
                case PR -> {
                    if (lsignSet || plus || minus) throw syntax("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
                    bracket = true;
                }
                case RN_UPPER, RN_LOWER -> roman = true;
                case FM -> fill = true;
                case B -> blank |= pre == 0 && post == 0 && !zero;
                case V -> {
                    if (decimal) throw syntax("cannot use \"V\" and decimal point together");
                    mult = true;
                }
                case EEEE -> {
                    if (eeee) throw syntax("cannot use \"EEEE\" twice");
                    if (blank || fill || lsignSet || bracket || minus || plus || roman || mult) {
                        throw new SqlException("42601", "\"EEEE\" is incompatible with other formats")
                                .withDetail("\"EEEE\" may only be used together with digit and decimal point patterns.");
                    }
                    eeee = true;
                }
                default -> {
                }
            }
            out.add(new Node(k, word));
        }
        this.nodes = List.copyOf(out);
        this.pre = pre;
        this.post = post;
        this.multi = multi;
        this.zeroStart = zeroStart;
        this.zeroEnd = zeroEnd;
        this.decimal = decimal;
        this.zero = zero;
        this.fill = fill;
        this.minus = minus;
        this.plus = plus;
        this.bracket = bracket;
        this.roman = roman;
        this.eeee = eeee;
        this.multiplied = mult;
        this.lsign = lsign;
        this.preLsignNum = preLsignNum;
    }

    /**
     * Text at {@code i} that is no pattern word, appended as a TEXT node: a double-quoted string
     * (a backslash in it takes the next character literally), {@code \"} for a quote, or one
     * character. Returns the position after it.
     */
    static int literal(String t, int i, List<Node> out) {
        if (t.charAt(i) == '"') {
            StringBuilder b = new StringBuilder();
            i++;
            while (i < t.length()) {
                char c = t.charAt(i);
                if (c == '"') {
                    i++;
                    break;
                }
                if (c == '\\' && i + 1 < t.length()) c = t.charAt(++i);
                b.append(c);
                i++;
            }
            if (!b.isEmpty()) out.add(new Node(Key.TEXT, b.toString()));
            return i;
        }
        if (t.charAt(i) == '\\' && i + 1 < t.length() && t.charAt(i + 1) == '"') i++;
        int n = Character.charCount(t.codePointAt(i));
        out.add(new Node(Key.TEXT, t.substring(i, i + n)));
        return i + n;
    }

    // --------------------------------------------------------------------------- to_char

    /**
     * {@code to_char(numeric, template)}: NaN and the infinities print as a double's do (NaN, or
     * {@code #} for every digit), but RN is PostgreSQL's 0A000 for them, as the integer it needs.
     */
    String format(Object v) {
        if (v instanceof dev.tributary.sql.types.NonFiniteNumeric n) {
            if (roman) throw new SqlException("0A000", "cannot convert " + (n == dev.tributary.sql.types.NonFiniteNumeric.NAN ? "NaN" : "infinity") + " to integer");
            return format(n.asDouble(), 15);
        }
        return format((BigDecimal) v);
    }

    /** {@code to_char(numeric, template)} of a finite value. */
    String format(BigDecimal v) {
        if (roman) return render(romanOf(v.setScale(0, RoundingMode.HALF_UP)), '\0', 0, pre, post);
        if (eeee) {
            String s = scientific(v, post);
            return s.startsWith("-") ? s : " " + s;
        }
        int p = pre;
        if (multi > 0) {
            v = v.scaleByPowerOfTen(multi);
            p += multi;
        }
        String s = v.setScale(post, RoundingMode.HALF_UP).toPlainString();
        return fixed(s, p, post);
    }

    /** {@code to_char(integer/bigint, template)}; {@code bits} is 32 or 64 (how {@code V} multiplies). */
    String format(long v, int bits) {
        if (roman) return render(romanOf(BigDecimal.valueOf(v)), '\0', 0, pre, post);
        if (eeee && bits == 64) {
            String s = scientific(BigDecimal.valueOf(v), post); // a bigint goes the numeric way, an integer the double way
            return s.startsWith("-") ? s : " " + s;
        }
        if (eeee) return scientific((double) v, post);
        int p = pre;
        if (multi > 0) {
            if (bits == 32) {
                v = (int) v * (int) Math.pow(10, multi); // PostgreSQL multiplies an integer's value in 32 bits, wrapping
            } else {
                BigInteger m = BigInteger.valueOf(v).multiply(BigInteger.TEN.pow(multi));
                if (m.bitLength() >= 64) throw new SqlException("22003", "bigint out of range");
                v = m.longValue();
            }
            p += multi;
        }
        String s = Long.toString(v);
        if (post > 0) s = s + "." + "0".repeat(post);
        return fixed(s, p, post);
    }

    /** {@code to_char(double precision/real, template)}; {@code digits} is 15 for a double, 6 for a real. */
    String format(double v, int digits) {
        if (roman) {
            // PostgreSQL converts a double beyond the integers without a check: the machine's
            // out-of-range integer, which no Roman numeral has
            double whole = Math.rint(v);
            boolean fits = whole >= Integer.MIN_VALUE && whole <= Integer.MAX_VALUE;
            return render(romanOf(fits ? BigDecimal.valueOf(whole) : BigDecimal.ZERO), '\0', 0, pre, post);
        }
        if (eeee) {
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                StringBuilder b = new StringBuilder("#".repeat(pre + post + 6));
                b.setCharAt(0, ' ');
                b.setCharAt(pre + 1, '.');
                return b.toString();
            }
            return scientific(v, post);
        }
        int p = pre, q = post;
        if (multi > 0) {
            v = v * Math.pow(10, multi);
            p += multi;
        }
        boolean finite = !Double.isNaN(v) && !Double.isInfinite(v);
        // the digits kept are counted on the integer part as printed ("Infinity" counts 8)
        int intDigits = finite ? new BigDecimal(Math.abs(v)).setScale(0, RoundingMode.HALF_EVEN).toPlainString().length()
                : Double.isNaN(v) ? 3 : 8;
        if (intDigits >= digits) q = 0;
        else if (intDigits + q > digits) q = digits - intDigits;
        String s;
        if (!finite) {
            s = Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
        } else {
            BigDecimal r = new BigDecimal(v).setScale(q, RoundingMode.HALF_EVEN);
            s = r.toPlainString();
            if (r.signum() == 0 && (v < 0 || (v == 0 && 1 / v < 0))) s = "-" + s; // C prints -0
        }
        return fixed(s, p, q);
    }

    /** A plain decimal string laid into the template: padded before, or all '#' when it does not fit. */
    private String fixed(String s, int p, int q) {
        char sign = '+';
        if (s.startsWith("-")) {
            sign = '-';
            s = s.substring(1);
        }
        int dot = s.indexOf('.');
        int preLen = dot >= 0 ? dot : s.length();
        int spaces = 0;
        if (preLen < p) spaces = p - preLen;
        else if (preLen > p) {
            StringBuilder b = new StringBuilder("#".repeat(p + q + 1));
            b.setCharAt(p, '.');
            s = b.toString();
        }
        return render(s, sign, spaces, p, q);
    }

    /** The C library's {@code %+.Ne} of a double, with a space for the plus sign. */
    private static String scientific(double v, int decimals) {
        boolean negative = v < 0 || (v == 0 && 1 / v < 0);
        BigDecimal a = new BigDecimal(Math.abs(v));
        String digits;
        int exponent;
        if (a.signum() == 0) {
            digits = "0".repeat(decimals + 1);
            exponent = 0;
        } else {
            BigDecimal r = a.round(new MathContext(decimals + 1, RoundingMode.HALF_EVEN));
            exponent = r.precision() - r.scale() - 1;
            digits = r.unscaledValue().toString();
            digits = digits.length() > decimals + 1 ? digits.substring(0, decimals + 1) : digits + "0".repeat(decimals + 1 - digits.length());
        }
        return (negative ? "-" : " ") + mantissa(digits) + exponent(exponent);
    }

    private static String mantissa(String digits) {
        return digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    }

    private static String exponent(int e) {
        String n = Integer.toString(Math.abs(e));
        return "e" + (e < 0 ? "-" : "+") + (n.length() < 2 ? "0" + n : n);
    }

    /**
     * PostgreSQL's scientific form of a numeric: the exponent of the unrounded value, the
     * significand rounded half away from zero to {@code decimals} places (so 9.999 at two places
     * is {@code 10.00e+00}, as PostgreSQL prints it).
     */
    private static String scientific(BigDecimal v, int decimals) {
        int e = v.signum() == 0 ? 0 : v.precision() - v.scale() - 1;
        BigDecimal sig = v.movePointLeft(e).setScale(decimals, RoundingMode.HALF_UP);
        return sig.toPlainString() + exponent(e);
    }

    private static final String[] ROMAN_THOUSANDS = {"", "M", "MM", "MMM"};
    private static final String[] ROMAN_HUNDREDS = {"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"};
    private static final String[] ROMAN_TENS = {"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"};
    private static final String[] ROMAN_ONES = {"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"};

    /** A whole number in Roman numerals; 15 '#' outside 1..3999; 22003 outside the integer range. */
    private static String romanOf(BigDecimal whole) {
        if (whole.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0 || whole.compareTo(BigDecimal.valueOf(Integer.MIN_VALUE)) < 0) {
            throw new SqlException("22003", "integer out of range");
        }
        int n = whole.intValue();
        if (n < 1 || n > 3999) return "#".repeat(15);
        return ROMAN_THOUSANDS[n / 1000] + ROMAN_HUNDREDS[n / 100 % 10] + ROMAN_TENS[n / 10 % 10] + ROMAN_ONES[n % 10];
    }

    /** One rendering of the template: the digits being laid out and where the layout stands. */
    private final class Render {
        final String number;
        final char sign;
        final int outPreSpaces;
        final int post;
        final StringBuilder out = new StringBuilder();
        int cut = -1; // where PostgreSQL wrote a NUL: the output ends there
        int at; // the next character of number
        int numCurr;
        int numCount;
        int lastRelevant = -1;
        boolean signWrote, numIn, bracketOn, lsignOn, dec;
        SignPlace place;

        Render(String number, char sign, int outPreSpaces, int pre, int post) {
            this.number = number;
            this.sign = sign;
            this.outPreSpaces = outPreSpaces;
            this.post = post;
            // Roman numerals keep only FM: no sign, digits or point
            boolean pl = plus && !roman, mi = minus && !roman;
            this.bracketOn = bracket && !roman;
            this.lsignOn = lsign != SignPlace.NONE && !roman;
            this.place = roman ? SignPlace.NONE : lsign;
            this.dec = decimal && !roman;
            if (pl || mi) {
                signWrote = !(pl && !mi);
            } else {
                if (sign != '-' && fill) bracketOn = false;
                signWrote = sign == '+' && fill && !lsignOn;
                if (place == SignPlace.PRE && pre == preLsignNum) place = SignPlace.POST;
            }
            numCount = post + pre - 1;
            if (fill && dec) {
                int dot = number.indexOf('.');
                if (dot >= 0) {
                    lastRelevant = dot;
                    for (int k = dot + 1; k < number.length(); k++) if (number.charAt(k) != '0') lastRelevant = k;
                    if (zeroEnd > outPreSpaces) {
                        int lastZero = Math.min(number.length() - 1, zeroEnd - outPreSpaces);
                        if (lastRelevant < lastZero) lastRelevant = lastZero;
                    }
                }
            }
            if (!signWrote && outPreSpaces == 0) numCount++;
        }

        private char ch(int k) {
            return k < number.length() ? number.charAt(k) : '\0';
        }

        private void put(char c) {
            if (c == '\0') {
                if (cut < 0) cut = out.length();
                return;
            }
            out.append(c);
        }

        private boolean lastIsPoint() {
            return lastRelevant >= 0 && number.charAt(lastRelevant) == '.';
        }

        void digit(Key id) {
            if (roman) return;
            numIn = false; // a group separator prints only right after a digit
            int zs = zeroStart > 0 ? zeroStart - 1 : 0;
            boolean predecSpace = !zero && at == 0 && ch(0) == '0' && post != 0;
            if (!signWrote && (numCurr >= outPreSpaces || (zero && zs == numCurr)) && (!predecSpace || lastIsPoint())) {
                if (lsignOn) {
                    if (place == SignPlace.PRE) {
                        put(sign == '-' ? '-' : '+');
                        signWrote = true;
                    }
                } else if (bracketOn) {
                    put(sign == '+' ? ' ' : '<');
                    signWrote = true;
                } else if (sign == '+') {
                    if (!fill) put(' ');
                    signWrote = true;
                } else if (sign == '-') {
                    put('-');
                    signWrote = true;
                }
            }
            if (numCurr < outPreSpaces && (zs > numCurr || !zero)) {
                if (!fill) put(' ');
            } else if (zero && numCurr < outPreSpaces && zs <= numCurr) {
                put('0');
                numIn = true;
            } else {
                char c = ch(at);
                if (c == '.') {
                    if (!lastIsPoint() || fill) put('.');
                } else if (lastRelevant >= 0 && at > lastRelevant && id != Key.DIGIT0) {
                    // a fractional zero FM drops
                } else if (predecSpace) {
                    if (!fill) put(' ');
                    else if (lastIsPoint()) put('0');
                } else {
                    put(c);
                    numIn = true;
                }
                if (at < number.length()) at++;
            }
            int end = numCount + (outPreSpaces > 0 ? 1 : 0) + (dec ? 1 : 0);
            if (lastRelevant >= 0 && lastRelevant == at) end = numCurr;
            if (numCurr + 1 == end) {
                if (signWrote && bracketOn) put(sign == '+' ? ' ' : '>');
                else if (lsignOn && place == SignPlace.POST) put(sign == '-' ? '-' : '+');
            }
            numCurr++;
        }
    }

    private String render(String number, char sign, int outPreSpaces, int p, int q) {
        if (eeee) return number;
        Render r = new Render(number, sign, outPreSpaces, roman ? 0 : p, roman ? 0 : q);
        StringBuilder out = r.out;
        for (Node n : nodes) {
            switch (n.key()) {
                case TEXT -> out.append(n.text());
                case DIGIT9, DIGIT0, POINT -> r.digit(n.key());
                case COMMA, G -> {
                    if (r.numIn) out.append(',');
                    else if (!fill) out.append(' ');
                }
                case L -> out.append(' ');
                case RN_UPPER, RN_LOWER -> {
                    String s = n.key() == Key.RN_LOWER ? number.toLowerCase(Locale.ROOT) : number;
                    out.append(fill ? s : " ".repeat(Math.max(0, 15 - s.length())) + s);
                }
                case TH_UPPER, TH_LOWER -> {
                    if (!roman && !number.startsWith("#") && sign != '-' && !decimal) out.append(Ordinals.suffix(number, n.key() == Key.TH_UPPER));
                }
                case MI -> {
                    if (sign == '-') out.append('-');
                    else if (!fill) out.append(' ');
                }
                case PL -> {
                    if (sign == '+') out.append('+');
                    else if (!fill) out.append(' ');
                }
                case SG -> r.put(sign);
                case S, PR, FM, EEEE, V, B, C, SP -> {
                }
            }
        }
        return r.cut >= 0 ? out.substring(0, r.cut) : out.toString();
    }
    // -------------------------------------------------------------------------- to_number

    /**
     * {@code to_number(text, template)}: the input read position by position against the
     * template. Digits are taken where the template has {@code 9}/{@code 0} or a point, signs
     * where it has {@code S}, {@code MI}, {@code PL}, {@code SG} or {@code PR} (and a leading
     * {@code -}/{@code +}); text skips a character each; {@code L}, {@code TH} and a sign not found skip characters that cannot be part of a number. The scale is the number of fractional
     * digits read; 22P02 when no digit is read, 22003 when more integer digits are read than the
     * template has, 0A000 for {@code RN} and {@code EEEE}.
     */
    BigDecimal parse(String input) {
        if (roman) throw new SqlException("0A000", "\"RN\" not supported for input");
        if (eeee) throw new SqlException("0A000", "\"EEEE\" not supported for input");
        Reader r = new Reader(input);
        for (Node n : nodes) {
            if (r.at >= input.length()) break;
            switch (n.key()) {
                case DIGIT9, DIGIT0, POINT -> {
                    r.digit(n.key());
                    r.at++;
                }
                case COMMA, G -> {
                    if (!fill && input.charAt(r.at) == ',') r.at++;
                }
                case TH_UPPER, TH_LOWER -> {
                    if (!decimal) r.skipNonData(2);
                }
                case L -> r.skipNonData(1);
                case MI, PL, SG -> {
                    char c = input.charAt(r.at);
                    if (c == '-' && n.key() != Key.PL) {
                        r.sign = '-';
                        r.at++;
                    } else if (c == '+' && n.key() != Key.MI) {
                        r.sign = '+';
                        r.at++;
                    } else {
                        r.skipNonData(1);
                    }
                }
                case TEXT -> r.at = Math.min(input.length(), r.at + n.text().length());
                case S, PR, FM, EEEE, V, B, C, SP, RN_UPPER, RN_LOWER -> {
                }
            }
        }
        String digits = r.digits.toString();
        if (digits.endsWith(".")) digits = digits.substring(0, digits.length() - 1);
        BigDecimal v;
        try {
            v = new BigDecimal(digits.isEmpty() ? " " : digits);
        } catch (NumberFormatException e) {
            throw new SqlException("22P02", "invalid input syntax for type numeric: \"" + (r.sign == ' ' ? " " : String.valueOf(r.sign)) + digits + "\"");
        }
        if (r.sign == '-') v = v.negate();
        int precision = pre + multi + r.readPost;
        int intDigits = v.signum() == 0 ? 0 : Math.max(0, v.precision() - v.scale());
        if (intDigits > precision - r.readPost) {
            int max = precision - r.readPost;
            throw new SqlException("22003", "numeric field overflow").withDetail("A field with precision " + precision + ", scale " + r.readPost
                    + " must round to an absolute value less than " + (max == 0 ? "1" : "10^" + max) + ".");
        }
        v = v.setScale(r.readPost, RoundingMode.HALF_UP);
        if (multiplied) v = v.multiply(BigDecimal.ONE.movePointLeft(multi).setScale(16, RoundingMode.HALF_UP)); // as PostgreSQL's power(10, -n)
        return v;
    }

    /** Where a to_number read stands: the input position, the digits and sign read so far. */
    private final class Reader {
        final String in;
        final StringBuilder digits = new StringBuilder();
        int at, readPre, readPost;
        boolean readDec;
        char sign = ' ';

        Reader(String in) {
            this.in = in;
        }

        private boolean isDigit(int k) {
            return k < in.length() && in.charAt(k) >= '0' && in.charAt(k) <= '9';
        }

        /** Skips up to {@code n} characters that cannot be part of a number. */
        void skipNonData(int n) {
            for (; n > 0 && at < in.length() && "0123456789.,+-".indexOf(in.charAt(at)) < 0; n--) at++;
        }

        /** One digit position; leaves {@code at} on the last character it used (the caller steps past it). */
        void digit(Key id) {
            boolean read = false;
            if (in.charAt(at) == ' ') at++;
            if (at >= in.length()) return;
            if (sign == ' ' && id != Key.POINT && readPre + readPost == 0) {
                char c = in.charAt(at);
                if (lsign == SignPlace.PRE) {
                    if (c == '-' || c == '+') {
                        sign = c;
                        at++;
                    }
                } else if (c == '-' || (bracket && c == '<')) {
                    sign = '-';
                    at++;
                } else if (c == '+') {
                    sign = '+';
                    at++;
                }
            }
            if (at >= in.length()) return;
            char c = in.charAt(at);
            if (c >= '0' && c <= '9') {
                if (readDec && readPost == post) return;
                digits.append(c);
                if (readDec) readPost++;
                else readPre++;
                read = true;
            } else if (decimal && !readDec && c == '.') {
                digits.append('.');
                readDec = true;
                read = true;
            }
            if (at >= in.length()) return;
            if (sign == ' ' && readPre + readPost > 0) {
                if (lsign != SignPlace.NONE && read && at + 1 < in.length() && !isDigit(at + 1)) {
                    char s = in.charAt(at + 1);
                    if (s == '-' || s == '+') {
                        sign = s;
                        at++;
                    }
                } else if (!read && lsign == SignPlace.NONE && (plus || minus)) {
                    if (c == '-' || c == '+') sign = c;
                }
            }
        }
    }
}
