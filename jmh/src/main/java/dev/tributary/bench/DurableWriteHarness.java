package dev.tributary.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.util.PSQLException;

/**
 * Durable writes over the wire, side by side: Tributary's {@code serve} with a data directory and
 * a PostgreSQL server with its default settings ({@code fsync} and {@code synchronous_commit}
 * on), driven by the same JDBC client. Four measurements, each printed as a line when it ends:
 * <ol>
 * <li><b>durable INSERT</b>: for each {@code --connections} count and each target, a fresh
 *   {@code w (k bigint PRIMARY KEY, v text)} and that many clients, each on its own connection in
 *   autocommit, executing the prepared {@code INSERT INTO w (k, v) VALUES (?, ?)} back to back
 *   with keys of its own ({@code n * connections + client}), by {@link ClosedLoop}: a warm-up,
 *   then {@code --seconds} measured; commits/s and p50/p99/p99.9 of the time from binding to the
 *   acknowledgement. Afterwards {@code count(*)} and {@code sum(k)} of {@code w} must be those of
 *   the commits acknowledged (warm-up included).
 * <li><b>COPY</b>: a fresh {@code bulk (id bigint PRIMARY KEY, customer int, amount
 *   numeric(10,2), note text)} filled by one {@code COPY bulk FROM STDIN} (text) of
 *   {@code --copy-rows} rows made from {@code --seed} as the driver reads them ({@link
 *   RowReader}, streamed through pgjdbc's {@code CopyManager.copyIn}, never a file); seconds and
 *   rows/s until the COPY returned. Then {@code count(*)}, {@code sum(customer)} and
 *   {@code sum(amount)} must be the generator's.
 * <li><b>bytes on disk</b> after the COPY and a wait of {@code --settle-seconds}: PostgreSQL's
 *   {@code pg_total_relation_size('bulk')} (heap, TOAST and the primary key's index) and
 *   {@code pg_database_size} before and after the COPY (neither counts the WAL); Tributary's data
 *   directory ({@code --tributary-data}, file sizes summed, its log included) before and after.
 *   Per row: the table's size and the growth over the COPY. For PostgreSQL also the WAL written
 *   meanwhile ({@code pg_wal_lsn_diff}), which its sizes leave out.
 * <li><b>commit to subscriber</b>, Tributary only: one connection runs {@code COPY (SUBSCRIBE w2)
 *   TO STDOUT} through {@code CopyManager.copyOut} into a stream that parses each row as it
 *   arrives; another inserts into {@code w2 (k bigint PRIMARY KEY, sent bigint)} at
 *   {@code --subscribe-rate} rows a second, {@code sent} being the {@link System#nanoTime} taken
 *   just before the INSERT is sent. A row's latency is from that to the subscriber reading it
 *   (both in this JVM); after the warm-up, for {@code --seconds}. Every inserted row must arrive
 *   once, as an insertion, within {@value #VISIBLE_TIMEOUT_SECONDS} s of the last INSERT, and no
 *   other; the stream is then cancelled (57014 expected) and {@code count(*)} checked.
 * </ol>
 * Which target is Tributary is told by {@code version()}. Latencies go into HdrHistograms (ns, 3
 * digits). At the end, a Markdown table ({@link FigureTable}): a row per figure, a column per
 * target, and with two targets the first's figure over the second's.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.tributary.bench.DurableWriteHarness \
 *   --target tributary=jdbc:postgresql://127.0.0.1:6875/tributary?user=tributary \
 *   --target postgres=jdbc:postgresql://127.0.0.1:15452/postgres?user=postgres \
 *   --tributary-data DIR [options: see {@link #USAGE}]
 * </pre>
 * {@code jmh/durable-compare.sh} starts both servers and runs this.
 *
 * <p>Every phase is bounded: a statement still running {@code --phase-timeout-seconds} past its
 * phase's planned end (the COPY: its start) has its connections aborted and fails that
 * measurement. A failed measurement (a server error, a timeout, a wrong answer) prints why, the
 * others go on, and the run exits with status 1.
 *
 * <p>Like {@link PointSelectHarness}, a main class rather than a JMH benchmark: the servers are
 * other processes that the script starts once, with state (the data directory, the tables) that
 * each phase builds on; the figures are per server and per connection count side by side in one
 * report, from HdrHistograms, and two of them (bytes on disk, the subscriber's latency) are not a
 * benchmark method's time at all.
 */
