package dev.tributary.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * One configuration of the point-select comparison: {@code connections} client threads, each
 * with its own JDBC connection and one prepared statement {@code SELECT v FROM <relation> WHERE
 * k = ?}, executing it back to back (a closed loop, no think time) with keys drawn uniformly
 * from a generator seeded per thread, first for a warm-up and then for a measured duration.
 *
 * <p>A query's latency is from binding the key to having read and closed its result set, taken
 * with {@link System#nanoTime} and recorded into the thread's own {@link Histogram} (merged at
 * the end), so threads never contend on the recording. Only queries that start while the
 * measured phase is on are counted. Every answer is checked against {@link KvDataset#value}: a
 * missing, extra or wrong row fails the run, since a fast wrong answer is no result.
 */
final class PointSelectLoad {
    /** Latencies above this are recorded as this (an hour): never reached unless a server hangs. */
    private static final long MAX_LATENCY_NANOS = TimeUnit.HOURS.toNanos(1);

    private enum Phase { WARMUP, MEASURE, STOP }

    /** What one configuration measured. */
    record Result(String target, int connections, long queries, long elapsedNanos, Histogram latency) {
        double queriesPerSecond() {
            return queries * 1e9 / elapsedNanos;
        }

        double percentileMicros(double percentile) {
            return latency.getValueAtPercentile(percentile) / 1e3;
        }
    }

    private final String url;
    private final String relation;
    private final int rows;
    private volatile Phase phase = Phase.WARMUP;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Opened by the first client that fails, so the run stops at once rather than after its duration. */
    private final CountDownLatch failed = new CountDownLatch(1);

    PointSelectLoad(String url, String relation, int rows) {
        this.url = url;
        this.relation = relation;
        this.rows = rows;
    }

    /**
     * Runs {@code connections} clients with seeds {@code seed + i}: all connect and prepare first,
     * then warm up for {@code warmup} and are measured for {@code measure}. An instance runs once.
     *
     * @throws SQLException the first error any client met, after all clients have stopped
     */
    Result run(String target, int connections, Duration warmup, Duration measure, long seed)
            throws SQLException, InterruptedException {
        if (phase != Phase.WARMUP) throw new IllegalStateException("a PointSelectLoad runs once");
        CountDownLatch ready = new CountDownLatch(connections);
        CountDownLatch go = new CountDownLatch(1);
        List<Client> clients = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Client client = new Client(new SplittableRandom(seed + i), ready, go);
            clients.add(client);
            threads.add(Thread.ofPlatform().name(target + "-client-" + i).start(client));
        }
        ready.await();
        long start = 0;
        long end = 0;
        if (failure.get() == null) {
            go.countDown();
            failed.await(warmup.toNanos(), TimeUnit.NANOSECONDS);
            start = System.nanoTime();
            phase = Phase.MEASURE;
            failed.await(measure.toNanos(), TimeUnit.NANOSECONDS);
            phase = Phase.STOP;
            end = System.nanoTime();
        } else {
            phase = Phase.STOP;
            go.countDown();
        }
        for (Thread t : threads) t.join();
        Throwable error = failure.get();
        if (error instanceof SQLException e) throw e;
        if (error != null) throw new IllegalStateException(target + " with " + connections + " connections: " + error.getMessage(), error);
        Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
        long queries = 0;
        for (Client c : clients) {
            latency.add(c.latency);
            queries += c.measured;
        }
        return new Result(target, connections, queries, end - start, latency);
    }

    /** One connection's closed loop. */
    private final class Client implements Runnable {
        private final SplittableRandom keys;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
        long measured;

        Client(SplittableRandom keys, CountDownLatch ready, CountDownLatch go) {
            this.keys = keys;
            this.ready = ready;
            this.go = go;
        }

        @Override
        public void run() {
            boolean counted = false;
            try (Connection c = DriverManager.getConnection(url);
                 PreparedStatement select = c.prepareStatement("SELECT v FROM " + relation + " WHERE k = ?")) {
                ready.countDown();
                counted = true;
                go.await();
                Phase now;
                while ((now = phase) != Phase.STOP) {
                    long k = keys.nextLong(rows);
                    long t0 = System.nanoTime();
                    select.setLong(1, k);
                    String v;
                    try (ResultSet r = select.executeQuery()) {
                        v = r.next() ? r.getString(1) : null;
                        if (r.next()) throw new IllegalStateException("key " + k + " has more than one row");
                    }
                    long t1 = System.nanoTime();
                    if (!KvDataset.value(k).equals(v)) throw new IllegalStateException("key " + k + " answered " + v);
                    if (now == Phase.MEASURE) {
                        latency.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                        measured++;
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                phase = Phase.STOP;
                failed.countDown();
            } finally {
                if (!counted) ready.countDown();
            }
        }
    }
}
