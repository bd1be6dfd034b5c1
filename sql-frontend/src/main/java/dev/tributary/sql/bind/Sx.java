package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.expr.AggregateFunction;
import dev.tributary.sql.expr.Aggregates;
import dev.tributary.sql.expr.BinaryOp;
import dev.tributary.sql.expr.CastContext;
import dev.tributary.sql.expr.Casts;
import dev.tributary.sql.expr.Functions;
import dev.tributary.sql.expr.Operators;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.Types;
import dev.tributary.sql.expr.UnaryOp;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The binder's way into the typed expression layer ({@code dev.tributary.sql.expr}): building
 * and resolving expressions, and the structural questions planning asks of them (which columns,
 * is it an equality, renumber the columns).
 */
final class Sx {
    private Sx() {}

    static boolean isAggregate(String name) {
        return dev.tributary.sql.expr.Aggregates.isAggregate(name);
    }

    static ScalarExpr column(int i, SqlType t) {
        return new ScalarExpr.ColumnRef(i, t);
    }

    static ScalarExpr literal(Object v, SqlType t) {
        return new ScalarExpr.Literal(v, t);
    }

    static ScalarExpr typedLiteral(SqlType type, String text, String qualifier, int pos) {
        Object v;
        try {
            String t = text;
            // INTERVAL '3' DAY: a bare number takes the qualifier's unit (its first field)
            if (type.kind() == SqlType.Kind.INTERVAL && qualifier != null && text.strip().matches("[-+]?[0-9.]+")) {
                t = text.strip() + " " + qualifier.split(" ")[0];
            }
            v = Values.fromText(t, type);
        } catch (SqlException e) {
            throw e.at(pos);
        }
        return literal(v, type);
    }

    static boolean isConstant(ScalarExpr e) {
        return e.isConstant();
    }

    static String typeName(SqlType t) {
        return switch (t.kind()) {
            case INTEGER -> "int4";
            case BIGINT -> "int8";
            case SMALLINT -> "int2";
            case REAL -> "float4";
            case DOUBLE -> "float8";
            case BOOLEAN -> "bool";
            case VARCHAR -> "varchar";
            case CHAR -> "bpchar";
            case TIMESTAMPTZ -> "timestamptz";
            case TIMESTAMP -> "timestamp";
            case TIME -> "time";
            default -> t.kind().pgName();
        };
    }

    static ScalarExpr binary(dev.tributary.sql.ast.BinaryOp op, ScalarExpr l, ScalarExpr r, int pos) {
        return switch (op) {
            case AND -> Operators.and(List.of(l, r), pos);
            case OR -> Operators.or(List.of(l, r), pos);
            case EQ -> Operators.binary(BinaryOp.EQ, l, r, pos);
            case NE -> Operators.binary(BinaryOp.NE, l, r, pos);
            case LT -> Operators.binary(BinaryOp.LT, l, r, pos);
            case LE -> Operators.binary(BinaryOp.LE, l, r, pos);
            case GT -> Operators.binary(BinaryOp.GT, l, r, pos);
            case GE -> Operators.binary(BinaryOp.GE, l, r, pos);
            case CONCAT -> Operators.binary(BinaryOp.CONCAT, l, r, pos);
            case ADD -> Operators.binary(BinaryOp.ADD, l, r, pos);
            case SUB -> Operators.binary(BinaryOp.SUB, l, r, pos);
            case MUL -> Operators.binary(BinaryOp.MUL, l, r, pos);
            case DIV -> Operators.binary(BinaryOp.DIV, l, r, pos);
            case MOD -> Operators.binary(BinaryOp.MOD, l, r, pos);
            case POW -> Operators.binary(BinaryOp.POW, l, r, pos);
            case BIT_AND -> Operators.binary(BinaryOp.BIT_AND, l, r, pos);
            case BIT_OR -> Operators.binary(BinaryOp.BIT_OR, l, r, pos);
            case BIT_XOR -> Operators.binary(BinaryOp.BIT_XOR, l, r, pos);
            case SHIFT_LEFT -> Operators.binary(BinaryOp.SHIFT_LEFT, l, r, pos);
            case SHIFT_RIGHT -> Operators.binary(BinaryOp.SHIFT_RIGHT, l, r, pos);
            case MATCH, IMATCH, NOT_MATCH, NOT_IMATCH -> dev.tributary.sql.expr.Regexes.match(op.symbol(), l, r, pos);
            case JSON_GET, JSON_GET_TEXT, JSON_PATH, JSON_PATH_TEXT, CONTAINS, CONTAINED_BY, HAS_KEY, HAS_ANY_KEY, HAS_ALL_KEYS,
                    DELETE_PATH, JSONPATH_EXISTS, JSONPATH_MATCH -> dev.tributary.sql.expr.JsonOperators.binary(op.symbol(), l, r, pos);
        };
    }

