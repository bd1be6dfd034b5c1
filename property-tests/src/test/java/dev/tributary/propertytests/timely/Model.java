package dev.tributary.propertytests.timely;

import dev.tributary.propertytests.timely.Shape.BufferNode;
import dev.tributary.propertytests.timely.Shape.ConcatNode;
import dev.tributary.propertytests.timely.Shape.CountNode;
import dev.tributary.propertytests.timely.Shape.ExchangeNode;
import dev.tributary.propertytests.timely.Shape.FilterNode;
import dev.tributary.propertytests.timely.Shape.Graph;
import dev.tributary.propertytests.timely.Shape.LoopNode;
import dev.tributary.propertytests.timely.Shape.MapNode;
import dev.tributary.propertytests.timely.Shape.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The reference: what every stream of a {@link Shape} carries, computed in plain Java from the
 * input records, with no workers, no frontiers and no batching.
 *
 * <p>A stream is a {@link Bag}: a multiset of (time, value) records, the sum over all workers of
 * what the dataflow sends. A loop is run round by round: every operator a loop body may hold is
 * linear (the output for a union of inputs is the union of the outputs; {@code count}, which is
 * not, exists only at the top level), so feeding the body only what came around last gives the
 * same records as timely's single pass over all rounds. The loop's gate bounds the innermost
 * coordinate, which every round increases, so this terminates.
 */
final class Model {
    private Model() {}

    /** A record at a time; times are lists so that records hash by value. */
    record Rec(List<Long> time, long value) {
        static Rec of(long[] time, long value) {
            return new Rec(Arrays.stream(time).boxed().toList(), value);
        }

        long[] timeArray() {
            return time.stream().mapToLong(Long::longValue).toArray();
        }
    }

    /** A multiset of records with positive multiplicities. Not thread-safe. */
    static final class Bag {
        private final HashMap<Rec, Long> counts = new HashMap<>();

        void add(Rec r, long n) {
            counts.merge(r, n, Long::sum);
        }

        void add(long[] time, long value) {
            add(Rec.of(time, value), 1);
        }

        void addAll(Bag other) {
            other.counts.forEach(this::add);
        }

        boolean isEmpty() {
            return counts.isEmpty();
        }

        /** The number of records, with multiplicity. */
        long size() {
            long n = 0;
            for (long c : counts.values()) n += c;
            return n;
        }

        Map<Rec, Long> counts() {
            return counts;
        }

        /** The records whose time satisfies {@code keep}. */
        Bag restrict(Predicate<List<Long>> keep) {
            Bag b = new Bag();
            counts.forEach((r, n) -> {
                if (keep.test(r.time())) b.add(r, n);
            });
            return b;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bag b && b.counts.equals(counts);
        }

        @Override
        public int hashCode() {
            return counts.hashCode();
        }

        /** Per time, in time order: {@code {3=[1, 1, 7], 5=[2]}}. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("{");
            byTime().forEach((t, vs) -> sb.append(sb.length() > 1 ? ", " : "").append(formatTime(t)).append('=').append(vs));
            return sb.append('}').toString();
        }

        /** The values at each time, sorted, in time order. */
        TreeMap<List<Long>, List<Long>> byTime() {
            TreeMap<List<Long>, List<Long>> sorted = new TreeMap<>(Model::compareTimes);
            counts.forEach((r, n) -> {
                List<Long> vs = sorted.computeIfAbsent(r.time(), k -> new ArrayList<>());
                for (long i = 0; i < n; i++) vs.add(r.value());
            });
            sorted.values().forEach(vs -> vs.sort(null));
            return sorted;
        }
    }

    static int compareTimes(List<Long> a, List<Long> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Long.compare(a.get(i), b.get(i));
            if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
    }

