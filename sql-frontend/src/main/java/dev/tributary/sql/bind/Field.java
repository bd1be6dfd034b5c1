package dev.tributary.sql.bind;

import dev.tributary.sql.types.SqlType;

/**
 * A column as names see it while binding: the relation name that qualifies it (null for a
 * computed column), its own name, its type, whether an unqualified name or {@code *} may
 * reach it (the right-hand copy of a USING column may only be reached qualified), and whether
 * {@code *} and {@code t.*} leave it out though names reach it ({@code unstarred}: the SEARCH and
 * CYCLE columns of a recursive query as its recursive term sees them, as in PostgreSQL).
 */
record Field(String qualifier, String name, SqlType type, boolean hidden, boolean unstarred) {
    Field(String qualifier, String name, SqlType type, boolean hidden) {
        this(qualifier, name, type, hidden, false);
    }

    Field renamed(String qualifier, String name) {
        return new Field(qualifier, name, type, hidden, unstarred);
    }

    String qualifiedName() {
        return qualifier == null ? name : qualifier + "." + name;
    }

    Field hide() {
        return new Field(qualifier, name, type, true, unstarred);
    }
}
