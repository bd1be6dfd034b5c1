/**
 * The SQL syntax tree: what the parser read, before names and types are resolved.
 *
 * <p>Statements, queries, table references and expressions are sealed families of records, so
 * a consumer switching over them is told by the compiler when a new form appears.
 */
package dev.tributary.sql.ast;
