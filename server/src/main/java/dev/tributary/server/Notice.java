package dev.tributary.server;

/**
 * A message a statement sends beside its result without failing, as PostgreSQL's NoticeResponse:
 * {@code DROP TABLE IF EXISTS missing} tells {@code table "missing" does not exist, skipping}.
 *
 * @param severity {@code NOTICE} or {@code WARNING}
 * @param sqlState the SQLSTATE, {@code 00000} for a plain notice
 * @param message the text, in PostgreSQL's words
 * @param detail PostgreSQL's DETAIL, or null
 */
public record Notice(String severity, String sqlState, String message, String detail) {
    public Notice(String severity, String sqlState, String message) {
        this(severity, sqlState, message, null);
    }

    /** This notice with DETAIL {@code detail}. */
    public Notice withDetail(String detail) {
        return new Notice(severity, sqlState, message, detail);
    }

    /** A {@code NOTICE}. */
    public static Notice notice(String sqlState, String message) {
        return new Notice("NOTICE", sqlState, message);
    }

    /** The notice as psql prints it: {@code NOTICE:  message}. */
    public String render() {
        return severity + ":  " + message + (detail == null ? "" : "\nDETAIL:  " + detail);
    }
}
