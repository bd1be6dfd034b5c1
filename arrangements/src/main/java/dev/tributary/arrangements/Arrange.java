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

    /** Merge work an arrange operator does per activation when it has nothing else to do. */
    static final long IDLE_FUEL = 1 << 16;

    /** An arrangement: the stream of its batches and a handle to this worker's trace. */
    public record Arranged(Stream<ListContainer<Batch>> batches, TraceHandle trace) {}

    /**
     * Arranges {@code updates} (whose columns are like {@code keyProto} and {@code valProto}).
     * The returned handle reads from the least time on until the caller advances or drops it.
     */
    public static Arranged arrange(Stream<Updates> updates, String name, Column keyProto, Column valProto) {
        Scope scope = updates.scope();
        int arity = scope.arity();
        OperatorBuilder b = scope.operator("arrange:" + name);
        InputPort<Updates> in = b.input(updates, Pact.exchange());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        TraceHandle handle = Trace.create(name, keyProto, valProto, arity);
        TraceHandle own = handle.share();
        Batcher batcher = new Batcher(keyProto, valProto, arity);
        b.build(new ArrangeLogic(in, out, batcher, handle.trace(), own, b.activator(), b.displayName(), arity));
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
        TraceHandle handle = source.share();
        Trace trace = handle.trace();
        OperatorBuilder b = scope.operator("import:" + name);
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        Runnable activate = b.activator();
        ArrayDeque<Batch> arrived = new ArrayDeque<>();
        Trace.BatchListener listener = batch -> {
            arrived.add(batch);
            activate.run();
        };
        trace.addListener(listener);
        List<Batch> existing = trace.batches();
        b.build(initial -> new OperatorLogic() {
            Capability cap = initial;
            boolean started;

            @Override
            public void schedule() {
                if (cap == null) return;
                if (!started) {
                    started = true;
                    send(existing);
                    downgradeTo(trace.upper());
                }
                List<Batch> fresh = new ArrayList<>(arrived);
                arrived.clear();
                if (!fresh.isEmpty()) {
                    send(fresh);
                    downgradeTo(fresh.get(fresh.size() - 1).upper());
                }
            }

            private void send(List<Batch> batches) {
                ListContainer<Batch> msg = out.newContainer();
                for (Batch batch : batches) {
                    if (!batch.isEmpty()) msg.add(batch);
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

    /** The arrange operator's logic: batch, seal on frontier changes, insert, send, keep merging. */
    private static final class ArrangeLogic implements OperatorLogic {
        private final InputPort<Updates> in;
        private final OutputPort<ListContainer<Batch>> out;
        private final Batcher batcher;
        private final Trace trace;
        private final TraceHandle own;
        private final Runnable activate;
        private final String opName;
        private final int arity;
        /** Capabilities for the times of buffered updates: an antichain. */
        private final List<Capability> caps = new ArrayList<>();

        ArrangeLogic(InputPort<Updates> in, OutputPort<ListContainer<Batch>> out, Batcher batcher, Trace trace, TraceHandle own,
                Runnable activate, String opName, int arity) {
            this.in = in;
            this.out = out;
            this.batcher = batcher;
            this.trace = trace;
            this.own = own;
            this.activate = activate;
            this.opName = opName;
            this.arity = arity;
            this.sealed = Antichain.of(new long[arity]);
        }

        private Antichain sealed;

        @Override
        public void schedule() {
            in.forEach((cap, data) -> {
                batcher.push(data);
                for (Capability c : caps) {
                    if (Timestamps.lessEqual(c.time(), cap.time())) return;
                }
                caps.removeIf(c -> {
                    if (Timestamps.lessEqual(cap.time(), c.time())) {
                        c.drop();
                        return true;
                    }
                    return false;
                });
                caps.add(cap.retain());
            });
            Antichain frontier = in.frontier();
            if (!frontier.equals(sealed)) {
                seal(frontier);
                sealed = frontier;
                if (!own.isDropped()) {
                    own.setLogicalCompaction(frontier);
                    own.setPhysicalCompaction(frontier);
                    if (frontier.isEmpty()) own.drop();
                }
            }
            if (!trace.isDropped() && trace.exert(IDLE_FUEL)) activate.run();
        }

        private void seal(Antichain frontier) {
            caps.sort((x, y) -> Timestamps.compare(x.time(), y.time()));
            boolean anyComplete = false;
            for (Capability c : caps) {
                if (!frontier.lessEqual(c.time())) anyComplete = true;
            }
            if (!anyComplete) {
                // Nothing buffered is complete, but the trace's upper still advances.
                insert(batcher.seal(frontier));
                return;
            }
            for (int i = 0; i < caps.size(); i++) {
                Capability c = caps.get(i);
                if (frontier.lessEqual(c.time())) continue;
                // Retire capabilities one at a time: this batch holds what the input
                // frontier and the later capabilities no longer cover.
                Antichain.Builder upper = new Antichain.Builder(arity);
                for (int e = 0; e < frontier.size(); e++) upper.insert(frontier.get(e));
                for (int j = i + 1; j < caps.size(); j++) upper.insert(caps.get(j).time());
                Batch batch = batcher.seal(upper.build());
                insert(batch);
                ListContainer<Batch> msg = out.newContainer();
                msg.add(batch);
                out.send(c, msg);
            }
            if (!batcher.lower().equals(frontier)) insert(batcher.seal(frontier));
            Antichain pending = batcher.pendingFrontier();
            List<Capability> next = new ArrayList<>();
            for (int e = 0; e < pending.size(); e++) {
                long[] t = pending.get(e);
                Capability holder = null;
                for (Capability c : caps) {
                    if (Timestamps.lessEqual(c.time(), t)) {
                        holder = c;
                        break;
                    }
                }
                if (holder == null) {
                    throw new IllegalStateException("operator '" + opName + "' holds no capability for buffered updates at " + Timestamps.toString(t));
                }
                next.add(holder.delayed(t));
            }
            for (Capability c : caps) c.drop();
            caps.clear();
            caps.addAll(next);
        }

        private void insert(Batch batch) {
            if (!trace.isDropped()) trace.insert(batch);
        }
    }
}
