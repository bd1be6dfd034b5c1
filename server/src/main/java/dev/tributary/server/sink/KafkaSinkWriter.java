package dev.tributary.server.sink;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a relation's changes into a Kafka topic exactly once: each {@link #write} puts its
 * messages and a progress message (the sink's name as key, the upper time written as value) in
 * one Kafka transaction, so a {@code read_committed} reader sees both or neither, and a writer
 * opened after a crash reads back the upper of the last committed transaction
 * ({@link #resumeFrom}) and goes on from there: nothing lost, nothing twice.
 *
 * <p>Every writer of a sink has the same transactional id ({@code tributary-sink-<name>}):
 * opening one fences every older writer of the sink (Kafka aborts the older one's open
 * transaction and refuses its later commits, {@link FencedOut}), and the progress is read only
 * after that, so no older writer can commit once it is read. The progress topic
 * ({@code <topic>-progress} unless named) has one partition, compacted, and may be shared by
 * sinks; it is created when missing.
 *
 * <p>The sink's topic and the progress topic are made when missing. The writer of
 * {@code CREATE SINK ... INTO KAFKA} (see the server's {@code KafkaSinkRunner}). Not thread-safe: one thread
 * writes.
 */
public final class KafkaSinkWriter implements AutoCloseable {
    private static final Duration REQUEST = Duration.ofSeconds(30);

    /** Thrown by {@link #write} when a newer writer of the same sink took over: this one must stop. */
    public static final class FencedOut extends RuntimeException {
        FencedOut(String sink, Throwable cause) {
            super("another writer of sink " + sink + " took over (transactional id tributary-sink-" + sink + "): this one writes nothing more", cause);
        }
    }

    private final String sink;
    private final String progressTopic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final long resumeFrom;

    private KafkaSinkWriter(String sink, String progressTopic, KafkaProducer<byte[], byte[]> producer, long resumeFrom) {
        this.sink = sink;
        this.progressTopic = progressTopic;
        this.producer = producer;
        this.resumeFrom = resumeFrom;
    }

    /**
     * Opens the writer of sink {@code sink} on {@code brokers}: fences the older writers, then
     * reads where the last committed transaction ended. {@code progressTopic} null means
     * {@code topic + "-progress"}.
     */
    public static KafkaSinkWriter open(String sink, String brokers, String topic, String progressTopic)
            throws ExecutionException, InterruptedException {
        String progress = progressTopic != null ? progressTopic : topic + "-progress";
        ensureTopics(brokers, topic, progress);
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tributary-sink-" + sink);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "tributary-sink-" + sink);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // a broker that does not answer fails a call within seconds (the sink opens another
        // writer and tries again) instead of blocking its thread for Kafka's default minute
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config);
        try {
            // fences older writers and ends their open transaction before the progress is read
            producer.initTransactions();
            return new KafkaSinkWriter(sink, progress, producer, readProgress(sink, brokers, progress));
        } catch (RuntimeException | Error e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    /** The upper time of the last committed write: every change before it is in the topic; -1 before the first write. */
    public long resumeFrom() {
        return resumeFrom;
    }

    /**
     * Writes {@code messages} (the changes at times before {@code upper} that the last write did
     * not hold) and moves the sink's progress to {@code upper}, in one transaction; returns once
     * it is committed. On a failure the transaction is aborted (nothing of it is visible) and the
     * exception thrown: the caller opens a new writer and resumes from its {@link #resumeFrom}.
     *
     * @throws FencedOut when a newer writer of the sink took over
     */
    public void write(List<ProducerRecord<byte[], byte[]>> messages, long upper) {
        try {
            producer.beginTransaction();
            for (ProducerRecord<byte[], byte[]> m : messages) producer.send(m);
            producer.send(new ProducerRecord<>(progressTopic, 0, bytes(sink), bytes(Long.toString(upper))));
            producer.commitTransaction();
        } catch (ProducerFencedException e) {
            throw new FencedOut(sink, e);
        } catch (RuntimeException e) {
            try {
                producer.abortTransaction();
            } catch (ProducerFencedException fenced) {
                throw new FencedOut(sink, fenced);
            } catch (RuntimeException abortFailed) {
                e.addSuppressed(abortFailed);
            }
            throw e;
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Makes the sink's topic (the brokers' default partitions) and its progress topic when missing. */
    private static void ensureTopics(String brokers, String topic, String progressTopic) throws ExecutionException, InterruptedException {
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(config)) {
            java.util.Set<String> names = admin.listTopics().names().get();
            List<NewTopic> missing = new java.util.ArrayList<>();
            if (!names.contains(topic)) missing.add(new NewTopic(topic, java.util.Optional.empty(), java.util.Optional.empty()));
            // one partition: a sink's progress is one key's latest value, read from the start
            if (!names.contains(progressTopic)) {
                missing.add(new NewTopic(progressTopic, java.util.Optional.of(1), java.util.Optional.empty()).configs(Map.of("cleanup.policy", "compact")));
            }
            for (var created : admin.createTopics(missing).values().values()) {
                try {
                    created.get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) throw e;
                }
            }
        }
    }

    /** The last committed progress of {@code sink}: the progress topic read from its start to its end, committed messages only. */
    private static long readProgress(String sink, String brokers, String topic) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            TopicPartition p = new TopicPartition(topic, 0);
            consumer.assign(List.of(p));
            consumer.seekToBeginning(List.of(p));
            // read_committed: the end is the last stable offset, past every transaction decided
            long end = consumer.endOffsets(List.of(p), REQUEST).get(p);
            byte[] key = bytes(sink);
            long upper = -1;
            long deadline = System.nanoTime() + REQUEST.toNanos();
            while (consumer.position(p, REQUEST) < end) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read the progress topic " + topic + " to its end (offset " + end + ") within "
                            + REQUEST.toSeconds() + " s: is another sink's transaction open on it?");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end && java.util.Arrays.equals(r.key(), key) && r.value() != null) {
                        upper = Long.parseLong(new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
            }
            return upper;
        }
    }
}
