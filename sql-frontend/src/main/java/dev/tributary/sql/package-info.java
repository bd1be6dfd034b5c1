/**
 * Lexer, parser, binder, logical plan, optimizer and lowering of SQL to differential dataflows. Arrives with the SQL issue.
 */
package dev.tributary.sql;
