package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * One worker's copy of one dataflow: its operators, channels, pending progress and tracker.
 *
 * <p>Every worker builds the same dataflows in the same order, so operator {@code i} of dataflow
 * {@code d} names the same logical operator on every worker.
 */
final class Dataflow {
    final Worker worker;
    final int index;
    final String name;
    final List<OperatorNode> operators = new ArrayList<>();
    final List<ProgressTracker.Location> locations = new ArrayList<>();
    final List<int[]> edges = new ArrayList<>();
    final List<Scope> operatorScopes = new ArrayList<>();
    final List<InputHandle<?>> inputs = new ArrayList<>();
    final List<Feedback<?>> feedbacks = new ArrayList<>();
    final ChangeBatch changes = new ChangeBatch();
    ProgressTracker tracker;
    private boolean[] active = new boolean[8];
    private int activeCount;
    private boolean built;
    private boolean complete;
    final List<Runnable> dropActions = new ArrayList<>();
    final java.util.Map<Class<?>, Object> attachments = new java.util.HashMap<>();

    Dataflow(Worker worker, int index, String name) {
        this.worker = worker;
        this.index = index;
        this.name = name;
    }

    OperatorNode newOperator(Scope scope, String name, int arity) {
        if (built) throw new IllegalStateException("dataflow '" + this.name + "' is already built; operators are added only inside worker.dataflow(...)");
        OperatorNode op = new OperatorNode(this, operators.size(), name, arity);
        operators.add(op);
        operatorScopes.add(scope);
        return op;
    }

    int newLocation(int operator, int port, boolean source, int arity) {
        locations.add(new ProgressTracker.Location(operator, port, source, arity));
        edges.add(new int[0]);
        return locations.size() - 1;
    }

    void addEdge(int source, int target) {
        int[] e = edges.get(source);
        int[] n = java.util.Arrays.copyOf(e, e.length + 1);
        n[e.length] = target;
        edges.set(source, n);
    }

    Scope scopeOf(OperatorNode op) {
        return operatorScopes.get(op.id);
    }

    /** Computes reachability, counts every worker's initial capabilities, and schedules each operator once. */
    void build() {
        for (Feedback<?> f : feedbacks) {
            if (!f.connected()) {
                throw new IllegalStateException("dataflow '" + name + "': feedback '" + f.name() + "' was never connected; call connect(stream) to close the loop");
            }
        }
        int n = locations.size();
        int[][] edgeArray = edges.toArray(new int[0][]);
        int[][] internalSources = new int[n][];
        PathSummary[][] internalSummaries = new PathSummary[n][];
        List<String> names = new ArrayList<>();
        for (OperatorNode op : operators) names.add(op.displayName());
        for (int l = 0; l < n; l++) {
            internalSources[l] = new int[0];
            internalSummaries[l] = new PathSummary[0];
        }
        for (OperatorNode op : operators) {
            for (int i = 0; i < op.inputs.size(); i++) {
                List<Integer> srcs = new ArrayList<>();
                List<PathSummary> sums = new ArrayList<>();
                for (int o = 0; o < op.outputs.size(); o++) {
                    PathSummary s = op.summaries.get(i).get(o);
                    if (s != null) {
                        srcs.add(op.outputs.get(o).location);
                        sums.add(s);
                    }
                }
                int loc = op.inputs.get(i).location;
                internalSources[loc] = srcs.stream().mapToInt(Integer::intValue).toArray();
                internalSummaries[loc] = sums.toArray(new PathSummary[0]);
            }
        }
        tracker = new ProgressTracker(locations, edgeArray, internalSources, internalSummaries, names);
        // Every worker starts with the same capabilities; count all of them here, so that no
        // worker can see a frontier pass a peer's initial capability before hearing from it.
        for (OperatorNode op : operators) {
            if (op.initialCapability == null) continue;
            for (OutputPort<?> o : op.outputs) tracker.update(o.location, op.initialCapability, worker.peers());
        }
        built = true;
        tracker.drainChanged((target, frontier) -> {});
        for (OperatorNode op : operators) {
            for (InputPort<?> in : op.inputs) in.frontier = tracker.frontier(in.location);
        }
        active = new boolean[Math.max(1, operators.size())];
        activeCount = 0;
        for (int i = 0; i < operators.size(); i++) activate(i);
        for (OperatorNode op : operators) {
            for (OutputPort<?> o : op.outputs) o.sendEarly();
        }
    }

