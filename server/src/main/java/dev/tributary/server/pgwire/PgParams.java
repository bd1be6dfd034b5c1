package dev.tributary.server.pgwire;

import dev.tributary.sql.SqlException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Bound parameter values as SQL literals: the text (or decoded binary) value quoted, with a cast
 * to the type the client declared, so the statement means what it would with the value inline.
 */
final class PgParams {
    private PgParams() {}

    static String literal(byte[] value, int format, int oid) {
        String text = format == 0 ? new String(value, StandardCharsets.UTF_8) : binary(value, oid);
        String quoted = "'" + text.replace("'", "''") + "'";
        String type = typeName(oid);
        return type == null ? quoted : quoted + "::" + type;
    }

    private static String binary(byte[] v, int oid) {
        ByteBuffer b = ByteBuffer.wrap(v);
        try {
            return switch (oid) {
                case 16 -> v[0] != 0 ? "true" : "false";
                case 21 -> String.valueOf(b.getShort());
                case 23 -> String.valueOf(b.getInt());
                case 20 -> String.valueOf(b.getLong());
                case 700 -> String.valueOf(b.getFloat());
                case 701 -> String.valueOf(b.getDouble());
                case 1700 -> numeric(b);
                case 25, 1043, 1042, 705, 0 -> new String(v, StandardCharsets.UTF_8);
                case 17 -> {
                    StringBuilder s = new StringBuilder("\\x");
                    for (byte x : v) s.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
                    yield s.toString();
                }
                default -> throw new SqlException("0A000", "binary parameters of type oid " + oid + " are not supported yet; send them as text");
            };
        } catch (java.nio.BufferUnderflowException e) {
            throw new SqlException("22P03", "incorrect binary data format in bind parameter");
        }
    }

    /** PostgreSQL's binary NUMERIC: digit count, weight, sign, display scale, then base-10000 digits. */
    private static String numeric(ByteBuffer b) {
        int ndigits = b.getShort();
        int weight = b.getShort();
        int sign = b.getShort() & 0xffff;
        int dscale = b.getShort();
        if (sign == 0xC000) throw new SqlException("0A000", "numeric NaN is not supported");
        java.math.BigDecimal v = java.math.BigDecimal.ZERO;
        for (int i = 0; i < ndigits; i++) {
            v = v.add(java.math.BigDecimal.valueOf(b.getShort()).scaleByPowerOfTen(4 * (weight - i)));
        }
        if (sign == 0x4000) v = v.negate();
        return v.setScale(Math.max(dscale, 0), java.math.RoundingMode.UNNECESSARY).toPlainString();
    }

    /** The SQL name of type {@code oid}, or null to leave the literal untyped (resolved by its context). */
    static String typeName(int oid) {
        return switch (oid) {
            case 16 -> "boolean";
            case 21 -> "smallint";
            case 23 -> "integer";
            case 20 -> "bigint";
            case 700 -> "real";
            case 701 -> "double precision";
            case 1700 -> "numeric";
            case 25 -> "text";
            case 1043 -> "varchar";
            case 1042 -> "char";
            case 17 -> "bytea";
            case 1082 -> "date";
            case 1083 -> "time";
            case 1114 -> "timestamp";
            case 1184 -> "timestamptz";
            case 1186 -> "interval";
            default -> null;
        };
    }
}