    /** The comparison operator {@code op} names; 42883 for an operator that is not one. */
    static BinaryOp comparison(dev.tributary.sql.ast.BinaryOp op, int pos) {
        return switch (op) {
            case EQ -> BinaryOp.EQ;
            case NE -> BinaryOp.NE;
            case LT -> BinaryOp.LT;
            case LE -> BinaryOp.LE;
            case GT -> BinaryOp.GT;
            case GE -> BinaryOp.GE;
            default -> throw new SqlException("42809", "op ANY/ALL (array) requires operator to yield boolean", pos);
        };
    }

    static ScalarExpr unary(Expr.UnaryOp op, ScalarExpr e, int pos) {
        return switch (op) {
            case NOT -> Operators.unary(UnaryOp.NOT, e, pos);
            case NEG -> Operators.unary(UnaryOp.NEG, e, pos);
            case PLUS -> Operators.unary(UnaryOp.PLUS, e, pos);
        };
    }

    static ScalarExpr and(List<ScalarExpr> args) {
        return Operators.and(args, 0);
    }

    static ScalarExpr or(List<ScalarExpr> args) {
        return Operators.or(args, 0);
    }

    static ScalarExpr not(ScalarExpr e) {
        return Operators.unary(UnaryOp.NOT, e, 0);
    }

    static ScalarExpr isNull(ScalarExpr e, boolean negated) {
        if (e.type().kind() == SqlType.Kind.RECORD) return dev.tributary.sql.expr.RecordExprs.isNull(e, negated);
        return new ScalarExpr.IsNull(e, negated);
    }

    /** {@code e IS [NOT] TRUE|FALSE|UNKNOWN}, with NULL never the answer. */
    static ScalarExpr isTruth(ScalarExpr e, Expr.Truth truth, boolean negated) {
        ScalarExpr test = switch (truth) {
            case UNKNOWN -> new ScalarExpr.IsNull(e, false);
            case TRUE -> new ScalarExpr.IsDistinctFrom(e, literal(true, SqlType.BOOLEAN), true);
            case FALSE -> new ScalarExpr.IsDistinctFrom(e, literal(false, SqlType.BOOLEAN), true);
        };
        return negated ? Operators.unary(UnaryOp.NOT, test, 0) : test;
    }

    static ScalarExpr isDistinctFrom(ScalarExpr l, ScalarExpr r, boolean negated, int pos) {
        return Operators.isDistinctFrom(l, r, negated, pos);
    }

    static ScalarExpr inList(ScalarExpr e, List<ScalarExpr> list, boolean negated, int pos) {
        return Operators.in(e, list, negated, pos);
    }

    static ScalarExpr like(ScalarExpr e, ScalarExpr pattern, ScalarExpr escape, boolean negated, boolean caseInsensitive, int pos) {
        return Operators.like(e, pattern, escape, caseInsensitive, negated, pos);
    }

    static ScalarExpr cast(ScalarExpr e, SqlType t, int pos) {
        return Casts.coerce(e, t, CastContext.EXPLICIT, pos);
    }

    /** {@code e} as {@code t} by an implicit cast; 42804 naming {@code context} when there is none. */
    static ScalarExpr coerce(ScalarExpr e, SqlType t, int pos, String context) {
        if (e.type().equals(t)) return e;
        ScalarExpr c = Casts.tryCoerce(e, t, CastContext.IMPLICIT, pos);
        if (c == null) {
            if (t.kind() == SqlType.Kind.BOOLEAN) {
                throw new SqlException("42804", context + " must be type boolean, not type " + typeName(e.type()), pos);
            }
            throw new SqlException("42804", context + " has type " + e.type() + " but " + t + " is needed", pos);
        }
        // a coercion between variants of one kind may keep the operand's modifier (numeric(10,2)
        // for numeric): relabel, so the column's type is exactly the one asked for
        return c.type().equals(t) ? c : new ScalarExpr.Cast(c, t, CastContext.IMPLICIT);
    }

    /** {@code e} stored into a column of type {@code t} (an assignment cast), as INSERT and UPDATE do. */
    static ScalarExpr assign(ScalarExpr e, SqlType t, String column, int pos) {
        if (e.type().equals(t)) return e;
        ScalarExpr c = Casts.tryCoerce(e, t, CastContext.ASSIGNMENT, pos);
        if (c == null) {
            throw new SqlException("42804", "column \"" + column + "\" is of type " + t + " but expression is of type " + e.type(), pos,
                    "You will need to rewrite or cast the expression.");
        }
        return c;
    }

    static SqlType common(List<SqlType> types, String construct, int pos) {
        return Types.common(types, construct, pos);
    }

    static ScalarExpr call(String name, List<ScalarExpr> args, int pos) {
        return Functions.call(name, args, pos);
    }

