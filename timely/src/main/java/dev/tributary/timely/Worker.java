package dev.tributary.timely;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * One worker thread: it builds every dataflow of the computation and runs its copy of each.
 *
 * <p>A step delivers what other workers sent (data and progress), runs the operators that were
 * scheduled, and shares the progress they made. When a step finds nothing to do, the worker
 * spins, then yields, then parks briefly; a worker that sends to a parked peer wakes it. All
 * methods must be called from the worker's own thread.
 */
public final class Worker {
    private static final int SPINS = 100;
    private static final int YIELDS = 20;
    private static final long MAX_PARK_NANOS = 1_000_000;

    private final int index;
    final Fabric fabric;
    final TimelyEvents events;
    /** What the container pools this worker owns hold, together (see {@link ContainerPool}). */
    final ContainerPool.Budget poolBudget = new ContainerPool.Budget();
    private final Router router;
    /** Every dataflow built here, by index; null once dropped (indexes stay: messages name them). */
    private final List<Dataflow> dataflows = new ArrayList<>();
    /** The dataflows not dropped, in the order built: what a step visits, so dropped ones cost nothing. */
    private final List<Dataflow> running = new ArrayList<>();
    private final Map<Integer, List<Object>> early = new HashMap<>();
    private int idleRounds;

    Worker(int index, Fabric fabric) {
        this.index = index;
        this.fabric = fabric;
        this.events = fabric.events;
        this.router = new Router(fabric.peers);
    }

    /** This worker's index, from 0. */
    public int index() {
        return index;
    }

    /** The number of workers. */
    public int peers() {
        return fabric.peers;
    }

    /** Maps key hashes to owning workers, the same way on every worker. */
    public Router router() {
        return router;
    }

    /**
     * Builds a dataflow: {@code build} adds inputs and operators to the top-level scope, and what
     * it returns (usually probes and input handles) is returned. Every worker must build the same
     * dataflows in the same order. If {@code build} throws, the dataflow's drop actions run and
     * the worker is as it was.
     */
    public <R> R dataflow(String name, Function<Scope, R> build) {
        Dataflow df = new Dataflow(this, dataflows.size(), name);
        R result;
        try {
            result = build.apply(new Scope(df, null, name, 1));
        } catch (RuntimeException | Error e) {
            // what the half-built dataflow registered elsewhere (an import's listener) lets go
            df.drop();
            throw e;
        }
        df.build();
        dataflows.add(df);
        running.add(df);
        List<Object> pending = early.remove(df.index);
        if (pending != null) {
            for (Object o : pending) route(o);
        }
        return result;
    }

    /**
     * Drops dataflow {@code index} (see {@link Scope#dataflowIndex()}): its operators never run
     * again, its inputs are forgotten, its drop actions run, and what it held becomes garbage.
     * Messages still addressed to it are discarded. With several workers, every worker must drop
     * the same dataflow; dropping one that is still exchanging data is for single-worker use or
     * for dataflows whose inputs are all closed.
     */
    public void dropDataflow(int index) {
        if (index < 0 || index >= dataflows.size()) {
            throw new IllegalArgumentException("no dataflow " + index + " on worker " + this.index + " (it has " + dataflows.size() + ")");
        }
        Dataflow df = dataflows.get(index);
        if (df == null) return;
        df.drop();
        dropped.set(index);
        early.remove(index);
        // a transient dataflow per query: what it held, its progress tracker included, must go
        dataflows.set(index, null);
        running.remove(df);
    }

    private final java.util.BitSet dropped = new java.util.BitSet();

    /**
     * One round of work.
     *
     * @return whether anything happened
     * @throws DataflowAbortedException if another worker failed
     */
    public boolean step() {
        Throwable failure = fabric.failure();
        if (failure != null) throw new DataflowAbortedException(failure);
        boolean work = false;
        // Index loops: a step runs several times per round, and profiles showed these iterators allocated.
        List<Dataflow> dataflows = this.running;
        for (int d = 0; d < dataflows.size(); d++) {
            List<InputHandle<?>> inputs = dataflows.get(d).inputs;
            for (int i = 0; i < inputs.size(); i++) {
                InputHandle<?> in = inputs.get(i);
                if (!in.isClosed()) in.flush();
            }
        }
        if (fabric.peers > 1) {
            Object o;
            while ((o = fabric.poll(index)) != null) {
                work = true;
                route(o);
            }
        }
        for (int d = 0; d < dataflows.size(); d++) {
            Dataflow df = dataflows.get(d);
            if (!df.isComplete()) work |= df.step();
        }
        if (!work || ++stepsSinceYielded >= YIELD_EVERY) {
            // operators that yielded (OperatorBuilder.yieldActivator) take their turn
            stepsSinceYielded = 0;
            for (int d = 0; d < dataflows.size(); d++) {
                Dataflow df = dataflows.get(d);
                if (!df.isComplete() && df.activateYielded()) work |= df.step();
            }
        }
        if (!work) {
            // Nothing else happened: now background work may run.
            for (int d = 0; d < dataflows.size(); d++) {
                Dataflow df = dataflows.get(d);
                if (!df.isComplete() && df.activateIdle()) work |= df.step();
            }
        }
        return work;
    }

