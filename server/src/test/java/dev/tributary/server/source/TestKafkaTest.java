package dev.tributary.server.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The in-process broker works as a broker: plain and transactional records go in and come out. */
class TestKafkaTest {

    private static TestKafka kafka;

    @BeforeAll
    static void start() throws Exception {
        long t0 = System.nanoTime();
        kafka = TestKafka.start();
        // the figure TestKafka's Javadoc quotes
        System.out.printf("TestKafka started in %d ms at %s%n",
                (System.nanoTime() - t0) / 1_000_000, kafka.bootstrapServers());
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void producedRecordsAreConsumedFromEveryPartitionInOrder() throws Exception {
        kafka.createTopic("plain", 3);
        List<RecordMetadata> sent = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            sent.addAll(kafka.produce("plain", p, "a" + p, "b" + p));
        }
        assertThat(sent).extracting(RecordMetadata::offset).containsExactly(0L, 1L, 0L, 1L, 0L, 1L);

        try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumer(Map.of())) {
            List<TopicPartition> partitions = List.of(
                    new TopicPartition("plain", 0), new TopicPartition("plain", 1), new TopicPartition("plain", 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<byte[], byte[]>> got = pollUntil(consumer, 6);
            assertThat(got).hasSize(6);
            for (int p = 0; p < 3; p++) {
                int partition = p;
                assertThat(got.stream().filter(r -> r.partition() == partition).map(TestKafkaTest::value))
                        .containsExactly("a" + p, "b" + p);
            }
        }
    }

    @Test
    void readCommittedSeesCommittedTransactionsOnly() throws Exception {
        kafka.createTopic("txn", 1);
        try (KafkaProducer<byte[], byte[]> producer =
                kafka.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "test-txn"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(TestKafka.record("txn", 0, null, "kept-1"));
            producer.send(TestKafka.record("txn", 0, null, "kept-2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(TestKafka.record("txn", 0, null, "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(TestKafka.record("txn", 0, null, "kept-3"));
            producer.commitTransaction();
        }

        TopicPartition tp = new TopicPartition("txn", 0);
        try (KafkaConsumer<byte[], byte[]> committed =
                     kafka.consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
             KafkaConsumer<byte[], byte[]> uncommitted =
                     kafka.consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"))) {
            committed.assign(List.of(tp));
            uncommitted.assign(List.of(tp));
            assertThat(pollUntil(committed, 3)).extracting(TestKafkaTest::value)
                    .containsExactly("kept-1", "kept-2", "kept-3");
            assertThat(pollUntil(uncommitted, 4)).extracting(TestKafkaTest::value)
                    .containsExactly("kept-1", "kept-2", "aborted", "kept-3");
            // transaction markers take offsets too: the end is past the last record
            assertThat(committed.position(tp)).isGreaterThan(3);
        }
    }

    @Test
    void partitionsAddedLaterAreListed() throws Exception {
        kafka.createTopic("grows", 1);
        kafka.addPartitions("grows", 4);
        // the broker's metadata follows the controller's a moment later
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int partitions;
        do {
            partitions = kafka.admin().describeTopics(List.of("grows")).allTopicNames().get()
                    .get("grows").partitions().size();
        } while (partitions < 4 && System.nanoTime() < deadline);
        assertThat(partitions).isEqualTo(4);
        assertThat(kafka.topics()).contains("grows");
    }

    /** Polls until at least {@code n} records came or 30 s passed; returns what came. */
    static List<ConsumerRecord<byte[], byte[]>> pollUntil(KafkaConsumer<byte[], byte[]> consumer, int n) {
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (got.size() < n && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(got::add);
        }
        return got;
    }

    private static String value(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.value(), StandardCharsets.UTF_8);
    }
}