public final class DurableWriteHarness {
    private DurableWriteHarness() {}

    static final String USAGE = """
            usage: DurableWriteHarness --target NAME=JDBC_URL [--target NAME=JDBC_URL ...] [options]
              --connections 1,4,16         client counts of the INSERT phase
              --warmup S                   unmeasured seconds before each timed run (default 5)
              --seconds S                  measured seconds of each timed run (default 10)
              --copy-rows N                rows of the COPY (default 10000000)
              --seed N                     seed of the COPY's rows (default 7)
              --tributary-data DIR         the Tributary target's data directory, for its bytes on disk
              --settle-seconds S           wait before measuring bytes on disk (default 5)
              --subscribe-rate N           INSERTs per second of the subscriber phase (default 200)
              --phase-timeout-seconds S    a phase still running this long past its planned end fails (default 1800)
            """;

    /** How long a subscriber may take to show the last row inserted before that phase fails. */
    static final int VISIBLE_TIMEOUT_SECONDS = 60;

    /** The parsed command line. */
    record Options(List<Target> targets, int[] connections, Duration warmup, Duration measure, long copyRows,
                   long seed, Path tributaryData, Duration settle, int subscribeRate, Duration phaseTimeout) {}

    public static void main(String[] args) throws Exception {
        Options o = HarnessFailure.optionsOrExit("DurableWriteHarness", USAGE, args, DurableWriteHarness::parse);
        if (o == null) return;
        DriverManager.setLoginTimeout(60);
        System.out.printf(Locale.ROOT, "client: JDK %s, %s; INSERT at %s connections, warm-up %d s, measured %d s; COPY of %,d rows from seed %d;"
                        + " bytes on disk after %d s; subscriber at %d INSERTs/s; phase timeout %d s%n",
                Runtime.version(), org.postgresql.util.DriverInfo.DRIVER_FULL_NAME, Arrays.toString(o.connections()),
                o.warmup().toSeconds(), o.measure().toSeconds(), o.copyRows(), o.seed(), o.settle().toSeconds(),
                o.subscribeRate(), o.phaseTimeout().toSeconds());
        Map<Target, Boolean> tributary = new LinkedHashMap<>();
        for (Target t : o.targets()) {
            try (Connection c = DriverManager.getConnection(t.url()); Statement s = c.createStatement()) {
                DatabaseMetaData meta = c.getMetaData();
                String version = queryString(s, "SELECT version()");
                tributary.put(t, version.contains("Tributary"));
                System.out.printf("%s: %s %s at %s (%s)%n", t.name(), meta.getDatabaseProductName(), meta.getDatabaseProductVersion(), t.url(), version);
                if (!version.contains("Tributary")) {
                    System.out.printf("%s: fsync = %s, synchronous_commit = %s, full_page_writes = %s, wal_sync_method = %s, shared_buffers = %s%n", t.name(),
                            queryString(s, "SHOW fsync"), queryString(s, "SHOW synchronous_commit"), queryString(s, "SHOW full_page_writes"),
                            queryString(s, "SHOW wal_sync_method"), queryString(s, "SHOW shared_buffers"));
                }
            } catch (SQLException e) {
                System.out.printf("%s: cannot connect: %s%n", t.name(), e.getMessage());
                System.exit(1);
            }
        }
        long tributaries = tributary.values().stream().filter(b -> b).count();
        if (o.tributaryData() != null) {
            if (tributaries != 1) {
                System.err.println("DurableWriteHarness: --tributary-data needs exactly one Tributary target, not " + tributaries);
                System.exit(2);
            }
            if (!Files.isDirectory(o.tributaryData())) {
                System.err.println("DurableWriteHarness: --tributary-data " + o.tributaryData() + " is not a directory");
                System.exit(2);
            }
        }
        System.out.println();

        FigureTable report = new FigureTable(phase -> 0); // phases in the order they ran
        List<String> failures = new ArrayList<>();
        for (int connections : o.connections()) {
            for (Target t : o.targets()) {
                String what = String.format(Locale.ROOT, "%-10s INSERT, %2d connections", t.name(), connections);
                try {
                    ClosedLoop.Result r = inserts(o, t, connections);
                    System.out.printf(Locale.ROOT, "%s: %,9.0f commits/s  p50 %7.3f ms  p99 %7.3f ms  p99.9 %7.3f ms  max %8.3f ms  (%,d measured, %,d in w)%n",
                            what, r.perSecond(), r.percentileMillis(50), r.percentileMillis(99), r.percentileMillis(99.9),
                            r.latency().getMaxValue() / 1e6, r.measured(), r.completed());
                    String phase = "INSERT, " + connections + (connections == 1 ? " connection" : " connections");
                    report.put(phase, "commits/s", "%,.0f", t.name(), r.perSecond());
                    report.put(phase, "p50 ms", "%.3f", t.name(), r.percentileMillis(50));
                    report.put(phase, "p99 ms", "%.3f", t.name(), r.percentileMillis(99));
                    report.put(phase, "p99.9 ms", "%.3f", t.name(), r.percentileMillis(99.9));
                } catch (Exception e) {
                    failures.add(failed(what, e));
                }
            }
        }
        for (Target t : o.targets()) {
            String what = String.format(Locale.ROOT, "%-10s COPY of %,d rows", t.name(), o.copyRows());
            try {
                copy(o, t, tributary.get(t), report);
            } catch (Exception e) {
                failures.add(failed(what, e));
            }
        }
        for (Target t : o.targets()) {
            if (!tributary.get(t)) continue;
            String what = String.format(Locale.ROOT, "%-10s commit to subscriber", t.name());
            try {
                subscribe(o, t, report);
            } catch (Exception e) {
                failures.add(failed(what, e));
            }
        }
        System.out.println();
        System.out.print(report.table(o.targets()));
        if (!failures.isEmpty()) {
            System.out.println();
            failures.forEach(System.out::println);
            System.exit(1);
        }
    }

