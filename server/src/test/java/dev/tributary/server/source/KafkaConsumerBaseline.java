package dev.tributary.server.source;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The ingest baseline: how fast Kafka's own consumer reads a topic of JSON records on this
 * machine, to set a Kafka source's rate beside in the same run.
 *
 * <p>Not a test of anything: {@link #consumerRate()} runs only when asked, and prints.
 * <pre>
 * mvn -o -q test -pl server -Dtest=KafkaConsumerBaseline -Dkafka.bench.records=1000000
 * </pre>
 * The consumer reads byte arrays and touches every value (its length added up), as a source
 * must at least do before it decodes; fetch sizes are the client's defaults but for
 * {@code max.poll.records}, raised to 10,000 as the source will.
 */
public final class KafkaConsumerBaseline {

    /** A measured read: how many records and their bytes, in how many nanoseconds. */
    public record Rate(long records, long bytes, long nanos) {
        public double recordsPerSecond() {
            return records * 1e9 / nanos;
        }

        @Override
        public String toString() {
            return String.format("%,d records (%,d MB) in %.2f s: %,.0f records/s",
                    records, bytes >> 20, nanos / 1e9, recordsPerSecond());
        }
    }

    /** Fills partition 0.. of a topic with {@code n} JSON records, round robin; waits for all. */
    public static void produceJson(TestKafka kafka, String topic, int partitions, long n) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer(Map.of(
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "none"))) {
            for (long i = 0; i < n; i++) {
                producer.send(TestKafka.record(topic, (int) (i % partitions), null, json(i)));
            }
            producer.flush();
        }
    }

    /** The i-th record of the benchmark's topic: an order of about 75 bytes. */
    public static String json(long i) {
        return "{\"id\":" + i + ",\"customer\":\"c" + (i % 1000) + "\",\"amount\":" + (i % 997)
                + ",\"note\":\"order number " + i + "\"}";
    }

    /**
     * Reads a topic from the beginning of every partition with Kafka's consumer (assigned, no
     * group) until {@code expected} records came.
     */
    public static Rate consume(String bootstrapServers, String topic, long expected) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
        long t0 = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long records = 0;
            long bytes = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (records < expected) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("read " + records + " of " + expected
                            + " records of " + topic + " in 5 minutes");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    records++;
                    bytes += r.value().length;
                }
            }
            return new Rate(records, bytes, System.nanoTime() - t0);
        }
    }

    @Test
    @EnabledIfSystemProperty(named = "kafka.bench.records", matches = "\\d+")
    void consumerRate() throws Exception {
        long n = Long.getLong("kafka.bench.records");
        int partitions = Integer.getInteger("kafka.bench.partitions", 4);
        try (TestKafka kafka = TestKafka.start()) {
            kafka.createTopic("bench", partitions);
            long t0 = System.nanoTime();
            produceJson(kafka, "bench", partitions, n);
            System.out.printf("produced %,d JSON records into %d partitions in %.2f s%n",
                    n, partitions, (System.nanoTime() - t0) / 1e9);
            for (int run = 1; run <= 3; run++) {
                System.out.println("Kafka consumer, run " + run + ": " + consume(kafka.bootstrapServers(), "bench", n));
            }
        }
        System.out.println("one JSON record: " + json(123456).getBytes(StandardCharsets.UTF_8).length + " bytes");
    }
}