    boolean isBuilt() {
        return built;
    }

    boolean isComplete() {
        return complete;
    }

    /** Why this dataflow stopped, if an operator failed (see {@link Config#containFailures()}); else null. */
    private volatile DataflowFailedException failure;

    DataflowFailedException failure() {
        return failure;
    }

    /** Stops this dataflow for good because of {@code cause}: it is dropped, and its probes throw. */
    void fail(OperatorFailedException cause) {
        if (failure != null) return;
        failure = new DataflowFailedException(name, cause);
        drop();
    }

    /** Stops the dataflow for good: it is complete from now on, and its drop actions run once. */
    void drop() {
        if (complete && dropActions.isEmpty()) return;
        complete = true;
        activeCount = 0;
        java.util.Arrays.fill(active, false);
        whenIdle.clear();
        yielded.clear();
        List<Runnable> actions = new ArrayList<>(dropActions);
        dropActions.clear();
        for (Runnable r : actions) r.run();
        for (OperatorNode op : operators) {
            for (OutputPort<?> out : op.outputs) out.closePools();
        }
        operators.clear();
        inputs.clear();
        // the worker keeps a dropped dataflow's slot; what hangs off it (traces counted in its
        // attachments, say) must not stay reachable through it
        attachments.clear();
    }

    void activate(int operator) {
        if (operator >= active.length) active = java.util.Arrays.copyOf(active, Math.max(operator + 1, active.length * 2));
        if (!active[operator]) {
            active[operator] = true;
            activeCount++;
        }
    }

    /** Operators waiting for a step in which the worker has nothing else to do. */
    private final java.util.BitSet whenIdle = new java.util.BitSet();

    void activateWhenIdle(int operator) {
        whenIdle.set(operator);
    }

    /**
     * The worker time this dataflow has taken beyond its share, in nanoseconds: what it was
     * {@link #charge charged} for its steps, less {@link Worker#BUSY_SHARE} of the time passed
     * (never below zero, never above {@link Worker#MAX_DEBT_NANOS}). Past {@link Worker#BURST_NANOS} it waits while other dataflows have work
     * ({@link #overShare}): a statement that computes for seconds then leaves the others most of a
     * busy worker, as an operating system's scheduler leaves a busy core to its other processes.
     */
    private long debtNanos;
    private long debtAt;

    /** Whether this dataflow has taken more than its share of the worker lately (at {@code now}, a {@link System#nanoTime}). */
    boolean overShare(long now) {
        if (debtNanos == 0) return false;
        debtNanos = Math.max(0, debtNanos - (long) ((now - debtAt) * Worker.BUSY_SHARE));
        debtAt = now;
        return debtNanos > Worker.BURST_NANOS;
    }

    /** Whether this dataflow has taken little beyond its share lately: a statement's or a commit's, not a long computation's. */
    boolean light(long now) {
        overShare(now);
        return debtNanos < Worker.LIGHT_NANOS;
    }

    /** Charges {@code nanos} of the worker's time, ending at {@code now}, to this dataflow. */
    void charge(long nanos, long now) {
        overShare(now);
        // capped: time taken alone is not owed later, once other dataflows have work
        debtNanos = Math.min(debtNanos + nanos, Worker.MAX_DEBT_NANOS);
        debtAt = now;
    }

    /** Operators that stopped with work left, waiting for their turn after the other dataflows' work. */
    private final java.util.BitSet yielded = new java.util.BitSet();

    void activateAfterOthers(int operator) {
        yielded.set(operator);
    }

    /** Schedules the operators that yielded; returns whether there were any. */
    boolean activateYielded() {
        return activateAll(yielded);
    }

    /** Schedules the operators waiting for an idle step; returns whether there were any. */
    boolean activateIdle() {
        return activateAll(whenIdle);
    }

