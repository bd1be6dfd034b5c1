package dev.tributary.sql.catalog;

import dev.tributary.sql.types.SqlType;

/** A column of a catalog relation: its name, type and whether it may hold NULL. */
public record Column(String name, SqlType type, boolean nullable) {}
