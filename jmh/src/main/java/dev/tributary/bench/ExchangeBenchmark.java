package dev.tributary.bench;

import dev.tributary.timely.InputHandle;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.LongContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import dev.tributary.timely.Worker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
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
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Exchange throughput: 8-byte records ({@link LongContainer}) fed by every worker's
 * {@link InputHandle}, moved by {@link Stream#exchange()} to the worker owning each value, and
 * counted there.
 *
 * <p>Dataflow, on each worker: {@code input -> exchange() -> count -> probe}. {@code count} is a
 * sink (it never sends); its output stream exists only so that a probe can watch its frontier
 * without a second reader of the exchanged stream (which would copy every container).
 *
 * <p>One invocation = one round at a fresh time {@code t}: each worker appends
 * {@code RECORDS / workers} distinct values through {@link InputHandle#staged()}, stepping the
 * worker after every full container ({@link InputHandle#BATCH} records), then advances its input
 * to {@code t + 1} and steps until the probe has passed {@code t}: every record has been counted
 * on its owner. The computation is started once per trial ({@link RoundDriver}), so thread start
 * and dataflow construction are not measured. Scores are records per second (both workers
 * together); with {@code -prof gc}, {@code gc.alloc.rate.norm} is bytes allocated per record, by
 * every thread of the JVM. After every invocation the records counted are checked against those
 * sent, so a round that the probe declared complete too early fails the run.
 *
 * <p>Workers advance their inputs as soon as they have pushed their own records, so one worker
 * routinely consumes a peer's containers before it hears of their production: the case that, up
 * to commit eba2ccb, let a transiently negative message count cancel the peer's capability in the
 * progress tracker (the frontier passed {@code t} early and the next message at {@code t} failed
 * with "progress violated"; fixed in 201e828). {@code -p pushBarrier=true} makes each worker wait
 * (stepping) until every worker has pushed before it advances, which avoided that bug and shows
 * what the wait costs.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class ExchangeBenchmark {
    /** Records per invocation, over all workers. */
    static final int RECORDS = 10_000_000;

    @Param({"2"})
    public int workers;

    /** Wait for every worker to finish pushing before advancing the inputs; see the class comment. */
    @Param({"false"})
    public boolean pushBarrier;

    private RoundDriver driver;
    private ExchangeWorker[] perWorker;
    private long batches;

    @Setup(Level.Trial)
    public void start() {
        if (RECORDS % workers != 0) throw new IllegalArgumentException(RECORDS + " records do not split evenly over " + workers + " workers");
        perWorker = new ExchangeWorker[workers];
        AtomicLongArray pushed = pushBarrier ? new AtomicLongArray(workers) : null;
        driver = new RoundDriver(workers, worker -> {
            ExchangeWorker w = new ExchangeWorker(worker, RECORDS / workers, pushed);
            perWorker[worker.index()] = w;
            return w::round;
        });
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void exchange() {
        driver.runBatch();
        batches++;
        // The latch orders the workers' writes before these reads.
        long sent = 0;
        long received = 0;
        for (ExchangeWorker w : perWorker) {
            sent += w.sent;
            received += w.received;
        }
        if (sent != received) throw new IllegalStateException("round " + batches + " completed with " + sent + " records sent but " + received + " counted");
    }

    @TearDown(Level.Trial)
    public void stop() {
        driver.close();
        long sent = 0;
        long received = 0;
        for (ExchangeWorker w : perWorker) {
            sent += w.sent;
            received += w.received;
            if (w.misrouted != 0) throw new IllegalStateException("worker " + w.index + " counted " + w.misrouted + " records it does not own");
        }
        if (sent != batches * RECORDS || received != sent) {
            throw new IllegalStateException("sent " + sent + " and counted " + received + " records in " + batches + " rounds of " + RECORDS);
        }
    }

    /** One worker's dataflow and round loop. Fields are touched only by the worker's thread until tear-down. */
    static final class ExchangeWorker {
        final int index;
        private final Worker worker;
        private final int perRound;
        private final InputHandle<LongContainer> input;
        private final Probe probe;
        private final BooleanSupplier notPassed;
        private final AtomicLongArray pushed;
        private final BooleanSupplier peersPushing;
        private long round;
        private long next;
        private long waitingFor;
        long sent;
        long received;
        long misrouted;

        ExchangeWorker(Worker worker, int perRound, AtomicLongArray pushed) {
            this.index = worker.index();
            this.pushed = pushed;
            this.peersPushing = () -> {
                for (int w = 0; w < pushed.length(); w++) {
                    if (pushed.get(w) < round) return true;
                }
                return false;
            };
            this.worker = worker;
            this.perRound = perRound;
            // Distinct values per worker; the router mixes them, so each worker keeps about 1/peers.
            this.next = (long) index << 40;
            Built built = worker.dataflow("exchange", scope -> {
                InputHandle<LongContainer> in = scope.input("records", LongContainer.TYPE);
                return new Built(in, count(scope, in.stream().exchange()).probe());
            });
            this.input = built.input();
            this.probe = built.probe();
            this.notPassed = () -> probe.lessEqual(waitingFor);
        }

        private record Built(InputHandle<LongContainer> input, Probe probe) {}

        /** A sink counting the records it receives; its (silent) output is for the probe. */
        private Stream<LongContainer> count(Scope scope, Stream<LongContainer> stream) {
            OperatorBuilder b = scope.operator("count");
            InputPort<LongContainer> in = b.input(stream, Pact.pipeline());
            OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
            int peers = scope.peers();
            InputPort.MessageConsumer<LongContainer> counter = (cap, data) -> {
                received += data.size();
                // Cheap spot check of routing: the first record of each container.
                if (data.size() > 0 && worker.router().route(data.get(0)) != index && peers > 1) misrouted++;
            };
            b.build(() -> in.forEach(counter));
            return out.stream();
        }

        void round(long number) {
            long t = number - 1;
            int remaining = perRound;
            long v = next;
            while (remaining > 0) {
                LongContainer c = input.staged();
                int n = Math.min(InputHandle.BATCH - c.size(), remaining);
                for (int i = 0; i < n; i++) c.add(v++);
                remaining -= n;
                worker.step(); // sends the full container and lets the operators consume
            }
            next = v;
            sent += perRound;
            if (pushed != null) {
                // Our last step has queued our progress for every peer; now wait for theirs.
                round = number;
                pushed.set(index, number);
                worker.stepWhile(peersPushing);
            }
            input.advanceTo(t + 1);
            waitingFor = t;
            worker.stepWhile(notPassed);
        }
    }
}
