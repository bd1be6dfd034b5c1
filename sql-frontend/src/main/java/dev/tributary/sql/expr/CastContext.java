package dev.tributary.sql.expr;

/**
 * Where a conversion happens, which decides which casts apply (PostgreSQL's {@code pg_cast.castcontext}).
 *
 * <p>IMPLICIT: inside an expression (operator and function arguments, CASE branches).
 * ASSIGNMENT: storing into a column (INSERT, UPDATE); also allows the implicit casts.
 * EXPLICIT: {@code CAST(x AS t)} and {@code x::t}; allows every cast. The order of the constants
 * is the order of permissiveness.
 */
public enum CastContext {
    IMPLICIT,
    ASSIGNMENT,
    EXPLICIT
}
