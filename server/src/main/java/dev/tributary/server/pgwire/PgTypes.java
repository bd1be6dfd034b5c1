package dev.tributary.server.pgwire;

import dev.tributary.sql.types.SqlType;

/** PostgreSQL's type OIDs and sizes for the types Tributary stores, as clients expect them in RowDescription. */
final class PgTypes {
    private PgTypes() {}

    static int oid(SqlType t) {
        return (int) dev.tributary.sql.catalog.SystemCatalog.typeOid(t);
    }

    /** The fixed size in bytes, or -1 for variable-length types. */
    static short size(SqlType t) {
        return switch (t.kind()) {
            case BOOLEAN -> 1;
            case SMALLINT -> 2;
            case INTEGER, REAL, DATE -> 4;
            case BIGINT, DOUBLE, TIME, TIMESTAMP, TIMESTAMPTZ -> 8;
            case INTERVAL -> 16;
            default -> -1;
        };
    }

    /** The type modifier PostgreSQL reports: {@code n + 4} for varchar(n)/char(n), {@code (p << 16 | s) + 4} for numeric(p,s). */
    static int modifier(SqlType t) {
        return dev.tributary.sql.catalog.SystemCatalog.typmod(t);
    }
}
