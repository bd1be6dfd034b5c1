/**
 * Roles and their passwords: the role registry, SCRAM-SHA-256 verifiers (RFC 5802, RFC 7677) and
 * both sides of the SCRAM exchange, used by the PostgreSQL protocol server and its client.
 */
package dev.tributary.server.auth;
