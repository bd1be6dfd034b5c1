package dev.tributary.server;

import dev.tributary.server.SnapshotAmidWritesTest.Batch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stress program for the open question of a write seen both in a subscription's snapshot and
 * again at its own time (ARCHITECTURE, "Sinks"), not part of the suite ({@link
 * SnapshotAmidWritesTest} is its fast, bounded form). Busy-loop threads load the CPU while, round
 * after round, a table and a view over it are made, writers commit distinct keys from sessions of
 * their own, and SUBSCRIBEs (or CREATE SINK ... INTO HTTP to a local receiver) start amid the
 * writes; each subscriber's batches must add up to each key exactly once, in increasing times.
 * Each finding is printed as a {@code ROUND} line, the totals as a {@code REPRO} line.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp ... [-Drounds=50] [-Dworkers=2]
 *     [-Dload=4] [-Dwriters=2] [-DperWriter=20] [-Dpre=3] [-Dsubs=1] [-Dearly=true] [-Dhttp=true]
 *     [-Dmv=true [-Dretain=true]] [-Dtributary.checkpoint.interval.ms=100] dev.tributary.server.SnapshotStress
 * java ... -Drestarts=true [-Drounds=20] [-Dworkers=1] [-Dload=4] [-Dseed=1] dev.tributary.server.SnapshotStress
 * </pre>
 *
 * {@code early}: the writers start before the first subscriber rather than with it; {@code mv}: a
 * materialized count per key (with {@code retain}, RETAIN HISTORY) instead of a plain view;
 * {@code restarts}: HTTP sinks whose database is closed right after the writes that follow CREATE
 * SINK and opened again, a batch marked as a snapshot replacing what the receiver held.
 */
public final class SnapshotStress {
    private static int prop(String n, int d) {
        return Integer.getInteger(n, d);
    }

    public static void main(String[] args) throws Exception {
        if (Boolean.getBoolean("restarts")) restarts();
        else run();
        System.exit(0);
    }

    /**
     * Starts {@code threads} busy loops until the returned flag is set: the report came from a
     * machine at load 10+, where a worker, a writer and the coordinator are descheduled at any point.
     */
    private static AtomicBoolean load(int threads) {
        AtomicBoolean stop = new AtomicBoolean();
        for (int i = 0; i < threads; i++) {
            Thread.ofPlatform().daemon().name("load " + i).start(() -> {
                long x = 0;
                while (!stop.get()) x = x * 31 + 7;
                // read, so the loop is not compiled away
                if (x == 42) System.out.println();
            });
        }
        return stop;
    }

