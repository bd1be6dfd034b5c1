package dev.tributary.server.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.source.KafkaTestCase;
import dev.tributary.server.source.TestKafka;
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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The Kafka sink's writer against a real broker: what a {@code read_committed} reader sees of the
 * topic is exactly the committed writes, a new writer resumes at the last committed upper, and
 * an older writer (a zombie of a crashed server) is fenced, its open transaction aborted.
 */
class KafkaSinkWriterTest extends KafkaTestCase {


    private static List<ProducerRecord<byte[], byte[]>> messages(String topic, String... values) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (String v : values) out.add(TestKafka.record(topic, 0, null, v));
        return out;
    }

    /** Every committed message of the topic's partition 0, as text. */
    private static List<String> committed(String topic) {
        TopicPartition p = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = kafka.consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            c.assign(List.of(p));
            long end = c.endOffsets(List.of(p)).get(p);
            List<String> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (c.position(p) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) out.add(new String(r.value(), StandardCharsets.UTF_8));
            }
            return out;
        }
    }

    @Test
    void writesAreCommittedWithTheirProgressAndANewWriterResumesAfterThem() throws Exception {
        kafka.createTopic("out", 1);
        try (KafkaSinkWriter w = KafkaSinkWriter.open("s1", kafka.bootstrapServers(), "out", null)) {
            assertThat(w.resumeFrom()).isEqualTo(-1);
            w.write(messages("out", "a", "b"), 10);
            w.write(messages("out"), 11);
            w.write(messages("out", "c"), 20);
        }
        assertThat(committed("out")).containsExactly("a", "b", "c");
        assertThat(kafka.topics()).contains("out-progress");
        try (KafkaSinkWriter w = KafkaSinkWriter.open("s1", kafka.bootstrapServers(), "out", null);
             KafkaSinkWriter other = KafkaSinkWriter.open("s2", kafka.bootstrapServers(), "out", null)) {
            assertThat(w.resumeFrom()).isEqualTo(20);
            // sinks sharing the progress topic each have their own progress
            assertThat(other.resumeFrom()).isEqualTo(-1);
        }
    }

    @Test
    void aNewWriterFencesTheOldOneAndAbortsItsOpenTransaction() throws Exception {
        kafka.createTopic("fenced", 1);
        KafkaSinkWriter old = KafkaSinkWriter.open("f", kafka.bootstrapServers(), "fenced", null);
        old.write(messages("fenced", "kept"), 5);

        // a crashed server's writer with a transaction open: its message and progress sent, not committed
        KafkaProducer<byte[], byte[]> open = kafka.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tributary-sink-f"));
        open.initTransactions(); // fences `old` already, as a newer server's writer would
        open.beginTransaction();
        open.send(TestKafka.record("fenced", 0, null, "never"));
        open.send(new ProducerRecord<>("fenced-progress", 0, "f".getBytes(StandardCharsets.UTF_8), "9".getBytes(StandardCharsets.UTF_8)));
        open.flush();

        try (KafkaSinkWriter next = KafkaSinkWriter.open("f", kafka.bootstrapServers(), "fenced", null)) {
            // the open transaction was aborted: its progress does not count, its message is not seen
            assertThat(next.resumeFrom()).isEqualTo(5);
            next.write(messages("fenced", "after"), 7);
            assertThatThrownBy(() -> old.write(messages("fenced", "zombie"), 6)).isInstanceOf(KafkaSinkWriter.FencedOut.class);
        } finally {
            open.close(Duration.ZERO);
            old.close();
        }
        assertThat(committed("fenced")).containsExactly("kept", "after");
    }
}
