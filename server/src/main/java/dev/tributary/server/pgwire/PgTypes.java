package dev.tributary.server.pgwire;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;

/** PostgreSQL's type OIDs and sizes for the types Tributary stores, as clients expect them in RowDescription and send them in Parse. */
final class PgTypes {
    private PgTypes() {}

    static int oid(SqlType t) {
        return (int) dev.tributary.sql.catalog.SystemCatalog.typeOid(t);
    }

    /**
     * The type a client means by {@code oid} in Parse, or null for 0 (unspecified: inferred from
     * context). 42704 for an OID that names no type Tributary has.
     */
    static SqlType typeOf(int oid) {
        if (oid == 0 || oid == 705) return null; // unspecified or unknown: the context decides
        SqlType t = known(oid);
        if (t == null) throw new SqlException("42704", "type with OID " + Integer.toUnsignedString(oid) + " does not exist");
        return t;
    }

    /** The type Tributary has for {@code oid} (without length or precision), or null. */
    private static SqlType known(int oid) {
        return switch (oid) {
            case 16 -> SqlType.BOOLEAN;
            case 21 -> SqlType.SMALLINT;
            case 23 -> SqlType.INTEGER;
            case 20 -> SqlType.BIGINT;
            case 700 -> SqlType.REAL;
            case 701 -> SqlType.DOUBLE;
            case 1700 -> SqlType.NUMERIC;
            case 25 -> SqlType.TEXT;
            case 1043 -> SqlType.VARCHAR;
            case 1042 -> SqlType.of(SqlType.Kind.CHAR);
            case 17 -> SqlType.BYTEA;
            case 2950 -> SqlType.UUID;
            case 114 -> SqlType.JSON;
            case 3802 -> SqlType.JSONB;
            case 1082 -> SqlType.DATE;
            case 1083 -> SqlType.TIME;
            case 1114 -> SqlType.TIMESTAMP;
            case 1184 -> SqlType.TIMESTAMPTZ;
            case 1186 -> SqlType.INTERVAL;
            default -> {
                // an array type: of an element type Tributary has
                long element = dev.tributary.sql.catalog.SystemCatalog.elementOid(oid);
                SqlType e = element < 0 ? null : known((int) element);
                yield e == null ? null : SqlType.array(e);
            }
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
        return dev.tributary.sql.catalog.SystemCatalog.typmod(t);
    }

    /**
     * The type a client shows for a column of type {@code oid}, for aligning it: ours for the
     * OIDs {@link #oid} gives (without length or precision), and for other OIDs a stand-in that
     * aligns as psql aligns them (oid, xid, cid and money to the right, everything else as text).
     */
    static SqlType type(int oid) {
        if (oid == 705) return SqlType.UNKNOWN;
        // oid, xid, cid, xid8, money: psql right-aligns them
        if (oid == 26 || oid == 28 || oid == 29 || oid == 5069 || oid == 790) return SqlType.BIGINT;
        SqlType t = known(oid);
        return t == null ? SqlType.TEXT : t;
    }
}
