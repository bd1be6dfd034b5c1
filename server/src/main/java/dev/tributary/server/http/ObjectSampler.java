package dev.tributary.server.http;

import dev.tributary.server.ObjectSample;
import dev.tributary.server.ServerLog;
import dev.tributary.server.Tributary;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The objects' lag and sizes for a scrape, read at most once per {@code maxAgeNanos}: a
 * {@link Tributary#sampleObjects sample} takes the coordinator and visits every worker, so a
 * statement holding the coordinator (a long CREATE MATERIALIZED VIEW) or a long step of the
 * workers would hold a scrape as long. The sample is read on a thread of its own, one at a time
 * (scrapes meanwhile share it); a scrape waits for it at most {@code waitNanos} and otherwise
 * gets the last sample, whose age {@code /metrics} shows.
 */
final class ObjectSampler implements AutoCloseable {
    private final Supplier<Tributary> database;
    private final long maxAgeNanos;
    private final long waitNanos;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("tributary-metrics-sampler").factory());
    /** The latest sample and the database it is of (a sample of another database is no sample). */
    private volatile Taken last;
    /** The sample being read, if one is (guarded by {@code this}). */
    private CompletableFuture<Taken> reading;

    private record Taken(Tributary of, ObjectSample.Samples samples) {}

    ObjectSampler(Supplier<Tributary> database, long maxAgeNanos, long waitNanos) {
        this.database = database;
        this.maxAgeNanos = maxAgeNanos;
        this.waitNanos = waitNanos;
    }

    /** A sample of {@code db} no older than the maximum age if one can be read in time, else the last one; null if there is none of it. */
    ObjectSample.Samples sample(Tributary db) {
        Taken t = last;
        if (t == null || t.of() != db || System.nanoTime() - t.samples().takenAtNanos() > maxAgeNanos) {
            try {
                t = read(db).get(waitNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                t = last; // the coordinator or the workers are busy: the last sample, and its age says how old
            } catch (ExecutionException e) {
                ServerLog.warn("could not sample the objects for /metrics: " + e.getCause());
                t = last;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                t = last;
            }
        }
        return t == null || t.of() != db ? null : t.samples();
    }

    private synchronized CompletableFuture<Taken> read(Tributary db) {
        if (reading == null || reading.isDone()) {
            reading = CompletableFuture.supplyAsync(() -> {
                Taken t = new Taken(db, db.sampleObjects());
                last = t;
                return t;
            }, thread);
        }
        return reading;
    }

    /** The database served now, or null while it is recovering. */
    Tributary database() {
        return database.get();
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
