package dev.tributary.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a sink wrote to a topic, as a {@code read_committed} consumer sees it: every committed
 * message from the beginning to the end (the last stable offset) of each partition, in order.
 */
record SinkMessages(List<Message> messages) {
    /**
     * A message: its partition, its change's time (the sink's header), its key and value (null: a
     * tombstone) as text, and the value's bytes (FORMAT PROTOBUF's are no text).
     */
    record Message(int partition, long time, String key, String value, long appendMillis, byte[] valueBytes) {}

    /** Reads {@code topic} on {@code brokers} with read_committed up to its current end. */
    static SinkMessages read(String brokers, String topic) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        List<Message> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(p -> consumer.position(p, Duration.ofSeconds(30)) < ends.get(p))) {
                if (System.nanoTime() > deadline) throw new AssertionError("could not read " + topic + " to its end " + ends);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= ends.get(new TopicPartition(topic, r.partition()))) continue;
                    Header h = r.headers().lastHeader(KafkaSinkRunner.TIME_HEADER);
                    out.add(new Message(r.partition(), h == null ? -1 : Long.parseLong(new String(h.value(), StandardCharsets.UTF_8)), text(r.key()), text(r.value()),
                            r.timestamp(), r.value()));
                }
            }
        }
        return new SinkMessages(out);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** Each message as {@code key -> value} (value {@code null} for a tombstone), in order. */
    List<String> keyValues() {
        return messages.stream().map(m -> m.key() + " -> " + m.value()).toList();
    }

    /** The latest value per key, tombstones removing the key: the relation an upsert reader keeps. */
    Map<String, String> upserted() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Message m : messages) {
            if (m.value() == null) out.remove(m.key());
            else out.put(m.key(), m.value());
        }
        return out;
    }

    /** The messages per key, in order. */
    Map<String, List<Message>> byKey() {
        Map<String, List<Message>> out = new LinkedHashMap<>();
        for (Message m : messages) out.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m);
        return out;
    }
}
