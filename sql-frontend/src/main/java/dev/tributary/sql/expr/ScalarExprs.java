package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** Whole-tree operations on {@link ScalarExpr}s: constant folding, binding the statement time and parameter values. */
public final class ScalarExprs {
    private ScalarExprs() {}

    private static final Object[] NO_ROW = new Object[0];

    /**
     * The expression with every constant subtree replaced by its value. A constant subtree whose
     * evaluation fails is left as it is, so the error happens only if a row evaluates it
     * ({@code SELECT 1/0 FROM t} over an empty t is no error).
     */
    public static ScalarExpr fold(ScalarExpr e) {
        if (e instanceof ScalarExpr.Literal) return e;
        if (e.isConstant()) {
            try {
                return new ScalarExpr.Literal(e.eval(NO_ROW), e.type());
            } catch (SqlException ex) {
                // fall through: fold the parts that do evaluate
            }
        }
        List<ScalarExpr> children = e.children();
        if (children.isEmpty()) return e;
        List<ScalarExpr> folded = new ArrayList<>(children.size());
        boolean changed = false;
        for (ScalarExpr c : children) {
            ScalarExpr f = fold(c);
            changed |= f != c;
            folded.add(f);
        }
        // a strict call with a NULL argument is NULL whatever its other arguments are: PostgreSQL
        // folds it so, and never evaluates them (x / 0 = NULL is no error there)
        if (e instanceof ScalarExpr.Call call && call.strict()) {
            for (ScalarExpr f : folded) {
                if (f instanceof ScalarExpr.Literal l && l.value() == null) return new ScalarExpr.Literal(null, call.type());
            }
        }
        return changed ? e.withChildren(folded) : e;
    }

    /**
     * The expression with each {@link ScalarExpr.Now} replaced by {@code statementTime} as a
     * literal of the node's type (in the session time zone, UTC). Call once per statement (or
     * transaction) before evaluating, so every row sees one time as in PostgreSQL.
     */
    public static ScalarExpr bindStatementTime(ScalarExpr e, Instant statementTime) {
        return rewrite(e, x -> {
            if (!(x instanceof ScalarExpr.Now now)) return null;
            Instant micros = statementTime.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
            LocalDateTime local = LocalDateTime.ofInstant(micros, ZoneOffset.UTC);
            Object v = switch (now.type().kind()) {
                case DATE -> local.toLocalDate();
                case TIME -> local.toLocalTime();
                case TIMESTAMP -> local;
                default -> micros;
            };
            return new ScalarExpr.Literal(v, now.type());
        });
    }

    /**
     * The expression with each {@link ScalarExpr.Param} {@code $i} replaced by the literal
     * {@code values[i - 1]}, a value of {@code types.get(i - 1)} (the statement's parameter
     * types). An occurrence left untyped (UNKNOWN: nothing around it asked for a type) gets the
     * value's text, as an untyped literal would hold it.
     */
    public static ScalarExpr bindParameters(ScalarExpr e, Object[] values, List<dev.tributary.sql.types.SqlType> types) {
        return rewrite(e, x -> {
            if (!(x instanceof ScalarExpr.Param p)) return null;
            Object v = values[p.index() - 1];
            dev.tributary.sql.types.SqlType declared = types.get(p.index() - 1);
            if (p.type().kind() == dev.tributary.sql.types.SqlType.Kind.UNKNOWN && v != null && declared.kind() != p.type().kind()) {
                v = dev.tributary.sql.types.Values.toText(v, declared);
            }
            return new ScalarExpr.Literal(v, p.type());
        });
    }

    /** Adds every {@link ScalarExpr.Param} in {@code e} to {@code into}. */
    public static void parameters(ScalarExpr e, List<ScalarExpr.Param> into) {
        if (e instanceof ScalarExpr.Param p) into.add(p);
        for (ScalarExpr c : e.children()) parameters(c, into);
    }

    /** Whether the expression calls a volatile function ({@link ScalarExpr.VolatileCall}: nextval and its kin). */
    public static boolean isVolatile(ScalarExpr e) {
        if (e instanceof ScalarExpr.VolatileCall) return true;
        for (ScalarExpr c : e.children()) if (isVolatile(c)) return true;
        return false;
    }

    /** Whether the expression contains a {@link ScalarExpr.Now} (its value depends on when it runs). */
    public static boolean usesStatementTime(ScalarExpr e) {
        if (e instanceof ScalarExpr.Now) return true;
        for (ScalarExpr c : e.children()) if (usesStatementTime(c)) return true;
        return false;
    }

    /** {@code column = other}, as an {@link #columnEquality} finds it. */
    public record ColumnEquality(ScalarExpr.ColumnRef column, ScalarExpr other) {}

    /**
     * If {@code e} is an equality of a column with something else, either way round
     * ({@code col = x} or {@code x = col}): the column and the other side; else null.
     */
    public static ColumnEquality columnEquality(ScalarExpr e) {
        if (!(e instanceof ScalarExpr.Call c && c.name().equals("=") && c.args().size() == 2)) return null;
        ScalarExpr l = c.args().get(0);
        ScalarExpr r = c.args().get(1);
        if (l instanceof ScalarExpr.ColumnRef col) return new ColumnEquality(col, r);
        if (r instanceof ScalarExpr.ColumnRef col) return new ColumnEquality(col, l);
        return null;
    }

    /** Adds the columns {@code e} reads to {@code into}. */
    public static void columns(ScalarExpr e, java.util.BitSet into) {
        if (e instanceof ScalarExpr.ColumnRef c) into.set(c.index());
        for (ScalarExpr child : e.children()) columns(child, into);
    }

    /**
     * {@code e} with column {@code i} renumbered to {@code map[i]}.
     *
     * @throws IllegalStateException if {@code e} reads a column that maps to -1
     */
    public static ScalarExpr remap(ScalarExpr e, int[] map) {
        return rewrite(e, x -> {
            if (!(x instanceof ScalarExpr.ColumnRef c)) return null;
            int to = map[c.index()];
            if (to < 0) throw new IllegalStateException("column " + c.index() + " is not available here");
            return to == c.index() ? x : new ScalarExpr.ColumnRef(to, c.type());
        });
    }

    /** {@code e} with each column {@code i} it reads replaced by {@code columns.get(i)}: {@code e} over a map's input. */
    public static ScalarExpr substitute(ScalarExpr e, List<ScalarExpr> columns) {
        return rewrite(e, x -> x instanceof ScalarExpr.ColumnRef c ? columns.get(c.index()) : null);
    }

    /**
     * {@code e} with every subtree for which {@code replace} gives an expression replaced by it
     * (its own subtrees not visited); unchanged parts are shared, not copied.
     */
    private static ScalarExpr rewrite(ScalarExpr e, java.util.function.Function<ScalarExpr, ScalarExpr> replace) {
        ScalarExpr r = replace.apply(e);
        if (r != null) return r;
        List<ScalarExpr> children = e.children();
        if (children.isEmpty()) return e;
        List<ScalarExpr> out = new ArrayList<>(children.size());
        boolean changed = false;
        for (ScalarExpr c : children) {
            ScalarExpr m = rewrite(c, replace);
            changed |= m != c;
            out.add(m);
        }
        return changed ? e.withChildren(out) : e;
    }
}
