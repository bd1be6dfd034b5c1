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
import dev.tributary.timely.Worker;
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
import net.jqwik.api.statistics.Statistics;

/**
 * Random dataflows over random inputs: every stream, in every scope, carries exactly what the
 * plain-Java {@link Model} says, summed over workers, and the runtime keeps its promises about
 * frontiers while getting there.
 *
 * <p>Shapes mix maps, filters, exchanges, concats of earlier streams, buffers that hold
 * capabilities until a frontier passes, per-time counts (which a frontier that passes a time too
 * early splits), and loops (nested up to two deep) that stop after a bounded number of rounds. Each worker runs its share of a random script: records at its input
 * handles' current times, advances by one or more steps, closes, and extra steps in between.
 */
class RandomDataflowTest {
    /** Above this many records (all streams together) a try is skipped: loops of concats grow fast. */
    static final long MAX_RECORDS = 20_000;

    @Provide
    Arbitrary<List<RawNode>> shapes() {
        return Generators.shapes();
    }

    @Provide
    Arbitrary<List<RawCmd>> scripts() {
        return Generators.scripts();
    }

    /**
     * (a) no record arrives at a time its input frontier had passed (the runtime throws "progress
     * violated" itself; the captures and the operators written here check it again), (b) no
     * frontier moves backwards, on any worker, at any operator input, (c) every stream carries
     * what the reference computes, (d) the run completes: {@code Timely.run} returns.
     *
     * <p>With {@code late}, each worker also builds a second copy of the dataflow when it reaches
     * command {@code lateAt} of the script, mirrors its handles' times and closes there, and from
     * then on feeds both copies: a worker that builds it later than a peer gets that peer's
     * messages and progress for a dataflow it does not have yet.
     */
    @Property(seed = "4182620977")
    void everyStreamMatchesTheReferenceAndFrontiersOnlyAdvance(
            @ForAll @IntRange(min = 1, max = 3) int workers,
            @ForAll @IntRange(min = 1, max = 2) int inputs,
            @ForAll("shapes") List<RawNode> rawShape,
            @ForAll("scripts") List<RawCmd> rawScript,
            @ForAll boolean late,
            @ForAll @IntRange(min = 0, max = 60) int lateAt) {
        Graph shape = Shape.resolve(rawShape, inputs);
        List<Cmd> script = Script.resolve(rawScript, workers, inputs);
        int buildLateAt = late ? Math.min(lateAt, script.size()) : -1;
        Model.Inputs given = new Model.Inputs(workers, inputs);
        given.apply(script);
        Map<Integer, Bag> expected = expectedStreams(shape, given.bags());
        Map<Integer, Bag> expectedLate = Map.of();
        if (late) {
            Model.Inputs givenLate = new Model.Inputs(workers, inputs);
            givenLate.apply(script, buildLateAt);
            expectedLate = expectedStreams(shape, givenLate.bags());
        }
        long records = expected.values().stream().mapToLong(Bag::size).sum() + expectedLate.values().stream().mapToLong(Bag::size).sum();
        Assume.that(records <= MAX_RECORDS);
        collectStatistics(workers, shape, records);

        List<Captured<LongContainer>> captures = Harness.captures(expected.size());
        List<Captured<LongContainer>> lateCaptures = Harness.captures(expected.size());
        FrontierLog frontiers = new FrontierLog();
        Harness.run(workers, frontiers, worker -> {
            List<InputHandle<LongContainer>> handles = new ArrayList<>();
            List<InputHandle<LongContainer>> lateHandles = new ArrayList<>();
            worker.dataflow("random", scope -> Render.build(scope, shape, captures, frontiers, handles));
            for (int i = 0; i <= script.size(); i++) {
                if (i == buildLateAt) {
                    worker.dataflow("late", scope -> Render.build(scope, shape, lateCaptures, frontiers, lateHandles));
                    for (int k = 0; k < inputs; k++) {
                        if (handles.get(k).isClosed()) lateHandles.get(k).close();
                        else lateHandles.get(k).advanceTo(handles.get(k).time());
                    }
                }
                if (i == script.size()) break;
                Cmd c = script.get(i);
                if (c.worker() != worker.index()) continue;
                perform(worker, handles, c);
                if (!lateHandles.isEmpty() && !(c instanceof Script.Step)) perform(worker, lateHandles, c);
            }
        });

        String context = "\nworkers: " + workers + "\nshape:\n" + Shape.describe(shape) + "script: " + script
                + (late ? "\nthe late copy is built at command " + buildLateAt : "") + "\n";
        check(shape, workers, captures, expected, frontiers, context);
        if (late) check(shape, workers, lateCaptures, expectedLate, frontiers, "\n(the late copy)" + context);
        assertThat(frontiers.changes()).as("the events hook saw no frontier change at all" + context).isPositive();
    }

