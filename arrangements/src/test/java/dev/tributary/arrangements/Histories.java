package dev.tributary.arrangements;

import dev.tributary.arrangements.Model.Codec;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random histories for the arrangement properties, and how they are fed to a {@link Batcher}.
 *
 * <p>A history is a list of updates, each offered to the batcher at a random step, and a sequence
 * of frontiers sealed one per step. An update is offered no later than the last step whose lower
 * bound its time is still {@code >=} (as an input frontier guarantees in a dataflow), so every
 * batch must hold exactly the updates whose times lie in its description.
 */
final class Histories {
    private Histories() {}

    /** Arity-1 times lie in {@code [0, MAX_TIME]}; arity-2 coordinates in {@code [0, MAX_COORD]}. */
    static final long MAX_TIME = 10;

    static final long MAX_COORD = 4;

    /** An update and the step at which it is offered (later clamped to the last step that allows its time). */
    record Arrival(Update update, int step) {
        @Override
        public String toString() {
            return update + "@" + step;
        }
    }

    /** The updates, when each is offered, the frontiers sealed in order, and how many updates go in one container. */
    record History(Codec keys, Codec vals, int arity, List<Arrival> arrivals, List<Antichain> uppers, int chunk) {
        List<Update> updates() {
            List<Update> out = new ArrayList<>();
            for (Arrival a : arrivals) out.add(a.update());
            return out;
        }

        /** The batcher's lower bound before step {@code step} seals: the previous upper. */
        Antichain lowerAt(int step) {
            return step == 0 ? Antichain.of(new long[arity]) : uppers.get(step - 1);
        }

        /** The step at which an update is actually pushed. */
        int stepOf(Arrival a) {
            int last = 0;
            for (int s = 0; s <= uppers.size(); s++) {
                if (lowerAt(s).lessEqual(a.update().time())) last = s;
            }
            return Math.min(a.step(), last);
        }

        /** Every time the reads are checked at: a grid covering all update times and a little beyond. */
        List<long[]> grid() {
            List<long[]> out = new ArrayList<>();
            if (arity == 1) {
                for (long t = 0; t <= MAX_TIME + 2; t++) out.add(new long[] {t});
            } else {
                for (long x = 0; x <= MAX_COORD + 2; x++) {
                    for (long y = 0; y <= MAX_COORD + 2; y++) out.add(new long[] {x, y});
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return "History[keys " + keys + ", vals " + vals + ", arity " + arity + ", chunk " + chunk + ", uppers " + uppers + ", arrivals " + arrivals + "]";
        }
    }

    /** Sees each seal: the batch, the batcher after it, and every update pushed so far. */
    interface SealObserver {
        void sealed(int step, Batch batch, Batcher batcher, List<Update> pushed);
    }

    /** Feeds a history to a new batcher; returns the sealed batches, in order. */
    static List<Batch> feed(History h, SealObserver observer) {
        return feed(h, new Batcher(h.keys().column(), h.vals().column(), h.arity()), observer);
    }

    /** Feeds a history to {@code batcher}, which keeps what was never sealed. */
    static List<Batch> feed(History h, Batcher batcher, SealObserver observer) {
        List<Batch> batches = new ArrayList<>();
        List<Update> pushed = new ArrayList<>();
        for (int step = 0; step <= h.uppers().size(); step++) {
            Updates container = new Updates(h.keys().column(), h.vals().column(), h.arity());
            for (Arrival a : h.arrivals()) {
                if (h.stepOf(a) != step) continue;
                h.keys().add(container.keys(), a.update().key());
                h.vals().add(container.vals(), a.update().val());
                container.push(a.update().time(), a.update().diff());
                pushed.add(a.update());
                if (container.size() >= h.chunk()) {
                    batcher.push(container);
                    container.clear();
                }
            }
            batcher.push(container);
            if (step < h.uppers().size()) {
                Batch b = batcher.seal(h.uppers().get(step));
                batches.add(b);
                observer.sealed(step, b, batcher, pushed);
            }
        }
        return batches;
    }

    static List<Batch> feed(History h) {
        return feed(h, (step, batch, batcher, pushed) -> {});
    }

    /** Arity-1 histories whose diffs come from {@code diffs}. */
    static Arbitrary<History> arity1(Arbitrary<Long> diffs) {
        Arbitrary<Arrival> arrival = Combinators.combine(
                        Arbitraries.longs().between(0, 15),
                        Arbitraries.longs().between(0, 4),
                        Arbitraries.longs().between(0, MAX_TIME),
                        diffs,
                        Arbitraries.integers().between(0, 7))
                .as((k, v, t, d, s) -> new Arrival(new Update(k, v, new long[] {t}, d), s));
        Arbitrary<List<Antichain>> uppers = Combinators.combine(
                        Arbitraries.longs().between(0, MAX_TIME + 1).list().ofMaxSize(6),
                        Arbitraries.of(false, true))
                .as((ts, close) -> {
                    List<Long> sorted = new ArrayList<>(ts);
                    Collections.sort(sorted);
                    List<Antichain> out = new ArrayList<>();
                    for (long t : sorted) out.add(Antichain.of(t));
                    if (close) out.add(Antichain.empty(1));
                    return out;
                });
        return Combinators.combine(
                        Arbitraries.of(Codec.LONG, Codec.BYTES, Codec.STRINGS),
                        Arbitraries.of(Codec.values()),
                        arrival.list().ofMaxSize(60),
                        uppers,
                        Arbitraries.integers().between(1, 9))
                .as((kc, vc, as, us, chunk) -> new History(kc, vc, 1, unitVals(vc, as), us, chunk));
    }

    /** Arity-2 histories (product order) whose uppers are increasing antichains, often of two or more elements. */
    static Arbitrary<History> arity2(Arbitrary<Long> diffs) {
        Arbitrary<Arrival> arrival = Combinators.combine(
                        Arbitraries.longs().between(0, 9),
                        Arbitraries.longs().between(0, 3),
                        Arbitraries.longs().between(0, MAX_COORD),
                        Arbitraries.longs().between(0, MAX_COORD),
                        diffs,
                        Arbitraries.integers().between(0, 7))
                .as((k, v, x, y, d, s) -> new Arrival(new Update(k, v, new long[] {x, y}, d), s));
        Arbitrary<List<Antichain>> uppers = Combinators.combine(frontierPath(2, 6), Arbitraries.of(false, true))
                .as((path, close) -> {
                    List<Antichain> out = new ArrayList<>(path);
                    if (close) out.add(Antichain.empty(2));
                    return out;
                });
        return Combinators.combine(
                        Arbitraries.of(Codec.LONG, Codec.BYTES, Codec.STRINGS),
                        Arbitraries.of(Codec.values()),
                        arrival.list().ofMaxSize(50),
                        uppers,
                        Arbitraries.integers().between(1, 9))
                .as((kc, vc, as, us, chunk) -> new History(kc, vc, 2, unitVals(vc, as), us, chunk));
    }

    private static List<Arrival> unitVals(Codec vals, List<Arrival> arrivals) {
        if (vals != Codec.UNIT) return arrivals;
        List<Arrival> out = new ArrayList<>();
        for (Arrival a : arrivals) {
            Update u = a.update();
            out.add(new Arrival(new Update(u.key(), 0, u.time(), u.diff()), a.step()));
        }
        return out;
    }

    /** One move of a frontier: element {@code index} (mod size) is replaced by itself plus {@code delta}. */
    record Move(int index, long[] delta) {
        @Override
        public String toString() {
            return index + "+" + Timestamps.toString(delta);
        }
    }

    static Arbitrary<Move> moves(int arity) {
        return Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.longs().between(0, 3).array(long[].class).ofSize(arity))
                .as(Move::new);
    }

