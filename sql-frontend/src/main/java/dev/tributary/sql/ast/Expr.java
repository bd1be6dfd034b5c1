package dev.tributary.sql.ast;

import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.util.List;

/**
 * A scalar expression as written. Nothing is resolved: a column reference is its name parts,
 * a function is its name, a literal is its text or exact value.
 */
public sealed interface Expr extends Node {

    // ---- literals

    record NullLiteral(int pos) implements Expr {}

    record BooleanLiteral(int pos, boolean value) implements Expr {}

    /** An integer literal that fits in a long (a negative one comes from folding unary minus). */
    record IntegerLiteral(int pos, long value) implements Expr {}

    /** A literal with a point or exponent, or an integer too large for a long; kept exact. */
    record NumericLiteral(int pos, BigDecimal value) implements Expr {}

    /** A quoted string, escapes and continuations resolved; its type is not yet known. */
    record StringLiteral(int pos, String value) implements Expr {}

    /**
     * {@code type 'text'}, e.g. {@code DATE '2024-01-01'} or {@code INTERVAL '1' DAY}.
     * {@code qualifier} is the interval field qualifier in lower case ({@code day},
     * {@code hour to minute}), null when absent or for other types.
     */
    record TypedLiteral(int pos, SqlType type, String text, String qualifier) implements Expr {}

    /** {@code $n}. */
    record Param(int pos, int index) implements Expr {}

    /** DEFAULT in a VALUES row of INSERT. */
    record DefaultValue(int pos) implements Expr {}

    // ---- names

    /** {@code c}, {@code t.c} or {@code s.t.c}. */
    record ColumnRef(int pos, List<String> parts) implements Expr {
        public ColumnRef {
            parts = List.copyOf(parts);
        }
    }

    /** {@code *} in a select list. */
    record Star(int pos) implements Expr {}

    /** {@code t.*} or {@code s.t.*}. */
    record QualifiedStar(int pos, List<String> qualifier) implements Expr {
        public QualifiedStar {
            qualifier = List.copyOf(qualifier);
        }
    }

    // ---- operators

    enum UnaryOp { NOT, NEG, PLUS }

    record Unary(int pos, UnaryOp op, Expr operand) implements Expr {}

    /** {@code left op right}; {@code opPos} is where the operator is, for operator errors. */
    record Binary(int pos, BinaryOp op, Expr left, Expr right, int opPos) implements Expr {}

    /** {@code CAST(operand AS type)} or {@code operand::type}. */
    record Cast(int pos, Expr operand, SqlType type) implements Expr {}

    /** {@code expr [NOT] BETWEEN [SYMMETRIC] low AND high}. */
    record Between(int pos, Expr expr, Expr low, Expr high, boolean negated, boolean symmetric) implements Expr {}

    /** {@code expr [NOT] LIKE|ILIKE pattern [ESCAPE escape]}; also {@code ~~}, {@code ~~*} and negations. */
    record Like(int pos, Expr expr, Expr pattern, Expr escape, boolean negated, boolean caseInsensitive)
            implements Expr {}

    /** {@code expr IS [NOT] NULL}, {@code ISNULL}, {@code NOTNULL}. */
    record IsNull(int pos, Expr expr, boolean negated) implements Expr {}

    enum Truth { TRUE, FALSE, UNKNOWN }

    /** {@code expr IS [NOT] TRUE|FALSE|UNKNOWN}. */
    record IsTruth(int pos, Expr expr, Truth value, boolean negated) implements Expr {}

    /** {@code left IS [NOT] DISTINCT FROM right}. */
    record IsDistinctFrom(int pos, Expr left, Expr right, boolean negated) implements Expr {}

    /** {@code expr [NOT] IN (list)}. */
    record InList(int pos, Expr expr, List<Expr> list, boolean negated) implements Expr {
        public InList {
            list = List.copyOf(list);
        }
    }

    /** {@code expr [NOT] IN (query)}. */
    record InSubquery(int pos, Expr expr, Query query, boolean negated) implements Expr {}

    enum Quantifier { ANY, ALL }

    /** {@code left op ANY|ALL (query)}; SOME is read as ANY. */
    record Quantified(int pos, BinaryOp op, Expr left, Quantifier quantifier, Query query) implements Expr {}

    /** {@code left op ANY|ALL (array)}: the comparison with each element of an array value. */
    record QuantifiedArray(int pos, BinaryOp op, Expr left, Quantifier quantifier, Expr array) implements Expr {}

    // ---- arrays

    /** {@code ARRAY[e1, e2, ...]}. */
    record ArrayConstructor(int pos, List<Expr> elements) implements Expr {
        public ArrayConstructor {
            elements = List.copyOf(elements);
        }
    }

