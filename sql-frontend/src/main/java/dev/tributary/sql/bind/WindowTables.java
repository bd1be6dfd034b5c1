package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.TableRef;
import dev.tributary.sql.bind.Binder.Bound;
import dev.tributary.sql.bind.Binder.Scope;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * A window table function in FROM ({@code TUMBLE}, {@code HOP}, {@code CUMULATE}, {@code SESSION}):
 * the relation it windows, each row once per window its time falls into, with {@code window_start}
 * and {@code window_end} after the relation's columns. TUMBLE, HOP and CUMULATE are planned as an
 * expansion of each row ({@link TimeWindows}, {@link Plan.FlatMap}), so they are maintained under
 * inserts, updates and deletes of the relation like any other; a SESSION's windows depend on the
 * other rows of the partition ({@link Plan.Sessions}). The sizes are constants, checked here:
 * positive, and for {@code CUMULATE} a size that is a whole number of steps (as Flink requires).
 */
final class WindowTables {
    private WindowTables() {}

    static Bound bind(Binder binder, TableRef.WindowTable w) {
        String function = w.function();
        String upper = function.toUpperCase(java.util.Locale.ROOT);
        if (!function.equals("session") && !w.partitionBy().isEmpty()) {
            throw new SqlException("42601", "PARTITION BY is for SESSION windows; " + upper + " windows each row on its own", w.partitionBy().get(0).pos());
        }
        Bound in = binder.tableRef(w.input());
        ScalarExpr time = binder.expr(w.timeColumn(), new Scope(in.fields(), null));
        SqlType t = time.type();
        if (!TimeWindows.isTimeType(t)) {
            throw new SqlException("42804", "the time column of " + upper + " must be a timestamp, a timestamp with time zone or an integer, but "
                    + String.join(".", w.timeColumn().parts()) + " is of type " + t, w.timeColumn().pos());
        }
        // TUMBLE(size [, offset]); HOP(slide, size [, offset]); CUMULATE(step, size [, offset]); SESSION(gap)
        List<String> names = switch (function) {
            case "tumble" -> List.of("size");
            case "hop" -> List.of("slide", "size");
            case "session" -> List.of("gap");
            default -> List.of("step", "size");
        };
        int required = names.size();
        if (function.equals("session") && w.args().size() != 1) {
            throw new SqlException("42883", "SESSION takes a relation (with an optional PARTITION BY), its time column and a gap, not "
                    + (w.args().size() + 2) + " arguments", w.pos());
        }
        if (w.args().size() != required && w.args().size() != required + 1) {
            throw new SqlException("42883", upper + " takes a relation, its time column, " + String.join(" and ", names)
                    + " and an optional offset, not " + (w.args().size() + 2) + " arguments", w.pos());
        }
        SqlType sizeType = TimeWindows.sizeType(t);
        List<ScalarExpr> shown = new ArrayList<>();
        long[] values = new long[w.args().size()];
        for (int i = 0; i < w.args().size(); i++) {
            Expr a = w.args().get(i);
            String what = i < required ? names.get(i) : "offset";
            ScalarExpr e = Sx.coerce(binder.expr(a, Scope.EMPTY), sizeType, a.pos(), "the " + what + " of " + upper);
            if (!e.isConstant()) throw new SqlException("0A000", "the " + what + " of " + upper + " must be a constant", a.pos());
            Object v = e.eval(new Object[0]);
            if (v == null) throw new SqlException("22004", "the " + what + " of " + upper + " must not be NULL", a.pos());
            try {
                values[i] = TimeWindows.units(v, upper, what);
            } catch (SqlException x) {
                throw x.at(a.pos());
            }
            if (i < required && values[i] <= 0) throw new SqlException("22023", "the " + what + " of " + upper + " must be positive", a.pos());
            shown.add(Sx.literal(v, sizeType));
        }
        String qualifier = w.alias() != null ? w.alias().name() : in.fields().isEmpty() || in.fields().get(0).qualifier() == null ? function : in.fields().get(0).qualifier();
        List<Field> fields = new ArrayList<>(in.fields());
        fields.add(new Field(qualifier, "window_start", t, false));
        fields.add(new Field(qualifier, "window_end", t, false));
        Plan plan;
        if (function.equals("session")) {
            List<Integer> partition = new ArrayList<>();
            for (Expr.ColumnRef c : w.partitionBy()) {
                if (!(binder.expr(c, new Scope(in.fields(), null)) instanceof ScalarExpr.ColumnRef ref)) {
                    throw new IllegalStateException("a column name bound to something else: " + c);
                }
                partition.add(ref.index());
            }
            if (!(time instanceof ScalarExpr.ColumnRef ref)) throw new IllegalStateException("a column name bound to something else: " + time);
            plan = new Plan.Sessions(in.plan(), partition, ref.index(), values[0]);
        } else {
            plan = new Plan.FlatMap(in.plan(), windows(function, time, shown, values, required, w));
        }
        Bound b = new Bound(plan, fields);
        return w.alias() == null ? Binder.rename(b, qualifier, List.of(), w.pos()) : Binder.rename(b, w.alias().name(), w.alias().columns(), w.alias().pos());
    }

    private static dev.tributary.sql.expr.TableFunction windows(String function, ScalarExpr time, List<ScalarExpr> shown, long[] values, int required, TableRef.WindowTable w) {
        long offset = values.length > required ? values[required] : 0;
        return switch (function) {
            case "tumble" -> TimeWindows.windows(function, time, shown, values[0], values[0], offset);
            case "hop" -> TimeWindows.windows(function, time, shown, values[0], values[1], offset);
            default -> {
                if (values[1] % values[0] != 0) {
                    throw new SqlException("22023", "the size of CUMULATE must be a whole number of steps", w.args().get(1).pos());
                }
                yield TimeWindows.windows(function, time, shown, values[1], values[0], offset);
            }
        };
    }
}
