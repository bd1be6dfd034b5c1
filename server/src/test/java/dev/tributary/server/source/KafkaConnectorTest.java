package dev.tributary.server.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The Kafka connector against a real broker and a context that records what it is handed: what
 * it commits adds up to the topic, it resumes after the positions it is given, and it reports
 * what it cannot read. (The server's part, rows and positions in one durable commit, is
 * {@code KafkaSourceTest}'s.)
 */
class KafkaConnectorTest extends KafkaTestCase {


    @Test
    void readsEveryPartitionAndCommitsTheLastOffsetOfEach() throws Exception {
        kafka.createTopic("every", 3);
        List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
        for (int i = 0; i < 30; i++) sent.add(TestKafka.record("every", i % 3, "k" + i, "v" + i));
        kafka.produce(sent);

        try (Running r = Running.of("every", Map.of(), List.of())) {
            r.await(() -> r.ctx.rows().size() == 30);
            assertThat(r.ctx.rows()).extracting(row -> row[0]).containsExactlyInAnyOrderElementsOf(
                    sent.stream().map(p -> new String(p.value(), StandardCharsets.UTF_8)).toList());
            r.await(() -> r.ctx.positions().equals(Map.of("0", "9", "1", "9", "2", "9")));
            assertThat(r.ctx.state).startsWith("running");
        }
    }

    @Test
    void resumesAfterTheCommittedPositionsAndIncludesMetadata() throws Exception {
        kafka.createTopic("resume", 2);
        long before = System.currentTimeMillis();
        for (int p = 0; p < 2; p++) kafka.produce("resume", p, "a", "b", "c", "d");

        Map<String, String> committed = Map.of("0", "1", "1", "3");
        List<KafkaMetadata> include = List.of(KafkaMetadata.PARTITION, KafkaMetadata.OFFSET, KafkaMetadata.TIMESTAMP, KafkaMetadata.KEY);
        try (Running r = Running.of("resume", committed, include)) {
            r.await(() -> r.ctx.positions().equals(Map.of("0", "3", "1", "3")));
            // partition 0 from offset 2 on, partition 1 had everything
            assertThat(r.ctx.rows()).hasSize(2);
            assertThat(r.ctx.rows().get(0)).containsExactly("c", 0L, 2L, r.ctx.rows().get(0)[3], null);
            assertThat(r.ctx.rows().get(1)).containsExactly("d", 0L, 3L, r.ctx.rows().get(1)[3], null);
            assertThat((Instant) r.ctx.rows().get(0)[3]).isBetween(Instant.ofEpochMilli(before - 1000), Instant.now());
        }
    }

    @Test
    void startAtLatestIsMadeDurableBeforeAnyMessageAndLaterPartitionsAreReadWhole() throws Exception {
        kafka.createTopic("latest", 2);
        kafka.produce("latest", 0, "old-0", "old-1");

        try (Running r = Running.of("latest", Map.of(), List.of(), Map.of("START OFFSET", "latest"))) {
            r.await(() -> r.ctx.positions().equals(Map.of("0", "1", "1", "-1")));
            assertThat(r.ctx.commits.get(0).rows()).isEmpty();
            kafka.produce("latest", 1, "new-0");
            kafka.addPartitions("latest", 3);
            kafka.produce("latest", 2, "grown-0", "grown-1");
            r.await(() -> r.ctx.rows().size() == 3);
            assertThat(r.ctx.rows()).extracting(row -> row[0]).containsExactlyInAnyOrder("new-0", "grown-0", "grown-1");
            assertThat(r.ctx.positions()).isEqualTo(Map.of("0", "1", "1", "0", "2", "1"));
        }
    }

    @Test
    void decodeErrorsAreReportedWithTheirOffsetAndSkipped() throws Exception {
        kafka.createTopic("skip", 1);
        kafka.produce("skip", 0, "good-0", "bad-1", "good-2");
        kafka.produce(List.of(TestKafka.record("skip", 0, null, null)));

        try (Running r = Running.of("skip", Map.of(), List.of())) {
            r.await(() -> "3".equals(r.ctx.positions().get("0")));
            assertThat(r.ctx.rows()).extracting(row -> row[0]).containsExactly("good-0", "good-2");
            assertThat(r.ctx.errors).containsExactly(
                    "partition 0 offset 1: bad record bad-1",
                    "partition 0 offset 3: the message has no value (a tombstone); a source appends rows and takes none away");
        }
    }

    @Test
    void aDecodeErrorThatStopsTheSourceCommitsWhatCameBefore() throws Exception {
        kafka.createTopic("stop", 1);
        kafka.produce("stop", 0, "good-0", "good-1", "bad-2", "good-3");

        try (Running r = Running.of("stop", Map.of(), List.of())) {
            r.ctx.stopOnDecodeError = true;
            Throwable ended = r.ended.get(30, TimeUnit.SECONDS);
            assertThat(ended).isInstanceOf(SourceStopped.class);
            assertThat(r.ctx.rows()).extracting(row -> row[0]).containsExactly("good-0", "good-1");
            assertThat(r.ctx.positions()).isEqualTo(Map.of("0", "1"));
        }
    }

    @Test
    void aGroupNamesTheConsumerButNoOffsetIsCommittedToKafka() throws Exception {
        kafka.createTopic("grouped", 2);
        kafka.produce("grouped", 0, "a", "b");
        kafka.produce("grouped", 1, "c");
        try (Running r = Running.of("grouped", Map.of(), List.of(), Map.of("GROUP", "tributary-test-group"))) {
            r.await(() -> r.ctx.rows().size() == 3);
        }
        // the positions live in the source's progress table only
        assertThat(kafka.admin().listConsumerGroupOffsets("tributary-test-group").partitionsToOffsetAndMetadata().get()).isEmpty();
    }

    @Test
    void abortedTransactionsAreNotRead() throws Exception {
        kafka.createTopic("txn", 1);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "connector-txn"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(TestKafka.record("txn", 0, null, "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(TestKafka.record("txn", 0, null, "committed"));
            producer.commitTransaction();
        }
        try (Running r = Running.of("txn", Map.of(), List.of())) {
            r.await(() -> r.ctx.rows().size() == 1);
            assertThat(r.ctx.rows().get(0)[0]).isEqualTo("committed");
        }
    }

    @Test
    void unreachableBrokersAreAStateAndAStopEndsTheRunAtOnce() throws Exception {
        Map<String, String> options = Map.of("BROKERS", "127.0.0.1:1", "TOPIC", "nowhere");
        try (Running r = Running.of(options, Map.of(), List.of())) {
            r.await(() -> r.ctx.state.contains("does not answer"));
            long t0 = System.nanoTime();
            r.close();
            assertThat(r.ended.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aTopicThatDoesNotExistIsWaitedFor() throws Exception {
        try (Running r = Running.of("later", Map.of(), List.of())) {
            r.await(() -> r.ctx.state.contains("does not exist"));
            kafka.createTopic("later", 1);
            kafka.produce("later", 0, "here");
            r.await(() -> r.ctx.rows().size() == 1);
        }
    }

    /** A record per message: its value as text; values starting "bad" cannot be read. */
    static final class TextDecoder implements Decoder {
        @Override
        public int recordEnd(byte[] b, int from, int to) {
            throw new UnsupportedOperationException("a Kafka message is one record");
        }

        @Override
        public Object[] decode(byte[] b, int off, int len) throws DecodeException {
            String s = new String(b, off, len, StandardCharsets.UTF_8);
            if (s.startsWith("bad")) throw new DecodeException("bad record " + s);
            return new Object[] {s};
        }

        @Override
        public boolean header() {
            return false;
        }

        @Override
        public Records messageRecords() {
            return Records.WHOLE;
        }
    }

    /** A commit as the context took it. */
    record Commit(List<Object[]> rows, Map<String, String> positions) {}

    /** A context that keeps what it is handed, as the server's runner would commit it. */
    static final class RecordingContext implements SourceContext {
        final Map<String, String> options;
        final List<Commit> commits = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        volatile String state = "starting";
        volatile boolean stopping;
        volatile boolean stopOnDecodeError;
        private volatile Map<String, String> positions;

        RecordingContext(Map<String, String> options, Map<String, String> positions) {
            this.options = options;
            this.positions = Map.copyOf(positions);
        }

        synchronized List<Object[]> rows() {
            List<Object[]> out = new ArrayList<>();
            for (Commit c : commits) out.addAll(c.rows());
            return out;
        }

        @Override
        public String name() {
            return "test";
        }

        @Override
        public Map<String, String> options() {
            return options;
        }

        @Override
        public Map<String, String> positions() {
            return positions;
        }

        @Override
        public synchronized void commit(List<Object[]> rows, Map<String, String> after) {
            if (stopping) throw new SourceStopped("stopping");
            commits.add(new Commit(List.copyOf(rows), Map.copyOf(after)));
            Map<String, String> next = new TreeMap<>(positions);
            next.putAll(after);
            positions = Map.copyOf(next);
        }

        @Override
        public void commitChanges(List<SourceChange> changes, Map<String, String> after) {
            throw new IllegalStateException("commitChanges is a keyed source's; this test's source appends rows (commit)");
        }

        @Override
        public synchronized void decodeError(String position, String message) {
            errors.add(position + ": " + message);
            if (stopOnDecodeError) throw new SourceStopped("decode error at " + position);
        }

        @Override
        public Decoder decoder() {
            return new TextDecoder();
        }

        @Override
        public boolean stopping() {
            return stopping;
        }

        @Override
        public void pause(long millis) {
            long until = System.nanoTime() + millis * 1_000_000;
            synchronized (this) {
                while (!stopping && System.nanoTime() < until) {
                    try {
                        wait(Math.max(1, (until - System.nanoTime()) / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }

        @Override
        public void state(String state) {
            this.state = state;
        }
    }

    /** A connector running on a thread of its own; closing it stops it as the runner does. */
    static final class Running implements AutoCloseable {
        final RecordingContext ctx;
        final KafkaConnector connector;
        /** What the run ended with: null when it returned. */
        final CompletableFuture<Throwable> ended = new CompletableFuture<>();
        private final Thread thread;

        private Running(Map<String, String> options, Map<String, String> positions, List<KafkaMetadata> include) {
            ctx = new RecordingContext(options, positions);
            connector = new KafkaConnector(include, false);
            thread = Thread.ofPlatform().daemon().name("kafka connector test").start(() -> {
                try {
                    connector.run(ctx);
                    ended.complete(null);
                } catch (Throwable t) {
                    ended.complete(t);
                }
            });
        }

        static Running of(String topic, Map<String, String> positions, List<KafkaMetadata> include) {
            return of(topic, positions, include, Map.of());
        }

        static Running of(String topic, Map<String, String> positions, List<KafkaMetadata> include, Map<String, String> extra) {
            Map<String, String> options = new HashMap<>(extra);
            options.put("BROKERS", kafka.bootstrapServers());
            options.put("TOPIC", topic);
            return of(options, positions, include);
        }

        static Running of(Map<String, String> options, Map<String, String> positions, List<KafkaMetadata> include) {
            return new Running(options, positions, include);
        }

        /** Waits up to 30 s for {@code condition}; fails saying what the context holds otherwise. */
        void await(BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!condition.getAsBoolean()) {
                if (ended.isDone()) throw new AssertionError("the connector ended: " + ended.join(), ended.join());
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not within 30 s; state " + ctx.state + ", positions " + ctx.positions()
                            + ", " + ctx.rows().size() + " rows, errors " + ctx.errors);
                }
                synchronized (ctx) {
                    ctx.wait(20);
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            ctx.stopping = true;
            synchronized (ctx) {
                ctx.notifyAll();
            }
            connector.wakeUp();
            thread.join(10_000);
        }
    }
}