    private static void check(Graph shape, int workers, List<Captured<LongContainer>> captures, Map<Integer, Bag> expected, FrontierLog frontiers,
            String context) {
        Harness.checkCaptures(captures, Shape.exchangeIds(shape), workers, frontiers);
        Map<Integer, Bag> actual = new HashMap<>();
        for (int id = 0; id < captures.size(); id++) actual.put(id, Harness.collect(captures.get(id)));
        assertThat(frontiers.violations()).as("frontier violations" + context).isEmpty();
        assertThat(Harness.differences(expected, actual)).as("streams whose captured records differ from the reference" + context).isEmpty();
    }

    /** The reference for every stream id of {@code shape}, with an empty bag for streams nothing reaches. */
    static Map<Integer, Bag> expectedStreams(Graph shape, List<Bag> inputs) {
        Map<Integer, Bag> expected = Model.evaluate(shape, inputs);
        for (int id = 0; id < Shape.arities(shape).size(); id++) expected.putIfAbsent(id, new Bag());
        return expected;
    }

    /** Carries out one script command on {@code worker}'s thread. */
    static void perform(Worker worker, List<InputHandle<LongContainer>> handles, Cmd c) {
        switch (c) {
            case Script.Send s -> handles.get(s.input()).staged().add(s.value());
            case Script.SendContainer s -> {
                LongContainer data = new LongContainer();
                for (long v : s.values()) data.add(v);
                handles.get(s.input()).send(data);
            }
            case Script.Advance a -> {
                InputHandle<LongContainer> h = handles.get(a.input());
                h.advanceTo(h.time()[0] + a.by());
            }
            case Script.Step s -> {
                for (int i = 0; i < s.times(); i++) worker.step();
            }
            case Script.Close x -> handles.get(x.input()).close();
        }
    }

    static void collectStatistics(int workers, Graph shape, long records) {
        Statistics.label("workers").collect(workers);
        Statistics.label("loop nesting").collect(Shape.depth(shape) - 1);
        Statistics.label("has buffer").collect(Shape.contains(shape, Shape.BufferNode.class));
        Statistics.label("has exchange").collect(Shape.contains(shape, Shape.ExchangeNode.class));
        Statistics.label("has count").collect(Shape.contains(shape, Shape.CountNode.class));
        Statistics.label("records").collect(records == 0 ? "0" : records < 100 ? "1-99" : records < 1000 ? "100-999" : "1000+");
        // The generators must keep exercising what the properties are about.
        Statistics.label("workers").coverage(c -> {
            for (int w = 1; w <= 3; w++) c.check(w).percentage(p -> p >= 15);
        });
        Statistics.label("loop nesting").coverage(c -> {
            c.check(0).percentage(p -> p <= 60);
            c.check(2).percentage(p -> p >= 5);
        });
        Statistics.label("has buffer").coverage(c -> c.check(true).percentage(p -> p >= 20));
        Statistics.label("has exchange").coverage(c -> c.check(true).percentage(p -> p >= 30));
        Statistics.label("has count").coverage(c -> c.check(true).percentage(p -> p >= 15));
        Statistics.label("records").coverage(c -> c.check("0").percentage(p -> p <= 20));
    }
}
