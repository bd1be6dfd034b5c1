package dev.tributary.server.pgwire;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;

/**
 * Bind parameter values: the bytes a client sent for parameter {@code $i}, in text (format 0)
 * or binary (format 1), as the SQL value of the parameter's type. Text goes through the type's
 * input function as a literal of that type would; binary through {@link PgBinary}.
 */
final class PgParams {
    private PgParams() {}

    /** The value of {@code bytes} (null: SQL NULL) for parameter {@code index} (from 1) of {@code type}. */
    static Object value(byte[] bytes, int format, SqlType type, int index) {
        if (bytes == null) return null;
        return switch (format) {
            case 0 -> Values.fromText(PgBinary.utf8(bytes), type);
            case 1 -> PgBinary.decode(bytes, type, index);
            default -> throw new SqlException("22023", "unsupported format code: " + format);
        };
    }
}
