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

    /**
     * The type a client shows for a column of type {@code oid}, for aligning it: ours for the
     * OIDs {@link #oid} gives (without length or precision), and for other OIDs a stand-in that
     * aligns as psql aligns them (oid, xid, cid and money to the right, everything else as text).
     */
    static SqlType type(int oid) {
        return switch (oid) {
            case 16 -> SqlType.BOOLEAN;
            case 21 -> SqlType.SMALLINT;
            case 23 -> SqlType.INTEGER;
            case 20 -> SqlType.BIGINT;
            case 700 -> SqlType.REAL;
            case 701 -> SqlType.DOUBLE;
            case 1700 -> SqlType.NUMERIC;
            case 1043 -> SqlType.VARCHAR;
            case 1042 -> SqlType.of(SqlType.Kind.CHAR);
            case 17 -> SqlType.BYTEA;
            case 1082 -> SqlType.DATE;
            case 1083 -> SqlType.TIME;
            case 1114 -> SqlType.TIMESTAMP;
            case 1184 -> SqlType.TIMESTAMPTZ;
            case 1186 -> SqlType.INTERVAL;
            case 705 -> SqlType.UNKNOWN;
            case 26, 28, 29, 5069, 790 -> SqlType.BIGINT; // oid, xid, cid, xid8, money: psql right-aligns them
            default -> SqlType.TEXT;
        };
    }
}
