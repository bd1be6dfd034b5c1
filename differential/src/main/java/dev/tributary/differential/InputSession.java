package dev.tributary.differential;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Timestamps;

/**
 * Feeds changes into a dataflow as a {@link Collection}: inserts, removals and updates at the
 * session's current time (or at any later time), then {@link #advanceTo} to promise no more
 * changes before a time. Each worker has its own session; the collection is the sum of all.
 */
public final class InputSession<D> {
    private final InputHandle<Updates> handle;
    private final DataType<D> type;
    private final Collection<D> collection;

    private InputSession(Scope scope, String name, DataType<D> type) {
        this.handle = scope.input(name, Collection.containerType(type, scope.arity()));
        this.type = type;
        this.collection = new Collection<>(handle.stream(), type);
        // a seeded dataflow holds everything before its checkpoint: its inputs start there
        dev.tributary.arrangements.Seed seed = dev.tributary.arrangements.Seed.of(scope);
        if (seed.seeded() && seed.from().size() == 1) advanceTo(seed.from().get(0));
    }

    public static <D> InputSession<D> create(Scope scope, String name, DataType<D> type) {
        return new InputSession<>(scope, name, type);
    }

    public Collection<D> collection() {
        return collection;
    }

    /** Adds one copy of {@code data} at the current time. */
    public void insert(D data) {
        update(data, 1);
    }

    /** Removes one copy of {@code data} at the current time. */
    public void remove(D data) {
        update(data, -1);
    }

    /** Changes the count of {@code data} by {@code diff} at the current time. */
    public void update(D data, long diff) {
        updateAt(data, handle.time(), diff);
    }

    /** Changes the count of {@code data} by {@code diff} at {@code time}, which must not be before the current time. */
    public void updateAt(D data, long[] time, long diff) {
        long[] now = handle.time();
        if (!Timestamps.lessEqual(now, time)) {
            throw new IllegalArgumentException("input '" + collection.scope().name() + "' cannot take an update at " + Timestamps.toString(time)
                    + ": the session is at " + Timestamps.toString(now) + " and promised nothing earlier");
        }
        Updates staged = handle.staged();
        type.append(staged.keys(), data);
        ((UnitColumn) staged.vals()).add();
        staged.push(time, diff);
    }

    /**
     * {@link #update} of each of values {@code [from, to)} of {@code values}, a column of the
     * session's type's class (as {@link DataType#newColumn} makes), by {@code diff} at the current
     * time: a bulk load copies its column in ranges, with no object per value.
     */
    public void updateRange(Column values, int from, int to, long diff) {
        long[] time = handle.time();
        // whole containers are made at their size (a staged one grows by doubling: a second copy of a bulk load)
        while (to - from >= InputHandle.BATCH) {
            int n = InputHandle.BATCH;
            Column keys = values instanceof BytesColumn b ? b.emptyLike(n, b.start(from + n) - b.start(from)) : values.emptyLike(n);
            keys.appendRange(values, from, from + n);
            UnitColumn units = new UnitColumn();
            units.add(n);
            Updates whole = new Updates(keys, units, time.length, n);
            whole.pushAll(time, diff, n);
            handle.send(whole);
            from += n;
        }
        while (from < to) {
            Updates staged = handle.staged();
            int n = Math.min(to - from, Math.max(1, InputHandle.BATCH - staged.size()));
            staged.keys().appendRange(values, from, from + n);
            ((UnitColumn) staged.vals()).add(n);
            staged.pushAll(time, diff, n);
            from += n;
        }
    }

    /**
     * Each update {@code [from, to)} of {@code updates} at its own time and with its own diff:
     * its key a value of the session's type in a column of {@link DataType#newColumn}'s class,
     * its time not before the current time. A recovered part, whose updates are at many times in
     * no order, goes in as it is, with no object per value; the times are the caller's to close
     * with {@link #advanceTo} once every part is in.
     *
     * @throws IllegalArgumentException naming the first update before the current time (none of
     *     the range is taken then)
     */
    public void updateAll(Updates updates, int from, int to) {
        long[] now = handle.time();
        long[] times = updates.times();
        int arity = now.length;
        if (updates.arity() != arity) throw new IllegalArgumentException("input '" + collection.scope().name() + "' has times of arity " + arity + ", not " + updates.arity());
        for (int i = from; i < to; i++) {
            boolean ok = true;
            for (int k = 0; k < arity; k++) ok &= now[k] <= times[i * arity + k];
            if (!ok) {
                throw new IllegalArgumentException("input '" + collection.scope().name() + "' cannot take an update at "
                        + Timestamps.toString(java.util.Arrays.copyOfRange(times, i * arity, (i + 1) * arity)) + ": the session is at " + Timestamps.toString(now)
                        + " and promised nothing earlier");
            }
        }
        long[] diffs = updates.diffs();
        while (from < to) {
            Updates staged = handle.staged();
            int n = Math.min(to - from, Math.max(1, InputHandle.BATCH - staged.size()));
            staged.keys().appendRange(updates.keys(), from, from + n);
            ((UnitColumn) staged.vals()).add(n);
            staged.pushAll(java.util.Arrays.copyOfRange(times, from * arity, (from + n) * arity), java.util.Arrays.copyOfRange(diffs, from, from + n), n);
            from += n;
        }
    }

    /**
     * {@link #update} of a {@code long} in a session of {@link DataType#longs()}, with no object
     * made: the change goes into the staged container's column as it is.
     *
     * @throws IllegalStateException if the session's type is not {@link DataType#longs()}
     */
    public void updateLong(long data, long diff) {
        if (!(type instanceof DataType.Longs)) {
            throw new IllegalStateException("updateLong on input '" + collection.scope().name() + "' of " + type + ", not longs; use update(data, diff)");
        }
        Updates staged = handle.staged();
        ((LongColumn) staged.keys()).add(data);
        ((UnitColumn) staged.vals()).add();
        staged.push(handle.time(), diff);
    }

    /** The time changes are made at now. */
    public long[] time() {
        return handle.time();
    }

    /** Promises no more changes at times before {@code time}. */
    public void advanceTo(long[] time) {
        handle.advanceTo(time);
    }

    public void advanceTo(long time) {
        handle.advanceTo(time);
    }

    public void flush() {
        handle.flush();
    }

    /** Promises no more changes at all from this worker. */
    public void close() {
        handle.close();
    }
}
