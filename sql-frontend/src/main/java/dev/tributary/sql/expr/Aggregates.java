package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import dev.tributary.sql.types.Values;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL's built-in aggregates: count, sum, avg, min, max, bool_and, bool_or (every),
 * string_agg, array_agg, and the variance family (variance, var_samp, var_pop, stddev,
 * stddev_samp, stddev_pop), the ordered-set aggregates percentile_cont, percentile_disc and mode
 * (their argument rows arrive in the WITHIN GROUP order, direct arguments first), with
 * PostgreSQL's result types: sum of smallint/integer is bigint, of bigint
 * numeric (exact, never overflowing), of real real; avg of integers and numeric is numeric with
 * NUMERIC division's scale ({@code avg(1, 2) = 1.5000000000000000}), of floats double precision.
 */
public final class Aggregates {
    private Aggregates() {}

    /** Computes a group's aggregate from its argument rows (args of the coerced types) and multiplicities. */
    @FunctionalInterface
    private interface Body {
        Object evaluate(List<Object[]> rows, long[] mult);
    }

    private record Agg(String name, List<SqlType> argTypes, SqlType resultType, Body body, Accumulation accumulation) implements AggregateFunction {
        public Object evaluate(List<Object[]> argRows, long[] multiplicities) {
            return body.evaluate(argRows, multiplicities);
        }
    }

