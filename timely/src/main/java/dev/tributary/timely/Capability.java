package dev.tributary.timely;

/**
 * Permission for one operator to send data at a time {@code >= time()} on any of its outputs.
 *
 * <p>While a capability is held, no frontier downstream of the operator can pass its time: this is
 * how an operator says "I may still produce output at t". Capabilities are counted in progress
 * tracking, so they must be dropped once no longer needed, or the dataflow never completes.
 * {@link #downgrade} moves a capability to a later time; {@link #delayed} makes another one.
 *
 * <p>A capability passed to an input callback is <em>borrowed</em> from the message being read:
 * valid only during that callback, it may be used to send and to make owned capabilities
 * ({@link #retain}, {@link #delayed}), but not downgraded or dropped. Not thread-safe: a
 * capability belongs to its worker.
 */
public final class Capability {
    final OperatorNode operator;
    long[] time;
    boolean valid;
    final boolean borrowed;

    Capability(OperatorNode operator, long[] time) {
        this.operator = operator;
        this.time = time;
        this.valid = true;
        this.borrowed = false;
    }

    /** A borrowed capability, re-aimed at each message of an input. */
    Capability(OperatorNode operator) {
        this.operator = operator;
        this.borrowed = true;
    }

    /** The time this capability permits sending at (and after). Do not mutate it. */
    public long[] time() {
        return time;
    }

    /** Whether it may still be used. */
    public boolean isValid() {
        return valid;
    }

    /** An owned capability at the same time. */
    public Capability retain() {
        checkValid("retain");
        return operator.acquire(time);
    }

    /** An owned capability at {@code later}, which must be {@code >= time()}. */
    public Capability delayed(long[] later) {
        checkValid("delay");
        if (!Timestamps.isValid(later, operator.arity)) Timestamps.checkValid(later, operator.arity, "operator '" + operator.displayName() + "'");
        if (!Timestamps.lessEqual(time, later)) {
            throw new IllegalArgumentException("operator '" + operator.displayName() + "' cannot delay a capability at "
                    + Timestamps.toString(time) + " to the earlier or incomparable time " + Timestamps.toString(later));
        }
        return operator.acquire(later);
    }

    /** Moves this capability to {@code later}, which must be {@code >= time()}. */
    public void downgrade(long[] later) {
        checkOwned("downgrade");
        if (!Timestamps.isValid(later, operator.arity)) Timestamps.checkValid(later, operator.arity, "operator '" + operator.displayName() + "'");
        if (!Timestamps.lessEqual(time, later)) {
            throw new IllegalArgumentException("operator '" + operator.displayName() + "' cannot downgrade a capability at "
                    + Timestamps.toString(time) + " to the earlier or incomparable time " + Timestamps.toString(later));
        }
        operator.countCapability(later, 1);
        operator.countCapability(time, -1);
        time = later;
    }

    /** arity-1 convenience for {@link #downgrade(long[])}. */
    public void downgrade(long later) {
        downgrade(new long[] {later});
    }

    /** Gives up this capability. Dropping twice is an error. */
    public void drop() {
        checkOwned("drop");
        operator.countCapability(time, -1);
        valid = false;
    }

    private void checkValid(String what) {
        if (!valid) {
            throw new IllegalStateException("operator '" + operator.displayName() + "' tried to " + what + " a capability that is no longer valid"
                    + (borrowed ? " (a borrowed input capability is valid only inside its callback; retain() it to keep it)" : " (it was dropped)"));
        }
    }

    private void checkOwned(String what) {
        checkValid(what);
        if (borrowed) {
            throw new IllegalStateException("operator '" + operator.displayName() + "' tried to " + what
                    + " a borrowed input capability; retain() it to get one of its own");
        }
    }

    @Override
    public String toString() {
        return "Capability[" + operator.displayName() + " @ " + (time == null ? "-" : Timestamps.toString(time)) + (valid ? "" : ", dropped") + "]";
    }
}
