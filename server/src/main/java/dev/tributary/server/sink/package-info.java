/**
 * Sinks: a relation's changes delivered to an outside system, by {@code CREATE SINK ... INTO KAFKA}
 * or {@code INTO HTTP}. The Kafka writer ({@link dev.tributary.server.sink.KafkaSinkWriter}:
 * transactions that carry the changes and the sink's progress together, exactly once), its
 * options and the envelopes that make messages of changes; {@link dev.tributary.server.sink.HttpSink}
 * (with {@link dev.tributary.server.sink.ChangeBatchJson}), which POSTs a subscription's batches at
 * least once, with idempotency keys. Their runtimes in the server are {@code KafkaSinkRunner} (a
 * Kafka sink is job-like, kept in {@code Jobs}) and {@code Sinks} (the HTTP sinks).
 */
package dev.tributary.server.sink;
