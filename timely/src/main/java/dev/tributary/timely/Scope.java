package dev.tributary.timely;

/**
 * Where operators are built: a dataflow, or an iterative scope nested in one.
 *
 * <p>Times in a scope have {@link #arity()} coordinates: 1 at the top level, one more per level
 * of nesting. Streams enter a nested scope with {@link Stream#enter} (time {@code t} becomes
 * {@code (t, 0)}) and leave it with {@link Stream#leave} (the inner coordinate is dropped).
 */
public final class Scope {
    final Dataflow dataflow;
    final Scope parent;
    final String name;
    final int arity;

    Scope(Dataflow dataflow, Scope parent, String name, int arity) {
        this.dataflow = dataflow;
        this.parent = parent;
        this.name = name;
        this.arity = arity;
    }

    /** The number of coordinates of this scope's times. */
    public int arity() {
        return arity;
    }

    public String name() {
        return name;
    }

    /** The enclosing scope, or {@code null} at the top level. */
    public Scope parent() {
        return parent;
    }

    /** The index of the worker building this copy of the dataflow. */
    public int worker() {
        return dataflow.worker.index();
    }

    /** The number of workers. */
    public int peers() {
        return dataflow.worker.peers();
    }

    /** A new input whose records the worker's program sends; see {@link InputHandle}. */
    public <C extends Container> InputHandle<C> input(String name, ContainerType<C> type) {
        InputHandle<C> h = new InputHandle<>(this, name, type);
        dataflow.inputs.add(h);
        return h;
    }

    /** A scope nested in this one, whose times have one more coordinate, for loops. */
    public Scope iterative(String name) {
        return new Scope(dataflow, this, name, arity + 1);
    }

    /**
     * A loop edge in this scope: what is {@link Feedback#connect connected} to it comes back out
     * of {@link Feedback#stream()} with its innermost time coordinate increased by
     * {@code increment} (which must be positive).
     */
    public <C extends Container> Feedback<C> feedback(String name, ContainerType<C> type, long increment) {
        Feedback<C> f = new Feedback<>(this, name, type, increment);
        dataflow.feedbacks.add(f);
        return f;
    }

    /**
     * Runs {@code action} when the dataflow is dropped ({@link Worker#dropDataflow}): operators
     * that hold something outside the dataflow (a shared trace's handle, a listener on another
     * dataflow's trace) release it here.
     */
    public void onDrop(Runnable action) {
        dataflow.dropActions.add(action);
    }

    /** The index of this scope's dataflow on its worker, the handle {@link Worker#dropDataflow} takes. */
    public int dataflowIndex() {
        return dataflow.index;
    }

    /**
     * The dataflow's one attachment of type {@code type}, created by {@code create} the first time
     * it is asked for: a place where layers above timely keep per-dataflow records (for example
     * the arrangements a dataflow built) without timely knowing about them. Nested scopes share
     * their dataflow's attachments.
     */
    public <T> T attachment(Class<T> type, java.util.function.Supplier<? extends T> create) {
        return type.cast(dataflow.attachments.computeIfAbsent(type, k -> create.get()));
    }

    /**
     * How many operators this scope's dataflow has so far (nested scopes' included): the next
     * operator built gets this id, and the one just built has this less one.
     */
    public int operatorCount() {
        return dataflow.operators.size();
    }

    /** A builder for an operator with any number of inputs and outputs. */
    public OperatorBuilder operator(String name) {
        return new OperatorBuilder(this, name);
    }

    @Override
    public String toString() {
        return "Scope[" + name + ", arity " + arity + "]";
    }
}
