package dev.tributary.propertytests.differential;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.KV;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A random dataflow over {@code Collection<Long>} as a value: a tree of operators whose leaves
 * read the scope's sources. The same value is rendered as a dataflow ({@link #render}) and
 * evaluated on multisets by the reference ({@link #evaluate}), and prints as an expression.
 *
 * <p>Every operator's output lies in {@code [0, M)}, so data collide and the loops' shift (which
 * drops data at {@link ShiftLoop#CAP} and above) ends. The sources of the top scope are the
 * inputs {@code in0, in1}; a loop body's sources are its variable, then the enclosing scope's
 * sources, entered ({@code Src(i)} reads source {@code i} modulo their number).
 */
sealed interface Plan {
    long M = 8;

    DataType<Long> LONGS = DataType.longs();

    /** Source {@code index} (modulo the number of sources) of the scope. */
    record Src(int index) implements Plan {}

    /** {@code (mul * d + add) mod M}. */
    record MapOp(Plan in, int mul, int add) implements Plan {}

    /** The data with {@code d mod modulus != remainder}. */
    record Filter(Plan in, int modulus, int remainder) implements Plan {}

    /** {@code d -> [d, (d + k) mod M]}. */
    record FlatMap(Plan in, int k) implements Plan {}

    record Negate(Plan in) implements Plan {}

    record Concat(Plan left, Plan right) implements Plan {}

    record Consolidate(Plan in) implements Plan {}

    record Distinct(Plan in) implements Plan {}

    /** Counts {@code n} replaced by {@code min(n, cap)}. */
    record Threshold(Plan in, int cap) implements Plan {}

    /** {@code count}, each {@code (d, n)} as {@code (d + 3n) mod M}. */
    record Count(Plan in) implements Plan {}

    /** Both sides keyed by {@code d mod keys}, each pair {@code (x, y)} as {@code (3x + y) mod M}. */
    record Join(Plan left, Plan right, int keys) implements Plan {}

    /** {@code left.semijoin(right, d -> d mod keys)}: right's data are the keys, with their counts. */
    record Semijoin(Plan left, Plan right, int keys) implements Plan {}

    /** {@code left.antijoin(distinct(right), d -> d mod keys)}. */
    record Antijoin(Plan left, Plan right, int keys) implements Plan {}

    enum Aggregate { SUM, MIN, MAX, CUSTOM }

    /** Keyed by {@code d mod keys} with value {@code d}, then the aggregate; each {@code (k, v)} as {@code (k + 3v) mod M}. */
    record Reduce(Plan in, Aggregate aggregate, int keys) implements Plan {}

    /**
     * A distinct {@link ShiftLoop} whose round step is a plan: {@code x(0) = seed},
     * {@code x(i + 1) = distinct(seed + shift(step(x(i))))}, its limit left. The step's sources are
     * {@code x}, then the enclosing sources.
     */
    record Loop(Plan seed, Plan step) implements Plan {}

    /** {@code body} of the variable of a linear {@link ShiftLoop} over {@code seed}, left. The body's sources are the variable, then the enclosing sources. */
    record Within(Plan seed, Plan body) implements Plan {}

    /** The reference could not evaluate a plan: a loop whose rounds do not settle. */
    final class Unsettled extends RuntimeException {
        Unsettled(String message) {
            super(message, null, false, false);
        }
    }

    static Collection<Long> render(Plan plan, List<Collection<Long>> sources) {
        return switch (plan) {
            case Src s -> sources.get(Math.floorMod(s.index(), sources.size()));
            case MapOp m -> render(m.in(), sources).map(d -> Math.floorMod(m.mul() * d + m.add(), M), LONGS);
            case Filter f -> render(f.in(), sources).filter(d -> d % f.modulus() != f.remainder());
            case FlatMap f -> render(f.in(), sources).flatMap(d -> List.of(d, (d + f.k()) % M), LONGS);
            case Negate n -> render(n.in(), sources).negate();
            case Concat c -> render(c.left(), sources).concat(render(c.right(), sources));
            case Consolidate c -> render(c.in(), sources).consolidate();
            case Distinct d -> render(d.in(), sources).distinct();
            case Threshold t -> render(t.in(), sources).threshold(n -> Math.min(n, t.cap()));
            case Count c -> render(c.in(), sources).count().map(kv -> Math.floorMod(kv.key() + 3 * kv.val(), M), LONGS);
            case Join j -> {
                Arrangement<Long, Long> l = render(j.left(), sources).arrangeByKey(d -> d % j.keys(), LONGS, d -> d, LONGS);
                Arrangement<Long, Long> r = render(j.right(), sources).arrangeByKey(d -> d % j.keys(), LONGS, d -> d, LONGS);
                yield l.join(r, (k, x, y) -> Math.floorMod(3 * x + y, M), LONGS);
            }
            case Semijoin s -> render(s.left(), sources).semijoin(render(s.right(), sources), d -> d % s.keys());
            case Antijoin a -> render(a.left(), sources).antijoin(render(a.right(), sources).distinct(), d -> d % a.keys());
            case Reduce r -> {
                Arrangement<Long, Long> a = render(r.in(), sources).arrangeByKey(d -> d % r.keys(), LONGS, d -> d, LONGS);
                Collection<KV<Long, Long>> out = switch (r.aggregate()) {
                    case SUM -> a.sum(v -> v);
                    case MIN -> a.min();
                    case MAX -> a.max();
                    case CUSTOM -> a.reduce("custom", Operators.CUSTOM, LONGS).asCollection();
                };
                yield out.map(kv -> Math.floorMod(kv.key() + 3 * kv.val(), M), LONGS);
            }
            case Loop l -> {
                Collection<Long> seed = render(l.seed(), sources);
                yield seed.iterate(x -> {
                    Collection<Long> step = render(l.step(), inner(x, sources));
                    return seed.enter(x.scope()).concat(ShiftLoop.shift(step)).distinct();
                });
            }
            case Within w -> {
                Collection<Long> x = ShiftLoop.linear(render(w.seed(), sources));
                yield render(w.body(), inner(x, sources)).leave();
            }
        };
    }

    /** A loop body's sources: the variable, then the enclosing sources entered into its scope. */
    private static List<Collection<Long>> inner(Collection<Long> x, List<Collection<Long>> outer) {
        List<Collection<Long>> out = new ArrayList<>();
        out.add(x);
        for (Collection<Long> s : outer) out.add(s.enter(x.scope()));
        return out;
    }

    /**
     * The reference: the plan applied to the sources' contents.
     *
     * @throws Unsettled if a loop's rounds do not settle
     */
    static Map<Long, Long> evaluate(Plan plan, List<Map<Long, Long>> sources) {
        return switch (plan) {
            case Src s -> sources.get(Math.floorMod(s.index(), sources.size()));
            case MapOp m -> Multisets.map(evaluate(m.in(), sources), d -> Math.floorMod(m.mul() * d + m.add(), M));
            case Filter f -> Multisets.filter(evaluate(f.in(), sources), d -> d % f.modulus() != f.remainder());
            case FlatMap f -> Multisets.flatMap(evaluate(f.in(), sources), d -> List.of(d, (d + f.k()) % M));
            case Negate n -> Multisets.negate(evaluate(n.in(), sources));
            case Concat c -> Multisets.plus(evaluate(c.left(), sources), evaluate(c.right(), sources));
            case Consolidate c -> evaluate(c.in(), sources);
            case Distinct d -> Multisets.distinct(evaluate(d.in(), sources));
            case Threshold t -> Multisets.threshold(evaluate(t.in(), sources), n -> Math.min(n, t.cap()));
            case Count c -> Multisets.map(Multisets.count(evaluate(c.in(), sources)), kv -> Math.floorMod(kv.key() + 3 * kv.val(), M));
            case Join j -> Multisets.join(evaluate(j.left(), sources), d -> d % j.keys(), evaluate(j.right(), sources), d -> d % j.keys(),
                    (x, y) -> Math.floorMod(3 * x + y, M));
            case Semijoin s -> {
                Map<Long, Long> keys = evaluate(s.right(), sources);
                Map<Long, Long> out = new HashMap<>();
                evaluate(s.left(), sources).forEach((d, n) -> Multisets.add(out, d, Math.multiplyExact(n, keys.getOrDefault(d % s.keys(), 0L))));
                yield out;
            }
            case Antijoin a -> {
                Map<Long, Long> keys = Multisets.distinct(evaluate(a.right(), sources));
                yield Multisets.filter(evaluate(a.left(), sources), d -> !keys.containsKey(d % a.keys()));
            }
            case Reduce r -> {
                Map<Long, Long> out = new HashMap<>();
                Multisets.group(evaluate(r.in(), sources), d -> d % r.keys()).forEach((k, vals) -> {
                    switch (r.aggregate()) {
                        case SUM -> {
                            long s = 0;
                            for (var e : vals.entrySet()) s = Math.addExact(s, Math.multiplyExact(e.getKey(), e.getValue()));
                            Multisets.add(out, Math.floorMod(k + 3 * s, M), 1);
                        }
                        case MIN, MAX -> {
                            Long best = null;
                            for (var e : vals.entrySet()) {
                                if (e.getValue() > 0 && (best == null || r.aggregate() == Aggregate.MAX)) best = e.getKey();
                            }
                            if (best != null) Multisets.add(out, Math.floorMod(k + 3 * best, M), 1);
                        }
                        case CUSTOM -> Operators.custom(vals, (v, n) -> Multisets.add(out, Math.floorMod(k + 3 * v, M), n));
                    }
                });
                yield out;
            }
            case Loop l -> {
                Map<Long, Long> seed = evaluate(l.seed(), sources);
                Map<Long, Long> limit = ShiftLoop.fixpoint(seed, x -> evaluate(l.step(), inner(x, sources)));
                if (limit == null) throw new Unsettled("the rounds of " + describe(l, List.of("?")) + " do not settle for seed " + Multisets.show(seed));
                yield limit;
            }
            case Within w -> evaluate(w.body(), inner(ShiftLoop.linearLimit(evaluate(w.seed(), sources)), sources));
        };
    }

    private static <T> List<T> inner(T x, List<T> outer) {
        List<T> out = new ArrayList<>();
        out.add(x);
        out.addAll(outer);
        return out;
    }

    /** The plan as an expression over the named sources. */
    static String describe(Plan plan, List<String> sources) {
        return switch (plan) {
            case Src s -> sources.get(Math.floorMod(s.index(), sources.size()));
            case MapOp m -> "map(" + describe(m.in(), sources) + ", (" + m.mul() + "d + " + m.add() + ") mod " + M + ")";
            case Filter f -> "filter(" + describe(f.in(), sources) + ", d mod " + f.modulus() + " != " + f.remainder() + ")";
            case FlatMap f -> "flatMap(" + describe(f.in(), sources) + ", d -> [d, (d + " + f.k() + ") mod " + M + "])";
            case Negate n -> "negate(" + describe(n.in(), sources) + ")";
            case Concat c -> "concat(" + describe(c.left(), sources) + ", " + describe(c.right(), sources) + ")";
            case Consolidate c -> "consolidate(" + describe(c.in(), sources) + ")";
            case Distinct d -> "distinct(" + describe(d.in(), sources) + ")";
            case Threshold t -> "threshold(" + describe(t.in(), sources) + ", n -> min(n, " + t.cap() + "))";
            case Count c -> "count(" + describe(c.in(), sources) + ") as (d + 3n) mod " + M;
            case Join j -> "join(" + describe(j.left(), sources) + ", " + describe(j.right(), sources) + ", key d mod " + j.keys() + ") as (3x + y) mod " + M;
            case Semijoin s -> "semijoin(" + describe(s.left(), sources) + ", " + describe(s.right(), sources) + ", key d mod " + s.keys() + ")";
            case Antijoin a -> "antijoin(" + describe(a.left(), sources) + ", distinct(" + describe(a.right(), sources) + "), key d mod " + a.keys() + ")";
            case Reduce r -> r.aggregate().name().toLowerCase() + "(" + describe(r.in(), sources) + ", key d mod " + r.keys() + ") as (k + 3v) mod " + M;
            case Loop l -> {
                String x = "x" + sources.size();
                yield "loop(seed " + describe(l.seed(), sources) + "; " + x + " -> distinct(seed + shift(" + describe(l.step(), inner(x, sources)) + ")))";
            }
            case Within w -> {
                String x = "x" + sources.size();
                yield "within(" + x + " = linear loop of " + describe(w.seed(), sources) + "; " + describe(w.body(), inner(x, sources)) + ")";
            }
        };
    }

    /** Operators in the plan, loops' bodies included. */
    static int size(Plan plan) {
        return switch (plan) {
            case Src s -> 0;
            case MapOp m -> 1 + size(m.in());
            case Filter f -> 1 + size(f.in());
            case FlatMap f -> 1 + size(f.in());
            case Negate n -> 1 + size(n.in());
            case Concat c -> 1 + size(c.left()) + size(c.right());
            case Consolidate c -> 1 + size(c.in());
            case Distinct d -> 1 + size(d.in());
            case Threshold t -> 1 + size(t.in());
            case Count c -> 1 + size(c.in());
            case Join j -> 1 + size(j.left()) + size(j.right());
            case Semijoin s -> 1 + size(s.left()) + size(s.right());
            case Antijoin a -> 1 + size(a.left()) + size(a.right());
            case Reduce r -> 1 + size(r.in());
            case Loop l -> 1 + size(l.seed()) + size(l.step());
            case Within w -> 1 + size(w.seed()) + size(w.body());
        };
    }

    /** Whether the plan holds an operator of {@code kind}, at any depth. */
    static boolean contains(Plan plan, Class<? extends Plan> kind) {
        if (kind.isInstance(plan)) return true;
        return switch (plan) {
            case Src s -> false;
            case MapOp m -> contains(m.in(), kind);
            case Filter f -> contains(f.in(), kind);
            case FlatMap f -> contains(f.in(), kind);
            case Negate n -> contains(n.in(), kind);
            case Concat c -> contains(c.left(), kind) || contains(c.right(), kind);
            case Consolidate c -> contains(c.in(), kind);
            case Distinct d -> contains(d.in(), kind);
            case Threshold t -> contains(t.in(), kind);
            case Count c -> contains(c.in(), kind);
            case Join j -> contains(j.left(), kind) || contains(j.right(), kind);
            case Semijoin s -> contains(s.left(), kind) || contains(s.right(), kind);
            case Antijoin a -> contains(a.left(), kind) || contains(a.right(), kind);
            case Reduce r -> contains(r.in(), kind);
            case Loop l -> contains(l.seed(), kind) || contains(l.step(), kind);
            case Within w -> contains(w.seed(), kind) || contains(w.body(), kind);
        };
    }
}
