package dev.tributary.propertytests.sql;

/**
 * One view of the catalogue: the query Tributary maintains, and how DuckDB is asked the same
 * question.
 *
 * @param family the group of shapes it belongs to (one property per family)
 * @param name a short name for reports
 * @param sql the view's query, in PostgreSQL's dialect, as given to {@code CREATE MATERIALIZED VIEW}
 * @param duckSql the same query in DuckDB's dialect where it differs (see {@link Shapes}), or
 *     null when DuckDB cannot be asked the same question; then only the recomputation is compared
 * @param whyNoDuck why {@code duckSql} is null, or null
 */
record Shape(String family, String name, String sql, String duckSql, String whyNoDuck) {
    static Shape of(String family, String name, String sql) {
        return new Shape(family, name, sql, sql, null);
    }

    /** A shape whose DuckDB text differs from the PostgreSQL text. */
    static Shape duck(String family, String name, String sql, String duckSql) {
        return new Shape(family, name, sql, duckSql, null);
    }

    /** A shape DuckDB cannot check; only the recomputation is compared. */
    static Shape noDuck(String family, String name, String sql, String why) {
        return new Shape(family, name, sql, null, why);
    }

    @Override
    public String toString() {
        return name + ": " + sql + (duckSql == null ? "  [not checked against DuckDB: " + whyNoDuck + "]"
                : duckSql.equals(sql) ? "" : "\n    DuckDB: " + duckSql);
    }
}
