package dev.tributary.sql.bind;

import dev.tributary.sql.types.SqlType;

/**
 * A column as names see it while binding: the relation name that qualifies it (null for a
 * computed column), its own name, its type, and whether an unqualified name or {@code *} may
 * reach it (the right-hand copy of a USING column may only be reached qualified).
 */
record Field(String qualifier, String name, SqlType type, boolean hidden) {
    Field renamed(String qualifier, String name) {
        return new Field(qualifier, name, type, hidden);
    }

    String qualifiedName() {
        return qualifier == null ? name : qualifier + "." + name;
    }

    Field hide() {
        return new Field(qualifier, name, type, true);
    }
}
