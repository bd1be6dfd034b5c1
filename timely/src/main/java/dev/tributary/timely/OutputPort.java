package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * An operator's output: sends containers of records at times its capabilities permit.
 *
 * <p>{@link #send} transfers the container to the runtime; take containers to fill from
 * {@link #newContainer()} so that they are recycled rather than allocated.
 */
public final class OutputPort<C extends Container> {
    final OperatorNode operator;
    final int port;
    final int location;
    final ContainerType<C> type;
    final ContainerPool<C> pool;
    final List<Channel<C>> channels = new ArrayList<>();
    private Stream<C> stream;
    private List<Early<C>> beforeBuild;

    private record Early<C>(long[] time, C data) {}

    /** Sends what was sent before the dataflow was built, now that its channels are connected. */
    void sendEarly() {
        if (beforeBuild == null) return;
        List<Early<C>> early = beforeBuild;
        beforeBuild = null;
        for (Early<C> e : early) dispatch(e.time(), e.data());
    }

    OutputPort(OperatorNode operator, int port, int location, ContainerType<C> type) {
        this.operator = operator;
        this.port = port;
        this.location = location;
        this.type = type;
        this.pool = new ContainerPool<>(type, operator.dataflow.worker.index(), operator.dataflow.worker.peers(), operator.dataflow.worker.poolBudget);
    }

    /** The stream of what this output sends. */
    public Stream<C> stream() {
        if (stream == null) stream = new Stream<>(operator.dataflow.scopeOf(operator), this);
        return stream;
    }

    /**
     * The inputs connected to this output (each receives every container sent, the last one the
     * container itself and the others copies of it): a sender of shared records, such as an
     * arrangement's batches, can count on that many readers.
     */
    public int consumers() {
        return channels.size();
    }

    /** Closes this port's pool and its exchange channels' pools (see {@link ContainerPool#close}). */
    void closePools() {
        pool.close();
        for (Channel<C> ch : channels) if (ch instanceof Channel.Exchange<C> ex) ex.closePool();
    }

    /** An empty container to fill and {@link #send}. */
    public C newContainer() {
        return pool.acquire();
    }

    /** An empty container to fill with about {@code records} records and {@link #send}: one made for it has room for them. */
    public C newContainer(int records) {
        return pool.acquire(records);
    }

    /** Sends {@code data} at the capability's time. */
    public void send(Capability capability, C data) {
        check(capability, capability.time);
        dispatch(capability.time, data);
    }

    /** Sends {@code data} at {@code time}, which must be {@code >=} the capability's time. */
    public void send(Capability capability, long[] time, C data) {
        check(capability, time);
        dispatch(time, data);
    }

    private void check(Capability cap, long[] time) {
        if (time.length != operator.arity) Timestamps.checkValid(time, operator.arity, "operator '" + operator.displayName() + "'");
        if (cap.operator != operator || !cap.valid || !Timestamps.lessEqual(cap.time, time)) {
            String why = cap.operator != operator ? "with a capability of operator '" + cap.operator.displayName() + "'"
                    : !cap.valid ? "with a capability that is no longer valid"
                    : "without a capability";
            throw new IllegalStateException("operator '" + operator.displayName() + "' sent at time " + Timestamps.toString(time) + " " + why
                    + "; it holds " + operator.held.frontier() + "; downgrade a capability at or before " + Timestamps.toString(time) + " first");
        }
    }

    void dispatch(long[] time, C data) {
        int n = data.size();
        if (n > 0 && !operator.dataflow.isBuilt()) {
            // sent while the dataflow is still being built (an input fed in its building closure):
            // the consumers are not connected yet, so it waits for them instead of being lost
            if (beforeBuild == null) beforeBuild = new ArrayList<>();
            beforeBuild.add(new Early<>(time.clone(), data));
            return;
        }
        if (n > 0 && DataflowGraph.COUNTING) {
            operator.recordsOut += n;
            operator.messagesOut++;
        }
        if (n == 0 || channels.isEmpty()) {
            pool.release(data, pool.owner);
            return;
        }
        Dataflow df = operator.dataflow;
        if (df.worker.events != null) df.worker.events.messagesSent(df.worker.index(), df.index, operator.id, port, time, n);
        int last = channels.size() - 1;
        for (int i = 0; i < last; i++) {
            C copy = pool.acquire();
            type.appendAll(data, copy);
            channels.get(i).push(time, copy, pool);
        }
        channels.get(last).push(time, data, pool);
    }
}
