package dev.tributary.bench;

import dev.tributary.arrangements.TraceHandle;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Worker;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Incrementality: the cost of one update to a maintained computation should not depend on how
 * much state it holds. A collection of {@code (long key, long val)} records (each a {@code long}
 * {@code key << 32 | val}) holds {@code keys} records, one per key, loaded at time 0 (once per
 * trial, not timed); then every time step changes {@value #BATCH} records and waits until the
 * probe has passed the step: half are new records (random key, random value), half retract the
 * oldest live records, so the collection keeps its size. Records are loaded and retracted in a
 * random order.
 *
 * <p>{@code op}:
 * <ul>
 *   <li>{@code arrange}: {@code arrangeLongsByKey(key, val)} alone (batching, the trace and its merges);</li>
 *   <li>{@code count}: {@code arrangeLongsByKey(key, val).count()}, the reduce's output arrangement
 *       watched by the probe (not read back as a collection);</li>
 *   <li>{@code join}: the arrangement joined with a second, static one of {@code keys} records
 *       (one per key), output {@code (v1 ^ v2)} as a collection of longs ({@code joinLongs}: the
 *       primitive path, no object per record), whose diffs the sink sums.</li>
 * </ul>
 * One invocation is {@value #STEPS} steps. Score: microseconds per update (one record in or out);
 * with {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes per update. Flat means the 10^7 score
 * is at most twice the 10^4 one. The trial's end also prints the workers' CPU time per update
 * (thread CPU time, so less disturbed by other load on the machine than the score) and the key
 * counts of the batches in the left trace and in the right one (join) or the count's output.
 * At 10^7 keys run 8 or more measured iterations: the largest merges come every few iterations.
 *
 * <p>{@code settle}: before measuring, run steps (not measured) until the largest batch of the
 * left trace, and of the count's output trace, has been replaced this many times since the load.
 * A trace's largest merges come once per several million updates at 10^7 keys, and until each
 * level has merged a few times the arrays its merges write have no retired batches of their size
 * to come from: measured from the load on, allocation at 10^7 keys is that transient. With
 * {@code settle=3} it is the steady state the allocation target is about (finding D11).
 *
 * <p>The fork asks for transparent huge pages, as {@code bin/tributary} does where the kernel
 * offers them: at 10^7 keys nearly every probe of a large batch is a TLB miss with 4 KB pages
 * (finding D16). Where the kernel offers none the JVM warns and runs on small pages.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms12g", "-Xmx12g", "-XX:+AlwaysPreTouch",
        "-XX:+UseTransparentHugePages"})
@State(Scope.Benchmark)
public class IncrementalBenchmark {
    /** Updates per time step, over all workers (half insertions, half retractions). */
    static final int BATCH = 100;
    /** Time steps per invocation. */
    static final int STEPS = 100;

    @Param({"10000", "100000", "1000000", "10000000"})
    public int keys;

    @Param({"arrange", "count", "join"})
    public String op;

    @Param({"1"})
    public int workers;

    @Param({"0"})
    public int settle;

    private RoundDriver driver;
    private Program[] programs;
    private long steps;
    private double loadSec;
    private long settleSteps;
    private double settleSec;
    private boolean settled;
    /** Settling gives up after this many steps (10^8 updates), whether or not the traces settled. */
    private static final long MAX_SETTLE_STEPS = 1_000_000;

    @Setup(Level.Trial)
    public void start() {
        if (BATCH % (2 * workers) != 0) throw new IllegalArgumentException(BATCH + " updates per step do not split into insertions and retractions over " + workers + " workers");
        programs = new Program[workers];
        driver = new RoundDriver(workers, worker -> {
            Program p = new Program(worker, keys, op, BATCH / workers);
            programs[worker.index()] = p;
            return n -> {
                if (n == 1) p.load();
                else p.steps(STEPS);
            };
        });
        long start = System.nanoTime();
        driver.runBatch();
        loadSec = (System.nanoTime() - start) / 1e9;
        start = System.nanoTime();
        while (settle > 0 && !programs[0].settled(settle) && settleSteps < MAX_SETTLE_STEPS) {
            driver.runBatch();
            settleSteps += STEPS;
        }
        settleSec = (System.nanoTime() - start) / 1e9;
        settled = programs[0].settled(settle);
        // the CPU time printed at the end is per update measured (warm-up included), not settling
        for (Program p : programs) p.stepCpuNanos = 0;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH * STEPS)
    public void update() {
        driver.runBatch();
        steps += STEPS;
    }

    @TearDown(Level.Trial)
    public void stop() {
        driver.close();
        long sum = 0;
        for (Program p : programs) sum += p.checksum.value;
        long cpu = 0;
        for (Program p : programs) cpu += p.stepCpuNanos;
        if (settle > 0) {
            System.out.printf("%nsettling (worker 0's largest batches replaced %d times): %s after %d steps, %.1f s%n", settle,
                    settled ? "settled" : "gave up, NOT settled,", settleSteps, settleSec);
        }
        System.out.printf("%nload of %d keys: %.2f s; then %d steps of %d updates; keys of the batches in the traces at the end (worker 0): left %s, right (join) or output (count) %s;"
                + " worker CPU time per update over all steps (warm-up included): %.0f ns%n", keys, loadSec, steps, BATCH, programs[0].leftBatches,
                programs[0].rightBatches, (double) cpu / Math.max(1, steps * BATCH));
        // arrange and count keep exactly `keys` records; the join's output follows the left side's multiplicities
        if (!op.equals("join") && sum != keys) throw new IllegalStateException("checksum " + sum + ", expected " + keys);
        if (op.equals("join") && sum <= 0) throw new IllegalStateException("the join's output is empty");
    }

    /** One worker's dataflow, its share of the records, and its share of each step's changes. */
    static final class Program {
        private static final int STEP_EVERY = 1 << 16;
        private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
        private final Worker worker;
        private final InputSession<Long> left;
        private final InputSession<Long> right;
        private final Probe probe;
        private final BooleanSupplier notPassed;
        private final SplittableRandom random;
        private final int keys;
        private final int perStep;
        /** This worker's live records in the order they will be retracted (a ring). */
        private final long[] live;
        private int next;
        private long time;
        private long waitingFor;
        final Sinks.Sum checksum = new Sinks.Sum();
        /** The arrangements' traces (the right side's, or the count's output), and their batches' key counts after the last invocation (a sign of merging keeping up). */
        private TraceHandle leftTrace;
        private TraceHandle rightTrace;
        String leftBatches = "";
        String rightBatches = "";
        /** Whether settling watches the count's output trace too (the join's right side never changes). */
        private final boolean settlesOutput;
        /** The key counts of the traces' largest batches after the last invocation, and how many times they changed since the load. */
        private long leftLargest = -1;
        private long outputLargest = -1;
        private long leftReplaced = -1;
        private long outputReplaced = -1;

        /** Whether the largest batches of the left trace (and of the count's output) have each been replaced {@code times} times since the load. */
        boolean settled(int times) {
            return leftReplaced >= times && (!settlesOutput || outputReplaced >= times);
        }

        /** The worker thread's CPU time in {@link #steps}: unlike wall-clock time, not inflated while other processes hold the cores. */
        long stepCpuNanos;

        Program(Worker worker, int keys, String op, int perStep) {
            this.worker = worker;
            this.settlesOutput = op.equals("count");
            this.keys = keys;
            this.perStep = perStep;
            this.random = new SplittableRandom(99 + worker.index());
            int peers = worker.peers();
            int mine = keys / peers + (worker.index() < keys % peers ? 1 : 0);
            live = new long[mine];
            for (int i = 0; i < mine; i++) live[i] = record((long) worker.index() + (long) i * peers);
            for (int i = mine - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                long x = live[i];
                live[i] = live[j];
                live[j] = x;
            }
            Built built = worker.dataflow("incremental", scope -> {
                InputSession<Long> l = InputSession.create(scope, "left", DataType.longs());
                InputSession<Long> r = op.equals("join") ? InputSession.create(scope, "right", DataType.longs()) : null;
                Arrangement<Long, Long> a = byKey(l.collection());
                leftTrace = a.trace();
                Probe p = switch (op) {
                    case "arrange" -> Sinks.sumBatches(a.batches(), false, checksum);
                    case "count" -> {
                        Arrangement<Long, Long> counts = a.count();
                        rightTrace = counts.trace();
                        yield Sinks.sumBatches(counts.batches(), true, checksum);
                    }
                    case "join" -> {
                        Arrangement<Long, Long> b = byKey(r.collection());
                        rightTrace = b.trace();
                        Collection<Long> joined = a.joinLongs(b, (k, v1, v2) -> v1 ^ v2);
                        yield Sinks.sumDiffs(joined, checksum);
                    }
                    default -> throw new IllegalArgumentException("unknown op '" + op + "': arrange, count or join");
                };
                return new Built(l, r, p);
            });
            this.left = built.left();
            this.right = built.right();
            this.probe = built.probe();
            this.notPassed = () -> probe.lessEqual(waitingFor);
        }

        private record Built(InputSession<Long> left, InputSession<Long> right, Probe probe) {}

        private static Arrangement<Long, Long> byKey(Collection<Long> records) {
            return records.arrangeLongsByKey(x -> x >>> 32, x -> x & 0xFFFF_FFFFL);
        }

        private long record(long key) {
            return key << 32 | random.nextInt() & 0xFFFF_FFFFL;
        }

        void load() {
            for (int i = 0; i < live.length; i++) {
                left.updateLong(live[i], 1);
                if (right != null) right.updateLong(record(live[i] >>> 32), 1);
                if ((i & (STEP_EVERY - 1)) == STEP_EVERY - 1) worker.step();
            }
            advanceAndWait();
        }

        void steps(int steps) {
            long cpu = CPU.getCurrentThreadCpuTime();
            for (int s = 0; s < steps; s++) {
                for (int i = 0; i < perStep / 2; i++) {
                    long fresh = record(random.nextInt(keys));
                    left.updateLong(fresh, 1);
                    left.updateLong(live[next], -1);
                    live[next] = fresh;
                    next = next + 1 == live.length ? 0 : next + 1;
                }
                advanceAndWait();
            }
            stepCpuNanos += CPU.getCurrentThreadCpuTime() - cpu;
            leftBatches = shape(leftTrace);
            rightBatches = rightTrace == null ? "none" : shape(rightTrace);
            long l = leftTrace.largestBatchKeys();
            if (l != leftLargest) {
                leftLargest = l;
                leftReplaced++;
            }
            if (settlesOutput) {
                long r = rightTrace.largestBatchKeys();
                if (r != outputLargest) {
                    outputLargest = r;
                    outputReplaced++;
                }
            }
        }

        private static String shape(TraceHandle trace) {
            // the counts, not the batches: batches handed out are never recycled by the trace
            int[] counts = trace.batchKeyCounts();
            StringBuilder s = new StringBuilder();
            for (int c : counts) s.append(s.isEmpty() ? "" : " ").append(c);
            return counts.length + " [" + s + "]";
        }

        private void advanceAndWait() {
            long t = time++;
            left.advanceTo(time);
            if (right != null) right.advanceTo(time);
            waitingFor = t;
            worker.stepWhile(notPassed);
        }
    }
}
