package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * A set-returning function call, as a table: for the values of {@code args} (evaluated over one
 * input row) it gives zero or more rows of {@code columnTypes}. {@code generate_series(a, b[,
 * step])} over integers, {@code unnest(array)}, and {@code information_schema._pg_expandarray(array)}
 * (each element with its 1-based index, as columns {@code x} and {@code n}).
 *
 * <p>A NULL argument gives no rows, as PostgreSQL's strict set-returning functions do.
 */
public record TableFunction(String name, List<ScalarExpr> args, List<String> columnNames, List<SqlType> columnTypes, Rows rows, boolean strict) {
    public TableFunction(String name, List<ScalarExpr> args, List<String> columnNames, List<SqlType> columnTypes, Rows rows) {
        this(name, args, columnNames, columnTypes, rows, true);
    }

    public TableFunction {
        args = List.copyOf(args);
        columnNames = List.copyOf(columnNames);
        columnTypes = List.copyOf(columnTypes);
    }

    /** The rows for one call's argument values (none of them null, for a strict function). */
    public interface Rows {
        List<Object[]> apply(Object[] args);
    }

    /** The rows of the call over {@code input} (the row its arguments read). */
    public List<Object[]> evaluate(Object[] input) {
        Object[] values = new Object[args.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = args.get(i).eval(input);
            if (values[i] == null && strict) return List.of();
        }
        return rows.apply(values);
    }

    /** This call with its arguments replaced (after their columns were renumbered). */
    public TableFunction withArgs(List<ScalarExpr> newArgs) {
        return new TableFunction(name, newArgs, columnNames, columnTypes, rows, strict);
    }

    /**
     * Several calls run side by side, as PostgreSQL runs the set-returning functions of one select
     * list: row i holds each call's row i, or NULLs for a call that has fewer rows; as many rows
     * as the longest call gives.
     */
    public static TableFunction zip(List<TableFunction> calls) {
        if (calls.size() == 1) return calls.get(0);
        List<ScalarExpr> args = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<SqlType> types = new ArrayList<>();
        List<String> callNames = new ArrayList<>();
        for (TableFunction f : calls) {
            args.addAll(f.args());
            names.addAll(f.columnNames());
            types.addAll(f.columnTypes());
            callNames.add(f.name());
        }
        int width = types.size();
        return new TableFunction(String.join(" + ", callNames), args, names, types, x -> {
            List<List<Object[]>> each = new ArrayList<>();
            int at = 0;
            int longest = 0;
            for (TableFunction f : calls) {
                Object[] mine = java.util.Arrays.copyOfRange(x, at, at + f.args().size());
                at += f.args().size();
                boolean anyNull = false;
                for (Object v : mine) anyNull |= v == null;
                List<Object[]> rows = anyNull && f.strict() ? List.of() : f.rows().apply(mine);
                each.add(rows);
                longest = Math.max(longest, rows.size());
            }
            List<Object[]> out = new ArrayList<>();
            for (int r = 0; r < longest; r++) {
                Object[] row = new Object[width];
                int col = 0;
                for (int k = 0; k < calls.size(); k++) {
                    int n = calls.get(k).columnTypes().size();
                    if (r < each.get(k).size()) System.arraycopy(each.get(k).get(r), 0, row, col, n);
                    col += n;
                }
                out.add(row);
            }
            return out;
        }, false);
    }

    /** Whether {@code name} is a set-returning function {@link #resolve} knows. */
    public static boolean isSetReturning(String name) {
        return switch (name) {
            case "generate_series", "unnest", "_pg_expandarray" -> true;
            default -> false;
        };
    }

    /** The call {@code name(args)}; 42883 when its arguments fit no signature. */
    public static TableFunction resolve(String name, List<ScalarExpr> args, int pos) {
        return switch (name) {
            case "generate_series" -> generateSeries(args, pos);
            case "unnest" -> {
                SqlType array = arrayArgument(name, args, pos);
                yield new TableFunction(name, args, List.of("unnest"), List.of(array.element()), x -> {
                    List<Object[]> out = new ArrayList<>();
                    for (Object e : (List<?>) x[0]) out.add(new Object[] {e});
                    return out;
                });
            }
            case "_pg_expandarray" -> {
                SqlType array = arrayArgument(name, args, pos);
                yield new TableFunction(name, args, List.of("x", "n"), List.of(array.element(), SqlType.INTEGER), x -> {
                    List<?> elements = (List<?>) x[0];
                    List<Object[]> out = new ArrayList<>();
                    for (int i = 0; i < elements.size(); i++) out.add(new Object[] {elements.get(i), (long) (i + 1)});
                    return out;
                });
            }
            default -> throw new IllegalArgumentException("not a set-returning function: " + name);
        };
    }

    private static SqlType arrayArgument(String name, List<ScalarExpr> args, int pos) {
        if (args.size() != 1 || !args.get(0).type().isArray()) throw noFunction(name, args, pos);
        return args.get(0).type();
    }

    private static TableFunction generateSeries(List<ScalarExpr> args, int pos) {
        if (args.size() != 2 && args.size() != 3) throw noFunction("generate_series", args, pos);
        boolean big = false;
        for (ScalarExpr a : args) {
            if (!a.type().isInteger() && a.type().kind() != SqlType.Kind.UNKNOWN) throw noFunction("generate_series", args, pos);
            big |= a.type().kind() == SqlType.Kind.BIGINT;
        }
        SqlType t = big ? SqlType.BIGINT : SqlType.INTEGER;
        List<ScalarExpr> coerced = Types.coerceAll(args, t, pos);
        return new TableFunction("generate_series", coerced, List.of("generate_series"), List.of(t), x -> {
            long from = (Long) x[0], to = (Long) x[1], step = x.length > 2 ? (Long) x[2] : 1;
            if (step == 0) throw new SqlException("22023", "step size cannot equal zero");
            List<Object[]> out = new ArrayList<>();
            for (long v = from; step > 0 ? v <= to : v >= to; ) {
                out.add(new Object[] {v});
                if (out.size() > 10_000_000) throw new SqlException("54000", "generate_series would return more than 10000000 rows");
                try {
                    v = Math.addExact(v, step);
                } catch (ArithmeticException e) {
                    break;
                }
            }
            return out;
        });
    }

    private static SqlException noFunction(String name, List<ScalarExpr> args, int pos) {
        List<String> types = new ArrayList<>();
        for (ScalarExpr a : args) types.add(a.type().toString());
        return new SqlException("42883", "function " + name + "(" + String.join(", ", types) + ") does not exist", pos,
                "No function matches the given name and argument types. You might need to add explicit type casts.");
    }
}
