package dev.tributary.server.source;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options of a source {@code FROM KAFKA (BROKERS 'host:port[,host:port]', TOPIC 'name'
 * [, START OFFSET 'earliest' | 'latest'] [, GROUP 'id'])}, checked.
 *
 * <p>{@code START OFFSET} says where the source begins in the partitions the topic has when the
 * source is made (earliest by default); partitions added later are read from their beginning,
 * and after a restart every partition resumes after its committed position. {@code GROUP} only
 * names the consumer to the brokers (their quotas, ACLs and monitoring): the source never joins
 * the group nor commits offsets to it, since its positions live in its own progress table.
 */
public record KafkaSettings(String brokers, String topic, boolean startAtLatest, String group) {
    /** The options FROM KAFKA takes. */
    public static final List<String> OPTIONS = List.of("BROKERS", "TOPIC", "START OFFSET", "GROUP");

    public KafkaSettings {
        if (brokers == null || brokers.isBlank()) {
            throw new IllegalArgumentException("FROM KAFKA needs its brokers: FROM KAFKA (BROKERS 'host:9092', TOPIC 'name')");
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("FROM KAFKA needs its topic: FROM KAFKA (BROKERS '" + brokers + "', TOPIC 'name')");
        }
    }

    /**
     * The settings the options (by upper-case name, as CREATE SOURCE gave them) hold.
     *
     * @throws IllegalArgumentException for a missing BROKERS or TOPIC or a START OFFSET that is
     *     neither earliest nor latest, saying what to write instead
     */
    public static KafkaSettings of(Map<String, String> options) {
        String start = options.getOrDefault("START OFFSET", "earliest").toLowerCase(Locale.ROOT);
        boolean latest = switch (start) {
            case "earliest" -> false;
            case "latest" -> true;
            default -> throw new IllegalArgumentException("START OFFSET is 'earliest' or 'latest', not '" + options.get("START OFFSET")
                    + "'; a source resumes at its own committed offsets after a restart whatever it says");
        };
        return new KafkaSettings(options.get("BROKERS"), options.get("TOPIC"), latest, options.get("GROUP"));
    }
}
