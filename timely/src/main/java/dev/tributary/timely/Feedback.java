package dev.tributary.timely;

/**
 * A loop edge: what is connected to it re-enters the scope with its innermost time coordinate
 * advanced by a positive increment, so every trip around a loop moves time forward and the
 * loop's frontier can make progress.
 */
public final class Feedback<C extends Container> {
    private final Scope scope;
    private final String name;
    private final InputPort<C> input;
    private final OutputPort<C> output;
    private final PathSummary summary;
    private boolean connected;

    Feedback(Scope scope, String name, ContainerType<C> type, long increment) {
        if (increment <= 0) throw new IllegalArgumentException("feedback '" + name + "' needs a positive increment, not " + increment);
        this.scope = scope;
        this.name = name;
        this.summary = PathSummary.feedback(scope.arity, increment);
        OperatorBuilder b = scope.operator(name);
        this.input = b.newInput(scope.arity);
        this.output = b.output(type);
        b.summary(0, 0, summary);
        // The message being read holds the frontier at summary(t) downstream, so forwarding at
        // that time needs no capability; a time that would overflow is dropped.
        b.build(() -> input.forEach((cap, data) -> {
            long[] next = summary.apply(cap.time());
            if (next == null) return;
            C copy = output.newContainer();
            type.appendAll(data, copy);
            output.dispatch(next, copy);
        }));
    }

    public String name() {
        return name;
    }

    /** The records that came around the loop. */
    public Stream<C> stream() {
        return output.stream();
    }

    /** Closes the loop: {@code stream}'s records come back out of {@link #stream()}. Once only. */
    public void connect(Stream<C> stream) {
        if (connected) throw new IllegalStateException("feedback '" + name + "' is already connected");
        if (stream.scope != scope) {
            throw new IllegalArgumentException("feedback '" + name + "' of scope '" + scope.name + "' cannot take a stream of scope '" + stream.scope.name + "'");
        }
        OperatorBuilder.connect(stream, input, Pact.pipeline());
        connected = true;
    }

    boolean connected() {
        return connected;
    }
}
