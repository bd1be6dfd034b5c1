package dev.tributary.propertytests.timely;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.propertytests.timely.Model.Bag;
import dev.tributary.propertytests.timely.Script.Cmd;
import dev.tributary.propertytests.timely.Script.RawCmd;
import dev.tributary.propertytests.timely.Shape.Graph;
import dev.tributary.propertytests.timely.Shape.RawNode;
import dev.tributary.timely.Captured;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.LongContainer;
import dev.tributary.timely.Probe;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Probes: once every worker has advanced its inputs to {@code t} and a worker has stepped until
 * its probes no longer report {@code lessThan(t)}, everything at times before {@code t} has gone
 * past the probes, on every worker: what was seen at those times is the reference's, in full, and
 * nothing at those times comes later.
 *
 * <p>The records are logged by an {@code inspect} whose output the probe reads, so the probe is
 * downstream of the log and its contract covers it. ({@code Stream.capture} returns the stream it
 * reads, so a probe on its result is a sibling of the capture, not downstream of it.)
 */
class ProbeTest {
    /** Records go in at times before {@code target}; then every worker's inputs advance to it. */
    record Epoch(long target, List<Cmd> commands) {
        @Override
        public String toString() {
            return commands + ", then all advance to " + target;
        }
    }

    /** What jqwik generates for an epoch: the gap to the previous target, and commands. */
    record RawEpoch(int gap, List<RawCmd> commands) {}

    /** The top-level records a worker's inspect saw, from every worker. Thread-safe. */
    static final class Log {
        private final Bag seen = new Bag();

        synchronized void add(long[] time, LongContainer data) {
            for (int i = 0; i < data.size(); i++) seen.add(time, data.get(i));
        }

        synchronized Bag before(long t) {
            return seen.restrict(time -> time.getFirst() < t);
        }
    }

    @Provide
    Arbitrary<List<RawNode>> shapes() {
        return Generators.shapes();
    }

    @Provide
    Arbitrary<List<RawEpoch>> epochs() {
        return Generators.epochs();
    }

    /**
     * Epoch by epoch: the workers send records at times before the epoch's target (advancing on
     * their own in between), all advance to the target, and each steps until no probe is
     * {@code lessThan(target)}; then each top-level stream has seen, summed over workers, exactly
     * the reference's records at times before the target. At the end, every stream (captured,
     * in every scope) matches the reference and no frontier moved backwards.
     */
    @Property(seed = "2718281828")
    void probedTimesAreComplete(
            @ForAll @IntRange(min = 1, max = 3) int workers,
            @ForAll @IntRange(min = 1, max = 2) int inputs,
            @ForAll("shapes") List<RawNode> rawShape,
            @ForAll("epochs") List<RawEpoch> rawEpochs) {
        Graph shape = Shape.resolve(rawShape, inputs);
        List<Epoch> epochs = resolve(rawEpochs, workers, inputs);
        Model.Inputs given = new Model.Inputs(workers, inputs);
        for (Epoch e : epochs) {
            given.apply(e.commands());
            given.advanceAll(e.target());
        }
        Map<Integer, Bag> expected = RandomDataflowTest.expectedStreams(shape, given.bags());
        long records = expected.values().stream().mapToLong(Bag::size).sum();
        Assume.that(records <= RandomDataflowTest.MAX_RECORDS);
        RandomDataflowTest.collectStatistics(workers, shape, records);

        List<Integer> probed = new ArrayList<>(shape.sourceIds());
        for (Shape.Node n : shape.nodes()) probed.add(n.id());
        Map<Integer, Log> logs = new HashMap<>();
        for (int id : probed) logs.put(id, new Log());
        String context = "\nworkers: " + workers + "\nshape:\n" + Shape.describe(shape) + "epochs: " + epochs + "\n";

        List<Captured<LongContainer>> captures = Harness.captures(expected.size());
        FrontierLog frontiers = new FrontierLog();
        Harness.run(workers, frontiers, worker -> {
            List<InputHandle<LongContainer>> handles = new ArrayList<>();
            List<Probe> probes = new ArrayList<>();
            worker.dataflow("probed", scope -> {
                Render r = Render.build(scope, shape, captures, frontiers, handles);
                for (int id : probed) probes.add(r.streams.get(id).inspect((time, data) -> logs.get(id).add(time, data)).probe());
                return null;
            });
            for (Epoch e : epochs) {
                for (Cmd c : e.commands()) {
                    if (c.worker() == worker.index()) RandomDataflowTest.perform(worker, handles, c);
                }
                for (InputHandle<LongContainer> h : handles) h.advanceTo(e.target());
                worker.stepWhile(() -> probes.stream().anyMatch(p -> p.lessThan(e.target())));
                for (int id : probed) {
                    Bag want = expected.get(id).restrict(time -> time.getFirst() < e.target());
                    Bag seen = logs.get(id).before(e.target());
                    if (!seen.equals(want)) {
                        throw new AssertionError("worker " + worker.index() + ": the probes passed " + e.target() + ", but stream s" + id
                                + " has seen " + seen + " before it, not " + want + context);
                    }
                }
            }
        });

        Harness.checkCaptures(captures, Shape.exchangeIds(shape), workers, frontiers);
        Map<Integer, Bag> actual = new HashMap<>();
        for (int id = 0; id < captures.size(); id++) actual.put(id, Harness.collect(captures.get(id)));
        Map<Integer, Bag> logged = new HashMap<>();
        Map<Integer, Bag> expectedLogged = new HashMap<>();
        for (int id : probed) {
            logged.put(id, logs.get(id).before(Long.MAX_VALUE));
            expectedLogged.put(id, expected.get(id));
        }
        assertThat(frontiers.violations()).as("frontier violations" + context).isEmpty();
        assertThat(Harness.differences(expectedLogged, logged)).as("inspected streams that differ from the reference at the end" + context).isEmpty();
        assertThat(Harness.differences(expected, actual)).as("streams whose captured records differ from the reference" + context).isEmpty();
    }

    /** Targets grow by 1 to 3; commands never advance a handle to its epoch's target. */
    static List<Epoch> resolve(List<RawEpoch> raw, int workers, int inputs) {
        long[][] times = new long[workers][inputs];
        boolean[][] closed = new boolean[workers][inputs];
        List<Epoch> out = new ArrayList<>();
        long target = 0;
        for (RawEpoch r : raw) {
            target += 1 + Math.floorMod(r.gap(), 3);
            out.add(new Epoch(target, Script.resolve(r.commands(), workers, inputs, times, target, closed)));
            for (long[] w : times) java.util.Arrays.fill(w, target);
        }
        return out;
    }
}
