/**
 * Correlated {@code AS OF SYSTEM TIME expr SINCE lit} lookups ({@link dev.tributary.asofjoin.AsOfJoin}),
 * on the half-join operator of {@code differential}. The SQL form and temporal filters arrive with
 * the rest of the history issue.
 */
package dev.tributary.asofjoin;
