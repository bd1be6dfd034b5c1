/**
 * The timely dataflow runtime: workers, dataflow graphs, operators, capabilities, progress
 * tracking, frontiers, exchange channels and probes.
 */
package dev.tributary.timely;
