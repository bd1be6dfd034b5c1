package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.pgwire.ChildServer;
import dev.tributary.server.source.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka in, Kafka out, through a real {@code serve --data DIR} server in a child JVM that is
 * killed with SIGKILL under load and started again on the same directory.
 *
 * <p>A thread produces JSON orders ({@code id, customer, amount}) to the topic {@code orders} at a
 * steady rate; a source reads them; a materialized view counts and sums them per customer; sink
 * {@code per_customer} writes the view's changes (ENVELOPE UPSERT, KEY (customer)) and sink
 * {@code raw} the source's rows (KEY (id)). After the kills (at seeded random moments) and the
 * last order, both topics are read with {@code read_committed} and checked against a model:
 * every order is in {@code raw} once; replaying {@code per_customer}'s upserts gives exactly the
 * view over all orders; and each customer's messages are exactly, time for time, the states the
 * view went through, recomputed from the orders {@code raw} holds at each time (the times the
 * source committed, which are the view's) — a repeated time or a skipped one would differ.
 *
 * <p>By default 20 s of orders at 1,000 per second and three kills (about 45 s in all);
 * {@code -Dtributary.e2e=true} runs 60 s at 2,000 per second with five kills. With
 * {@code -Dtributary.e2e.latency=true} it kills nothing and prints the produce-to-sink-topic
 * latency of each order (docs/BENCHMARKS.md); {@code tributary.e2e.rate}, {@code .seconds},
 * {@code .kills} and {@code .seed} override the defaults.
 */
class KafkaSinkEndToEndTest {
    @TempDir
    Path dir;

    private static String customer(long id) {
        return "c" + (id * 7 % 50);
    }

    private static int amount(long id) {
        return (int) (id % 97) + 1;
    }

    @Test
    void sigkillsUnderLoadNeitherRepeatNorSkipAChange() throws Exception {
        boolean longer = Boolean.getBoolean("tributary.e2e");
        run(Integer.getInteger("tributary.e2e.rate", longer ? 2000 : 1000), Integer.getInteger("tributary.e2e.seconds", longer ? 60 : 20),
                Integer.getInteger("tributary.e2e.kills", longer ? 5 : 3), Long.getLong("tributary.e2e.seed", 29));
    }

    @Test
    @EnabledIfSystemProperty(named = "tributary.e2e.latency", matches = "true")
    void latencyAtASteadyRate() throws Exception {
        run(Integer.getInteger("tributary.e2e.rate", 2000), Integer.getInteger("tributary.e2e.seconds", 30), 0, 29);
    }

    private void run(int rate, int seconds, int kills, long seed) throws Exception {
        Path data = dir.resolve("data");
        try (TestKafka kafka = TestKafka.start()) {
            kafka.createTopic("orders", 1);
            String brokers = kafka.bootstrapServers();
            List<String> jvm = List.of("-Xmx768m", "-XX:+UseSerialGC");
            ChildServer.Server server = ChildServer.start(data, jvm, List.of("--http-port", "off"));
            // the simple query protocol: over the extended one, JDBC's implicit block refuses CREATE SOURCE and SINK (25001)
            try (Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&preferQueryMode=simple");
                 Statement st = c.createStatement()) {
                st.execute("CREATE SOURCE orders (id bigint, customer text, amount int) FROM KAFKA (BROKERS '" + brokers + "', TOPIC 'orders') FORMAT JSON");
                st.execute("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer");
                st.execute("CREATE SINK per_customer_out FROM per_customer INTO KAFKA (BROKERS '" + brokers + "', TOPIC 'per_customer') KEY (customer) FORMAT JSON ENVELOPE UPSERT");
                st.execute("CREATE SINK raw FROM orders INTO KAFKA (BROKERS '" + brokers + "', TOPIC 'raw') KEY (id) FORMAT JSON ENVELOPE UPSERT");
                // both sinks subscribed (their snapshots, empty, taken) before the first order
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (true) {
                    List<String> states = new ArrayList<>();
                    try (var rs = st.executeQuery("SHOW SINKS")) {
                        while (rs.next()) states.add(rs.getString("state"));
                    }
                    if (states.equals(List.of("running", "running"))) break;
                    assertThat(System.nanoTime()).as("the sinks run: " + states).isLessThan(deadline);
                }
            }
            // the producer: `rate` orders a second, each sent at its planned moment
            AtomicLong produced = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            long[] sentAt = new long[rate * seconds];
            Thread producer = Thread.ofPlatform().name("orders").start(() -> {
                try (KafkaProducer<byte[], byte[]> p = kafka.producer(Map.of("linger.ms", 1))) {
                    long start = System.nanoTime();
                    for (int id = 0; id < sentAt.length && !stop.get(); id++) {
                        long due = start + id * 1_000_000_000L / rate;
                        while (System.nanoTime() < due) java.util.concurrent.locks.LockSupport.parkNanos(due - System.nanoTime());
                        String json = "{\"id\": " + id + ", \"customer\": \"" + customer(id) + "\", \"amount\": " + amount(id) + "}";
                        sentAt[id] = System.currentTimeMillis();
                        p.send(new ProducerRecord<>("orders", 0, sentAt[id], null, json.getBytes(StandardCharsets.UTF_8)));
                        produced.incrementAndGet();
                    }
                    p.flush();
                }
            });
            Random random = new Random(seed);
            long[] killAt = new long[kills];
            // one kill in each of `kills` equal slices of the run, at a random moment of its last
            // two thirds: a restart (2 to 3 s) never takes up a whole slice, so each kill comes
            // while the server runs under load, not during the previous recovery
            double slice = seconds * 1000.0 / kills;
            for (int k = 0; k < kills; k++) killAt[k] = (long) (slice * (k + 1.0 / 3 + 2.0 / 3 * random.nextDouble()));
            long t0 = System.nanoTime();
            StringBuilder killedLogs = new StringBuilder("the killed servers' log about sinks:");
            try {
                for (long at : killAt) {
                    long wait = at - (System.nanoTime() - t0) / 1_000_000;
                    if (wait > 0) producer.join(wait);
                    server.kill();
                    for (String line : server.log().toString().split("\n")) if (line.contains("sink")) killedLogs.append("\n  ").append(line);
                    killedLogs.append("\n  (killed)");
                    System.out.printf("killed the server (SIGKILL) at %.1f s, %,d orders produced%n", (System.nanoTime() - t0) / 1e9, produced.get());
                    server = ChildServer.start(data, jvm, List.of("--http-port", "off"));
                }
                producer.join(seconds * 2_000L + 30_000);
                assertThat(producer.isAlive()).as("the producer finished").isFalse();
                long n = produced.get();
                // the view over every order, as an upsert reader of per_customer must end up with
                Map<String, String> expected = new TreeMap<>();
                Map<String, long[]> totals = new HashMap<>();
                for (long id = 0; id < n; id++) {
                    long[] s = totals.computeIfAbsent(customer(id), k -> new long[2]);
                    s[0]++;
                    s[1] += amount(id);
                }
                totals.forEach((cust, s) -> expected.put("{\"customer\":\"" + cust + "\"}", state(cust, s)));
                SinkMessages out = null, raw = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (System.nanoTime() < deadline) {
                    out = SinkMessages.read(brokers, "per_customer");
                    raw = SinkMessages.read(brokers, "raw");
                    if (new TreeMap<>(out.upserted()).equals(expected) && raw.messages().size() >= n) break;
                }
                String why = killedLogs + "\n" + sinks(server);
                assertThat(new TreeMap<>(out.upserted())).as("the view over all " + n + " orders; " + why).isEqualTo(expected);
                assertThat(raw.messages().size()).as("raw's messages; " + why).isGreaterThanOrEqualTo((int) n);
                check(raw, out, n);
                if (kills == 0) latency(raw, out, sentAt, n, rate, seconds);
            } finally {
                stop.set(true);
                producer.join(10_000);
                server.kill();
            }
        }
    }

    /** SHOW SINKS and the server's log lines about sinks, to say why a topic is not complete. */
    private static String sinks(ChildServer.Server server) {
        StringBuilder b = new StringBuilder("SHOW SINKS:");
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&preferQueryMode=simple");
             Statement st = c.createStatement(); var rs = st.executeQuery("SHOW SINKS")) {
            while (rs.next()) b.append("\n  ").append(rs.getString("name")).append(": ").append(rs.getString("state")).append(", cursor ").append(rs.getString("cursor"));
        } catch (java.sql.SQLException e) {
            b.append(' ').append(e.getMessage());
        }
        b.append("\nthe server's log about sinks:");
        for (String line : server.log().toString().split("\n")) if (line.contains("sink")) b.append("\n  ").append(line);
        return b.toString();
    }

    private static String state(String customer, long[] s) {
        return "{\"customer\":\"" + customer + "\",\"n\":" + s[0] + ",\"total\":" + s[1] + "}";
    }

    /**
     * Every order once in {@code raw}; and {@code out}'s messages per customer, time for time, the
     * view's states recomputed from the orders of each time {@code raw} holds.
     */
    private static void check(SinkMessages raw, SinkMessages out, long n) {
        TreeMap<Long, List<Long>> idsByTime = new TreeMap<>();
        Map<Long, Integer> seen = new HashMap<>();
        for (SinkMessages.Message m : raw.messages()) {
            assertThat(m.value()).as("raw holds only insertions").isNotNull();
            long id = Long.parseLong(m.key().replaceAll("\\D", ""));
            seen.merge(id, 1, Integer::sum);
            idsByTime.computeIfAbsent(m.time(), t -> new ArrayList<>()).add(id);
        }
        assertThat(seen).as("every order once in raw").hasSize((int) n);
        assertThat(seen.values()).allMatch(k -> k == 1);
        // the expected messages per customer: one per time its orders came, its state after it
        Map<String, long[]> totals = new HashMap<>();
        Map<String, List<String>> expected = new TreeMap<>();
        for (var e : idsByTime.entrySet()) {
            Map<String, long[]> touched = new TreeMap<>();
            for (long id : e.getValue()) {
                long[] s = totals.computeIfAbsent(customer(id), k -> new long[2]);
                s[0]++;
                s[1] += amount(id);
                touched.put(customer(id), s);
            }
            touched.forEach((cust, s) -> expected.computeIfAbsent(cust, k -> new ArrayList<>()).add(e.getKey() + " " + state(cust, s)));
        }
        Map<String, List<String>> actual = new TreeMap<>();
        for (SinkMessages.Message m : out.messages()) {
            String cust = m.key().replaceAll("^\\{\"customer\":\"|\"}$", "");
            actual.computeIfAbsent(cust, k -> new ArrayList<>()).add(m.time() + " " + m.value());
        }
        for (String cust : expected.keySet()) {
            List<String> want = expected.get(cust), got = actual.getOrDefault(cust, List.of());
            int i = 0;
            while (i < want.size() && i < got.size() && want.get(i).equals(got.get(i))) i++;
            assertThat(got).as("customer " + cust + "'s messages: the view's states at the times written, each time once; first difference at "
                    + i + ": expected " + want.subList(Math.max(0, i - 2), Math.min(want.size(), i + 3)) + ", written "
                    + got.subList(Math.max(0, i - 2), Math.min(got.size(), i + 3))).isEqualTo(want);
        }
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        System.out.printf("checked %,d orders at %,d times; %,d messages of the view's changes%n", n, idsByTime.size(), out.messages().size());
    }

    /**
     * Prints produce-to-sink-topic latency: per order, from its send to the append of its
     * customer's message at its time; for all orders, and apart for those after the first 5 s
     * (the server's warm-up: its JIT compiles, its first checkpoints).
     */
    private static void latency(SinkMessages raw, SinkMessages out, long[] sentAt, long n, int rate, int seconds) {
        Map<String, Long> appended = new HashMap<>();
        for (SinkMessages.Message m : out.messages()) appended.put(m.time() + " " + m.key(), m.appendMillis());
        List<Long> all = new ArrayList<>(), steady = new ArrayList<>();
        for (SinkMessages.Message m : raw.messages()) {
            long id = Long.parseLong(m.key().replaceAll("\\D", ""));
            Long at = appended.get(m.time() + " {\"customer\":\"" + customer(id) + "\"}");
            if (at == null) continue;
            all.add(at - sentAt[(int) id]);
            if (id >= 5L * rate) steady.add(at - sentAt[(int) id]);
        }
        System.out.printf("latency, produce to sink topic, %,d orders at %,d/s for %d s (JDK %s, %d cores): all %s; after the first 5 s %s%n",
                n, rate, seconds, Runtime.version(), Runtime.getRuntime().availableProcessors(), percentiles(all), percentiles(steady));
    }

    private static String percentiles(List<Long> millis) {
        long[] s = millis.stream().mapToLong(Long::longValue).sorted().toArray();
        int k = s.length;
        return String.format("p50 %d ms, p90 %d ms, p99 %d ms, max %d ms", s[k / 2], s[(int) (k * 0.9)], s[(int) (k * 0.99)], s[k - 1]);
    }
}
