package dev.tributary.timely;

import java.util.ArrayList;
import java.util.function.Function;

/**
 * Builds one operator: declare inputs (each with a {@link Pact}) and outputs, optionally how
 * inputs connect to outputs, then give the logic.
 *
 * <p>By default every input may cause output at the same time on every output (the identity
 * summary); {@link #summary} overrides one pair, for example to say an input never causes output
 * ({@code null}) or only at later times.
 */
public final class OperatorBuilder {
    private final Scope scope;
    private final OperatorNode op;
    private boolean built;

    OperatorBuilder(Scope scope, String name) {
        this(scope, name, scope.arity);
    }

    OperatorBuilder(Scope scope, String name, int arity) {
        this.scope = scope;
        this.op = scope.dataflow.newOperator(scope, name, arity);
    }

    /** A new input reading {@code stream}, routed by {@code pact}. */
    public <C extends Container> InputPort<C> input(Stream<C> stream, Pact<C> pact) {
        if (stream.scope.dataflow != scope.dataflow) {
            throw new IllegalArgumentException("operator '" + op.displayName() + "' cannot read a stream of another dataflow ('" + stream.scope.dataflow.name + "')");
        }
        if (stream.scope.arity != op.arity) {
            throw new IllegalArgumentException("operator '" + op.displayName() + "' in scope '" + scope.name + "' cannot read a stream of scope '"
                    + stream.scope.name + "' directly; use enter() or leave()");
        }
        InputPort<C> in = newInput(op.arity);
        connect(stream, in, pact);
        return in;
    }

    <C extends Container> InputPort<C> newInput(int arity) {
        checkNotBuilt();
        Dataflow df = scope.dataflow;
        int port = op.inputs.size();
        InputPort<C> in = new InputPort<>(op, port, df.newLocation(op.id, port, false, arity), arity);
        op.inputs.add(in);
        ArrayList<PathSummary> row = new ArrayList<>();
        for (OutputPort<?> o : op.outputs) row.add(defaultSummary(arity, o));
        op.summaries.add(row);
        return in;
    }

    static <C extends Container> void connect(Stream<C> stream, InputPort<C> in, Pact<C> pact) {
        Dataflow df = in.operator.dataflow;
        OutputPort<C> source = stream.source;
        df.addEdge(source.location, in.location);
        Channel<C> ch = switch (pact) {
            case Pact.Pipeline<C> p -> new Channel.Pipeline<>(df, in);
            case Pact.Exchange<C> e -> new Channel.Exchange<>(df, in, e.partitioner() != null ? e.partitioner() : stream.source.type,
                    new ContainerPool<>(stream.source.type, df.worker.index(), df.worker.peers(), df.worker.poolBudget));
        };
        source.channels.add(ch);
    }

    /** A new output carrying containers of {@code type}, in this operator's scope. */
    public <C extends Container> OutputPort<C> output(ContainerType<C> type) {
        return newOutput(type, op.arity);
    }

    <C extends Container> OutputPort<C> newOutput(ContainerType<C> type, int arity) {
        checkNotBuilt();
        Dataflow df = scope.dataflow;
        int port = op.outputs.size();
        OutputPort<C> out = new OutputPort<>(op, port, df.newLocation(op.id, port, true, arity), type);
        op.outputs.add(out);
        for (int i = 0; i < op.inputs.size(); i++) op.summaries.get(i).add(defaultSummary(op.inputs.get(i).frontier.arity(), out));
        return out;
    }

    private PathSummary defaultSummary(int inputArity, OutputPort<?> out) {
        int outArity = scope.dataflow.locations.get(out.location).arity();
        if (inputArity == outArity) return PathSummary.identity(inputArity);
        return inputArity < outArity ? PathSummary.enter(inputArity) : PathSummary.leave(inputArity);
    }

    /** How input {@code input} can cause output on {@code output}; {@code null} if it never does. */
    public OperatorBuilder summary(int input, int output, PathSummary summary) {
        checkNotBuilt();
        op.summaries.get(input).set(output, summary);
        return this;
    }

    /** Schedules this operator again on this worker at the next step; callable from any code on the worker thread. */
    public Runnable activator() {
        Dataflow df = scope.dataflow;
        int id = op.id;
        return () -> df.activate(id);
    }

    /**
     * Schedules this operator at the next step in which the worker has nothing else to do: for
     * background work (merging an idle trace) that must not delay data or progress.
     */
    public Runnable idleActivator() {
        Dataflow df = scope.dataflow;
        int id = op.id;
        return () -> df.activateWhenIdle(id);
    }

    /**
     * Schedules this operator again once the worker has given the other dataflows' work a step:
     * for an operator that stops because its fuel is spent with work left (a runaway expansion),
     * so that a commit or a read that needs a dozen steps of other dataflows does not wait a slice
     * of it in each. It runs at the next step in which nothing else had work, or after
     * {@link Worker#YIELD_EVERY} steps that had, whichever comes first: it is never starved.
     */
    public Runnable yieldActivator() {
        Dataflow df = scope.dataflow;
        int id = op.id;
        return () -> df.activateAfterOthers(id);
    }

    /** The operator's name and id as shown in errors and events, {@code name#id}. */
    public String displayName() {
        return op.displayName();
    }

    /** The operator's index in its dataflow. */
    public int id() {
        return op.id;
    }

    /** Finishes the operator; it holds no capability until it retains one from an input message. */
    public void build(OperatorLogic logic) {
        checkNotBuilt();
        op.logic = logic;
        built = true;
    }

    /**
     * Finishes the operator, giving {@code constructor} a capability at the scope's least time,
     * held on every worker from the start. The logic must drop it (or downgrade it and
     * eventually drop it), or the dataflow never completes.
     */
    public void build(Function<Capability, OperatorLogic> constructor) {
        checkNotBuilt();
        if (op.outputs.isEmpty()) throw new IllegalStateException("operator '" + op.displayName() + "' has no outputs, so it cannot hold a capability");
        long[] t = Timestamps.minimum(op.arity);
        op.held.update(t, 1);
        op.initialCapability = t;
        op.logic = constructor.apply(new Capability(op, t));
        built = true;
    }

    private void checkNotBuilt() {
        if (built) throw new IllegalStateException("operator '" + op.displayName() + "' is already built");
    }

    OperatorNode node() {
        return op;
    }
}
