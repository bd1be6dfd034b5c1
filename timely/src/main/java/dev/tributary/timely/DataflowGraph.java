package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * One dataflow as introspection sees it: its operators with what they did, and the channels
 * between their ports. Taken on a worker's thread ({@link Worker#graph}) from that worker's copy;
 * {@link #sum} adds up the copies of several workers, which line up operator by operator because
 * every worker builds the same dataflows in the same order.
 *
 * <p>The counters behind it are plain fields of each operator, written only by its worker's
 * thread while it runs the operator: records are counted per container (its size), not per
 * record, and time once per activation, so the hot path gains an add or two and two clock reads
 * per activation, and allocates nothing. {@code -Dtributary.introspection=false} turns all of
 * it off (the counters then stay 0), for measuring that cost.
 *
 * @param index the dataflow's index on its workers ({@link Scope#dataflowIndex()})
 * @param name the name it was built under ({@link Worker#dataflow})
 * @param operators every operator, by operator id
 * @param channels every channel, from an output port to an input port
 */
public record DataflowGraph(int index, String name, List<OperatorStats> operators, List<ChannelEdge> channels) {
    /** Whether operators count what they do: {@code -Dtributary.introspection=false} turns it off. */
    public static final boolean COUNTING = !"false".equalsIgnoreCase(System.getProperty("tributary.introspection", "true"));

    public DataflowGraph {
        operators = List.copyOf(operators);
        channels = List.copyOf(channels);
    }

    /**
     * One operator and what it did since it was built.
     *
     * @param id its index in the dataflow, the same on every worker
     * @param name the name it was built with ({@link Scope#operator})
     * @param scope the path of scopes it sits in, from the dataflow's own ({@code "d"}, {@code "d/loop"})
     * @param inputs how many input ports it has
     * @param outputs how many output ports it has
     * @param recordsIn records in the containers its inputs handed it
     * @param recordsOut records in the containers it sent (once per container, however many consumers)
     * @param messagesIn containers its inputs handed it
     * @param messagesOut containers it sent
     * @param activations how often its logic ran
     * @param elapsedNanos time spent in its logic, in nanoseconds
     */
    public record OperatorStats(int id, String name, String scope, int inputs, int outputs, long recordsIn, long recordsOut,
                                long messagesIn, long messagesOut, long activations, long elapsedNanos) {
        /** This operator's counts with {@code other}'s (the same operator on another worker) added. */
        OperatorStats plus(OperatorStats other) {
            return new OperatorStats(id, name, scope, inputs, outputs, recordsIn + other.recordsIn, recordsOut + other.recordsOut,
                    messagesIn + other.messagesIn, messagesOut + other.messagesOut, activations + other.activations, elapsedNanos + other.elapsedNanos);
        }
    }

    /**
     * A channel: what output {@code fromPort} of operator {@code from} sends reaches input
     * {@code toPort} of operator {@code to}; {@code exchange} when it routes records by key to
     * every worker rather than to the same worker's operator.
     */
    public record ChannelEdge(int from, int fromPort, int to, int toPort, boolean exchange) {}

    /** The copies of one dataflow on several workers ({@code copies}, not empty), their counts added up. */
    public static DataflowGraph sum(List<DataflowGraph> copies) {
        DataflowGraph first = copies.get(0);
        List<OperatorStats> ops = new ArrayList<>(first.operators);
        for (int w = 1; w < copies.size(); w++) {
            List<OperatorStats> other = copies.get(w).operators;
            // a copy dropped in between may have fewer operators left: count what lines up
            for (int i = 0; i < Math.min(ops.size(), other.size()); i++) ops.set(i, ops.get(i).plus(other.get(i)));
        }
        return new DataflowGraph(first.index, first.name, ops, first.channels);
    }

    /** The graph of one worker's copy of {@code df}, read on that worker's thread. */
    static DataflowGraph of(Dataflow df) {
        List<OperatorStats> ops = new ArrayList<>(df.operators.size());
        for (OperatorNode op : df.operators) {
            ops.add(new OperatorStats(op.id, op.name, scopePath(df.scopeOf(op)), op.inputs.size(), op.outputs.size(), op.recordsIn, op.recordsOut,
                    op.messagesIn, op.messagesOut, op.activations, op.elapsedNanos));
        }
        List<ChannelEdge> channels = new ArrayList<>();
        for (OperatorNode op : df.operators) {
            for (OutputPort<?> out : op.outputs) {
                for (Channel<?> ch : out.channels) {
                    channels.add(new ChannelEdge(op.id, out.port, ch.targetOperator, ch.targetPort, ch instanceof Channel.Exchange<?>));
                }
            }
        }
        return new DataflowGraph(df.index, df.name, ops, channels);
    }

    private static String scopePath(Scope s) {
        return s.parent == null ? s.name : scopePath(s.parent) + "/" + s.name;
    }
}
