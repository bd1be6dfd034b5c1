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
 * <p>It is the subscription's {@link Subscription.Listener} (or, after a {@link #feed()}, the new
 * feed is): batches are queued on the engine's thread and posted from a thread of its own. The
 * queue is bounded ({@link Options#maxQueuedBytes}, estimated): while the receiver is away the
 * subscription goes on producing, and an unbounded queue would hold all of it. A batch that would
 * pass the bound (with something queued already) is refused and so is everything after it: the
 * sink is <em>behind</em>, and tells its {@link Backlog}, which lets go of the subscription; once
 * the queue has drained (everything before the refused batch acknowledged) the backlog is told
 * the last acknowledged time, from which it subscribes again (a sink holds its history from
 * there) and hands the new subscription a fresh {@link #feed()}. Thread-safe.
 */
public final class HttpSink implements Subscription.Listener, AutoCloseable {
    /** The most a sink queues for its receiver by default: 64 MiB of batches (estimated). */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 64L << 20;

    /** How it retries, how big its requests are, and how much it queues for a receiver that is away. */
    public record Options(Duration firstBackoff, Duration maxBackoff, Duration requestTimeout, int maxChangesPerRequest, long maxQueuedBytes) {
        public Options {
            if (firstBackoff.isNegative() || firstBackoff.isZero() || maxBackoff.compareTo(firstBackoff) < 0) {
                throw new IllegalArgumentException("backoff: the first pause is positive and not above the longest");
            }
            if (maxChangesPerRequest < 1) throw new IllegalArgumentException("a request carries at least one change");
            if (maxQueuedBytes < 1) throw new IllegalArgumentException("the queue bound is positive");
        }

        public Options(Duration firstBackoff, Duration maxBackoff, Duration requestTimeout, int maxChangesPerRequest) {
            this(firstBackoff, maxBackoff, requestTimeout, maxChangesPerRequest, DEFAULT_MAX_QUEUED_BYTES);
        }

        /** 100 ms doubling to 30 s, 30 s per request, 10,000 changes per request, 64 MiB queued. */
        public static Options defaults() {
            return new Options(Duration.ofMillis(100), Duration.ofSeconds(30), Duration.ofSeconds(30), 10_000);
        }

        /** These options queuing at most {@code bytes}. */
        public Options withMaxQueuedBytes(long bytes) {
            return new Options(firstBackoff, maxBackoff, requestTimeout, maxChangesPerRequest, bytes);
        }
    }

    /**
     * What it has done, for the sink's status: besides requests and failures, what is queued now
     * (batches and estimated bytes), the most bytes ever queued at once, and how often it fell behind
     * (refused a batch past its bound and read again from its last acknowledged time).
     */
    public record Status(String state, long acknowledgedTime, long requests, long failures, String lastError, int queuedBatches, long queuedBytes,
                         long peakQueuedBytes, long fellBehind, long changesAcknowledged) {}

    /**
     * What the sink's owner does when the queue passes its bound: {@link #behind} (on an engine
     * thread, which must not wait for the subscription: let go of it elsewhere) and, once the
     * queue has drained, {@link #drained} (on the sink's thread) with the last acknowledged time,
     * to subscribe again after it with a new {@link #feed()}.
     */
    public interface Backlog {
        /** The subscription feeding feed number {@code feed} (0: this sink as the listener) is no longer read. */
        void behind(int feed);

        /** Everything queued is acknowledged, through {@code acknowledged}: subscribe again after it. */
        void drained(long acknowledged);
    }

    private record Queued(Result batch, long bytes) {}

    private final String name;
    private final URI url;
    private final Options options;
    private final LongConsumer acknowledged;
    private final Consumer<String> log;
    private final HttpClient client;
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    private Backlog backlog;
    private boolean closed;
    private boolean done;
    /** The query's error, once it failed (or the backlog failed it). */
    private SqlException failure;
    /** The feed batches are taken from (0: this sink itself as the listener); others' are late deliveries of a subscription let go of. */
    private int feed;

    /** The feed batches are taken from now (see {@link #feed()}). */
    public synchronized int currentFeed() {
        return feed;
    }
    /** Past the bound: batches are refused until the queue has drained and a new feed starts. */
    private boolean behind;
    /** The backlog was told it is behind: only then may it be told the queue drained (it subscribes again). */
    private boolean behindTold;
    private long queuedBytes;
    private long peakQueuedBytes;
    private long fellBehind;
    private long changesAcknowledged;
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

    /** What it does when its queue passes the bound; without one, falling behind ends it with 53400 (nothing could be read again). */
    public synchronized HttpSink backlog(Backlog b) {
        this.backlog = b;
        return this;
    }

    /**
     * The URL {@code url} as a receiver: an http or https URL with a host, else 22023 at
     * {@code pos}.
     */
    public static URI receiver(String url, int pos) {
        try {
            URI uri = new URI(url);
            if (uri.getScheme() != null && (uri.getScheme().equals("http") || uri.getScheme().equals("https")) && uri.getHost() != null) return uri;
        } catch (java.net.URISyntaxException e) {
            // refused below
        }
        throw new SqlException("22023", "URL '" + url + "' is not an http:// or https:// URL with a host", pos,
                "A receiver is written as 'https://host[:port]/path'.");
    }

    /** Starts posting. */
    public synchronized HttpSink start() {
        if (thread != null) throw new IllegalStateException("sink " + name + " is started already");
        thread = Thread.ofPlatform().daemon().name("sink " + name).start(this::loop);
        return this;
    }

    @Override
    public void onChanges(Result batch) {
        take(0, batch);
    }

    private void take(int from, Result batch) {
        if (batch.rows().isEmpty()) return;
        long bytes = bytes(batch);
        boolean fellNow = false;
        synchronized (this) {
            if (from != feed || behind || closed) return;
            if (!queue.isEmpty() && queuedBytes + bytes > options.maxQueuedBytes()) {
                behind = true;
                fellBehind++;
                fellNow = true;
            } else {
                queue.add(new Queued(batch, bytes));
                queuedBytes += bytes;
                peakQueuedBytes = Math.max(peakQueuedBytes, queuedBytes);
                notifyAll();
            }
        }
        if (fellNow) {
            log.accept("sink " + name + ": more than " + options.maxQueuedBytes() + " bytes of changes wait for " + url
                    + "; it stops taking them and reads them again from its last acknowledged time once the receiver has taken what is queued");
            Backlog b;
            synchronized (this) {
                b = backlog;
            }
            if (b != null) {
                b.behind(from);
                synchronized (this) {
                    behindTold = true;
                    notifyAll();
                }
            } else {
                // nobody holds the history to read again from (a session's statement): it ends
                onError(new SqlException("53400", "the receiver " + url + " fell behind: more than " + options.maxQueuedBytes()
                        + " bytes of changes were waiting for it", 0, "Make the receiver keep up, or CREATE SINK, which reads again from its last acknowledged time."));
            }
        }
    }

    /**
     * A new feed for a subscription that starts after the last acknowledged time, once the sink
     * fell behind and drained: batches of earlier feeds are ignored from now on.
     */
    public synchronized Subscription.Listener feed() {
        int mine = ++feed;
        behind = false;
        behindTold = false;
        done = false;
        return new Subscription.Listener() {
            @Override
            public void onChanges(Result batch) {
                take(mine, batch);
            }

            @Override
            public void onError(SqlException error) {
                synchronized (HttpSink.this) {
                    if (mine != feed) return;
                }
                HttpSink.this.onError(error);
            }

            @Override
            public void onDone() {
                synchronized (HttpSink.this) {
                    if (mine != feed) return;
                }
                HttpSink.this.onDone();
            }
        };
    }

    @Override
    public synchronized void onError(SqlException error) {
        if (failure != null) return;
        state = "stopped: " + error.getMessage() + " [" + error.sqlState() + "]";
        failure = error;
        done = true;
        notifyAll();
    }

    @Override
    public synchronized void onDone() {
        done = true;
        notifyAll();
    }

    public synchronized Status status() {
        return new Status(state, acknowledgedTime, requests, failures, lastError, queue.size(), queuedBytes, peakQueuedBytes, fellBehind, changesAcknowledged);
    }

    /**
     * Waits until everything it was given is acknowledged and its subscription is over; throws
     * the query's error, or what {@code stop} says (a cancel, a statement timeout: checked at
     * least every 100 ms, and at once when whoever cancels notifies this sink).
     */
    public synchronized void awaitEnd(java.util.function.Supplier<SqlException> stop) throws InterruptedException {
        while (true) {
            if (failure != null) throw failure;
            SqlException s = stop.get();
            if (s != null) throw s;
            if (done && queue.isEmpty()) return;
            wait(100);
        }
    }

    /** A batch's size as queued, estimated: its rows' values (text as UTF-16) and their arrays. */
    static long bytes(Result batch) {
        long n = 0;
        for (Object[] row : batch.rows()) {
            n += 16 + 8L * row.length;
            for (Object v : row) {
                n += switch (v) {
                    case null -> 0;
                    case String str -> 40 + 2L * str.length();
                    case byte[] b -> 16 + b.length;
                    default -> 24 + (v.getClass().isArray() ? 8L * java.lang.reflect.Array.getLength(v) : 0);
                };
            }
        }
        return n;
    }

    /** Waits up to {@code millis} ms until every queued batch is acknowledged; whether it was. */
    public synchronized boolean awaitIdle(long millis) throws InterruptedException {
        long until = System.nanoTime() + millis * 1_000_000;
        while (!queue.isEmpty() || behind) {
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
                    batch = queue.peek().batch();
                    snapshot = snapshotNext;
                }
                long time = ChangeBatchJson.time(batch);
                for (ChangeBatchJson.Part part : ChangeBatchJson.parts(name, batch, snapshot, options.maxChangesPerRequest())) {
                    if (!deliver(part)) return;
                }
                acknowledged.accept(time);
                Backlog resume = null;
                synchronized (this) {
                    queuedBytes -= queue.poll().bytes();
                    changesAcknowledged += batch.rows().size();
                    snapshotNext = false;
                    acknowledgedTime = time;
                    state = behind ? "behind: the receiver has " + queue.size() + " queued batches to take before the changes after them are read again" : "running";
                    notifyAll();
                    if (behind && queue.isEmpty()) {
                        while (!behindTold && !closed) wait();
                        if (closed) return;
                        resume = backlog;
                        state = "behind: reading again from " + time;
                    }
                }
                // everything before the refused batch is acknowledged: read again from here
                if (resume != null) resume.drained(time);
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
