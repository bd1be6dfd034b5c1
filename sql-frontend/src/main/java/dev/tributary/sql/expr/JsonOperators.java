package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Json;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.JsonbOperations;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import java.util.List;

/**
 * PostgreSQL's JSON operators resolved on their operand types: {@code -> ->> #> #>>} on json and
 * jsonb, and jsonb's {@code @> <@ ? ?| ?& || - #-}. An untyped literal operand takes the type the
 * operator wants ({@code j -> 'a'} a key, {@code j #> '{a,1}'} a text[] path, {@code j @> '{"a":1}'}
 * a jsonb), as PostgreSQL resolves it. The jsonpath operators {@code @?} and {@code @@} are 0A000.
 */
public final class JsonOperators {
    private JsonOperators() {}

    private static final String NO_OPERATOR_HINT =
            "No operator matches the given name and argument types. You might need to add explicit type casts.";
    private static final SqlType TEXT_ARRAY = SqlType.array(SqlType.TEXT);

    /** Whether {@code l op r} ({@code op} one of {@code || -}) is jsonb's rather than another type's. */
    static boolean isJsonb(String op, ScalarExpr l, ScalarExpr r) {
        Kind lk = l.type().kind(), rk = r.type().kind();
        if (op.equals("-")) return lk == Kind.JSONB;
        return (lk == Kind.JSONB && (rk == Kind.JSONB || rk == Kind.UNKNOWN)) || (rk == Kind.JSONB && lk == Kind.UNKNOWN);
    }

