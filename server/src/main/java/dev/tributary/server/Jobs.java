package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.CatalogItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The database's jobs: {@code CREATE JOB name AS INSERT INTO target query}, the query's changes
 * inserted into the target in the background, exactly once.
 *
 * <p>A job is a subscription to its query with progress, and a thread of its own that gathers
 * the changes the subscription delivers and, at a progress time {@code c} (everything before
 * it delivered), commits the rows gathered so far into the target together with the cursor
 * {@code c} in the job's own relation ({@code part, position}: {@code cursor}, and
 * {@code paused} while paused), in one commit through the tables' log. A restart resumes the
 * subscription after the durable cursor ({@code FROM CURSOR c}), so each change reaches the
 * target once. In system time the cursor is a commit time, and the job holds the history of
 * what it reads from its cursor on (the hold only ever moves to a cursor already durable); in
 * event time it is the watermark, and the query is built again from its streams' beginning, as
 * a subscription FROM CURSOR is. A job appends: a change that retracts a row (a result that is
 * not append-only) stops it with that error; EMIT ON WINDOW CLOSE makes a window's result final.
 *
 * <p>Kafka sinks ({@link KafkaSinkRunner}) are kept here too, as jobs whose thread writes to Kafka instead of a
 * target: they share the registry, the relation with its cursor, the holds, pause and stop.
 *
 * <p>Thread-safe: the coordinator calls it under its lock; job threads and SHOW JOBS without.
 */
final class Jobs {
    /** Commits of the cursor alone (no rows) at most this often. */
    static final long CURSOR_ONLY_COMMIT_MILLIS = 5000;

    /**
     * A job, or a Kafka sink ({@link KafkaSinkRunner}; {@link #sink} not null): its relation, its target and
     * statement, and what its thread has done. A sink shares a job's relation, cursor, hold,
     * pause and stop, and writes to Kafka instead of a target.
     */
    static final class Job {
        final CatalogItem.Table item;
        /** The job's statement; null for a sink. */
        final Statement.CreateJob statement;
        /** The sink's statement; null for a job. */
        final Statement.CreateSink sink;
        final String searchPath;
        /** A sink's: its Kafka options, its envelope (set when bound), the messages and Kafka's upper time written. */
        volatile dev.tributary.server.sink.KafkaSinkSettings kafka;
        volatile dev.tributary.server.sink.SinkEnvelope envelope;
        volatile long messages;
        volatile long kafkaUpper = -1;
        /** What {@link #bind} finds when the job starts: its target, the target's columns it writes, whether it runs in event time, what it reads. */
        volatile CatalogItem.Table target;
        volatile int[] targets;
        volatile boolean eventTime;
        /** The stored collections the query reads: in system time, held from the cursor on; null until bound. */
        volatile Set<Long> reads;
        final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
        volatile String state = "starting";
        volatile long rows;
        volatile long commits;
        /** The durable cursor (a system time in ms, or event-time ticks), Long.MIN_VALUE before the first. */
        volatile long cursor = Long.MIN_VALUE;
        /**
         * The earliest time what the job reads must keep (system time only; -1: none); 0, all of
         * it, until the job has read its cursor back: a read before that (its own, or a
         * recovery's) must not compact past it.
         */
        volatile long hold;
        volatile boolean paused;
        volatile boolean stopping;
        volatile Subscription subscription;
        Thread thread;

        Job(CatalogItem.Table item, Statement.CreateJob statement, String searchPath) {
            this(item, statement, null, searchPath);
        }

        /** A sink's runtime. */
        Job(CatalogItem.Table item, Statement.CreateSink sink, String searchPath) {
            this(item, null, sink, searchPath);
        }

        private Job(CatalogItem.Table item, Statement.CreateJob statement, Statement.CreateSink sink, String searchPath) {
            this.item = item;
            this.statement = statement;
            this.sink = sink;
            this.searchPath = searchPath;
        }

        /** "job" or "sink", for messages. */
        String kind() {
            return sink == null ? "job" : "sink";
        }