    static void run() throws Exception {
        int rounds = prop("rounds", 50);
        int loadThreads = prop("load", 4);
        int writers = prop("writers", 2);
        int perWriter = prop("perWriter", 20);
        int preRows = prop("pre", 3);
        boolean http = Boolean.getBoolean("http");
        int subsPerRound = prop("subs", 1);
        boolean mv = Boolean.getBoolean("mv");
        boolean early = Boolean.getBoolean("early");
        boolean retain = Boolean.getBoolean("retain");
        Path dir = Files.createTempDirectory("snapshot-stress");
        AtomicBoolean stop = load(loadThreads);
        int found = 0;
        long started = System.nanoTime();
        try (HttpReceiver receiver = new HttpReceiver(0); Tributary db = Tributary.open(dir.resolve("data"), Clock.wall(), prop("workers", 2))) {
            for (int r = 0; r < rounds; r++) {
                String t = "t" + r, v = "v" + r;
                db.execute("CREATE TABLE " + t + " (k int, v int)");
                if (mv) {
                    // the shape of HttpSinkDdlTest's: a count per key, with retained history
                    db.execute("CREATE MATERIALIZED VIEW " + v + (retain ? " WITH (RETAIN HISTORY FOR '1 hour')" : "") + " AS SELECT k, count(*) AS n FROM " + t + " GROUP BY k");
                } else {
                    db.execute("CREATE VIEW " + v + " AS SELECT k, v FROM " + t + " WHERE v >= 0");
                }
                for (int i = 0; i < preRows; i++) db.execute("INSERT INTO " + t + " VALUES (" + (1_000_000 + i) + ", 1)");
                AtomicInteger next = new AtomicInteger();
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> ws = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    var conn = db.session();
                    ws.add(Thread.ofPlatform().start(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        for (int i = 0; i < perWriter; i++) conn.execute("INSERT INTO " + t + " VALUES (" + next.getAndIncrement() + ", 1)");
                    }));
                }
                List<SnapshotAmidWritesTest.Received> got = new ArrayList<>();
                List<Subscription> subs = new ArrayList<>();
                if (early) go.countDown();
                for (int s = 0; s < subsPerRound; s++) {
                    SnapshotAmidWritesTest.Received received = new SnapshotAmidWritesTest.Received();
                    got.add(received);
                    if (http) db.execute("CREATE SINK s" + r + "_" + s + " FROM " + v + " INTO HTTP (URL '" + receiver.url() + "')");
                    else subs.add(db.subscribe("SUBSCRIBE " + v, received));
                    if (s == 0) go.countDown();
                }
                for (Thread w : ws) w.join();
                // a marker: once its batch is in, everything before it is
                db.execute("INSERT INTO " + t + " VALUES (" + SnapshotAmidWritesTest.MARKER + ", 1)");
                int expected = preRows + writers * perWriter + 1;
                for (int s = 0; s < subsPerRound; s++) {
                    List<Batch> batches;
                    String sink = "s" + r + "_" + s;
                    if (http) {
                        receiver.await(bodies -> SnapshotAmidWritesTest.batches(bodies, sink).stream()
                                .anyMatch(b -> b.changes().containsKey(SnapshotAmidWritesTest.MARKER)));
                        batches = SnapshotAmidWritesTest.batches(receiver.bodies(), sink);
                    } else {
                        if (!got.get(s).marker.await(60, TimeUnit.SECONDS)) throw new AssertionError("round " + r + " sub " + s + ": no marker");
                        batches = got.get(s).batches();
                    }
                    Map<Integer, List<Long>> when = new HashMap<>();
                    Map<Integer, Long> acc = SnapshotAmidWritesTest.accumulate(batches, when);
                    long twice = acc.values().stream().filter(n -> n != 1).count();
                    for (int i = 1; i < batches.size(); i++) {
                        if (batches.get(i).time() <= batches.get(i - 1).time()) {
                            twice++;
                            System.out.println("ROUND " + r + " sub " + s + ": batch " + i + " at " + batches.get(i).time() + " after one at " + batches.get(i - 1).time());
                        }
                    }
                    if (twice > 0 || acc.size() != expected) {
                        found++;
                        StringBuilder sb = new StringBuilder("ROUND " + r + " sub " + s + ": keys " + acc.size() + " of " + expected + ", not once: ");
                        acc.forEach((k, n) -> {
                            if (n != 1) sb.append(k).append("x").append(n).append(" at ").append(when.get(k)).append("; ");
                        });
                        sb.append("batch times ");
                        for (Batch b : batches) sb.append(b.time()).append("(").append(b.changes().size()).append(") ");
                        System.out.println(sb);
                    }
                }
                for (Subscription s : subs) s.close();
                if (http) for (int s = 0; s < subsPerRound; s++) db.execute("DROP SINK s" + r + "_" + s);
                db.execute((mv ? "DROP MATERIALIZED VIEW " : "DROP VIEW ") + v);
                db.execute("DROP TABLE " + t);
            }
        } finally {
            stop.set(true);
        }
        System.out.println("REPRO workers=" + prop("workers", 2) + " early=" + early + " ckpt=" + System.getProperty("tributary.checkpoint.interval.ms") + " rounds=" + rounds + " mv=" + mv + " retain=" + retain + " http=" + http + " subs=" + subsPerRound + " writers=" + writers + " load=" + loadThreads
                + " found=" + found + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
    }

    /** Rounds of CREATE SINK, writes right after it, a restart before they are acknowledged, more writes; checked by key and by body. */
    static void restarts() throws Exception {
        int rounds = prop("rounds", 20);
        int loadThreads = prop("load", 4);
        Path dir = Files.createTempDirectory("snapshot-stress-restarts").resolve("data");
        AtomicBoolean stop = load(loadThreads);
        java.util.Random random = new java.util.Random(prop("seed", 1));
        int found = 0;
        try (HttpReceiver receiver = new HttpReceiver(0)) {
            for (int r = 0; r < rounds; r++) {
                String t = "t" + r, v = "v" + r, sink = "s" + r;
                int pre = random.nextInt(3);
                int n = 0;
                try (Tributary db = Tributary.open(dir, Clock.wall(), prop("workers", 1))) {
                    db.execute("CREATE TABLE " + t + " (k int, v text)");
                    db.execute(random.nextBoolean() ? "CREATE VIEW " + v + " AS SELECT k, count(*) AS n FROM " + t + " GROUP BY k"
                            : "CREATE MATERIALIZED VIEW " + v + " WITH (RETAIN HISTORY FOR '1 hour') AS SELECT k, count(*) AS n FROM " + t + " GROUP BY k");
                    for (int i = 0; i < pre; i++) db.execute("INSERT INTO " + t + " VALUES (" + (n++) + ", 'p')");
                    db.execute("CREATE SINK " + sink + " FROM " + v + " INTO HTTP (URL '" + receiver.url() + "')");
                    int writes = random.nextInt(4);
                    for (int i = 0; i < writes; i++) db.execute("INSERT INTO " + t + " VALUES (" + (n++) + ", 'a')");
                    if (random.nextBoolean()) Thread.sleep(random.nextInt(50));
                }
                try (Tributary db = Tributary.open(dir, Clock.wall(), prop("workers", 1))) {
                    db.execute("INSERT INTO " + t + " VALUES (" + (n++) + ", 'b')");
                    db.execute("INSERT INTO " + t + " VALUES (-1, 'marker')");
                    long until = System.nanoTime() + 60_000_000_000L;
                    while (SnapshotAmidWritesTest.batches(receiver.bodies(), sink).stream().noneMatch(b -> b.changes().containsKey(-1))) {
                        if (System.nanoTime() > until) throw new AssertionError("round " + r + ": no marker");
                        Thread.sleep(2);
                    }
                    db.execute("DROP SINK " + sink);
                }
                Map<String, String> byKey = new HashMap<>();
                List<String> mine = new ArrayList<>();
                for (HttpReceiver.Request q : receiver.requests()) {
                    if (q.status() != 200 || !q.body().startsWith("{\"sink\":\"" + sink + "\"")) continue;
                    String first = byKey.putIfAbsent(q.key(), q.body());
                    if (first == null) mine.add(q.body());
                    else if (!first.equals(q.body())) {
                        found++;
                        System.out.println("ROUND " + r + ": key " + q.key() + " sent with two bodies: " + first + " / " + q.body());
                    }
                }
                // a receiver replaces what it holds with a batch marked as a snapshot
                Map<Integer, Long> acc = new TreeMap<>();
                long lastTime = Long.MIN_VALUE;
                for (String body : mine) {
                    if (body.contains("\"snapshot\":true")) acc.clear();
                    else if (HttpReceiver.time(body) <= lastTime) {
                        found++;
                        System.out.println("ROUND " + r + ": time " + HttpReceiver.time(body) + " after " + lastTime);
                    }
                    lastTime = HttpReceiver.time(body);
                    for (Batch b : SnapshotAmidWritesTest.batches(List.of(body), sink)) b.changes().forEach((k, d) -> acc.merge(k, d, Long::sum));
                }
                acc.values().removeIf(c -> c == 0);
                if (acc.size() != n + 1 || acc.values().stream().anyMatch(c -> c != 1)) {
                    found++;
                    System.out.println("ROUND " + r + ": by key, accumulated " + acc + " of " + (n + 1) + " keys; bodies " + mine);
                }
            }
        } finally {
            stop.set(true);
        }
        System.out.println("REPRO restarts rounds=" + rounds + " found=" + found);
    }
}
