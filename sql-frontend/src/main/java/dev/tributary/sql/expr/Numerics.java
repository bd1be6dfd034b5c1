package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType.Kind;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Arithmetic with PostgreSQL's results: integer overflow per kind, NUMERIC result scales
 * ({@code select_div_scale}, the scales of sqrt, ln, log, exp and power), float overflow and
 * underflow checks, and the data errors 22003, 22012, 2201E and 2201F.
 *
 * <p>NUMERIC ln, exp and fractional powers are computed with {@link BigDecimal} to more digits
 * than the result scale needs (Newton's method on a Taylor-series exp), then rounded half away
 * from zero as PostgreSQL rounds.
 */
public final class Numerics {
    private Numerics() {}

    static final int MIN_SIG_DIGITS = 16;
    static final int MAX_DISPLAY_SCALE = 1000;

    static SqlException divisionByZero() {
        return new SqlException("22012", "division by zero");
    }

    // ---------------------------------------------------------------------------- integers

    static long checkInt(long v, Kind k) {
        if (k == Kind.SMALLINT && (v < Short.MIN_VALUE || v > Short.MAX_VALUE)) throw Casts.integerOutOfRange(k);
        if (k == Kind.INTEGER && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) throw Casts.integerOutOfRange(k);
        return v;
    }

    static long addInt(long a, long b, Kind k) {
        try {
            return checkInt(Math.addExact(a, b), k);
        } catch (ArithmeticException e) {
            throw Casts.integerOutOfRange(k);
        }
    }

    static long subInt(long a, long b, Kind k) {
        try {
            return checkInt(Math.subtractExact(a, b), k);
        } catch (ArithmeticException e) {
            throw Casts.integerOutOfRange(k);
        }
    }

    static long mulInt(long a, long b, Kind k) {
        try {
            return checkInt(Math.multiplyExact(a, b), k);
        } catch (ArithmeticException e) {
            throw Casts.integerOutOfRange(k);
        }
    }

    static long divInt(long a, long b, Kind k) {
        if (b == 0) throw divisionByZero();
        if (a == Long.MIN_VALUE && b == -1) throw Casts.integerOutOfRange(k);
        return checkInt(a / b, k);
    }

    static long modInt(long a, long b) {
        if (b == 0) throw divisionByZero();
        if (b == -1) return 0;
        return a % b;
    }

    // ------------------------------------------------------------------------------ floats

    /** A float8 result checked as PostgreSQL's {@code float_overflow_error}/{@code float_underflow_error}. */
    static double checkFloat(double r, boolean infOk, boolean zeroOk) {
        if (Double.isInfinite(r) && !infOk) throw new SqlException("22003", "value out of range: overflow");
        if (r == 0 && !zeroOk) throw new SqlException("22003", "value out of range: underflow");
        return r;
    }

    static Double floatResult(double r, Kind k) {
        return k == Kind.REAL ? Casts.toReal(r) : Double.valueOf(r);
    }

    static double addFloat(double a, double b) {
        return checkFloat(a + b, Double.isInfinite(a) || Double.isInfinite(b), true);
    }

    static double subFloat(double a, double b) {
        return checkFloat(a - b, Double.isInfinite(a) || Double.isInfinite(b), true);
    }

    static double mulFloat(double a, double b) {
        return checkFloat(a * b, Double.isInfinite(a) || Double.isInfinite(b), a == 0 || b == 0);
    }

    static double divFloat(double a, double b) {
        if (b == 0 && !Double.isNaN(a)) throw divisionByZero();
        return checkFloat(a / b, Double.isInfinite(a), a == 0 || Double.isInfinite(b));
    }

    static double powFloat(double a, double b) {
        if (a == 0 && b < 0) throw new SqlException("2201F", "zero raised to a negative power is undefined");
        if (a < 0 && Math.floor(b) != b && !Double.isInfinite(b)) {
            throw new SqlException("2201F", "a negative number raised to a non-integer power yields a complex result");
        }
        double r = Math.pow(a, b);
        boolean infArg = Double.isInfinite(a) || Double.isInfinite(b);
        if (Double.isInfinite(r) && !infArg) throw new SqlException("22003", "value out of range: overflow");
        if (r == 0 && a != 0 && !infArg) throw new SqlException("22003", "value out of range: underflow");
        return r;
    }

    static double sqrtFloat(double a) {
        if (a < 0) throw new SqlException("2201F", "cannot take square root of a negative number");
        return Math.sqrt(a);
    }

    static double lnFloat(double a) {
        if (a == 0) throw new SqlException("2201E", "cannot take logarithm of zero");
        if (a < 0) throw new SqlException("2201E", "cannot take logarithm of a negative number");
        return Math.log(a);
    }

    static double log10Float(double a) {
        if (a == 0) throw new SqlException("2201E", "cannot take logarithm of zero");
        if (a < 0) throw new SqlException("2201E", "cannot take logarithm of a negative number");
        return Math.log10(a);
    }

    static double expFloat(double a) {
        double r = Math.exp(a);
        return checkFloat(r, Double.isInfinite(a), a == Double.NEGATIVE_INFINITY);
    }

    // ----------------------------------------------------------------------------- numeric

    /** The weight (power of 10000) and first base-10000 digit of {@code v}, as PostgreSQL's NUMERIC holds it. */
    private static int[] weightAndFirstDigit(BigDecimal v) {
        if (v.signum() == 0) return new int[] {0, 0};
        BigDecimal a = v.abs();
        int exp10 = a.precision() - a.scale() - 1;
        int weight = Math.floorDiv(exp10, 4);
        int first = a.movePointLeft(4 * weight).setScale(0, RoundingMode.DOWN).intValue();
        return new int[] {weight, first};
    }

    /** The scale of {@code a / b}: 16 significant digits, at least either input's scale ({@code select_div_scale}). */
    static int divScale(BigDecimal a, BigDecimal b) {
        int[] w1 = weightAndFirstDigit(a), w2 = weightAndFirstDigit(b);
        int qweight = w1[0] - w2[0];
        if (w1[1] <= w2[1]) qweight--;
        int rscale = MIN_SIG_DIGITS - qweight * 4;
        rscale = Math.max(rscale, Math.max(a.scale(), b.scale()));
        rscale = Math.max(rscale, 0);
        return Math.min(rscale, MAX_DISPLAY_SCALE);
    }

    public static BigDecimal divide(BigDecimal a, BigDecimal b) {
        if (b.signum() == 0) throw divisionByZero();
        return a.divide(b, divScale(a, b), RoundingMode.HALF_UP);
    }

    static BigDecimal mod(BigDecimal a, BigDecimal b) {
        if (b.signum() == 0) throw divisionByZero();
        return a.remainder(b).setScale(Math.max(a.scale(), b.scale()), RoundingMode.UNNECESSARY);
    }

    /** Integer division truncating toward zero ({@code div(a, b)}). */
    static BigDecimal div(BigDecimal a, BigDecimal b) {
        if (b.signum() == 0) throw divisionByZero();
        return a.divideToIntegralValue(b).setScale(0, RoundingMode.DOWN);
    }

    static BigDecimal sqrt(BigDecimal a) {
        if (a.signum() < 0) throw new SqlException("2201F", "cannot take square root of a negative number");
        int weight = weightAndFirstDigit(a)[0];
        int sweight = (weight + 1) * 4 / 2 - 1;
        int rscale = clampScale(MIN_SIG_DIGITS - sweight, a.scale());
        return sqrt(a, rscale);
    }

    /** The square root of {@code a} (not negative), rounded half up to {@code rscale} digits ({@code sqrt_var}). */
    static BigDecimal sqrt(BigDecimal a, int rscale) {
        if (a.signum() == 0) return BigDecimal.ZERO.setScale(rscale);
        return a.sqrt(new MathContext(a.precision() + rscale + 20)).setScale(rscale, RoundingMode.HALF_UP);
    }

    private static int clampScale(int rscale, int... atLeast) {
        for (int s : atLeast) rscale = Math.max(rscale, s);
        return Math.min(Math.max(rscale, 0), MAX_DISPLAY_SCALE);
    }

    /** PostgreSQL's estimate of the decimal weight of ln(v) ({@code estimate_ln_dweight}). */
    private static int lnDweight(BigDecimal v) {
        if (v.signum() <= 0) return 0;
        if (v.compareTo(new BigDecimal("0.9")) >= 0 && v.compareTo(new BigDecimal("1.1")) <= 0) {
            BigDecimal x = v.subtract(BigDecimal.ONE);
            if (x.signum() == 0) return 0;
            return x.precision() - x.scale() - 1;
        }
        double ln = approxLn(v);
        return (int) Math.log10(Math.abs(ln));
    }

    /** log10(|v|) from the decimal exponent and leading digits, exact for powers of ten (as PostgreSQL's estimate). */
    private static double log10Abs(BigDecimal v) {
        BigDecimal a = v.abs();
        int exp10 = a.precision() - a.scale() - 1;
        return Math.log10(a.movePointLeft(exp10).doubleValue()) + exp10;
    }

    private static double approxLn(BigDecimal v) {
        int exp10 = v.precision() - v.scale() - 1;
        double mant = v.movePointLeft(exp10).doubleValue();
        return Math.log(mant) + exp10 * Math.log(10);
    }

    static BigDecimal ln(BigDecimal a) {
        checkLogArg(a);
        int rscale = clampScale(MIN_SIG_DIGITS - lnDweight(a), a.scale());
        return lnExact(a, rscale + 10).setScale(rscale, RoundingMode.HALF_UP);
    }

    static BigDecimal log10(BigDecimal a) {
        return log(BigDecimal.TEN, a);
    }

    static BigDecimal log(BigDecimal base, BigDecimal a) {
        checkLogArg(base);
        checkLogArg(a);
        if (base.compareTo(BigDecimal.ONE) == 0) throw divisionByZero();
        int rscale = clampScale(MIN_SIG_DIGITS - (lnDweight(a) - lnDweight(base)), base.scale(), a.scale());
        int work = rscale + 20 + Math.abs(lnDweight(base));
        MathContext mc = new MathContext(work + 20);
        return lnExact(a, work).divide(lnExact(base, work), mc).setScale(rscale, RoundingMode.HALF_UP);
    }

    private static void checkLogArg(BigDecimal a) {
        if (a.signum() == 0) throw new SqlException("2201E", "cannot take logarithm of zero");
        if (a.signum() < 0) throw new SqlException("2201E", "cannot take logarithm of a negative number");
    }

    static BigDecimal exp(BigDecimal a) {
        double val = a.doubleValue() * 0.434294481903252;
        if (val > 131072 * 4) throw new SqlException("22003", "value overflows numeric format");
        val = Math.max(-MAX_DISPLAY_SCALE, Math.min(MAX_DISPLAY_SCALE, val));
        int rscale = clampScale(MIN_SIG_DIGITS - (int) val, a.scale());
        if (val < -MAX_DISPLAY_SCALE + 1) return BigDecimal.ZERO.setScale(rscale);
        int digits = Math.max(0, (int) val) + rscale + 10;
        return expExact(a, digits).setScale(rscale, RoundingMode.HALF_UP);
    }

    static BigDecimal power(BigDecimal base, BigDecimal exp) {
        if (base.signum() == 0) {
            if (exp.signum() < 0) throw new SqlException("2201F", "zero raised to a negative power is undefined");
        }
        boolean intExp = exp.signum() == 0 || exp.stripTrailingZeros().scale() <= 0;
        if (base.signum() < 0 && !intExp) {
            throw new SqlException("2201F", "a negative number raised to a non-integer power yields a complex result");
        }
        if (base.signum() == 0) {
            int rscale = clampScale(MIN_SIG_DIGITS, base.scale(), exp.scale());
            return (exp.signum() == 0 ? BigDecimal.ONE : BigDecimal.ZERO).setScale(rscale);
        }
        double logAbs = log10Abs(base) * exp.doubleValue();
        if (logAbs > 131072) throw new SqlException("22003", "value overflows numeric format");
        int rscale = clampScale(MIN_SIG_DIGITS - (int) Math.max(-MAX_DISPLAY_SCALE, logAbs), base.scale(), exp.scale());
        if (logAbs < -MAX_DISPLAY_SCALE - 1) return BigDecimal.ZERO.setScale(rscale);
        if (intExp && exp.abs().compareTo(BigDecimal.valueOf(100_000)) <= 0) {
            int n = exp.intValueExact();
            BigDecimal r = base.pow(Math.abs(n));
            if (n < 0) r = BigDecimal.ONE.divide(r, new MathContext(Math.max(1, rscale + (int) Math.ceil(-logAbs) + 10)));
            return r.setScale(rscale, RoundingMode.HALF_UP);
        }
        int digits = Math.max(0, (int) logAbs) + rscale + 10;
        BigDecimal l = lnExact(base.abs(), digits + 10).multiply(exp);
        BigDecimal r = expExact(l, digits);
        if (base.signum() < 0 && exp.toBigInteger().testBit(0)) r = r.negate();
        return r.setScale(rscale, RoundingMode.HALF_UP);
    }

    /** e^x to at least {@code scale} correct decimals (plus guard digits). */
    static BigDecimal expExact(BigDecimal x, int scale) {
        int guard = 10;
        // reduce: e^x = (e^(x/2^k))^(2^k) with |x/2^k| < 0.01
        int k = 0;
        BigDecimal r = x;
        while (r.abs().compareTo(new BigDecimal("0.01")) > 0) {
            r = r.divide(BigDecimal.valueOf(2));
            k++;
        }
        int exp10 = (int) Math.ceil(Math.abs(x.doubleValue()) * 0.4343) + 1;
        MathContext mc = new MathContext(scale + exp10 + guard + k / 3 + 5);
        BigDecimal sum = BigDecimal.ONE, term = BigDecimal.ONE;
        BigDecimal eps = BigDecimal.ONE.movePointLeft(mc.getPrecision() + 2);
        for (int i = 1; i < 10_000; i++) {
            term = term.multiply(r, mc).divide(BigDecimal.valueOf(i), mc);
            sum = sum.add(term, mc);
            if (term.abs().compareTo(eps) < 0) break;
        }
        for (int i = 0; i < k; i++) sum = sum.multiply(sum, mc);
        return sum;
    }

    /** ln(x) for x > 0 to at least {@code scale} correct decimals, by Newton's iteration on exp. */
    static BigDecimal lnExact(BigDecimal x, int scale) {
        int exp10 = x.precision() - x.scale() - 1;
        if (Math.abs(exp10) > 300) {
            BigDecimal m = x.movePointLeft(exp10);
            return lnExact(m, scale).add(lnExact(BigDecimal.TEN, scale + 5).multiply(BigDecimal.valueOf(exp10)));
        }
        MathContext mc = new MathContext(scale + 20);
        BigDecimal y = new BigDecimal(Math.log(x.doubleValue()));
        BigDecimal eps = BigDecimal.ONE.movePointLeft(scale + 5);
        for (int i = 0; i < 100; i++) {
            BigDecimal ey = expExact(y, scale + 10);
            BigDecimal delta = x.subtract(ey).multiply(BigDecimal.valueOf(2)).divide(x.add(ey), mc);
            y = y.add(delta, mc);
            if (delta.abs().compareTo(eps) < 0) break;
        }
        return y;
    }

    // ------------------------------------------------------------------ NaN and the infinities

    /*
     * NUMERIC operators and functions over values that may be NonFiniteNumeric. With every
     * operand finite they are the BigDecimal ones above; otherwise the answer is IEEE's (computed
     * on doubles that stand for the operands) where PostgreSQL agrees with it, and PostgreSQL's
     * own where it does not (x / 0 errs for an infinite x; 1 ^ NaN is 1).
     */

    private static boolean finite(Object v) {
        return v instanceof BigDecimal;
    }

    /** A double of the same sign as {@code v} (and zero for zero), for arithmetic in which only the sign of a finite operand counts. */
    private static double signOf(Object v) {
        return v instanceof NonFiniteNumeric n ? n.asDouble() : ((BigDecimal) v).signum();
    }

    /** A double result as a NUMERIC: non-finite as itself; a finite one is exact here (0 or ±1). */
    private static Object numericOf(double r) {
        if (Double.isNaN(r) || Double.isInfinite(r)) return NonFiniteNumeric.of(r);
        return r == 0 ? BigDecimal.ZERO : BigDecimal.valueOf((long) r);
    }

    public static Object add(Object a, Object b) {
        if (finite(a) && finite(b)) return ((BigDecimal) a).add((BigDecimal) b);
        return numericOf((finite(a) ? 0 : signOf(a)) + (finite(b) ? 0 : signOf(b)));
    }

    public static Object subtract(Object a, Object b) {
        return add(a, negate(b));
    }

    public static Object multiply(Object a, Object b) {
        if (finite(a) && finite(b)) return ((BigDecimal) a).multiply((BigDecimal) b);
        return numericOf(signOf(a) * signOf(b));
    }

    public static Object negate(Object a) {
        if (a instanceof NonFiniteNumeric n) return numericOf(-n.asDouble());
        return ((BigDecimal) a).negate();
    }

    static Object abs(Object a) {
        if (a instanceof NonFiniteNumeric n) return numericOf(Math.abs(n.asDouble()));
        return ((BigDecimal) a).abs();
    }

    static Object sign(Object a) {
        if (a instanceof NonFiniteNumeric n) return n == NonFiniteNumeric.NAN ? n : BigDecimal.valueOf(n.signum());
        return BigDecimal.valueOf(((BigDecimal) a).signum());
    }

    /** {@code a / b}, {@code div(a, b)} (whole) or {@code a % b} with either operand non-finite. */
    private static Object nonFiniteQuotient(Object a, Object b, boolean remainder) {
        if (a == NonFiniteNumeric.NAN || b == NonFiniteNumeric.NAN) return NonFiniteNumeric.NAN;
        if (finite(b) && ((BigDecimal) b).signum() == 0) throw divisionByZero();
        if (remainder) return finite(a) ? a : NonFiniteNumeric.NAN;
        return numericOf(signOf(a) / signOf(b));
    }

    public static Object divide(Object a, Object b) {
        if (finite(a) && finite(b)) return divide((BigDecimal) a, (BigDecimal) b);
        return nonFiniteQuotient(a, b, false);
    }

    static Object mod(Object a, Object b) {
        if (finite(a) && finite(b)) return mod((BigDecimal) a, (BigDecimal) b);
        return nonFiniteQuotient(a, b, true);
    }

    static Object div(Object a, Object b) {
        if (finite(a) && finite(b)) return div((BigDecimal) a, (BigDecimal) b);
        return nonFiniteQuotient(a, b, false);
    }

    /** round, trunc, ceil, floor: {@code f} of a finite value; a non-finite one stays as it is. */
    static Object rounded(Object a, java.util.function.UnaryOperator<BigDecimal> f) {
        return finite(a) ? f.apply((BigDecimal) a) : a;
    }

    static Object sqrt(Object a) {
        if (finite(a)) return sqrt((BigDecimal) a);
        if (a == NonFiniteNumeric.NEGATIVE_INFINITY) throw new SqlException("2201F", "cannot take square root of a negative number");
        return a;
    }

    static Object exp(Object a) {
        if (finite(a)) return exp((BigDecimal) a);
        return a == NonFiniteNumeric.NEGATIVE_INFINITY ? BigDecimal.ZERO : a;
    }

    static Object ln(Object a) {
        if (finite(a)) return ln((BigDecimal) a);
        if (a == NonFiniteNumeric.NEGATIVE_INFINITY) throw new SqlException("2201E", "cannot take logarithm of a negative number");
        return a;
    }

    static Object log10(Object a) {
        if (finite(a)) return log10((BigDecimal) a);
        return ln(a);
    }

    /** {@code log(base, a)}: the ratio of the logarithms, with the errors of ln for either and 22012 for base 1. */
    static Object log(Object base, Object a) {
        if (finite(base) && finite(a)) return log((BigDecimal) base, (BigDecimal) a);
        if (base == NonFiniteNumeric.NAN || a == NonFiniteNumeric.NAN) return NonFiniteNumeric.NAN;
        double lnBase = lnSign(base), lnA = lnSign(a);
        if (lnBase == 0) throw divisionByZero();
        return numericOf(lnA / lnBase);
    }

    /** A double of the sign of ln(v) (infinite for an infinite v), after ln's argument checks. */
    private static double lnSign(Object v) {
        if (v instanceof NonFiniteNumeric n) {
            if (n == NonFiniteNumeric.NEGATIVE_INFINITY) throw new SqlException("2201E", "cannot take logarithm of a negative number");
            return Double.POSITIVE_INFINITY;
        }
        BigDecimal d = (BigDecimal) v;
        checkLogArg(d);
        return d.compareTo(BigDecimal.ONE);
    }

    static Object power(Object base, Object exp) {
        if (finite(base) && finite(exp)) return power((BigDecimal) base, (BigDecimal) exp);
        boolean baseOne = finite(base) && ((BigDecimal) base).compareTo(BigDecimal.ONE) == 0;
        boolean expZero = finite(exp) && ((BigDecimal) exp).signum() == 0;
        if (baseOne || expZero) return BigDecimal.ONE;
        if (base == NonFiniteNumeric.NAN || exp == NonFiniteNumeric.NAN) return NonFiniteNumeric.NAN;
        if (finite(base) && ((BigDecimal) base).signum() == 0 && exp == NonFiniteNumeric.NEGATIVE_INFINITY) {
            throw new SqlException("2201F", "zero raised to a negative power is undefined");
        }
        if (base == NonFiniteNumeric.NEGATIVE_INFINITY && finite(exp) && ((BigDecimal) exp).stripTrailingZeros().scale() > 0) {
            throw new SqlException("2201F", "a negative number raised to a non-integer power yields a complex result");
        }
        double b = finite(base) ? ((BigDecimal) base).doubleValue() : signOf(base);
        double e = finite(exp) ? ((BigDecimal) exp).doubleValue() : signOf(exp);
        // C's pow, which PostgreSQL follows, has (-1) ^ ±Infinity = 1; Java's is NaN
        if (Math.abs(b) == 1 && Double.isInfinite(e)) return BigDecimal.ONE;
        return numericOf(Math.pow(b, e));
    }

    /**
     * The sum of a group's non-finite NUMERIC values counted by kind, or null when it has none:
     * NaN with any NaN or with both infinities, else the infinity present.
     */
    static NonFiniteNumeric nonFiniteSum(long negativeInfinities, long positiveInfinities, long nans) {
        if (nans > 0 || (negativeInfinities > 0 && positiveInfinities > 0)) return NonFiniteNumeric.NAN;
        if (positiveInfinities > 0) return NonFiniteNumeric.POSITIVE_INFINITY;
        if (negativeInfinities > 0) return NonFiniteNumeric.NEGATIVE_INFINITY;
        return null;
    }

    // ------------------------------------------------------------------------------ helpers

    static BigDecimal toNumeric(Object v) {
        if (v instanceof BigDecimal d) return d;
        if (v instanceof Long l) return BigDecimal.valueOf(l);
        throw new IllegalArgumentException("not a numeric value: " + v);
    }

    /** Sum of {@code count} copies of {@code v} as exact integer arithmetic. */
    static BigInteger times(long v, long count) {
        return BigInteger.valueOf(v).multiply(BigInteger.valueOf(count));
    }

    static String text(Object v) {
        return Values.toText(v, dev.tributary.sql.types.SqlType.NUMERIC);
    }

    /**
     * {@code v << n} or {@code v >> n} (arithmetic) at the width of {@code kind}, as PostgreSQL's
     * int2/int4/int8 shifts: the count is taken modulo the width, and the result wraps to it.
     */
    static long shift(long v, long n, boolean left, Kind kind) {
        int bits = kind == Kind.SMALLINT ? 16 : kind == Kind.INTEGER ? 32 : 64;
        int count = (int) (n & (bits == 64 ? 63 : 31));
        long r;
        if (bits == 64) r = left ? v << count : v >> count;
        else if (bits == 32) r = left ? (long) ((int) v << count) : (long) ((int) v >> count);
        else r = left ? (long) (short) ((int) v << count) : (long) ((short) v >> count);
        return r;
    }
}
