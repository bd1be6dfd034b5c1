package dev.tributary.sql.catalog;

import dev.tributary.sql.SqlException;
import java.util.List;

/**
 * A relation's name as a statement writes it, {@code name}, {@code schema.name} or
 * {@code database.schema.name}, with the database part checked away: only this database's may be
 * named (0A000 otherwise, as PostgreSQL says), and four parts or more are 42601. {@code schema} is
 * null for a bare name, which the search path resolves.
 */
public record QualifiedName(String schema, String name) {

    /** {@code parts} as a relation's name; errors name {@code pos}. */
    public static QualifiedName of(List<String> parts, int pos) {
        return of(parts, parts, pos);
    }

    /**
     * {@code parts} as a relation's name, where they are the leading parts of {@code written}
     * (a column reference, {@code s.t.col}), which errors show whole.
     */
    public static QualifiedName of(List<String> parts, List<String> written, int pos) {
        if (parts.size() > 3) throw new SqlException("42601", "improper qualified name (too many dotted names): " + String.join(".", written), pos);
        if (parts.size() == 3 && !parts.get(0).equals(SystemCatalog.DATABASE_NAME)) {
            throw new SqlException("0A000", "cross-database references are not implemented: " + String.join(".", written), pos);
        }
        String name = parts.get(parts.size() - 1);
        return new QualifiedName(parts.size() == 1 ? null : parts.get(parts.size() - 2), name);
    }
}