        /** The job's query as bound: what it writes and reads. */
        void bind(CatalogItem.Table target, int[] targets, boolean eventTime, Set<Long> reads) {
            this.target = target;
            this.targets = targets;
            this.eventTime = eventTime;
            this.reads = Set.copyOf(reads);
            if (eventTime) hold = -1;
        }

        /** Waits up to {@code millis} ms until {@code condition} holds of this job (checked at each commit and end); whether it does. */
        boolean await(java.util.function.Predicate<Job> condition, long millis) throws InterruptedException {
            long until = System.nanoTime() + millis * 1_000_000;
            synchronized (this) {
                while (!condition.test(this)) {
                    long left = until - System.nanoTime();
                    if (left <= 0) return false;
                    wait(Math.max(1, left / 1_000_000));
                }
                return true;
            }
        }

        /** Wakes {@link #await}ers: the job committed or ended. */
        synchronized void changed() {
            notifyAll();
        }

        /** What the job's subscription tells its thread: each batch, and its end (with the error, if any). */
        Subscription.Listener listener() {
            return new Subscription.Listener() {
                @Override
                public void onChanges(Result batch) {
                    events.add(batch);
                }

                @Override
                public void onError(SqlException error) {
                    events.add(new Ended(error));
                }

                @Override
                public void onDone() {
                    events.add(new Ended(null));
                }
            };
        }

        /** Whether the job runs (not paused, stopped or failed). */
        boolean running() {
            return thread != null && thread.isAlive() && !stopping;
        }
    }

    /** The end of a job's subscription: its inputs were dropped, or its query failed (error). */
    record Ended(SqlException error) {}

    private final Map<Long, Job> byId = new HashMap<>();
    private final List<Job> pending = new ArrayList<>();

    synchronized void created(Job j) {
        byId.put(j.item.id(), j);
        pending.add(j);
    }

    synchronized Job get(long id) {
        return byId.get(id);
    }

    /** The jobs made since the last call (by CREATE JOB or a recovery), to start. */
    synchronized List<Job> takePending() {
        List<Job> out = new ArrayList<>(pending);
        pending.clear();
        return out;
    }

    /** Every job and sink, in name order. */
    synchronized List<Job> all() {
        List<Job> out = new ArrayList<>(byId.values());
        out.sort(java.util.Comparator.comparing(j -> j.item.name()));
        return out;
    }

    /** A new runtime for {@code j}'s job in its place (j stopping), not started: a paused job. */
    synchronized Job replaced(Job j) {
        Job next = new Job(j.item, j.statement, j.sink, j.searchPath);
        if (j.reads != null) next.bind(j.target, j.targets, j.eventTime, j.reads);
        next.kafka = j.kafka;
        next.envelope = j.envelope;
        next.messages = j.messages;
        next.kafkaUpper = j.kafkaUpper;
        // a paused job still holds what it reads from its cursor on: it resumes there
        next.cursor = j.cursor;
        next.hold = j.hold;
        next.rows = j.rows;
        next.commits = j.commits;
        byId.put(j.item.id(), next);
        return next;
    }

    /** {@link #replaced}, and started once the statement ends: a resumed job. */
    synchronized Job restart(Job j) {
        Job next = replaced(j);
        pending.add(next);
        return next;
    }

    /** Object {@code id} is dropped: if it is a job, it stops (without waiting). */
    Job dropped(long id) {
        Job j;
        synchronized (this) {
            j = byId.remove(id);
            if (j == null) return null;
            pending.remove(j);
        }
        stop(j);
        return j;
    }

    /** Asks {@code j}'s thread to stop and closes its subscription; does not wait. */
    static void stop(Job j) {
        j.stopping = true;
        Subscription s = j.subscription;
        if (s != null) s.close();
        j.changed();
        Thread t = j.thread;
        // a sink's thread is not interrupted: an interrupt cuts the Kafka producer's close short
        // (its I/O thread left running, an error logged); it sees `stopping` within a second of
        // its poll or its pause, or once a Kafka call returns (15 s at most)
        if (t != null && j.sink == null) t.interrupt();
    }

