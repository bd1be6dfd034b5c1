package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * A typed scalar expression over one input row: the IR a binder produces and operators evaluate.
 *
 * <p>Invariant: every node is fully resolved. Operand types already match what the node needs
 * (resolution in {@link Operators}, {@link Functions}, {@link Casts} and {@link Types} inserted
 * the casts), and a {@link Call} holds its implementation, so evaluation never looks anything up
 * by name. SQL NULL is Java {@code null}; values are the Java representations of {@link SqlType}.
 *
 * <p>Evaluation follows PostgreSQL: three-valued logic for AND/OR/NOT/IN, strict functions
 * return NULL on a NULL argument, and data errors are {@link SqlException}s with position 0.
 *
 * <p>{@link Now} is the one node whose value is not a function of the row: a binder or planner
 * replaces it with the statement's time by {@link ScalarExprs#bindStatementTime} before
 * evaluation, as PostgreSQL fixes {@code now()} per transaction.
 */
public sealed interface ScalarExpr {

    /** The SQL type of the value. */
    SqlType type();

    /** The value for the input row {@code row} (column values by index). */
    Object eval(Object[] row);

    /** The expression as EXPLAIN prints it, naming column {@code i} by {@code columnNames.get(i)}. */
    String describe(List<String> columnNames);

    /** The direct subexpressions, in evaluation order. */
    List<ScalarExpr> children();

    /** The same node over new children (same count and types as {@link #children()}). */
    ScalarExpr withChildren(List<ScalarExpr> children);

    /** Whether the value depends on no column and no statement time, so a planner may fold it. */
    default boolean isConstant() {
        for (ScalarExpr c : children()) if (!c.isConstant()) return false;
        return true;
    }

    /** An implementation of a resolved function or operator over evaluated arguments. */
    @FunctionalInterface
    interface Impl {
        Object apply(Object[] args);
    }

    // ------------------------------------------------------------------------------- leaves

    /** The input row's column {@code index}. */
    record ColumnRef(int index, SqlType type) implements ScalarExpr {
        public Object eval(Object[] row) {
            return row[index];
        }

        public String describe(List<String> names) {
            return index < names.size() ? names.get(index) : "$" + index;
        }

        public List<ScalarExpr> children() {
            return List.of();
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return this;
        }

        @Override
        public boolean isConstant() {
            return false;
        }
    }

    /** A constant; an untyped string literal is {@code Literal(String, UNKNOWN)}, bare NULL {@code Literal(null, UNKNOWN)}. */
    record Literal(Object value, SqlType type) implements ScalarExpr {
        public Object eval(Object[] row) {
            return value;
        }

        public String describe(List<String> names) {
            if (value == null) return "NULL";
            return switch (type.kind()) {
                case BOOLEAN -> ((Boolean) value) ? "true" : "false";
                case INTEGER, NUMERIC -> {
                    String s = Values.toText(value, type);
                    yield s.startsWith("-") ? "'" + s + "'::" + type : s;
                }
                case UNKNOWN -> quote((String) value);
                default -> quote(Values.toText(value, type)) + "::" + type;
            };
        }

        private static String quote(String s) {
            return "'" + s.replace("'", "''") + "'";
        }

        public List<ScalarExpr> children() {
            return List.of();
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return this;
        }
    }

    /** The statement's time as {@code type} (TIMESTAMPTZ, TIMESTAMP, DATE or TIME); see {@link ScalarExprs#bindStatementTime}. */
    record Now(SqlType type) implements ScalarExpr {
        public Object eval(Object[] row) {
            throw new IllegalStateException("now() evaluated before the statement time was bound; "
                    + "call ScalarExprs.bindStatementTime on the expression first");
        }

        public String describe(List<String> names) {
            return switch (type.kind()) {
                case DATE -> "CURRENT_DATE";
                case TIME -> "LOCALTIME";
                case TIMESTAMP -> "LOCALTIMESTAMP";
                default -> "now()";
            };
        }

        public List<ScalarExpr> children() {
            return List.of();
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return this;
        }

        @Override
        public boolean isConstant() {
            return false;
        }
    }

    /**
     * Parameter {@code $index} (from 1) of a prepared statement, of {@code type}: UNKNOWN while
     * nothing has decided its type, like an untyped literal. Like {@link Now} it has no value of
     * its own: {@link ScalarExprs#bindParameters} replaces it by the value of each execution, so
     * a statement is bound and planned once and run with many values.
     */
    record Param(int index, SqlType type) implements ScalarExpr {
        public Object eval(Object[] row) {
            throw new IllegalStateException("parameter $" + index + " evaluated before its value was bound; "
                    + "call ScalarExprs.bindParameters on the expression first");
        }

