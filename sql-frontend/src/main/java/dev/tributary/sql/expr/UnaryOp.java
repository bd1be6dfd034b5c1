package dev.tributary.sql.expr;

/** The prefix operators {@link Operators#unary} resolves: {@code -x}, {@code +x}, {@code NOT x}. */
public enum UnaryOp {
    NEG("-"), PLUS("+"), NOT("NOT");

    private final String symbol;

    UnaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }
}
