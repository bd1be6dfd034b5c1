/**
 * Sinks: a relation's changes written to an outside system exactly once. The Kafka writer
 * ({@link dev.tributary.server.sink.KafkaSinkWriter}: transactions that carry the changes and the
 * sink's progress together), its options and the envelopes that make messages of changes; the
 * runtime of CREATE SINK is the server's {@code Sinks}.
 */
package dev.tributary.server.sink;