    /**
     * The holds of the jobs in system time: per stored collection, the earliest time one of them
     * must still read; null while some job does not know yet what it reads (hold everything).
     */
    synchronized Map<Long, Long> holds() {
        Map<Long, Long> out = new HashMap<>();
        for (Job j : byId.values()) {
            if (j.hold < 0) continue;
            // what it reads is not known before it is bound (a recovery's): everything is held
            if (j.reads == null) return null;
            for (long id : j.reads) out.merge(id, j.hold, Math::min);
        }
        return out;
    }

    /** Stops every job's thread, waiting up to {@code millis} ms for each; without the coordinator's lock. */
    void stopAll(long millis) {
        List<Job> all;
        synchronized (this) {
            all = new ArrayList<>(byId.values());
            pending.clear();
        }
        for (Job j : all) stop(j);
        for (Job j : all) {
            Thread t = j.thread;
            if (t == null) continue;
            try {
                t.join(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * A job thread's loop: gathers the subscription's changes and commits them with the cursor
     * through {@code commit}, which returns once the commit is durable.
     */
    static void run(Job j, Committer commit) {
        // rows of the times before the latest progress (ready to go with its cursor), and after it
        List<Object[]> ready = new ArrayList<>();
        List<Object[]> open = new ArrayList<>();
        long cursor = j.cursor;
        long lastCommit = System.nanoTime();
        int width = j.targets.length;
        try {
            while (!j.stopping) {
                Object ev = j.events.poll(ready.isEmpty() && cursor == j.cursor ? 1000 : 20, TimeUnit.MILLISECONDS);
                if (ev instanceof Result batch) {
                    for (Object[] r : batch.rows()) {
                        if (Boolean.TRUE.equals(r[1])) {
                            cursor = j.eventTime ? dev.tributary.sql.expr.TimeWindows.ticks(r[0]) : ((java.time.Instant) r[0]).toEpochMilli();
                            ready.addAll(open);
                            open.clear();
                            continue;
                        }
                        long diff = (Long) r[2];
                        if (diff < 0) {
                            throw new SqlException("0A000", "the job's query retracted a row it had produced: a job appends its query's rows and cannot take one back", 0,
                                    "Use EMIT ON WINDOW CLOSE for windows' final results, or a materialized view for a result that changes.");
                        }
                        Object[] values = java.util.Arrays.copyOfRange(r, 3, 3 + width);
                        for (long k = 0; k < diff; k++) open.add(values);
                    }
                } else if (ev instanceof Ended end) {
                    if (end.error() != null) throw end.error();
                    if (!ready.isEmpty() || cursor != j.cursor) commit.commit(j, ready, cursor);
                    j.state = "stopped: what it reads was dropped";
                    return;
                }
                boolean due = !ready.isEmpty() ? ev == null || ready.size() >= 65_536
                        : cursor != j.cursor && System.nanoTime() - lastCommit >= CURSOR_ONLY_COMMIT_MILLIS * 1_000_000;
                if (due && !j.stopping) {
                    // the rows of the times before the cursor, with the cursor: a restart resumes after it
                    commit.commit(j, ready, cursor);
                    ready = new ArrayList<>();
                    lastCommit = System.nanoTime();
                }
            }
        } catch (InterruptedException | dev.tributary.server.source.SourceStopped e) {
            Thread.currentThread().interrupt();
            // stopping
        } catch (SqlException e) {
            j.state = "failed: " + e.getMessage() + " [" + e.sqlState() + "]";
            Subscription s = j.subscription;
            if (s != null) s.close();
            ServerLog.log("job " + j.item.name() + " failed: " + e.getMessage());
        } catch (RuntimeException e) {
            j.state = "failed: " + e;
            Subscription s = j.subscription;
            if (s != null) s.close();
            ServerLog.error("job " + j.item.name() + " failed: " + e, e);
        } finally {
            j.changed();
        }
    }

    /** Commits a job's rows and cursor at one time, returning once durable. */
    interface Committer {
        void commit(Job j, List<Object[]> rows, long cursor) throws InterruptedException;
    }
}