    /**
     * Advances a frontier: each element some move names is replaced by itself plus each such
     * move's delta, the others are kept. Every new element is {@code >=} an old one, so the old
     * frontier dominates the new one.
     */
    static Antichain advance(Antichain f, List<Move> moves) {
        if (f.isEmpty()) return f;
        Antichain.Builder b = new Antichain.Builder(f.arity());
        for (int i = 0; i < f.size(); i++) {
            long[] e = f.get(i);
            boolean moved = false;
            for (Move m : moves) {
                if (m.index() % f.size() != i) continue;
                moved = true;
                long[] n = e.clone();
                for (int k = 0; k < n.length; k++) n[k] += m.delta()[k];
                b.insert(n);
            }
            if (!moved) b.insert(e);
        }
        return b.build();
    }

    /** Increasing frontiers from the least time: each advances the previous by a few moves. */
    static Arbitrary<List<Antichain>> frontierPath(int arity, int maxSteps) {
        return moves(arity).list().ofMaxSize(3).list().ofMaxSize(maxSteps).map(steps -> {
            List<Antichain> out = new ArrayList<>();
            Antichain f = Antichain.of(new long[arity]);
            for (List<Move> step : steps) {
                f = advance(f, step);
                out.add(f);
            }
            return out;
        });
    }

    /** A step of a trace script. */
    sealed interface Op permits Insert, Exert, Logical, Physical, DropSecond {}

    /** Insert the next sealed batch (if any remain). */
    record Insert() implements Op {}

    /** {@code trace.exert(fuel)}. */
    record Exert(long fuel) implements Op {}

    /** Advance handle {@code handle}'s logical compaction frontier by these moves. */
    record Logical(int handle, List<Move> moves) implements Op {}

    /** Advance handle {@code handle}'s physical compaction frontier by these moves. */
    record Physical(int handle, List<Move> moves) implements Op {}

    /** Drop the second handle. */
    record DropSecond() implements Op {}

    static Arbitrary<Op> ops(int arity, boolean drops) {
        Arbitrary<List<Move>> moves = moves(arity).list().ofMinSize(1).ofMaxSize(2);
        List<Tuple.Tuple2<Integer, Arbitrary<Op>>> choices = new ArrayList<>();
        choices.add(Tuple.of(8, Arbitraries.<Op>just(new Insert())));
        choices.add(Tuple.of(6, Arbitraries.longs().between(1, 40).map(f -> (Op) new Exert(f))));
        choices.add(Tuple.of(4, Combinators.combine(Arbitraries.integers().between(0, 1), moves).as((h, m) -> (Op) new Logical(h, m))));
        choices.add(Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 1), moves).as((h, m) -> (Op) new Physical(h, m))));
        if (drops) choices.add(Tuple.of(1, Arbitraries.<Op>just(new DropSecond())));
        return Arbitraries.frequencyOf(choices);
    }

    /** Merge efforts: slow merges that stay in progress across many inserts, the default, and merges that complete at once. */
    static Arbitrary<Long> efforts() {
        return Arbitraries.of(1L, 2L, Spine.EFFORT, Trace.UNFUELED);
    }

    static Arbitrary<List<Op>> scripts(int arity, boolean drops) {
        return ops(arity, drops).list().ofMaxSize(30);
    }
}
