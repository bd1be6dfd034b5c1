package dev.tributary.sql.types;

/**
 * A SQL data type: a kind and, for the kinds that take them, a length, precision or scale.
 *
 * <p>The Java value of each kind, used everywhere a SQL value is held outside an encoded
 * {@code Row} (rows as {@code Object[]}, literals, evaluation), with SQL NULL as Java
 * {@code null}:
 * <ul>
 *   <li>BOOLEAN: {@link Boolean}</li>
 *   <li>SMALLINT, INTEGER, BIGINT: {@link Long} (the kind bounds the range; overflow is 22003)</li>
 *   <li>REAL, DOUBLE: {@link Double} (REAL values are rounded to float precision)</li>
 *   <li>NUMERIC: {@link java.math.BigDecimal}, scale normalised as PostgreSQL prints it, or a {@link NonFiniteNumeric}</li>
 *   <li>TEXT, VARCHAR, CHAR: {@link String}</li>
 *   <li>BYTEA: {@link Bytea}</li>
 *   <li>UUID: {@link java.util.UUID} (ordered as PostgreSQL orders uuids: by their bytes, unsigned)</li>
 *   <li>DATE: {@link java.time.LocalDate}; TIME: {@link java.time.LocalTime};
 *       TIMESTAMP: {@link java.time.LocalDateTime}; TIMESTAMPTZ: {@link java.time.Instant}
 *       (microsecond precision)</li>
 *   <li>INTERVAL: {@link Interval}</li>
 *   <li>UNKNOWN: the type of an untyped string literal or bare NULL before resolution; its
 *       value is a {@link String} or null</li>
 *   <li>ARRAY: an array of {@code element} values (elements may be null): when one-dimensional
 *       with lower bound 1, or empty, an immutable {@link java.util.List} of the element type's
 *       Java values; otherwise a {@link ShapedArray}, which is also the {@code List} of its
 *       elements (row-major) and holds the shape. The type does not fix the dimensions, as in
 *       PostgreSQL ({@code int[][]} is {@code int[]}).</li>
 *   <li>RECORD: a composite value with the named, typed {@code fields} (what a function
 *       returning several columns gives in a select list): an immutable {@link java.util.List}
 *       of the fields' values</li>
 * </ul>
 *
 * @param kind the type's kind
 * @param length VARCHAR/CHAR length or NUMERIC precision; -1 when not given
 * @param scale NUMERIC scale; -1 when not given
 * @param element an ARRAY's element type (not itself an array); null for every other kind
 * @param fieldNames a RECORD's field names; empty for every other kind
 * @param fieldTypes a RECORD's field types, one per name
 */
public record SqlType(Kind kind, int length, int scale, SqlType element, java.util.List<String> fieldNames, java.util.List<SqlType> fieldTypes) {

    public SqlType {
        if ((kind == Kind.ARRAY) != (element != null)) throw new IllegalArgumentException("an ARRAY, and only an ARRAY, has an element type");
        if (element != null && element.kind == Kind.ARRAY) throw new IllegalArgumentException("arrays of arrays are one array type");
        fieldNames = java.util.List.copyOf(fieldNames);
        fieldTypes = java.util.List.copyOf(fieldTypes);
        if (fieldNames.size() != fieldTypes.size() || (kind == Kind.RECORD) == fieldNames.isEmpty()) {
            throw new IllegalArgumentException("a RECORD, and only a RECORD, has fields, each named and typed");
        }
    }

    public SqlType(Kind kind, int length, int scale, SqlType element) {
        this(kind, length, scale, element, java.util.List.of(), java.util.List.of());
    }

    public SqlType(Kind kind, int length, int scale) {
        this(kind, length, scale, null);
    }

    /** The kinds of SQL types Tributary stores, with PostgreSQL's name for each. */
    public enum Kind {
        BOOLEAN("boolean"),
        SMALLINT("smallint"),
        INTEGER("integer"),
        BIGINT("bigint"),
        REAL("real"),
        DOUBLE("double precision"),
        NUMERIC("numeric"),
        TEXT("text"),
        VARCHAR("character varying"),
        CHAR("character"),
        BYTEA("bytea"),
        UUID("uuid"),
        DATE("date"),
        TIME("time without time zone"),
        TIMESTAMP("timestamp without time zone"),
        TIMESTAMPTZ("timestamp with time zone"),
        INTERVAL("interval"),
        UNKNOWN("unknown"),
        ARRAY("array"),
        RECORD("record"),
        JSON("json"),
        JSONB("jsonb");

