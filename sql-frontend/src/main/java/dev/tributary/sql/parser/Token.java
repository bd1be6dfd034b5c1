package dev.tributary.sql.parser;

/**
 * One lexical token. {@code value} is the meaning: an identifier folded to lower case (or as
 * quoted), a string literal's contents, a number's digits, an operator's symbol.
 * {@code start} and {@code end} are 0-based offsets into the whole input, end exclusive.
 */
record Token(Type type, String value, int start, int end) {
    enum Type { IDENT, QUOTED_IDENT, STRING, INTEGER, NUMBER, PARAM, OP, LPAREN, RPAREN, COMMA, SEMI, DOT,
        COLON, CAST, LBRACKET, RBRACKET, EOF }

    /** Whether this is the unquoted word {@code kw} (lower case), in any spelling. */
    boolean isKeyword(String kw) {
        return type == Type.IDENT && value.equals(kw);
    }

    boolean isOp(String op) {
        return type == Type.OP && value.equals(op);
    }
}
