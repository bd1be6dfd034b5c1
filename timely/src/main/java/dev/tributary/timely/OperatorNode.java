package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;

/** One operator of one worker's copy of a dataflow: its ports, summaries, logic and held capabilities. */
final class OperatorNode {
    final Dataflow dataflow;
    final int id;
    final String name;
    final int arity;
    final List<InputPort<?>> inputs = new ArrayList<>();
    final List<OutputPort<?>> outputs = new ArrayList<>();
    /** summaries.get(input).get(output); {@code null} means the input cannot cause output there. */
    final List<List<PathSummary>> summaries = new ArrayList<>();
    final MutableAntichain held;
    OperatorLogic logic;
    /** Capabilities this operator holds when the dataflow starts, on every worker. */
    long[] initialCapability;
    /**
     * What this operator did, for {@link DataflowGraph}: written only on its worker's thread, as
     * it runs (plain fields, no locks; see {@link DataflowGraph#COUNTING}).
     */
    long recordsIn;
    long recordsOut;
    long messagesIn;
    long messagesOut;
    long activations;
    long elapsedNanos;

    OperatorNode(Dataflow dataflow, int id, String name, int arity) {
        this.dataflow = dataflow;
        this.id = id;
        this.name = name;
        this.arity = arity;
        this.held = new MutableAntichain(arity);
    }

    String displayName() {
        return name + "#" + id;
    }

    Capability acquire(long[] time) {
        if (outputs.isEmpty()) {
            throw new IllegalStateException("operator '" + displayName() + "' has no outputs, so it cannot hold a capability");
        }
        countCapability(time, 1);
        return new Capability(this, time);
    }

    void countCapability(long[] time, long delta) {
        held.update(time, delta);
        for (int i = 0; i < outputs.size(); i++) dataflow.changes.update(outputs.get(i).location, time, delta);
    }
}