    private static final Map<String, List<Resolver.Candidate>> CANDIDATES = new HashMap<>();
    private static final Set<String> NAMES = Set.of("count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "string_agg", "array_agg",
            "jsonb_agg", "json_agg", "jsonb_object_agg", "json_object_agg",
            "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "percentile_cont", "percentile_disc", "mode");
    private static final Set<String> ORDERED_SET = Set.of("percentile_cont", "percentile_disc", "mode");
    /** The variance family: whether each is of a sample (not the population), and whether it is a standard deviation. */
    private static final Map<String, boolean[]> SPREADS = Map.of(
            "stddev", new boolean[] {true, true}, "stddev_samp", new boolean[] {true, true}, "stddev_pop", new boolean[] {false, true},
            "variance", new boolean[] {true, false}, "var_samp", new boolean[] {true, false}, "var_pop", new boolean[] {false, false});

    private static void sig(String name, SqlType result, Kind... params) {
        CANDIDATES.computeIfAbsent(name, k -> new ArrayList<>()).add(new Resolver.Candidate(name, List.of(params), result, null, true));
    }

    static {
        sig("sum", SqlType.BIGINT, Kind.SMALLINT);
        sig("sum", SqlType.BIGINT, Kind.INTEGER);
        sig("sum", SqlType.NUMERIC, Kind.BIGINT);
        sig("sum", SqlType.NUMERIC, Kind.NUMERIC);
        sig("sum", SqlType.REAL, Kind.REAL);
        sig("sum", SqlType.DOUBLE, Kind.DOUBLE);
        sig("sum", SqlType.INTERVAL, Kind.INTERVAL);
        for (Kind k : new Kind[] {Kind.SMALLINT, Kind.INTEGER, Kind.BIGINT, Kind.NUMERIC}) sig("avg", SqlType.NUMERIC, k);
        sig("avg", SqlType.DOUBLE, Kind.REAL);
        sig("avg", SqlType.DOUBLE, Kind.DOUBLE);
        sig("avg", SqlType.INTERVAL, Kind.INTERVAL);
        for (Kind k : new Kind[] {Kind.SMALLINT, Kind.INTEGER, Kind.BIGINT, Kind.REAL, Kind.DOUBLE, Kind.NUMERIC, Kind.TEXT,
                Kind.CHAR, Kind.DATE, Kind.TIME, Kind.TIMESTAMP, Kind.TIMESTAMPTZ, Kind.INTERVAL}) {
            sig("min", SqlType.of(k), k);
            sig("max", SqlType.of(k), k);
        }
        for (String spread : SPREADS.keySet()) {
            for (Kind k : new Kind[] {Kind.SMALLINT, Kind.INTEGER, Kind.BIGINT, Kind.NUMERIC}) sig(spread, SqlType.NUMERIC, k);
            sig(spread, SqlType.DOUBLE, Kind.REAL);
            sig(spread, SqlType.DOUBLE, Kind.DOUBLE);
        }
        sig("bool_and", SqlType.BOOLEAN, Kind.BOOLEAN);
        sig("bool_or", SqlType.BOOLEAN, Kind.BOOLEAN);
        sig("every", SqlType.BOOLEAN, Kind.BOOLEAN);
        sig("string_agg", SqlType.TEXT, Kind.TEXT, Kind.TEXT);
        sig("string_agg", SqlType.BYTEA, Kind.BYTEA, Kind.BYTEA);
    }

    /**
     * percentile_cont(fraction) over double precision (numbers are cast to it), percentile_disc
     * (fraction) and mode() over any type: the sorted aggregated values (NULLs left out), as
     * PostgreSQL computes them. A NULL fraction gives NULL; one outside [0, 1] is 22003. Null when
     * the arguments fit no signature (then the lookup below reports it).
     */
    private static AggregateFunction orderedSet(String n, List<SqlType> argTypes) {
        int direct = n.equals("mode") ? 0 : 1;
        if (argTypes.size() != direct + 1) return null;
        SqlType value = argTypes.get(direct).kind() == Kind.UNKNOWN ? SqlType.TEXT : argTypes.get(direct);
        if (value.kind() == Kind.RECORD) return null;
        // the array forms: one result per fraction, in the array's order (NULL for a NULL fraction)
        boolean many = direct == 1 && argTypes.get(0).kind() == Kind.ARRAY;
        if (many && Casts.level(argTypes.get(0).element().kind(), Kind.DOUBLE) != CastContext.IMPLICIT) return null;
        SqlType fractions = many ? SqlType.array(SqlType.DOUBLE) : SqlType.DOUBLE;
        return switch (n) {
            case "percentile_cont" -> {
                if (Casts.level(value.kind(), Kind.DOUBLE) != CastContext.IMPLICIT) yield null;
                yield new Agg(n, List.of(fractions, SqlType.DOUBLE), many ? SqlType.array(SqlType.DOUBLE) : SqlType.DOUBLE,
                        (rows, m) -> percentiles(rows, m, many, (v, f) -> {
                            double at = f * (v.size() - 1);
                            int lo = (int) Math.floor(at);
                            int hi = (int) Math.ceil(at);
                            double first = (Double) v.get(lo);
                            if (hi == lo) return first;
                            return first + ((Double) v.get(hi) - first) * (at - lo);
                        }), null);
            }
            case "percentile_disc" -> new Agg(n, List.of(fractions, value), many ? SqlType.array(value) : value,
                    // the first value whose position (1-based) reaches f of the count
                    (rows, m) -> percentiles(rows, m, many, (v, f) -> v.get((int) Math.max(0, (long) Math.ceil(f * v.size()) - 1))), null);
            default -> new Agg(n, List.of(value), value, (rows, m) -> {
                // the most frequent value; of equally frequent ones, the first in the order
                Object best = null;
                long bestCount = 0;
                Object run = null;
                long runCount = 0;
                for (int i = 0; i < rows.size(); i++) {
                    Object x = rows.get(i)[0];
                    if (x == null) continue;
                    if (run != null && Values.compare(run, x, value) == 0) {
                        runCount += m[i];
                    } else {
                        run = x;
                        runCount = m[i];
                    }
                    if (runCount > bestCount) {
                        best = run;
                        bestCount = runCount;
                    }
                }
                return best;
            }, null);
        };
    }

    /**
     * A percentile aggregate's result over the group's sorted values: {@code at} of each fraction
     * of its direct argument (read from the group's first row: it is the same in every row), one
     * fraction or ({@code many}) an array of them. NULL for an empty group or a NULL argument; a
     * NULL element gives a NULL element; a fraction outside [0, 1] is 22003.
     */
    private static Object percentiles(List<Object[]> rows, long[] m, boolean many, java.util.function.BiFunction<List<Object>, Double, Object> at) {
        if (rows.isEmpty() || rows.get(0)[0] == null) return null;
        List<?> fractions = many ? (List<?>) rows.get(0)[0] : List.of(rows.get(0)[0]);
        for (Object f : fractions) {
            if (f != null && !((Double) f >= 0 && (Double) f <= 1)) {
                throw new SqlException("22003", "percentile value " + Values.toText(f, SqlType.DOUBLE) + " is not between 0 and 1");
            }
        }
        List<Object> v = sortedValues(rows, m, 1);
        if (v.isEmpty()) return null;
        List<Object> out = new ArrayList<>();
        for (Object f : fractions) out.add(f == null ? null : at.apply(v, (Double) f));
        return many ? dev.tributary.sql.types.ShapedArray.shapedLike(fractions, out.toArray()) : out.get(0);
    }

    /** The non-NULL values of argument {@code column}, each as often as its multiplicity, in the rows' order. */
    private static List<Object> sortedValues(List<Object[]> rows, long[] m, int column) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Object x = rows.get(i)[column];
            if (x == null) continue;
            for (long k = 0; k < m[i]; k++) out.add(x);
        }
        return out;
    }

    /** Whether {@code name} is an ordered-set aggregate, called as {@code name(direct) WITHIN GROUP (ORDER BY aggregated)}. */
    public static boolean isOrderedSet(String name) {
        return ORDERED_SET.contains(name.toLowerCase(Locale.ROOT));
    }

    /** Whether {@code name} is an aggregate this class resolves. */
    public static boolean isAggregate(String name) {
        return NAMES.contains(name.toLowerCase(Locale.ROOT));
    }

    /**
     * The aggregate {@code name(argTypes)} ({@code star}: {@code count(*)}). {@code distinct}
     * does not change the choice (the caller removes duplicates). 42883 when no signature matches.
     */
    public static AggregateFunction resolve(String name, List<SqlType> argTypes, boolean distinct, boolean star, int pos) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals("count")) {
            if (star) return new Agg("count", List.of(), SqlType.BIGINT, (rows, m) -> total(m), COUNT_ROWS);
            if (argTypes.size() == 1) {
                SqlType t = argTypes.get(0).kind() == Kind.UNKNOWN ? SqlType.TEXT : argTypes.get(0);
                return new Agg("count", List.of(t), SqlType.BIGINT, (rows, m) -> {
                    long c = 0;
                    for (int i = 0; i < rows.size(); i++) if (rows.get(i)[0] != null) c += m[i];
                    return c;
                }, COUNT_VALUES);
            }
        }
        if (ORDERED_SET.contains(n)) {
            AggregateFunction f = orderedSet(n, argTypes);
            if (f != null) return f;
        }
        if (n.equals("array_agg") && !star && argTypes.size() == 1) {
            // array_agg(anynonarray): the values in the aggregate's order, NULLs included;
            // array_agg(anyarray): the arrays, of one shape, as one array of a dimension more
            SqlType t = argTypes.get(0).kind() == Kind.UNKNOWN ? SqlType.TEXT : argTypes.get(0);
            return new Agg("array_agg", List.of(t), SqlType.array(t), (rows, m) -> {
                if (rows.isEmpty()) return null;
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < rows.size(); i++) for (long k = 0; k < m[i]; k++) out.add(rows.get(i)[0]);
                return t.isArray() ? ArrayShapes.accumulate(out) : java.util.Collections.unmodifiableList(out);
            }, null);
        }
        if (n.endsWith("_agg") && n.startsWith("json") && !star) {
            AggregateFunction f = jsonAgg(n, argTypes);
            if (f != null) return f;
        }
        List<Resolver.Candidate> cands = star ? null : CANDIDATES.get(n);
        List<Resolver.Candidate> found = cands == null ? List.of() : Resolver.select(cands, argTypes, false);
        if (found.size() != 1) {
            StringBuilder sig = new StringBuilder(n).append('(');
            for (int i = 0; i < argTypes.size(); i++) sig.append(i > 0 ? ", " : "").append(argTypes.get(i).kind().pgName());
            sig.append(')');
            if (found.isEmpty()) {
                throw new SqlException("42883", "function " + sig + " does not exist", pos,
                        "No function matches the given name and argument types. You might need to add explicit type casts.");
            }
            throw new SqlException("42725", "function " + sig + " is not unique", pos,
                    "Could not choose a best candidate function. You might need to add explicit type casts.");
        }
        Resolver.Candidate c = found.get(0);
        List<SqlType> params = new ArrayList<>();
        for (Kind k : c.params()) params.add(SqlType.of(k));
        Kind in = c.params().get(0);
        SqlType result = c.result();
        Body body = switch (n) {
            case "sum" -> sum(in, result);
            case "avg" -> avg(in);
            case "min" -> extreme(params.get(0), false);
            case "max" -> extreme(params.get(0), true);
            case "bool_and", "every" -> bool(true);
            case "bool_or" -> bool(false);
            case "string_agg" -> in == Kind.BYTEA ? stringAggBytea() : stringAgg();
            case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop" -> spread(in, SPREADS.get(n)[0], SPREADS.get(n)[1]);
            default -> throw new IllegalStateException(n);
        };
        Accumulation accumulation = switch (n) {
            case "sum" -> summing(in, result, false);
            case "avg" -> summing(in, result, true);
            case "bool_and", "every" -> BOOL_AND;
            case "bool_or" -> BOOL_OR;
            case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop" -> spreading(in, SPREADS.get(n)[0], SPREADS.get(n)[1]);
            default -> null;
        };
        return new Agg(n, params, result, body, accumulation);
    }

    /**
     * jsonb_agg(v) and json_agg(v): the values (NULLs as JSON null) as one array, in the
     * aggregate's order; jsonb_object_agg(k, v) and json_object_agg(k, v): one object of them
     * (22023 for a NULL key). Recomputed from the group's values, as array_agg is, so a retracted
     * row simply leaves the group; null for no rows. Null when the arguments fit neither.
     */
    private static AggregateFunction jsonAgg(String n, List<SqlType> argTypes) {
        boolean object = n.contains("object");
        if (argTypes.size() != (object ? 2 : 1)) return null;
        List<SqlType> types = argTypes.stream().map(t -> t.kind() == Kind.UNKNOWN ? SqlType.TEXT : t).toList();
        boolean jsonb = n.startsWith("jsonb");
        SqlType result = jsonb ? SqlType.JSONB : SqlType.JSON;
        return new Agg(n, types, result, (rows, m) -> {
            if (rows.isEmpty()) return null;
            List<String> keys = new ArrayList<>();
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                Object[] r = rows.get(i);
                if (object && r[0] == null) throw new SqlException("22023", "field name must not be null");
                for (long k = 0; k < m[i]; k++) {
                    if (object) keys.add(Values.toText(r[0], types.get(0)));
                    values.add(r[object ? 1 : 0]);
                }
            }
            SqlType valueType = types.get(object ? 1 : 0);
            if (jsonb) {
                List<dev.tributary.sql.types.Jsonb> docs = values.stream().map(v -> dev.tributary.sql.types.Json.toJsonb(v, valueType)).toList();
                return object ? dev.tributary.sql.types.Jsonb.Obj.of(keys, docs) : new dev.tributary.sql.types.Jsonb.Arr(docs);
            }
            StringBuilder b = new StringBuilder(object ? "{ " : "[");
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) b.append(", ");
                if (object) {
                    dev.tributary.sql.types.Json.quote(b, keys.get(i));
                    b.append(" : ");
                }
                b.append(dev.tributary.sql.types.Json.of(values.get(i), valueType));
            }
            return b.append(object ? " }" : "]").toString();
        }, null);
    }

    // ------------------------------------------------------------------ accumulable forms

    /** count(*): the rows, no sum of its own. */
    private static final Accumulation COUNT_ROWS = new Accumulation() {
        public void add(Object[] args, Sink sink) {}

        public Object result(Totals totals) {
            return totals.rows();
        }
    };

    /** count(x): the rows less one sum, of NULLs. */
    private static final Accumulation COUNT_VALUES = new Accumulation() {
        public void add(Object[] args, Sink sink) {
            if (args[0] == null) sink.add(0, 0, 1);
        }

        public Object result(Totals totals) {
            return totals.rows() - totals.sum(0, 0);
        }
    };

    /** bool_and and bool_or: sums of true (component 0) and false (component 1) values. */
    private static final Accumulation BOOL_AND = bools(true);
    private static final Accumulation BOOL_OR = bools(false);

    private static Accumulation bools(boolean and) {
        return new Accumulation() {
            public void add(Object[] args, Sink sink) {
                if (args[0] instanceof Boolean b) sink.add(b ? 0 : 1, 0, 1);
            }

            public Object result(Totals totals) {
                long t = totals.sum(0, 0);
                long f = totals.sum(1, 0);
                if (t + f == 0) return null;
                return and ? f == 0 : t > 0;
            }
        };
    }

    /**
     * sum and avg of an exact type: the count of NULLs (component 0; the non-NULL values are the
     * rows less those), or for numeric the count of values per scale, so the result has the
     * largest scale of the values present, as adding BigDecimals gives; and the exact sum
     * (component 1, an integer per scale; intervals sum months, days and microseconds in
     * components 1 to 3). Floating-point sums are not
     * accumulable: added in another order they differ in the last bits, so a maintained sum would
     * drift from the recomputed one.
     */
    private static Accumulation summing(Kind in, SqlType result, boolean average) {
        return switch (in) {
            case SMALLINT, INTEGER, BIGINT -> new Accumulation() {
                public void add(Object[] args, Sink sink) {
                    if (args[0] == null) sink.add(0, 0, 1);
                    else sink.addInteger(1, 0, (Long) args[0]);
                }

                public Object result(Totals totals) {
                    long n = totals.rows() - totals.sum(0, 0);
                    if (n == 0) return null;
                    BigInteger s = totals.integer(1, 0);
                    if (average) return Numerics.divide(new BigDecimal(s), BigDecimal.valueOf(n));
                    if (result.kind() == Kind.NUMERIC) return new BigDecimal(s);
                    if (s.bitLength() > 63) throw Casts.integerOutOfRange(Kind.BIGINT);
                    return s.longValue();
                }
            };
            case NUMERIC -> new Accumulation() {
                public void add(Object[] args, Sink sink) {
                    if (args[0] == null) return;
                    if (args[0] instanceof NonFiniteNumeric n) {
                        sink.add(NON_FINITE, n.ordinal(), 1);
                        return;
                    }
                    BigDecimal v = (BigDecimal) args[0];
                    if (v.scale() < 0) v = v.setScale(0);
                    sink.add(0, v.scale(), 1);
                    sink.addInteger(1, v.scale(), v.unscaledValue());
                }

                public Object result(Totals totals) {
                    NonFiniteNumeric special = nonFiniteSum(totals);
                    if (special != null) return special;
                    int[] scales = totals.keys(0);
                    if (scales.length == 0) return null;
                    BigDecimal s = average ? BigDecimal.ZERO : null;
                    long n = 0;
                    for (int scale : scales) {
                        BigDecimal part = new BigDecimal(totals.integer(1, scale), scale);
                        s = s == null ? part : s.add(part);
                        n += totals.sum(0, scale);
                    }
                    return average ? Numerics.divide(s, BigDecimal.valueOf(n)) : s;
                }
            };
            case INTERVAL -> new Accumulation() {
                public void add(Object[] args, Sink sink) {
                    if (!(args[0] instanceof Interval iv)) {
                        sink.add(0, 0, 1);
                        return;
                    }
                    sink.add(1, 0, iv.months());
                    sink.add(2, 0, iv.days());
                    sink.addInteger(3, 0, iv.micros());
                }

                public Object result(Totals totals) {
                    long n = totals.rows() - totals.sum(0, 0);
                    if (n == 0) return null;
                    long months = totals.sum(1, 0);
                    long days = totals.sum(2, 0);
                    BigInteger micros = totals.integer(3, 0);
                    if (months != (int) months || days != (int) days || micros.bitLength() > 63) throw new SqlException("22008", "interval out of range");
                    Interval sum = new Interval((int) months, (int) days, micros.longValue());
                    return average ? DateTimes.divide(sum, n) : sum;
                }
            };
            default -> null;
        };
    }

    /** The component of a numeric accumulation counting its non-finite values, keyed by {@link NonFiniteNumeric#ordinal}. */
    private static final int NON_FINITE = 3;

    private static NonFiniteNumeric nonFiniteSum(Accumulation.Totals totals) {
        return Numerics.nonFiniteSum(totals.sum(NON_FINITE, NonFiniteNumeric.NEGATIVE_INFINITY.ordinal()),
                totals.sum(NON_FINITE, NonFiniteNumeric.POSITIVE_INFINITY.ordinal()), totals.sum(NON_FINITE, NonFiniteNumeric.NAN.ordinal()));
    }

    /**
     * The variance family over an exact type: per scale {@code s} of the values ({@code x = u *
     * 10^-s}), the count (component 0), the sum of {@code u} (component 1) and of {@code u^2}
     * (component 2, at scale {@code 2s}): a group's spread from three exact sums, whatever its size.
     * Floating-point ones are not accumulable, as with sum.
     */
    private static Accumulation spreading(Kind in, boolean sample, boolean root) {
        if (in == Kind.REAL || in == Kind.DOUBLE) return null;
        return new Accumulation() {
            public void add(Object[] args, Sink sink) {
                if (args[0] == null) return;
                if (args[0] instanceof NonFiniteNumeric n) {
                    sink.add(NON_FINITE, n.ordinal(), 1);
                    return;
                }
                BigDecimal v = exact(args[0]);
                BigInteger u = v.unscaledValue();
                sink.add(0, v.scale(), 1);
                sink.addInteger(1, v.scale(), u);
                sink.addInteger(2, v.scale(), u.multiply(u));
            }

            public Object result(Totals totals) {
                long n = 0;
                BigDecimal sumX = BigDecimal.ZERO;
                BigDecimal sumX2 = BigDecimal.ZERO;
                for (int scale : totals.keys(0)) {
                    n += totals.sum(0, scale);
                    sumX = sumX.add(new BigDecimal(totals.integer(1, scale), scale));
                    sumX2 = sumX2.add(new BigDecimal(totals.integer(2, scale), 2 * scale));
                }
                long nonFinite = 0;
                for (NonFiniteNumeric k : NonFiniteNumeric.values()) nonFinite += totals.sum(NON_FINITE, k.ordinal());
                return spreadOf(n, nonFinite, sumX, sumX2, sample, root);
            }
        };
    }

    /** An exact value (integer or numeric) as a numeric of scale 0 or more, as the variance family sums it. */
    private static BigDecimal exact(Object v) {
        BigDecimal x = Numerics.toNumeric(v);
        return x.scale() < 0 ? x.setScale(0) : x;
    }

    /**
     * A variance or standard deviation from the count and the exact sums of the values and their
     * squares, computed as PostgreSQL's numeric aggregates do: NULL without values (or with one,
     * for a sample), 0 where rounding would make the numerator negative, else {@code (n * sumX2 -
     * sumX^2) / (n * (n - 1))} (or {@code n^2}) at the division's scale, and its square root at the
     * same scale.
     */
    private static Object spreadOf(long finite, long nonFinite, BigDecimal sumX, BigDecimal sumX2, boolean sample, boolean root) {
        long all = finite + nonFinite;
        if (all == 0 || (sample && all == 1)) return null;
        // PostgreSQL's spread of a group holding NaN or an infinity is NaN
        if (nonFinite > 0) return NonFiniteNumeric.NAN;
        long n = finite;
        BigDecimal count = BigDecimal.valueOf(n);
        BigDecimal numerator = count.multiply(sumX2).subtract(sumX.multiply(sumX));
        if (numerator.signum() <= 0) return BigDecimal.ZERO;
        BigDecimal denominator = sample ? count.multiply(BigDecimal.valueOf(n - 1)) : count.multiply(count);
        int scale = Numerics.divScale(numerator, denominator);
        BigDecimal variance = numerator.divide(denominator, scale, java.math.RoundingMode.HALF_UP);
        return root ? Numerics.sqrt(variance, scale) : variance;
    }

    /** The variance family over a group's rows: exact types by {@link #spreadOf}, floats by Youngs and Cramer's updates, as PostgreSQL's float8_accum. */
    private static Body spread(Kind in, boolean sample, boolean root) {
        if (in == Kind.REAL || in == Kind.DOUBLE) {
            return (rows, m) -> {
                double count = 0, sumX = 0, sumXX = 0;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    double x = (Double) v;
                    for (long k = 0; k < m[i]; k++) {
                        count += 1;
                        sumX += x;
                        if (count > 1) {
                            double t = x * count - sumX;
                            sumXX += t * t / (count * (count - 1));
                        }
                    }
                }
                if (Double.isInfinite(sumX) || Double.isInfinite(sumXX)) throw new SqlException("22003", "value out of range: overflow");
                if (count == 0 || (sample && count == 1)) return null;
                double variance = sumXX <= 0 ? 0.0 : sumXX / (sample ? count - 1 : count);
                return root ? Math.sqrt(variance) : variance;
            };
        }
        return (rows, m) -> {
            long n = 0;
            long nonFinite = 0;
            BigDecimal sumX = BigDecimal.ZERO;
            BigDecimal sumX2 = BigDecimal.ZERO;
            for (int i = 0; i < rows.size(); i++) {
                Object v = rows.get(i)[0];
                if (v == null) continue;
                if (v instanceof NonFiniteNumeric) {
                    nonFinite += m[i];
                    continue;
                }
                BigDecimal x = exact(v);
                BigDecimal times = BigDecimal.valueOf(m[i]);
                n += m[i];
                sumX = sumX.add(x.multiply(times));
                sumX2 = sumX2.add(x.multiply(x).multiply(times));
            }
            return spreadOf(n, nonFinite, sumX, sumX2, sample, root);
        };
    }

    private static long total(long[] m) {
        long t = 0;
        for (long x : m) t += x;
        return t;
    }

    private static Body sum(Kind in, SqlType result) {
        return switch (in) {
            case SMALLINT, INTEGER, BIGINT -> (rows, m) -> {
                BigInteger s = BigInteger.ZERO;
                boolean any = false;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    any = true;
                    s = s.add(Numerics.times((Long) v, m[i]));
                }
                if (!any) return null;
                if (result.kind() == Kind.NUMERIC) return new BigDecimal(s);
                if (s.bitLength() > 63) throw Casts.integerOutOfRange(Kind.BIGINT);
                return s.longValue();
            };
            case NUMERIC -> (rows, m) -> {
                Object s = null;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    Object x = Numerics.multiply(v, BigDecimal.valueOf(m[i]));
                    s = s == null ? x : Numerics.add(s, x);
                }
                return s;
            };
            case REAL, DOUBLE -> (rows, m) -> {
                Double s = null;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    double x = Numerics.mulFloat((Double) v, m[i]);
                    s = s == null ? x : Numerics.addFloat(s, x);
                    if (in == Kind.REAL) s = Casts.toReal(s);
                }
                return s;
            };
            case INTERVAL -> (rows, m) -> {
                Interval s = null;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    Interval x = times((Interval) v, m[i]);
                    s = s == null ? x : DateTimes.add(s, x);
                }
                return s;
            };
            default -> throw new IllegalStateException(in.toString());
        };
    }

    private static Interval times(Interval iv, long m) {
        try {
            long months = Math.multiplyExact((long) iv.months(), m), days = Math.multiplyExact((long) iv.days(), m);
            if (months != (int) months || days != (int) days) throw new ArithmeticException();
            return new Interval((int) months, (int) days, Math.multiplyExact(iv.micros(), m));
        } catch (ArithmeticException e) {
            throw new SqlException("22008", "interval out of range");
        }
    }

    private static Body avg(Kind in) {
        return switch (in) {
            case SMALLINT, INTEGER, BIGINT, NUMERIC -> (rows, m) -> {
                Object s = BigDecimal.ZERO;
                long n = 0;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    s = Numerics.add(s, Numerics.multiply(v instanceof Long l ? BigDecimal.valueOf(l) : v, BigDecimal.valueOf(m[i])));
                    n += m[i];
                }
                return n == 0 ? null : Numerics.divide(s, BigDecimal.valueOf(n));
            };
            case REAL, DOUBLE -> (rows, m) -> {
                double s = 0;
                long n = 0;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    s = Numerics.addFloat(s, Numerics.mulFloat((Double) v, m[i]));
                    n += m[i];
                }
                return n == 0 ? null : s / n;
            };
            case INTERVAL -> (rows, m) -> {
                Interval s = new Interval(0, 0, 0);
                long n = 0;
                for (int i = 0; i < rows.size(); i++) {
                    Object v = rows.get(i)[0];
                    if (v == null) continue;
                    s = DateTimes.add(s, times((Interval) v, m[i]));
                    n += m[i];
                }
                return n == 0 ? null : DateTimes.divide(s, n);
            };
            default -> throw new IllegalStateException(in.toString());
        };
    }

    private static Body extreme(SqlType t, boolean max) {
        return (rows, m) -> {
            Object best = null;
            for (Object[] r : rows) {
                Object v = r[0];
                if (v == null) continue;
                if (best == null) best = v;
                else {
                    int c = Values.compare(v, best, t);
                    if (max ? c > 0 : c < 0) best = v;
                }
            }
            return best;
        };
    }

    private static Body bool(boolean and) {
        return (rows, m) -> {
            Boolean acc = null;
            for (Object[] r : rows) {
                Boolean v = (Boolean) r[0];
                if (v == null) continue;
                acc = acc == null ? v : (and ? acc && v : acc || v);
            }
            return acc;
        };
    }

    private static Body stringAgg() {
        return (rows, m) -> {
            StringBuilder b = null;
            for (int i = 0; i < rows.size(); i++) {
                Object v = rows.get(i)[0];
                if (v == null) continue;
                String d = rows.get(i)[1] == null ? "" : (String) rows.get(i)[1];
                for (long k = 0; k < m[i]; k++) {
                    if (b == null) b = new StringBuilder();
                    else b.append(d);
                    b.append((String) v);
                }
            }
            return b == null ? null : b.toString();
        };
    }

    private static Body stringAggBytea() {
        return (rows, m) -> {
            ByteArrayOutputStream b = null;
            for (int i = 0; i < rows.size(); i++) {
                Object v = rows.get(i)[0];
                if (v == null) continue;
                byte[] d = rows.get(i)[1] == null ? new byte[0] : ((Bytea) rows.get(i)[1]).toByteArray();
                for (long k = 0; k < m[i]; k++) {
                    if (b == null) b = new ByteArrayOutputStream();
                    else b.writeBytes(d);
                    b.writeBytes(((Bytea) v).toByteArray());
                }
            }
            return b == null ? null : Bytea.copyOf(b.toByteArray());
        };
    }
}
