package dev.tributary.server.storage;

import dev.tributary.arrangements.Paging;

import dev.tributary.arrangements.Updates;
import dev.tributary.storage.Blob;
import dev.tributary.storage.CasResult;
import dev.tributary.storage.CatalogEntry;
import dev.tributary.storage.Checkpoints;
import dev.tributary.storage.Consensus;
import dev.tributary.storage.DataDirectory;
import dev.tributary.storage.DurableCatalog;
import dev.tributary.storage.StorageException;
import dev.tributary.storage.TxnLog;
import dev.tributary.storage.VersionedData;
import dev.tributary.sql.SqlException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What a database keeps durable, and the one place the server talks to its stores: the catalog
 * (a shard of entries, one append per DDL statement), the tables (a write-ahead log with group
 * commit, flushed into one shard per table: {@link TxnLog}) and the timestamp oracle's
 * reservation (no time handed out before a restart is handed out again after it).
 *
 * <p>Contract for the coordinator: {@link #append} each commit at its time, in time order, before
 * the commit is visible anywhere; call {@link #awaitDurable} before answering any client, so that
 * no answer shows or acknowledges a write a crash could still take back.
 */
public final class StorageController implements AutoCloseable {
    private static final String TIMESTAMPS = "timestamps";

    private final Path where;
    private final AutoCloseable stores;
    private final Consensus consensus;
    private final DurableCatalog catalog;
    private final Consumer<String> log;
    private final TxnLog tables;
    private final Checkpoints checkpoints;
    /** Materialized views' outputs as shards, appended at each checkpoint. */
    private final dev.tributary.storage.OutputShards outputs;
    /** The latest checkpoint as found at open (null: none). */
    private final Checkpoints.Manifest checkpoint;
    private long timesSeqNo = Consensus.NO_VERSION;
    private long timesReserved = -1;

    /** Where this database's batches are paged (null: not paged). */
    private final Path spill;

    /** Where large arrangement batches are paged ({@link Paging}), if they are. */
    public Optional<Path> spillDirectory() {
        return Optional.ofNullable(spill);
    }

    private StorageController(Path where, AutoCloseable stores, Blob blob, Consensus consensus, Consumer<String> log) {
        this.log = log;
        this.where = where;
        this.stores = stores;
        this.consensus = consensus;
        this.catalog = DurableCatalog.open(blob, consensus);
        this.checkpoints = new Checkpoints(blob, consensus, log);
        this.outputs = new dev.tributary.storage.OutputShards(blob, consensus, log);
        // within the locked data directory, so no other process shares it; else this process's own
        this.spill = pageUnder(where != null ? where.resolve("spill")
                : Path.of(System.getProperty("java.io.tmpdir"), "tributary-spill-" + ProcessHandle.current().pid()));
        // the tables keep what a restart from the latest checkpoint replays, from the log's first flush on
        this.checkpoint = checkpoints.latest().orElse(null);
        this.tables = TxnLog.openHolding(blob, consensus, log, checkpoint == null ? -1 : checkpoint.at());
        Optional<VersionedData> t = consensus.head(TIMESTAMPS);
        if (t.isPresent()) {
            timesSeqNo = t.get().seqNo();
            timesReserved = ByteBuffer.wrap(t.get().data()).getLong();
        }
    }

    /**
     * The database in data directory {@code dir} (made if it does not exist), locked for this
     * process: a second one is refused with an error naming the holder.
     */
    public static StorageController open(Path dir, Consumer<String> log) {
        DataDirectory d = DataDirectory.open(dir);
        try {
            return new StorageController(d.path(), d, d.blob(), d.consensus(), log);
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /** Part size for paged batches by default: a batch is paged from four parts (4 MB) on, so that each arrangement keeps only its small batches on the heap, and a hundred parts fit the budget of a 1 GB heap. */
    static final long PART_BYTES = 1L << 20;

    /**
     * Lets arrangements outgrow the heap ({@link Paging}): large batches are kept in parts under
     * {@code spill}, with an eighth of the heap for the parts read lately; returns the directory
     * (null: paging is off). {@code -Dtributary.paging=false} turns it off;
     * {@code -Dtributary.paging.part.bytes} and {@code -Dtributary.paging.resident.bytes} size it.
     */
    private static Path pageUnder(Path spill) {
        if (!Boolean.parseBoolean(System.getProperty("tributary.paging", "true"))) return null;
        long part = Long.getLong("tributary.paging.part.bytes", PART_BYTES);
        long resident = Long.getLong("tributary.paging.resident.bytes", Math.max(4 * part, Runtime.getRuntime().maxMemory() / 8));
        Paging.enable(spill, resident, part);
        return spill;
    }

    /** The database in {@code blob} and {@code consensus} (S3 and PostgreSQL, say), closed with it. */
    public static StorageController open(Blob blob, Consensus consensus, Consumer<String> log) {
        return new StorageController(null, () -> {
            blob.close();
            consensus.close();
        }, blob, consensus, log);
    }

    /**
     * The database in the stores these locations name: {@code blob} is
     * {@code s3://BUCKET[/PREFIX][?endpoint=URL&region=REGION]} (credentials from
     * {@code AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY}), {@code consensus} is
     * {@code postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?table=NAME]} (or a
     * {@code jdbc:postgresql:} URL). Errors name the location and what was wrong with it.
     */
    public static StorageController open(String blob, String consensus, Consumer<String> log) {
        Blob b = s3(blob);
        try {
            return open(b, postgres(consensus), log);
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
    }

    static Blob s3(String location) {
        java.net.URI uri;
        try {
            uri = new java.net.URI(location);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("--blob " + location + " is not a URL: " + e.getMessage());
        }
        if (!"s3".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("--blob takes s3://BUCKET[/PREFIX][?endpoint=URL&region=REGION], not '" + location + "'");
        }
        Map<String, String> q = query(uri.getRawQuery(), "--blob");
        String endpoint = q.getOrDefault("endpoint", "https://s3.amazonaws.com");
        String region = q.getOrDefault("region", System.getenv().getOrDefault("AWS_REGION", "us-east-1"));
        String key = System.getenv("AWS_ACCESS_KEY_ID"), secret = System.getenv("AWS_SECRET_ACCESS_KEY");
        if (key == null || secret == null) throw new IllegalArgumentException("--blob " + location + " needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment");
        String prefix = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/+", "");
        return new dev.tributary.storage.S3Blob(dev.tributary.storage.S3Blob.client(java.net.URI.create(endpoint), region, key, secret), uri.getHost(), prefix);
    }

    /** The JDBC URL and table of a {@code postgres://} location (see {@link #open(String, String, Consumer)}). */
    static String[] jdbc(String location) {
        if (location.startsWith("jdbc:postgresql:")) return new String[] {location, "tributary_consensus"};
        java.net.URI uri;
        try {
            uri = new java.net.URI(location);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("--consensus " + location + " is not a URL: " + e.getMessage());
        }
        if (!("postgres".equals(uri.getScheme()) || "postgresql".equals(uri.getScheme())) || uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
            throw new IllegalArgumentException("--consensus takes postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?table=NAME], not '" + location + "'");
        }
        Map<String, String> q = query(uri.getRawQuery(), "--consensus");
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
        if (uri.getPort() > 0) url.append(':').append(uri.getPort());
        url.append(uri.getRawPath());
        String sep = "?";
        if (uri.getUserInfo() != null) {
            String[] userPassword = uri.getUserInfo().split(":", 2);
            url.append(sep).append("user=").append(java.net.URLEncoder.encode(userPassword[0], java.nio.charset.StandardCharsets.UTF_8));
            sep = "&";
            if (userPassword.length > 1) url.append(sep).append("password=").append(java.net.URLEncoder.encode(userPassword[1], java.nio.charset.StandardCharsets.UTF_8));
        }
        String table = q.getOrDefault("table", "tributary_consensus");
        if (!table.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException("--consensus table name '" + table + "' must be a lower-case SQL identifier");
        return new String[] {url.toString(), table};
    }

    private static Consensus postgres(String location) {
        String[] j = jdbc(location);
        return new dev.tributary.storage.PostgresConsensus(j[0], j[1]);
    }

    private static Map<String, String> query(String raw, String option) {
        Map<String, String> out = new java.util.TreeMap<>();
        if (raw == null || raw.isEmpty()) return out;
        for (String kv : raw.split("&")) {
            String[] p = kv.split("=", 2);
            if (p.length != 2) throw new IllegalArgumentException(option + ": '" + kv + "' is not NAME=VALUE");
            out.put(java.net.URLDecoder.decode(p[0], java.nio.charset.StandardCharsets.UTF_8), java.net.URLDecoder.decode(p[1], java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The data directory, or null for remote stores. */
    public Path where() {
        return where;
    }

    /** The catalog's entries, in id order. */
    public List<CatalogEntry> catalog() {
        return catalog.entries();
    }

    /** Makes a DDL statement's catalog changes durable, in one append; 58030 if the store refuses. */
    public void commitCatalog(List<CatalogEntry> added, List<CatalogEntry> removed) {
        if (added.isEmpty() && removed.isEmpty()) return;
        try {
            catalog.commit(added, removed);
        } catch (StorageException e) {
            throw new SqlException("58030", "could not write the catalog: " + e.getMessage());
        }
    }

    /** One more than the latest time any earlier run of the database handed out or wrote at. */
    public long recoveredUpper() {
        return Math.max(tables.upper(), timesReserved + 1);
    }

    /** Table {@code id}'s updates at or before {@code asOf}, part by part and not added up, each at the table's since (see {@link TxnLog#table(long, long, Consumer)}). */
    public void tablePartsAsOf(long id, long asOf, Consumer<Updates> each) {
        tables.table(id, asOf, each);
    }

    /** Table {@code id}'s updates after {@code after}, at their times, part by part (see {@link TxnLog#tableAfter}). */
    public void tablePartsAfter(long id, long after, Consumer<Updates> each) {
        tables.tableAfter(id, after, each);
    }

    /** Queues a commit's writes (table id to updates, all at {@code time}); see {@link TxnLog#append}. */
    public CompletableFuture<Void> append(long time, Map<Long, Updates> writes) {
        return tables.append(time, writes);
    }

    /** {@link #append(long, Map)} with parts {@link #prewrite} wrote, per table, put at {@code time} (see {@link TxnLog#append(long, Map, Map)}). */
    public CompletableFuture<Void> append(long time, Map<Long, Updates> writes, Map<Long, java.util.List<dev.tributary.storage.PartMeta>> written) {
        return tables.append(time, writes, written);
    }

    /** Writes rows of table {@code id} in the background before their transaction has a time (see {@link TxnLog#prewrite}). */
    public CompletableFuture<java.util.List<dev.tributary.storage.PartMeta>> prewrite(long id, Updates updates) {
        return tables.prewrite(id, updates);
    }

    /** Deletes prewritten parts no append will name. */
    public void discard(java.util.List<dev.tributary.storage.PartMeta> parts) {
        tables.discard(parts);
    }

    /** A future that completes once every write appended so far is durable (or fails if one never can be). */
    public CompletableFuture<Void> appended() {
        return tables.appended();
    }

    /**
     * Waits at most {@code millis} for {@code f} ({@link #appended} as it was): false if it is not
     * durable yet; 58030 if it never can be (the stores failed for good, or another server took
     * them over).
     */
    public boolean awaitDurable(CompletableFuture<Void> f, long millis) {
        if (f.isDone() && !f.isCompletedExceptionally()) return true;
        try {
            f.get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SqlException("57014", "interrupted while waiting for the write to become durable");
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new SqlException("58030", "could not make the write durable: " + cause.getMessage())
                    .withDetail("The server stops acknowledging writes until it is restarted.");
        }
    }

    /**
     * Reserves times up to {@code through}: recorded before any of them is handed out, so a
     * restart starts after them. Returns {@code through}.
     */
    public synchronized long reserveTimes(long through) {
        if (through <= timesReserved) return timesReserved;
        byte[] data = ByteBuffer.allocate(8).putLong(through).array();
        CasResult r = null;
        // a store that is down for a while holds the reservation (and the statement needing it)
        // back, as it holds writes back, rather than failing reads: retried with backoff
        long waitMs = 10;
        long deadline = System.nanoTime() + RESERVE_PATIENCE_NANOS;
        for (int attempt = 1; r == null; attempt++) {
            try {
                r = consensus.compareAndSet(TIMESTAMPS, timesSeqNo, data);
            } catch (StorageException e) {
                if (System.nanoTime() > deadline) {
                    throw new SqlException("58030", "could not record the timestamp oracle's reservation: " + e.getMessage());
                }
                if (attempt == 1 || attempt % 20 == 0) log.accept("recording the timestamp oracle's reservation failed (attempt " + attempt + "), retrying: " + e.getMessage());
                try {
                    Thread.sleep(waitMs);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new SqlException("57014", "interrupted while recording the timestamp oracle's reservation");
                }
                waitMs = Math.min(1000, waitMs * 2);
            }
        }
        switch (r) {
            case CasResult.Committed c -> {
                timesSeqNo = c.seqNo();
                if (timesSeqNo % 64 == 0) consensus.truncate(TIMESTAMPS, timesSeqNo);
            }
            case CasResult.Mismatch m -> {
                // a retried reservation whose first attempt landed before its reply was lost looks like this, with our own data
                Optional<VersionedData> cur = m.current();
                if (cur.isPresent() && cur.get().seqNo() == timesSeqNo + 1 && java.util.Arrays.equals(cur.get().data(), data)) {
                    timesSeqNo++;
                } else {
                    throw new SqlException("58030", "the timestamp oracle was taken over by another server; stop this one");
                }
            }
        }
        timesReserved = through;
        return through;
    }

    /** How long a reservation waits for a consensus store that is down before the statement fails (58030). */
    private static final long RESERVE_PATIENCE_NANOS = Long.getLong("tributary.store.patience.ms", 300_000) * 1_000_000;

    /** Keeps table {@code id}'s history from {@code since} on across restarts ({@code -1}: only its present). */
    public void holdSince(long id, long since) {
        tables.holdSince(id, since);
    }

    /** Keeps every table's history from {@code since} on across restarts: the latest checkpoint's time, after which a restart replays the tables. */
    public void holdAllSince(long since) {
        tables.holdAllSince(since);
    }

    /** The time before which table {@code id}'s stored history no longer tells times apart ({@code -1}: nothing stored). */
    public long tableSince(long id) {
        return tables.since(id);
    }

    /** The latest checkpoint as found when the stores were opened, if any. */
    public Optional<Checkpoints.Manifest> recoveredCheckpoint() {
        return Optional.ofNullable(checkpoint);
    }

    /** The dataflows' checkpoints in these stores. */
    public Checkpoints checkpoints() {
        return checkpoints;
    }

    /** Materialized views' outputs as shards: written by the checkpoint writer, dropped with their views. */
    public dev.tributary.storage.OutputShards outputs() {
        return outputs;
    }

    /** Table {@code id} is gone: its data is deleted at the log's next flush. */
    public void dropTable(long id) {
        tables.dropTable(id);
    }

    /** The ids of the tables the stores hold data of. */
    public java.util.Set<Long> tables() {
        return tables.tables();
    }

    @Override
    public void close() {
        if (spill != null) Paging.disable(spill);
        try {
            tables.close();
        } finally {
            try {
                stores.close();
            } catch (Exception e) {
                throw new StorageException("closing the stores failed: " + e.getMessage(), e);
            }
        }
    }
}
