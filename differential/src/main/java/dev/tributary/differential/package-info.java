/**
 * The {@code Collection} API and its operators (map, filter, join, reduce, iterate, ...): incremental computation over timestamped {@code (data, time, diff)} updates. Arrives with the differential issue.
 */
package dev.tributary.differential;
