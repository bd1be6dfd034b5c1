/**
 * A sqllogictest runner: runs {@code .slt}/{@code .test} files in the public format against an
 * in-memory Tributary, and with {@code --views} checks that every query, maintained as a
 * materialized view from the moment its tables exist, equals the same query run once.
 */
package dev.tributary.server.slt;