    private static String failed(String what, Exception e) {
        String message = what + ": FAILED: " + switch (e) {
            case SQLException s -> "SQLSTATE " + s.getSQLState() + ": " + s.getMessage();
            case HarnessFailure f -> f.getMessage() + (f.getCause() == null ? "" : " (" + f.getCause() + ")");
            default -> e.toString();
        };
        System.out.println(message);
        return message;
    }

    // ---- durable INSERT ----

    /** One client of the INSERT phase: keys {@code n * connections + client}, n counting its acknowledged commits. */
    private static final class Inserter implements ClosedLoop.Operation {
        private final PreparedStatement insert;
        private final int client;
        private final int connections;
        long acknowledged;

        Inserter(Connection c, int client, int connections) throws SQLException {
            this.insert = c.prepareStatement("INSERT INTO w (k, v) VALUES (?, ?)");
            this.client = client;
            this.connections = connections;
        }

        @Override
        public long run() throws SQLException {
            long k = acknowledged * connections + client;
            long t0 = System.nanoTime();
            insert.setLong(1, k);
            insert.setString(2, "w-" + k);
            int n = insert.executeUpdate();
            long t1 = System.nanoTime();
            if (n != 1) throw new IllegalStateException("INSERT of key " + k + " reported " + n + " rows");
            acknowledged++;
            return t1 - t0;
        }

        /** The sum of the keys this client committed. */
        long keySum() {
            return connections * (acknowledged * (acknowledged - 1) / 2) + (long) client * acknowledged;
        }
    }

