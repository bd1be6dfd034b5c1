package dev.tributary.server.source;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * A source FROM WEBHOOK: the bodies of HTTP POSTs, handed over by the server's HTTP port
 * ({@link #submit}), become rows. The connector's thread takes what has queued up, decodes each
 * body into records ({@link Decoder#messageRecords}: JSON values, an array's elements, lines, or
 * the whole body), writes all of them in one commit and only then answers each request, so a
 * request answered as written is durable.
 *
 * <p>A request is all or nothing: a body with one record that does not decode is refused whole
 * (counted as a decode error), and its sender is told why; nothing is ever skipped, which is why
 * such a source does not take {@code ON DECODE ERROR STOP}.
 *
 * <p>Idempotency: a request may carry a key. A key once written is a part of the source's
 * progress, {@code key:<key>} at {@code <epoch ms> <rows>}, committed with the request's rows;
 * a request with a key already written (before a restart too) is answered as that one was and
 * writes nothing. Keys in the same batch are answered by the first of them. Keys are forgotten
 * (their progress rows retracted in a later commit) after {@code IDEMPOTENCY RETENTION} seconds
 * or when more than {@code IDEMPOTENCY KEYS} are kept, oldest first; a commit's own keys are
 * always kept. The body of a repeated key is not compared with the first one's.
 *
 * <p>Options: {@code SECRET} (a request must present it; see the HTTP port), {@code MAX BODY
 * SIZE} (bytes, 16 MB by default), {@code IDEMPOTENCY KEYS} (100,000), {@code IDEMPOTENCY
 * RETENTION} (seconds, 86,400).
 *
 * <p>Thread-safe: {@link #submit} from any thread, {@link #run} on the source's.
 */
public final class WebhookConnector implements Connector {
    /** The options this connector takes. */
    public static final List<String> OPTIONS = List.of("SECRET", "MAX BODY SIZE", "IDEMPOTENCY KEYS", "IDEMPOTENCY RETENTION");
    /** The numeric options and their defaults. */
    static final Map<String, Long> DEFAULTS = Map.of("MAX BODY SIZE", 16L << 20, "IDEMPOTENCY KEYS", 100_000L, "IDEMPOTENCY RETENTION", 86_400L);
    /** The longest idempotency key taken. */
    public static final int MAX_KEY_LENGTH = 255;
    /** The prefix of an idempotency key's part in the progress table. */
    static final String KEY_PART = "key:";
    /** A batch ends after this many requests or body bytes. */
    private static final int BATCH_REQUESTS = 4096;
    private static final long BATCH_BYTES = 16 << 20;

    /** What became of a request. */
    public sealed interface Outcome {
        /** Its {@code rows} are durable (or were, by an earlier request with its key: {@code duplicate}). */
        record Written(long rows, boolean duplicate) implements Outcome {}

        /** Its body did not decode: nothing of it was written. */
        record Refused(String message) implements Outcome {}

        /** The source stopped (dropped, the server shutting down); {@code message} says whether it may have been written. */
        record Unavailable(String message) implements Outcome {}

        /** Writing failed for a reason not the sender's (a bug): {@code message}. */
        record Failed(String message) implements Outcome {}
    }

    /** A request handed to the connector: its outcome completes once it is decided. */
    public static final class Pending {
        final byte[] body;
        final String key;
        private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        /** Set by whoever decides it first: the connector taking it into a batch, or the sender giving up. */
        private final AtomicBoolean claimed = new AtomicBoolean();
        /** Requests of the same batch with the same key, answered as this one. */
        private List<Pending> followers;
        private long rows;

        Pending(byte[] body, String key) {
            this.body = body;
            this.key = key;
        }

        /** Completes with the request's outcome. */
        public CompletableFuture<Outcome> outcome() {
            return outcome;
        }

        /**
         * Takes the request back if the connector has not taken it into a batch yet; whether it
         * did (then it is never written). Once taken, its outcome always completes.
         */
        public boolean withdraw() {
            return claimed.compareAndSet(false, true);
        }

        private void complete(Outcome o) {
            outcome.complete(o);
            if (followers != null) {
                Outcome same = o instanceof Outcome.Written w ? new Outcome.Written(w.rows(), true) : o;
                for (Pending f : followers) f.outcome.complete(same);
            }
        }
    }

    /** An idempotency key written: when and how many rows. */
    private record Written(long atMillis, long rows) {}

    private final byte[] secretDigest;
    private final long maxBodyBytes;
    private final long maxKeys;
    private final long retentionMillis;
    private final LongSupplier clock;

    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Once stopped for good, requests are refused at once. */
    private boolean closed;
    /** Requests queued or in the batch being written, for tests that wait for requests to arrive. */
    private int waiting;

    /** Keys written and not yet forgotten, oldest first (only the connector's thread touches them). */
    private final LinkedHashMap<String, Written> keys = new LinkedHashMap<>();

    /** A connector with {@code options} (checked by {@link Connectors#checkedOptions}) on the wall clock. */
    public WebhookConnector(Map<String, String> options) {
        this(options, System::currentTimeMillis);
    }

    WebhookConnector(Map<String, String> options, LongSupplier clock) {
        String secret = options.get("SECRET");
        this.secretDigest = secret == null ? null : sha256(secret.getBytes(StandardCharsets.UTF_8));
        this.maxBodyBytes = number(options, "MAX BODY SIZE");
        this.maxKeys = number(options, "IDEMPOTENCY KEYS");
        this.retentionMillis = number(options, "IDEMPOTENCY RETENTION") * 1000;
        this.clock = clock;
    }

    static long number(Map<String, String> options, String name) {
        String v = options.get(name);
        return v == null ? DEFAULTS.get(name) : Long.parseLong(v);
    }

    /** Whether requests must present a secret. */
    public boolean hasSecret() {
        return secretDigest != null;
    }

    /** Whether {@code presented} is the source's secret, compared in time that does not depend on where they differ. */
    public boolean admits(String presented) {
        if (secretDigest == null) return true;
        if (presented == null) return false;
        // digests first: equal lengths, so the comparison's time says nothing about the secret's length either
        return MessageDigest.isEqual(secretDigest, sha256(presented.getBytes(StandardCharsets.UTF_8)));
    }

    /** The largest body taken, in bytes. */
    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /**
     * Queues a request's {@code body} with idempotency {@code key} (or null); its outcome
     * completes once it is written or refused, or at once if the source has stopped.
     */
    public Pending submit(byte[] body, String key) {
        Pending p = new Pending(body, key);
        synchronized (queue) {
            if (!closed) {
                queue.add(p);
                waiting++;
                queue.notifyAll();
                return p;
            }
        }
        p.claimed.set(true);
        p.complete(new Outcome.Unavailable("the source has stopped (dropped, or the server is shutting down): nothing was written"));
        return p;
    }

    /** Requests queued or being written. */
    public int waiting() {
        synchronized (queue) {
            return waiting;
        }
    }

    @Override
    public void wakeUp() {
        synchronized (queue) {
            queue.notifyAll();
        }
    }

    @Override
    public void run(SourceContext ctx) {
        restoreKeys(ctx.positions());
        try {
            while (!ctx.stopping()) {
                List<Pending> batch = take(ctx);
                if (batch.isEmpty()) continue;
                try {
                    write(ctx, batch);
                } finally {
                    synchronized (queue) {
                        waiting -= batch.size();
                    }
                }
            }
        } catch (SourceStopped stopped) {
            close();
            throw stopped;
        } finally {
            if (ctx.stopping()) close();
        }
    }

    /** Refuses what is queued and all that comes later: the source has stopped for good. */
    private void close() {
        List<Pending> left;
        synchronized (queue) {
            closed = true;
            left = new ArrayList<>(queue);
            queue.clear();
            waiting -= left.size();
        }
        for (Pending p : left) {
            if (p.claimed.compareAndSet(false, true)) {
                p.complete(new Outcome.Unavailable("the source stopped (dropped, or the server is shutting down) before the request was written: nothing was written"));
            }
        }
    }

    /** Waits for requests and takes those queued, up to a batch's limits; empty when stopping (or woken without any). */
    private List<Pending> take(SourceContext ctx) {
        List<Pending> batch = new ArrayList<>();
        synchronized (queue) {
            while (queue.isEmpty() && !ctx.stopping()) {
                try {
                    queue.wait(1000);
                } catch (InterruptedException e) {
                    // a stop interrupts: the loop's condition says whether to go on
                    if (ctx.stopping()) return batch;
                }
            }
            long bytes = 0;
            while (!queue.isEmpty() && batch.size() < BATCH_REQUESTS && (batch.isEmpty() || bytes + queue.peek().body.length <= BATCH_BYTES)) {
                Pending p = queue.poll();
                if (!p.claimed.compareAndSet(false, true)) {
                    waiting--; // its sender gave up waiting
                    continue;
                }
                bytes += p.body.length;
                batch.add(p);
            }
        }
        return batch;
    }

    /** Decodes the batch's requests, commits the rows of those that decoded with their keys, then answers each. */
    private void write(SourceContext ctx, List<Pending> batch) {
        Decoder decoder = ctx.decoder();
        SourceBatch records = new SourceBatch(decoder);
        Map<String, String> positions = new HashMap<>();
        Map<String, Pending> keyed = new HashMap<>();
        List<Pending> accepted = new ArrayList<>();
        long now = clock.getAsLong();
        for (Pending p : batch) {
            if (p.key != null) {
                Written done = keys.get(p.key);
                // a key past its retention is as good as forgotten, even before a commit has retracted it
                if (done != null && done.atMillis() > now - retentionMillis) {
                    p.complete(new Outcome.Written(done.rows(), true));
                    continue;
                }
                Pending first = keyed.get(p.key);
                if (first != null) {
                    if (first.followers == null) first.followers = new ArrayList<>();
                    first.followers.add(p);
                    continue;
                }
            }
            int before = records.size();
            try {
                decode(decoder, p.body, records);
            } catch (DecodeException e) {
                records.truncate(before);
                ctx.decodeError(p.key == null ? "request" : "request with Idempotency-Key " + p.key, e.getMessage());
                p.complete(new Outcome.Refused(e.getMessage()));
                continue;
            }
            p.rows = records.size() - before;
            if (p.key != null) {
                keyed.put(p.key, p);
                positions.put(KEY_PART + p.key, now + " " + p.rows);
            }
            accepted.add(p);
        }
        if (accepted.isEmpty()) return;
        List<String> forgotten = forget(now, keyed.size(), keyed.keySet());
        for (String k : forgotten) positions.put(KEY_PART + k, null);
        try {
            records.commit(ctx, positions, false);
        } catch (SourceStopped e) {
            for (Pending p : accepted) {
                p.complete(new Outcome.Unavailable("the source stopped (dropped, or the server is shutting down) while the request was written: "
                        + "it may or may not have been; send it again with the same Idempotency-Key"));
            }
            throw e;
        } catch (RuntimeException e) {
            for (Pending p : accepted) p.complete(new Outcome.Failed("the rows could not be written: " + e.getMessage()));
            throw e;
        }
        for (String k : forgotten) keys.remove(k);
        for (Pending p : accepted) {
            if (p.key != null) {
                keys.remove(p.key); // an expired key written again goes to the end: it is the newest
                keys.put(p.key, new Written(now, p.rows));
            }
            p.complete(new Outcome.Written(p.rows, false));
        }
    }

    /**
     * The keys to forget in a commit at {@code now} that adds {@code adding} keys: those past
     * retention, then the oldest beyond the limit; not those in {@code rewritten} (expired keys
     * written again by the commit, whose progress rows it moves instead).
     */
    private List<String> forget(long now, int adding, java.util.Set<String> rewritten) {
        List<String> out = new ArrayList<>();
        long excess = keys.size() + adding - maxKeys;
        Iterator<Map.Entry<String, Written>> it = keys.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Written> e = it.next();
            if (rewritten.contains(e.getKey())) {
                excess--;
                continue;
            }
            boolean expired = e.getValue().atMillis() <= now - retentionMillis;
            if (!expired && out.size() >= excess) break;
            out.add(e.getKey());
        }
        return out;
    }

    /** The keys the progress table holds, oldest first. */
    private void restoreKeys(Map<String, String> positions) {
        keys.clear();
        List<Map.Entry<String, Written>> found = new ArrayList<>();
        for (Map.Entry<String, String> e : positions.entrySet()) {
            if (!e.getKey().startsWith(KEY_PART)) continue;
            String[] v = e.getValue().split(" ");
            found.add(Map.entry(e.getKey().substring(KEY_PART.length()), new Written(Long.parseLong(v[0]), Long.parseLong(v[1]))));
        }
        found.sort(Map.Entry.comparingByValue(java.util.Comparator.comparingLong(Written::atMillis)));
        for (Map.Entry<String, Written> e : found) keys.put(e.getKey(), e.getValue());
    }

    /** Adds {@code body}'s records to {@code rows}; a record that does not decode fails the whole body. */
    static void decode(Decoder decoder, byte[] body, SourceBatch rows) throws DecodeException {
        switch (decoder.messageRecords()) {
            case WHOLE -> add(body, 0, body.length, 1, rows);
            case JSON_VALUES -> {
                byte[] flat = JsonRecords.flatten(body);
                int n = 0;
                for (int[] r : JsonRecords.records(flat)) add(flat, r[0], r[1] - r[0], ++n, rows);
            }
            case LINES -> {
                int from = 0, n = 0;
                while (from < body.length) {
                    int end = decoder.recordEnd(body, from, body.length);
                    int next = end < 0 ? body.length : end + 1;
                    if (end < 0) end = body.length;
                    int to = end > from && body[end - 1] == '\r' ? end - 1 : end;
                    if (!(from == 0 && decoder.header())) add(body, from, to - from, ++n, rows);
                    from = next;
                }
            }
        }
    }

    private static void add(byte[] b, int off, int len, int record, SourceBatch rows) throws DecodeException {
        try {
            rows.decode(b, off, len);
        } catch (DecodeException e) {
            throw new DecodeException("record " + record + ": " + e.getMessage());
        }
    }
}
