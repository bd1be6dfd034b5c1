/**
 * The coordinator (catalog, timestamp oracle, sessions), the embedded Java API, the PostgreSQL wire protocol server and the {@code tributary} command. Arrives with the SQL and wire-protocol issues.
 */
package dev.tributary.server;
