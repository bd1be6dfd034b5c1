package dev.tributary.server.source;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Apache Kafka broker in the test JVM: one node in KRaft mode that is both broker and
 * controller, listening on free loopback ports, its log and metadata in a temporary folder.
 *
 * <p>Contract: after {@link #start()} returns, {@link #bootstrapServers()} accepts clients and
 * the broker is ready for topics, consumer offsets and transactions (their internal topics
 * replicated once, as a single broker can); {@link #close()} stops the node and deletes the
 * folder. Each instance is a cluster of its own, so tests do not share topics.
 *
 * <p>Kafka's own server ({@code kafka.server.KafkaRaftServer} from kafka_2.13), formatted as
 * {@code kafka-storage format} would; no container, nothing but Maven Central. (Kafka's
 * {@code KafkaClusterTestKit} makes SSL trust stores even for plain text, through the clients'
 * test jar, which is not published for 4.4.0.) A start takes about 1.5 s on the shared two-core
 * machine ({@code TestKafkaTest} prints it).
 */
public final class TestKafka implements AutoCloseable {

    private static final int NODE_ID = 1;
    private static final int ATTEMPTS = 3;

    private final KafkaConfig config;
    private volatile KafkaRaftServer server;
    private final Path directory;
    private final String bootstrapServers;
    private final Admin admin;

    private TestKafka(KafkaConfig config, KafkaRaftServer server, Path directory, String bootstrapServers) {
        this.config = config;
        this.server = server;
        this.directory = directory;
        this.bootstrapServers = bootstrapServers;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** Formats and starts a one-node cluster and waits until its broker answers. */
    public static TestKafka start() throws Exception {
        quietBroker();
        // a fatal fault in the broker halts the process through Kafka's Exit: in a test JVM it
        // must fail the test instead
        Exit.setExitProcedure((status, message) -> {
            throw new IllegalStateException("the Kafka broker exited (" + status + "): " + message);
        });
        Exit.setHaltProcedure((status, message) -> {
            throw new IllegalStateException("the Kafka broker halted (" + status + "): " + message);
        });
        // the ports are found free and then bound by the broker: another process may take one
        // in between, so a failed bind is tried again on new ports
        Exception last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Path directory = Files.createTempDirectory("tributary-kafka-");
            KafkaRaftServer server = null;
            try {
                int brokerPort = freePort();
                int controllerPort = freePort();
                Path log = directory.resolve("log");
                Map<String, Object> config = new HashMap<>();
                config.put("process.roles", "broker,controller");
                config.put("node.id", String.valueOf(NODE_ID));
                config.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
                config.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
                config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
                config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
                config.put("controller.listener.names", "CONTROLLER");
                config.put("inter.broker.listener.name", "PLAINTEXT");
                config.put("log.dirs", log.toString());
                // one broker: internal topics cannot have the default three replicas
                config.put("offsets.topic.replication.factor", "1");
                config.put("offsets.topic.num.partitions", "1");
                config.put("transaction.state.log.replication.factor", "1");
                config.put("transaction.state.log.min.isr", "1");
                config.put("transaction.state.log.num.partitions", "1");
                config.put("group.initial.rebalance.delay.ms", "0");
                config.put("num.partitions", "1");
                // small segments and indexes: tests write little, and a 10 MB index per
                // partition is preallocated otherwise
                config.put("log.segment.bytes", String.valueOf(64 << 20));
                config.put("log.index.size.max.bytes", String.valueOf(1 << 20));
                config.put("log.cleaner.dedupe.buffer.size", String.valueOf(2 << 20));
                KafkaConfig kafkaConfig = new KafkaConfig(config);

                new Formatter()
                        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                        .setNodeId(NODE_ID)
                        .setClusterId(Uuid.randomUuid().toString())
                        .setDirectories(List.of(log.toString()))
                        .setMetadataLogDirectory(log.toString())
                        .setControllerListenerName("CONTROLLER")
                        .setReleaseVersion(MetadataVersion.latestProduction())
                        .run();

                server = new KafkaRaftServer(kafkaConfig, Time.SYSTEM);
                server.startup();
                TestKafka kafka = new TestKafka(kafkaConfig, server, directory, "127.0.0.1:" + brokerPort);
                kafka.awaitReady();
                return kafka;
            } catch (Exception e) {
                if (server != null) {
                    server.shutdown();
                    server.awaitShutdown();
                }
                deleteTree(directory);
                last = e;
                if (!(rootCause(e) instanceof BindException)) {
                    throw e;
                }
            }
        }
        throw last;
    }

    /** Stops the node, keeping its data: clients find no broker until {@link #restartBroker}. */
    public void stopBroker() {
        server.shutdown();
        server.awaitShutdown();
    }

    /** Starts the node stopped by {@link #stopBroker} again, on the same ports and data, and waits until it serves. */
    public void restartBroker() throws InterruptedException, ExecutionException {
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        awaitReady();
    }

    /** Waits until the broker has registered and serves metadata. */
    private void awaitReady() throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (TimeoutException notYet) {
                // asked again below
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Kafka broker at " + bootstrapServers
                        + " did not register within 60 s");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The broker's own packages log every partition it creates at INFO, and at ERROR the
     * partitions added to a topic (Kafka's bookkeeping, not a fault): tests keep its errors only,
     * and the producers' errors only.
     */
    private static void quietBroker() {
        var context = (ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        for (String name : List.of("kafka", "org.apache.kafka.controller", "org.apache.kafka.raft",
                "org.apache.kafka.server", "org.apache.kafka.metadata", "org.apache.kafka.image",
                "org.apache.kafka.storage", "org.apache.kafka.coordinator",
                // the tests' producers retry sends to partitions whose leader is being elected
                "org.apache.kafka.clients.producer.internals")) {
            context.getLogger(name).setLevel(ch.qos.logback.classic.Level.ERROR);
        }
        context.getLogger("state.change.logger").setLevel(ch.qos.logback.classic.Level.OFF);
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /** {@code host:port} of the broker, for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** An admin client of the cluster, closed with it. */
    public Admin admin() {
        return admin;
    }

    /** Creates a topic with this many partitions (one replica each) and waits until it exists. */
    public void createTopic(String name, int partitions) throws ExecutionException, InterruptedException {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }

    /** Grows a topic to this many partitions in all. */
    public void addPartitions(String topic, int totalPartitions) throws ExecutionException, InterruptedException {
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(totalPartitions))).all().get();
    }

    /** A producer of byte arrays with these settings over the defaults (acks=all, idempotent). */
    public KafkaProducer<byte[], byte[]> producer(Map<String, Object> settings) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        // a loaded test machine can keep a broker from answering for long: a request that timed
        // out and was sent again once left the idempotent producer's sequence numbers behind the
        // broker's (OutOfOrderSequenceException until the delivery timeout), so none times out early
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 300_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000);
        if (!settings.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            // and a plain producer has no sequence numbers to get behind (a second broker started
            // and stopped in the same JVM once left one's producer ids reused: OutOfOrderSequence
            // on every send until the delivery timeout); one request in flight keeps the order
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        }
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.putAll(settings);
        return new KafkaProducer<>(config);
    }

    /** A consumer of byte arrays with these settings over the defaults (no group, earliest). */
    public KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> settings) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.putAll(settings);
        return new KafkaConsumer<>(config);
    }

    /**
     * Sends these records and waits until every one is acknowledged by the broker; returns their
     * metadata (partition, offset) in the order given.
     */
    public List<RecordMetadata> produce(List<ProducerRecord<byte[], byte[]>> records)
            throws ExecutionException, InterruptedException {
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            List<Future<RecordMetadata>> sent = records.stream().map(producer::send).toList();
            producer.flush();
            List<RecordMetadata> acknowledged = new java.util.ArrayList<>(sent.size());
            for (Future<RecordMetadata> f : sent) {
                acknowledged.add(f.get());
            }
            return acknowledged;
        }
    }

    /** Sends these values (UTF-8, no key) to one partition of a topic and waits for them. */
    public List<RecordMetadata> produce(String topic, int partition, String... values)
            throws ExecutionException, InterruptedException {
        return produce(Stream.of(values).map(v -> record(topic, partition, null, v)).toList());
    }

    /** A record of a UTF-8 key (or none) and value for one partition. */
    public static ProducerRecord<byte[], byte[]> record(String topic, int partition, String key, String value) {
        return new ProducerRecord<>(topic, partition,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws Exception {
        try {
            admin.close(Duration.ofSeconds(5));
            server.shutdown();
            server.awaitShutdown();
        } finally {
            deleteTree(directory);
        }
    }

    /** The topics the broker has, internal ones left out. */
    public Set<String> topics() throws ExecutionException, InterruptedException {
        return admin.listTopics().names().get();
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
