package dev.tributary.timely;

import java.util.ArrayDeque;

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
    private final ArrayDeque<Message> queue = new ArrayDeque<>();
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
        Message m;
        while ((m = queue.pollFirst()) != null) {
            if (!frontier.lessEqual(m.time)) {
                throw new IllegalStateException("progress violated: operator '" + operator.displayName() + "' input " + port
                        + " received a message at " + Timestamps.toString(m.time) + " while its frontier is " + frontier);
            }
            borrowed.time = m.time;
            borrowed.valid = true;
            try {
                consumer.accept(borrowed, (C) m.data);
            } finally {
                borrowed.valid = false;
                borrowed.time = null;
            }
            df.changes.update(location, m.time, -1);
            if (m.home != null) m.home.release(m.data, worker);
        }
        return true;
    }

    void deliver(Message m) {
        queue.addLast(m);
        operator.dataflow.activate(operator.id);
    }
}
