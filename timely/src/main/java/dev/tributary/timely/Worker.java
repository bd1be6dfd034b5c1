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
     * This worker's copy of dataflow {@code index}: its operators, what each did so far, and its
     * channels (see {@link DataflowGraph}); null for one dropped or never built. Call it on the
     * worker's thread, like everything here.
     */
    public DataflowGraph graph(int index) {
        Dataflow df = index >= 0 && index < dataflows.size() ? dataflows.get(index) : null;
        return df == null ? null : DataflowGraph.of(df);
    }

    /**
     * Dataflow {@code index}'s attachment of type {@code type} (see {@link Scope#attachment}), or
     * null if it has none or the dataflow is dropped: what layers above timely recorded about it,
     * read by introspection.
     */
    public <T> T attachment(int index, Class<T> type) {
        Dataflow df = index >= 0 && index < dataflows.size() ? dataflows.get(index) : null;
        return df == null ? null : type.cast(df.attachments.get(type));
    }

    /** The indexes of the dataflows this worker runs (built and not dropped), in the order built. */
    public List<Integer> dataflowIndexes() {
        List<Integer> out = new ArrayList<>(running.size());
        for (Dataflow df : running) out.add(df.index);
        return out;
    }

    /**
     * Drops every dataflow this worker holds, for a computation that is being shut down: no
     * worker exchanges anything any more, so a dataflow left to {@link #drain} could wait for ever
     * on a peer that has already stopped (one whose dataflow failed at the shutdown, say). What
     * the dataflows held is released as {@link #dropDataflow} releases it.
     */
    public void abandon() {
        for (int d = 0; d < dataflows.size(); d++) {
            if (dataflows.get(d) != null) dropDataflow(d);
        }
    }

    /**
     * One round of work.
     *
     * @return whether anything happened
     * @throws DataflowAbortedException if another worker failed
     */
    public boolean step() {
        try {
            return stepOnce();
        } catch (VirtualMachineError e) {
            // an operator's errors fail only its dataflow (Dataflow.step); this one came from the
            // worker's own routing or progress, which may have lost a message or a change of
            // progress half sent: no dataflow can be trusted to finish any more
            if (lost == null) lost = e;
            throw e;
        }
    }

    /**
     * The error that escaped this worker's own work between operators (routing messages,
     * sharing progress) outside any dataflow's containment, or null: once set, a frontier may
     * never advance again, and whoever runs the worker must stop the computation (a server exits
     * to be restarted) rather than wait on it.
     */
    public Throwable lostState() {
        return lost;
    }

    private Throwable lost;

    private boolean stepOnce() {
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
        // A dataflow that has taken more than its share of this worker lately waits while the
        // others have work; the time of a step is charged to the dataflow that did work in it
        // (with that of any idle ones visited before it: nanoTime is read only after work).
        long now = System.nanoTime();
        boolean deferred = false;
        boolean stepped = false;
        boolean lightStepped = false;
        boolean heavy = false;
        for (int d = 0; d < dataflows.size(); d++) {
            Dataflow df = dataflows.get(d);
            if (df.isComplete()) continue;
            if (df.overShare(now)) {
                deferred = true;
                continue;
            }
            boolean light = df.light(now);
            heavy |= !light;
            if (df.step()) {
                stepped = true;
                lightStepped |= light;
                now = charge(df, now);
            }
        }
        if (lightStepped && (heavy || deferred)) {
            now = stepLight(now);
            // what they did is told before the long computation takes its next slice
            afterLight.run();
        }
        if (!stepped || ++stepsSinceYielded >= YIELD_EVERY) {
            // operators that yielded (OperatorBuilder.yieldActivator) take their turn
            stepsSinceYielded = 0;
            for (int d = 0; d < dataflows.size(); d++) {
                Dataflow df = dataflows.get(d);
                if (df.isComplete() || df.overShare(now)) continue;
                if (df.activateYielded() && df.step()) {
                    stepped = true;
                    now = charge(df, now);
                }
            }
        }
        if (deferred && !stepped) {
            // nothing else to do: those over their share run (and yielded operators with them)
            for (int d = 0; d < dataflows.size(); d++) {
                Dataflow df = dataflows.get(d);
                if (df.isComplete() || !df.overShare(now)) continue;
                df.activateYielded();
                if (df.step()) {
                    stepped = true;
                    now = charge(df, now);
                }
            }
        }
        work |= stepped;
        if (!work || ++stepsSinceIdle >= YIELD_EVERY) {
            // Nothing else happened, or enough steps did: background work (merging) runs. Only in
            // idle steps, a statement that kept the worker busy for seconds kept every other
            // arrangement from merging meanwhile, their batches piling up.
            stepsSinceIdle = 0;
            for (int d = 0; d < dataflows.size(); d++) {
                Dataflow df = dataflows.get(d);
                if (!df.isComplete() && df.activateIdle()) work |= df.step();
            }
        }
        return work;
    }

    /**
     * With a long computation on this worker, light dataflows (a commit's way through the views,
     * a read) step again and again, the other workers' messages taken as they come, until they
     * are quiet for a moment ({@link #LIGHT_QUIET_NANOS}), a command waits, or
     * {@link #LIGHT_ROUNDS_NANOS} passed: a commit then crosses its dataflows' operators and the
     * workers' exchanges without a slice of the long computation at each hop (a read of a view
     * behind a write took 16 ms beside one, 0.7 ms alone). Returns the time now.
     */
    private long stepLight(long now) {
        long until = now + LIGHT_ROUNDS_NANOS;
        long quietSince = now;
        List<Dataflow> dataflows = this.running;
        while (now < until && !commandWaiting.getAsBoolean()) {
            boolean any = false;
            if (fabric.peers > 1) {
                Object o;
                while ((o = fabric.poll(index)) != null) {
                    any = true;
                    route(o);
                }
            }
            for (int d = 0; d < dataflows.size(); d++) {
                Dataflow df = dataflows.get(d);
                if (df.isComplete() || !df.light(now)) continue;
                if (df.step()) {
                    any = true;
                    now = charge(df, now);
                }
            }
            if (any) {
                quietSince = now;
            } else {
                now = System.nanoTime();
                if (now - quietSince > LIGHT_QUIET_NANOS) break;
                Thread.onSpinWait();
            }
        }
        return now;
    }

    private Runnable afterLight = () -> {};

    /** Runs {@code hook} after {@link #stepLight}, before the long computations' turn in the same step: where a server publishes what its indexes have reached. */
    public void afterLightWork(Runnable hook) {
        this.afterLight = hook;
    }

    /** Whether another worker's message or a command waits for this worker. */
    boolean urgent() {
        return (fabric.peers > 1 && fabric.hasMail(index)) || commandWaiting.getAsBoolean();
    }

    /** Whether whoever runs this worker has a command waiting for it (see {@link #commandWaiting(BooleanSupplier)}). */
    private BooleanSupplier commandWaiting = () -> false;

    /** Tells the worker how to learn that a command waits for it: {@link #stepLight} then stops. */
    public void commandWaiting(BooleanSupplier waiting) {
        this.commandWaiting = waiting;
    }

    /** Below this much time over its share, a dataflow is light ({@link Dataflow#light}). */
    static final long LIGHT_NANOS = 200_000L;
    /** The longest {@link #stepLight} runs. */
    static final long LIGHT_ROUNDS_NANOS = 500_000L;
    /** How long {@link #stepLight} waits for more light work (another worker's answer) before it stops. */
    static final long LIGHT_QUIET_NANOS = 30_000L;

    /** Charges the time since {@code since} to {@code df}; the time now. */
    private static long charge(Dataflow df, long since) {
        long now = System.nanoTime();
        df.charge(now - since, now);
        return now;
    }

    /**
     * The share of a worker's time one dataflow may take while others have work (see
     * {@link Dataflow#overShare}); alone, a dataflow takes all of it.
     */
    public static final double BUSY_SHARE = Double.parseDouble(System.getProperty("tributary.busyShare", "0.25"));

    /** How far beyond its share a dataflow may run in one burst before it waits for others' work. */
    public static final long BURST_NANOS = 2_000_000L;

    /** The most a dataflow is owed: one that ran alone for long waits at most about this over the share once others have work. */
    static final long MAX_DEBT_NANOS = 20_000_000L;

    /**
     * At most how many steps with other work pass before the operators that yielded run again:
     * they get at least this share of a busy worker's steps, and all of an otherwise idle one's.
     */
    public static final int YIELD_EVERY = 4;

    /** Steps with work since the operators waiting for an idle step last ran. */
    private int stepsSinceIdle;

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
