/**
 * SQL text to syntax tree and back: {@link dev.tributary.sql.parser.Parser} reads Tributary's
 * PostgreSQL dialect into {@link dev.tributary.sql.ast} records, reporting every problem as a
 * {@link dev.tributary.sql.SqlException} with PostgreSQL's SQLSTATE, wording and position;
 * {@link dev.tributary.sql.parser.SqlFormatter} prints a tree as canonical SQL that parses back
 * to the same tree.
 */
package dev.tributary.sql.parser;
