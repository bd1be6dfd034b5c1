package dev.tributary.sql.parser;

import dev.tributary.sql.ast.Statement;

/**
 * A statement with where it was in the input: {@code [start, end)} as 0-based offsets, and
 * {@code text}, that slice, for a shell to echo or a log to show.
 */
public record Parsed(Statement statement, int start, int end, String text) {}