    /**
     * At most how many steps with other work pass before the operators that yielded run again:
     * they get at least this share of a busy worker's steps, and all of an otherwise idle one's.
     */
    public static final int YIELD_EVERY = 4;

    /** Steps since the operators that yielded last ran. */
    private int stepsSinceYielded;

    /** Another worker's notice that dataflow {@code dataflow} failed there: stop it here too. */
    private record FailureNotice(int dataflow, OperatorFailedException cause) {}

    /**
     * Stops {@code df} for good because {@code cause} (an operator of it threw on this worker),
     * tells the other workers to stop theirs, and reports it to the failure listener.
     */
    void fail(Dataflow df, OperatorFailedException cause) {
        if (df.failure() != null) return;
        df.fail(cause);
        dropped.set(df.index);
        failures++;
        for (int w = 0; w < fabric.peers; w++) {
            if (w != index) fabric.send(w, new FailureNotice(df.index, cause));
        }
        if (failureListener != null) failureListener.accept(df.name, cause);
    }

    private java.util.function.BiConsumer<String, OperatorFailedException> failureListener;

    /**
     * Calls {@code listener} (on this worker's thread) with a dataflow's name and the failure that
     * stopped it, for each dataflow whose operator fails on this worker (see
     * {@link Config#containFailures()}): where a server logs the stack trace.
     */
    public void onDataflowFailure(java.util.function.BiConsumer<String, OperatorFailedException> listener) {
        this.failureListener = listener;
    }

    /** Why dataflow {@code index} stopped, if an operator of it failed on any worker; else null. */
    public DataflowFailedException dataflowFailure(int index) {
        Dataflow df = index < dataflows.size() ? dataflows.get(index) : null;
        return df != null ? df.failure() : null;
    }

    /** How many dataflows have failed on this worker so far: what a caller compares to learn whether to look for new failures. */
    public int failures() {
        return failures;
    }

    private int failures;

    private void route(Object o) {
        if (o instanceof FailureNotice n) {
            if (n.dataflow() >= dataflows.size()) early.computeIfAbsent(n.dataflow(), k -> new ArrayList<>()).add(o);
            else if (dataflows.get(n.dataflow()) != null) {
                dataflows.get(n.dataflow()).fail(n.cause());
                dropped.set(n.dataflow());
                failures++;
            }
            return;
        }
        int d = o instanceof Message m ? m.dataflow : ((ProgressBatch) o).dataflow();
        if (d >= dataflows.size()) {
            early.computeIfAbsent(d, k -> new ArrayList<>()).add(o);
            return;
        }
        if (dropped.get(d)) return;
        Dataflow df = dataflows.get(d);
        if (o instanceof Message m) df.receive(m);
        else df.receive((ProgressBatch) o);
    }

    /**
     * Sleeps for at most {@code nanos}, returning early when another worker sends this one
     * something or this thread is unparked: how a loop that also takes commands from elsewhere
     * idles (its senders unpark the worker's thread) without missing the other workers' messages.
     */
    public void park(long nanos) {
        fabric.park(index, nanos);
    }

    /** Steps, idling when there is nothing to do, while {@code condition} holds. */
    public void stepWhile(BooleanSupplier condition) {
        while (condition.getAsBoolean()) {
            if (step()) idleRounds = 0;
            else idle();
        }
    }

    /** How many dataflows this worker holds (built and not dropped): what each step visits. */
    public int dataflowsHeld() {
        return running.size();
    }

    /** Whether every dataflow built on this worker has completed. */
    public boolean isIdle() {
        for (Dataflow df : running) {
            if (!df.isComplete()) return false;
        }
        return true;
    }

    /** Closes this worker's inputs and steps until all its dataflows complete. */
    public void drain() {
        for (Dataflow df : running) {
            for (InputHandle<?> in : df.inputs) in.close();
        }
        stepWhile(() -> !isIdle());
    }

    private void idle() {
        idleRounds++;
        if (idleRounds <= SPINS) {
            Thread.onSpinWait();
        } else if (idleRounds <= SPINS + YIELDS) {
            Thread.yield();
        } else {
            fabric.park(index, MAX_PARK_NANOS);
        }
    }
}
