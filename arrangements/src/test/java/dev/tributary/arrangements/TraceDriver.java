package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Histories.DropSecond;
import dev.tributary.arrangements.Histories.Exert;
import dev.tributary.arrangements.Histories.History;
import dev.tributary.arrangements.Histories.Insert;
import dev.tributary.arrangements.Histories.Logical;
import dev.tributary.arrangements.Histories.Op;
import dev.tributary.arrangements.Histories.Physical;
import dev.tributary.arrangements.Model.Update;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a script against a trace built from a history's sealed batches, through two handles (the
 * one {@link Trace#create} returns and a {@link TraceHandle#share}), and checks every read the
 * handles may still make against the model.
 */
final class TraceDriver {
    /**
     * Bound on {@code exert} calls before a trace that claims more work is declared stuck. A
     * history holds at most a few dozen updates and every exert with fuel does at least one unit
     * of merge work, so a few hundred calls always suffice.
     */
    static final int MAX_EXERTS = 10_000;

    /** Reads are checked after each of the first this many exert calls, and at the end. */
    private static final int CHECKED_EXERTS = 200;

    final History history;
    final List<Update> updates;
    final List<Batch> batches;
    final TraceHandle[] handles = new TraceHandle[2];
    private int next;
    /** What happened so far, for failure messages. */
    final List<String> log = new ArrayList<>();

    TraceDriver(History history) {
        this(history, Spine.EFFORT);
    }

    /** A driver whose trace merges with {@code effort} (see {@link Trace#create(String, Column, Column, int, long)}). */
    TraceDriver(History history, long effort) {
        this.history = history;
        this.updates = history.updates();
        this.batches = Histories.feed(history);
        handles[0] = Trace.create("test", history.keys().column(), history.vals().column(), history.arity(), effort);
        handles[1] = handles[0].share();
    }

    Trace trace() {
        return handles[0].trace();
    }

    boolean hasMoreBatches() {
        return next < batches.size();
    }

    void insertNext() {
        if (next < batches.size()) {
            Batch b = batches.get(next++);
            log.add("insert " + b);
            trace().insert(b);
        }
    }

    void apply(Op op) {
        switch (op) {
            case Insert i -> insertNext();
            case Exert e -> {
                log.add("exert(" + e.fuel() + ")");
                trace().exert(e.fuel());
            }
            case Logical l -> {
                TraceHandle h = handles[l.handle()];
                if (!h.isDropped()) {
                    Antichain f = Histories.advance(h.logicalCompaction(), l.moves());
                    log.add("handle " + l.handle() + " logical " + f);
                    h.setLogicalCompaction(f);
                }
            }
            case Physical p -> {
                TraceHandle h = handles[p.handle()];
                if (!h.isDropped()) {
                    Antichain f = Histories.advance(h.physicalCompaction(), p.moves());
                    log.add("handle " + p.handle() + " physical " + f);
                    h.setPhysicalCompaction(f);
                }
            }
            case DropSecond d -> {
                log.add("drop handle 1");
                handles[1].drop();
            }
        }
    }

    /** Runs the script, checking every read after each step; then inserts what is left, checking after each. */
    void run(List<Op> script) {
        checkReads();
        for (Op op : script) {
            apply(op);
            checkReads();
        }
        while (hasMoreBatches()) {
            insertNext();
            checkReads();
        }
    }

    /** Gives every live handle an empty physical frontier: idle merging may then erase any batch boundary. */
    void releasePhysical() {
        for (TraceHandle h : handles) {
            if (!h.isDropped()) h.setPhysicalCompaction(Antichain.empty(history.arity()));
        }
        log.add("physical released");
    }

    /** Exerts {@code fuel} at a time until the trace reports no more work, checking reads after every call. */
    int exertToCompletion(long fuel) {
        int calls = 0;
        while (true) {
            boolean more = trace().exert(fuel);
            calls++;
            if (calls <= CHECKED_EXERTS || !more) checkReads();
            if (!more) return calls;
            assertThat(calls)
                    .as("trace still claims work after %d exert(%d) calls: %s, batches %s, handles' physical %s and %s, after %s", calls, fuel,
                            trace(), trace().batches(), handles[0].physicalCompaction(),
                            handles[1].isDropped() ? "(dropped)" : handles[1].physicalCompaction(), log)
                    .isLessThan(MAX_EXERTS);
        }
    }

    /** For each live handle and each grid time {@code t} with {@code logical <= t} and {@code t} not beyond the upper: readAt(t) equals the model. */
    void checkReads() {
        for (Batch b : trace().batches()) Model.checkBatch(b, history.keys(), history.vals(), false);
        Antichain upper = trace().upper();
        for (int i = 0; i < handles.length; i++) {
            TraceHandle h = handles[i];
            if (h.isDropped()) continue;
            for (long[] t : history.grid()) {
                if (!h.logicalCompaction().lessEqual(t) || upper.lessEqual(t)) continue;
                assertThat(Model.readAt(h, t, history.keys(), history.vals()))
                        .as("handle %d (logical %s) reads at %s, trace %s, after %s", i, h.logicalCompaction(), Timestamps.toString(t), trace(), log)
                        .isEqualTo(Model.accumulate(updates, t));
            }
        }
    }
}
