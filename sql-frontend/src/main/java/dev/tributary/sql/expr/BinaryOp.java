package dev.tributary.sql.expr;

/** The binary operators {@link Operators#binary} resolves, with their SQL spelling. */
public enum BinaryOp {
    ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%"), POW("^"), CONCAT("||"),
    BIT_AND("&"), BIT_OR("|"), BIT_XOR("#"), SHIFT_LEFT("<<"), SHIFT_RIGHT(">>"),
    EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

    private final String symbol;

    BinaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** Comparison {@code op} ({@code "<"}, {@code ">="}, ...) with its operands swapped: {@code a < b} is {@code b > a}; any other name as it is. */
    public static String mirrored(String op) {
        return switch (op) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> op;
        };
    }

    public boolean isComparison() {
        return ordinal() >= EQ.ordinal();
    }
}
