package dev.tributary.propertytests.timely;

import dev.tributary.propertytests.timely.Script.RawCmd;
import dev.tributary.propertytests.timely.Shape.Kind;
import dev.tributary.propertytests.timely.Shape.RawNode;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Arbitraries for random shapes and scripts, built from small integers so that jqwik shrinks a
 * failure to few nodes, few commands and zero parameters (see {@link Shape#resolve} and
 * {@link Script#resolve} for what the numbers mean).
 */
final class Generators {
    private Generators() {}

    /** 1 to 8 top-level nodes; loops nest two deep, so times have up to 3 coordinates. */
    static Arbitrary<List<RawNode>> shapes() {
        return nodes(2, 1, 8);
    }

    private static Arbitrary<List<RawNode>> nodes(int loopDepth, int minSize, int maxSize) {
        boolean top = loopDepth == 2;
        List<Tuple.Tuple2<Integer, Kind>> weights = new ArrayList<>(List.of(Tuple.of(4, Kind.MAP), Tuple.of(2, Kind.FILTER), Tuple.of(3, Kind.EXCHANGE),
                Tuple.of(2, Kind.CONCAT), Tuple.of(2, Kind.BUFFER)));
        if (top) weights.add(Tuple.of(2, Kind.COUNT));
        if (loopDepth > 0) weights.add(Tuple.of(3, Kind.LOOP));
        Arbitrary<Kind> kinds = Arbitraries.frequency(weights);
        Arbitrary<Integer> parameter = Arbitraries.integers().between(0, 9);
        Arbitrary<List<RawNode>> bodies = loopDepth > 0 ? Arbitraries.lazy(() -> nodes(loopDepth - 1, 0, 3)) : Arbitraries.just(List.of());
        return Combinators.combine(kinds, parameter, parameter, parameter, bodies)
                .as((kind, p, q, r, body) -> new RawNode(kind, p, q, r, kind == Kind.LOOP ? body : List.of()))
                .list().ofMinSize(minSize).ofMaxSize(maxSize).withSizeDistribution(RandomDistribution.uniform());
    }

    /** Commands for a whole run. */
    static Arbitrary<List<RawCmd>> scripts() {
        return commands().list().ofMinSize(1).ofMaxSize(60).withSizeDistribution(RandomDistribution.uniform());
    }

    /** A list of epochs: a gap to the next time every worker advances to, and commands before it. */
    static Arbitrary<List<ProbeTest.RawEpoch>> epochs() {
        return Combinators.combine(Arbitraries.integers().between(0, 5), commands().list().ofMaxSize(15).withSizeDistribution(RandomDistribution.uniform()))
                .as(ProbeTest.RawEpoch::new)
                .list().ofMinSize(1).ofMaxSize(6).withSizeDistribution(RandomDistribution.uniform());
    }

    private static Arbitrary<RawCmd> commands() {
        Arbitrary<Script.Kind> kinds = Arbitraries.frequency(Tuple.of(16, Script.Kind.SEND), Tuple.of(8, Script.Kind.ADVANCE),
                Tuple.of(4, Script.Kind.SEND_CONTAINER), Tuple.of(4, Script.Kind.STEP), Tuple.of(1, Script.Kind.CLOSE));
        Arbitrary<Integer> small = Arbitraries.integers().between(0, 5);
        return Combinators.combine(kinds, small, small, Arbitraries.integers().between(-10, 40), small).as(RawCmd::new);
    }
}
