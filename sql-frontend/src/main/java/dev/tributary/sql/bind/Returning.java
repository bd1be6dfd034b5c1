package dev.tributary.sql.bind;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * The RETURNING list of an INSERT, UPDATE or DELETE: expressions over one written row of the
 * table (the row inserted, the row as updated, the row deleted), with the names and types of the
 * columns they make. Evaluated once per written row, after the write's checks have passed.
 */
public record Returning(List<ScalarExpr> exprs, List<String> names, List<SqlType> types) {
    public Returning {
        exprs = List.copyOf(exprs);
        names = List.copyOf(names);
        types = List.copyOf(types);
    }

    /** Each row's returned values, in order. */
    public List<Object[]> apply(List<Object[]> rows) {
        List<Object[]> out = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            Object[] values = new Object[exprs.size()];
            for (int i = 0; i < values.length; i++) values[i] = exprs.get(i).eval(row);
            out.add(values);
        }
        return out;
    }
}
