package dev.tributary.nexmark;

import dev.tributary.server.Clock;
import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Nexmark side-by-side command, printing what the Flink harness prints
 * ({@code query=qK events=N seconds=S events_per_s=R}) so both columns line up:
 * <pre>
 * gen --events N --out DIR [--seed S]         the harness's CSV files (byte-identical to its own)
 * run --query qK[,qL...] [--events N] [--workers W] [--chunk C] [--sink subscribe|view] [--repeat R]
 * </pre>
 * {@code run} makes the events first (off the clock), then per query and repetition: a fresh
 * in-memory database with {@code W} workers (2 by default, the harness's parallelism), the
 * query's sink, and on the clock the load of every event of the tables the query reads, chunk by
 * chunk ({@code C} events, 10,000 by default), until the sink has every change of the last
 * chunk. The sink is a SUBSCRIBE whose changes are counted and dropped (Flink's blackhole), or
 * with {@code view} a materialized view (its result arranged, as a view a client reads keeps it).
 * {@code seconds} is that time; {@code events} is every event, as in Nexmark and the harness,
 * although a query reads only its tables.
 */
public final class NexmarkRunner {
    private NexmarkRunner() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) usage("a command: gen or run");
        long events = 2_000_000, seed = NexmarkGenerator.DEFAULT_SEED;
        int workers = 2, chunk = 10_000, repeat = 1;
        String queries = null, sink = "subscribe";
        Path out = null;
        for (int i = 1; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) usage("a value after " + args[i]);
            switch (args[i]) {
                case "--events" -> events = Long.parseLong(v);
                case "--seed" -> seed = Long.parseLong(v);
                case "--out" -> out = Path.of(v);
                case "--query" -> queries = v;
                case "--workers" -> workers = Integer.parseInt(v);
                case "--chunk" -> chunk = Integer.parseInt(v);
                case "--sink" -> sink = v;
                case "--repeat" -> repeat = Integer.parseInt(v);
                default -> usage("no option " + args[i]);
            }
            i++;
        }
        switch (args[0]) {
            case "gen" -> {
                if (out == null) usage("--out DIR");
                new NexmarkGenerator(seed, NexmarkGenerator.DEFAULT_RATE).writeFiles(out, events);
                System.out.printf("generated events=%d dir=%s%n", events, out);
            }
            case "run" -> {
                if (queries == null) usage("--query qK[,qL...]");
                if (!sink.equals("subscribe") && !sink.equals("view")) usage("--sink subscribe or view, not " + sink);
                List<NexmarkQueries.Query> chosen = new ArrayList<>();
                for (String q : queries.split(",")) chosen.add(NexmarkQueries.get(q.trim()));
                List<NexmarkGenerator.Lines> chunks = NexmarkLoader.chunks(new NexmarkGenerator(seed, NexmarkGenerator.DEFAULT_RATE), events, chunk);
                for (NexmarkQueries.Query q : chosen) {
                    for (int r = 0; r < repeat; r++) {
                        Run run = run(q, chunks, workers, sink.equals("view"));
                        System.out.printf("query=%s events=%d seconds=%.3f events_per_s=%.0f rows=%d workers=%d sink=%s cpu_s=%.2f gc_s=%.2f%n",
                                q.name(), events, run.seconds(), events / run.seconds(), run.rows(), workers, sink, run.cpuSeconds(), run.gcSeconds());
                    }
                }
            }
            default -> usage("no command " + args[0]);
        }
    }

    /**
     * One timed run: how long, how many rows the sink received (changes, or the view's rows), and
     * the process's CPU time and the collectors' time over it (how busy the two cores were).
     */
    public record Run(double seconds, long rows, double cpuSeconds, double gcSeconds) {}

    private static double cpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    }

    private static double gcSeconds() {
        long ms = 0;
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) ms += Math.max(0, gc.getCollectionTime());
        return ms / 1e3;
    }

    /** Runs {@code q} over {@code chunks} on a fresh database; see the class comment. */
    public static Run run(NexmarkQueries.Query q, List<NexmarkGenerator.Lines> chunks, int workers, boolean view) throws InterruptedException {
        try (Tributary db = Tributary.inMemory(Clock.wall(), workers)) {
            NexmarkLoader.createTables(db);
            Sink sink = view ? null : new Sink();
            Subscription subscription = null;
            if (view) db.execute("CREATE MATERIALIZED VIEW " + q.name() + " AS " + q.sql());
            else subscription = db.subscribe("SUBSCRIBE (" + q.sql() + ") WITH (SNAPSHOT = false, PROGRESS)", sink);
            try {
                Tributary.Connection session = db.session();
                long started = System.nanoTime();
                double cpu = cpuSeconds(), gc = gcSeconds();
                for (NexmarkGenerator.Lines c : chunks) NexmarkLoader.load(session, c, q.reads());
                long rows;
                if (view) {
                    rows = (Long) db.query("SELECT count(*) FROM " + q.name()).rows().get(0)[0]; // waits for the view to pass the last load
                } else if (NexmarkQueries.STREAMING.containsKey(q.name())) {
                    // in event time: done when the watermark has reached the last event less the delay
                    java.time.LocalDateTime last = java.time.LocalDateTime.MIN;
                    for (NexmarkGenerator.Kind k : q.reads()) {
                        Object m = db.query("SELECT max(dateTime) FROM " + NexmarkLoader.table(k)).rows().get(0)[0];
                        if (m != null && last.isBefore((java.time.LocalDateTime) m)) last = (java.time.LocalDateTime) m;
                    }
                    sink.awaitPast(last.minus(NexmarkQueries.WATERMARK_DELAY).toInstant(java.time.ZoneOffset.UTC));
                    rows = sink.rows.get();
                } else {
                    // a read's time is at or after every write's (the clock's may be behind them: commits
                    // faster than one a millisecond take the times after it), and progress past it covers them
                    Instant read = (Instant) db.query("SELECT now()").rows().get(0)[0];
                    sink.awaitPast(read.plusMillis(1));
                    rows = sink.rows.get();
                }
                return new Run((System.nanoTime() - started) / 1e9, rows, cpuSeconds() - cpu, gcSeconds() - gc);
            } finally {
                if (subscription != null) subscription.close();
            }
        }
    }

    /** The blackhole: counts the changes, and lets a thread wait until progress passes a time. */
    private static final class Sink implements Subscription.Listener {
        final AtomicLong rows = new AtomicLong();
        private final AtomicReference<Instant> progressed = new AtomicReference<>(Instant.MIN);
        private final AtomicReference<SqlException> failed = new AtomicReference<>();
        private volatile CountDownLatch waiting;
        private volatile Instant target;

        @Override
        public void onChanges(Result batch) {
            for (Object[] row : batch.rows()) {
                if (Boolean.TRUE.equals(row[1])) {
                    // a system time, or a stream's event time (a timestamp, taken as UTC)
                    Instant at = row[0] instanceof java.time.LocalDateTime t ? t.toInstant(java.time.ZoneOffset.UTC) : (Instant) row[0];
                    progressed.set(at);
                    CountDownLatch w = waiting;
                    if (w != null && !at.isBefore(target)) w.countDown();
                } else {
                    rows.incrementAndGet();
                }
            }
        }

        @Override
        public void onError(SqlException error) {
            failed.set(error);
            CountDownLatch w = waiting;
            if (w != null) w.countDown();
        }

        /** Waits until every change before {@code time} has been delivered. */
        void awaitPast(Instant time) throws InterruptedException {
            target = time;
            CountDownLatch w = new CountDownLatch(1);
            waiting = w;
            if (progressed.get().isBefore(time) && failed.get() == null) {
                if (!w.await(30, TimeUnit.MINUTES)) throw new IllegalStateException("the subscription did not pass " + time + " within 30 minutes");
            }
            if (failed.get() != null) throw failed.get();
        }
    }

    private static void usage(String missing) {
        System.err.println("nexmark: " + missing + "\nusage: gen --events N --out DIR [--seed S]\n"
                + "       run --query qK[,qL...] [--events N] [--workers W] [--chunk C] [--sink subscribe|view] [--repeat R]");
        System.exit(2);
    }
}
