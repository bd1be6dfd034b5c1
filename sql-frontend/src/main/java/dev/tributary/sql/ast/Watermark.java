package dev.tributary.sql.ast;

/**
 * {@code WATERMARK FOR column AS expr}: how far a stream's event time ({@code column}) is known to
 * be complete, as {@code expr} over the largest event time seen (usually {@code column - INTERVAL
 * '5 seconds'}); declared once on a table, or given with a {@code STREAM}.
 */
public record Watermark(int pos, Expr.ColumnRef column, Expr expr) implements Node {}
