package dev.tributary.timely;

/**
 * An operator's input: the messages that have arrived, and the frontier of times that may still
 * arrive.
 *
 * <p>Invariant, checked on every message: a message's time is {@code >=} some element of the
 * frontier when it is read. The frontier only moves forward.
 */
public final class InputPort<C extends Container> {
    /** Receives one message: its time as a borrowed capability, and its records. */
    @FunctionalInterface
    public interface MessageConsumer<C> {
        void accept(Capability capability, C data);
    }

    final OperatorNode operator;
    final int port;
    final int location;
    private final MessageQueue queue = new MessageQueue();
    private final Capability borrowed;
    Antichain frontier;

    InputPort(OperatorNode operator, int port, int location, int arity) {
        this.operator = operator;
        this.port = port;
        this.location = location;
        this.borrowed = new Capability(operator);
        this.frontier = Antichain.of(Timestamps.minimum(arity));
    }

    /** Times that may still arrive on this input: none that is not {@code >=} some element. */
    public Antichain frontier() {
        return frontier;
    }

    public boolean hasMessages() {
        return !queue.isEmpty();
    }

    /**
     * Hands every waiting message to {@code consumer}, in arrival order. The container belongs to
     * the runtime again once the consumer returns.
     *
     * @return whether there was any message
     */
    @SuppressWarnings("unchecked")
    public boolean forEach(MessageConsumer<? super C> consumer) {
        if (queue.isEmpty()) return false;
        Dataflow df = operator.dataflow;
        int worker = df.worker.index();
        // The message is taken off the queue before the consumer runs: what it sends may come
        // back to this input, behind the others, and this same loop reads it.
        while (!queue.isEmpty()) {
            long[] time = queue.peekTime();
            Container d = queue.peekData();
            ContainerPool<?> home = queue.peekHome();
            queue.pop();
            if (!frontier.lessEqual(time)) {
                throw new IllegalStateException("progress violated: operator '" + operator.displayName() + "' input " + port
                        + " received a message at " + Timestamps.toString(time) + " while its frontier is " + frontier);
            }
            if (DataflowGraph.COUNTING) {
                operator.recordsIn += d.size();
                operator.messagesIn++;
            }
            borrowed.time = time;
            borrowed.valid = true;
            try {
                consumer.accept(borrowed, (C) d);
            } finally {
                borrowed.valid = false;
                borrowed.time = null;
            }
            df.changes.update(location, time, -1);
            if (home != null) home.release(d, worker);
        }
        return true;
    }

    /** Queues a message from another worker. */
    void deliver(Message m) {
        deliver(m.time, m.data, m.home);
    }

    /** Queues {@code d} at {@code time}; {@code home} (or {@code null}) takes the container back once it is read. */
    void deliver(long[] time, Container d, ContainerPool<?> home) {
        queue.push(time, d, home);
        operator.dataflow.activate(operator.id);
    }
}
