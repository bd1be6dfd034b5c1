package dev.tributary.sql.bind;

import dev.tributary.sql.catalog.QualifiedName;
import java.util.List;

/**
 * A column reference's name split as PostgreSQL reads it: {@code col}, {@code t.col},
 * {@code s.t.col} or {@code db.s.t.col} (the database only this one's). {@code qualifier} is the
 * relation's name or alias (null when bare), {@code schema} the schema named with it (null when
 * none).
 */
record ColumnName(String schema, String qualifier, String name) {

    /** The name {@code prefix.name} (prefix possibly empty); errors name {@code pos}. */
    static ColumnName of(List<String> prefix, String name, int pos) {
        if (prefix.isEmpty()) return new ColumnName(null, null, name);
        List<String> written = new java.util.ArrayList<>(prefix);
        written.add(name);
        QualifiedName relation = QualifiedName.of(prefix, written, pos);
        return new ColumnName(relation.schema(), relation.name(), name);
    }
}
