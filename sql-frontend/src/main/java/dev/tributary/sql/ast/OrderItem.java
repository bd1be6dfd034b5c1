package dev.tributary.sql.ast;

/** {@code expr [ASC|DESC] [NULLS FIRST|LAST]}; {@code nulls} is DEFAULT when not written. */
public record OrderItem(int pos, Expr expr, boolean descending, Nulls nulls) implements Node {
    public enum Nulls { DEFAULT, FIRST, LAST }
}
