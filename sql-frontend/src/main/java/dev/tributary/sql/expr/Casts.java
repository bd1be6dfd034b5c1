package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;

/**
 * PostgreSQL's casts between the types Tributary stores: which exist in which {@link CastContext}
 * (the rows of {@code pg_cast} plus the automatic I/O conversion casts to and from strings), and
 * what they do to a value.
 *
 * <p>Every type converts to TEXT, VARCHAR and CHAR in ASSIGNMENT context by its output function,
 * and from them only EXPLICITly by its input function. An untyped literal (UNKNOWN) converts to
 * anything implicitly by the target's input function.
 */
public final class Casts {
    private Casts() {}

    /** The least permissive context in which a cast from {@code from} to {@code to} applies, or null if none. */
    public static CastContext level(Kind from, Kind to) {
        if (from == to || from == Kind.UNKNOWN) return CastContext.IMPLICIT;
        if (to == Kind.UNKNOWN) return null;
        boolean fromString = from == Kind.TEXT || from == Kind.VARCHAR || from == Kind.CHAR;
        boolean toString = to == Kind.TEXT || to == Kind.VARCHAR || to == Kind.CHAR;
        if (fromString && toString) return to == Kind.CHAR ? CastContext.ASSIGNMENT : CastContext.IMPLICIT;
        if (toString) return CastContext.ASSIGNMENT;
        if (fromString) return CastContext.EXPLICIT;
        if ((from == Kind.JSON && to == Kind.JSONB) || (from == Kind.JSONB && to == Kind.JSON)) return CastContext.ASSIGNMENT;
        if (from == Kind.JSONB) return to == Kind.BOOLEAN || numericRank(to) >= 0 ? CastContext.EXPLICIT : null;
        int nf = numericRank(from), nt = numericRank(to);
        if (nf >= 0 && nt >= 0) return nf < nt ? CastContext.IMPLICIT : CastContext.ASSIGNMENT;
        if ((from == Kind.BOOLEAN && to == Kind.INTEGER) || (from == Kind.INTEGER && to == Kind.BOOLEAN)) {
            return CastContext.EXPLICIT;
        }
        return switch (from) {
            case DATE -> to == Kind.TIMESTAMP || to == Kind.TIMESTAMPTZ ? CastContext.IMPLICIT : null;
            case TIMESTAMP -> to == Kind.TIMESTAMPTZ ? CastContext.IMPLICIT
                    : (to == Kind.DATE || to == Kind.TIME ? CastContext.ASSIGNMENT : null);
            case TIMESTAMPTZ -> to == Kind.TIMESTAMP || to == Kind.DATE || to == Kind.TIME ? CastContext.ASSIGNMENT : null;
            case TIME -> to == Kind.INTERVAL ? CastContext.IMPLICIT : null;
            case INTERVAL -> to == Kind.TIME ? CastContext.ASSIGNMENT : null;
            default -> null;
        };
    }

    /** SMALLINT < INTEGER < BIGINT < NUMERIC < REAL < DOUBLE: upward casts are implicit. */
    static int numericRank(Kind k) {
        return switch (k) {
            case SMALLINT -> 0;
            case INTEGER -> 1;
            case BIGINT -> 2;
            case NUMERIC -> 3;
            case REAL -> 4;
            case DOUBLE -> 5;
            default -> -1;
        };
    }

    /** Whether a value of type {@code from} can be cast to {@code to} in context {@code ctx}. */
    public static boolean castable(SqlType from, SqlType to, CastContext ctx) {
        // an array casts to another array type as its elements do
        if (from.isArray() && to.isArray()) return castable(from.element(), to.element(), ctx);
        if (from.kind() == Kind.RECORD && to.kind() == Kind.RECORD) return RecordExprs.castable(from, to, ctx);
        CastContext l = level(from.kind(), to.kind());
        return l != null && l.compareTo(ctx) <= 0;
    }

