package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Composite values: made from a set-returning function's columns, and {@code (value).field}. */
public final class RecordExprs {
    private RecordExprs() {}

    /** The record of {@code fields} (one expression per field of {@code type}). */
    public static ScalarExpr construct(SqlType type, List<ScalarExpr> fields) {
        return new ScalarExpr.Call("row", fields, type, x -> Collections.unmodifiableList(Arrays.asList(x.clone())), false);
    }

    /** {@code (record).field}: 42809 when {@code record} is not composite, 42703 for a field it does not have. */
    public static ScalarExpr field(ScalarExpr record, String field, int pos) {
        SqlType t = record.type();
        if (t.kind() != SqlType.Kind.RECORD) {
            throw new SqlException("42809", "column notation ." + field + " applied to type " + t + ", which is not a composite type", pos);
        }
        int i = t.fieldNames().indexOf(field);
        if (i < 0) throw new SqlException("42703", "could not identify column \"" + field + "\" in record data type", pos);
        if (record instanceof ScalarExpr.Call c && c.name().equals("row")) return c.args().get(i); // a field of a record just made
        return new ScalarExpr.Call("." + field, List.of(record), t.fieldTypes().get(i), x -> ((List<?>) x[0]).get(i), true);
    }
}
