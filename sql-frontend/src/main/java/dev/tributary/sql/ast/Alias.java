package dev.tributary.sql.ast;

import java.util.List;

/** {@code AS name (col, ...)} after a table reference; {@code columns} is empty when not given. */
public record Alias(int pos, String name, List<String> columns) implements Node {
    public Alias {
        columns = List.copyOf(columns);
    }
}
