package dev.tributary.sql.catalog;

import dev.tributary.sql.types.SqlType;

/** A column of a catalog relation: its name, type and whether it may hold NULL. */
public record Column(String name, SqlType type, boolean nullable, boolean generatedAlways) {
    /** A column that takes any value written to it. */
    public Column(String name, SqlType type, boolean nullable) {
        this(name, type, nullable, false);
    }
}
