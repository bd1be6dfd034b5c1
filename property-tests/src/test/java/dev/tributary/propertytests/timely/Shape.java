package dev.tributary.propertytests.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * The shape of a random dataflow as a value: which operators read which streams, in which scope.
 *
 * <p>Every stream has a global id, unique across all scopes: the {@link Graph#sourceIds sources}
 * of a scope (the inputs at the top level, the loop variable in a loop body) and every node. A node
 * reads only streams of its own scope, each of which comes before it. The same value drives both
 * the dataflow ({@link Render}) and the plain-Java reference ({@link Model}), so the per-record
 * functions live here, once.
 *
 * <p>Shapes are generated as {@link RawNode raw nodes}: small integers that {@link #resolve} reads
 * modulo what is available. Any raw list is a valid shape, so jqwik shrinks by deleting nodes and
 * zeroing parameters, and a zero parameter means the simplest choice (read the previous stream,
 * multiply by one, no delay).
 */
final class Shape {
    private Shape() {}

    /** The operators of one scope: streams {@code sourceIds}, then one per node. */
    record Graph(int arity, List<Integer> sourceIds, List<Node> nodes) {
        /** The stream this scope hands on: its last node, or its last source if it has none. */
        int outputId() {
            return nodes.isEmpty() ? sourceIds.getLast() : nodes.getLast().id();
        }
    }

    sealed interface Node permits MapNode, FilterNode, ExchangeNode, ConcatNode, BufferNode, CountNode, LoopNode {
        /** The id of the stream this node produces. */
        int id();
    }

    /** {@code v -> v * multiplier + addend}, on the worker where the record is. */
    record MapNode(int id, int input, long multiplier, long addend) implements Node {
        long apply(long v) {
            return v * multiplier + addend;
        }
    }

    /** Drops the records {@code v} with {@code v mod modulus == remainder}. */
    record FilterNode(int id, int input, long modulus, long remainder) implements Node {
        boolean keeps(long v) {
            return Math.floorMod(v, modulus) != remainder;
        }
    }

    /** The same records, each moved to the worker that owns it. */
    record ExchangeNode(int id, int input) implements Node {}

    /** The records of both streams (which may be the same stream). */
    record ConcatNode(int id, int left, int right) implements Node {}

    /**
     * Holds each record until its input frontier has passed its delayed time, then sends it at that
     * time: coordinate {@code coordinate} grows by {@code delay}. Holds capabilities and uses a
     * notificator, so a frontier that passes a time too early loses or misplaces records.
     */
    record BufferNode(int id, int input, int coordinate, long delay) implements Node {
        long[] delayed(long[] time) {
            long[] t = time.clone();
            t[coordinate] += delay;
            return t;
        }
    }

    /**
     * Counts the records of each value at each time, on the worker that owns the value, and once the
     * input frontier has passed the time sends one record {@code value + 1000 * count} at it. Not
     * linear: a frontier that passes a time too early splits a count in two. Top level only (the
     * reference runs loops round by round, which only linear operators allow).
     */
    record CountNode(int id, int input) implements Node {
        static long encode(long value, long count) {
            return value + 1000 * count;
        }
    }

    /**
     * An iterative scope: the input enters at loop coordinate 0, goes through {@code body}, and what
     * the body outputs at loop coordinate {@code i} comes back at {@code i + increment} as long as
     * that is at most {@code lastRound}. Every record the body outputs, in every round, leaves.
     */
    record LoopNode(int id, int input, long increment, long lastRound, Graph body) implements Node {
        /** Whether the body's output at {@code time} goes around the loop again. */
        boolean feedsBack(long[] time) {
            return time[time.length - 1] + increment <= lastRound;
        }

        long[] fedBack(long[] time) {
            long[] t = time.clone();
            t[t.length - 1] += increment;
            return t;
        }
    }

    /** What jqwik generates: a kind and three small parameters, and a body for loops. */
    enum Kind { MAP, FILTER, EXCHANGE, CONCAT, BUFFER, COUNT, LOOP }

    record RawNode(Kind kind, int p, int q, int r, List<RawNode> body) {
        @Override
        public String toString() {
            String s = kind + "(" + p + "," + q + "," + r;
            return kind == Kind.LOOP ? s + ", " + body + ")" : s + ")";
        }
    }

    /** The top-level graph of {@code inputs} inputs and {@code raw} nodes. */
    static Graph resolve(List<RawNode> raw, int inputs) {
        return resolve(raw, inputs, 1, new int[1]);
    }

    private static Graph resolve(List<RawNode> raw, int sources, int arity, int[] nextId) {
        List<Integer> sourceIds = new ArrayList<>();
        for (int i = 0; i < sources; i++) sourceIds.add(nextId[0]++);
        List<Integer> streams = new ArrayList<>(sourceIds);
        List<Node> nodes = new ArrayList<>();
        for (RawNode r : raw) {
            int previous = pick(streams, r.p());
            Node n = switch (r.kind()) {
                case MAP -> new MapNode(nextId[0]++, previous, 1 + Math.floorMod(r.q(), 3), Math.floorMod(r.r(), 5));
                case FILTER -> {
                    long modulus = 2 + Math.floorMod(r.q(), 3);
                    yield new FilterNode(nextId[0]++, previous, modulus, Math.floorMod(r.r(), modulus));
                }
                case EXCHANGE -> new ExchangeNode(nextId[0]++, previous);
                case CONCAT -> new ConcatNode(nextId[0]++, previous, pick(streams, r.q()));
                case BUFFER -> new BufferNode(nextId[0]++, previous, Math.floorMod(r.r(), arity), Math.floorMod(r.q(), 3));
                case COUNT -> {
                    if (arity != 1) throw new IllegalArgumentException("count is for the top level only, not for scopes of arity " + arity);
                    yield new CountNode(nextId[0]++, previous);
                }
                case LOOP -> {
                    Graph body = resolve(r.body(), 1, arity + 1, nextId);
                    yield new LoopNode(nextId[0]++, previous, 1 + Math.floorMod(r.q(), 2), Math.floorMod(r.r(), 5), body);
                }
            };
            nodes.add(n);
            streams.add(n.id());
        }
        return new Graph(arity, sourceIds, nodes);
    }

    /** {@code back} streams before the newest one, wrapping around. */
    private static int pick(List<Integer> streams, int back) {
        return streams.get(streams.size() - 1 - Math.floorMod(back, streams.size()));
    }

    /** The scope arity of every stream id, index = id. */
    static List<Integer> arities(Graph top) {
        List<Integer> out = new ArrayList<>();
        collectArities(top, out);
        return out;
    }

    private static void collectArities(Graph g, List<Integer> out) {
        for (int id : g.sourceIds()) set(out, id, g.arity());
        for (Node n : g.nodes()) {
            if (n instanceof LoopNode l) collectArities(l.body(), out);
            set(out, n.id(), g.arity());
        }
    }

    private static void set(List<Integer> list, int index, int value) {
        while (list.size() <= index) list.add(null);
        list.set(index, value);
    }

    /** Whether any node, at any depth, satisfies the kind test; for coverage statistics. */
    static boolean contains(Graph g, Class<? extends Node> kind) {
        for (Node n : g.nodes()) {
            if (kind.isInstance(n)) return true;
            if (n instanceof LoopNode l && contains(l.body(), kind)) return true;
        }
        return false;
    }

    /** The deepest scope arity in the graph. */
    static int depth(Graph g) {
        int d = g.arity();
        for (Node n : g.nodes()) {
            if (n instanceof LoopNode l) d = Math.max(d, depth(l.body()));
        }
        return d;
    }

    /** Ids of every exchange node, at any depth. */
    static List<Integer> exchangeIds(Graph g) {
        List<Integer> out = new ArrayList<>();
        collectExchanges(g, out);
        return out;
    }

    private static void collectExchanges(Graph g, List<Integer> out) {
        for (Node n : g.nodes()) {
            if (n instanceof ExchangeNode) out.add(n.id());
            if (n instanceof LoopNode l) collectExchanges(l.body(), out);
        }
    }

    /** A readable program, one stream per line, e.g. {@code s3 = map(s1, v*3+1)}. */
    static String describe(Graph top) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < top.sourceIds().size(); i++) sb.append("s").append(top.sourceIds().get(i)).append(" = input ").append(i).append('\n');
        describeNodes(top, "", sb);
        return sb.toString();
    }

    private static void describeNodes(Graph g, String indent, StringBuilder sb) {
        for (Node n : g.nodes()) {
            sb.append(indent).append('s').append(n.id()).append(" = ");
            switch (n) {
                case MapNode m -> sb.append("map(s").append(m.input()).append(", v*").append(m.multiplier()).append('+').append(m.addend()).append(")\n");
                case FilterNode f -> sb.append("filter(s").append(f.input()).append(", v mod ").append(f.modulus()).append(" != ").append(f.remainder()).append(")\n");
                case ExchangeNode e -> sb.append("exchange(s").append(e.input()).append(")\n");
                case ConcatNode c -> sb.append("concat(s").append(c.left()).append(", s").append(c.right()).append(")\n");
                case CountNode c -> sb.append("count(s").append(c.input()).append(")\n");
                case BufferNode b -> sb.append("buffer(s").append(b.input()).append(", coordinate ").append(b.coordinate()).append(" + ").append(b.delay()).append(")\n");
                case LoopNode l -> {
                    sb.append("loop(s").append(l.input()).append(", +").append(l.increment()).append(" while <= ").append(l.lastRound()).append(") {\n");
                    sb.append(indent).append("    s").append(l.body().sourceIds().getFirst()).append(" = s").append(l.input())
                            .append(" entered, concat feedback\n");
                    describeNodes(l.body(), indent + "    ", sb);
                    sb.append(indent).append("} leaves s").append(l.body().outputId()).append('\n');
                }
            }
        }
    }
}