        public String describe(List<String> names) {
            return "$" + index;
        }

        public List<ScalarExpr> children() {
            return List.of();
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return this;
        }

        @Override
        public boolean isConstant() {
            return false;
        }
    }

    // ------------------------------------------------------------------------- calls, casts

    /**
     * A resolved function or operator. {@code name} is for EXPLAIN: an operator symbol prints infix
     * ({@code (a + b)}) or prefix ({@code (- a)}), a name prints as a call. A strict call is NULL
     * when any argument is NULL, without calling {@code impl}.
     */
    record Call(String name, List<ScalarExpr> args, SqlType type, Impl impl, boolean strict) implements ScalarExpr {
        public Call {
            args = List.copyOf(args);
        }

        public Object eval(Object[] row) {
            Object[] vals = new Object[args.size()];
            for (int i = 0; i < vals.length; i++) {
                Object v = args.get(i).eval(row);
                if (v == null && strict) return null;
                vals[i] = v;
            }
            return impl.apply(vals);
        }

        public String describe(List<String> names) {
            boolean symbol = !name.isEmpty() && !Character.isLetter(name.charAt(0)) && name.charAt(0) != '_';
            if (symbol && args.size() == 2) {
                return "(" + args.get(0).describe(names) + " " + name + " " + args.get(1).describe(names) + ")";
            }
            if (symbol && args.size() == 1) return "(" + name + " " + args.get(0).describe(names) + ")";
            return name + "(" + join(args, ", ", names) + ")";
        }

        public List<ScalarExpr> children() {
            return args;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Call(name, c, type, impl, strict);
        }
    }

    /**
     * A volatile function ({@code nextval}, {@code setval}, ...): each evaluation may give
     * another value and change state, so it is never folded into a constant and is called once
     * per row that reaches it. Strict: NULL when an argument is NULL.
     */
    record VolatileCall(String name, List<ScalarExpr> args, SqlType type, Impl impl) implements ScalarExpr {
        public VolatileCall {
            args = List.copyOf(args);
        }

        public Object eval(Object[] row) {
            Object[] vals = new Object[args.size()];
            for (int i = 0; i < vals.length; i++) {
                vals[i] = args.get(i).eval(row);
                if (vals[i] == null) return null;
            }
            return impl.apply(vals);
        }

        public String describe(List<String> names) {
            return name + "(" + join(args, ", ", names) + ")";
        }

        public List<ScalarExpr> children() {
            return args;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new VolatileCall(name, c, type, impl);
        }

        @Override
        public boolean isConstant() {
            return false;
        }
    }

    /** A conversion of {@code expr} to {@code type} with the semantics of {@code context} (see {@link Casts#cast}). */
    record Cast(ScalarExpr expr, SqlType type, CastContext context) implements ScalarExpr {
        public Cast(ScalarExpr expr, SqlType type) {
            this(expr, type, CastContext.EXPLICIT);
        }

        public Object eval(Object[] row) {
            return Casts.cast(expr.eval(row), expr.type(), type, context);
        }

        public String describe(List<String> names) {
            return "(" + expr.describe(names) + ")::" + type;
        }

        public List<ScalarExpr> children() {
            return List.of(expr);
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Cast(c.get(0), type, context);
        }
    }

    // ---------------------------------------------------------------------------- logic

    /** AND of boolean operands: FALSE if any is FALSE (later operands are not evaluated), else NULL if any is NULL. */
    record And(List<ScalarExpr> args) implements ScalarExpr {
        public And {
            args = List.copyOf(args);
        }

        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            boolean sawNull = false;
            for (ScalarExpr a : args) {
                Object v = a.eval(row);
                if (v == null) sawNull = true;
                else if (!(Boolean) v) return Boolean.FALSE;
            }
            return sawNull ? null : Boolean.TRUE;
        }

        public String describe(List<String> names) {
            return "(" + join(args, " AND ", names) + ")";
        }

