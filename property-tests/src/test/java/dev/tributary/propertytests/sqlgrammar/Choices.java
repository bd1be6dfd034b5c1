package dev.tributary.propertytests.sqlgrammar;

import java.util.List;

/**
 * A sequence of choices in {@code [0, 1000)} that a generator reads to decide what to build: the
 * randomness behind a generated query or statement, kept as plain data so that jqwik can shrink
 * it.
 *
 * <p>Every reading is monotone, with 0 as the simplest answer ({@link #below} 0, {@link #chance}
 * false, the first of {@link #pick}'s options), and a sequence that runs out reads as zeros. So
 * when jqwik shrinks the sequence, by dropping choices and moving them towards 0, the query it
 * generates moves towards the simplest query the grammar has (one column of one table), and
 * every sequence, shrunk or not, generates a well-typed query.
 */
final class Choices {
    static final int RANGE = 1000;

    private final List<Integer> xs;
    private int next;

    Choices(List<Integer> xs) {
        this.xs = xs;
    }

    private int next() {
        return next < xs.size() ? Math.floorMod(xs.get(next++), RANGE) : 0;
    }

    /** A number in {@code [0, n)}, uniformly when the choices are. */
    int below(int n) {
        if (n <= 1) {
            next();
            return 0;
        }
        return next() * n / RANGE;
    }

    /** True with {@code percent}% probability; false is the simpler answer. */
    boolean chance(int percent) {
        return next() * 100 / RANGE >= 100 - percent;
    }

    <T> T pick(List<T> options) {
        return options.get(below(options.size()));
    }
}
