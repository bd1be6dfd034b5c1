package dev.tributary.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * One configuration of a closed-loop comparison over JDBC: {@code connections} client threads,
 * each with its own connection, running one operation back to back (no think time), first for a
 * warm-up and then for a measured duration. What an operation is comes from an {@link Opener}:
 * the point selects of {@link PointSelectLoad}, the durable INSERTs of
 * {@link DurableWriteHarness}.
 *
 * <p>An operation times itself (it knows which part is the server's answer and which is the
 * client's check of it) and its latency is recorded into the thread's own {@link Histogram}
 * (merged at the end), so threads never contend on the recording. Only operations that start
 * while the measured phase is on are counted as measured; every completed one is counted in
 * {@link Result#completed}. An operation that throws fails the run at once, and the first error
 * is what {@link #run} throws: a fast wrong answer is no result.
 *
 * <p>The clients are stopped when the measured phase ends; one that has not returned from its
 * operation {@code grace} later has every client's connection aborted and the run fails, so a
 * server that hangs does not hang the harness.
 */
final class ClosedLoop {
    /** Latencies above this are recorded as this (an hour): never reached unless a server hangs. */
    private static final long MAX_LATENCY_NANOS = TimeUnit.HOURS.toNanos(1);

    private enum Phase { WARMUP, MEASURE, STOP }

    /** One client's operation, on its own connection. */
    interface Operation {
        /**
         * Runs the operation once and returns its latency in nanoseconds (of the part to time).
         * Throws on an error or a wrong answer.
         */
        long run() throws Exception;
    }

    /** Makes client {@code client}'s operation on its connection {@code c} (prepares its statements). */
    interface Opener {
        Operation open(int client, Connection c) throws SQLException;
    }

    /** What one configuration measured: {@code measured} operations over {@code elapsedNanos}, and all it completed. */
    record Result(String target, int connections, long measured, long completed, long elapsedNanos, Histogram latency) {
        double perSecond() {
            return measured * 1e9 / elapsedNanos;
        }

        double percentileMicros(double percentile) {
            return latency.getValueAtPercentile(percentile) / 1e3;
        }

        double percentileMillis(double percentile) {
            return latency.getValueAtPercentile(percentile) / 1e6;
        }
    }

    private final String url;
    private volatile Phase phase = Phase.WARMUP;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Opened by the first client that fails, so the run stops at once rather than after its duration. */
    private final CountDownLatch failed = new CountDownLatch(1);

    ClosedLoop(String url) {
        this.url = url;
    }

    /**
     * Runs {@code connections} clients opened by {@code opener}: all connect and prepare first,
     * then warm up for {@code warmup} and are measured for {@code measure}. An instance runs once.
     *
     * @throws SQLException the first error any client met, after all clients have stopped
     * @throws IllegalStateException a wrong answer, or clients still busy {@code grace} after the end
     */
    Result run(String target, int connections, Duration warmup, Duration measure, Duration grace, Opener opener)
            throws SQLException, InterruptedException {
        if (phase != Phase.WARMUP) throw new IllegalStateException("a ClosedLoop runs once");
        CountDownLatch ready = new CountDownLatch(connections);
        CountDownLatch go = new CountDownLatch(1);
        List<Client> clients = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Client client = new Client(i, opener, ready, go);
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
        long deadline = System.nanoTime() + grace.toNanos();
        for (Thread t : threads) t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        if (threads.stream().anyMatch(Thread::isAlive)) {
            for (Client c : clients) c.abort();
            for (Thread t : threads) t.join(Duration.ofSeconds(10));
            Throwable first = failure.get();
            throw new IllegalStateException(target + " with " + connections + " connections: clients still waiting for the server "
                    + grace.toSeconds() + " s after the end; their connections were aborted"
                    + (first == null ? "" : " (the first error: " + first + ")"), first);
        }
        Throwable error = failure.get();
        if (error instanceof SQLException e) throw e;
        if (error != null) throw new IllegalStateException(target + " with " + connections + " connections: " + error.getMessage(), error);
        Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
        long measured = 0;
        long completed = 0;
        for (Client c : clients) {
            latency.add(c.latency);
            measured += c.measured;
            completed += c.completed;
        }
        return new Result(target, connections, measured, completed, end - start, latency);
    }

    /** One connection's closed loop. */
    private final class Client implements Runnable {
        private final int index;
        private final Opener opener;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
        long measured;
        long completed;
        private volatile Connection connection;

        Client(int index, Opener opener, CountDownLatch ready, CountDownLatch go) {
            this.index = index;
            this.opener = opener;
            this.ready = ready;
            this.go = go;
        }

        void abort() {
            Connection c = connection;
            if (c == null) return;
            try {
                c.abort(Runnable::run);
            } catch (SQLException ignored) {
                // already closed
            }
        }

        @Override
        public void run() {
            boolean counted = false;
            try (Connection c = DriverManager.getConnection(url)) {
                connection = c;
                Operation op = opener.open(index, c);
                ready.countDown();
                counted = true;
                go.await();
                Phase now;
                while ((now = phase) != Phase.STOP) {
                    long nanos = op.run();
                    completed++;
                    if (now == Phase.MEASURE) {
                        latency.recordValue(Math.min(nanos, MAX_LATENCY_NANOS));
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