    private static ClosedLoop.Result inserts(Options o, Target t, int connections) throws Exception {
        try (Connection c = DriverManager.getConnection(t.url()); Statement s = c.createStatement()) {
            bounded(t.name() + " creating w", o.phaseTimeout(), () -> {
                s.execute("DROP TABLE IF EXISTS w");
                s.execute("CREATE TABLE w (k bigint PRIMARY KEY, v text)");
                return null;
            }, c);
        }
        List<Inserter> inserters = Collections.synchronizedList(new ArrayList<>());
        ClosedLoop.Result r = new ClosedLoop(t.url()).run(t.name(), connections, o.warmup(), o.measure(), o.phaseTimeout(), (client, c) -> {
            Inserter i = new Inserter(c, client, connections);
            inserters.add(i);
            return i;
        });
        long count = inserters.stream().mapToLong(i -> i.acknowledged).sum();
        long sum = inserters.stream().mapToLong(Inserter::keySum).sum();
        if (count != r.completed()) throw new HarnessFailure("the clients counted " + count + " commits, the loop " + r.completed());
        try (Connection c = DriverManager.getConnection(t.url()); Statement s = c.createStatement()) {
            bounded(t.name() + " checking w", o.phaseTimeout(), () -> {
                try (ResultSet rs = s.executeQuery("SELECT count(*), sum(k) FROM w")) {
                    rs.next();
                    long found = rs.getLong(1);
                    long foundSum = rs.getLong(2);
                    if (found != count || foundSum != sum) {
                        throw new HarnessFailure("after " + count + " acknowledged commits (keys summing to " + sum + ") w holds "
                                + found + " rows (keys summing to " + foundSum + ")");
                    }
                }
                return null;
            }, c);
        }
        return r;
    }

    // ---- COPY and bytes on disk ----

    /**
     * The COPY's rows in text format, made as they are read: {@code id} 1..rows in order, a
     * customer in 1..100000, an amount of 0.00..99999.99 and a note of 10 to 40 lowercase letters,
     * all drawn from one generator seeded {@code seed}; it sums what the check reads back.
     */
    static final class RowReader extends Reader {
        private static final int CHUNK = 1 << 16;
        private final SplittableRandom random;
        private final long rows;
        private long next = 1;
        private final StringBuilder chunk = new StringBuilder(CHUNK + 128);
        private int pos;
        long customerSum;
        long amountCentsSum;

        RowReader(long seed, long rows) {
            this.random = new SplittableRandom(seed);
            this.rows = rows;
        }

        @Override
        public int read(char[] buf, int off, int len) {
            if (len == 0) return 0;
            if (pos == chunk.length()) {
                if (next > rows) return -1;
                refill();
            }
            int n = Math.min(len, chunk.length() - pos);
            chunk.getChars(pos, pos + n, buf, off);
            pos += n;
            return n;
        }

        private void refill() {
            chunk.setLength(0);
            pos = 0;
            while (chunk.length() < CHUNK && next <= rows) {
                int customer = 1 + random.nextInt(100_000);
                long cents = random.nextLong(10_000_000);
                customerSum += customer;
                amountCentsSum += cents;
                chunk.append(next++).append('\t').append(customer).append('\t').append(cents / 100).append('.');
                long fraction = cents % 100;
                if (fraction < 10) chunk.append('0');
                chunk.append(fraction).append('\t');
                for (int i = 10 + random.nextInt(31); i > 0; i--) chunk.append((char) ('a' + random.nextInt(26)));
                chunk.append('\n');
            }
        }

        /** How many rows have been made so far. */
        long made() {
            return next - 1;
        }

        @Override
        public void close() {}
    }

