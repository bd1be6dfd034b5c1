package dev.tributary.sql.expr;

/** The binary operators {@link Operators#binary} resolves, with their SQL spelling. */
public enum BinaryOp {
    ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%"), POW("^"), CONCAT("||"),
    EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

    private final String symbol;

    BinaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isComparison() {
        return ordinal() >= EQ.ordinal();
    }
}
