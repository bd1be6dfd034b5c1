package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Subscriptions and HTTP sinks started while other sessions commit, on two workers over a data
 * directory: each write is delivered exactly once, either folded into the snapshot or as a batch
 * at its own later time, never both (ARCHITECTURE, "Sinks": the open question of a write seen in
 * a snapshot and again after it). Every key is inserted once, so what a subscriber accumulates
 * holds each key with count 1, and the same keys as the table; times strictly increase, the
 * snapshot first. The shapes come from a fixed seed; the interleavings are the machine's, and the
 * property holds for every one of them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotAmidWritesTest {
    private static final long WAIT_SECONDS = 60;
    /** The key of the row each round writes last: once its batch is in, every earlier one is. */
    static final int MARKER = -1;

    @TempDir
    Path dir;

    /** A batch as a subscriber saw it: its time, and its changes by key. */
    record Batch(long time, Map<Integer, Long> changes) {}

    /** The view of round {@code r} over table {@code t}, by the seed: a filter, a count per key, or a materialized count with history. */
    private static String view(Random random, String t, String v) {
        return switch (random.nextInt(3)) {
            case 0 -> "CREATE VIEW " + v + " AS SELECT k, x FROM " + t + " WHERE x >= 0";
            case 1 -> "CREATE VIEW " + v + " AS SELECT k, count(*) AS n FROM " + t + " GROUP BY k";
            default -> "CREATE MATERIALIZED VIEW " + v + " WITH (RETAIN HISTORY FOR '1 hour') AS SELECT k, count(*) AS n FROM " + t + " GROUP BY k";
        };
    }

    /**
     * Writers insert distinct keys, each its own commit, from sessions of their own; {@link #written}
     * counts the commits so the round can start its subscribers amid them.
     */
    private static final class Writers {
        private final List<Thread> threads = new ArrayList<>();
        private int next;
        private int written;

        Writers(Tributary db, String table, int writers, int each) {
            for (int w = 0; w < writers; w++) {
                Tributary.Connection session = db.session();
                threads.add(Thread.ofPlatform().name("writer " + w).start(() -> {
                    for (int i = 0; i < each; i++) {
                        int k;
                        synchronized (this) {
                            k = next++;
                        }
                        session.execute("INSERT INTO " + table + " VALUES (" + k + ", 1)");
                        synchronized (this) {
                            written++;
                            notifyAll();
                        }
                    }
                }));
            }
        }

        /** Waits until at least {@code n} commits are done. */
        synchronized void awaitWritten(int n) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (written < n) {
                long left = until - System.nanoTime();
                assertThat(left).as("the writers made " + n + " commits").isPositive();
                wait(Math.max(1, left / 1_000_000));
            }
        }

        void join() throws InterruptedException {
            for (Thread t : threads) t.join();
        }
    }

    /** What one subscription delivered, and a latch released by the marker's batch. */
    static final class Received implements Subscription.Listener {
        final List<Batch> batches = new ArrayList<>();
        final CountDownLatch marker = new CountDownLatch(1);

        @Override
        public void onChanges(Result batch) {
            Map<Integer, Long> changes = new HashMap<>();
            long time = -1;
            for (Object[] row : batch.rows()) {
                time = ((java.time.Instant) row[0]).toEpochMilli();
                changes.merge(((Number) row[2]).intValue(), ((Number) row[1]).longValue(), Long::sum);
            }
            synchronized (this) {
                batches.add(new Batch(time, changes));
            }
            if (changes.containsKey(MARKER)) marker.countDown();
        }

        synchronized List<Batch> batches() {
            return List.copyOf(batches);
        }
    }

    @Test
    void subscriptionsStartedAmidCommitsDeliverEachWriteOnce() throws Exception {
        Random random = new Random(20261206);
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.wall(), 2)) {
            for (int round = 0; round < 8; round++) {
                String t = "t" + round;
                String v = "v" + round;
                db.execute("CREATE TABLE " + t + " (k int, x int)");
                db.execute(view(random, t, v));
                int pre = random.nextInt(3);
                for (int i = 0; i < pre; i++) db.execute("INSERT INTO " + t + " VALUES (" + (1_000 + i) + ", 1)");
                int each = 15;
                Writers writers = new Writers(db, t, 2, each);
                List<Received> received = new ArrayList<>();
                List<Subscription> subscriptions = new ArrayList<>();
                // the first right as the writers start, the others amid their commits
                for (int s = 0; s < 3; s++) {
                    if (s > 0) writers.awaitWritten(s * each * 2 / 3);
                    Received r = new Received();
                    received.add(r);
                    subscriptions.add(db.subscribe("SUBSCRIBE " + v, r));
                }
                writers.join();
                db.execute("INSERT INTO " + t + " VALUES (" + MARKER + ", 1)");
                List<String> keys = rows(db, "SELECT k FROM " + t + " ORDER BY k");
                for (int s = 0; s < received.size(); s++) {
                    Received r = received.get(s);
                    assertThat(r.marker.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("round %d, subscription %d: the marker's batch", round, s).isTrue();
                    checkOnce(r.batches(), keys, "round " + round + ", subscription " + s);
                }
                for (Subscription sub : subscriptions) sub.close();
            }
        }
    }

    @Test
    void httpSinksCreatedAmidCommitsDeliverEachWriteOnce() throws Exception {
        Random random = new Random(61202026);
        try (HttpReceiver receiver = new HttpReceiver(0); Tributary db = Tributary.open(dir.resolve("data"), Clock.wall(), 2)) {
            for (int round = 0; round < 8; round++) {
                String t = "t" + round;
                String v = "v" + round;
                String sink = "s" + round;
                db.execute("CREATE TABLE " + t + " (k int, x int)");
                db.execute(view(random, t, v));
                // at least one row: an empty snapshot is not posted
                int pre = 1 + random.nextInt(2);
                for (int i = 0; i < pre; i++) db.execute("INSERT INTO " + t + " VALUES (" + (1_000 + i) + ", 1)");
                Writers writers = new Writers(db, t, 2, 10);
                db.execute("CREATE SINK " + sink + " FROM " + v + " INTO HTTP (URL '" + receiver.url() + "')");
                writers.join();
                db.execute("INSERT INTO " + t + " VALUES (" + MARKER + ", 1)");
                List<String> keys = rows(db, "SELECT k FROM " + t + " ORDER BY k");
                receiver.await(bodies -> batches(bodies, sink).stream().anyMatch(b -> b.changes().containsKey(MARKER)));
                List<String> mine = receiver.bodies().stream().filter(b -> b.startsWith("{\"sink\":\"" + sink + "\"")).toList();
                assertThat(mine.get(0)).as("round " + round + ": the first batch").contains("\"snapshot\":true");
                assertThat(mine.subList(1, mine.size())).as("round " + round + ": the later batches").allSatisfy(b -> assertThat(b).contains("\"snapshot\":false"));
                checkOnce(batches(mine, sink), keys, "round " + round + ", sink " + sink);
                db.execute("DROP SINK " + sink);
            }
            receiver.assertRetriesIdentical();
        }
    }

    /** Each of {@code keys} (the table's, the marker's included) accumulated to exactly 1 over {@code batches}, whose times strictly increase. */
    private static void checkOnce(List<Batch> batches, List<String> keys, String what) {
        for (int i = 1; i < batches.size(); i++) {
            assertThat(batches.get(i).time()).as(what + ": batch " + i + "'s time after the one before").isGreaterThan(batches.get(i - 1).time());
        }
        Map<Integer, List<Long>> times = new TreeMap<>();
        Map<Integer, Long> accumulated = accumulate(batches, times);
        Map<Integer, Long> expected = new TreeMap<>();
        for (String k : keys) expected.put(Integer.parseInt(k), 1L);
        assertThat(accumulated).as(what + ": each key once (times delivered: " + times + ")").isEqualTo(expected);
    }

    /** The sum of each key's changes over {@code batches}; {@code times} gets the times of the batches that change each. */
    static Map<Integer, Long> accumulate(List<Batch> batches, Map<Integer, List<Long>> times) {
        Map<Integer, Long> accumulated = new TreeMap<>();
        for (Batch b : batches) {
            b.changes().forEach((k, d) -> {
                accumulated.merge(k, d, Long::sum);
                times.computeIfAbsent(k, x -> new ArrayList<>()).add(b.time());
            });
        }
        return accumulated;
    }

    private static final Pattern CHANGE = Pattern.compile("\\{\"diff\":(-?\\d+),\"row\":\\{\"k\":(-?\\d+)");

    /** The batches of {@code sink} among {@code bodies}, a body accepted more than once counted once. */
    static List<Batch> batches(List<String> bodies, String sink) {
        List<Batch> out = new ArrayList<>();
        for (String body : new java.util.LinkedHashSet<>(bodies)) {
            if (!body.startsWith("{\"sink\":\"" + sink + "\"")) continue;
            Map<Integer, Long> changes = new HashMap<>();
            Matcher m = CHANGE.matcher(body);
            while (m.find()) changes.merge(Integer.parseInt(m.group(2)), Long.parseLong(m.group(1)), Long::sum);
            out.add(new Batch(HttpReceiver.time(body), changes));
        }
        return out;
    }
}
