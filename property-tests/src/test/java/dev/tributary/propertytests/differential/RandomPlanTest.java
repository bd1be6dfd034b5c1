package dev.tributary.propertytests.differential;

import dev.tributary.propertytests.differential.Plan.Aggregate;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.statistics.Statistics;

/**
 * Random trees of operators (up to four deep, loops nested up to two deep) over two random
 * inputs, on 1 to 3 workers: the output at every time is the plan evaluated by the reference on
 * the inputs at that time. Plans shrink towards fewer operators and smaller parameters, and a
 * failure prints the plan as an expression next to the script.
 */
class RandomPlanTest {
    /** A plan as the property receives it: it prints as an expression over {@code in0, in1}. */
    record Dataflow(Plan root) {
        static final List<String> INPUTS = List.of("in0", "in1");

        @Override
        public String toString() {
            return Plan.describe(root, INPUTS);
        }
    }

    @Provide
    Arbitrary<Dataflow> plans() {
        return plans(4, 2).filter(p -> !(p instanceof Plan.Src)).map(Dataflow::new);
    }

    @Provide
    Arbitrary<Script> scripts() {
        return Generators.scripts(2, (int) Plan.M, 30);
    }

    /** Plans at most {@code depth} operators deep, with loops nested at most {@code loops} deep. */
    static Arbitrary<Plan> plans(int depth, int loops) {
        Arbitrary<Plan> source = Arbitraries.integers().between(0, 2).map(Plan.Src::new);
        if (depth == 0) return source;
        Arbitrary<Plan> sub = Arbitraries.lazy(() -> plans(depth - 1, loops));
        Arbitrary<Plan> body = Arbitraries.lazy(() -> plans(depth - 1, loops - 1));
        Arbitrary<Integer> keys = Arbitraries.integers().between(1, 3);
        List<Tuple2<Integer, Arbitrary<Plan>>> choices = new ArrayList<>(List.of(
                Tuple.of(5, up(source)),
                Tuple.of(2, up(Combinators.combine(sub, Arbitraries.integers().between(1, 3), Arbitraries.integers().between(0, 4)).as(Plan.MapOp::new))),
                Tuple.of(2, up(Combinators.combine(sub, Arbitraries.integers().between(2, 4), Arbitraries.integers().between(0, 3))
                        .as((in, m, r) -> new Plan.Filter(in, m, r % m)))),
                Tuple.of(1, up(Combinators.combine(sub, Arbitraries.integers().between(0, 3)).as(Plan.FlatMap::new))),
                Tuple.of(1, up(sub.map(Plan.Negate::new))),
                Tuple.of(2, up(Combinators.combine(sub, sub).as(Plan.Concat::new))),
                Tuple.of(1, up(sub.map(Plan.Consolidate::new))),
                Tuple.of(2, up(sub.map(Plan.Distinct::new))),
                Tuple.of(1, up(Combinators.combine(sub, Arbitraries.integers().between(1, 2)).as(Plan.Threshold::new))),
                Tuple.of(1, up(sub.map(Plan.Count::new))),
                Tuple.of(2, up(Combinators.combine(sub, sub, keys).as(Plan.Join::new))),
                Tuple.of(1, up(Combinators.combine(sub, sub, keys).as(Plan.Semijoin::new))),
                Tuple.of(1, up(Combinators.combine(sub, sub, keys).as(Plan.Antijoin::new))),
                Tuple.of(2, up(Combinators.combine(sub, Arbitraries.of(Aggregate.class), keys).as(Plan.Reduce::new)))));
        if (loops > 0) {
            choices.add(Tuple.of(2, up(Combinators.combine(sub, body).as(Plan.Loop::new))));
            choices.add(Tuple.of(2, up(Combinators.combine(sub, body).as(Plan.Within::new))));
        }
        return Arbitraries.frequencyOf(choices);
    }

    private static Arbitrary<Plan> up(Arbitrary<? extends Plan> a) {
        return a.map(p -> p);
    }

    @Property(seed = "401")
    void randomPlansMatchTheReference(@ForAll("plans") Dataflow plan, @ForAll("scripts") Script script) {
        Assume.that(settles(plan.root(), script));
        collectStatistics(plan.root());
        Harness.check(script, plan.toString(), inputs -> Harness.output(Plan.render(plan.root(), inputs)),
                in -> Plan.evaluate(plan.root(), in));
    }

    /** Whether every loop of the plan settles at every time (the reference runs them; a loop that never settles would never finish). */
    static boolean settles(Plan plan, Script script) {
        try {
            for (long t = 0; t <= script.horizon(); t++) Plan.evaluate(plan, script.accumulated(t));
            return true;
        } catch (Plan.Unsettled | ArithmeticException e) {
            return false;
        }
    }

    static void collectStatistics(Plan plan) {
        int size = Plan.size(plan);
        Statistics.label("operators").collect(size == 0 ? "0" : size < 4 ? "1-3" : size < 8 ? "4-7" : "8+");
        Statistics.label("has a loop").collect(Plan.contains(plan, Plan.Loop.class) || Plan.contains(plan, Plan.Within.class));
        Statistics.label("has a join").collect(Plan.contains(plan, Plan.Join.class) || Plan.contains(plan, Plan.Semijoin.class)
                || Plan.contains(plan, Plan.Antijoin.class));
        Statistics.label("has a reduction").collect(Plan.contains(plan, Plan.Reduce.class) || Plan.contains(plan, Plan.Count.class)
                || Plan.contains(plan, Plan.Distinct.class) || Plan.contains(plan, Plan.Threshold.class));
        Statistics.label("operators").coverage(c -> c.check("4-7").percentage(p -> p >= 15));
        Statistics.label("has a loop").coverage(c -> c.check(true).percentage(p -> p >= 15));
        Statistics.label("has a join").coverage(c -> c.check(true).percentage(p -> p >= 15));
        Statistics.label("has a reduction").coverage(c -> c.check(true).percentage(p -> p >= 25));
    }
}
