package dev.tributary.propertytests.differential;

import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.Variable;
import dev.tributary.timely.Scope;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Loops whose rounds differ, so that the collections inside change at product times
 * {@code (t, i)} that are incomparable with one another ({@code (1, 3)} and {@code (2, 0)}).
 * {@code shift} moves each datum below {@link #CAP} up by one and drops the others.
 *
 * <ul>
 *   <li>The linear loop: {@code x(0) = seed}, {@code x(i + 1) = seed + shift(x(i))}. Round
 *       {@code i} holds the seed shifted 0 to {@code i} times, and the loop settles after
 *       {@code CAP + 2} rounds whatever the seed's counts. Only stateless operators and the
 *       variable's own consolidation run in it.
 *   <li>The distinct loop: {@code x(i + 1) = distinct(seed + shift(step(x(i))))}. With
 *       {@code step} the identity it settles within {@code CAP + 2} rounds too (from round 1 on it
 *       is a set, and datum {@code d}'s membership is decided by round {@code d + 1}); with
 *       another step it may never settle, which {@link #fixpoint} reports.
 * </ul>
 */
final class ShiftLoop {
    private ShiftLoop() {}

    static final long CAP = 7;

    /** More rounds than this and the reference gives up: the loop does not settle. */
    static final int MAX_ROUNDS = 40;

    /** The linear loop's variable over {@code seed}, entered into a new iterative scope. */
    static Collection<Long> linear(Collection<Long> seed) {
        Scope inner = seed.scope().iterative("linear-loop");
        Collection<Long> entered = seed.enter(inner);
        Variable<Long> x = Variable.from(entered);
        x.set(entered.concat(shift(x.collection())));
        return x.collection();
    }

    /** The distinct loop's variable over {@code seed} with {@code step} the identity, entered into a new iterative scope. */
    static Collection<Long> distinct(Collection<Long> seed) {
        Scope inner = seed.scope().iterative("distinct-loop");
        Collection<Long> entered = seed.enter(inner);
        Variable<Long> x = Variable.from(entered);
        x.set(entered.concat(shift(x.collection())).distinct());
        return x.collection();
    }

    static Collection<Long> shift(Collection<Long> x) {
        return x.filter(d -> d < CAP).map(d -> d + 1, DataType.longs());
    }

    static Map<Long, Long> shift(Map<Long, Long> x) {
        return Multisets.map(Multisets.filter(x, d -> d < CAP), d -> d + 1);
    }

    /** The linear loop's limit. */
    static Map<Long, Long> linearLimit(Map<Long, Long> seed) {
        Map<Long, Long> x = seed;
        for (int i = 0; i <= CAP + 1; i++) x = Multisets.plus(seed, shift(x));
        return x;
    }

    /** The distinct loop's limit with {@code step}, or {@code null} if its rounds do not settle within {@link #MAX_ROUNDS}. */
    static Map<Long, Long> fixpoint(Map<Long, Long> seed, UnaryOperator<Map<Long, Long>> step) {
        Map<Long, Long> x = seed;
        for (int i = 0; i < MAX_ROUNDS; i++) {
            Map<Long, Long> y = Multisets.distinct(Multisets.plus(seed, shift(step.apply(x))));
            if (y.equals(x)) return x;
            x = y;
        }
        return null;
    }

    /** The distinct loop's limit with {@code step} the identity. */
    static Map<Long, Long> distinctLimit(Map<Long, Long> seed) {
        Map<Long, Long> x = fixpoint(seed, UnaryOperator.identity());
        if (x == null) throw new IllegalStateException("the distinct loop always settles, but did not for " + Multisets.show(seed));
        return x;
    }
}
