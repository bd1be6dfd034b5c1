package dev.tributary.server.sink;

import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.sql.SqlException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Delivers a subscription's batches to an HTTP endpoint, at least once and in time order: each
 * batch is POSTed as JSON ({@link ChangeBatchJson}, with an {@code Idempotency-Key} per part
 * so the receiver can drop repeats), and a part that fails (no answer, a timeout, any status
 * but 2xx) is sent again after a pause doubling from {@link Options#firstBackoff} to
 * {@link Options#maxBackoff}, for as long as it takes: nothing is skipped, and nothing after it is
 * sent meanwhile. Once every part of a time is acknowledged, {@code acknowledged} is told that
 * time, so its owner can record it durably and resume after it.
 *
 * <p>It is the subscription's {@link Subscription.Listener}: batches are queued on the engine's
 * thread and posted from a thread of its own. The queue is not bounded here; the subscription's
 * own limit on rows left unread is what bounds it. Thread-safe.
 */
public final class HttpSink implements Subscription.Listener, AutoCloseable {
    /** How it retries and how big its requests are. */
    public record Options(Duration firstBackoff, Duration maxBackoff, Duration requestTimeout, int maxChangesPerRequest) {
        public Options {
            if (firstBackoff.isNegative() || firstBackoff.isZero() || maxBackoff.compareTo(firstBackoff) < 0) {
                throw new IllegalArgumentException("backoff: the first pause is positive and not above the longest");
            }
            if (maxChangesPerRequest < 1) throw new IllegalArgumentException("a request carries at least one change");
        }

        /** 100 ms doubling to 30 s, 30 s per request, 10,000 changes per request. */
        public static Options defaults() {
            return new Options(Duration.ofMillis(100), Duration.ofSeconds(30), Duration.ofSeconds(30), 10_000);
        }
    }

    /** What it has done, for the sink's status. */
    public record Status(String state, long acknowledgedTime, long requests, long failures, String lastError) {}

    private final String name;
    private final URI url;
    private final Options options;
    private final LongConsumer acknowledged;
    private final Consumer<String> log;
    private final HttpClient client;
    private final ArrayDeque<Result> queue = new ArrayDeque<>();
    private boolean closed;
    private boolean done;
    private String state = "running";
    private long acknowledgedTime = -1;
    private long requests;
    private long failures;
    private String lastError;
    private Thread thread;
    /** Whether the next batch is a snapshot (the subscription started with one): its parts say so. */
    private boolean snapshotNext;

    /**
     * A sink named {@code name} posting to {@code url}, not started; {@code acknowledged} is
     * called (on its thread) with each time once all of that time's changes are acknowledged.
     * {@code snapshotFirst}: the subscription starts with a snapshot, whose parts are marked
     * {@code "snapshot": true} so that a receiver can replace what it holds.
     */
    public HttpSink(String name, URI url, Options options, boolean snapshotFirst, LongConsumer acknowledged, Consumer<String> log) {
        this.snapshotNext = snapshotFirst;
        this.name = name;
        this.url = url;
        this.options = options;
        this.acknowledged = acknowledged;
        this.log = log;
        this.client = HttpClient.newBuilder().connectTimeout(options.requestTimeout()).build();
    }

    /** Starts posting. */
    public synchronized HttpSink start() {
        if (thread != null) throw new IllegalStateException("sink " + name + " is started already");
        thread = Thread.ofPlatform().daemon().name("sink " + name).start(this::loop);
        return this;
    }

    @Override
    public void onChanges(Result batch) {
        if (batch.rows().isEmpty()) return;
        synchronized (this) {
            queue.add(batch);
            notifyAll();
        }
    }

    @Override
    public synchronized void onError(SqlException error) {
        state = "stopped: the query failed: " + error.getMessage();
        done = true;
        notifyAll();
    }

    @Override
    public synchronized void onDone() {
        done = true;
        notifyAll();
    }

    public synchronized Status status() {
        return new Status(state, acknowledgedTime, requests, failures, lastError);
    }

    /** Waits up to {@code millis} ms until every queued batch is acknowledged; whether it was. */
    public synchronized boolean awaitIdle(long millis) throws InterruptedException {
        long until = System.nanoTime() + millis * 1_000_000;
        while (!queue.isEmpty()) {
            long left = until - System.nanoTime();
            if (left <= 0) return false;
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    private void loop() {
        try {
            while (true) {
                Result batch;
                boolean snapshot;
                synchronized (this) {
                    while (queue.isEmpty() && !closed && !done) wait();
                    if (closed || queue.isEmpty()) return;
                    batch = queue.peek();
                    snapshot = snapshotNext;
                }
                long time = ChangeBatchJson.time(batch);
                for (ChangeBatchJson.Part part : ChangeBatchJson.parts(name, batch, snapshot, options.maxChangesPerRequest())) {
                    if (!deliver(part)) return;
                }
                acknowledged.accept(time);
                synchronized (this) {
                    queue.poll();
                    snapshotNext = false;
                    acknowledgedTime = time;
                    state = "running";
                    notifyAll();
                }
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    /** Posts {@code part} until it is acknowledged; false when closed first. */
    private boolean deliver(ChangeBatchJson.Part part) throws InterruptedException {
        long backoff = options.firstBackoff().toMillis();
        while (true) {
            String failure;
            try {
                HttpRequest request = HttpRequest.newBuilder(url).timeout(options.requestTimeout())
                        .header("Content-Type", "application/json").header("Idempotency-Key", part.key())
                        .POST(HttpRequest.BodyPublishers.ofString(part.body())).build();
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                synchronized (this) {
                    requests++;
                }
                if (response.statusCode() / 100 == 2) return true;
                failure = "HTTP " + response.statusCode() + " from " + url + (response.body().isEmpty() ? "" : ": " + shorten(response.body()));
            } catch (IOException e) {
                synchronized (this) {
                    requests++;
                }
                failure = "no answer from " + url + ": " + e;
            }
            synchronized (this) {
                failures++;
                lastError = failure;
                state = "retrying in " + backoff + " ms: " + failure;
                if (failures == 1 || failures % 100 == 0) log.accept("sink " + name + ": " + failure + " (sent again in " + backoff + " ms; " + failures + " failures so far)");
                long until = System.nanoTime() + backoff * 1_000_000;
                while (!closed) {
                    long left = until - System.nanoTime();
                    if (left <= 0) break;
                    wait(Math.max(1, left / 1_000_000));
                }
                if (closed) return false;
            }
            backoff = Math.min(options.maxBackoff().toMillis(), backoff * 2);
        }
    }

    private static String shorten(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    /**
     * Asks it to stop, without waiting (its thread may be waiting for whoever calls this): what
     * is unacknowledged stays so, to be sent again by whoever resumes after the last acknowledged time.
     */
    public void stop() {
        Thread t;
        synchronized (this) {
            closed = true;
            state = "stopped";
            notifyAll();
            t = thread;
        }
        if (t != null) t.interrupt();
    }

    /** Stops it ({@link #stop}) and waits up to 10 s for its thread to end. */
    @Override
    public void close() {
        stop();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        client.close();
    }
}
