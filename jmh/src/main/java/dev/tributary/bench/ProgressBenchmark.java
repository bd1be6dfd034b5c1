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
 * Progress overhead: how many times per second a small dataflow can be driven through a complete
 * round, that is, how much the runtime costs per time when there is (almost) no data.
 *
 * <p>Dataflow, on each worker: {@code input -> pass_1 -> ... -> pass_N -> probe}, every edge a
 * pipeline, every {@code pass_i} an operator copying each container it receives to its output
 * (taking the container from the output's pool).
 *
 * <p>One round at time {@code t}: worker 0 sends {@code records} records at {@code t} (0 or 1);
 * every worker advances its input to {@code t + 1} and steps until its probe has passed {@code t}.
 * With two workers every round therefore also needs each worker to hear the other's progress.
 * One invocation is {@link #ROUNDS} consecutive rounds on each worker; the computation is started
 * once per trial ({@link RoundDriver}). Scores are rounds per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class ProgressBenchmark {
    /** Rounds per invocation. */
    static final int ROUNDS = 10_000;

    @Param({"1", "2"})
    public int workers;

    /** Records sent per round (by worker 0). */
    @Param({"1", "0"})
    public int records;

    /** Pass-through operators between the input and the probe. */
    @Param({"10"})
    public int operators;

    private RoundDriver driver;
    private PipelineWorker[] perWorker;
    private long batches;

    @Setup(Level.Trial)
    public void start() {
        perWorker = new PipelineWorker[workers];
        driver = new RoundDriver(workers, worker -> {
            PipelineWorker w = new PipelineWorker(worker, operators, worker.index() == 0 ? records : 0);
            perWorker[worker.index()] = w;
            return w::rounds;
        });
    }

    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public void rounds() {
        driver.runBatch();
        batches++;
    }

    @TearDown(Level.Trial)
    public void stop() {
        driver.close();
        long arrived = 0;
        for (PipelineWorker w : perWorker) arrived += w.arrived;
        if (arrived != batches * ROUNDS * records) {
            throw new IllegalStateException(arrived + " records reached the end of the pipeline; expected " + batches * ROUNDS * records);
        }
    }

    /** One worker's dataflow and round loop. */
    static final class PipelineWorker {
        private final Worker worker;
        private final int records;
        private final InputHandle<LongContainer> input;
        private final Probe probe;
        private final BooleanSupplier notPassed;
        private long time;
        private long waitingFor;
        long arrived;

        PipelineWorker(Worker worker, int operators, int records) {
            this.worker = worker;
            this.records = records;
            Built built = worker.dataflow("pipeline", scope -> {
                InputHandle<LongContainer> in = scope.input("rounds", LongContainer.TYPE);
                Stream<LongContainer> s = in.stream();
                for (int i = 1; i <= operators; i++) s = passThrough(scope, "pass_" + i, s, i == operators);
                return new Built(in, s.probe());
            });
            this.input = built.input();
            this.probe = built.probe();
            this.notPassed = () -> probe.lessEqual(waitingFor);
        }

        private record Built(InputHandle<LongContainer> input, Probe probe) {}

        /** A pass-through operator; the last one also counts what reaches it, for the check at tear-down. */
        private Stream<LongContainer> passThrough(Scope scope, String name, Stream<LongContainer> stream, boolean last) {
            OperatorBuilder b = scope.operator(name);
            InputPort<LongContainer> in = b.input(stream, Pact.pipeline());
            OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
            InputPort.MessageConsumer<LongContainer> copy = (cap, data) -> {
                LongContainer c = out.newContainer();
                LongContainer.TYPE.appendAll(data, c);
                if (last) arrived += data.size();
                out.send(cap, c);
            };
            b.build(() -> in.forEach(copy));
            return out.stream();
        }

        void rounds(long number) {
            for (int r = 0; r < ROUNDS; r++) {
                long t = time;
                if (records > 0) {
                    LongContainer c = input.staged();
                    for (int i = 0; i < records; i++) c.add(t);
                }
                time = t + 1;
                input.advanceTo(t + 1);
                waitingFor = t;
                worker.stepWhile(notPassed);
            }
        }
    }
}
