package dev.tributary.propertytests.differential;

import dev.tributary.propertytests.differential.Script.Kind;
import dev.tributary.propertytests.differential.Script.Raw;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Arbitraries for scripts, built from small numbers that shrink towards the simplest choice: one
 * worker, diff {@code +1}, datum 0, an update at the worker's own time, a jump of one.
 */
final class Generators {
    private Generators() {}

    /** Scripts for 1 to 3 workers, with {@code inputs} inputs, data in {@code [0, domain)} and at most {@code maxCommands} commands. */
    static Arbitrary<Script> scripts(int inputs, int domain, int maxCommands) {
        return scripts(inputs, domain, 0, maxCommands);
    }

    static Arbitrary<Script> scripts(int inputs, int domain, int minCommands, int maxCommands) {
        Arbitrary<Integer> workers = Arbitraries.integers().between(1, 3);
        Arbitrary<List<Raw>> raw = commands(domain).list().ofMinSize(minCommands).ofMaxSize(maxCommands).withSizeDistribution(RandomDistribution.uniform());
        return Combinators.combine(workers, raw).as((w, r) -> Script.resolve(w, inputs, r));
    }

    /** The default: small enough that keys collide and a run takes milliseconds. */
    static Arbitrary<Script> scripts(int inputs) {
        return scripts(inputs, 6, 30);
    }

    static Arbitrary<Raw> commands(int domain) {
        Arbitrary<Kind> kinds = Arbitraries.frequency(Tuple.of(12, Kind.UPDATE), Tuple.of(4, Kind.RETRACT), Tuple.of(5, Kind.ADVANCE), Tuple.of(2, Kind.FLUSH), Tuple.of(2, Kind.STEP));
        Arbitrary<Integer> worker = Arbitraries.integers().between(0, 2);
        Arbitrary<Integer> input = Arbitraries.integers().between(0, 1);
        Arbitrary<Integer> data = Arbitraries.integers().between(0, domain - 1);
        // How far after the worker's time an update lands, or an advance jumps (plus one).
        Arbitrary<Integer> offset = Arbitraries.frequency(Tuple.of(8, 0), Tuple.of(3, 1), Tuple.of(2, 2), Tuple.of(1, 4));
        // Retractions and counts that go negative along the way, and the odd zero.
        Arbitrary<Long> diff = Arbitraries.frequency(Tuple.of(8, 1L), Tuple.of(5, -1L), Tuple.of(2, 2L), Tuple.of(2, -2L), Tuple.of(1, 3L), Tuple.of(1, 0L));
        return Combinators.combine(kinds, worker, input, data, offset, diff).as(Raw::new);
    }

    /**
     * Labels what a script exercises, and fails the property if the generator stops producing
     * several workers, updates out of time order, or counts that go negative.
     */
    static void collectStatistics(Script script) {
        boolean outOfOrder = false;
        long[] latest = new long[script.workers()];
        for (Script.Cmd c : script.commands()) {
            if (c instanceof Script.Update u) {
                if (u.time() < latest[u.worker()]) outOfOrder = true;
                latest[u.worker()] = Math.max(latest[u.worker()], u.time());
            }
        }
        boolean negative = false;
        for (long t = 0; t <= script.horizon() && !negative; t++) {
            for (var m : script.accumulated(t)) {
                if (m.values().stream().anyMatch(n -> n < 0)) negative = true;
            }
        }
        Statistics.label("workers").collect(script.workers());
        Statistics.label("updates out of time order").collect(outOfOrder);
        Statistics.label("a count goes negative").collect(negative);
        Statistics.label("workers").coverage(c -> {
            for (int w = 1; w <= 3; w++) c.check(w).percentage(p -> p >= 15);
        });
        Statistics.label("updates out of time order").coverage(c -> c.check(true).percentage(p -> p >= 20));
        Statistics.label("a count goes negative").coverage(c -> c.check(true).percentage(p -> p >= 15));
    }
}