        public List<ScalarExpr> children() {
            return args;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new And(c);
        }
    }

    /** OR of boolean operands: TRUE if any is TRUE, else NULL if any is NULL. */
    record Or(List<ScalarExpr> args) implements ScalarExpr {
        public Or {
            args = List.copyOf(args);
        }

        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            boolean sawNull = false;
            for (ScalarExpr a : args) {
                Object v = a.eval(row);
                if (v == null) sawNull = true;
                else if ((Boolean) v) return Boolean.TRUE;
            }
            return sawNull ? null : Boolean.FALSE;
        }

        public String describe(List<String> names) {
            return "(" + join(args, " OR ", names) + ")";
        }

        public List<ScalarExpr> children() {
            return args;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Or(c);
        }
    }

    record Not(ScalarExpr arg) implements ScalarExpr {
        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            Object v = arg.eval(row);
            return v == null ? null : !(Boolean) v;
        }

        public String describe(List<String> names) {
            return "(NOT " + arg.describe(names) + ")";
        }

        public List<ScalarExpr> children() {
            return List.of(arg);
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Not(c.get(0));
        }
    }

    /** {@code arg IS [NOT] NULL}; never NULL itself. */
    record IsNull(ScalarExpr arg, boolean negated) implements ScalarExpr {
        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            return (arg.eval(row) == null) != negated;
        }

        public String describe(List<String> names) {
            return "(" + arg.describe(names) + (negated ? " IS NOT NULL)" : " IS NULL)");
        }

        public List<ScalarExpr> children() {
            return List.of(arg);
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new IsNull(c.get(0), negated);
        }
    }

    /**
     * {@code left IS [NOT] DISTINCT FROM right}: equality where NULL equals NULL; never NULL.
     * Both operands have the same type (build with {@link Operators#isDistinctFrom}).
     */
    record IsDistinctFrom(ScalarExpr left, ScalarExpr right, boolean negated) implements ScalarExpr {
        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            Object l = left.eval(row), r = right.eval(row);
            boolean distinct = (l == null || r == null) ? (l != r) : Values.compare(l, r, left.type()) != 0;
            return distinct != negated;
        }

        public String describe(List<String> names) {
            return "(" + left.describe(names) + (negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ")
                    + right.describe(names) + ")";
        }

        public List<ScalarExpr> children() {
            return List.of(left, right);
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new IsDistinctFrom(c.get(0), c.get(1), negated);
        }
    }

    // ------------------------------------------------------------------------ conditionals

    /** One {@code WHEN condition THEN result} arm of a {@link Case}. */
    record When(ScalarExpr condition, ScalarExpr result) {}

    /**
     * Searched CASE: the result of the first arm whose condition is TRUE (NULL counts as not
     * true), else {@code elseExpr}, or NULL when that is null. Results are coerced to {@code type}
     * (see {@link Types#common}). Only the chosen arm is evaluated.
     */
    record Case(List<When> whens, ScalarExpr elseExpr, SqlType type) implements ScalarExpr {
        public Case {
            whens = List.copyOf(whens);
        }

        public Object eval(Object[] row) {
            for (When w : whens) {
                if (Boolean.TRUE.equals(w.condition().eval(row))) return w.result().eval(row);
            }
            return elseExpr == null ? null : elseExpr.eval(row);
        }

        public String describe(List<String> names) {
            StringBuilder b = new StringBuilder("CASE");
            for (When w : whens) {
                b.append(" WHEN ").append(w.condition().describe(names)).append(" THEN ").append(w.result().describe(names));
            }
            if (elseExpr != null) b.append(" ELSE ").append(elseExpr.describe(names));
            return b.append(" END").toString();
        }

        public List<ScalarExpr> children() {
            List<ScalarExpr> c = new ArrayList<>();
            for (When w : whens) {
                c.add(w.condition());
                c.add(w.result());
            }
            if (elseExpr != null) c.add(elseExpr);
            return c;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            List<When> ws = new ArrayList<>();
            for (int i = 0; i < whens.size(); i++) ws.add(new When(c.get(2 * i), c.get(2 * i + 1)));
            return new Case(ws, elseExpr == null ? null : c.get(c.size() - 1), type);
        }
    }

    /** The first non-NULL argument, evaluating no further; arguments have type {@code type}. */
    record Coalesce(List<ScalarExpr> args, SqlType type) implements ScalarExpr {
        public Coalesce {
            args = List.copyOf(args);
        }

        public Object eval(Object[] row) {
            for (ScalarExpr a : args) {
                Object v = a.eval(row);
                if (v != null) return v;
            }
            return null;
        }

        public String describe(List<String> names) {
            return "COALESCE(" + join(args, ", ", names) + ")";
        }

        public List<ScalarExpr> children() {
            return args;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Coalesce(c, type);
        }
    }

    /**
     * {@code NULLIF(left, right)}: NULL when {@code left = right}, else {@code left}. Both are
     * compared as {@code compareType}; the result has left's type (build with {@link Operators#nullIf}).
     */
    record NullIf(ScalarExpr left, ScalarExpr right, SqlType compareType) implements ScalarExpr {
        public SqlType type() {
            return left.type();
        }

        public Object eval(Object[] row) {
            Object l = left.eval(row);
            Object r = right.eval(row);
            if (l == null || r == null) return l;
            Object lc = Casts.cast(l, left.type(), compareType, CastContext.IMPLICIT);
            Object rc = Casts.cast(r, right.type(), compareType, CastContext.IMPLICIT);
            return Values.compare(lc, rc, compareType) == 0 ? null : l;
        }

        public String describe(List<String> names) {
            return "NULLIF(" + left.describe(names) + ", " + right.describe(names) + ")";
        }

        public List<ScalarExpr> children() {
            return List.of(left, right);
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new NullIf(c.get(0), c.get(1), compareType);
        }
    }

    /** GREATEST ({@code greatest = true}) or LEAST of arguments of type {@code type}, ignoring NULLs; NULL if all are. */
    record Greatest(List<ScalarExpr> args, SqlType type, boolean greatest) implements ScalarExpr {
        public Greatest {
            args = List.copyOf(args);
        }

        public Object eval(Object[] row) {
            Object best = null;
            for (ScalarExpr a : args) {
                Object v = a.eval(row);
                if (v == null) continue;
                if (best == null) best = v;
                else {
                    int c = Values.compare(v, best, type);
                    if (greatest ? c > 0 : c < 0) best = v;
                }
            }
            return best;
        }

        public String describe(List<String> names) {
            return (greatest ? "GREATEST(" : "LEAST(") + join(args, ", ", names) + ")";
        }

        public List<ScalarExpr> children() {
            return args;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Greatest(c, type, greatest);
        }
    }

    /**
     * {@code expr [NOT] IN (list)}, all of one type: TRUE on an equal element, else NULL if
     * {@code expr} or any element is NULL, else FALSE (negated: NOT of that). Build with
     * {@link Operators#in}.
     */
    record InList(ScalarExpr expr, List<ScalarExpr> list, boolean negated) implements ScalarExpr {
        public InList {
            list = List.copyOf(list);
        }

        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            Object v = expr.eval(row);
            if (v == null) return list.isEmpty() ? Boolean.valueOf(negated) : null;
            boolean sawNull = false;
            SqlType t = expr.type();
            for (ScalarExpr e : list) {
                Object x = e.eval(row);
                if (x == null) sawNull = true;
                else if (Values.compare(v, x, t) == 0) return !negated;
            }
            return sawNull ? null : negated;
        }

        public String describe(List<String> names) {
            return "(" + expr.describe(names) + (negated ? " NOT IN (" : " IN (") + join(list, ", ", names) + "))";
        }

        public List<ScalarExpr> children() {
            List<ScalarExpr> c = new ArrayList<>();
            c.add(expr);
            c.addAll(list);
            return c;
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new InList(c.get(0), c.subList(1, c.size()), negated);
        }
    }

    /**
     * {@code expr [NOT] LIKE|ILIKE pattern [ESCAPE escape]} over text operands. {@code compiled} is
     * the pattern compiled once when pattern and escape are constant, else null (compiled per row).
     * Build with {@link Operators#like}.
     */
    record Like(ScalarExpr expr, ScalarExpr pattern, ScalarExpr escape, boolean caseInsensitive, boolean negated,
                LikePattern compiled) implements ScalarExpr {
        public SqlType type() {
            return SqlType.BOOLEAN;
        }

        public Object eval(Object[] row) {
            Object v = expr.eval(row);
            if (v == null) return null;
            LikePattern p = compiled;
            if (p == null) {
                Object pat = pattern.eval(row);
                if (pat == null) return null;
                String esc = "\\";
                if (escape != null) {
                    Object e = escape.eval(row);
                    if (e == null) return null;
                    esc = (String) e;
                }
                p = LikePattern.compile((String) pat, esc, caseInsensitive);
            }
            return p.matches((String) v) != negated;
        }

        public String describe(List<String> names) {
            String op = (negated ? "!" : "") + (caseInsensitive ? "~~*" : "~~");
            return "(" + expr.describe(names) + " " + op + " " + pattern.describe(names)
                    + (escape == null ? "" : " ESCAPE " + escape.describe(names)) + ")";
        }

        public List<ScalarExpr> children() {
            return escape == null ? List.of(expr, pattern) : List.of(expr, pattern, escape);
        }

        public ScalarExpr withChildren(List<ScalarExpr> c) {
            return new Like(c.get(0), c.get(1), c.size() > 2 ? c.get(2) : null, caseInsensitive, negated, compiled);
        }
    }

    private static String join(List<ScalarExpr> args, String sep, List<String> names) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            if (i > 0) b.append(sep);
            b.append(args.get(i).describe(names));
        }
        return b.toString();
    }
}
