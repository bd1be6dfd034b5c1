package dev.tributary.timely;

/**
 * Where a worker's program feeds records into a dataflow.
 *
 * <p>The handle holds a capability at its current time: records given now are sent at that time,
 * and no frontier downstream passes it until the handle {@link #advanceTo advances} or is
 * {@link #close closed}. Times only move forward. Each worker has its own handle for the same
 * input; a worker with nothing to send still advances (or closes) its handle, since frontiers
 * wait for every worker. Use a handle only from its worker's thread.
 *
 * <p>Records are staged in a container and sent when it holds {@link #BATCH} records, when the
 * time advances, and at every worker step.
 */
public final class InputHandle<C extends Container> {
    /** Records staged before a container is sent on its own. */
    public static final int BATCH = 1024;

    private final Scope scope;
    private final String name;
    private final OutputPort<C> output;
    private final OperatorNode op;
    private final Capability capability;
    private C staged;

    InputHandle(Scope scope, String name, ContainerType<C> type) {
        this.scope = scope;
        this.name = name;
        OperatorBuilder b = scope.operator(name);
        this.output = b.output(type);
        this.op = b.node();
        Capability[] initial = new Capability[1];
        b.build(cap -> {
            initial[0] = cap;
            return null;
        });
        this.capability = initial[0];
    }

    /** The records of this input. */
    public Stream<C> stream() {
        return output.stream();
    }

    /** The time records given now are sent at. */
    public long[] time() {
        checkOpen("read the time of");
        return capability.time();
    }

    /**
     * The container staged at the current time, to append records to. Sent when full, at the next
     * {@link #advanceTo}, {@link #flush} or worker step; do not keep it across those.
     */
    public C staged() {
        checkOpen("send to");
        if (staged != null && staged.size() >= BATCH) flush();
        if (staged == null) staged = output.newContainer();
        return staged;
    }

    /** Sends a whole container at the current time; the handle takes ownership of it. */
    public void send(C data) {
        checkOpen("send to");
        flush();
        output.dispatch(capability.time(), data);
    }

    /** Sends what is staged now. */
    public void flush() {
        if (staged != null && staged.size() > 0) {
            C s = staged;
            staged = null;
            output.dispatch(capability.time(), s);
        }
    }

    /** Moves to {@code time}: no record at an earlier time will come from this worker's handle. */
    public void advanceTo(long[] time) {
        checkOpen("advance");
        if (!Timestamps.isValid(time, scope.arity)) Timestamps.checkValid(time, scope.arity, "input '" + name + "'");
        if (!Timestamps.lessEqual(capability.time(), time)) {
            throw new IllegalArgumentException("input '" + name + "' cannot advance from " + Timestamps.toString(capability.time())
                    + " back to " + Timestamps.toString(time) + "; input times only move forward");
        }
        if (java.util.Arrays.equals(time, capability.time())) return;
        flush();
        capability.downgrade(time);
    }

    /** arity-1 convenience for {@link #advanceTo(long[])}. */
    public void advanceTo(long time) {
        advanceTo(new long[] {time});
    }

    /** Sends what is staged and gives up the capability: this worker's part of the input is complete. Idempotent. */
    public void close() {
        if (!capability.isValid()) return;
        flush();
        capability.drop();
    }

    public boolean isClosed() {
        return !capability.isValid();
    }

    private void checkOpen(String what) {
        if (!capability.isValid()) {
            throw new IllegalStateException("input '" + name + "' (" + op.displayName() + ") is closed; cannot " + what + " it");
        }
    }
}
