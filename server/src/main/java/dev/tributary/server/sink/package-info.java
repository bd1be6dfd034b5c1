/**
 * Sinks: a relation's changes delivered to an outside system. {@link dev.tributary.server.sink.HttpSink}
 * (with {@link dev.tributary.server.sink.ChangeBatchJson}) POSTs a subscription's batches at least
 * once, with idempotency keys, for {@code CREATE SINK ... INTO HTTP}; the Kafka writer
 * ({@link dev.tributary.server.sink.KafkaSinkWriter}) writes the changes and the sink's progress in
 * one Kafka transaction, exactly once, and has no CREATE SINK yet.
 */
package dev.tributary.server.sink;
