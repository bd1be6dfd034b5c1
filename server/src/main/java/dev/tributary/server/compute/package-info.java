/**
 * The compute side of one database: the worker threads, each worker's dataflows (one per table,
 * materialized view and index, and short-lived ones for queries and subscriptions, with their
 * as-of and frontiers), and the index shards the workers publish for point reads.
 *
 * <p>{@link dev.tributary.server.compute.ComputeController} is the coordinator's only way to them:
 * every statement reaches the workers through its commands, which are called under the
 * coordinator's lock so that every worker gets them in the same order. What else is public here
 * is what those commands take and return: a read run on every worker
 * ({@link dev.tributary.server.compute.Dataflows}' reads and their parts), the published shards
 * ({@link dev.tributary.server.compute.PublishedIndexes}), which connection threads read without
 * the lock, and a dataflow's memory limit ({@link dev.tributary.server.compute.DataflowMemory}).
 */
package dev.tributary.server.compute;
