package dev.tributary.sql.render;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.List;

/** Errors as rows: {@code (sqlstate, message)}, so they flow, accumulate and retract like data. */
public final class Errors {
    private Errors() {}

    /** The columns of an error row. */
    public static final List<SqlType> TYPES = List.of(SqlType.TEXT, SqlType.TEXT);

    private static final RowCodec CODEC = new RowCodec(TYPES);

    public static Row encode(SqlException e) {
        return CODEC.encode(new Object[] {e.sqlState(), e.getMessage()});
    }

    public static SqlException decode(Row row) {
        Object[] v = CODEC.decode(row);
        return new SqlException((String) v[0], (String) v[1]);
    }

    /** An error for a bug surfacing while evaluating a row, so it is reported rather than fatal. */
    public static SqlException internal(RuntimeException e) {
        return new SqlException("XX000", "internal error while evaluating a row: " + e);
    }
}
