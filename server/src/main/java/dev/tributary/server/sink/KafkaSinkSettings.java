package dev.tributary.server.sink;

import java.util.List;
import java.util.Map;

/**
 * The options of a sink {@code INTO KAFKA (BROKERS 'host:port[,host:port]', TOPIC 'name'
 * [, PROGRESS TOPIC 'name'])}, checked.
 *
 * <p>The topic is made when missing (the brokers' default partitions and replication); the
 * progress topic ({@code <topic>-progress} by default) holds each write's upper time, in the
 * same Kafka transaction as its messages, and may be shared by sinks (see {@link KafkaSinkWriter}).
 */
public record KafkaSinkSettings(String brokers, String topic, String progressTopic) {
    /** The options INTO KAFKA takes. */
    public static final List<String> OPTIONS = List.of("BROKERS", "TOPIC", "PROGRESS TOPIC");

    public KafkaSinkSettings {
        if (brokers == null || brokers.isBlank()) {
            throw new IllegalArgumentException("INTO KAFKA needs its brokers: INTO KAFKA (BROKERS 'host:9092', TOPIC 'name')");
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("INTO KAFKA needs its topic: INTO KAFKA (BROKERS '" + brokers + "', TOPIC 'name')");
        }
        if (progressTopic != null && progressTopic.equals(topic)) {
            throw new IllegalArgumentException("PROGRESS TOPIC must differ from TOPIC '" + topic + "': the progress topic is compacted and read by key");
        }
    }

    /**
     * The settings the options (by upper-case name, as CREATE SINK gave them) hold.
     *
     * @throws IllegalArgumentException for a missing BROKERS or TOPIC, saying what to write instead
     */
    public static KafkaSinkSettings of(Map<String, String> options) {
        return new KafkaSinkSettings(options.get("BROKERS"), options.get("TOPIC"), options.get("PROGRESS TOPIC"));
    }
}