        private final String pgName;

        Kind(String pgName) {
            this.pgName = pgName;
        }

        /** The name PostgreSQL prints for the kind, e.g. {@code character varying}. */
        public String pgName() {
            return pgName;
        }
    }

    public static final SqlType BOOLEAN = of(Kind.BOOLEAN);
    public static final SqlType SMALLINT = of(Kind.SMALLINT);
    public static final SqlType INTEGER = of(Kind.INTEGER);
    public static final SqlType BIGINT = of(Kind.BIGINT);
    public static final SqlType REAL = of(Kind.REAL);
    public static final SqlType DOUBLE = of(Kind.DOUBLE);
    public static final SqlType NUMERIC = of(Kind.NUMERIC);
    public static final SqlType TEXT = of(Kind.TEXT);
    public static final SqlType VARCHAR = of(Kind.VARCHAR);
    public static final SqlType BYTEA = of(Kind.BYTEA);
    public static final SqlType UUID = of(Kind.UUID);
    public static final SqlType DATE = of(Kind.DATE);
    public static final SqlType TIME = of(Kind.TIME);
    public static final SqlType TIMESTAMP = of(Kind.TIMESTAMP);
    public static final SqlType TIMESTAMPTZ = of(Kind.TIMESTAMPTZ);
    public static final SqlType INTERVAL = of(Kind.INTERVAL);
    public static final SqlType UNKNOWN = of(Kind.UNKNOWN);
    public static final SqlType JSON = of(Kind.JSON);
    public static final SqlType JSONB = of(Kind.JSONB);

    public static SqlType of(Kind kind) {
        return new SqlType(kind, -1, -1);
    }

    public static SqlType varchar(int length) {
        return new SqlType(Kind.VARCHAR, length, -1);
    }

    public static SqlType character(int length) {
        return new SqlType(Kind.CHAR, length, -1);
    }

    public static SqlType numeric(int precision, int scale) {
        return new SqlType(Kind.NUMERIC, precision, scale);
    }

    /** The array type of {@code element} (an array of arrays is the same type: PostgreSQL's arrays are multi-dimensional). */
    public static SqlType array(SqlType element) {
        return element.kind == Kind.ARRAY ? element : new SqlType(Kind.ARRAY, -1, -1, element);
    }

    /**
     * PostgreSQL's {@code int2vector} and {@code oidvector} (of smallint or bigint elements): an
     * array subscripted from 0 whose text is its elements separated by spaces, as the system
     * catalogs hold key columns ({@code pg_index.indkey}).
     */
    public static SqlType vector(SqlType element) {
        return new SqlType(Kind.ARRAY, 0, -1, element);
    }

    /** Whether this is a {@link #vector}. */
    public boolean isVector() {
        return kind == Kind.ARRAY && length == 0;
    }

    /** The composite type of the named, typed fields (at least one). */
    public static SqlType record(java.util.List<String> names, java.util.List<SqlType> types) {
        return new SqlType(Kind.RECORD, -1, -1, null, names, types);
    }

    /** Whether this is an ARRAY type. */
    public boolean isArray() {
        return kind == Kind.ARRAY;
    }

    /** Whether this is SMALLINT, INTEGER or BIGINT. */
    public boolean isInteger() {
        return kind == Kind.SMALLINT || kind == Kind.INTEGER || kind == Kind.BIGINT;
    }

    /** Whether this is an integer, NUMERIC, REAL or DOUBLE. */
    public boolean isNumeric() {
        return isInteger() || kind == Kind.NUMERIC || kind == Kind.REAL || kind == Kind.DOUBLE;
    }

    /** Whether this is TEXT, VARCHAR or CHAR (or an untyped literal). */
    public boolean isString() {
        return kind == Kind.TEXT || kind == Kind.VARCHAR || kind == Kind.CHAR || kind == Kind.UNKNOWN;
    }

    /** The type as PostgreSQL prints it, e.g. {@code character varying(10)}, {@code numeric(10,2)}. */
    @Override
    public String toString() {
        return switch (kind) {
            case VARCHAR, CHAR -> length >= 0 ? kind.pgName + "(" + length + ")" : kind.pgName;
            case NUMERIC -> length >= 0 ? "numeric(" + length + "," + Math.max(scale, 0) + ")" : "numeric";
            case ARRAY -> element + "[]";
            case RECORD -> "record";
            default -> kind.pgName;
        };
    }
}
