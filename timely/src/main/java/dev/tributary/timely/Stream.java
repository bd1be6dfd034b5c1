package dev.tributary.timely;

import java.util.function.BiConsumer;

/**
 * The containers one operator output sends over time, in one scope; operators read it.
 *
 * <p>A stream may be read by any number of operators; each reader gets every container (copied
 * for all but the last). The operators here are the common shapes; {@link Scope#operator}
 * builds any other.
 */
public final class Stream<C extends Container> {
    final Scope scope;
    final OutputPort<C> source;

    Stream(Scope scope, OutputPort<C> source) {
        this.scope = scope;
        this.source = source;
    }

    public Scope scope() {
        return scope;
    }

    /** The id of the operator whose output this stream is (see {@link DataflowGraph.OperatorStats#id}). */
    public int operatorId() {
        return source.operator.id;
    }

    public ContainerType<C> type() {
        return source.type;
    }

    /** Logic of a one-input, one-output operator. */
    @FunctionalInterface
    public interface UnaryLogic<I extends Container, O extends Container> {
        void schedule(InputPort<I> input, OutputPort<O> output);
    }

    /** Logic of a two-input, one-output operator. */
    @FunctionalInterface
    public interface BinaryLogic<I1 extends Container, I2 extends Container, O extends Container> {
        void schedule(InputPort<I1> input1, InputPort<I2> input2, OutputPort<O> output);
    }

    /** A one-input, one-output operator; it holds no capability but those it retains. */
    public <O extends Container> Stream<O> unary(String name, Pact<C> pact, ContainerType<O> outputType, UnaryLogic<C, O> logic) {
        OperatorBuilder b = scope.operator(name);
        InputPort<C> in = b.input(this, pact);
        OutputPort<O> out = b.output(outputType);
        b.build(() -> logic.schedule(in, out));
        return out.stream();
    }

    /** A two-input, one-output operator; it holds no capability but those it retains. */
    public <C2 extends Container, O extends Container> Stream<O> binary(Stream<C2> other, String name, Pact<C> pact1, Pact<C2> pact2,
            ContainerType<O> outputType, BinaryLogic<C, C2, O> logic) {
        OperatorBuilder b = scope.operator(name);
        InputPort<C> in1 = b.input(this, pact1);
        InputPort<C2> in2 = b.input(other, pact2);
        OutputPort<O> out = b.output(outputType);
        b.build(() -> logic.schedule(in1, in2, out));
        return out.stream();
    }

    /** A one-input operator with no output: the end of a dataflow. */
    public void sink(String name, Pact<C> pact, InputPort.MessageConsumer<? super C> consumer) {
        OperatorBuilder b = scope.operator(name);
        InputPort<C> in = b.input(this, pact);
        b.build(() -> in.forEach(consumer));
    }

    /** The same records, each moved to the worker owning its key. */
    public Stream<C> exchange() {
        return forward("exchange", Pact.exchange());
    }

    /** The same records, moved to workers by {@code partitioner}. */
    public Stream<C> exchange(ContainerType<C> partitioner) {
        return forward("exchange", Pact.exchange(partitioner));
    }

    private Stream<C> forward(String name, Pact<C> pact) {
        ContainerType<C> type = source.type;
        OperatorBuilder b = scope.operator(name);
        InputPort<C> in = b.input(this, pact);
        OutputPort<C> out = b.output(type);
        InputPort.MessageConsumer<C> pass = (cap, data) -> {
            C copy = out.newContainer(data.size());
            type.appendAll(data, copy);
            out.send(cap, copy);
        };
        b.build(() -> in.forEach(pass));
        return out.stream();
    }

    /** Calls {@code action} with each container (and its time) as it passes. */
    public Stream<C> inspect(BiConsumer<long[], ? super C> action) {
        ContainerType<C> type = source.type;
        return unary("inspect", Pact.pipeline(), type, (in, out) -> in.forEach((cap, data) -> {
            action.accept(cap.time(), data);
            C copy = out.newContainer(data.size());
            type.appendAll(data, copy);
            out.send(cap, copy);
        }));
    }