    private static void copy(Options o, Target t, boolean tributary, FigureTable report) throws Exception {
        long rows = o.copyRows();
        Path dir = tributary ? o.tributaryData() : null;
        try (Connection c = DriverManager.getConnection(t.url()); Statement s = c.createStatement()) {
            bounded(t.name() + " COPY", o.phaseTimeout().plus(o.settle().multipliedBy(2)), () -> {
                s.execute("DROP TABLE IF EXISTS bulk");
                s.execute("CREATE TABLE bulk (id bigint PRIMARY KEY, customer int, amount numeric(10,2), note text)");
                Thread.sleep(o.settle());
                long before = tributary ? (dir == null ? -1 : directorySize(dir)) : queryLong(s, "SELECT pg_database_size(current_database())");
                String walBefore = tributary ? null : queryString(s, "SELECT pg_current_wal_lsn()");

                RowReader reader = new RowReader(o.seed(), rows);
                long t0 = System.nanoTime();
                long copied = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY bulk FROM STDIN", reader, 1 << 16);
                double seconds = (System.nanoTime() - t0) / 1e9;
                if (copied != rows || reader.made() != rows) throw new HarnessFailure("COPY reported " + copied + " rows, sent " + reader.made() + " of " + rows);
                System.out.printf(Locale.ROOT, "%-10s COPY of %,d rows: %8.2f s  %,10.0f rows/s%n", t.name(), rows, seconds, rows / seconds);
                String phase = String.format(Locale.ROOT, "COPY of %,d rows", rows);
                report.put(phase, "seconds", "%.2f", t.name(), seconds);
                report.put(phase, "rows/s", "%,.0f", t.name(), rows / seconds);

                try (ResultSet rs = s.executeQuery("SELECT count(*), sum(customer), sum(amount) FROM bulk")) {
                    rs.next();
                    long count = rs.getLong(1);
                    long customers = rs.getLong(2);
                    BigDecimal amount = rs.getBigDecimal(3);
                    BigDecimal expected = BigDecimal.valueOf(reader.amountCentsSum, 2);
                    if (count != rows || customers != reader.customerSum || amount == null || amount.compareTo(expected) != 0) {
                        throw new HarnessFailure("after COPY of " + rows + " rows (customers summing to " + reader.customerSum + ", amounts to " + expected
                                + ") bulk holds " + count + " rows (customers summing to " + customers + ", amounts to " + amount + ")");
                    }
                }

                if (tributary) {
                    if (dir == null) {
                        System.out.printf("%-10s bytes on disk: not measured (no --tributary-data)%n", t.name());
                        return null;
                    }
                    long right = directorySize(dir);
                    Thread.sleep(o.settle());
                    long after = directorySize(dir);
                    // paging's scratch files (arrangement batches out of the heap), not durable data
                    Path spill = dir.resolve("spill");
                    long spilled = Files.isDirectory(spill) ? directorySize(spill) : 0;
                    System.out.printf(Locale.ROOT, "%-10s bytes on disk: data directory %,d before, %,d right after the COPY, %,d after %d s:"
                                    + " %.1f bytes/row of growth, of which paging's spill %,d (%.1f bytes/row): durable %.1f bytes/row%n",
                            t.name(), before, right, after, o.settle().toSeconds(), (after - before) / (double) rows, spilled, spilled / (double) rows,
                            (after - spilled - before) / (double) rows);
                    disk(report, t, before, after, rows);
                    report.put(DISK, "of which paging's spill (Tributary: scratch, not durable)", "%,.0f", t.name(), spilled);
                    report.put(DISK, "durable growth per row (Tributary: without the spill)", "%.1f", t.name(), (after - spilled - before) / (double) rows);
                } else {
                    Thread.sleep(o.settle());
                    long table = queryLong(s, "SELECT pg_total_relation_size('bulk')");
                    long heap = queryLong(s, "SELECT pg_relation_size('bulk')");
                    long after = queryLong(s, "SELECT pg_database_size(current_database())");
                    long wal = queryLong(s, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + walBefore + "')::bigint");
                    System.out.printf(Locale.ROOT, "%-10s bytes on disk: pg_total_relation_size %,d (heap %,d): %.1f bytes/row;"
                                    + " pg_database_size %,d before, %,d after %d s: %.1f bytes/row of growth; WAL written since %,d (%.1f bytes/row)%n",
                            t.name(), table, heap, table / (double) rows, before, after, o.settle().toSeconds(), (after - before) / (double) rows,
                            wal, wal / (double) rows);
                    disk(report, t, before, after, rows);
                    report.put(DISK, "the table: pg_total_relation_size (PostgreSQL)", "%,.0f", t.name(), table);
                    report.put(DISK, "the table per row (PostgreSQL)", "%.1f", t.name(), table / (double) rows);
                    report.put(DISK, "WAL written meanwhile, in none of the sizes (PostgreSQL)", "%,.0f", t.name(), wal);
                    report.put(DISK, "WAL written per row (PostgreSQL)", "%.1f", t.name(), wal / (double) rows);
                }
                return null;
            }, c);
        }
    }

    private static final String DISK = "bytes on disk";

    /** The figures of bytes on disk both kinds of target have: PostgreSQL's database, Tributary's data directory. */
    private static void disk(FigureTable report, Target t, long before, long after, long rows) {
        report.put(DISK, "before the COPY: pg_database_size / the data directory", "%,.0f", t.name(), before);
        report.put(DISK, "after the COPY: pg_database_size / the data directory", "%,.0f", t.name(), after);
        report.put(DISK, "growth per row", "%.1f", t.name(), (after - before) / (double) rows);
    }