    /** An explicit cast of a value ({@code v::to}). */
    public static Object cast(Object v, SqlType from, SqlType to) {
        return cast(v, from, to, CastContext.EXPLICIT);
    }

    /**
     * The value {@code v} of type {@code from} as a value of type {@code to}, with PostgreSQL's
     * errors. {@code ctx} matters only for strings too long for VARCHAR(n)/CHAR(n): an EXPLICIT
     * cast truncates, otherwise it is 22001 unless only blanks are cut.
     */
    public static Object cast(Object v, SqlType from, SqlType to, CastContext ctx) {
        if (v == null) return null;
        Kind f = from.kind(), t = to.kind();
        boolean truncate = ctx == CastContext.EXPLICIT;
        if (f == Kind.ARRAY && t == Kind.ARRAY) {
            java.util.List<?> a = (java.util.List<?>) v;
            Object[] out = new Object[a.size()];
            for (int i = 0; i < out.length; i++) out[i] = cast(a.get(i), from.element(), to.element(), ctx);
            return dev.tributary.sql.types.ShapedArray.shapedLike(a, out);
        }
        if (f == Kind.RECORD && t == Kind.RECORD) return RecordExprs.cast((java.util.List<?>) v, from, to, ctx);
        switch (t) {
            case TEXT, VARCHAR, CHAR, UNKNOWN -> {
                String s = switch (f) {
                    case CHAR -> t == Kind.CHAR ? (String) v : Values.rtrim((String) v);
                    case BOOLEAN -> ((Boolean) v) ? "true" : "false";
                    case TEXT, VARCHAR, UNKNOWN -> (String) v;
                    default -> Values.toText(v, from);
                };
                return t == Kind.TEXT || t == Kind.UNKNOWN ? s : Values.fitString(s, to, truncate);
            }
            default -> {
            }
        }
        if (from.isString()) {
            return Values.fromText((String) v, to);
        }
        if (t == Kind.JSONB) {
            if (f == Kind.JSON) return dev.tributary.sql.types.Jsonb.parse((String) v);
            if (f == Kind.JSONB) return v;
            throw notCastable(from, to);
        }
        if (t == Kind.JSON && f == Kind.JSONB) return v.toString();
        if (f == Kind.JSONB) return fromJsonb((dev.tributary.sql.types.Jsonb) v, to);
        switch (t) {
            case SMALLINT, INTEGER, BIGINT -> {
                return toInteger(v, f, to);
            }
            case NUMERIC -> {
                Object d = switch (f) {
                    case SMALLINT, INTEGER, BIGINT -> BigDecimal.valueOf((Long) v);
                    case NUMERIC -> v;
                    case DOUBLE -> floatToNumeric((Double) v, 15);
                    case REAL -> floatToNumeric((Double) v, 6);
                    default -> throw notCastable(from, to);
                };
                return Values.applyNumericTypmod(d, to);
            }
            case DOUBLE -> {
                return switch (f) {
                    case SMALLINT, INTEGER, BIGINT -> (double) (Long) v;
                    case NUMERIC -> {
                        if (v instanceof NonFiniteNumeric n) yield n.asDouble();
                        double d = ((BigDecimal) v).doubleValue();
                        if (Double.isInfinite(d)) throw new SqlException("22003", "value out of range: overflow");
                        yield d;
                    }
                    case REAL, DOUBLE -> v;
                    default -> throw notCastable(from, to);
                };
            }
            case REAL -> {
                double d = switch (f) {
                    case SMALLINT, INTEGER, BIGINT -> (double) (Long) v;
                    case NUMERIC -> v instanceof NonFiniteNumeric n ? n.asDouble() : ((BigDecimal) v).doubleValue();
                    case REAL, DOUBLE -> (Double) v;
                    default -> throw notCastable(from, to);
                };
                return toReal(d);
            }
            case BOOLEAN -> {
                if (f == Kind.INTEGER) return (Long) v != 0;
                if (f == Kind.BOOLEAN) return v;
                throw notCastable(from, to);
            }
            case DATE -> {
                return switch (f) {
                    case DATE -> v;
                    case TIMESTAMP -> InfiniteTimes.toLocalDate((LocalDateTime) v);
                    case TIMESTAMPTZ -> InfiniteTimes.toLocalDate(LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC));
                    default -> throw notCastable(from, to);
                };
            }
            case TIMESTAMP -> {
                return switch (f) {
                    case DATE -> InfiniteTimes.atStartOfDay((LocalDate) v);
                    case TIMESTAMP -> v;
                    case TIMESTAMPTZ -> LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC);
                    default -> throw notCastable(from, to);
                };
            }
            case TIMESTAMPTZ -> {
                return switch (f) {
                    case DATE -> InfiniteTimes.atStartOfDay((LocalDate) v).toInstant(ZoneOffset.UTC);
                    case TIMESTAMP -> ((LocalDateTime) v).toInstant(ZoneOffset.UTC);
                    case TIMESTAMPTZ -> v;
                    default -> throw notCastable(from, to);
                };
            }
            case TIME -> {
                // PostgreSQL's time of an infinite timestamp is NULL
                if (!InfiniteTimes.isFinite(v)) return null;
                return switch (f) {
                    case TIME -> v;
                    case TIMESTAMP -> ((LocalDateTime) v).toLocalTime();
                    case TIMESTAMPTZ -> LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC).toLocalTime();
                    case INTERVAL -> {
                        long us = Math.floorMod(((Interval) v).micros(), Interval.MICROS_PER_DAY);
                        yield LocalTime.ofNanoOfDay(us * 1000);
                    }
                    default -> throw notCastable(from, to);
                };
            }
            case INTERVAL -> {
                if (f == Kind.INTERVAL) return v;
                if (f == Kind.TIME) return new Interval(0, 0, ((LocalTime) v).toNanoOfDay() / 1000);
                throw notCastable(from, to);
            }
            case BYTEA -> {
                if (f == Kind.BYTEA) return v;
                throw notCastable(from, to);
            }
            case UUID -> {
                if (f == Kind.UUID) return v;
                throw notCastable(from, to);
            }
            default -> throw notCastable(from, to);
        }
    }

    /** A jsonb scalar as a boolean or a number, as PostgreSQL's casts from jsonb: 22023 for any other kind of value. */
    private static Object fromJsonb(dev.tributary.sql.types.Jsonb j, SqlType to) {
        Kind t = to.kind();
        if (t == Kind.BOOLEAN && j instanceof dev.tributary.sql.types.Jsonb.Bool b) return b.value();
        if (t != Kind.BOOLEAN && j instanceof dev.tributary.sql.types.Jsonb.Num n) return cast(n.value(), SqlType.NUMERIC, to);
        String kind = switch (j.typeName()) {
            case "number" -> "numeric";
            default -> j.typeName();
        };
        throw new SqlException("22023", "cannot cast jsonb " + kind + " to type " + to);
    }

    private static Long toInteger(Object v, Kind f, SqlType to) {
        long r;
        switch (f) {
            case SMALLINT, INTEGER, BIGINT -> r = (Long) v;
            case BOOLEAN -> r = ((Boolean) v) ? 1 : 0;
            case NUMERIC -> {
                if (v instanceof NonFiniteNumeric n) {
                    // PostgreSQL's SQLSTATE for these is 0A000, not 22003
                    throw new SqlException("0A000", "cannot convert " + (n == NonFiniteNumeric.NAN ? "NaN" : "infinity") + " to " + integerName(to.kind()));
                }
                BigDecimal d = ((BigDecimal) v).setScale(0, RoundingMode.HALF_UP);
                if (d.unscaledValue().bitLength() > 63) throw integerOutOfRange(to.kind());
                r = d.longValueExact();
            }
            case REAL, DOUBLE -> {
                double d = Math.rint((Double) v);
                if (Double.isNaN(d) || d < -9.223372036854775808E18 || d >= 9.223372036854775808E18) {
                    throw integerOutOfRange(to.kind());
                }
                r = (long) d;
            }
            default -> throw notCastable(SqlType.of(f), to);
        }
        if (!Values.inRange(r, to)) throw integerOutOfRange(to.kind());
        return r;
    }

    /** 22003 {@code integer out of range} and its kin, as PostgreSQL names the integer kinds. */
    public static SqlException integerOutOfRange(Kind k) {
        return new SqlException("22003", integerName(k) + " out of range");
    }

    private static String integerName(Kind k) {
        return switch (k) {
            case SMALLINT -> "smallint";
            case INTEGER -> "integer";
            default -> "bigint";
        };
    }

    /** A double rounded to float precision, with PostgreSQL's overflow and underflow errors. */
    public static Double toReal(double d) {
        float f = (float) d;
        if (Float.isInfinite(f) && !Double.isInfinite(d)) throw new SqlException("22003", "value out of range: overflow");
        if (f == 0 && d != 0) throw new SqlException("22003", "value out of range: underflow");
        return (double) f;
    }

    /** PostgreSQL converts a float to NUMERIC through its text with {@code digits} significant digits. */
    private static Object floatToNumeric(double d, int digits) {
        if (Double.isNaN(d) || Double.isInfinite(d)) return NonFiniteNumeric.of(d);
        if (d == 0) return BigDecimal.ZERO;
        BigDecimal b = new BigDecimal(d).round(new MathContext(digits, RoundingMode.HALF_EVEN)).stripTrailingZeros();
        return b.scale() < 0 ? b.setScale(0) : b;
    }

    static SqlException notCastable(SqlType from, SqlType to) {
        return new SqlException("42846", "cannot cast type " + from + " to " + to);
    }

    /**
     * The expression converted to {@code target} in context {@code ctx}, or null when no such cast
     * exists (so a binder can raise its own 42804 message cheaply). An untyped literal is converted
     * now, so a malformed literal is an error at {@code pos} as in PostgreSQL.
     */
    /** {@code t} without length, precision or scale (an array's element likewise). */
    private static SqlType plainKind(SqlType t) {
        return t.isArray() ? SqlType.array(plainKind(t.element())) : SqlType.of(t.kind());
    }

    public static ScalarExpr tryCoerce(ScalarExpr e, SqlType target, CastContext ctx, int pos) {
        SqlType from = e.type();
        if (from.equals(target)) return e;
        if (!castable(from, target, ctx)) return null;
        if (from.kind() == target.kind() && target.length() < 0 && target.scale() < 0 && !target.isArray() && target.kind() != Kind.RECORD) {
            return e; // only a length, precision or scale the target does not ask for differs
        }
        if (e instanceof ScalarExpr.Param p && from.kind() == Kind.UNKNOWN) {
            // an untyped parameter takes the type its context wants, as an untyped literal does;
            // the parameter itself is of the plain kind, a length or scale is then a cast
            ScalarExpr typed = new ScalarExpr.Param(p.index(), plainKind(target));
            return typed.type().equals(target) ? typed : new ScalarExpr.Cast(typed, target, ctx);
        }
        if (e instanceof ScalarExpr.Literal lit && (from.kind() == Kind.UNKNOWN || lit.value() == null)) {
            try {
                Object v = lit.value() == null ? null : cast(lit.value(), from, target, ctx);
                return new ScalarExpr.Literal(v, target);
            } catch (SqlException ex) {
                throw ex.at(pos);
            }
        }
        return new ScalarExpr.Cast(e, target, ctx);
    }

    /** As {@link #tryCoerce}, but 42846 {@code cannot cast type boolean to date} when no cast exists. */
    public static ScalarExpr coerce(ScalarExpr e, SqlType target, CastContext ctx, int pos) {
        ScalarExpr r = tryCoerce(e, target, ctx, pos);
        if (r == null) throw new SqlException("42846", "cannot cast type " + e.type() + " to " + target, pos);
        return r;
    }
}
