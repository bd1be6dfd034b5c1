package dev.tributary.sql;

/**
 * An error reported to a SQL user: a PostgreSQL SQLSTATE code, a message in PostgreSQL's voice,
 * and where in the statement text it happened.
 *
 * <p>{@code position} is the 1-based character offset into the statement text, as PostgreSQL's
 * {@code P} error field, or 0 when the error is not tied to a place in the text (a data error
 * found while evaluating a row, a catalog conflict). Every error a user can cause by what they
 * type or store is one of these; anything else escaping the engine is a bug.
 */
public class SqlException extends RuntimeException {
    private final String sqlState;
    private final int position;
    private final String hint;
    private String detail;
    private String context;

    public SqlException(String sqlState, String message) {
        this(sqlState, message, 0, null);
    }

    public SqlException(String sqlState, String message, int position) {
        this(sqlState, message, position, null);
    }

    public SqlException(String sqlState, String message, int position, String hint) {
        super(message);
        this.sqlState = sqlState;
        this.position = position;
        this.hint = hint;
    }

    /** The five-character SQLSTATE, e.g. {@code 42P01}. */
    public String sqlState() {
        return sqlState;
    }

    /** 1-based character offset into the statement, or 0 when not tied to the text. */
    public int position() {
        return position;
    }

    /** A hint for the user, or null. */
    public String hint() {
        return hint;
    }

    /** A detail line for the user (PostgreSQL's {@code DETAIL}), or null. */
    public String detail() {
        return detail;
    }

    /** This error with a detail line; returns {@code this}. */
    public SqlException withDetail(String detail) {
        this.detail = detail;
        return this;
    }

    /** The same error placed at {@code position}, unless it already has a place. */
    /** Where the error happened, beyond the statement text (PostgreSQL's {@code CONTEXT}, e.g. a COPY's line), or null. */
    public String context() {
        return context;
    }

    /** This error with a context line; returns {@code this}. */
    public SqlException withContext(String context) {
        this.context = context;
        return this;
    }

    public SqlException at(int position) {
        if (this.position != 0 || position == 0) return this;
        SqlException e = new SqlException(sqlState, getMessage(), position, hint);
        e.detail = detail;
        e.context = context;
        e.setStackTrace(getStackTrace());
        return e;
    }

    /**
     * The error as psql prints it: {@code ERROR:  42P01: message}, then the statement line with a
     * caret under the position when {@code sql} is given and the error has a position, then the hint.
     */
    public String render(String sql) {
        StringBuilder b = new StringBuilder("ERROR:  ").append(sqlState).append(": ").append(getMessage());
        if (sql != null && position > 0 && position <= sql.length() + 1) {
            int p = position - 1;
            int lineStart = sql.lastIndexOf('\n', Math.max(0, p - 1)) + 1;
            if (p < lineStart) lineStart = 0;
            int lineEnd = sql.indexOf('\n', p);
            if (lineEnd < 0) lineEnd = sql.length();
            int lineNo = 1;
            for (int i = 0; i < lineStart; i++) if (sql.charAt(i) == '\n') lineNo++;
            String prefix = "LINE " + lineNo + ": ";
            b.append('\n').append(prefix).append(sql, lineStart, lineEnd);
            b.append('\n').append(" ".repeat(prefix.length() + p - lineStart)).append('^');
        }
        if (detail != null) b.append("\nDETAIL:  ").append(detail);
        if (hint != null) b.append("\nHINT:  ").append(hint);
        if (context != null) b.append("\nCONTEXT:  ").append(context);
        return b.toString();
    }
}
