package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.source.KafkaConsumerBaseline;
import dev.tributary.server.source.SourceRunner;
import dev.tributary.server.source.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Ingest from Kafka into a source beside Kafka's own consumer on the same topic, in the same run
 * (docs/BENCHMARKS.md). Runs only when asked, and prints:
 * <pre>
 * mvn -o -q test -pl server -Dtest=KafkaIngestBenchmark -Dkafka.bench.records=1000000
 * </pre>
 * The topic holds {@code kafka.bench.records} JSON orders of about 75 bytes in
 * {@code kafka.bench.partitions} partitions (4). Each round reads the whole topic three ways,
 * alternating: Kafka's consumer touching every value ({@link KafkaConsumerBaseline#consume}); a
 * source {@code (id bigint, customer text, amount int, note text) FORMAT JSON} on a fresh server
 * with a data directory (every commit durable); and the same source on a server in memory. A
 * source's time runs from CREATE SOURCE until its runner has committed every message.
 */
class KafkaIngestBenchmark {

    @Test
    @EnabledIfSystemProperty(named = "kafka.bench.records", matches = "\\d+")
    void sourceBesideConsumer() throws Exception {
        long n = Long.getLong("kafka.bench.records");
        int partitions = Integer.getInteger("kafka.bench.partitions", 4);
        int rounds = Integer.getInteger("kafka.bench.rounds", 3);
        try (TestKafka kafka = TestKafka.start()) {
            kafka.createTopic("bench", partitions);
            long t0 = System.nanoTime();
            KafkaConsumerBaseline.produceJson(kafka, "bench", partitions, n);
            System.out.printf("produced %,d JSON records into %d partitions in %.2f s (JDK %s, %d cores)%n",
                    n, partitions, (System.nanoTime() - t0) / 1e9, Runtime.version(), Runtime.getRuntime().availableProcessors());
            for (int round = 1; round <= rounds; round++) {
                System.out.println("round " + round + ", Kafka consumer:        " + KafkaConsumerBaseline.consume(kafka.bootstrapServers(), "bench", n));
                System.out.println("round " + round + ", source, data directory: " + source(kafka, n, true));
                System.out.println("round " + round + ", source, in memory:      " + source(kafka, n, false));
            }
        }
    }

    private static KafkaConsumerBaseline.Rate source(TestKafka kafka, long n, boolean durable) throws Exception {
        Path data = Files.createTempDirectory("tributary-bench-");
        try {
            try (Tributary db = durable ? Tributary.open(data.resolve("data")) : Tributary.inMemory()) {
                long t0 = System.nanoTime();
                db.execute("CREATE SOURCE bench (id bigint, customer text, amount int, note text) FROM KAFKA (BROKERS '"
                        + kafka.bootstrapServers() + "', TOPIC 'bench') FORMAT JSON");
                SourceRunner runner = db.sourceRunner("bench");
                assertThat(runner.awaitStatus(s -> s.rows() >= n, 600_000)).as("all rows in: " + runner.status()).isTrue();
                long nanos = System.nanoTime() - t0;
                assertThat(SqlRows.rows(db, "SELECT count(*), count(DISTINCT id) FROM bench")).containsExactly(n + "|" + n);
                return new KafkaConsumerBaseline.Rate(n, 0, nanos);
            }
        } finally {
            try (Stream<Path> paths = Files.walk(data)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }
}