    /** {@code ARRAY(query)}: the one-column query's rows as an array, in its ORDER BY's order. */
    record ArraySubquery(int pos, Query query) implements Expr {}

    // ---- composite values

    /**
     * A row constructor: {@code ROW(e1, ...)} or {@code (e1, e2, ...)}, a value of an anonymous
     * record type. Kept apart from other record-valued expressions because PostgreSQL compares two
     * row constructors field by field with SQL's NULL rules, and any other records as whole values.
     */
    record RowConstructor(int pos, List<Expr> fields) implements Expr {
        public RowConstructor {
            fields = List.copyOf(fields);
        }
    }

    /** {@code (expr).field}: a field of a composite value. */
    record FieldSelection(int pos, Expr expr, String field) implements Expr {}

    /**
     * {@code array[i][j]...} or, when one of them is a slice, {@code array[lo:hi][...]}: the
     * subscripts written one after another, which PostgreSQL reads together (one per dimension),
     * not as subscripts of subscripts.
     */
    record Subscript(int pos, Expr array, List<Index> indexes) implements Expr {
        public Subscript {
            indexes = List.copyOf(indexes);
        }

        /** Whether some subscript is a slice, which makes every one a slice (PostgreSQL reads {@code [i]} then as {@code [1:i]}). */
        public boolean isSlice() {
            return indexes.stream().anyMatch(Index::slice);
        }

        /**
         * One subscript: {@code [upper]} ({@code lower} null, not a slice), or the slice
         * {@code [lower:upper]} with either bound null when omitted ({@code [:hi]}, {@code [lo:]}).
         */
        public record Index(Expr lower, Expr upper, boolean slice) {}
    }

    // ---- subqueries

    record Exists(int pos, Query query) implements Expr {}

    record ScalarSubquery(int pos, Query query) implements Expr {}

    // ---- calls and special forms

    /**
     * {@code name([DISTINCT] args [ORDER BY orderBy]) [FILTER (WHERE filter)]}, or {@code name(*)}
     * when {@code star}. COALESCE, NULLIF, GREATEST and LEAST are calls by those names; the SQL
     * forms {@code SUBSTRING(s FROM a FOR b)}, {@code POSITION(a IN b)} and {@code TRIM(...)} are
     * read as {@code substring(s, a, b)}, {@code strpos(b, a)} and {@code btrim/ltrim/rtrim(s[, chars])}.
     * An ordered-set aggregate {@code name(args) WITHIN GROUP (ORDER BY orderBy)} is
     * {@code withinGroup}: {@code args} are its direct arguments, the ORDER BY's expressions the
     * aggregated ones.
     */
    record FunctionCall(int pos, List<String> name, List<Expr> args, boolean distinct, boolean star,
                        List<OrderItem> orderBy, Expr filter, boolean withinGroup) implements Expr {
        public FunctionCall {
            name = List.copyOf(name);
            args = List.copyOf(args);
            orderBy = List.copyOf(orderBy);
        }

        public FunctionCall(int pos, List<String> name, List<Expr> args, boolean distinct, boolean star, List<OrderItem> orderBy, Expr filter) {
            this(pos, name, args, distinct, star, orderBy, filter, false);
        }
    }

    /** {@code call OVER window}: a window function call ({@code OVER w} is a window with only a base). */
    record WindowCall(int pos, FunctionCall call, WindowSpec window) implements Expr {
        public WindowCall(int pos, FunctionCall call, List<Expr> partitionBy, List<OrderItem> orderBy) {
            this(pos, call, new WindowSpec(pos, null, partitionBy, orderBy, null));
        }

        /** The window's PARTITION BY as written (not its base's). */
        public List<Expr> partitionBy() {
            return window.partitionBy();
        }

        /** The window's ORDER BY as written (not its base's). */
        public List<OrderItem> orderBy() {
            return window.orderBy();
        }
    }

    /** {@code EXTRACT(field FROM source)}; {@code field} in lower case, e.g. {@code epoch}. */
    record Extract(int pos, String field, Expr source) implements Expr {}

    enum CurrentKind { CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME, LOCALTIMESTAMP }

    /** The SQL-standard niladic {@code CURRENT_TIMESTAMP} and its kin (written without parentheses). */
    record CurrentValue(int pos, CurrentKind kind) implements Expr {}

    /** {@code CASE [operand] WHEN .. THEN .. [ELSE elseExpr] END}; {@code operand}, {@code elseExpr} may be null. */
    record Case(int pos, Expr operand, List<When> whens, Expr elseExpr) implements Expr {
        public Case {
            whens = List.copyOf(whens);
        }
    }

    record When(int pos, Expr condition, Expr result) implements Node {}
}
