package dev.tributary.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * An order-processing workload run side by side against several PostgreSQL-protocol servers,
 * Tributary's {@code serve} and PostgreSQL, by one JDBC client over the same generated data
 * ({@link RealisticData}): bulk load, four materialized views over it, then writes of several
 * sizes, each timed until the views show it, point reads, and the memory the server holds; after
 * every phase that changes the views, their full contents are compared between the servers.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.tributary.bench.RealisticWorkload \
 *   --target tributary=jdbc:postgresql://127.0.0.1:6875/tributary?user=tributary \
 *   --target postgres=jdbc:postgresql://127.0.0.1:15451/postgres?user=postgres [options: see {@link #USAGE}]
 * </pre>
 * {@code jmh/realistic-compare.sh} starts both servers and runs this.
 *
 * <p>The phases ({@link Phase}), each run by every target before the next begins, the first
 * target first; each phase's figures are printed as one line per figure group when it ends:
 * <ol>
 * <li><b>load</b>: the three tables created and filled by {@code COPY ... FROM STDIN} (text, one
 *   COPY per {@code --copy-rows} rows, through pgjdbc's {@link CopyManager}); seconds and rows/s
 *   per table. The COPY text is rendered before the clock starts, so only the server and the
 *   transfer are timed. PostgreSQL then runs ANALYZE, untimed.
 * <li><b>views</b>: {@code v1 .. v4} created one by one, each timed from sending CREATE until a
 *   {@code SELECT count(*)} of it has answered (time to readable); then an index on
 *   {@code v1(customer_id)}, which the polls below read through on both servers.
 * <li><b>single-row</b>: {@code --single} autocommit single-row INSERTs of new orders; after each,
 *   a second connection reads {@code SELECT n, q FROM v1 WHERE customer_id = ?} until it shows
 *   the insert (visible). PostgreSQL does not maintain materialized views: there, the first
 *   {@code --pg-refreshes} inserts are each followed by {@code REFRESH MATERIALIZED VIEW v1} (a
 *   full refresh) and the read, and the others are inserts alone.
 * <li><b>1000-row</b>: {@code --batches} transactions of 1000 statements (60% single-row INSERTs,
 *   30% {@code UPDATE orders SET qty = qty + 1 WHERE id = ?}, 10% {@code DELETE ... WHERE id = ?}
 *   of existing orders); after COMMIT, v1 is polled for the customer the transaction changed
 *   most, and five other changed customers are checked (a transaction is visible whole or not
 *   at all). PostgreSQL: commit only.
 * <li><b>dimension</b>: {@code --dimension} autocommit {@code UPDATE customers SET region = ?
 *   WHERE id = ?}; Tributary then polls {@code SELECT sum(n) FROM v2 WHERE region = ?} of the
 *   new region until it counts the customer's orders, and reads {@code SELECT sum(n) FROM v2}.
 *   PostgreSQL: the updates alone.
 * <li><b>memory</b> after the writes, also taken after load, after views and after point reads:
 *   for a target given a {@code --memory-cmd}, the number that shell command prints (the
 *   script's: Tributary's live heap after a full GC); for PostgreSQL, {@code
 *   pg_total_relation_size} summed over the public schema (tables, indexes, materialized views).
 * <li><b>point reads</b>: {@code SELECT * FROM orders WHERE id = ?} prepared, of uniformly drawn
 *   existing orders, then a prepared {@code SELECT 1}: each 1000 unmeasured, then
 *   {@code --point-reads} measured.
 * <li><b>final check</b>: the full contents of the three tables and the four views compared.
 * </ol>
 * Whether a target maintains views is told by {@code version()}: Tributary's says so. At the end
 * of single-row, 1000-row and dimension, a target that does not maintain them (PostgreSQL)
 * refreshes all four, timed as a figure of its own ("catch-up"), so that the views can be
 * compared.
 *
 * <p>Two checks. Every answer read is checked against the client's model: row counts after
 * load, each poll (a value that is neither the state before the write nor after it fails), each
 * point read, and after every phase the totals of the orders table and of all four views; a
 * wrong answer fails that target's run with a message naming the query, the answer and the
 * expected one, and the other targets go on. And after views, single-row, 1000-row, dimension
 * and final check, every view's full contents (and in the final check every table's) are read
 * from each target and compared with the first target's, value by value (numbers by value, so
 * {@code 2.50} and {@code 2.5} agree; timestamps by instant): a difference prints the rows found
 * on one side only and makes the run exit with status 1. Reads that showed the state before a
 * committed write are counted and printed ("stale reads"): Tributary's reads are documented to
 * see every earlier write, so any is a finding. Latencies go into HdrHistograms (ns, 3 digits).
 * Every target starts from the same seed and runs the same transactions, so all see the same
 * rows and the same changes. At the end, a Markdown table: a row per figure, a column per
 * target, and with two targets the first's figure over the second's.
 *
 * <p>Time limits. A phase stops starting transactions once it has run {@code
 * --phase-timeout-seconds}; its figures are then over the transactions it ran, and it says so,
 * and the later targets run as many, so that the contents still agree. A phase still running at
 * twice the timeout (a statement that does not return: a hang) has its target's connections
 * aborted, and that target fails while the others go on. A change not visible within {@code
 * --visible-timeout-seconds} fails its target too.
 *
 * <p>Like {@link PointSelectHarness}, a main class rather than a JMH benchmark: the servers are
 * other processes, and the figures are one run of a sequence of dependent phases.
 */
public final class RealisticWorkload {
    private RealisticWorkload() {}

    /** The command line, printed by {@code --help} and after a wrong option. */
    static final String USAGE = """
            usage: RealisticWorkload --target NAME=JDBC_URL [--target NAME=JDBC_URL ...] [options]

              --orders N                   orders loaded (default 1000000)
              --customers N                customers (default 100000)
              --products N                 products (default 10000)
              --single N                   single-row INSERT transactions (default 2000)
              --batches N                  transactions of 1000 statements (default 50)
              --dimension N                UPDATE customers SET region transactions (default 200)
              --seed S                     the data's and the transactions' seed (default 7)
              --memory-cmd NAME=COMMAND    a shell command printing target NAME's memory in bytes
              --pg-refreshes N             single-row INSERTs followed by a full REFRESH on a target
                                           that does not maintain views (default 20)
              --phase-timeout-seconds S    a phase stops starting transactions after S; a statement
                                           still running at 2 S fails its target (default 1800)
              --visible-timeout-seconds S  a change not visible after S fails its target (default 60)
              --copy-rows N                rows per COPY FROM STDIN (default 100000)
              --point-reads N              measured point selects and SELECT 1s (default 10000)
              --poll-micros N              pause between two polls of a view (default 100)

            Tables orders(id, customer_id, product_id, qty, placed), customers(id, name, region),
            products(id, name, price); views v1 (count and sum(qty) per customer), v2 (a 3-way join
            grouped by region and product), v3 (a selective join: region-3's orders with qty > 8),
            v4 (min and max qty per product). Phases: load, views, single-row, 1000-row,
            dimension, memory, point reads, final check; every target runs a phase before the
            next begins, the same transactions on the same data.

            How a server that does not maintain materialized views (PostgreSQL) is measured:
            the views are CREATE MATERIALIZED VIEW; in single-row, the first --pg-refreshes
            INSERTs are each followed by a full REFRESH MATERIALIZED VIEW v1 and timed until the
            read shows them, the rest are INSERTs alone; 1000-row times the transactions to COMMIT
            and dimension the UPDATEs alone, with no view current afterwards. At the end of each of those three
            phases it refreshes all four views (a figure of its own, "catch-up"), so that its
            views can be compared with the others'. Its memory is pg_total_relation_size summed
            over the public schema (tables, indexes, views).

            Exit status 1 when a target fails (a wrong answer, an error, a statement past twice
            the phase timeout, a change never visible) or when two targets' views differ after a
            phase; 2 for a wrong command line.
            """;

