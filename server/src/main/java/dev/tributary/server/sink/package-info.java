/**
 * Sinks: a relation's changes written to an outside system exactly once. For now only the Kafka
 * writer ({@link dev.tributary.server.sink.KafkaSinkWriter}): transactions that carry the changes
 * and the sink's progress together; CREATE SINK is not built yet.
 */
package dev.tributary.server.sink;
