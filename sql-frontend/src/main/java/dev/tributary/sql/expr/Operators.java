package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Resolution of SQL operators to typed {@link ScalarExpr}s, over a table of PostgreSQL's operator
 * signatures for the types Tributary stores, chosen as PostgreSQL chooses ({@link Resolver}).
 *
 * <p>So {@code int4 + int8} is bigint, {@code int + numeric} numeric, {@code numeric + float8}
 * float8, {@code 2 ^ 3} float8, {@code date - date} integer, {@code timestamp - timestamp}
 * interval; an untyped literal takes the other operand's type ({@code x = '5'} with x integer
 * reads '5' as an integer). A missing operator is 42883 with PostgreSQL's hint.
 *
 * <p>Besides the binary and unary operators, this builds the nodes whose operands need a common
 * comparison type: {@link #isDistinctFrom}, {@link #nullIf}, {@link #in}, {@link #like} and the
 * boolean connectives.
 */
public final class Operators {
    private Operators() {}

    private static final String NO_OPERATOR_HINT =
            "No operator matches the given name and argument types. You might need to add explicit type casts.";
    private static final String AMBIGUOUS_OPERATOR_HINT =
            "Could not choose a best candidate operator. You might need to add explicit type casts.";

    private static final Map<BinaryOp, List<Resolver.Candidate>> BINARY = new EnumMap<>(BinaryOp.class);
    private static final Map<UnaryOp, List<Resolver.Candidate>> UNARY = new EnumMap<>(UnaryOp.class);

    private static final Kind[] INTS = {Kind.SMALLINT, Kind.INTEGER, Kind.BIGINT};

    private static void bin(BinaryOp op, Kind l, Kind r, SqlType result, ScalarExpr.Impl impl) {
        BINARY.computeIfAbsent(op, k -> new ArrayList<>())
                .add(new Resolver.Candidate(op.symbol(), List.of(l, r), result, impl, true));
    }

    private static void un(UnaryOp op, Kind k, ScalarExpr.Impl impl) {
        UNARY.computeIfAbsent(op, x -> new ArrayList<>())
                .add(new Resolver.Candidate(op.symbol(), List.of(k), SqlType.of(k), impl, true));
    }

    private static Kind wider(Kind a, Kind b) {
        return Casts.numericRank(a) >= Casts.numericRank(b) ? a : b;
    }

    static {
        // integers: cross-kind + - * /, same-kind %
        for (Kind a : INTS) {
            for (Kind b : INTS) {
                Kind k = wider(a, b);
                SqlType t = SqlType.of(k);
                bin(BinaryOp.ADD, a, b, t, x -> Numerics.addInt((Long) x[0], (Long) x[1], k));
                bin(BinaryOp.SUB, a, b, t, x -> Numerics.subInt((Long) x[0], (Long) x[1], k));
                bin(BinaryOp.MUL, a, b, t, x -> Numerics.mulInt((Long) x[0], (Long) x[1], k));
                bin(BinaryOp.DIV, a, b, t, x -> Numerics.divInt((Long) x[0], (Long) x[1], k));
            }
            bin(BinaryOp.MOD, a, a, SqlType.of(a), x -> Numerics.modInt((Long) x[0], (Long) x[1]));
            // bitwise: same kind in and out, as PostgreSQL's int2/int4/int8 operators; a shift's count is an integer
            bin(BinaryOp.BIT_AND, a, a, SqlType.of(a), x -> (Long) x[0] & (Long) x[1]);
            bin(BinaryOp.BIT_OR, a, a, SqlType.of(a), x -> (Long) x[0] | (Long) x[1]);
            bin(BinaryOp.BIT_XOR, a, a, SqlType.of(a), x -> (Long) x[0] ^ (Long) x[1]);
            bin(BinaryOp.SHIFT_LEFT, a, Kind.INTEGER, SqlType.of(a), x -> Numerics.shift((Long) x[0], (Long) x[1], true, a));
            bin(BinaryOp.SHIFT_RIGHT, a, Kind.INTEGER, SqlType.of(a), x -> Numerics.shift((Long) x[0], (Long) x[1], false, a));
        }
        // floats
        Kind[] floats = {Kind.REAL, Kind.DOUBLE};
        for (Kind a : floats) {
            for (Kind b : floats) {
                Kind k = wider(a, b);
                SqlType t = SqlType.of(k);
                bin(BinaryOp.ADD, a, b, t, x -> Numerics.floatResult(Numerics.addFloat((Double) x[0], (Double) x[1]), k));
                bin(BinaryOp.SUB, a, b, t, x -> Numerics.floatResult(Numerics.subFloat((Double) x[0], (Double) x[1]), k));
                bin(BinaryOp.MUL, a, b, t, x -> Numerics.floatResult(Numerics.mulFloat((Double) x[0], (Double) x[1]), k));
                bin(BinaryOp.DIV, a, b, t, x -> Numerics.floatResult(Numerics.divFloat((Double) x[0], (Double) x[1]), k));
            }
        }
        bin(BinaryOp.POW, Kind.DOUBLE, Kind.DOUBLE, SqlType.DOUBLE, x -> Numerics.powFloat((Double) x[0], (Double) x[1]));
        // numeric
        Kind n = Kind.NUMERIC;
        SqlType num = SqlType.NUMERIC;
        bin(BinaryOp.ADD, n, n, num, x -> Numerics.add(x[0], x[1]));
        bin(BinaryOp.SUB, n, n, num, x -> Numerics.subtract(x[0], x[1]));
        bin(BinaryOp.MUL, n, n, num, x -> Numerics.multiply(x[0], x[1]));
        bin(BinaryOp.DIV, n, n, num, x -> Numerics.divide(x[0], x[1]));
        bin(BinaryOp.MOD, n, n, num, x -> Numerics.mod(x[0], x[1]));
        bin(BinaryOp.POW, n, n, num, x -> Numerics.power(x[0], x[1]));
        // dates, times, timestamps, intervals
        Kind d = Kind.DATE, i4 = Kind.INTEGER, iv = Kind.INTERVAL, tm = Kind.TIME, ts = Kind.TIMESTAMP, tz = Kind.TIMESTAMPTZ;
        bin(BinaryOp.ADD, d, i4, SqlType.DATE, x -> DateTimes.plusDays((LocalDate) x[0], (Long) x[1]));
        bin(BinaryOp.ADD, i4, d, SqlType.DATE, x -> DateTimes.plusDays((LocalDate) x[1], (Long) x[0]));
        bin(BinaryOp.SUB, d, i4, SqlType.DATE, x -> DateTimes.plusDays((LocalDate) x[0], -(Long) x[1]));
        bin(BinaryOp.SUB, d, d, SqlType.INTEGER, x -> DateTimes.daysBetween((LocalDate) x[1], (LocalDate) x[0]));
        bin(BinaryOp.ADD, d, iv, SqlType.TIMESTAMP, x -> DateTimes.plus(InfiniteTimes.atStartOfDay((LocalDate) x[0]), (Interval) x[1]));
        bin(BinaryOp.ADD, iv, d, SqlType.TIMESTAMP, x -> DateTimes.plus(InfiniteTimes.atStartOfDay((LocalDate) x[1]), (Interval) x[0]));
        bin(BinaryOp.SUB, d, iv, SqlType.TIMESTAMP, x -> DateTimes.minus(InfiniteTimes.atStartOfDay((LocalDate) x[0]), (Interval) x[1]));
        bin(BinaryOp.ADD, d, tm, SqlType.TIMESTAMP, x -> DateTimes.atTime((LocalDate) x[0], (LocalTime) x[1]));
        bin(BinaryOp.ADD, tm, d, SqlType.TIMESTAMP, x -> DateTimes.atTime((LocalDate) x[1], (LocalTime) x[0]));
        bin(BinaryOp.ADD, ts, iv, SqlType.TIMESTAMP, x -> DateTimes.plus((LocalDateTime) x[0], (Interval) x[1]));
        bin(BinaryOp.ADD, iv, ts, SqlType.TIMESTAMP, x -> DateTimes.plus((LocalDateTime) x[1], (Interval) x[0]));
        bin(BinaryOp.SUB, ts, iv, SqlType.TIMESTAMP, x -> DateTimes.minus((LocalDateTime) x[0], (Interval) x[1]));
        bin(BinaryOp.SUB, ts, ts, SqlType.INTERVAL, x -> DateTimes.difference((LocalDateTime) x[0], (LocalDateTime) x[1]));
        bin(BinaryOp.ADD, tz, iv, SqlType.TIMESTAMPTZ, x -> utc(DateTimes.plus(local(x[0]), (Interval) x[1])));
        bin(BinaryOp.ADD, iv, tz, SqlType.TIMESTAMPTZ, x -> utc(DateTimes.plus(local(x[1]), (Interval) x[0])));
        bin(BinaryOp.SUB, tz, iv, SqlType.TIMESTAMPTZ, x -> utc(DateTimes.minus(local(x[0]), (Interval) x[1])));
        bin(BinaryOp.SUB, tz, tz, SqlType.INTERVAL, x -> DateTimes.difference(local(x[0]), local(x[1])));
        bin(BinaryOp.ADD, tm, iv, SqlType.TIME, x -> DateTimes.plus((LocalTime) x[0], (Interval) x[1]));
        bin(BinaryOp.ADD, iv, tm, SqlType.TIME, x -> DateTimes.plus((LocalTime) x[1], (Interval) x[0]));
        bin(BinaryOp.SUB, tm, iv, SqlType.TIME, x -> DateTimes.plus((LocalTime) x[0], DateTimes.negate((Interval) x[1])));
        bin(BinaryOp.SUB, tm, tm, SqlType.INTERVAL,
                x -> new Interval(0, 0, (((LocalTime) x[0]).toNanoOfDay() - ((LocalTime) x[1]).toNanoOfDay()) / 1000));
        bin(BinaryOp.ADD, iv, iv, SqlType.INTERVAL, x -> DateTimes.add((Interval) x[0], (Interval) x[1]));
        bin(BinaryOp.SUB, iv, iv, SqlType.INTERVAL, x -> DateTimes.subtract((Interval) x[0], (Interval) x[1]));
        bin(BinaryOp.MUL, iv, Kind.DOUBLE, SqlType.INTERVAL, x -> DateTimes.multiply((Interval) x[0], (Double) x[1]));
        bin(BinaryOp.MUL, Kind.DOUBLE, iv, SqlType.INTERVAL, x -> DateTimes.multiply((Interval) x[1], (Double) x[0]));
        bin(BinaryOp.DIV, iv, Kind.DOUBLE, SqlType.INTERVAL, x -> DateTimes.divide((Interval) x[0], (Double) x[1]));

        // comparisons: every type with itself, integer and float kinds across, date/timestamp/timestamptz across
        List<Kind[]> pairs = new ArrayList<>();
        for (Kind k : Kind.values()) {
            // arrays compare by their element type (ArrayExprs), records not at all, not by kind; json
            // has no comparison in PostgreSQL
            if (k != Kind.UNKNOWN && k != Kind.VARCHAR && k != Kind.ARRAY && k != Kind.RECORD && k != Kind.JSON) pairs.add(new Kind[] {k, k});
        }
        for (Kind a : INTS) for (Kind b : INTS) if (a != b) pairs.add(new Kind[] {a, b});
        pairs.add(new Kind[] {Kind.REAL, Kind.DOUBLE});
        pairs.add(new Kind[] {Kind.DOUBLE, Kind.REAL});
        Kind[] dts = {d, ts, tz};
        for (Kind a : dts) for (Kind b : dts) if (a != b) pairs.add(new Kind[] {a, b});
        for (Kind[] p : pairs) {
            Kind a = p[0], b = p[1];
            SqlType cmp = comparisonType(a, b);
            SqlType ta = SqlType.of(a), tb = SqlType.of(b);
            for (BinaryOp op : BinaryOp.values()) {
                if (!op.isComparison()) continue;
                bin(op, a, b, SqlType.BOOLEAN, x -> {
                    Object l = a == cmp.kind() ? x[0] : Casts.cast(x[0], ta, cmp);
                    Object r = b == cmp.kind() ? x[1] : Casts.cast(x[1], tb, cmp);
                    return test(op, Values.compare(l, r, cmp));
                });
            }
        }

        for (Kind k : new Kind[] {Kind.SMALLINT, Kind.INTEGER, Kind.BIGINT}) {
            un(UnaryOp.NEG, k, x -> Numerics.subInt(0, (Long) x[0], k));
            un(UnaryOp.PLUS, k, x -> x[0]);
        }
        for (Kind k : floats) {
            un(UnaryOp.NEG, k, x -> -(Double) x[0]);
            un(UnaryOp.PLUS, k, x -> x[0]);
        }
        un(UnaryOp.NEG, n, x -> Numerics.negate(x[0]));
        un(UnaryOp.PLUS, n, x -> x[0]);
        // PostgreSQL has prefix - for intervals but no prefix +: its prefix + takes only numbers,
        // so an untyped operand (+ '1', + NULL) resolves to double precision, the preferred type
        un(UnaryOp.NEG, iv, x -> DateTimes.negate((Interval) x[0]));
    }

    private static LocalDateTime local(Object instant) {
        return LocalDateTime.ofInstant((Instant) instant, ZoneOffset.UTC);
    }

    private static Instant utc(LocalDateTime ts) {
        return ts.toInstant(ZoneOffset.UTC);
    }

    /** The type two operands of a cross-type comparison are compared as. */
    private static SqlType comparisonType(Kind a, Kind b) {
        if (a == b) return SqlType.of(a);
        if (Casts.numericRank(a) >= 0) return SqlType.of(wider(a, b));
        if (a == Kind.TIMESTAMPTZ || b == Kind.TIMESTAMPTZ) return SqlType.TIMESTAMPTZ;
        return SqlType.TIMESTAMP;
    }

    /** Whether comparison {@code op} holds for a comparison result {@code c} (negative, zero, positive). */
    static boolean test(BinaryOp op, int c) {
        return switch (op) {
            case EQ -> c == 0;
            case NE -> c != 0;
            case LT -> c < 0;
            case LE -> c <= 0;
            case GT -> c > 0;
            case GE -> c >= 0;
            default -> throw new IllegalArgumentException(op.toString());
        };
    }

    static String typeName(SqlType t) {
        return t.kind().pgName();
    }

    // ---------------------------------------------------------------------------- binary

    /**
     * {@code l op r}, resolved. {@code pos} is the operator's place in the statement for errors.
     * 42883 {@code operator does not exist: integer + boolean} when nothing matches, 42725 when
     * ambiguous ({@code '1' + '2'}).
     */
    public static ScalarExpr binary(BinaryOp op, ScalarExpr l, ScalarExpr r, int pos) {
        if ((op == BinaryOp.CONCAT || op == BinaryOp.SUB) && JsonOperators.isJsonb(op.symbol(), l, r)) return JsonOperators.binary(op.symbol(), l, r, pos);
        if (op == BinaryOp.CONCAT) return concat(l, r, pos);
        if (op.isComparison() && (l.type().isArray() || r.type().isArray())) return ArrayExprs.compare(op, l, r, pos);
        if (op.isComparison() && (l.type().kind() == Kind.RECORD || r.type().kind() == Kind.RECORD)) return RecordExprs.compare(op, l, r, pos);
        List<Resolver.Candidate> found = Resolver.select(BINARY.get(op), List.of(l.type(), r.type()), true);
        String sig = typeName(l.type()) + " " + op.symbol() + " " + typeName(r.type());
        if (found.isEmpty()) throw new SqlException("42883", "operator does not exist: " + sig, pos, NO_OPERATOR_HINT);
        if (found.size() > 1) throw new SqlException("42725", "operator is not unique: " + sig, pos, AMBIGUOUS_OPERATOR_HINT);
        Resolver.Candidate c = found.get(0);
        List<ScalarExpr> args = List.of(
                Casts.coerce(l, SqlType.of(c.params().get(0)), CastContext.IMPLICIT, pos),
                Casts.coerce(r, SqlType.of(c.params().get(1)), CastContext.IMPLICIT, pos));
        return new ScalarExpr.Call(op.symbol(), args, c.result(), c.impl(), true);
    }

    /** {@code text || text}, {@code bytea || bytea}, and PostgreSQL's {@code anynonarray || text} (the other operand printed as text). */
    private static ScalarExpr concat(ScalarExpr l, ScalarExpr r, int pos) {
        if (l.type().isArray() || r.type().isArray()) return ArrayExprs.concat(l, r, pos);
        Kind lk = l.type().kind(), rk = r.type().kind();
        boolean lb = lk == Kind.BYTEA, rb = rk == Kind.BYTEA;
        if ((lb || lk == Kind.UNKNOWN) && (rb || rk == Kind.UNKNOWN) && (lb || rb)) {
            ScalarExpr a = Casts.coerce(l, SqlType.BYTEA, CastContext.IMPLICIT, pos);
            ScalarExpr b = Casts.coerce(r, SqlType.BYTEA, CastContext.IMPLICIT, pos);
            return new ScalarExpr.Call("||", List.of(a, b), SqlType.BYTEA, x -> {
                byte[] p = ((Bytea) x[0]).toByteArray(), q = ((Bytea) x[1]).toByteArray();
                byte[] out = java.util.Arrays.copyOf(p, p.length + q.length);
                System.arraycopy(q, 0, out, p.length, q.length);
                return Bytea.copyOf(out);
            }, true);
        }
        boolean ls = l.type().isString(), rs = r.type().isString();
        if (!ls && !rs) {
            throw new SqlException("42883", "operator does not exist: " + typeName(l.type()) + " || " + typeName(r.type()),
                    pos, NO_OPERATOR_HINT);
        }
        ScalarExpr a = toText(l, pos), b = toText(r, pos);
        return new ScalarExpr.Call("||", List.of(a, b), SqlType.TEXT, x -> (String) x[0] + x[1], true);
    }

    /** The expression as text: strings (and untyped literals) implicitly, anything else by its output function. */
    static ScalarExpr toText(ScalarExpr e, int pos) {
        if (e.type().kind() == Kind.TEXT) return e;
        return Casts.coerce(e, SqlType.TEXT, e.type().isString() ? CastContext.IMPLICIT : CastContext.ASSIGNMENT, pos);
    }

    // ----------------------------------------------------------------------------- unary

    /** {@code op e}: negation and unary plus of numbers and intervals; {@code NOT} of a boolean. */
    public static ScalarExpr unary(UnaryOp op, ScalarExpr e, int pos) {
        if (op == UnaryOp.NOT) return new ScalarExpr.Not(toBoolean(e, "NOT", pos));
        List<Resolver.Candidate> found = Resolver.select(UNARY.get(op), List.of(e.type()), false);
        String sig = op.symbol() + " " + typeName(e.type());
        if (found.isEmpty()) throw new SqlException("42883", "operator does not exist: " + sig, pos, NO_OPERATOR_HINT);
        if (found.size() > 1) throw new SqlException("42725", "operator is not unique: " + sig, pos, AMBIGUOUS_OPERATOR_HINT);
        Resolver.Candidate c = found.get(0);
        if (op == UnaryOp.NEG && e instanceof ScalarExpr.Literal lit && lit.value() != null && lit.type().kind() != Kind.UNKNOWN) {
            // fold "-5" at once so a literal like -2147483648 is an int4 constant, as the parser makes it
            try {
                Object arg = Casts.cast(lit.value(), lit.type(), SqlType.of(c.params().get(0)), CastContext.IMPLICIT);
                return new ScalarExpr.Literal(c.impl().apply(new Object[] {arg}), c.result());
            } catch (SqlException ex) {
                // left for evaluation, where the error belongs
            }
        }
        ScalarExpr arg = Casts.coerce(e, SqlType.of(c.params().get(0)), CastContext.IMPLICIT, pos);
        return new ScalarExpr.Call(op.symbol(), List.of(arg), c.result(), c.impl(), true);
    }

    /**
     * The operand of AND/OR/NOT/WHERE as a boolean: an untyped literal is read as one, anything
     * else not boolean is 42804 {@code argument of AND must be type boolean, not type integer}.
     */
    public static ScalarExpr toBoolean(ScalarExpr e, String construct, int pos) {
        if (e.type().kind() == Kind.BOOLEAN) return e;
        if (e.type().kind() == Kind.UNKNOWN) return Casts.coerce(e, SqlType.BOOLEAN, CastContext.IMPLICIT, pos);
        throw new SqlException("42804", "argument of " + construct + " must be type boolean, not type " + typeName(e.type()), pos);
    }

    public static ScalarExpr and(List<ScalarExpr> args, int pos) {
        List<ScalarExpr> b = new ArrayList<>();
        for (ScalarExpr a : args) b.add(toBoolean(a, "AND", pos));
        return new ScalarExpr.And(b);
    }

    public static ScalarExpr or(List<ScalarExpr> args, int pos) {
        List<ScalarExpr> b = new ArrayList<>();
        for (ScalarExpr a : args) b.add(toBoolean(a, "OR", pos));
        return new ScalarExpr.Or(b);
    }

    // ------------------------------------------------------------------- comparison nodes

    /** The two operands coerced to the one type {@code l = r} compares them as. */
    static ScalarExpr[] comparable(ScalarExpr l, ScalarExpr r, int pos) {
        ScalarExpr.Call eq = (ScalarExpr.Call) binary(BinaryOp.EQ, l, r, pos);
        ScalarExpr a = eq.args().get(0), b = eq.args().get(1);
        if (a.type().kind() != b.type().kind()) {
            SqlType cmp = comparisonType(a.type().kind(), b.type().kind());
            a = Casts.coerce(a, cmp, CastContext.IMPLICIT, pos);
            b = Casts.coerce(b, cmp, CastContext.IMPLICIT, pos);
        }
        return new ScalarExpr[] {a, b};
    }

    /** {@code l IS [NOT] DISTINCT FROM r}, with the operand types of {@code l = r}. */
    public static ScalarExpr isDistinctFrom(ScalarExpr l, ScalarExpr r, boolean negated, int pos) {
        ScalarExpr[] c = comparable(l, r, pos);
        return new ScalarExpr.IsDistinctFrom(c[0], c[1], negated);
    }

    /** {@code NULLIF(l, r)}: compared as {@code l = r} compares, of l's type (text for an untyped l). */
    public static ScalarExpr nullIf(ScalarExpr l, ScalarExpr r, int pos) {
        ScalarExpr left = l.type().kind() == Kind.UNKNOWN ? Casts.coerce(l, SqlType.TEXT, CastContext.IMPLICIT, pos) : l;
        ScalarExpr[] c = comparable(left, r, pos);
        ScalarExpr right = Casts.coerce(r, c[1].type(), CastContext.IMPLICIT, pos);
        return new ScalarExpr.NullIf(left, right, c[0].type());
    }

    /**
     * {@code e [NOT] IN (list)}: all coerced to their common type when there is one, else (as
     * PostgreSQL) an OR of {@code e = item} comparisons (AND of {@code <>} when negated).
     */
    public static ScalarExpr in(ScalarExpr e, List<ScalarExpr> list, boolean negated, int pos) {
        List<ScalarExpr> all = new ArrayList<>();
        all.add(e);
        all.addAll(list);
        SqlType common;
        try {
            common = Types.common(Types.typesOf(all), "IN", pos);
        } catch (SqlException ex) {
            common = null;
        }
        if (common != null) {
            List<ScalarExpr> c = Types.coerceAll(all, common, pos);
            return new ScalarExpr.InList(c.get(0), c.subList(1, c.size()), negated);
        }
        List<ScalarExpr> cmps = new ArrayList<>();
        for (ScalarExpr x : list) cmps.add(binary(negated ? BinaryOp.NE : BinaryOp.EQ, e, x, pos));
        return negated ? new ScalarExpr.And(cmps) : new ScalarExpr.Or(cmps);
    }

    /**
     * {@code e [NOT] LIKE|ILIKE pattern [ESCAPE escape]} (escape null: the default backslash).
     * Operands must be strings (42883 {@code operator does not exist: integer ~~ unknown}); a
     * constant pattern is compiled here, once.
     */
    public static ScalarExpr like(ScalarExpr e, ScalarExpr pattern, ScalarExpr escape, boolean caseInsensitive,
                                  boolean negated, int pos) {
        if (!e.type().isString() || !pattern.type().isString()) {
            String op = (negated ? "!" : "") + (caseInsensitive ? "~~*" : "~~");
            throw new SqlException("42883", "operator does not exist: " + typeName(e.type()) + " " + op + " "
                    + typeName(pattern.type()), pos, NO_OPERATOR_HINT);
        }
        ScalarExpr a = Casts.coerce(e, SqlType.TEXT, CastContext.IMPLICIT, pos);
        ScalarExpr p = Casts.coerce(pattern, SqlType.TEXT, CastContext.IMPLICIT, pos);
        ScalarExpr esc = escape == null ? null : Casts.coerce(escape, SqlType.TEXT, CastContext.IMPLICIT, pos);
        LikePattern compiled = null;
        if (p instanceof ScalarExpr.Literal pl && pl.value() != null
                && (esc == null || (esc instanceof ScalarExpr.Literal el && el.value() != null))) {
            try {
                String escStr = esc == null ? "\\" : (String) ((ScalarExpr.Literal) esc).value();
                compiled = LikePattern.compile((String) pl.value(), escStr, caseInsensitive);
            } catch (SqlException ex) {
                compiled = null; // raised per row, as PostgreSQL raises it at execution
            }
        }
        return new ScalarExpr.Like(a, p, esc, caseInsensitive, negated, compiled);
    }
}
