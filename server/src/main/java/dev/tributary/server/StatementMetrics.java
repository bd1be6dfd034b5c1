package dev.tributary.server;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * How many statements of each {@link StatementKind} a database ran, how long they took (a
 * histogram of seconds, durability waits included: what the client waited) and how many failed
 * (one that fails to bind at its Parse too; one that does not parse has no kind and is not counted);
 * and how many commits reached the log with how many rows. Read by {@code /metrics}
 * ({@link dev.tributary.server.http.HttpService}).
 *
 * <p>On a statement's path this only records into the Prometheus client's histogram and counter
 * data points, resolved per kind once here: no map lookup, no lock of ours. The commit counts are
 * the write path's own fields, read at a scrape.
 */
public final class StatementMetrics implements MultiCollector {
    /** Seconds, from 50 µs (a point read) to a minute (a large build): the bounds the histogram counts below. */
    private static final double[] BOUNDS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

    private final Histogram durations = Histogram.builder().name("tributary_statement_duration_seconds")
            .help("Statements run, by kind, and how long each took until its answer (durability waits included)")
            .labelNames("kind").classicOnly().classicUpperBounds(BOUNDS).build();
    private final Counter errors = Counter.builder().name("tributary_statement_errors")
            .help("Statements that failed, by kind").labelNames("kind").build();
    private final CounterWithCallback commits;
    private final CounterWithCallback committedRows;
    private final DistributionDataPoint[] durationOf = new DistributionDataPoint[StatementKind.values().length];
    private final CounterDataPoint[] errorsOf = new CounterDataPoint[StatementKind.values().length];

    /** Metrics reading {@code commits} (commits that reached the log) and {@code rows} (the row changes they held). */
    StatementMetrics(LongSupplier commits, LongSupplier rows) {
        for (StatementKind k : StatementKind.values()) {
            durationOf[k.ordinal()] = durations.labelValues(k.label());
            errorsOf[k.ordinal()] = errors.labelValues(k.label());
        }
        this.commits = CounterWithCallback.builder().name("tributary_commits")
                .help("Transactions whose writes were committed to the log").callback(c -> c.call(commits.getAsLong())).build();
        this.committedRows = CounterWithCallback.builder().name("tributary_committed_rows")
                .help("Row changes (inserted or deleted rows; an update is both) committed to the log").callback(c -> c.call(rows.getAsLong())).build();
    }

    /**
     * What every kind of statement adds up to since the start: how many ran and failed, and the
     * 50th and 99th percentile of their durations in seconds (0 before any ran).
     */
    public record Totals(long statements, long errors, double p50Seconds, double p99Seconds) {}

    /**
     * The totals now. The percentiles are estimated from the histogram's buckets as Prometheus's
     * {@code histogram_quantile} does (linearly within the bucket the rank falls in; the largest
     * bound for one beyond it), so they are as coarse as {@link #BOUNDS}.
     */
    public Totals totals() {
        double[] bounds = null;
        long[] counts = null;
        long statements = 0;
        for (HistogramSnapshot.HistogramDataPointSnapshot d : durations.collect().getDataPoints()) {
            ClassicHistogramBuckets b = d.getClassicBuckets();
            if (bounds == null) {
                bounds = new double[b.size()];
                counts = new long[b.size()];
                for (int i = 0; i < b.size(); i++) bounds[i] = b.getUpperBound(i);
            }
            for (int i = 0; i < b.size(); i++) counts[i] += b.getCount(i);
            statements += d.getCount();
        }
        long failed = 0;
        for (CounterSnapshot.CounterDataPointSnapshot d : errors.collect().getDataPoints()) failed += (long) d.getValue();
        if (bounds == null) return new Totals(0, failed, 0, 0);
        return new Totals(statements, failed, quantile(0.5, bounds, counts), quantile(0.99, bounds, counts));
    }

    /** The {@code q} quantile of a histogram with per-bucket (not cumulative) {@code counts} under upper {@code bounds}, the last +Inf. */
    static double quantile(double q, double[] bounds, long[] counts) {
        long total = 0;
        for (long c : counts) total += c;
        if (total == 0) return 0;
        double rank = q * total;
        long below = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0 && below + counts[i] >= rank) {
                if (Double.isInfinite(bounds[i])) return i == 0 ? 0 : bounds[i - 1];
                double lower = i == 0 ? 0 : bounds[i - 1];
                return lower + (bounds[i] - lower) * (rank - below) / counts[i];
            }
            below += counts[i];
        }
        return bounds[bounds.length - 1];
    }

    /** Runs {@code body}, a statement of kind {@code kind}, and records its time and whether it failed. */
    <T> T time(StatementKind kind, Supplier<T> body) {
        long start = System.nanoTime();
        boolean ok = false;
        try {
            T result = body.get();
            ok = true;
            return result;
        } finally {
            durationOf[kind.ordinal()].observe((System.nanoTime() - start) / 1e9);
            if (!ok) errorsOf[kind.ordinal()].inc();
        }
    }

    /** Records a statement of kind {@code kind} that failed before it ran (binding it, at the extended protocol's Parse), started at {@code startNanos}. */
    void failed(StatementKind kind, long startNanos) {
        durationOf[kind.ordinal()].observe((System.nanoTime() - startNanos) / 1e9);
        errorsOf[kind.ordinal()].inc();
    }

    @Override
    public MetricSnapshots collect() {
        return new MetricSnapshots(durations.collect(), errors.collect(), commits.collect(), committedRows.collect());
    }
}
