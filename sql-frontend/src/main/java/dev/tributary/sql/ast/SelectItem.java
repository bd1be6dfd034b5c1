package dev.tributary.sql.ast;

/** One entry of a select list; {@code alias} is null when none was written. */
public record SelectItem(int pos, Expr expr, String alias) implements Node {}
