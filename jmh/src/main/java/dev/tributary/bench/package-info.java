/**
 * JMH benchmarks; figures are recorded in {@code docs/BENCHMARKS.md}.
 */
package dev.tributary.bench;
