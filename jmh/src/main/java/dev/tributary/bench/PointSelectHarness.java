package dev.tributary.bench;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Point selects by key through JDBC prepared statements against several PostgreSQL-protocol
 * servers side by side: Tributary's {@code serve} and a PostgreSQL server, driven by the same
 * client code ({@link ClosedLoop} running {@link PointSelectLoad}) over the same data ({@link KvDataset}).
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.tributary.bench.PointSelectHarness \
 *   --target tributary=jdbc:postgresql://127.0.0.1:6875/tributary?user=tributary \
 *   --target postgres=jdbc:postgresql://127.0.0.1:15450/postgres?user=postgres \
 *   [--connections 1,4,16] [--warmup 5] [--seconds 10] [--rows 100000] [--seed 7]
 *   [--relation kv_view|kv] [--no-load]
 * </pre>
 * {@code jmh/pgbench-compare.sh} starts both servers and runs this.
 *
 * <p>This is a main class rather than a JMH benchmark because the servers under test are other
 * processes that the script starts and loads once: a JMH fork would reload or share them behind
 * JMH's back, JMH's thread count is one per run rather than a list compared in one report, and
 * the figures wanted are queries per second with p50/p99 from one HdrHistogram per server and
 * connection count, which JMH's sample mode does not give per configuration side by side.
 *
 * <p>Each target is loaded first (unless {@code --no-load}); then for each connection count the
 * targets are run one after the other, so a drift of the machine's load over the run touches all
 * of them alike. Output: a line per configuration as it finishes, then a Markdown table.
 */
public final class PointSelectHarness {
    private PointSelectHarness() {}

    /** How long a query may still be running after a configuration's end before the run is failed as a hang. */
    private static final Duration HANG_GRACE = Duration.ofMinutes(2);

    /** The parsed command line. */
    record Options(List<Target> targets, int[] connections, Duration warmup, Duration measure,
                   int rows, long seed, String relation, boolean load) {}

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("PointSelectHarness: " + e.getMessage());
            System.err.println("usage: PointSelectHarness --target NAME=JDBC_URL [--target ...] [--connections 1,4,16]"
                    + " [--warmup SECONDS] [--seconds SECONDS] [--rows N] [--seed N] [--relation kv_view|kv] [--no-load]");
            System.exit(2);
            return;
        }
        System.out.printf(Locale.ROOT, "client: JDK %s, %s, %d rows, keys uniform from seed %d, warm-up %d s, measured %d s per configuration, SELECT v FROM %s WHERE k = ?%n",
                Runtime.version(), org.postgresql.util.DriverInfo.DRIVER_FULL_NAME, o.rows(), o.seed(),
                o.warmup().toSeconds(), o.measure().toSeconds(), o.relation());
        KvDataset data = new KvDataset(o.rows());
        for (Target t : o.targets()) {
            try (Connection c = DriverManager.getConnection(t.url())) {
                DatabaseMetaData meta = c.getMetaData();
                System.out.printf("%s: %s %s at %s%n", t.name(), meta.getDatabaseProductName(), meta.getDatabaseProductVersion(), t.url());
                if (o.load()) {
                    long start = System.nanoTime();
                    data.load(c);
                    System.out.printf(Locale.ROOT, "%s: loaded %d rows, view and index in %.1f s%n", t.name(), o.rows(), (System.nanoTime() - start) / 1e9);
                }
            }
        }
        Map<String, ClosedLoop.Result> results = new LinkedHashMap<>();
        boolean anyFailed = false;
        for (int connections : o.connections()) {
            for (Target t : o.targets()) {
                try {
                    var r = new ClosedLoop(t.url()).run(t.name(), connections, o.warmup(), o.measure(), HANG_GRACE,
                            PointSelectLoad.opener(o.relation(), o.rows(), o.seed()));
                    results.put(t.name() + "/" + connections, r);
                    System.out.printf(Locale.ROOT, "%-10s %3d connections: %9.0f queries/s  p50 %8.1f us  p99 %8.1f us  p99.9 %8.1f us  max %9.1f us  (%d queries)%n",
                            t.name(), connections, r.perSecond(), r.percentileMicros(50), r.percentileMicros(99),
                            r.percentileMicros(99.9), r.latency().getMaxValue() / 1e3, r.measured());
                } catch (SQLException | IllegalStateException e) {
                    anyFailed = true;
                    System.out.printf("%-10s %3d connections: FAILED: %s%n", t.name(), connections, e.getMessage());
                }
            }
        }
        System.out.println();
        System.out.print(table(o, results));
        if (anyFailed) System.exit(1);
    }

    /** The report: a row per connection count, per target its qps, p50 and p99; with two targets, the first's qps over the second's. */
    static String table(Options o, Map<String, ClosedLoop.Result> results) {
        StringBuilder head = new StringBuilder("| connections |");
        StringBuilder rule = new StringBuilder("|---:|");
        for (Target t : o.targets()) {
            head.append(' ').append(t.name()).append(" qps | p50 µs | p99 µs |");
            rule.append("---:|---:|---:|");
        }
        boolean ratio = o.targets().size() == 2;
        if (ratio) {
            head.append(' ').append(o.targets().get(0).name()).append(" / ").append(o.targets().get(1).name()).append(" qps |");
            rule.append("---:|");
        }
        StringBuilder out = new StringBuilder().append(head).append('\n').append(rule).append('\n');
        for (int connections : o.connections()) {
            out.append("| ").append(connections).append(" |");
            for (Target t : o.targets()) {
                var r = results.get(t.name() + "/" + connections);
                if (r == null) out.append(" failed | | |");
                else out.append(String.format(Locale.ROOT, " %.0f | %.0f | %.0f |", r.perSecond(), r.percentileMicros(50), r.percentileMicros(99)));
            }
            if (ratio) {
                var a = results.get(o.targets().get(0).name() + "/" + connections);
                var b = results.get(o.targets().get(1).name() + "/" + connections);
                out.append(a == null || b == null ? " |" : String.format(Locale.ROOT, " %.2f |", a.perSecond() / b.perSecond()));
            }
            out.append('\n');
        }
        return out.toString();
    }

    static Options parse(String[] args) {
        List<Target> targets = new ArrayList<>();
        int[] connections = {1, 4, 16};
        long warmup = 5;
        long seconds = 10;
        int rows = 100_000;
        long seed = 7;
        String relation = "kv_view";
        boolean load = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--no-load")) {
                load = false;
                continue;
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException("option '" + a + "' needs an argument");
            String v = args[++i];
            try {
                switch (a) {
                    case "--target" -> targets.add(Target.parse(v));
                    case "--connections" -> connections = Arrays.stream(v.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                    case "--warmup" -> warmup = Long.parseLong(v);
                    case "--seconds" -> seconds = Long.parseLong(v);
                    case "--rows" -> rows = Integer.parseInt(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--relation" -> {
                        if (!v.equals("kv_view") && !v.equals("kv")) throw new IllegalArgumentException("--relation takes kv_view or kv, not '" + v + "'");
                        relation = v;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("option '" + a + "' takes a number, not '" + v + "'");
            }
        }
        if (targets.isEmpty()) throw new IllegalArgumentException("no --target given");
        if (Arrays.stream(connections).anyMatch(c -> c < 1)) throw new IllegalArgumentException("connection counts must be at least 1");
        if (rows < 1 || warmup < 0 || seconds < 1) throw new IllegalArgumentException("--rows and --seconds must be at least 1, --warmup at least 0");
        return new Options(List.copyOf(targets), connections, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds), rows, seed, relation, load);
    }
}
