package dev.tributary.sql.ast;

import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * {@code name [(cols)] AS (query)} in a WITH clause; {@code columns} is empty when not given.
 * Under {@code WITH MUTUALLY RECURSIVE} every binding declares its columns with types
 * ({@code name (col type, ...) AS (query)}): {@code types} holds them, one per column, and is
 * empty otherwise.
 */
public record Cte(int pos, String name, List<String> columns, List<SqlType> types, Query query) implements Node {
    public Cte {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        if (!types.isEmpty() && types.size() != columns.size()) throw new IllegalArgumentException("a declared type per column");
    }

    /** A binding without declared types. */
    public Cte(int pos, String name, List<String> columns, Query query) {
        this(pos, name, columns, List.of(), query);
    }
}
