package dev.tributary.bench;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.KV;
import dev.tributary.differential.Unit;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Worker;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * One worker's part of the degree-counting experiment of differential dataflow's README
 * ({@code examples/hello.rs}): random edges {@code (src, dst)} over {@code nodes} nodes, each a
 * {@code long} {@code src << 32 | dst}, in a collection fed by an {@link InputSession}.
 *
 * <p>Shapes ({@code shape}):
 * <ul>
 *   <li>{@code count}: {@code edges.map(e -> src).count()}, the out-degree of every node as a
 *       collection of {@code (src, degree)}, which is what DD's {@code edges.map(|(s, _)| s).count()}
 *       is (an arrangement by self, a reduce, and the reduce's output read back as a collection);</li>
 *   <li>{@code arranged}: the same without reading the output back as a collection (the probe
 *       watches the count's arrangement);</li>
 *   <li>{@code distribution}: DD's whole {@code hello.rs}, which also counts the nodes of each
 *       degree: {@code edges.map(src).count().map((src, deg) -> deg).count()}.</li>
 * </ul>
 * A sink folds the output into a checksum that must equal the number of edges: {@code degree * diff}
 * summed (or {@code degree * nodes * diff} for the distribution).
 *
 * <p>Input as in {@code hello.rs}: each worker loads its share of the edges at time 0 from a
 * random generator seeded by its index, then (worker 0 alone) runs rounds, each inserting a new
 * random edge and removing one loaded edge (a second generator with the same seed replays the
 * load) at a time of its own.
 */
final class DegreeProgram {
    /** Records fed between two worker steps while loading, so that the map and exchange keep up. */
    private static final int STEP_EVERY = 1 << 16;

    final Worker worker;
    final int index;
    private final int nodes;
    private final InputSession<Long> input;
    private final Probe probe;
    private final SplittableRandom adds;
    private final SplittableRandom dels;
    private final long[] at = new long[1];
    private final BooleanSupplier notPassed;
    private long waitingFor;
    /** The input's current time. */
    long time;
    /** What this worker's sink has folded: see the class comment. */
    final Sinks.Sum checksum = new Sinks.Sum();
    /** Nanoseconds the last load spent feeding its edges (generation included), and waiting for the probe after. */
    long feedNanos;
    long settleNanos;

    DegreeProgram(Worker worker, int nodes, String shape) {
        this.worker = worker;
        this.index = worker.index();
        this.nodes = nodes;
        this.adds = new SplittableRandom(1234 + index);
        this.dels = new SplittableRandom(1234 + index);
        Built built = worker.dataflow("degrees", scope -> {
            InputSession<Long> in = InputSession.create(scope, "edges", DataType.longs());
            Collection<Long> sources = in.collection().map(e -> e >>> 32, DataType.longs());
            // sources.count() is sources.arrangeBySelf().count().asCollection(); spelled out to reach the trace
            Arrangement<Long, Unit> bySelf = sources.arrangeBySelf();
            Probe p = switch (shape) {
                case "count" -> Sinks.sum(bySelf.count().asCollection(), KV::val, checksum);
                case "arranged" -> Sinks.sumBatches(bySelf.count().batches(), true, checksum);
                case "distribution" -> Sinks.sum(bySelf.count().asCollection().map(KV::val, DataType.longs()).count(), kv -> kv.key() * kv.val(), checksum);
                default -> throw new IllegalArgumentException("unknown shape '" + shape + "': count, arranged or distribution");
            };
            return new Built(in, p);
        });
        this.input = built.input();
        this.probe = built.probe();
        this.notPassed = () -> probe.lessEqual(waitingFor);
    }

    private record Built(InputSession<Long> input, Probe probe) {}

    private long edge(SplittableRandom r) {
        long src = r.nextInt(nodes);
        long dst = r.nextInt(nodes);
        return src << 32 | dst;
    }

    /** This worker's share of {@code edges}, dealt round-robin as {@code hello.rs} does. */
    static long share(long edges, int index, int peers) {
        return edges / peers + (index < edges % peers ? 1 : 0);
    }

    /** Inserts {@code count} random edges at time 0, advances to 1 and steps until the probe has passed 0. */
    void load(long count) {
        long start = System.nanoTime();
        for (long i = 0; i < count; i++) {
            input.insert(edge(adds));
            if ((i & (STEP_EVERY - 1)) == STEP_EVERY - 1) worker.step();
        }
        long fed = System.nanoTime();
        time = 1;
        input.advanceTo(1);
        waitFor(0);
        feedNanos = fed - start;
        settleNanos = System.nanoTime() - fed;
    }

    /** Gives up this worker's input: from now on only worker 0 changes the edges. */
    void close() {
        input.close();
    }

    /** Stages one round at time {@code t}: a new random edge in, a loaded edge out. */
    private void stage(long t) {
        at[0] = t;
        input.updateAt(edge(adds), at, 1);
        input.updateAt(edge(dels), at, -1);
    }

    /** One round at the next time, staged before the clock starts; returns nanoseconds from the advance until the probe has passed it. */
    long round() {
        long t = time;
        stage(t);
        long start = System.nanoTime();
        time = t + 1;
        input.advanceTo(t + 1);
        waitFor(t);
        return System.nanoTime() - start;
    }

    /**
     * {@code rounds} rounds at consecutive times, all staged before the clock starts (as
     * {@code hello.rs} buffers them in its input session), then one advance past them all;
     * returns nanoseconds from the advance until the probe has passed the last.
     */
    long rounds(int rounds) {
        long first = time;
        for (int r = 0; r < rounds; r++) stage(first + r);
        long start = System.nanoTime();
        time = first + rounds;
        input.advanceTo(time);
        waitFor(time - 1);
        return System.nanoTime() - start;
    }

    private void waitFor(long t) {
        waitingFor = t;
        worker.stepWhile(notPassed);
    }
}