    static String formatTime(List<Long> t) {
        if (t.size() == 1) return Long.toString(t.getFirst());
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < t.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(t.get(i));
        }
        return sb.append(')').toString();
    }

    /** The input records a script gives, per input, summed over workers. */
    static final class Inputs {
        private final long[][] times;
        private final List<Bag> bags = new ArrayList<>();

        Inputs(int workers, int inputs) {
            times = new long[workers][inputs];
            for (int i = 0; i < inputs; i++) bags.add(new Bag());
        }

        void apply(List<Script.Cmd> cmds) {
            apply(cmds, 0);
        }

        /** Follows every command's advances, but takes only the records of commands from index {@code from} on. */
        void apply(List<Script.Cmd> cmds, int from) {
            for (int i = 0; i < cmds.size(); i++) {
                boolean take = i >= from;
                switch (cmds.get(i)) {
                    case Script.Send s -> {
                        if (take) bags.get(s.input()).add(new long[] {times[s.worker()][s.input()]}, s.value());
                    }
                    case Script.SendContainer s -> {
                        for (long v : s.values()) {
                            if (take) bags.get(s.input()).add(new long[] {times[s.worker()][s.input()]}, v);
                        }
                    }
                    case Script.Advance a -> times[a.worker()][a.input()] += a.by();
                    case Script.Step s -> {}
                    case Script.Close x -> {}
                }
            }
        }

        /** Every handle moves to {@code time}. */
        void advanceAll(long time) {
            for (long[] w : times) Arrays.fill(w, time);
        }

        List<Bag> bags() {
            return bags;
        }
    }

    /** What every stream of {@code top} carries, by stream id, given what each input carries. */
    static Map<Integer, Bag> evaluate(Graph top, List<Bag> inputs) {
        Map<Integer, Bag> total = new HashMap<>();
        evaluate(top, inputs, total);
        return total;
    }

    /**
     * Evaluates one pass of {@code g} over {@code sources}, adding what each stream carries to
     * {@code total} (so that loop bodies accumulate over rounds); returns this pass's streams.
     */
    private static Map<Integer, Bag> evaluate(Graph g, List<Bag> sources, Map<Integer, Bag> total) {
        Map<Integer, Bag> s = new HashMap<>();
        for (int i = 0; i < sources.size(); i++) s.put(g.sourceIds().get(i), sources.get(i));
        for (Node n : g.nodes()) {
            Bag out = new Bag();
            switch (n) {
                case MapNode m -> s.get(m.input()).counts().forEach((r, c) -> out.add(new Rec(r.time(), m.apply(r.value())), c));
                case FilterNode f -> s.get(f.input()).counts().forEach((r, c) -> {
                    if (f.keeps(r.value())) out.add(r, c);
                });
                case ExchangeNode e -> out.addAll(s.get(e.input()));
                case ConcatNode c -> {
                    out.addAll(s.get(c.left()));
                    out.addAll(s.get(c.right()));
                }
                case BufferNode b -> s.get(b.input()).counts().forEach((r, c) -> out.add(Rec.of(b.delayed(r.timeArray()), r.value()), c));
                case CountNode c -> s.get(c.input()).counts().forEach((r, k) -> out.add(new Rec(r.time(), CountNode.encode(r.value(), k)), 1));
                case LoopNode l -> {
                    Bag round = new Bag();
                    for (var e : s.get(l.input()).counts().entrySet()) {
                        List<Long> t = new ArrayList<>(e.getKey().time());
                        t.add(0L);
                        round.add(new Rec(t, e.getKey().value()), e.getValue());
                    }
                    while (!round.isEmpty()) {
                        Bag bodyOut = evaluate(l.body(), List.of(round), total).get(l.body().outputId());
                        round = new Bag();
                        for (var e : bodyOut.counts().entrySet()) {
                            Rec r = e.getKey();
                            out.add(new Rec(r.time().subList(0, r.time().size() - 1), r.value()), e.getValue());
                            long[] t = r.timeArray();
                            if (l.feedsBack(t)) round.add(Rec.of(l.fedBack(t), r.value()), e.getValue());
                        }
                    }
                }
            }
            s.put(n.id(), out);
        }
        s.forEach((id, bag) -> total.computeIfAbsent(id, k -> new Bag()).addAll(bag));
        return s;
    }
}
