/**
 * Typed scalar expressions and their resolution, following PostgreSQL 15.
 *
 * <p>A binder builds {@link dev.tributary.sql.expr.ScalarExpr} trees through the resolvers, never
 * by hand-assembling calls: {@link dev.tributary.sql.expr.Operators} (operators, IN, LIKE,
 * IS DISTINCT FROM, NULLIF, AND/OR/NOT), {@link dev.tributary.sql.expr.Functions} (built-in
 * functions, COALESCE/GREATEST/LEAST, the clock), {@link dev.tributary.sql.expr.Casts}
 * (CAST and assignment coercion), {@link dev.tributary.sql.expr.Types} (the common type of UNION,
 * CASE, VALUES) and {@link dev.tributary.sql.expr.Aggregates}. Untyped string literals enter as
 * {@code Literal(String, UNKNOWN)} and are read as the type resolution picks for them.
 *
 * <p>Before evaluation a planner may call {@link dev.tributary.sql.expr.ScalarExprs#fold} and must
 * call {@link dev.tributary.sql.expr.ScalarExprs#bindStatementTime} if the expression uses the
 * clock. Value formats and SQL order live in {@link dev.tributary.sql.types.Values}.
 */
package dev.tributary.sql.expr;