    /** Latencies above this are recorded as this (an hour): never reached within the timeouts. */
    private static final long MAX_LATENCY_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final int BATCH_STATEMENTS = 1000;
    private static final int POINT_READ_WARMUP = 1000;
    /** Changed customers checked after a 1000-row transaction besides the one polled. */
    private static final int BATCH_EXTRA_CHECKS = 5;
    /** Rows printed of each side's difference when two targets' contents disagree. */
    private static final int DIFF_ROWS_SHOWN = 5;
    private static final String[][] VIEWS = {
            {"v1", "SELECT customer_id, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer_id"},
            {"v2", "SELECT c.region, p.name, count(*) AS n, sum(o.qty * p.price) AS revenue FROM orders o"
                    + " JOIN customers c ON o.customer_id = c.id JOIN products p ON o.product_id = p.id GROUP BY c.region, p.name"},
            {"v3", "SELECT o.id, o.qty, c.name FROM orders o JOIN customers c ON o.customer_id = c.id"
                    + " WHERE c.region = '" + RealisticData.regionName(RealisticData.V3_REGION) + "' AND o.qty > 8"},
            {"v4", "SELECT product_id, min(qty) AS lo, max(qty) AS hi FROM orders GROUP BY product_id"},
    };
    private static final List<String> TABLES = List.of("customers", "products", "orders");
    private static final String PG_MEMORY_SQL = "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'";

    /**
     * The phases in the order they run. {@code writes}: the phase changes the data, and a target
     * that does not maintain views refreshes them after it. {@code compares}: the views' contents
     * are compared between the targets after it (in the final check, the tables' too).
     */
    enum Phase {
        LOAD("load", false, false),
        VIEWS("views", false, true),
        SINGLE_ROW("single-row", true, true),
        BATCHES("1000-row", true, true),
        DIMENSION("dimension", true, true),
        MEMORY("memory", false, false),
        POINT_READS("point reads", false, false),
        FINAL_CHECK("final check", false, true);

        final String label;
        final boolean writes;
        final boolean compares;

        Phase(String label, boolean writes, boolean compares) {
            this.label = label;
            this.writes = writes;
            this.compares = compares;
        }

        /** The transactions this phase runs at most, from the options; 0 for a phase without. */
        int planned(Options o) {
            return switch (this) {
                case SINGLE_ROW -> o.single();
                case BATCHES -> o.batches();
                case DIMENSION -> o.dimension();
                case LOAD, VIEWS, MEMORY, POINT_READS, FINAL_CHECK -> 0;
            };
        }

        static int ordinalOf(String label) {
            for (Phase p : values()) if (p.label.equals(label)) return p.ordinal();
            return values().length;
        }
    }

    /** The parsed command line. */
    record Options(List<Target> targets, int orders, int customers, int products, int single, int batches,
                   int dimension, long seed, Map<String, String> memoryCommands, int pgRefreshes,
                   long phaseTimeoutSeconds, long visibleTimeoutSeconds, int copyRows, int pointReads,
                   long pollMicros) {}

