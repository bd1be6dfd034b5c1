package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * {@code left ASOF [LEFT] JOIN right ON keys AND left.t >= right.t} (DuckDB's spelling; also
 * Snowflake's {@code MATCH_CONDITION(left.t >= right.t)} before ON): the ON clause must be
 * equalities between an expression of each side and exactly one inequality ({@code >=},
 * {@code >}, {@code <=}, {@code <}) between a left and a right expression. Keys and times that
 * are expressions become extra columns of their side, dropped again after the {@link
 * Plan.AsofJoin}.
 */
final class AsofJoins {
    private AsofJoins() {}

    private static final List<String> INEQUALITIES = List.of(">=", ">", "<=", "<");

    static Plan plan(Plan left, Plan right, List<ScalarExpr> conjuncts, boolean leftOuter, int pos) {
        int nl = left.arity();
        int nr = right.arity();
        int[] toRight = new int[nl + nr];
        java.util.Arrays.fill(toRight, -1);
        for (int c = 0; c < nr; c++) toRight[nl + c] = c;
        List<ScalarExpr> leftExprs = new ArrayList<>();
        List<ScalarExpr> rightExprs = new ArrayList<>();
        ScalarExpr leftTime = null;
        ScalarExpr rightTime = null;
        String op = null;
        for (ScalarExpr c : conjuncts) {
            ScalarExpr[] eq = Sx.asEquality(c);
            if (eq != null) {
                int s0 = side(eq[0], nl);
                int s1 = side(eq[1], nl);
                if (s0 == 0 && s1 == 1 || s0 == 1 && s1 == 0) {
                    leftExprs.add(Sx.joinKeyForm(s0 == 0 ? eq[0] : eq[1]));
                    rightExprs.add(Sx.remap(Sx.joinKeyForm(s0 == 0 ? eq[1] : eq[0]), toRight));
                    continue;
                }
            }
            if (c instanceof ScalarExpr.Call call && INEQUALITIES.contains(call.name()) && call.args().size() == 2) {
                int s0 = side(call.args().get(0), nl);
                int s1 = side(call.args().get(1), nl);
                if (s0 == 0 && s1 == 1 || s0 == 1 && s1 == 0) {
                    if (op != null) {
                        throw new SqlException("42601", "ASOF JOIN takes one inequality between its sides, and this one has two: "
                                + op + " and " + call.name(), pos);
                    }
                    boolean flipped = s0 == 1;
                    op = flipped ? flip(call.name()) : call.name();
                    leftTime = call.args().get(flipped ? 1 : 0);
                    rightTime = Sx.remap(call.args().get(flipped ? 0 : 1), toRight);
                    continue;
                }
            }
            throw new SqlException("0A000", "the ON clause of ASOF JOIN takes equalities between the two sides and one inequality (>=, >, <=, <)"
                    + " between their times, not other conditions; put them in WHERE", pos);
        }
        if (op == null) {
            throw new SqlException("42601", "ASOF JOIN needs an inequality between the two sides' times in its ON clause (or MATCH_CONDITION),"
                    + " such as left.ts >= right.ts", pos);
        }
        SqlType t = Sx.common(List.of(leftTime.type(), rightTime.type()), "ASOF JOIN", pos);
        List<Integer> leftKey = new ArrayList<>();
        List<Integer> rightKey = new ArrayList<>();
        List<ScalarExpr> leftExtra = new ArrayList<>();
        List<ScalarExpr> rightExtra = new ArrayList<>();
        for (int k = 0; k < leftExprs.size(); k++) {
            leftKey.add(column(leftExprs.get(k), nl, leftExtra));
            rightKey.add(column(rightExprs.get(k), nr, rightExtra));
        }
        int lt = column(Sx.coerce(leftTime, t, pos, "ASOF JOIN"), nl, leftExtra);
        int rt = column(Sx.coerce(rightTime, t, pos, "ASOF JOIN"), nr, rightExtra);
        Plan l = leftExtra.isEmpty() ? left : new Plan.Map(left, leftExtra);
        Plan r = rightExtra.isEmpty() ? right : new Plan.Map(right, rightExtra);
        Plan joined = new Plan.AsofJoin(l, r, leftKey, rightKey, lt, rt, op, leftOuter);
        List<Integer> keep = new ArrayList<>(Binder.range(0, nl));
        keep.addAll(Binder.range(l.arity(), l.arity() + nr));
        return Binder.project(joined, keep);
    }

    /** 0 if {@code e} reads only the left side's columns, 1 if only the right's, -1 otherwise (both, or none). */
    private static int side(ScalarExpr e, int nl) {
        BitSet cols = Sx.columnsOf(e);
        if (cols.isEmpty()) return -1;
        if (cols.nextSetBit(nl) < 0) return 0;
        return cols.nextSetBit(0) >= nl ? 1 : -1;
    }

    private static String flip(String op) {
        return switch (op) {
            case ">=" -> "<=";
            case ">" -> "<";
            case "<=" -> ">=";
            default -> ">";
        };
    }

    /** The column holding {@code e}: itself when it is one, else a new column after {@code arity} and those already added. */
    private static int column(ScalarExpr e, int arity, List<ScalarExpr> extra) {
        Integer c = Sx.asColumn(e);
        if (c != null) return c;
        extra.add(e);
        return arity + extra.size() - 1;
    }
}
