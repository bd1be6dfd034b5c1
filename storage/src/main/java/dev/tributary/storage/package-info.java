/**
 * Durable shards (blob + consensus), cursors and offsets, checkpoints and recovery, sources and sinks. Arrives with the storage issue.
 */
package dev.tributary.storage;
