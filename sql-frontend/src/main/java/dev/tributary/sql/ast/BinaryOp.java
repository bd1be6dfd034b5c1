package dev.tributary.sql.ast;

/** Binary operators, with the text PostgreSQL writes for each. */
public enum BinaryOp {
    OR("OR"), AND("AND"),
    EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">="),
    CONCAT("||"), MATCH("~"), IMATCH("~*"), NOT_MATCH("!~"), NOT_IMATCH("!~*"),
    ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%"), POW("^"),
    BIT_AND("&"), BIT_OR("|"), BIT_XOR("#"), SHIFT_LEFT("<<"), SHIFT_RIGHT(">>"),
    JSON_GET("->"), JSON_GET_TEXT("->>"), JSON_PATH("#>"), JSON_PATH_TEXT("#>>"), CONTAINS("@>"), CONTAINED_BY("<@"),
    HAS_KEY("?"), HAS_ANY_KEY("?|"), HAS_ALL_KEYS("?&"), DELETE_PATH("#-"), JSONPATH_EXISTS("@?"), JSONPATH_MATCH("@@");

    private final String symbol;

    BinaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isComparison() {
        return this == EQ || this == NE || this == LT || this == LE || this == GT || this == GE;
    }
}
