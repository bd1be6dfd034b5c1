/**
 * The half-join operator, correlated {@code AS OF SYSTEM TIME expr SINCE lit} lookups built on it, and temporal filters. Arrives with the history issue.
 */
package dev.tributary.asofjoin;
