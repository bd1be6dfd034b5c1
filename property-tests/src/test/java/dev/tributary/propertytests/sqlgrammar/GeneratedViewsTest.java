package dev.tributary.propertytests.sqlgrammar;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * The SQL incrementality oracle at scale: random schemas, random view queries from a
 * {@link QueryGen grammar} and random histories ({@link Case}); every view, created as a
 * materialized view before any data arrives, equals its query run from scratch after every
 * transaction ({@link ViewOracle}), on one worker and on two.
 *
 * <p>{@code jqwik.tries.default} cases per property (100; 1000 with {@code -Plong}). A failure
 * shrinks to a small schema, query and history and prints a script to replay it in
 * {@code bin/tributary sql --clock manual}.
 */
class GeneratedViewsTest {

    @Provide
    Arbitrary<Case> cases() {
        return Case.cases();
    }

    private static void run(Case c, int workers) {
        for (QueryGen.Generated v : c.views()) for (String f : v.features()) Statistics.label("constructs").collect(f);
        for (String outcome : ViewOracle.check(c, workers)) Statistics.label("views at the end").collect(outcome);
    }

    @Property(seed = "601", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void viewsEqualRecomputationOnOneWorker(@ForAll("cases") Case c) {
        run(c, 1);
    }

    @Property(seed = "602", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    @AddLifecycleHook(Engines.RequiresWorkers.class)
    void viewsEqualRecomputationOnTwoWorkers(@ForAll("cases") Case c) {
        run(c, 2);
    }
}
