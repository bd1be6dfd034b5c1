package dev.tributary.sql.ast;

import dev.tributary.sql.types.SqlType;
import java.util.List;

/**
 * {@code name [(cols)] AS (query) [SEARCH ...] [CYCLE ...]} in a WITH clause; {@code columns} is
 * empty when not given. Under {@code WITH MUTUALLY RECURSIVE} every binding declares its columns
 * with types ({@code name (col type, ...) AS (query)}): {@code types} holds them, one per column,
 * and is empty otherwise. {@code search} and {@code cycle} are null when not given.
 */
public record Cte(int pos, String name, List<String> columns, List<SqlType> types, Query query, Search search, Cycle cycle) implements Node {
    public Cte {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        if (!types.isEmpty() && types.size() != columns.size()) throw new IllegalArgumentException("a declared type per column");
    }

    /** A binding without declared types. */
    public Cte(int pos, String name, List<String> columns, Query query) {
        this(pos, name, columns, List.of(), query, null, null);
    }

    public Cte(int pos, String name, List<String> columns, List<SqlType> types, Query query) {
        this(pos, name, columns, types, query, null, null);
    }

    /**
     * {@code SEARCH {DEPTH | BREADTH} FIRST BY columns SET sequenceColumn}: a column added to a
     * recursive query's rows that orders them depth- or breadth-first when sorted by.
     */
    public record Search(int pos, boolean breadthFirst, List<String> columns, String sequenceColumn) implements Node {
        public Search {
            columns = List.copyOf(columns);
        }
    }

    /**
     * {@code CYCLE columns SET markColumn [TO markValue DEFAULT markDefault] USING pathColumn}: a
     * recursive query's rows remember the {@code columns} of the rows that led to them and are not
     * followed further once they repeat one. {@code markValue} and {@code markDefault} are literals,
     * both null for the default {@code TRUE}/{@code FALSE}.
     */
    public record Cycle(int pos, List<String> columns, String markColumn, Expr markValue, Expr markDefault, String pathColumn) implements Node {
        public Cycle {
            columns = List.copyOf(columns);
        }
    }
}
