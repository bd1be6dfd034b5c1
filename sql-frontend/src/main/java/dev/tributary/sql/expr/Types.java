package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's resolution of one type for a set of values that must share it: UNION, CASE,
 * COALESCE, IN, VALUES, GREATEST/LEAST ({@code select_common_type}).
 */
public final class Types {
    private Types() {}

    /**
     * The common type: the inputs' type when all agree (keeping a length/precision only if all
     * have the same); TEXT when all are untyped; otherwise untyped inputs are ignored, the rest
     * must share a category (else 42804 {@code CASE types integer and text cannot be matched}), and
     * scanning left to right the candidate moves to the next type when it converts implicitly to
     * it but not back, and stops moving once it is the category's preferred type. Every input must
     * then convert implicitly to the result (else 42846 {@code CASE could not convert type ...}).
     *
     * @param construct the construct's name for messages: CASE, UNION, COALESCE, IN, VALUES, GREATEST, LEAST
     */
    public static SqlType common(List<SqlType> types, String construct, int pos) {
        SqlType p = null;
        boolean samePrecise = true;
        for (SqlType t : types) {
            if (t.kind() == Kind.UNKNOWN) continue;
            if (p == null) {
                p = t;
                continue;
            }
            if (t.kind() == p.kind()) {
                if (!t.equals(p)) {
                    samePrecise = false;
                    // arrays of different elements: an array of the elements' common type
                    if (p.isArray()) {
                        try {
                            p = SqlType.array(common(List.of(p.element(), t.element()), construct, pos));
                        } catch (SqlException e) {
                            // PostgreSQL keeps the first array type and then fails to convert the other to it
                            if (!e.sqlState().equals("42804")) throw e;
                            throw new SqlException("42846", construct + " could not convert type " + t + " to " + p, pos);
                        }
                    }
                    if (p.kind() == Kind.RECORD) p = RecordExprs.commonType(p, t, construct, pos);
                }
                continue;
            }
            samePrecise = false;
            char pc = Resolver.category(p.kind()), nc = Resolver.category(t.kind());
            if (pc != nc) {
                throw new SqlException("42804", construct + " types " + p + " and " + t + " cannot be matched", pos);
            }
            if (!Resolver.preferred(p.kind()) && Resolver.implicit(p.kind(), t.kind()) && !Resolver.implicit(t.kind(), p.kind())) {
                p = t;
            }
        }
        if (p == null) return SqlType.TEXT;
        SqlType result = samePrecise || p.isArray() || p.kind() == Kind.RECORD ? p : SqlType.of(p.kind());
        for (SqlType t : types) {
            if (!Resolver.implicit(t.kind(), result.kind())) {
                throw new SqlException("42846", construct + " could not convert type " + t + " to " + result, pos);
            }
        }
        return result;
    }

    /** Each expression coerced implicitly to {@code target}. */
    public static List<ScalarExpr> coerceAll(List<ScalarExpr> exprs, SqlType target, int pos) {
        List<ScalarExpr> out = new ArrayList<>(exprs.size());
        for (ScalarExpr e : exprs) out.add(Casts.coerce(e, target, CastContext.IMPLICIT, pos));
        return out;
    }

    /** The types of the expressions. */
    public static List<SqlType> typesOf(List<ScalarExpr> exprs) {
        List<SqlType> out = new ArrayList<>(exprs.size());
        for (ScalarExpr e : exprs) out.add(e.type());
        return out;
    }
}