    public static void main(String[] args) throws Exception {
        Options o = HarnessFailure.optionsOrExit("RealisticWorkload", USAGE, args, RealisticWorkload::parse);
        if (o == null) return;
        System.out.printf(Locale.ROOT, "client: JDK %s, %s; %,d orders, %,d customers, %,d products, seed %d;"
                        + " %,d single-row, %,d x %,d-row, %,d dimension transactions; phase timeout %d s%n",
                Runtime.version(), org.postgresql.util.DriverInfo.DRIVER_FULL_NAME, o.orders(), o.customers(), o.products(),
                o.seed(), o.single(), o.batches(), BATCH_STATEMENTS, o.dimension(), o.phaseTimeoutSeconds());
        FigureTable report = new FigureTable(Phase::ordinalOf);
        List<String> failures = new ArrayList<>();
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("phase-watchdog").unstarted(r));
        List<Run> runs = new ArrayList<>();
        try {
            for (Target t : o.targets()) runs.add(new Run(o, t, report, watchdog));
            List<Run> live = new ArrayList<>();
            for (Run run : runs) {
                try {
                    run.connect();
                    live.add(run);
                } catch (HarnessFailure | SQLException | RuntimeException e) {
                    failures.add(run.failed(e));
                }
            }
            for (Phase p : Phase.values()) {
                // the first target to finish the phase sets how many transactions the others run
                int planned = p.planned(o);
                boolean capped = false;
                for (Iterator<Run> it = live.iterator(); it.hasNext(); ) {
                    Run run = it.next();
                    try {
                        int ran = run.run(p, planned);
                        if (!capped) {
                            planned = ran;
                            capped = true;
                        }
                    } catch (HarnessFailure | SQLException | RuntimeException e) {
                        failures.add(run.failed(e));
                        run.close();
                        it.remove();
                    }
                }
                if (p.compares) failures.addAll(compare(p, live));
            }
        } finally {
            watchdog.shutdownNow();
            runs.forEach(Run::close);
        }
        System.out.println();
        System.out.print(report.table(o.targets()));
        if (!failures.isEmpty()) {
            System.out.println();
            failures.forEach(System.out::println);
            System.exit(1);
        }
    }

    private static String describe(Throwable e) {
        String message = switch (e) {
            case SQLException s -> "SQLSTATE " + s.getSQLState() + ": " + s.getMessage();
            case HarnessFailure w -> w.getMessage();
            default -> e.toString();
        };
        // a failure caused by an aborted connection says what the abort interrupted
        return e.getCause() instanceof SQLException s && e instanceof HarnessFailure
                ? message + " (SQLSTATE " + s.getSQLState() + ": " + s.getMessage() + ")" : message;
    }

    /**
     * Compares the contents each live target read at the end of phase {@code p} with the first
     * target's, and prints the outcome; returns a message per disagreement. Targets that ran a
     * different number of transactions (one stopped by a timeout the first did not reach) hold
     * different data and are not compared.
     */
    private static List<String> compare(Phase p, List<Run> live) {
        List<String> disagreements = new ArrayList<>();
        if (live.size() < 2) {
            live.forEach(r -> r.contents.clear());
            return disagreements;
        }
        Run first = live.get(0);
        for (Run other : live.subList(1, live.size())) {
            String pair = first.t.name() + " and " + other.t.name();
            if (!other.transactions.equals(first.transactions)) {
                printCompare(p, "not compared: " + pair + " ran different numbers of transactions per phase, "
                        + first.transactions + " and " + other.transactions);
                continue;
            }
            StringBuilder agreed = new StringBuilder();
            for (Contents a : first.contents.values()) {
                Contents b = other.contents.get(a.relation());
                String difference = b == null ? other.t.name() + " did not read " + a.relation() : a.difference(first.t.name(), b, other.t.name());
                if (difference == null) {
                    agreed.append(String.format(Locale.ROOT, "%s%s %,d rows #%016x", agreed.isEmpty() ? "" : ", ", a.relation(), a.count(), a.digest()));
                } else {
                    String message = "DISAGREE after phase " + p.label + ": " + difference;
                    printCompare(p, message);
                    disagreements.add(message);
                }
            }
            if (!agreed.isEmpty()) printCompare(p, "identical on " + pair + ": " + agreed);
        }
        live.forEach(r -> r.contents.clear());
        return disagreements;
    }

    private static void printCompare(Phase p, String message) {
        System.out.printf(Locale.ROOT, "%-10s %-12s %s%n", "compare", p.label, message);
    }

    /**
     * A relation's full contents as one target answered {@code SELECT *}: each row as canonical
     * text (see {@link #canonical}) with the number of times it occurs, and an order-independent
     * digest of them (the sum of the rows' 64-bit hashes) to print.
     */
    record Contents(String relation, List<String> columns, Map<String, Integer> rows, long count, long digest) {
        /** Null when {@code other} holds the same rows under the same columns; otherwise what differs. */
        String difference(String name, Contents other, String otherName) {
            if (!columns.equals(other.columns)) {
                return relation + " has columns " + columns + " on " + name + " and " + other.columns + " on " + otherName;
            }
            if (rows.equals(other.rows)) return null;
            List<String> onlyHere = surplus(rows, other.rows);
            List<String> onlyThere = surplus(other.rows, rows);
            return String.format(Locale.ROOT, "%s differs: %,d rows on %s, %,d on %s; only on %s, %,d of (%s)%s; only on %s, %,d%s",
                    relation, count, name, other.count, otherName, name, onlyHere.size(), String.join(", ", columns), sample(onlyHere),
                    otherName, onlyThere.size(), sample(onlyThere));
        }

        /** The rows of {@code a} not in {@code b}, a row occurring k more times in a listed k times, sorted. */
        private static List<String> surplus(Map<String, Integer> a, Map<String, Integer> b) {
            List<String> out = new ArrayList<>();
            a.forEach((row, n) -> {
                for (int i = b.getOrDefault(row, 0); i < n; i++) out.add(row);
            });
            out.sort(null);
            return out;
        }

        private static String sample(List<String> rows) {
            if (rows.isEmpty()) return "";
            List<String> shown = rows.subList(0, Math.min(DIFF_ROWS_SHOWN, rows.size()));
            return ": (" + String.join("), (", shown) + ")" + (rows.size() > shown.size() ? ", ..." : "");
        }
    }

    /**
     * A value as text that is equal on every server for equal values: numbers by value ({@code 5},
     * {@code 5.00} and a bigint 5 agree), timestamps as their instant, NULL as {@code \N}.
     */
    static String canonical(Object v) {
        return switch (v) {
            case null -> "\\N";
            case BigDecimal d -> d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
            case Long n -> n.toString();
            case Integer n -> n.toString();
            case Short n -> n.toString();
            case BigInteger n -> n.toString();
            case Double d -> canonical(BigDecimal.valueOf(d));
            case Float f -> canonical(BigDecimal.valueOf(f.doubleValue()));
            case Timestamp ts -> ts.toInstant().toString();
            case OffsetDateTime t -> t.toInstant().toString();
            default -> v.toString();
        };
    }

    /** A row's 64-bit hash for the digest: FNV-1a over its text, finished by MurmurHash3's mixer. */
    private static long rowHash(String row) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < row.length(); i++) h = (h ^ row.charAt(i)) * 0x100000001b3L;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    /** One target's run of all phases, on a writer connection and a reader connection. */
    private static final class Run {
        private final Options o;
        private final Target t;
        private final FigureTable report;
        private final ScheduledExecutorService watchdog;
        private final RealisticData data;
        /** The workload's choices: the same sequence on every target, whatever the answers. */
        private final SplittableRandom random;
        /** The point reads' choices, apart, so that reads stopped early leave the workload's unchanged. */
        private final SplittableRandom readRandom;
        private Connection writer;
        private Connection reader;
        /** Tributary: views are maintained; otherwise they are refreshed by REFRESH MATERIALIZED VIEW. */
        private boolean maintained;
        volatile String phase = "connect";
        private long phaseStart;
        private volatile boolean timedOut;
        private String lastStatement = "";
        /** Transactions run per phase that writes, in phase order: equal on targets holding equal data. */
        final List<Integer> transactions = new ArrayList<>();
        /** What the last phase that compares read, by relation, for {@link #compare}. */
        final Map<String, Contents> contents = new LinkedHashMap<>();

        Run(Options o, Target t, FigureTable report, ScheduledExecutorService watchdog) {
            this.o = o;
            this.t = t;
            this.report = report;
            this.watchdog = watchdog;
            this.data = new RealisticData(o.seed(), o.customers(), o.products(), o.orders(),
                    o.single() + o.batches() * BATCH_STATEMENTS);
            // separate streams from the data's, so changing a size keeps the loaded rows
            this.random = new SplittableRandom(o.seed() * 0x9E3779B97F4A7C15L + 1);
            this.readRandom = new SplittableRandom(o.seed() * 0x9E3779B97F4A7C15L + 2);
        }

        void connect() throws SQLException, HarnessFailure {
            writer = DriverManager.getConnection(t.url());
            reader = DriverManager.getConnection(t.url());
            DatabaseMetaData meta = writer.getMetaData();
            String version = queryString(writer, "SELECT version()");
            maintained = version.contains("Tributary");
            System.out.printf("%s: %s %s at %s; %s%n", t.name(), meta.getDatabaseProductName(), meta.getDatabaseProductVersion(), t.url(),
                    maintained ? "maintains materialized views"
                            : "materialized views are refreshed (REFRESH MATERIALIZED VIEW): see --help for how this side is measured");
        }

        /** Prints and returns the message for this target's failure. */
        String failed(Throwable e) {
            String message = t.name() + ": FAILED in phase " + phase + ": " + describe(e);
            System.out.println(message);
            return message;
        }

        void close() {
            for (Connection c : new Connection[] {writer, reader}) {
                if (c == null) continue;
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // the run is over; an aborted connection has nothing left to say
                }
            }
        }

        /**
         * Runs phase {@code p} with at most {@code planned} transactions; returns how many ran.
         * Past twice the phase timeout, the watchdog aborts both connections, which makes whatever
         * statement is waiting fail at once, and that failure is reported as the timeout.
         */
        int run(Phase p, int planned) throws SQLException, HarnessFailure {
            phase = p.label;
            phaseStart = System.nanoTime();
            ScheduledFuture<?> alarm = watchdog.schedule(this::abort, 2 * o.phaseTimeoutSeconds(), TimeUnit.SECONDS);
            try {
                int ran = switch (p) {
                    case LOAD -> {
                        load();
                        memory("after load");
                        yield 0;
                    }
                    case VIEWS -> {
                        views();
                        memory("after views");
                        yield 0;
                    }
                    case SINGLE_ROW -> singleRow(planned);
                    case BATCHES -> batches(planned);
                    case DIMENSION -> dimension(planned);
                    case MEMORY -> {
                        memory("after writes");
                        yield 0;
                    }
                    case POINT_READS -> {
                        pointReads();
                        selectOne();
                        memory("after point reads");
                        yield 0;
                    }
                    case FINAL_CHECK -> 0;
                };
                if (p.writes) {
                    transactions.add(ran);
                    catchUp();
                }
                if (p.compares) {
                    verify();
                    readContents(p == Phase.FINAL_CHECK);
                }
                if (timedOut) throw timeout(null);
                return ran;
            } catch (SQLException | HarnessFailure e) {
                if (timedOut) throw timeout(e);
                throw e;
            } finally {
                alarm.cancel(false);
            }
        }

        /** Whether the phase has run past --phase-timeout-seconds: a loop starts no more transactions. */
        private boolean outOfTime() {
            return System.nanoTime() - phaseStart > TimeUnit.SECONDS.toNanos(o.phaseTimeoutSeconds());
        }

        /**
         * Records how many transactions a phase that writes ran ({@code writes}), and prints that a
         * loop stopped at the timeout, when it did.
         */
        private void stoppedEarly(int ran, int planned, String what, boolean writes) {
            if (writes) figure("transactions run", "%,.0f", ran);
            if (ran >= planned) return;
            line("STOPPED by --phase-timeout-seconds %d after %,d of %,d %s: the figures below are theirs%s",
                    o.phaseTimeoutSeconds(), ran, planned, what, writes ? ", and the other targets run as many" : "");
        }

        private HarnessFailure timeout(Throwable cause) {
            return new HarnessFailure("still running " + 2 * o.phaseTimeoutSeconds() + " s after the phase began (twice --phase-timeout-seconds);"
                    + " connections aborted" + (lastStatement.isEmpty() ? "" : " during: " + abbreviate(lastStatement)), cause);
        }

        private void abort() {
            timedOut = true;
            for (Connection c : new Connection[] {writer, reader}) {
                try {
                    c.abort(Runnable::run);
                } catch (SQLException | RuntimeException ignored) {
                    // already closed
                }
            }
        }

        private void line(String format, Object... args) {
            System.out.printf(Locale.ROOT, "%-10s %-12s %s%n", t.name(), phase, String.format(Locale.ROOT, format, args));
        }

        private void figure(String figure, String format, double value) {
            report.put(phase, figure, format, t.name(), value);
        }

        private void execute(Connection c, String sql) throws SQLException {
            lastStatement = sql;
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }

        // ---------------------------------------------------------------- catch-up and contents

        /** On a target that does not maintain views, refreshes all four, timed, so they can be compared. */
        private void catchUp() throws SQLException {
            if (maintained) return;
            StringBuilder each = new StringBuilder();
            long start = System.nanoTime();
            for (String[] v : VIEWS) {
                long t0 = System.nanoTime();
                execute(writer, "REFRESH MATERIALIZED VIEW " + v[0]);
                each.append(String.format(Locale.ROOT, "%s%s %.2f s", each.isEmpty() ? "" : ", ", v[0], (System.nanoTime() - t0) / 1e9));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            line("catch-up: REFRESH MATERIALIZED VIEW of v1-v4 in %.2f s (%s), so that they can be compared", seconds, each);
            figure("catch-up REFRESH of v1-v4 s (PostgreSQL)", "%.2f", seconds);
        }

        /** Reads the four views' contents (with {@code tables}, the tables' too) for {@link #compare}. */
        private void readContents(boolean tables) throws SQLException {
            long start = System.nanoTime();
            List<String> relations = new ArrayList<>();
            for (String[] v : VIEWS) relations.add(v[0]);
            if (tables) relations.addAll(TABLES);
            contents.clear();
            for (String relation : relations) contents.put(relation, contents(relation));
            line("model check passed (orders and v1-v4 totals, %,d orders); read %s in %.2f s to compare",
                    data.liveOrders(), String.join(", ", relations), (System.nanoTime() - start) / 1e9);
        }

        private Contents contents(String relation) throws SQLException {
            String sql = "SELECT * FROM " + relation;
            lastStatement = sql;
            Map<String, Integer> rows = new HashMap<>();
            List<String> columns = new ArrayList<>();
            long count = 0;
            long digest = 0;
            StringBuilder row = new StringBuilder();
            try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery(sql)) {
                ResultSetMetaData meta = r.getMetaData();
                int n = meta.getColumnCount();
                for (int i = 1; i <= n; i++) columns.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
                while (r.next()) {
                    row.setLength(0);
                    for (int i = 1; i <= n; i++) {
                        if (i > 1) row.append(", ");
                        row.append(canonical(r.getObject(i)));
                    }
                    String text = row.toString();
                    rows.merge(text, 1, Integer::sum);
                    digest += rowHash(text);
                    count++;
                }
            }
            return new Contents(relation, List.copyOf(columns), rows, count, digest);
        }

        // ---------------------------------------------------------------- load

        private void load() throws SQLException, HarnessFailure {
            for (String[] v : VIEWS) execute(writer, "DROP MATERIALIZED VIEW IF EXISTS " + v[0] + " CASCADE");
            for (String table : List.of("orders", "customers", "products")) execute(writer, "DROP TABLE IF EXISTS " + table + " CASCADE");
            execute(writer, "CREATE TABLE customers (id int PRIMARY KEY, name text, region text)");
            execute(writer, "CREATE TABLE products (id int PRIMARY KEY, name text, price numeric(10,2))");
            execute(writer, "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, product_id int, qty int, placed timestamptz)");
            CopyManager copy = writer.unwrap(PGConnection.class).getCopyAPI();
            double total = 0;
            total += copy("customers", copy, data.customersCopyText(o.copyRows()), o.customers());
            total += copy("products", copy, data.productsCopyText(o.copyRows()), o.products());
            total += copy("orders", copy, data.ordersCopyText(o.copyRows()), o.orders());
            figure("all three tables s", "%.2f", total);
            if (!maintained) {
                // PostgreSQL plans the views' joins and the refreshes by statistics; autovacuum would
                // gather them at a moment of its own during the run, so gather them now, untimed
                execute(writer, "ANALYZE");
                line("ANALYZE (untimed), so PostgreSQL's plans do not change when autovacuum gets to it");
            }
        }

        /** Loads one table by one COPY per chunk; returns the seconds it took. */
        private double copy(String table, CopyManager copy, List<byte[]> chunks, long rows) throws SQLException, HarnessFailure {
            String sql = "COPY " + table + " FROM STDIN";
            lastStatement = sql;
            long copied = 0;
            long start = System.nanoTime();
            try {
                for (byte[] chunk : chunks) {
                    try (InputStream in = new ByteArrayInputStream(chunk)) {
                        copied += copy.copyIn(sql, in, 1 << 16);
                    }
                }
            } catch (IOException e) {
                throw new SQLException("COPY " + table + ": " + e.getMessage(), "08006", e);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (copied != rows) throw new HarnessFailure("COPY " + table + " reported " + copied + " rows, sent " + rows);
            long count = queryLong(writer, "SELECT count(*) FROM " + table);
            if (count != rows) throw new HarnessFailure("SELECT count(*) FROM " + table + " answered " + count + " after loading " + rows + " rows");
            line("%-9s %,10d rows in %7.2f s: %,10.0f rows/s (%d COPY FROM STDIN of up to %,d rows)",
                    table, rows, seconds, rows / seconds, chunks.size(), o.copyRows());
            figure(table + " rows/s", "%,.0f", rows / seconds);
            return seconds;
        }

        // ---------------------------------------------------------------- views

        private void views() throws SQLException, HarnessFailure {
            RealisticData.Expected e = data.expected();
            long[] rows = {e.v1Rows(), e.v2Rows(), e.v3Rows(), e.v4Rows()};
            for (int i = 0; i < VIEWS.length; i++) {
                String name = VIEWS[i][0];
                long start = System.nanoTime();
                execute(writer, "CREATE MATERIALIZED VIEW " + name + " AS " + VIEWS[i][1]);
                long created = System.nanoTime();
                long count = queryLong(writer, "SELECT count(*) FROM " + name);
                long readable = System.nanoTime();
                if (count != rows[i]) throw new HarnessFailure("SELECT count(*) FROM " + name + " answered " + count + " after CREATE; expected " + rows[i]);
                line("%s readable in %7.2f s (CREATE returned after %.2f s), %,d rows", name, (readable - start) / 1e9, (created - start) / 1e9, count);
                figure(name + " s to readable", "%.2f", (readable - start) / 1e9);
                if (i == 0) {
                    // the polls read v1 by customer: an index makes that a seek on both servers
                    start = System.nanoTime();
                    execute(writer, "CREATE INDEX v1_customer ON v1 (customer_id)");
                    double seconds = (System.nanoTime() - start) / 1e9;
                    line("index v1_customer ON v1 (customer_id) in %.2f s", seconds);
                    figure("index on v1 s", "%.2f", seconds);
                }
            }
        }

        // ---------------------------------------------------------------- single-row transactions

        private PreparedStatement prepareInsert() throws SQLException {
            return writer.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?, ?)");
        }

        private void bindInsert(PreparedStatement insert, RealisticData.Order order) throws SQLException {
            insert.setLong(1, order.id());
            insert.setInt(2, order.customer());
            insert.setInt(3, order.product());
            insert.setInt(4, order.qty());
            insert.setObject(5, order.placed());
        }

        private static void expectOneRow(PreparedStatement s, String what) throws SQLException, HarnessFailure {
            expectOneRow(s, what, "");
        }

        /** Executes a write that must change one row; {@code context} says where it was, for the failure. */
        private static void expectOneRow(PreparedStatement s, String what, String context) throws SQLException, HarnessFailure {
            int n = s.executeUpdate();
            if (n != 1) throw new HarnessFailure(what + " changed " + n + " rows, expected 1" + context);
        }

        /** Runs at most {@code planned} single-row INSERTs; returns how many ran. */
        private int singleRow(int planned) throws SQLException, HarnessFailure {
            Histogram insertLatency = histogram();
            Histogram visible = histogram();
            int refreshes = maintained ? 0 : Math.min(planned, o.pgRefreshes());
            int ran = 0;
            long stale = 0;
            long visibleNanos = 0;     // wall time of the transactions timed until visible
            long insertOnlyNanos = 0;  // wall time of PostgreSQL's inserts without a refresh
            lastStatement = "INSERT INTO orders VALUES (...) / SELECT n, q FROM v1 WHERE customer_id = ?";
            try (PreparedStatement insert = prepareInsert();
                 PreparedStatement poll = reader.prepareStatement("SELECT n, q FROM v1 WHERE customer_id = ?")) {
                for (; ran < planned && !outOfTime(); ran++) {
                    RealisticData.Order order = data.newOrder(random);
                    long wantN = data.ordersOf(order.customer());
                    long wantQ = data.qtyOfCustomer(order.customer());
                    // the customer's totals before the insert, to tell a stale read from a wrong one
                    long beforeN = wantN - 1;
                    long beforeQ = wantQ - order.qty();
                    long t0 = System.nanoTime();
                    bindInsert(insert, order);
                    expectOneRow(insert, "INSERT of order " + order.id());
                    long t1 = System.nanoTime();
                    insertLatency.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                    if (maintained) {
                        stale += awaitV1(poll, order.customer(), wantN, wantQ, beforeN, beforeQ, "the INSERT of order " + order.id());
                    } else if (ran < refreshes) {
                        execute(writer, "REFRESH MATERIALIZED VIEW v1");
                        awaitV1(poll, order.customer(), wantN, wantQ, wantN, wantQ, "REFRESH MATERIALIZED VIEW v1 after the INSERT of order " + order.id());
                    } else {
                        insertOnlyNanos += t1 - t0;
                        continue;
                    }
                    long t2 = System.nanoTime();
                    visible.recordValue(Math.min(t2 - t0, MAX_LATENCY_NANOS));
                    visibleNanos += t2 - t0;
                }
            }
            stoppedEarly(ran, planned, "INSERTs", true);
            line("%,d autocommit INSERTs: insert p50 %.3f ms, p99 %.3f ms", ran, ms(insertLatency, 50), ms(insertLatency, 99));
            figure("INSERT p50 ms", "%.3f", ms(insertLatency, 50));
            figure("INSERT p99 ms", "%.3f", ms(insertLatency, 99));
            long timed = visible.getTotalCount();
            if (timed > 0) {
                double tps = timed * 1e9 / visibleNanos;
                line("%s%,d until visible in v1: %,.1f tx/s; INSERT to visible p50 %.3f ms, p99 %.3f ms, max %.3f ms%s",
                        maintained ? "" : "PostgreSQL does not maintain v1: the first ", timed, tps,
                        ms(visible, 50), ms(visible, 99), visible.getMaxValue() / 1e6,
                        maintained ? String.format(Locale.ROOT, " (%,d stale reads)", stale)
                                : " -- each a FULL REFRESH MATERIALIZED VIEW v1 (INSERT + REFRESH + read), at most --pg-refreshes " + o.pgRefreshes());
                figure("tx/s until visible in v1 (PostgreSQL: + full REFRESH)", "%,.1f", tps);
                figure("INSERT to visible p50 ms", "%.3f", ms(visible, 50));
                figure("INSERT to visible p99 ms", "%.3f", ms(visible, 99));
                figure("INSERT to visible max ms", "%.3f", visible.getMaxValue() / 1e6);
            }
            long insertsOnly = ran - timed;
            if (insertsOnly > 0 && insertOnlyNanos > 0) {
                double tps = insertsOnly * 1e9 / insertOnlyNanos;
                line("the other %,d INSERTs alone (no refresh, v1 left stale): %,.0f tx/s", insertsOnly, tps);
                figure("INSERT-only tx/s (PostgreSQL, no refresh)", "%,.0f", tps);
            }
            return ran;
        }

        /**
         * Reads v1's row of {@code customer} until it shows {@code (wantN, wantQ)}; a read showing
         * {@code (beforeN, beforeQ)} is stale and polled again after {@code --poll-micros}, any other
         * answer is wrong. Returns the number of stale reads.
         */
        private long awaitV1(PreparedStatement poll, int customer, long wantN, long wantQ, long beforeN, long beforeQ, String after)
                throws SQLException, HarnessFailure {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.visibleTimeoutSeconds());
            long stale = 0;
            while (true) {
                poll.setInt(1, customer);
                long n = 0;
                long q = 0;
                try (ResultSet r = poll.executeQuery()) {
                    if (r.next()) {
                        n = r.getLong(1);
                        q = r.getLong(2);
                        if (r.next()) throw new HarnessFailure("v1 has two rows for customer_id " + customer);
                    }
                }
                if (n == wantN && q == wantQ) return stale;
                if (n != beforeN || q != beforeQ) {
                    throw new HarnessFailure(String.format(Locale.ROOT,
                            "SELECT n, q FROM v1 WHERE customer_id = %d answered (%d, %d) after %s; expected (%d, %d)%s",
                            customer, n, q, after, wantN, wantQ,
                            beforeN == wantN && beforeQ == wantQ ? "" : String.format(Locale.ROOT, ", or (%d, %d) before it is visible", beforeN, beforeQ)));
                }
                stale++;
                if (System.nanoTime() > deadline) {
                    throw new HarnessFailure(String.format(Locale.ROOT, "v1 for customer_id %d still reads (%d, %d) %d s after %s; expected (%d, %d)",
                            customer, n, q, o.visibleTimeoutSeconds(), after, wantN, wantQ));
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(o.pollMicros()));
            }
        }

        // ---------------------------------------------------------------- 1000-row transactions

        /** Runs at most {@code planned} transactions of 1000 statements; returns how many ran. */
        private int batches(int planned) throws SQLException, HarnessFailure {
            Histogram commitLatency = histogram();
            Histogram visible = histogram();
            long stale = 0;
            long statements = 0;
            int ran = 0;
            long start = System.nanoTime();
            lastStatement = "a 1000-row transaction (INSERT / UPDATE orders SET qty = qty + 1 / DELETE FROM orders)";
            writer.setAutoCommit(false);
            try (PreparedStatement insert = prepareInsert();
                 PreparedStatement update = writer.prepareStatement("UPDATE orders SET qty = qty + 1 WHERE id = ?");
                 PreparedStatement delete = writer.prepareStatement("DELETE FROM orders WHERE id = ?");
                 PreparedStatement poll = reader.prepareStatement("SELECT n, q FROM v1 WHERE customer_id = ?")) {
                for (; ran < planned && !outOfTime(); ran++) {
                    // per customer changed: {orders, quantity} added by this transaction
                    Map<Integer, long[]> changed = new TreeMap<>();
                    long firstNew = data.nextId();
                    for (int s = 0; s < BATCH_STATEMENTS; s++) {
                        String where = " (statement " + (s + 1) + " of 1000-row transaction " + (ran + 1);
                        int kind = random.nextInt(100);
                        if (kind < 60 || data.liveOrders() == 0) {
                            RealisticData.Order order = data.newOrder(random);
                            bindInsert(insert, order);
                            expectOneRow(insert, "INSERT of order " + order.id(), where + ")");
                            add(changed, order.customer(), 1, order.qty());
                        } else if (kind < 90) {
                            int id = data.randomLive(random);
                            data.addQty(id);
                            update.setLong(1, id);
                            expectOneRow(update, "UPDATE orders SET qty = qty + 1 WHERE id = " + id, where + origin(id, firstNew) + ")");
                            add(changed, data.customerOf(id), 0, 1);
                        } else {
                            int id = data.randomLive(random);
                            int customer = data.customerOf(id);
                            int qty = data.qtyOf(id);
                            data.delete(id);
                            delete.setLong(1, id);
                            expectOneRow(delete, "DELETE FROM orders WHERE id = " + id, where + origin(id, firstNew) + ")");
                            add(changed, customer, -1, -qty);
                        }
                        statements++;
                    }
                    long t0 = System.nanoTime();
                    writer.commit();
                    long t1 = System.nanoTime();
                    commitLatency.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                    if (!maintained) continue;
                    // poll the customer this transaction changed most; the rest of it must then be visible too
                    int polled = changed.entrySet().stream()
                            .filter(en -> en.getValue()[0] != 0 || en.getValue()[1] != 0)
                            .max(Comparator.<Map.Entry<Integer, long[]>>comparingLong(en -> Math.abs(en.getValue()[0]))
                                    .thenComparingLong(en -> Math.abs(en.getValue()[1]))
                                    .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
                            .map(Map.Entry::getKey).orElse(0);
                    if (polled == 0) continue;  // a transaction whose changes cancel out in v1 shows nothing to wait for
                    long[] d = changed.get(polled);
                    long wantN = data.ordersOf(polled);
                    long wantQ = data.qtyOfCustomer(polled);
                    String after = "COMMIT of 1000-row transaction " + (ran + 1);
                    stale += awaitV1(poll, polled, wantN, wantQ, wantN - d[0], wantQ - d[1], after);
                    long t2 = System.nanoTime();
                    visible.recordValue(Math.min(t2 - t0, MAX_LATENCY_NANOS));
                    int checked = 0;
                    for (var en : changed.entrySet()) {
                        if (checked == BATCH_EXTRA_CHECKS) break;
                        int c = en.getKey();
                        if (c == polled) continue;
                        // no stale answer allowed: the polled customer showed this transaction
                        awaitV1(poll, c, data.ordersOf(c), data.qtyOfCustomer(c), data.ordersOf(c), data.qtyOfCustomer(c),
                                after + ", once customer_id " + polled + " showed it (a transaction is visible whole)");
                        checked++;
                    }
                }
            }
            // not in a finally: after a failure the connection may be gone, and the failure is what to report
            writer.setAutoCommit(true);
            double seconds = (System.nanoTime() - start) / 1e9;
            double tps = ran / seconds;
            stoppedEarly(ran, planned, "transactions", true);
            line("%,d transactions of %,d statements (60%% INSERT, 30%% UPDATE, 10%% DELETE): %,.2f tx/s, %,.0f statements/s%s; COMMIT p50 %.3f ms, p99 %.3f ms",
                    ran, BATCH_STATEMENTS, tps, statements / seconds, maintained ? " (until visible)" : " (commit only, no refresh)",
                    ms(commitLatency, 50), ms(commitLatency, 99));
            figure("tx/s (Tributary: until visible in v1; PostgreSQL: to COMMIT)", "%,.2f", tps);
            figure("COMMIT p50 ms", "%.3f", ms(commitLatency, 50));
            figure("COMMIT p99 ms", "%.3f", ms(commitLatency, 99));
            if (visible.getTotalCount() > 0) {
                line("COMMIT to visible in v1: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%,d stale reads)",
                        ms(visible, 50), ms(visible, 99), visible.getMaxValue() / 1e6, stale);
                figure("COMMIT to visible p50 ms", "%.3f", ms(visible, 50));
                figure("COMMIT to visible p99 ms", "%.3f", ms(visible, 99));
            }
            return ran;
        }

        /** Where an existing order came from, for a failure's message. */
        private String origin(int id, long firstNew) {
            if (id >= firstNew) return "; the order was inserted earlier in this transaction";
            return id <= o.orders() ? "; the order was loaded by COPY" : "; the order was inserted by an earlier, committed transaction";
        }

        private static void add(Map<Integer, long[]> changed, int customer, long n, long q) {
            long[] d = changed.computeIfAbsent(customer, k -> new long[2]);
            d[0] += n;
            d[1] += q;
        }

        // ---------------------------------------------------------------- dimension updates

        /** Runs at most {@code planned} UPDATEs of a customer's region; returns how many ran. */
        private int dimension(int planned) throws SQLException, HarnessFailure {
            Histogram updateLatency = histogram();
            Histogram visible = histogram();
            long stale = 0;
            int ran = 0;
            long start = System.nanoTime();
            lastStatement = "UPDATE customers SET region = ? WHERE id = ? / SELECT sum(n) FROM v2 [WHERE region = ?]";
            try (PreparedStatement update = writer.prepareStatement("UPDATE customers SET region = ? WHERE id = ?");
                 PreparedStatement regionSum = reader.prepareStatement("SELECT sum(n) FROM v2 WHERE region = ?");
                 PreparedStatement total = reader.prepareStatement("SELECT sum(n) FROM v2")) {
                for (; ran < planned && !outOfTime(); ran++) {
                    int customer = 1 + random.nextInt(o.customers());
                    int region = (data.regionOf(customer) + 1 + random.nextInt(RealisticData.REGIONS - 1)) % RealisticData.REGIONS;
                    long before = data.ordersOfRegion(region);
                    data.setRegion(customer, region);
                    long want = data.ordersOfRegion(region);
                    long t0 = System.nanoTime();
                    update.setString(1, RealisticData.regionName(region));
                    update.setInt(2, customer);
                    expectOneRow(update, "UPDATE customers SET region = '" + RealisticData.regionName(region) + "' WHERE id = " + customer);
                    long t1 = System.nanoTime();
                    updateLatency.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                    if (!maintained) continue;
                    stale += awaitRegion(regionSum, region, want, before, customer);
                    visible.recordValue(Math.min(System.nanoTime() - t0, MAX_LATENCY_NANOS));
                    long sum = queryLong(total);
                    if (sum != data.liveOrders()) {
                        throw new HarnessFailure("SELECT sum(n) FROM v2 answered " + sum + " after moving customer " + customer
                                + " to " + RealisticData.regionName(region) + "; expected " + data.liveOrders() + " (every order)");
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double rate = ran / seconds;
            stoppedEarly(ran, planned, "UPDATEs", true);
            line("%,d autocommit UPDATE customers SET region: %,.1f updates/s%s; UPDATE p50 %.3f ms, p99 %.3f ms",
                    ran, rate, maintained ? " (each until visible in v2, then SELECT sum(n) FROM v2)" : " (updates alone: v2 would need a full refresh)",
                    ms(updateLatency, 50), ms(updateLatency, 99));
            figure("updates/s (Tributary: until visible in v2; PostgreSQL: UPDATE alone)", "%,.1f", rate);
            figure("UPDATE p50 ms", "%.3f", ms(updateLatency, 50));
            figure("UPDATE p99 ms", "%.3f", ms(updateLatency, 99));
            if (visible.getTotalCount() > 0) {
                line("UPDATE to visible in v2: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%,d stale reads)",
                        ms(visible, 50), ms(visible, 99), visible.getMaxValue() / 1e6, stale);
                figure("UPDATE to visible in v2 p50 ms", "%.3f", ms(visible, 50));
                figure("UPDATE to visible in v2 p99 ms", "%.3f", ms(visible, 99));
            }
            return ran;
        }

        /** Polls v2's order count of {@code region} until it is {@code want}; as {@link #awaitV1}. */
        private long awaitRegion(PreparedStatement regionSum, int region, long want, long before, int customer)
                throws SQLException, HarnessFailure {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.visibleTimeoutSeconds());
            long stale = 0;
            String name = RealisticData.regionName(region);
            while (true) {
                regionSum.setString(1, name);
                long got = queryLong(regionSum);
                if (got == want) return stale;
                String what = "SELECT sum(n) FROM v2 WHERE region = '" + name + "' answered " + got + " after moving customer " + customer + " there";
                if (got != before) throw new HarnessFailure(what + "; expected " + want + ", or " + before + " before it is visible");
                stale++;
                if (System.nanoTime() > deadline) throw new HarnessFailure(what + " " + o.visibleTimeoutSeconds() + " s later; expected " + want);
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(o.pollMicros()));
            }
        }

        // ---------------------------------------------------------------- point reads

        /** Point selects by primary key of existing orders, each answer checked against the model. */
        private void pointReads() throws SQLException, HarnessFailure {
            Histogram latency = histogram();
            long measuredNanos = 0;
            lastStatement = "SELECT * FROM orders WHERE id = ?";
            try (PreparedStatement read = reader.prepareStatement(lastStatement)) {
                for (int i = 0; i < POINT_READ_WARMUP + o.pointReads() && !outOfTime(); i++) {
                    int id = data.randomLive(readRandom);
                    long t0 = System.nanoTime();
                    read.setLong(1, id);
                    long gotId;
                    int customer;
                    int product;
                    int qty;
                    OffsetDateTime placed;
                    try (ResultSet r = read.executeQuery()) {
                        if (!r.next()) throw new HarnessFailure("SELECT * FROM orders WHERE id = " + id + " found no row");
                        gotId = r.getLong(1);
                        customer = r.getInt(2);
                        product = r.getInt(3);
                        qty = r.getInt(4);
                        placed = r.getObject(5, OffsetDateTime.class);
                        if (r.next()) throw new HarnessFailure("SELECT * FROM orders WHERE id = " + id + " found two rows");
                    }
                    long t1 = System.nanoTime();
                    if (gotId != id || customer != data.customerOf(id) || product != data.productOf(id) || qty != data.qtyOf(id)
                            || placed == null || !placed.isEqual(data.placedOf(id))) {
                        throw new HarnessFailure(String.format(Locale.ROOT, "SELECT * FROM orders WHERE id = %d answered (%d, %d, %d, %d, %s); expected (%d, %d, %d, %d, %s)",
                                id, gotId, customer, product, qty, placed, id, data.customerOf(id), data.productOf(id), data.qtyOf(id), data.placedOf(id)));
                    }
                    if (i >= POINT_READ_WARMUP) {
                        latency.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                        measuredNanos += t1 - t0;
                    }
                }
            }
            long measured = latency.getTotalCount();
            stoppedEarly((int) measured, o.pointReads(), "measured point selects", false);
            if (measured == 0) return;
            double rate = measured * 1e9 / measuredNanos;
            line("%,d prepared SELECT * FROM orders WHERE id = ? (after %,d unmeasured): %,.0f reads/s, p50 %.1f us, p99 %.1f us, max %.1f us",
                    measured, POINT_READ_WARMUP, rate, latency.getValueAtPercentile(50) / 1e3,
                    latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3);
            figure("point select by key reads/s (one connection)", "%,.0f", rate);
            figure("point select by key p50 us", "%.1f", latency.getValueAtPercentile(50) / 1e3);
            figure("point select by key p99 us", "%.1f", latency.getValueAtPercentile(99) / 1e3);
        }

        /** A prepared {@code SELECT 1}: the round trip of a statement that reads nothing. */
        private void selectOne() throws SQLException, HarnessFailure {
            Histogram latency = histogram();
            lastStatement = "SELECT 1";
            try (PreparedStatement one = reader.prepareStatement(lastStatement)) {
                for (int i = 0; i < POINT_READ_WARMUP + o.pointReads() && !outOfTime(); i++) {
                    long t0 = System.nanoTime();
                    int got;
                    try (ResultSet r = one.executeQuery()) {
                        if (!r.next()) throw new HarnessFailure("SELECT 1 returned no row");
                        got = r.getInt(1);
                    }
                    long t1 = System.nanoTime();
                    if (got != 1) throw new HarnessFailure("SELECT 1 answered " + got);
                    if (i >= POINT_READ_WARMUP) latency.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                }
            }
            stoppedEarly((int) latency.getTotalCount(), o.pointReads(), "measured SELECT 1s", false);
            if (latency.getTotalCount() == 0) return;
            line("%,d prepared SELECT 1 (after %,d unmeasured): p50 %.1f us, p99 %.1f us, max %.1f us", latency.getTotalCount(), POINT_READ_WARMUP,
                    latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3);
            figure("SELECT 1 p50 us", "%.1f", latency.getValueAtPercentile(50) / 1e3);
            figure("SELECT 1 p99 us", "%.1f", latency.getValueAtPercentile(99) / 1e3);
        }

        // ---------------------------------------------------------------- memory

        /** Prints and records what the server holds, from --memory-cmd or PostgreSQL's relation sizes. */
        private void memory(String when) throws SQLException, HarnessFailure {
            String saved = phase;
            phase = "memory";
            try {
                String command = o.memoryCommands().get(t.name());
                OptionalLong bytes;
                String how;
                if (command != null) {
                    bytes = OptionalLong.of(runMemoryCommand(command));
                    how = "from --memory-cmd";
                } else if (!maintained) {
                    bytes = OptionalLong.of(queryLong(writer, PG_MEMORY_SQL));
                    how = "pg_total_relation_size of the public schema's tables, indexes and views";
                } else {
                    bytes = OptionalLong.empty();
                    how = "no --memory-cmd for this target";
                }
                if (bytes.isPresent()) {
                    line("%s: %,.1f MB (%s)", when, bytes.getAsLong() / 1048576.0, how);
                    figure(when + " MB", "%,.1f", bytes.getAsLong() / 1048576.0);
                } else {
                    line("%s: not measured (%s)", when, how);
                }
            } finally {
                phase = saved;
            }
        }

        private long runMemoryCommand(String command) throws HarnessFailure {
            lastStatement = command;
            try {
                Process p = new ProcessBuilder("sh", "-c", command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                byte[] out;
                try (InputStream in = p.getInputStream()) {
                    out = in.readAllBytes();
                }
                if (!p.waitFor(o.phaseTimeoutSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new HarnessFailure("--memory-cmd did not finish: " + command);
                }
                String text = new String(out, StandardCharsets.UTF_8).trim();
                if (p.exitValue() != 0) throw new HarnessFailure("--memory-cmd exited with " + p.exitValue() + ": " + command);
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException e) {
                    throw new HarnessFailure("--memory-cmd printed '" + abbreviate(text) + "', not a number of bytes: " + command);
                }
            } catch (IOException e) {
                throw new HarnessFailure("--memory-cmd could not run: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HarnessFailure("interrupted while running --memory-cmd", e);
            }
        }

        // ---------------------------------------------------------------- checks

        /**
         * Checks the totals of the orders table and of each view (row count and sums) against the
         * model. A read sees every write committed before it (in Tributary by its timestamp
         * oracle; PostgreSQL's views have just been refreshed), so a difference is a wrong answer,
         * not lag.
         */
        private void verify() throws SQLException, HarnessFailure {
            RealisticData.Expected e = data.expected();
            check("SELECT count(*), sum(qty) FROM orders", e.orders(), e.ordersQty());
            check("SELECT count(*), sum(n), sum(q) FROM v1", e.v1Rows(), e.v1N(), e.v1Q());
            check("SELECT count(*), sum(n), sum(revenue) FROM v2", e.v2Rows(), e.v2N(), e.v2Revenue());
            check("SELECT count(*), sum(qty) FROM v3", e.v3Rows(), e.v3Qty());
            check("SELECT count(*), sum(lo), sum(hi) FROM v4", e.v4Rows(), e.v4Lo(), e.v4Hi());
        }

        private void check(String sql, Object... expected) throws SQLException, HarnessFailure {
            lastStatement = sql;
            List<BigDecimal> got = new ArrayList<>();
            try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery(sql)) {
                if (!r.next()) throw new HarnessFailure(sql + " returned no row");
                for (int i = 1; i <= expected.length; i++) {
                    BigDecimal v = r.getBigDecimal(i);
                    got.add(v == null ? BigDecimal.ZERO : v);  // sum of no rows is NULL
                }
            }
            for (int i = 0; i < expected.length; i++) {
                BigDecimal want = expected[i] instanceof BigDecimal b ? b : BigDecimal.valueOf((Long) expected[i]);
                if (got.get(i).compareTo(want) != 0) {
                    throw new HarnessFailure(sql + " answered " + got + " after phase " + phase + "; expected " + List.of(expected));
                }
            }
        }

        private long queryLong(Connection c, String sql) throws SQLException, HarnessFailure {
            lastStatement = sql;
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
                return oneLong(r, sql);
            }
        }

        private static long queryLong(PreparedStatement s) throws SQLException, HarnessFailure {
            try (ResultSet r = s.executeQuery()) {
                return oneLong(r, s.toString());
            }
        }

        private static long oneLong(ResultSet r, String sql) throws SQLException, HarnessFailure {
            if (!r.next()) throw new HarnessFailure(sql + " returned no row");
            long v = r.getLong(1);
            if (r.next()) throw new HarnessFailure(sql + " returned more than one row");
            return v;
        }

        private String queryString(Connection c, String sql) throws SQLException {
            lastStatement = sql;
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
                return r.next() ? r.getString(1) : "";
            }
        }
    }

    private static Histogram histogram() {
        return new Histogram(MAX_LATENCY_NANOS, 3);
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e6;
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    static Options parse(String[] args) {
        List<Target> targets = new ArrayList<>();
        Map<String, String> memory = new LinkedHashMap<>();
        int orders = 1_000_000;
        int customers = 100_000;
        int products = 10_000;
        int single = 2000;
        int batches = 50;
        int dimension = 200;
        long seed = 7;
        int pgRefreshes = 20;
        long phaseTimeout = 1800;
        long visibleTimeout = 60;
        int copyRows = 100_000;
        int pointReads = 10_000;
        long pollMicros = 100;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException("option '" + a + "' needs an argument");
            String v = args[++i];
            try {
                switch (a) {
                    case "--target" -> targets.add(Target.parse(v));
                    case "--memory-cmd" -> {
                        int eq = v.indexOf('=');
                        if (eq <= 0) throw new IllegalArgumentException("--memory-cmd takes NAME=SHELL_COMMAND, not '" + v + "'");
                        memory.put(v.substring(0, eq), v.substring(eq + 1));
                    }
                    case "--orders" -> orders = Integer.parseInt(v);
                    case "--customers" -> customers = Integer.parseInt(v);
                    case "--products" -> products = Integer.parseInt(v);
                    case "--single" -> single = Integer.parseInt(v);
                    case "--batches" -> batches = Integer.parseInt(v);
                    case "--dimension" -> dimension = Integer.parseInt(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--pg-refreshes" -> pgRefreshes = Integer.parseInt(v);
                    case "--phase-timeout-seconds" -> phaseTimeout = Long.parseLong(v);
                    case "--visible-timeout-seconds" -> visibleTimeout = Long.parseLong(v);
                    case "--copy-rows" -> copyRows = Integer.parseInt(v);
                    case "--point-reads" -> pointReads = Integer.parseInt(v);
                    case "--poll-micros" -> pollMicros = Long.parseLong(v);
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("option '" + a + "' takes a number, not '" + v + "'");
            }
        }
        if (targets.isEmpty()) throw new IllegalArgumentException("no --target given");
        for (String name : memory.keySet()) {
            if (targets.stream().noneMatch(t -> t.name().equals(name))) throw new IllegalArgumentException("--memory-cmd names no --target: '" + name + "'");
        }
        if (orders < 1 || customers < 1 || products < 1) throw new IllegalArgumentException("--orders, --customers and --products must be at least 1");
        if (single < 0 || batches < 0 || dimension < 0 || pgRefreshes < 0 || pollMicros < 0) {
            throw new IllegalArgumentException("--single, --batches, --dimension, --pg-refreshes and --poll-micros must not be negative");
        }
        if (phaseTimeout < 1 || visibleTimeout < 1 || copyRows < 1 || pointReads < 1) {
            throw new IllegalArgumentException("--phase-timeout-seconds, --visible-timeout-seconds, --copy-rows and --point-reads must be at least 1");
        }
        return new Options(List.copyOf(targets), orders, customers, products, single, batches, dimension, seed,
                Map.copyOf(memory), pgRefreshes, phaseTimeout, visibleTimeout, copyRows, pointReads, pollMicros);
    }
}
