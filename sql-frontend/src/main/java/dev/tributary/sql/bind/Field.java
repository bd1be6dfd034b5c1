package dev.tributary.sql.bind;

import dev.tributary.sql.types.SqlType;

/**
 * A column as names see it while binding: the relation name that qualifies it (null for a
 * computed column), its own name, its type, whether an unqualified name or {@code *} may reach it
 * (the right-hand copy of a USING column may only be reached qualified), whether {@code *} and
 * {@code t.*} leave it out though names reach it ({@code unstarred}: the SEARCH and CYCLE columns
 * of a recursive query as its recursive term sees them, as in PostgreSQL), and the schema of the
 * relation when it is a catalog relation named without an alias (null otherwise): what a
 * {@code schema.table.column} reference must match, as in PostgreSQL.
 */
record Field(String qualifier, String name, SqlType type, boolean hidden, boolean unstarred, String schema) {
    Field(String qualifier, String name, SqlType type, boolean hidden) {
        this(qualifier, name, type, hidden, false, null);
    }

    Field(String qualifier, String name, SqlType type, boolean hidden, boolean unstarred) {
        this(qualifier, name, type, hidden, unstarred, null);
    }

    Field(String qualifier, String name, SqlType type, boolean hidden, String schema) {
        this(qualifier, name, type, hidden, false, schema);
    }

    /** This column under another relation name (an alias): no longer reached through a schema. */
    Field renamed(String qualifier, String name) {
        return new Field(qualifier, name, type, hidden, unstarred, null);
    }

    String qualifiedName() {
        return qualifier == null ? name : qualifier + "." + name;
    }

    Field hide() {
        return new Field(qualifier, name, type, true, unstarred, schema);
    }

    /** This column of a relation of schema {@code schema}. */
    Field inSchema(String schema) {
        return new Field(qualifier, name, type, hidden, unstarred, schema);
    }

    /** The name parts that reach exactly this column: {@code schema.table.column} when it has a schema. */
    java.util.List<String> reference() {
        if (qualifier == null) return java.util.List.of(name);
        return schema == null ? java.util.List.of(qualifier, name) : java.util.List.of(schema, qualifier, name);
    }
}
