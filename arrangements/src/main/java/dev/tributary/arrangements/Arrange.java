package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OperatorLogic;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import dev.tributary.timely.Timestamps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The arrange operator, and importing an arrangement into another dataflow.
 *
 * <p>{@link #arrange} routes updates by key hash to the worker that owns them, buffers them in a
 * {@link Batcher}, and each time the input frontier advances seals what became complete into a
 * batch, which it adds to the worker's {@link Trace} and sends downstream. It holds capabilities
 * only for the times of updates still buffered. Between inputs it keeps merging the trace (a
 * bounded amount per activation) until the trace is compact.
 */
public final class Arrange {
    private Arrange() {}


    /** An arrangement: the stream of its batches and a handle to this worker's trace. */
    public record Arranged(Stream<ListContainer<Batch>> batches, TraceHandle trace) {}

    /**
     * Arranges {@code updates} (whose columns are like {@code keyProto} and {@code valProto}).
     * The returned handle reads from the least time on until the caller advances or drops it.
     */
    public static Arranged arrange(Stream<Updates> updates, String name, Column keyProto, Column valProto) {
        return arrange(updates, name, keyProto, valProto, Trace.EFFORT);
    }

    /**
     * {@link #arrange(Stream, String, Column, Column)} into a trace whose merges get
     * {@code effort} units of work per inserted update at each level ({@link Trace#UNFUELED}:
     * every merge completes as it begins, so the trace consolidates at once; for tests and
     * measurements).
     */
    public static Arranged arrange(Stream<Updates> updates, String name, Column keyProto, Column valProto, long effort) {
        Scope scope = updates.scope();
        int arity = scope.arity();
        OperatorBuilder b = scope.operator("arrange:" + name);
        InputPort<Updates> in = b.input(updates, Pact.exchange());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        Seed seed = Seed.of(scope);
        TraceHandle handle = seed.trace(scope, name, keyProto, valProto, arity, effort);
        HeldState held = HeldState.of(scope);
        TraceHandle own = handle.share();
        Batcher batcher = new Batcher(keyProto, valProto, arity);
        held.buffer(b.displayName(), batcher::heapBytes);
        TraceWriter writer = new TraceWriter(batcher, handle.trace(), out, b.displayName(), arity);
        if (seed.seeded()) writer.resumeAt(seed.from());
        Runnable idle = b.idleActivator();
        handle.trace().onCompactionMoved(idle);
        b.build(new ArrangeLogic(in, writer, handle.trace(), own, idle, held));
        return new Arranged(out.stream(), handle);
    }

    /**
     * Brings an arrangement of this worker into {@code scope}, a dataflow built later: the stream
     * first carries the trace's existing batches, then every new one, and its frontier follows
     * the trace's upper. Nothing is copied. The returned handle is a new share of the trace.
     */
    public static Arranged importTrace(TraceHandle source, Scope scope, String name) {
        if (scope.arity() != source.trace().arity()) {
            throw new IllegalArgumentException("trace '" + source.trace().name() + "' has times of arity " + source.trace().arity()
                    + " but scope '" + scope.name() + "' has arity " + scope.arity());
        }
        Seed seed = Seed.of(scope);
        Trace trace = source.trace();
        Antichain existingUpper = trace.upper();
        if (seed.seeded() && !seed.from().dominates(existingUpper)) {
            throw new Seed.Mismatch("trace '" + trace.name() + "' is complete only up to " + existingUpper + ", before the checkpoint's " + seed.from());
        }
        // A seeded dataflow has decided every time before its checkpoint and decides the rest from
        // the trace as it is from there on: its reduces read it at each time from the checkpoint's
        // on, its joins read it through the checkpoint's boundary. So its import's handle (which
        // every reader's share copies) reads from the checkpoint, logically and physically, not
        // from where the source's handle got to: that may be past it (a restored table takes the
        // log after the checkpoint before the views over it are restored), and then, once nothing
        // else held the trace there, its updates after the checkpoint were advanced past the times
        // the seeded operators decide, and a seeded reduce's output went wrong.
        if (seed.seeded() && !trace.since().dominates(seed.from())) {
            throw new Seed.Mismatch("trace '" + trace.name() + "' was compacted to " + trace.since() + ", past the checkpoint's " + seed.from());
        }
        // The replayed batches end at the trace's upper, and a join downstream reads the other
        // side through the boundaries it has received: the import's handle (and every share a
        // reader takes of it) keeps that boundary, though the source may need none (a server's
        // read handle), or merges would erase it while the join catches up.
        TraceHandle handle = seed.seeded() ? source.shareFrom(seed.from()) : source.shareHoldingUpper();
        OperatorBuilder b = scope.operator("import:" + name);
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        Runnable activate = b.activator();
        ArrayDeque<Batch> arrived = new ArrayDeque<>();
        Hydration hydration = Hydration.of(scope);
        Trace.BatchListener listener = batch -> {
            if (!hydration.finished()) hydration.addTotal(batch.updateCount());
            arrived.add(batch);
            activate.run();
        };
        trace.addListener(listener);
        scope.onDrop(() -> {
            trace.removeListener(listener);
            handle.drop();
        });
        // replayed downstream, where readers may keep them: never to be recycled by the trace
        // emptied once sent (see toReplay below): what the logic captures must not pin them
        List<Batch> all = new ArrayList<>(Batch.share(trace.batches()));
        List<Batch> existing = seed.seeded() ? after(all, seed.from(), trace.name()) : all;
        long existingUpdates = 0;
        for (Batch batch : existing) existingUpdates += batch.updateCount();
        hydration.addTotal(existingUpdates);
        b.build(initial -> new OperatorLogic() {
            Capability cap = initial;
            boolean started;

            @Override
            public void schedule() {
                if (cap == null) return;
                if (!started) {
                    started = true;
                    // In a seeded dataflow everything sent lies at or after the checkpoint: sent
                    // under the least time, it kept an arrange downstream (its writer resumed at
                    // the checkpoint, which seals and lets its capabilities go only once its input
                    // frontier passes there) holding a capability before the checkpoint, and the
                    // dataflow's frontier there, until the inputs moved past the checkpoint.
                    if (seed.seeded()) downgradeTo(seed.from());
                    // Empty ones too: a reader that acknowledges what it received (a join) must
                    // reach existingUpper, which the handle holds, not an earlier boundary the
                    // trace may merge away.
                    send(existing, true);
                    // Kept, they would keep alive the batches the source's merges have since
                    // replaced: a second copy of a table for as long as a view over it lived.
                    existing.clear();
                    downgradeTo(existingUpper);
                }
                List<Batch> fresh = new ArrayList<>(arrived);
                arrived.clear();
                if (!fresh.isEmpty()) {
                    send(fresh, false);
                    downgradeTo(fresh.get(fresh.size() - 1).upper());
                }
            }

            private void send(List<Batch> batches, boolean withEmpty) {
                ListContainer<Batch> msg = out.newContainer();
                for (Batch batch : batches) {
                    if (withEmpty || !batch.isEmpty()) msg.add(batch);
                }
                out.send(cap, msg);
            }

            private void downgradeTo(Antichain upper) {
                if (upper.isEmpty()) {
                    cap.drop();
                    cap = null;
                    trace.removeListener(listener);
                    return;
                }
                long[] meet = upper.get(0);
                for (int i = 1; i < upper.size(); i++) meet = Timestamps.meet(meet, upper.get(i));
                if (Timestamps.lessThan(cap.time(), meet)) cap.downgrade(meet);
            }
        });
        return new Arranged(out.stream(), handle);
    }

    /**
     * For an import into a dataflow seeded up to {@code from}: what of {@code batches} (a trace's,
     * oldest first) lies at or after {@code from}, the rest being in the seeds already. The first
     * batch returned starts at {@code from}, so a join reading the trace through {@code from}
     * finds the boundary there.
     */
    private static List<Batch> after(List<Batch> batches, Antichain from, String trace) {
        List<Batch> out = new ArrayList<>();
        for (Batch b : batches) {
            if (from.dominates(b.lower())) {
                out.add(b);
            } else if (!b.upper().dominates(from)) {
                // across from: its times before from must not have been advanced to it
                if (from.dominates(b.since())) {
                    throw new Seed.Mismatch("trace '" + trace + "' was compacted to " + b.since() + ", past the checkpoint's " + from);
                }
                out.add(BatchCodec.from(b, from));
            }
        }
        if (!out.isEmpty() && !out.get(0).lower().equals(from)) {
            throw new Seed.Mismatch("trace '" + trace + "' has no boundary at the checkpoint's " + from + " to import from");
        }
        return out;
    }

    /**
     * Sorts and consolidates {@code updates} by frontier into batches, without keeping a trace:
     * each batch holds the updates that became complete, exchanged by key hash.
     */
    public static Stream<ListContainer<Batch>> batch(Stream<Updates> updates, String name, Column keyProto, Column valProto) {
        Scope scope = updates.scope();
        OperatorBuilder b = scope.operator("batch:" + name);
        InputPort<Updates> in = b.input(updates, Pact.exchange());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        TraceWriter writer = new TraceWriter(new Batcher(keyProto, valProto, scope.arity()), null, out, b.displayName(), scope.arity());
        b.build(() -> {
            in.forEach(writer::push);
            writer.advance(in.frontier());
        });
        return out.stream();
    }

    /** The arrange operator's logic: batch, seal on frontier changes, insert, send, keep merging. */
    private static final class ArrangeLogic implements OperatorLogic {
        private final InputPort<Updates> in;
        private final TraceWriter writer;
        private final Trace trace;
        private final TraceHandle own;
        /** Schedules the operator again at a step where the worker is otherwise idle: merging is background work. */
        private final Runnable activate;
        /** What the dataflow holds, checked against its limit after each input. */
        private final HeldState held;

        ArrangeLogic(InputPort<Updates> in, TraceWriter writer, Trace trace, TraceHandle own, Runnable activate, HeldState held) {
            this.in = in;
            this.held = held;
            this.writer = writer;
            this.trace = trace;
            this.own = own;
            this.activate = activate;
            this.push = (cap, data) -> {
                // a growth of the buffer allocates new arrays while still holding the old ones:
                // checked first, a runaway build fails on its limit instead of the heap's
                if (held.limited()) {
                    long growth = writer.growthBytes(data.size());
                    if (growth > 0) held.check(growth);
                }
                writer.push(cap, data);
            };
        }

        /** Made once, not per activation. */
        private final InputPort.MessageConsumer<Updates> push;

        @Override
        public void schedule() {
            boolean received = in.forEach(push);
            if (received && held.limited()) held.check();
            Antichain frontier = in.frontier();
            if (!frontier.equals(writer.sealed()) && writer.sealed().dominates(frontier)) {
                // a seal allocates a batch as large as what it seals, and the sort's scratch
                if (held.limited()) held.check(writer.sealBytes());
                writer.advance(frontier);
                if (!own.isDropped()) {
                    own.setLogicalCompaction(frontier);
                    own.setPhysicalCompaction(frontier);
                    if (frontier.isEmpty()) own.drop();
                }
            }
            if (!trace.isDropped() && trace.exert(Trace.IDLE_FUEL)) activate.run();
        }
    }
}