    static ScalarExpr current(Expr.CurrentKind kind, int pos) {
        return switch (kind) {
            case CURRENT_TIMESTAMP -> new ScalarExpr.Now(SqlType.TIMESTAMPTZ);
            case CURRENT_DATE -> new ScalarExpr.Now(SqlType.DATE);
            case LOCALTIMESTAMP -> new ScalarExpr.Now(SqlType.TIMESTAMP);
            case LOCALTIME, CURRENT_TIME -> new ScalarExpr.Now(SqlType.TIME);
        };
    }

    static ScalarExpr caseWhen(List<ScalarExpr> conditions, List<ScalarExpr> results, ScalarExpr otherwise) {
        List<ScalarExpr.When> whens = new ArrayList<>();
        for (int i = 0; i < conditions.size(); i++) whens.add(new ScalarExpr.When(conditions.get(i), results.get(i)));
        return new ScalarExpr.Case(whens, otherwise, otherwise.type());
    }

    /**
     * An ordered-set aggregate called without WITHIN GROUP, or another aggregate with it: as
     * PostgreSQL, no function of those arguments (direct and aggregated) exists, 42883.
     */
    static void checkWithinGroup(String name, boolean withinGroup, List<SqlType> argTypes, int pos) {
        if (Aggregates.isOrderedSet(name) == withinGroup) return;
        StringBuilder sig = new StringBuilder(name.toLowerCase(java.util.Locale.ROOT)).append('(');
        for (int i = 0; i < argTypes.size(); i++) sig.append(i > 0 ? ", " : "").append(argTypes.get(i).kind().pgName());
        throw new SqlException("42883", "function " + sig.append(')') + " does not exist", pos,
                "No function matches the given name and argument types. You might need to add explicit type casts.");
    }

    static AggregateFunction aggregate(String name, List<SqlType> argTypes, boolean distinct, boolean star, int pos) {
        return Aggregates.resolve(name, argTypes, distinct, star, pos);
    }

    /**
     * {@code e} in key form, so equal values meet: a NUMERIC loses trailing fraction zeros, an
     * INTERVAL is the one of its span's (see {@link dev.tributary.sql.row.Keys}).
     */
    static ScalarExpr keyForm(ScalarExpr e) {
        return keyForm(e, e.type());
    }

    /**
     * {@link #keyForm(ScalarExpr)} typed as unconstrained NUMERIC, so that keys from columns of
     * different declared scales (a join's two sides) encode alike.
     */
    static ScalarExpr joinKeyForm(ScalarExpr e) {
        return keyForm(e, SqlType.NUMERIC);
    }

    private static ScalarExpr keyForm(ScalarExpr e, SqlType type) {
        if (e.type().kind() == SqlType.Kind.INTERVAL || e.type().kind() == SqlType.Kind.JSONB) type = e.type();
        else if (e.type().kind() != SqlType.Kind.NUMERIC) return e;
        return new ScalarExpr.Call("key", List.of(e), type, args -> dev.tributary.sql.row.Keys.normalize(args[0]), true);
    }

    // ------------------------------------------------------------------ structure

    /** The columns {@code e} reads. */
    static BitSet columnsOf(ScalarExpr e) {
        BitSet b = new BitSet();
        dev.tributary.sql.expr.ScalarExprs.columns(e, b);
        return b;
    }

    /** {@code e} with column {@code i} renumbered to {@code map[i]} (which must not be -1 for a column it reads). */
    static ScalarExpr remap(ScalarExpr e, int[] map) {
        return dev.tributary.sql.expr.ScalarExprs.remap(e, map);
    }

    /** Splits nested ANDs into their conjuncts. */
    static void conjuncts(ScalarExpr e, List<ScalarExpr> out) {
        if (e instanceof ScalarExpr.And a) {
            for (ScalarExpr c : a.args()) conjuncts(c, out);
        } else {
            out.add(e);
        }
    }

    /** The column index if {@code e} is a plain column reference, else null. */
    static Integer asColumn(ScalarExpr e) {
        return e instanceof ScalarExpr.ColumnRef c ? c.index() : null;
    }

    /**
     * If {@code e} is an {@code =} of two operands whose values encode alike (same type, or
     * integers of any width), the two operands; else null.
     */
    static ScalarExpr[] asEquality(ScalarExpr e) {
        if (!(e instanceof ScalarExpr.Call c) || !c.name().equals("=") || c.args().size() != 2) return null;
        ScalarExpr l = c.args().get(0);
        ScalarExpr r = c.args().get(1);
        SqlType lt = l.type();
        SqlType rt = r.type();
        if (lt.kind() == rt.kind() || (lt.isInteger() && rt.isInteger())) return new ScalarExpr[] {l, r};
        return null;
    }
}
