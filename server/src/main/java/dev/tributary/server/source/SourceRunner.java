package dev.tributary.server.source;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs one source's {@link Connector} on a thread of its own and is its {@link SourceContext}.
 * A connector that fails (an I/O error, an outage it does not ride out itself) is run again
 * after a pause that doubles up to 30 s, resuming at the committed positions; one that returns,
 * or is stopped by a decode error, stays stopped until the server restarts. What it has done is
 * kept for SHOW SOURCES ({@link #status}), readable from any thread.
 */
public final class SourceRunner implements SourceContext {
    /**
     * Where a runner's commits go: the server writes {@code rows} into the source's table and moves
     * its progress rows from {@code before} to {@code after} (only the parts {@code after} names;
     * a part mapped to null has its row retracted) at one time; the future completes once that commit is durable.
     */
    public interface Ingest {
        /**
         * {@code rows} appended (ENVELOPE NONE) or {@code changes} applied to the rows of their
         * keys (a keyed source); one of the two is empty.
         *
         * @throws SourceStopped when the source is gone
         */
        CompletableFuture<Void> commit(List<Object[]> rows, List<SourceChange> changes, Map<String, String> before, Map<String, String> after);
    }

    /** A runner as SHOW SOURCES reports it. */
    /**
     * A runner as SHOW SOURCES reports it: {@code rows} handed over to be written by this run,
     * {@code durableRows} of them known to be durable (a pipelined commit's are not at once).
     */
    public record Status(String state, long rows, long decodeErrors, String lastError, String lastErrorPosition, Map<String, String> positions,
                         long durableRows) {}

    private static final long MAX_BACKOFF_MS = 30_000;

    private final String name;
    private final Map<String, String> options;
    private final Connector connector;
    private final Decoder decoder;
    private final Ingest ingest;
    private final boolean stopOnDecodeError;
    private final Consumer<String> log;
    /** Committed positions: changed (under its own lock) only by the connector's thread, after each commit is durable. */
    private final TreeMap<String, String> committed;
    /**
     * A read-only copy of {@link #committed} as of the last commit, made when first asked for
     * (guarded by {@code committed}): copying on every commit cost each commit time in the number
     * of parts, and a webhook keeps up to 100,000 idempotency keys as parts.
     */
    private Map<String, String> snapshot;
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong durableRows = new AtomicLong();
    private final AtomicLong decodeErrors = new AtomicLong();
    private volatile String lastError;
    private volatile String lastErrorPosition;
    private volatile String state = "starting";
    private volatile boolean stopping;
    private final Object pauses = new Object();
    private Thread thread;

    /**
     * A runner of {@code connector} for source {@code name}, resuming at {@code positions}; not
     * started. {@code log} takes what an operator should read in the server's log.
     */
    public SourceRunner(String name, Map<String, String> options, Connector connector, Decoder decoder, Ingest ingest, boolean stopOnDecodeError,
                        Map<String, String> positions, Consumer<String> log) {
        this.name = name;
        this.options = Map.copyOf(options);
        this.connector = connector;
        this.decoder = decoder;
        this.ingest = ingest;
        this.stopOnDecodeError = stopOnDecodeError;
        this.committed = new TreeMap<>(positions);
        this.log = log;
    }

    /** Starts the connector's thread. */
    public synchronized void start() {
        if (thread != null) throw new IllegalStateException("source " + name + " is started already");
        thread = Thread.ofPlatform().daemon().name("source " + name).start(this::loop);
    }

    /**
     * Asks the connector to stop and waits up to {@code millis} ms for its thread to end; whether it
     * did. With {@code millis} 0 it does not wait at all (not {@link Thread#join(long)}'s "forever"):
     * a DROP holds the coordinator's lock, which the connector's commit may be waiting for.
     */
    public boolean stop(long millis) {
        stopping = true;
        synchronized (pauses) {
            pauses.notifyAll();
        }
        connector.wakeUp();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null || t == Thread.currentThread()) return true;
        t.interrupt();
        if (millis <= 0) return !t.isAlive();
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !t.isAlive();
    }

    public Status status() {
        return new Status(state, rows.get(), decodeErrors.get(), lastError, lastErrorPosition, positions(), durableRows.get());
    }

    /**
     * Waits up to {@code millis} ms until {@code condition} holds of the status (checked at every
     * change of it: a commit, a decode error, a new state); whether it does.
     */
    public boolean awaitStatus(java.util.function.Predicate<Status> condition, long millis) throws InterruptedException {
        long until = System.nanoTime() + millis * 1_000_000;
        synchronized (changes) {
            while (!condition.test(status())) {
                long left = until - System.nanoTime();
                if (left <= 0) return false;
                changes.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /** Notified at every change of the status. */
    private final Object changes = new Object();

    private void changed() {
        synchronized (changes) {
            changes.notifyAll();
        }
    }

    private void loop() {
        long backoff = 1000;
        while (!stopping) {
            try {
                state("running");
                connector.run(this);
                state("stopped: the connector ended");
                return;
            } catch (SourceStopped s) {
                state("stopped: " + s.getMessage());
                return;
            } catch (Throwable t) {
                if (stopping) return;
                String why = t.getMessage() != null ? t.getMessage() : t.toString();
                state("retrying in " + backoff / 1000 + " s: " + why);
                log.accept("source " + name + " failed and is retried in " + backoff + " ms: " + t);
                pause(backoff);
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Map<String, String> options() {
        return options;
    }

    @Override
    public Map<String, String> positions() {
        synchronized (committed) {
            if (snapshot == null) snapshot = Collections.unmodifiableMap(new TreeMap<>(committed));
            return snapshot;
        }
    }

    @Override
    public void commit(List<Object[]> rows, Map<String, String> after) {
        commitPipelined(rows, after);
        awaitInFlight();
    }

    /** Waits until the last pipelined commit is durable. */
    private void awaitInFlight() {
        CompletableFuture<Void> last = inFlight;
        inFlight = null;
        await(last);
    }

    /** The last pipelined commit, not known to be durable yet (null: none). */
    private CompletableFuture<Void> inFlight;

    @Override
    public void commitPipelined(List<Object[]> rows, Map<String, String> after) {
        submit(rows, List.of(), after);
    }

    @Override
    public void commitChanges(List<SourceChange> changes, Map<String, String> after) {
        commitChangesPipelined(changes, after);
        awaitInFlight();
    }

    @Override
    public void commitChangesPipelined(List<SourceChange> changes, Map<String, String> after) {
        submit(List.of(), changes, after);
    }

    /** Hands a commit of {@code rows} or {@code changes} to the server, returning once the previous one is durable. */
    private void submit(List<Object[]> rows, List<SourceChange> changes, Map<String, String> after) {
        if (stopping) throw new SourceStopped("the source is stopping");
        if (rows.isEmpty() && changes.isEmpty() && after.isEmpty()) return;
        // read as it is: only this thread changes it
        Map<String, String> before = Collections.unmodifiableMap(committed);
        CompletableFuture<Void> durable = ingest.commit(rows, changes, before, after);
        int n = rows.size() + changes.size();
        durable.thenRun(() -> {
            durableRows.addAndGet(n);
            changed();
        });
        // the positions move at once: the rows are in the log's queue, and the next batch starts after them
        synchronized (committed) {
            after.forEach((part, at) -> {
                if (at == null) committed.remove(part);
                else committed.put(part, at);
            });
            snapshot = null;
        }
        this.rows.addAndGet(n);
        CompletableFuture<Void> previous = inFlight;
        inFlight = durable;
        changed();
        await(previous);
    }

    /** Waits until {@code durable} (null: nothing) is durable. */
    private void await(CompletableFuture<Void> durable) {
        if (durable == null) return;
        try {
            durable.get();
        } catch (InterruptedException e) {
            // the commit is in the log's queue and may land; a restart reads back what did
            Thread.currentThread().interrupt();
            throw new SourceStopped("interrupted while its commit became durable");
        } catch (ExecutionException e) {
            throw new IllegalStateException("the commit of source " + name + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    @Override
    public void decodeError(String position, String message) {
        decodeErrors.incrementAndGet();
        lastError = message;
        lastErrorPosition = position;
        changed();
        if (stopOnDecodeError) throw new SourceStopped("decode error at " + position + ": " + message);
    }

    @Override
    public Decoder decoder() {
        return decoder;
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    @Override
    public void pause(long millis) {
        long until = System.nanoTime() + millis * 1_000_000;
        synchronized (pauses) {
            while (!stopping) {
                long left = until - System.nanoTime();
                if (left <= 0) return;
                try {
                    pauses.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void state(String state) {
        if (stopping || state.equals(this.state)) return;
        this.state = state;
        changed();
    }
}
