package dev.tributary.sql.ast;

import java.util.List;

/** {@code name [(cols)] AS (query)} in a WITH clause; {@code columns} is empty when not given. */
public record Cte(int pos, String name, List<String> columns, Query query) implements Node {
    public Cte {
        columns = List.copyOf(columns);
    }
}