    /** The records of both streams. */
    public Stream<C> concat(Stream<C> other) {
        ContainerType<C> type = source.type;
        return binary(other, "concat", Pact.pipeline(), Pact.pipeline(), type, (in1, in2, out) -> {
            InputPort.MessageConsumer<C> pass = (cap, data) -> {
                C copy = out.newContainer(data.size());
                type.appendAll(data, copy);
                out.send(cap, copy);
            };
            in1.forEach(pass);
            in2.forEach(pass);
        });
    }

    /** Watches this stream's frontier; see {@link Probe}. */
    public Probe probe() {
        OperatorBuilder b = scope.operator("probe");
        InputPort<C> in = b.input(this, Pact.pipeline());
        b.build(() -> in.forEach((cap, data) -> {}));
        return new Probe(in);
    }

    /** Copies every container and frontier change into {@code sink}, for tests. */
    public Stream<C> capture(Captured<C> sink) {
        OperatorBuilder b = scope.operator("capture");
        InputPort<C> in = b.input(this, Pact.pipeline());
        int worker = scope.worker();
        ContainerType<C> type = source.type;
        b.build(() -> {
            in.forEach((cap, data) -> {
                C copy = type.create();
                type.appendAll(data, copy);
                sink.record(worker, cap.time(), copy, in.frontier());
            });
            sink.frontier(worker, in.frontier());
        });
        return this;
    }

    /** This stream inside {@code inner}, a scope nested directly in this stream's: {@code t -> (t, 0)}. */
    public Stream<C> enter(Scope inner) {
        ContainerType<C> type = source.type;
        return enter(inner, type, type::appendAll);
    }

    /**
     * This stream inside {@code inner} ({@code t -> (t, 0)}), each container rewritten by
     * {@code convert} into one of {@code type}: for containers whose records carry their own
     * times, which must gain the new coordinate too.
     */
    public <O extends Container> Stream<O> enter(Scope inner, ContainerType<O> type, BiConsumer<? super C, ? super O> convert) {
        if (inner.parent != scope) {
            throw new IllegalArgumentException("cannot enter scope '" + inner.name + "' from scope '" + scope.name + "': it is not nested directly in it");
        }
        return retime("enter", inner, scope.arity, inner.arity, t -> java.util.Arrays.copyOf(t, t.length + 1), type, convert);
    }

    /** This stream in the enclosing scope: {@code (t, i) -> t}. */
    public Stream<C> leave() {
        ContainerType<C> type = source.type;
        return leave(type, type::appendAll);
    }

    /** This stream in the enclosing scope ({@code (t, i) -> t}), each container rewritten by {@code convert}. */
    public <O extends Container> Stream<O> leave(ContainerType<O> type, BiConsumer<? super C, ? super O> convert) {
        if (scope.parent == null) throw new IllegalStateException("stream of the top-level scope '" + scope.name + "' has no scope to leave to");
        return retime("leave", scope.parent, scope.arity, scope.parent.arity, t -> java.util.Arrays.copyOf(t, t.length - 1), type, convert);
    }

    private <O extends Container> Stream<O> retime(String name, Scope to, int inArity, int outArity, java.util.function.UnaryOperator<long[]> f,
            ContainerType<O> type, BiConsumer<? super C, ? super O> convert) {
        OperatorBuilder b = new OperatorBuilder(to, name, outArity);
        InputPort<C> in = b.newInput(inArity);
        OperatorBuilder.connect(this, in, Pact.pipeline());
        OutputPort<O> out = b.newOutput(type, outArity);
        // The message being read holds the target's frontier at its time, which the summary maps to
        // the new time downstream, so forwarding needs no capability of its own.
        b.build(() -> in.forEach((cap, data) -> {
            O copy = out.newContainer(data.size());
            convert.accept(data, copy);
            out.dispatch(f.apply(cap.time()), copy);
        }));
        return out.stream();
    }
}
