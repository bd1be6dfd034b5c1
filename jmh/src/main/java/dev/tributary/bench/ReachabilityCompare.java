package dev.tributary.bench;

import dev.tributary.server.Clock;
import dev.tributary.server.CopyIn;
import dev.tributary.server.Tributary;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * An incrementally maintained reachability view against recomputing it: the nodes reachable
 * from one node (the first edge's source) over a random directed graph ({@code --edges} edges
 * among {@code --nodes} nodes, a quarter as many as edges by default), as {@code WITH RECURSIVE
 * r(node) AS (SELECT root UNION SELECT e.dst FROM r JOIN edge e ON e.src =
 * r.node)}. Tributary (embedded, {@code --workers} workers) maintains it as a materialized view:
 * the figures are the view's build over the loaded edges and, for each of {@code --changes}
 * transactions that delete one existing edge (by key) and insert one new one, the time from BEGIN
 * until a read of the view's count (a materialized view over it) answers after the commit. DuckDB (in-process) and, with
 * {@code --pg URL}, PostgreSQL answer the same query by recomputing it: their figure is the
 * median of {@code --repeat} runs over the same edges. After the changes every system's count
 * must be the same (the run fails otherwise).
 *
 * <p>Command: {@code jmh/recursive-compare.sh} (starts a throw-away PostgreSQL), or {@code java
 * --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xmx8g -cp jmh/target/benchmarks.jar
 * dev.tributary.bench.ReachabilityCompare [--edges 1000000] [--nodes 250000] [--changes 50]
 * [--repeat 3] [--workers 2] [--seed 1] [--pg jdbc:postgresql://...] [--jfr FILE]}; {@code --jfr} records
 * a JFR profile of the changes alone.
 */
public final class ReachabilityCompare {
    private ReachabilityCompare() {}

    static String step;
    static String countQuery;

    public static void main(String[] args) throws Exception {
        int edges = 1_000_000;
        int nodes = -1;
        int changes = 50;
        int repeat = 3;
        int workers = 2;
        long seed = 1;
        String pg = null;
        String jfr = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--edges" -> edges = Integer.parseInt(args[++i]);
                case "--nodes" -> nodes = Integer.parseInt(args[++i]);
                case "--changes" -> changes = Integer.parseInt(args[++i]);
                case "--repeat" -> repeat = Integer.parseInt(args[++i]);
                case "--workers" -> workers = Integer.parseInt(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--pg" -> pg = args[++i];
                case "--jfr" -> jfr = args[++i];
                case "--help" -> {
                    System.out.println("ReachabilityCompare [--edges N] [--nodes N] [--changes N] [--repeat N] [--workers N] [--seed N] [--pg JDBC-URL] [--jfr FILE]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--help lists them)");
            }
        }
        if (nodes < 0) nodes = Math.max(1, edges / 4);
        SplittableRandom random = new SplittableRandom(seed);
        int[] src = new int[edges];
        int[] dst = new int[edges];
        for (int i = 0; i < edges; i++) {
            src[i] = random.nextInt(nodes);
            dst[i] = random.nextInt(nodes);
        }
        // the root: the first edge's source, which has an edge out
        step = "SELECT " + src[0] + " UNION SELECT e.dst FROM r JOIN edge e ON e.src = r.node";
        countQuery = "WITH RECURSIVE r(node) AS (" + step + ") SELECT count(*) FROM r";
        // each change deletes one of the loaded edges and inserts a new one
        int[][] change = new int[changes][];
        for (int k = 0; k < changes; k++) change[k] = new int[] {random.nextInt(edges), random.nextInt(nodes), random.nextInt(nodes)};
        System.out.printf("graph: %,d edges among %,d nodes; %d changes (delete one edge, insert one); %d workers%n", edges, nodes, changes, workers);

        long tributaryCount;
        try (Tributary db = Tributary.inMemory(Clock.wall(), workers)) {
            db.execute("SET max_write_size = 0");
            db.execute("CREATE TABLE edge (id int PRIMARY KEY, src int, dst int)");
            load(db, src, dst);
            long t0 = System.nanoTime();
            long cpu0 = cpuNanos();
            db.execute("CREATE MATERIALIZED VIEW reach AS WITH RECURSIVE r(node) AS (" + step + ") SELECT node FROM r");
            // the count maintained too, so that reading it after a change costs a row, not a scan of the view
            db.execute("CREATE MATERIALIZED VIEW reach_count AS SELECT count(*) AS n FROM reach");
            long built = Long.parseLong(db.query("SELECT n FROM reach_count").text().get(0).get(0));
            double buildSeconds = (System.nanoTime() - t0) / 1e9;
            double buildCpu = (cpuNanos() - cpu0) / 1e9;
            System.out.printf("tributary: view built in %.2f s (%.1f s of CPU; %,d nodes reachable); live heap %,d MB%n", buildSeconds, buildCpu, built, liveHeap() >> 20);
            jdk.jfr.Recording recording = null;
            if (jfr != null) {
                // the changes alone, not the load or the build
                recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
                recording.start();
            }
            double[] latencies = new double[changes];
            double[] commits = new double[changes];
            for (int k = 0; k < changes; k++) {
                int[] c = change[k];
                long s = System.nanoTime();
                db.execute("BEGIN");
                db.execute("DELETE FROM edge WHERE id = " + c[0]);
                db.execute("INSERT INTO edge VALUES (" + (src.length + k) + ", " + c[1] + ", " + c[2] + ")");
                db.execute("COMMIT");
                commits[k] = (System.nanoTime() - s) / 1e6;
                db.query("SELECT n FROM reach_count");
                latencies[k] = (System.nanoTime() - s) / 1e6;
            }
            if (recording != null) {
                recording.stop();
                recording.dump(java.nio.file.Path.of(jfr));
            }
            tributaryCount = Long.parseLong(db.query("SELECT count(*) FROM reach").text().get(0).get(0));
            java.util.Arrays.sort(latencies);
            java.util.Arrays.sort(commits);
            System.out.printf("tributary: one edge change (a transaction deleting one edge by key and inserting one) until the view shows it: median %.2f ms, "
                    + "p90 %.2f ms, max %.2f ms (to its COMMIT alone: median %.2f ms; %d changes); %,d reachable after%n",
                    latencies[changes / 2], latencies[(int) (changes * 0.9)], latencies[changes - 1], commits[changes / 2], changes, tributaryCount);
        }

        long duckCount;
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            duckCount = recompute("duckdb", duck, src, dst, change, repeat);
        }
        check("duckdb", duckCount, tributaryCount);
        if (pg != null) {
            try (Connection c = DriverManager.getConnection(pg)) {
                long pgCount = recompute("postgres", c, src, dst, change, repeat);
                check("postgres", pgCount, tributaryCount);
            }
        }
    }

    private static void check(String name, long count, long tributary) {
        if (count != tributary) throw new IllegalStateException(name + " counts " + count + " reachable nodes, Tributary " + tributary);
    }

    /** Loads the edges by COPY, 100k rows a statement. */
    private static void load(Tributary db, int[] src, int[] dst) {
        Tributary.Connection s = db.session();
        StringBuilder b = new StringBuilder();
        for (int from = 0; from < src.length; from += 100_000) {
            b.setLength(0);
            for (int i = from; i < Math.min(src.length, from + 100_000); i++) b.append(i).append('\t').append(src[i]).append('\t').append(dst[i]).append('\n');
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parseStatement("COPY edge FROM STDIN"));
            copy.data(b.toString().getBytes(StandardCharsets.UTF_8));
            copy.finish();
        }
    }

    /** Loads the edges into {@code c}, applies the changes, and times the recursive count there (the median of {@code repeat} runs). */
    private static long recompute(String name, Connection c, int[] src, int[] dst, int[][] change, int repeat) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS edge CASCADE");
            st.execute("CREATE TABLE edge (id int PRIMARY KEY, src int, dst int)");
            c.setAutoCommit(false);
            try (var ins = c.prepareStatement("INSERT INTO edge VALUES (?, ?, ?)")) {
                for (int i = 0; i < src.length; i++) {
                    ins.setInt(1, i);
                    ins.setInt(2, src[i]);
                    ins.setInt(3, dst[i]);
                    ins.addBatch();
                    if (i % 10_000 == 9_999) ins.executeBatch();
                }
                ins.executeBatch();
            }
            for (int k = 0; k < change.length; k++) {
                st.execute("DELETE FROM edge WHERE id = " + change[k][0]);
                st.execute("INSERT INTO edge VALUES (" + (src.length + k) + ", " + change[k][1] + ", " + change[k][2] + ")");
            }
            c.commit();
            c.setAutoCommit(true);
            if (name.equals("postgres")) st.execute("ANALYZE edge");
            double[] ms = new double[repeat];
            long count = -1;
            for (int r = 0; r < repeat; r++) {
                long s = System.nanoTime();
                try (ResultSet rs = st.executeQuery(countQuery)) {
                    rs.next();
                    count = rs.getLong(1);
                }
                ms[r] = (System.nanoTime() - s) / 1e6;
            }
            java.util.Arrays.sort(ms);
            System.out.printf("%s: recomputing the reachable set: median %.1f ms (%d runs, %s); %,d reachable%n", name, ms[repeat / 2], repeat,
                    java.util.Arrays.toString(ms), count);
            return count;
        }
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long liveHeap() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