    /** The bytes of the regular files under {@code dir}; files removed while it walks (a truncated log) are left out. */
    static long directorySize(Path dir) throws IOException {
        AtomicLong total = new AtomicLong();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) total.addAndGet(attrs.size());
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                throw e;
            }
        });
        return total.get();
    }

    // ---- commit to subscriber ----

    /**
     * Where the subscriber's {@code COPY ... TO STDOUT} goes: it splits the bytes into rows as they
     * arrive ({@code mz_timestamp, mz_diff, k, sent}, tab-separated) and records each inserted
     * row's latency from {@code sent} to now. The marker row {@code k = -1} (in the snapshot) says
     * the subscription is running. A row that is not one insertion of a new key fails the phase.
     */
    static final class SubscriberSink extends OutputStream {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        final CountDownLatch subscribed = new CountDownLatch(1);
        final Histogram latency = new Histogram(TimeUnit.HOURS.toNanos(1), 3);
        final AtomicLong seen = new AtomicLong();
        final BitSet keys = new BitSet();
        final AtomicReference<String> wrong = new AtomicReference<>();
        /** Rows sent from this {@link System#nanoTime} on are measured. */
        volatile long measureFrom = Long.MAX_VALUE;
        long maxKey = -1;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            long now = System.nanoTime();
            for (int i = off; i < off + len; i++) {
                if (b[i] != '\n') {
                    line.write(b[i]);
                    continue;
                }
                String row = line.toString(StandardCharsets.UTF_8);
                line.reset();
                String problem = row(row, now);
                if (problem != null) {
                    wrong.compareAndSet(null, problem);
                    throw new IOException(problem);
                }
            }
        }

        /** Takes one row; returns what is wrong with it, or null. */
        private String row(String row, long now) {
            String[] f = row.split("\t", -1);
            if (f.length != 4) return "the subscriber read a row of " + f.length + " fields, not 4: '" + row + "'";
            long k;
            long sent;
            try {
                k = Long.parseLong(f[2]);
                sent = Long.parseLong(f[3]);
            } catch (NumberFormatException e) {
                return "the subscriber read a row it cannot parse: '" + row + "'";
            }
            if (!f[1].equals("1")) return "the subscriber read a change of " + f[1] + " (only insertions were made): '" + row + "'";
            if (k == -1) {
                if (subscribed.getCount() == 0) return "the subscriber read the marker row twice";
                subscribed.countDown();
                return null;
            }
            if (k < 0 || k > Integer.MAX_VALUE) return "the subscriber read a key never inserted: '" + row + "'";
            if (keys.get((int) k)) return "the subscriber read key " + k + " twice";
            keys.set((int) k);
            maxKey = Math.max(maxKey, k);
            if (sent >= measureFrom) latency.recordValue(Math.max(0, Math.min(now - sent, latency.getHighestTrackableValue())));
            seen.incrementAndGet();
            return null;
        }
    }

    private static void subscribe(Options o, Target t, FigureTable report) throws Exception {
        Duration limit = o.warmup().plus(o.measure()).plus(Duration.ofSeconds(2L * VISIBLE_TIMEOUT_SECONDS)).plus(o.phaseTimeout());
        try (Connection setup = DriverManager.getConnection(t.url()); Statement s = setup.createStatement();
             Connection subscriber = DriverManager.getConnection(t.url());
             Connection writer = DriverManager.getConnection(t.url());
             PreparedStatement insert = writer.prepareStatement("INSERT INTO w2 (k, sent) VALUES (?, ?)")) {
            bounded(t.name() + " commit to subscriber", limit, () -> {
                s.execute("DROP TABLE IF EXISTS w2");
                s.execute("CREATE TABLE w2 (k bigint PRIMARY KEY, sent bigint)");
                s.execute("INSERT INTO w2 (k, sent) VALUES (-1, 0)");

                SubscriberSink sink = new SubscriberSink();
                AtomicReference<Throwable> ended = new AtomicReference<>();
                AtomicBoolean cancelled = new AtomicBoolean();
                Thread reader = Thread.ofPlatform().name(t.name() + "-subscriber").start(() -> {
                    try {
                        subscriber.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SUBSCRIBE w2) TO STDOUT", sink);
                        ended.set(new HarnessFailure("the subscription ended by itself"));
                    } catch (Throwable e) {
                        ended.set(e);
                    }
                });
                try {
                    if (!sink.subscribed.await(VISIBLE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                        throw new HarnessFailure("the subscriber did not read the marker row within " + VISIBLE_TIMEOUT_SECONDS + " s");
                    }
                    Histogram ack = new Histogram(TimeUnit.HOURS.toNanos(1), 3);
                    long interval = 1_000_000_000L / o.subscribeRate();
                    long start = System.nanoTime();
                    long measureFrom = start + o.warmup().toNanos();
                    long end = measureFrom + o.measure().toNanos();
                    sink.measureFrom = measureFrom;
                    long next = start;
                    long k = 0;
                    long measured = 0;
                    while (true) {
                        if (ended.get() != null) break;
                        long now = System.nanoTime();
                        if (now >= end) break;
                        if (now < next) {
                            LockSupport.parkNanos(next - now);
                            continue;
                        }
                        long t0 = System.nanoTime();
                        insert.setLong(1, k);
                        insert.setLong(2, t0);
                        if (insert.executeUpdate() != 1) throw new HarnessFailure("INSERT of key " + k + " reported no row");
                        long t1 = System.nanoTime();
                        k++;
                        if (t0 >= measureFrom) {
                            ack.recordValue(t1 - t0);
                            measured++;
                        }
                        next += interval;
                        if (next < t1) next = t1; // after a stall, on at the rate rather than in a burst
                    }
                    long inserted = k;
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VISIBLE_TIMEOUT_SECONDS);
                    while (sink.seen.get() < inserted && ended.get() == null && System.nanoTime() < deadline) Thread.sleep(1);
                    if (ended.get() == null) {
                        cancelled.set(true);
                        subscriber.unwrap(BaseConnection.class).cancelQuery();
                    }
                    reader.join(Duration.ofSeconds(VISIBLE_TIMEOUT_SECONDS));
                    if (reader.isAlive()) throw new HarnessFailure("the subscriber's COPY did not end within " + VISIBLE_TIMEOUT_SECONDS + " s of its cancel");
                    if (sink.wrong.get() != null) throw new HarnessFailure(sink.wrong.get());
                    Throwable end1 = ended.get();
                    boolean cancelledAsAsked = cancelled.get() && end1 instanceof PSQLException p && "57014".equals(p.getSQLState());
                    if (!cancelledAsAsked) throw new HarnessFailure("the subscriber's COPY ended before it was cancelled", end1);
                    if (sink.seen.get() != inserted || sink.maxKey != inserted - 1) {
                        throw new HarnessFailure("the subscriber read " + sink.seen.get() + " of " + inserted + " inserted rows (the highest key "
                                + sink.maxKey + ") within " + VISIBLE_TIMEOUT_SECONDS + " s of the last INSERT");
                    }
                    long count = queryLong(s, "SELECT count(*) FROM w2");
                    if (count != inserted + 1) throw new HarnessFailure("after " + inserted + " acknowledged INSERTs and the marker w2 holds " + count + " rows");
                    Histogram h = sink.latency;
                    System.out.printf(Locale.ROOT, "%-10s commit to subscriber at %d/s: p50 %7.3f ms  p99 %7.3f ms  p99.9 %7.3f ms  max %8.3f ms"
                                    + "  (%,d measured of %,d rows; the INSERT's own acknowledgement p50 %.3f ms, p99 %.3f ms)%n",
                            t.name(), o.subscribeRate(), h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                            h.getValueAtPercentile(99.9) / 1e6, h.getMaxValue() / 1e6, h.getTotalCount(), inserted,
                            ack.getValueAtPercentile(50) / 1e6, ack.getValueAtPercentile(99) / 1e6);
                    if (h.getTotalCount() != measured) throw new HarnessFailure("the subscriber measured " + h.getTotalCount() + " rows, the writer sent " + measured);
                    String phase = "commit to subscriber, " + o.subscribeRate() + " INSERTs/s";
                    report.put(phase, "p50 ms", "%.3f", t.name(), h.getValueAtPercentile(50) / 1e6);
                    report.put(phase, "p99 ms", "%.3f", t.name(), h.getValueAtPercentile(99) / 1e6);
                    report.put(phase, "p99.9 ms", "%.3f", t.name(), h.getValueAtPercentile(99.9) / 1e6);
                    report.put(phase, "the INSERT acknowledged, p50 ms", "%.3f", t.name(), ack.getValueAtPercentile(50) / 1e6);
                    report.put(phase, "the INSERT acknowledged, p99 ms", "%.3f", t.name(), ack.getValueAtPercentile(99) / 1e6);
                    return null;
                } finally {
                    if (reader.isAlive()) {
                        subscriber.abort(Runnable::run);
                        reader.join(Duration.ofSeconds(10));
                    }
                }
            }, subscriber, writer, setup);
        }
    }

    // ---- helpers ----

    /** A phase's body: JDBC calls that may throw, or fail a check. */
    interface Body<T> {
        T run() throws Exception;
    }

    private static final ScheduledExecutorService WATCHDOG =
            Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("phase-watchdog").unstarted(r));

    /**
     * Runs {@code body}; if it is still running after {@code limit}, aborts {@code connections}
     * (so whatever waits on them returns with an error) and fails with a timeout, naming {@code what}.
     */
    static <T> T bounded(String what, Duration limit, Body<T> body, Connection... connections) throws Exception {
        AtomicBoolean expired = new AtomicBoolean();
        ScheduledFuture<?> abort = WATCHDOG.schedule(() -> {
            expired.set(true);
            for (Connection c : connections) {
                try {
                    c.abort(Runnable::run);
                } catch (SQLException ignored) {
                    // closed already
                }
            }
        }, limit.toMillis(), TimeUnit.MILLISECONDS);
        try {
            return body.run();
        } catch (Exception e) {
            if (expired.get()) throw new HarnessFailure(what + " did not finish within " + limit.toSeconds() + " s; its connections were aborted", e);
            throw e;
        } finally {
            abort.cancel(false);
        }
    }

    private static String queryString(Statement s, String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            if (!r.next()) throw new SQLException(sql + " returned no row");
            return r.getString(1);
        }
    }

    private static long queryLong(Statement s, String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            if (!r.next()) throw new SQLException(sql + " returned no row");
            return r.getLong(1);
        }
    }

    static Options parse(String[] args) {
        List<Target> targets = new ArrayList<>();
        int[] connections = {1, 4, 16};
        long warmup = 5;
        long seconds = 10;
        long copyRows = 10_000_000;
        long seed = 7;
        Path tributaryData = null;
        long settle = 5;
        int rate = 200;
        long phaseTimeout = 1800;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException("option '" + a + "' needs an argument");
            String v = args[++i];
            try {
                switch (a) {
                    case "--target" -> targets.add(Target.parse(v));
                    case "--connections" -> connections = Arrays.stream(v.split(",")).mapToInt(x -> Integer.parseInt(x.trim())).toArray();
                    case "--warmup" -> warmup = Long.parseLong(v);
                    case "--seconds" -> seconds = Long.parseLong(v);
                    case "--copy-rows" -> copyRows = Long.parseLong(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--tributary-data" -> tributaryData = Path.of(v);
                    case "--settle-seconds" -> settle = Long.parseLong(v);
                    case "--subscribe-rate" -> rate = Integer.parseInt(v);
                    case "--phase-timeout-seconds" -> phaseTimeout = Long.parseLong(v);
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("option '" + a + "' takes a number, not '" + v + "'");
            }
        }
        if (targets.isEmpty()) throw new IllegalArgumentException("no --target given");
        if (connections.length == 0 || Arrays.stream(connections).anyMatch(c -> c < 1)) throw new IllegalArgumentException("connection counts must be at least 1");
        if (warmup < 0 || settle < 0) throw new IllegalArgumentException("--warmup and --settle-seconds must not be negative");
        if (seconds < 1 || copyRows < 1 || phaseTimeout < 1) throw new IllegalArgumentException("--seconds, --copy-rows and --phase-timeout-seconds must be at least 1");
        if (rate < 1 || rate > 100_000) throw new IllegalArgumentException("--subscribe-rate must be 1 to 100000");
        return new Options(List.copyOf(targets), connections, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds), copyRows, seed,
                tributaryData, Duration.ofSeconds(settle), rate, Duration.ofSeconds(phaseTimeout));
    }
}
