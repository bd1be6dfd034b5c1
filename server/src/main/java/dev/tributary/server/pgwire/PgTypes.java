package dev.tributary.server.pgwire;

import dev.tributary.sql.types.SqlType;

/** PostgreSQL's type OIDs and sizes for the types Tributary stores, as clients expect them in RowDescription. */
final class PgTypes {
    private PgTypes() {}

    static int oid(SqlType t) {
        return switch (t.kind()) {
            case BOOLEAN -> 16;
            case SMALLINT -> 21;
            case INTEGER -> 23;
            case BIGINT -> 20;
            case REAL -> 700;
            case DOUBLE -> 701;
            case NUMERIC -> 1700;
            case TEXT -> 25;
            case VARCHAR -> 1043;
            case CHAR -> 1042;
            case BYTEA -> 17;
            case DATE -> 1082;
            case TIME -> 1083;
            case TIMESTAMP -> 1114;
            case TIMESTAMPTZ -> 1184;
            case INTERVAL -> 1186;
            case UNKNOWN -> 705;
            case ARRAY -> (int) dev.tributary.sql.catalog.SystemCatalog.typeOid(t);
        };
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
        return switch (t.kind()) {
            case VARCHAR, CHAR -> t.length() >= 0 ? t.length() + 4 : -1;
            case NUMERIC -> t.length() >= 0 ? ((t.length() << 16) | Math.max(t.scale(), 0)) + 4 : -1;
            default -> -1;
        };
    }
}
