package dev.tributary.sql.types;

/**
 * The NUMERIC values that are not numbers: {@code -Infinity}, {@code Infinity} and {@code NaN}.
 * A NUMERIC value is a {@link java.math.BigDecimal} or one of these.
 *
 * <p>Declared in PostgreSQL's order: {@code -Infinity} sorts below every finite value,
 * {@code Infinity} above, and {@code NaN} above {@code Infinity} (NaN equals NaN, so it groups,
 * joins and deduplicates as one value). Their arithmetic is IEEE's where PostgreSQL's agrees,
 * which is why each maps to a {@code double}.
 */
public enum NonFiniteNumeric {
    NEGATIVE_INFINITY("-Infinity", Double.NEGATIVE_INFINITY),
    POSITIVE_INFINITY("Infinity", Double.POSITIVE_INFINITY),
    NAN("NaN", Double.NaN);

    private final String text;
    private final double asDouble;

    NonFiniteNumeric(String text, double asDouble) {
        this.text = text;
        this.asDouble = asDouble;
    }

    /** As PostgreSQL prints it. */
    public String text() {
        return text;
    }

    /** The double of the same meaning. */
    public double asDouble() {
        return asDouble;
    }

    /** The sign, as PostgreSQL's {@code sign()} sees it: NaN has none (the caller answers NaN). */
    public int signum() {
        return this == NEGATIVE_INFINITY ? -1 : this == POSITIVE_INFINITY ? 1 : 0;
    }

    /** The value of a non-finite double. */
    public static NonFiniteNumeric of(double d) {
        if (Double.isNaN(d)) return NAN;
        if (d == Double.POSITIVE_INFINITY) return POSITIVE_INFINITY;
        if (d == Double.NEGATIVE_INFINITY) return NEGATIVE_INFINITY;
        throw new IllegalArgumentException(d + " is finite");
    }

    /**
     * PostgreSQL's order of two NUMERIC values, either of which may be non-finite: a finite value
     * ranks between the infinities.
     */
    public static int compare(Object a, Object b) {
        if (a instanceof java.math.BigDecimal x && b instanceof java.math.BigDecimal y) return x.compareTo(y);
        return Integer.compare(rank(a), rank(b));
    }

    private static int rank(Object v) {
        return switch (v) {
            case NonFiniteNumeric n -> n == NEGATIVE_INFINITY ? 0 : n == POSITIVE_INFINITY ? 2 : 3;
            default -> 1;
        };
    }
}
