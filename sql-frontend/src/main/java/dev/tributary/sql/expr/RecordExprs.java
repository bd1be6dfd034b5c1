package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Composite values: row constructors, records made from a set-returning function's columns,
 * {@code (value).field}, and comparisons of records.
 *
 * <p>PostgreSQL compares records two ways. Two row constructors compare field by field with
 * SQL's NULL rules ({@code (1, NULL) = (1, NULL)} is NULL; {@code <} decides at the first pair
 * that is not equal, NULL when that pair holds a NULL): {@link #compareRows}. Any other records
 * compare as whole values in the order that sorts them, where two NULL fields are equal and a
 * NULL field is above every value ({@code record_eq}, {@code record_lt}): {@link #compare}, which
 * is also what ORDER BY, DISTINCT, {@code = ANY (array)} and IN of record values use.
 */
public final class RecordExprs {
    private RecordExprs() {}

    /** The record of {@code fields} (one expression per field of {@code type}). */
    public static ScalarExpr construct(SqlType type, List<ScalarExpr> fields) {
        return new ScalarExpr.Call("row", fields, type, x -> Collections.unmodifiableList(Arrays.asList(x.clone())), false);
    }

    /**
     * {@code ROW(e1, ...)}: a record with PostgreSQL's anonymous field names {@code f1, f2, ...};
     * an untyped literal field stays untyped, to meet another record's field type in a
     * comparison, ARRAY or UNION. A row of no fields is 0A000 (a record type here has some).
     */
    public static ScalarExpr row(List<ScalarExpr> fields, int pos) {
        if (fields.isEmpty()) throw new SqlException("0A000", "row constructors without fields are not supported", pos);
        List<String> names = new ArrayList<>();
        List<SqlType> types = new ArrayList<>();
        List<ScalarExpr> typed = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            ScalarExpr f = fields.get(i);
            names.add("f" + (i + 1));
            types.add(f.type());
            typed.add(f);
        }
        return construct(SqlType.record(names, types), typed);
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

    /**
     * Two row constructors' fields compared as PostgreSQL compares row constructors: {@code =} is
     * the AND of the pairs' {@code =}, {@code <>} the OR of their {@code <>} (so an equality can
     * still serve as a join key), and an ordering decides at the first pair not equal, NULL when
     * that pair holds a NULL. 42601 when the rows differ in length.
     */
    public static ScalarExpr compareRows(BinaryOp op, List<ScalarExpr> l, List<ScalarExpr> r, int pos) {
        if (l.size() != r.size()) throw new SqlException("42601", "unequal number of entries in row expressions", pos);
        if (l.isEmpty()) throw new SqlException("0A000", "comparisons of row constructors without fields are not supported", pos);
        switch (op) {
            case EQ, NE -> {
                List<ScalarExpr> pairs = new ArrayList<>();
                for (int i = 0; i < l.size(); i++) pairs.add(Operators.binary(op, l.get(i), r.get(i), pos));
                return op == BinaryOp.EQ ? Operators.and(pairs, pos) : Operators.or(pairs, pos);
            }
            case LT, LE, GT, GE -> {
                int n = l.size();
                List<ScalarExpr> args = new ArrayList<>(Collections.nCopies(2 * n, null));
                SqlType[] types = new SqlType[n];
                for (int i = 0; i < n; i++) {
                    ScalarExpr[] c = Operators.comparable(l.get(i), r.get(i), pos);
                    args.set(i, c[0]);
                    args.set(n + i, c[1]);
                    types[i] = c[0].type();
                }
                return new ScalarExpr.Call(op.symbol(), args, SqlType.BOOLEAN, x -> {
                    for (int i = 0; i < n; i++) {
                        if (x[i] == null || x[n + i] == null) return null;
                        int c = Values.compare(x[i], x[n + i], types[i]);
                        if (c != 0) return Operators.test(op, c);
                    }
                    return Operators.test(op, 0);
                }, false);
            }
            default -> throw new SqlException("42883", "operator " + op.symbol() + " is not supported for row expressions", pos);
        }
    }

    /**
     * {@code l op r} where either is a record: both as their common record type, compared as
     * whole values (NULL fields equal to each other and above every value).
     */
    static ScalarExpr compare(BinaryOp op, ScalarExpr l, ScalarExpr r, int pos) {
        SqlType t = commonType(l.type(), r.type(), op.symbol(), pos);
        ScalarExpr a = Casts.tryCoerce(l, t, CastContext.IMPLICIT, pos);
        ScalarExpr b = Casts.tryCoerce(r, t, CastContext.IMPLICIT, pos);
        if (a == null || b == null) {
            throw new SqlException("42883", "operator does not exist: " + l.type() + " " + op.symbol() + " " + r.type(), pos,
                    "No operator matches the given name and argument types. You might need to add explicit type casts.");
        }
        return new ScalarExpr.Call(op.symbol(), List.of(a, b), SqlType.BOOLEAN, x -> Operators.test(op, Values.compare(x[0], x[1], t)), true);
    }

    /**
     * The one record type two values meet in for {@code construct} (a comparison, UNION, ARRAY):
     * field by field the fields' common type, named as {@code a}'s. An untyped side takes the
     * other's type; a side that is no record is 42883; records of different lengths are 42804.
     */
    static SqlType commonType(SqlType a, SqlType b, String construct, int pos) {
        if (a.kind() == SqlType.Kind.UNKNOWN) return b;
        if (b.kind() == SqlType.Kind.UNKNOWN || a.equals(b)) return a;
        if (a.kind() != SqlType.Kind.RECORD || b.kind() != SqlType.Kind.RECORD) {
            throw new SqlException("42883", "operator does not exist: " + a + " " + construct + " " + b, pos,
                    "No operator matches the given name and argument types. You might need to add explicit type casts.");
        }
        if (a.fieldTypes().size() != b.fieldTypes().size()) {
            throw new SqlException("42804", "cannot compare record types with different numbers of columns", pos);
        }
        List<SqlType> fields = new ArrayList<>();
        for (int i = 0; i < a.fieldTypes().size(); i++) {
            SqlType f = Types.common(List.of(a.fieldTypes().get(i), b.fieldTypes().get(i)), construct, pos);
            fields.add(f.kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : f);
        }
        return SqlType.record(a.fieldNames(), fields);
    }

    /**
     * {@code record IS [NOT] NULL} as PostgreSQL tests a composite value: IS NULL when the record
     * or every field is NULL, IS NOT NULL when every field is not (so a record with some NULL
     * fields is neither).
     */
    public static ScalarExpr isNull(ScalarExpr record, boolean negated) {
        return new ScalarExpr.Call(negated ? "IS NOT NULL" : "IS NULL", List.of(record), SqlType.BOOLEAN, x -> {
            if (x[0] == null) return !negated;
            for (Object f : (List<?>) x[0]) if ((f == null) != !negated) return false;
            return true;
        }, false);
    }

    /** Whether a value of record type {@code from} casts to record type {@code to} in {@code ctx}: field by field. */
    static boolean castable(SqlType from, SqlType to, CastContext ctx) {
        if (from.fieldTypes().size() != to.fieldTypes().size()) return false;
        for (int i = 0; i < from.fieldTypes().size(); i++) {
            if (!Casts.castable(from.fieldTypes().get(i), to.fieldTypes().get(i), ctx)) return false;
        }
        return true;
    }

    /** A record value of type {@code from} as one of type {@code to}, field by field. */
    static List<Object> cast(List<?> v, SqlType from, SqlType to, CastContext ctx) {
        List<Object> out = new ArrayList<>(v.size());
        for (int i = 0; i < v.size(); i++) out.add(Casts.cast(v.get(i), from.fieldTypes().get(i), to.fieldTypes().get(i), ctx));
        return Collections.unmodifiableList(out);
    }
}