    /** Schedules the operators of {@code waiting} and empties it; whether there were any. */
    private boolean activateAll(java.util.BitSet waiting) {
        if (waiting.isEmpty()) return false;
        for (int i = waiting.nextSetBit(0); i >= 0; i = waiting.nextSetBit(i + 1)) activate(i);
        waiting.clear();
        return true;
    }

    void receive(Message m) {
        @SuppressWarnings("unchecked")
        InputPort<Container> port = (InputPort<Container>) operators.get(m.operator).inputs.get(m.port);
        port.deliver(m);
    }

    void receive(ProgressBatch batch) {
        tracker.apply(batch);
    }

    /** Frontier changes reach their operators, which are scheduled. */
    private boolean propagate() {
        return tracker.drainChanged(frontierSink);
    }

    private final ProgressTracker.FrontierSink frontierSink = this::frontierChanged;

    private void frontierChanged(int target, Antichain frontier) {
        ProgressTracker.Location l = tracker.location(target);
        InputPort<?> port = operators.get(l.operator()).inputs.get(l.port());
        if (!port.frontier.equals(frontier)) {
            port.frontier = frontier;
            activate(l.operator());
            if (worker.events != null) worker.events.frontierChanged(worker.index(), index, l.operator(), l.port(), frontier);
        }
    }

    /** Where the next step starts running scheduled operators: after an interrupted step, the first one it left. */
    private int resumeAt;

    /** One round: deliver known progress, run scheduled operators, share the progress they made. */
    boolean step() {
        boolean work = propagate();
        if (activeCount > 0) {
            work = true;
            // a long computation's step stops between two operators once another worker's
            // message or a command waits: the rest stay scheduled, and its next step starts
            // with them (not from the first operator again, which let a producer run at every
            // step and its consumer at few: a restart over a table larger than the heap piled
            // its rows up); a commit's hop through this worker waits for one operator's slice
            boolean interruptible = !light(System.nanoTime());
            boolean ranOne = false;
            int n = operators.size();
            int start = resumeAt < n ? resumeAt : 0;
            resumeAt = 0;
            for (int k = 0; k < n && activeCount > 0; k++) {
                int i = start + k < n ? start + k : start + k - n;
                if (!active[i]) continue;
                if (interruptible && ranOne && worker.urgent()) {
                    resumeAt = i;
                    break;
                }
                ranOne = true;
                active[i] = false;
                activeCount--;
                OperatorNode op = operators.get(i);
                if (op.logic == null) continue;
                if (worker.events != null) worker.events.operatorScheduled(worker.index(), index, i, op.name);
                try {
                    if (DataflowGraph.COUNTING) {
                        long began = System.nanoTime();
                        op.logic.schedule();
                        op.elapsedNanos += System.nanoTime() - began;
                        op.activations++;
                    } else {
                        op.logic.schedule();
                    }
                } catch (DataflowAbortedException | OperatorFailedException | DataflowFailedException e) {
                    if (!worker.fabric.containFailures) throw e;
                    worker.fail(this, new OperatorFailedException(op.displayName(), worker.index(), e));
                    return true;
                } catch (Throwable t) {
                    OperatorFailedException f = new OperatorFailedException(op.displayName(), worker.index(), t);
                    if (worker.fabric.containFailures) {
                        worker.fail(this, f);
                        return true;
                    }
                    worker.fabric.fail(f);
                    throw f;
                }
            }
        }
        work |= flushProgress();
        work |= propagate();
        if (tracker.isComplete() && activeCount == 0) complete = true;
        return work;
    }

    /** Shares this step's net pointstamp changes with every worker, this one included. */
    boolean flushProgress() {
        if (changes.isEmpty()) return false;
        changes.compact();
        if (changes.isEmpty()) return false;
        if (worker.peers() > 1) {
            ProgressBatch b = changes.snapshot(index, worker.index());
            for (int w = 0; w < worker.peers(); w++) {
                if (w != worker.index()) worker.fabric.send(w, b);
            }
        }
        tracker.apply(changes);
        changes.clear();
        return true;
    }
}