    /** {@code l op r} for a JSON operator {@code op}; 42883 when the operand types have no such operator. */
    public static ScalarExpr binary(String op, ScalarExpr l, ScalarExpr r, int pos) {
        if (op.equals("@?") || op.equals("@@")) throw new SqlException("0A000", "jsonpath (operator " + op + ") is not supported", pos);
        if ((op.equals("@>") || op.equals("<@")) && l.type().kind() == Kind.UNKNOWN && r.type().kind() == Kind.JSONB) {
            l = Casts.coerce(l, SqlType.JSONB, CastContext.IMPLICIT, pos);
        }
        Kind lk = l.type().kind(), rk = r.type().kind();
        if (lk == Kind.UNKNOWN && op.matches("->>?|#>>?")) {
            // json's and jsonb's both fit an untyped document
            throw new SqlException("42725", "operator is not unique: " + Operators.typeName(l.type()) + " " + op + " " + Operators.typeName(r.type()),
                    pos, "Could not choose a best candidate operator. You might need to add explicit type casts.");
        }
        boolean json = lk == Kind.JSON;
        if (lk != Kind.JSONB && !(json && op.matches("->>?|#>>?")) && !op.equals("||")) throw noOperator(op, l, r, pos);
        return switch (op) {
            case "->", "->>" -> {
                boolean text = op.equals("->>");
                SqlType result = text ? SqlType.TEXT : l.type();
                if (isInteger(rk)) {
                    ScalarExpr idx = Casts.coerce(r, SqlType.BIGINT, CastContext.IMPLICIT, pos);
                    yield call(op, l, idx, result, json
                            ? x -> text ? Json.text(Json.element((String) x[0], (Long) x[1])) : Json.element((String) x[0], (Long) x[1])
                            : x -> text ? JsonbOperations.text(JsonbOperations.element((Jsonb) x[0], (Long) x[1]))
                                    : JsonbOperations.element((Jsonb) x[0], (Long) x[1]));
                }
                if (!r.type().isString() && rk != Kind.UNKNOWN) throw noOperator(op, l, r, pos);
                ScalarExpr key = Casts.coerce(r, SqlType.TEXT, CastContext.IMPLICIT, pos);
                yield call(op, l, key, result, json
                        ? x -> text ? Json.text(Json.field((String) x[0], (String) x[1])) : Json.field((String) x[0], (String) x[1])
                        : x -> text ? JsonbOperations.text(JsonbOperations.field((Jsonb) x[0], (String) x[1]))
                                : JsonbOperations.field((Jsonb) x[0], (String) x[1]));
            }
            case "#>", "#>>" -> {
                boolean text = op.equals("#>>");
                ScalarExpr path = textArray(op, l, r, pos);
                yield call(op, l, path, text ? SqlType.TEXT : l.type(), json
                        ? x -> text ? Json.text(Json.path((String) x[0], (List<?>) x[1])) : Json.path((String) x[0], (List<?>) x[1])
                        : x -> {
                            Jsonb found = JsonbOperations.path((Jsonb) x[0], (List<?>) x[1]);
                            // the whole document's text keeps a string's quotes only below the top
                            return text ? JsonbOperations.text(found) : found;
                        });
            }
            case "@>", "<@" -> {
                ScalarExpr other = jsonb(op, l, r, pos);
                boolean contains = op.equals("@>");
                yield call(op, l, other, SqlType.BOOLEAN, x -> contains
                        ? JsonbOperations.contains((Jsonb) x[0], (Jsonb) x[1]) : JsonbOperations.contains((Jsonb) x[1], (Jsonb) x[0]));
            }
            case "?" -> {
                if (!r.type().isString() && rk != Kind.UNKNOWN) throw noOperator(op, l, r, pos);
                ScalarExpr key = Casts.coerce(r, SqlType.TEXT, CastContext.IMPLICIT, pos);
                yield call(op, l, key, SqlType.BOOLEAN, x -> JsonbOperations.exists((Jsonb) x[0], (String) x[1]));
            }
            case "?|", "?&" -> {
                boolean all = op.equals("?&");
                yield call(op, l, textArray(op, l, r, pos), SqlType.BOOLEAN, x -> JsonbOperations.exists((Jsonb) x[0], (List<?>) x[1], all));
            }
            case "#-" -> call(op, l, textArray(op, l, r, pos), SqlType.JSONB, x -> JsonbOperations.deletePath((Jsonb) x[0], (List<?>) x[1]));
            case "||" -> {
                ScalarExpr a = Casts.coerce(l, SqlType.JSONB, CastContext.IMPLICIT, pos);
                ScalarExpr b = Casts.coerce(r, SqlType.JSONB, CastContext.IMPLICIT, pos);
                yield call(op, a, b, SqlType.JSONB, x -> JsonbOperations.concat((Jsonb) x[0], (Jsonb) x[1]));
            }
            case "-" -> {
                if (isInteger(rk)) {
                    ScalarExpr idx = Casts.coerce(r, SqlType.BIGINT, CastContext.IMPLICIT, pos);
                    yield call(op, l, idx, SqlType.JSONB, x -> JsonbOperations.delete((Jsonb) x[0], (Long) x[1]));
                }
                if (r.type().isArray() && r.type().element().isString()) {
                    yield call(op, l, textArray(op, l, r, pos), SqlType.JSONB, x -> JsonbOperations.deleteKeys((Jsonb) x[0], (List<?>) x[1]));
                }
                if (!r.type().isString() && rk != Kind.UNKNOWN) throw noOperator(op, l, r, pos);
                ScalarExpr key = Casts.coerce(r, SqlType.TEXT, CastContext.IMPLICIT, pos);
                yield call(op, l, key, SqlType.JSONB, x -> JsonbOperations.delete((Jsonb) x[0], (String) x[1]));
            }
            default -> throw noOperator(op, l, r, pos);
        };
    }

    private static boolean isInteger(Kind k) {
        return k == Kind.SMALLINT || k == Kind.INTEGER || k == Kind.BIGINT;
    }

    private static ScalarExpr textArray(String op, ScalarExpr l, ScalarExpr r, int pos) {
        boolean ok = r.type().kind() == Kind.UNKNOWN || (r.type().isArray() && (r.type().element().isString() || r.type().element().kind() == Kind.UNKNOWN));
        if (!ok) throw noOperator(op, l, r, pos);
        return Casts.coerce(r, TEXT_ARRAY, CastContext.IMPLICIT, pos);
    }

    private static ScalarExpr jsonb(String op, ScalarExpr l, ScalarExpr r, int pos) {
        if (r.type().kind() != Kind.JSONB && r.type().kind() != Kind.UNKNOWN) throw noOperator(op, l, r, pos);
        return Casts.coerce(r, SqlType.JSONB, CastContext.IMPLICIT, pos);
    }

    private static ScalarExpr call(String op, ScalarExpr l, ScalarExpr r, SqlType result, ScalarExpr.Impl impl) {
        return new ScalarExpr.Call(op, List.of(l, r), result, impl, true);
    }

    private static SqlException noOperator(String op, ScalarExpr l, ScalarExpr r, int pos) {
        return new SqlException("42883", "operator does not exist: " + Operators.typeName(l.type()) + " " + op + " " + Operators.typeName(r.type()),
                pos, NO_OPERATOR_HINT);
    }
}
