package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.CapabilitySet;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OutputPort;
import java.util.List;

/**
 * The write side of an arrangement inside an operator: buffers updates with the capabilities
 * they arrived under, and when told the frontier advanced, seals what became complete into
 * batches, adds them to the trace and sends them downstream.
 *
 * <p>Invariant: it holds one owned capability per minimal time of the buffered updates, and no
 * other. A sealed batch is sent under the capability it retires, so every update in a message
 * is at or after the message's time: capabilities are retired in time order, and the batch
 * retiring capability {@code c} holds what neither the frontier nor a later capability still
 * covers. Used by the arrange operator and by operators that maintain their own output trace
 * (reduce). The trace may be null, to only batch and consolidate. A batch it sends counts on
 * each reader to {@linkplain Batch#release() release} it; until all have, and its trace has
 * merged it away, its arrays are not reused.
 */
public final class TraceWriter {
    private final Batcher batcher;
    private final Trace trace;
    private final OutputPort<ListContainer<Batch>> out;
    private final String opName;
    private final int arity;
    /** Capabilities for the times of buffered updates: an antichain. */
    private final CapabilitySet caps = new CapabilitySet();
    private Antichain sealed;

    public TraceWriter(Batcher batcher, Trace trace, OutputPort<ListContainer<Batch>> out, String opName, int arity) {
        this.batcher = batcher;
        this.trace = trace;
        this.out = out;
        this.opName = opName;
        this.arity = arity;
        this.sealed = Antichain.of(new long[arity]);
    }

    /** Buffers {@code data}, whose updates are all at times {@code >= cap.time()}. */
    /** See {@link Batcher#sealBytes}. */
    public long sealBytes() {
        return batcher.sealBytes();
    }

    /** See {@link Batcher#growthBytes}. */
    public long growthBytes(int incoming) {
        return batcher.growthBytes(incoming);
    }

    public void push(Capability cap, Updates data) {
        batcher.push(data);
        hold(cap);
    }

    /**
     * Buffers {@code data} without a capability of its own: every update in it must be at or
     * after a capability given to {@link #hold} (for operators that write many times at once).
     */
    public void pushBuffered(Updates data) {
        batcher.push(data);
    }

    /** Retains {@code cap} (a copy) until the updates it covers are sealed, unless a held one covers it. */
    public void hold(Capability cap) {
        caps.insert(cap);
    }

    /**
     * Seals from {@code frontier} on, as if it had sealed everything before: for a trace seeded up
     * to there ({@link Seed}). Frontiers not past it are then ignored by {@link #advance}.
     */
    public void resumeAt(Antichain frontier) {
        batcher.resumeAt(frontier);
        sealed = frontier;
    }

    /** The frontier last sealed at. */
    public Antichain sealed() {
        return sealed;
    }

    /** Seals, inserts and sends everything buffered at times not {@code >=} {@code frontier}, if it moved. */
    public void advance(Antichain frontier) {
        // a seeded writer sees its inputs' frontiers start before where it resumed
        if (frontier.equals(sealed) || !sealed.dominates(frontier)) return;
        seal(frontier);
        sealed = frontier;
    }

    private void seal(Antichain frontier) {
        List<Capability> caps = this.caps.sorted();
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
            Antichain.Builder upper = new Antichain.Builder(arity);
            for (int e = 0; e < frontier.size(); e++) upper.insert(frontier.get(e));
            for (int j = i + 1; j < caps.size(); j++) upper.insert(caps.get(j).time());
            Batch batch = batcher.seal(upper.build());
            boolean inTrace = trace != null && !trace.isDropped();
            // every reader gets the batch itself; those that release it let its arrays be reused
            batch.sendTo(out.consumers(), inTrace);
            insert(batch);
            ListContainer<Batch> msg = out.newContainer();
            msg.add(batch);
            out.send(c, msg);
        }
        if (!batcher.lower().equals(frontier)) insert(batcher.seal(frontier));
        this.caps.downgradeTo(batcher.pendingFrontier(), opName);
    }

    private void insert(Batch batch) {
        if (trace != null && !trace.isDropped()) trace.insert(batch);
    }
}
