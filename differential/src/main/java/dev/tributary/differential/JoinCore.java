package dev.tributary.differential;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.HeldCursor;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OperatorLogic;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import java.util.ArrayList;
import java.util.List;

/**
 * The join of two arrangements with the same key.
 *
 * <p>Model: each pair of updates {@code (k, v1, t1, d1)} and {@code (k, v2, t2, d2)} contributes
 * {@code (f(k, v1, v2), t1 join t2, d1 * d2)} exactly once. The operator remembers, per input, the
 * frontier through which it has received batches (acknowledged). A new batch of one input meets
 * the other input's trace through that input's acknowledged frontier; then its own acknowledged
 * frontier moves past it. So a pair meets when the later of its two batches arrives, and never
 * twice. The operator holds each trace's physical compaction at its acknowledged frontier, which
 * keeps that batch boundary in the trace, and its logical compaction at the other input's
 * frontier: the other side's future updates are at or after it, and joining with a time advanced
 * to that frontier gives the same output at every time.
 *
 * <p>Work is bounded per activation ({@link #FUEL} output pairs). A batch whose join is not done
 * when the fuel runs out waits, with a retained capability at its time and a
 * {@linkplain HeldCursor held cursor} over the trace as it was when the batch arrived, and goes
 * on at the next activation; batches that arrive meanwhile queue behind it. Acknowledging does
 * not wait for the work: what a batch meets is fixed when it arrives.
 */
final class JoinCore {
    private JoinCore() {}

    /** Output containers are sent when they reach this many updates. */
    private static final int CHUNK = 1024;
    /**
     * The output pairs one activation produces at most; the rest of the work waits for the next.
     * A join whose output is far larger than its inputs (a cross join) then sends it a piece per
     * step, which the operators after it consume before the next piece: memory stays bounded, and
     * a cancel between steps lands within one piece's time. The system property
     * {@code tributary.join.fuel} sets another (the property tests use a tiny one, so that every
     * join they check stops and resumes).
     */
    static final long FUEL = fuel(System.getProperty("tributary.join.fuel"));

    /**
     * How long one activation may spend making pairs, besides its fuel (the clock is read once a
     * {@link #CHUNK}): a cross join's activation of {@link #FUEL} pairs, with what its output cost
     * downstream, held the worker 20-120 ms, and a commit beside it waited that in each of the
     * steps it needed to reach an index.
     */
    static final long SLICE_NANOS = 100_000;

    private static long fuel(String setting) {
        if (setting == null) return 1 << 18;
        try {
            long fuel = Long.parseLong(setting.trim());
            if (fuel > 0) return fuel;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("system property tributary.join.fuel is '" + setting + "': it must be a positive number of output pairs");
    }

    static <K, V1, V2, R> Collection<R> join(Arrangement<K, V1> left, Arrangement<K, V2> right,
            Joiner<? super K, ? super V1, ? super V2, ? extends R> f, DataType<R> outType) {
        return build(left, right, f, null, outType);
    }

    /** The join of {@code long} keys and values by {@code f}, read from the columns and written to a column of longs. */
    static <K> Collection<Long> joinLongs(Arrangement<K, ?> left, Arrangement<K, ?> right, LongJoiner f) {
        if (!(left.keyType() instanceof DataType.Longs) || !(left.valType() instanceof DataType.Longs) || !(right.valType() instanceof DataType.Longs)) {
            throw new IllegalArgumentException("joinLongs needs long keys and values; " + left + " has " + left.keyType() + " keys and " + left.valType()
                    + " values, " + right + " has " + right.valType() + " values: use join with a Joiner");
        }
        return build(left, right, null, f, DataType.longs());
    }

    /** The operator, joining by {@code f} or, if it is null, by {@code longs}. */
    private static <K, V1, V2, R> Collection<R> build(Arrangement<K, V1> left, Arrangement<K, V2> right,
            Joiner<? super K, ? super V1, ? super V2, ? extends R> f, LongJoiner longs, DataType<R> outType) {
        Scope scope = left.scope();
        if (right.scope() != scope) {
            throw new IllegalArgumentException("cannot join " + left + " of scope '" + scope.name() + "' with " + right + " of scope '"
                    + right.scope().name() + "'; bring both into one scope (enter or importInto) first");
        }
        OperatorBuilder b = scope.operator("join");
        InputPort<ListContainer<Batch>> in1 = b.input(left.batches(), Pact.pipeline());
        InputPort<ListContainer<Batch>> in2 = b.input(right.batches(), Pact.pipeline());
        OutputPort<Updates> out = b.output(Collection.containerType(outType, scope.arity()));
        TraceHandle trace1 = left.trace().share();
        TraceHandle trace2 = right.trace().share();
        // Either side may be another dataflow's trace (an import): if this dataflow is dropped, or
        // its build throws (a seed that does not fit), the shares must go with it, or they pin that
        // trace's compaction and a batch boundary for good (see Scope#onDrop).
        scope.onDrop(trace1::drop);
        scope.onDrop(trace2::drop);
        // the rest of a join that ran out of fuel waits for the worker's other dataflows to have had
        // a step: a runaway cross join takes turns with every other statement's work
        Logic<K, V1, V2, R> logic = new Logic<>(in1, in2, out, trace1, trace2, left.keyType(), left.valType(), right.valType(), f, longs, outType, scope.arity(),
                b.yieldActivator());
        dev.tributary.arrangements.Seed seed = dev.tributary.arrangements.Seed.of(scope);
        // in a seeded dataflow every pair of updates before the checkpoint has met: both sides are acknowledged through it
        if (seed.seeded()) logic.acknowledged1 = logic.acknowledged2 = seed.from();
        b.build(logic);
        return new Collection<>(out.stream(), outType);
    }

    private static final class Logic<K, V1, V2, R> implements OperatorLogic {
        private final InputPort<ListContainer<Batch>> in1;
        private final InputPort<ListContainer<Batch>> in2;
        private final OutputPort<Updates> out;
        private TraceHandle trace1;
        private TraceHandle trace2;
        private final DataType<K> keyType;
        private final DataType<V1> valType1;
        private final DataType<V2> valType2;
        private final Joiner<? super K, ? super V1, ? super V2, ? extends R> f;
        /** Set for {@link JoinCore#joinLongs}: keys, values and output are longs, read and written in place. */
        private final LongJoiner longs;
        private final DataType<R> outType;
        private final int arity;
        private Antichain acknowledged1;
        private Antichain acknowledged2;
        private final Side side1;
        private final Side side2;
        private final long[] joined;
        private final Runnable activator;
        /** Joins that ran out of fuel, oldest first: only the first may have stopped within a key. */
        private final java.util.ArrayDeque<Work> pending = new java.util.ArrayDeque<>();
        /** A finished {@link Work}, for the next batch. */
        private Work idle;
        /** Output pairs this activation may still produce. */
        private long fuel;
        /** When this activation's slice ends ({@link #SLICE_NANOS}). */
        private long deadline;
        /** The container being filled by {@link #pairs}. */
        private Updates current;
        /** The loaded key, as an object or (for {@link #longs}) a long. */
        private K key;
        private long longKey;

        Logic(InputPort<ListContainer<Batch>> in1, InputPort<ListContainer<Batch>> in2, OutputPort<Updates> out, TraceHandle trace1,
                TraceHandle trace2, DataType<K> keyType, DataType<V1> valType1, DataType<V2> valType2,
                Joiner<? super K, ? super V1, ? super V2, ? extends R> f, LongJoiner longs, DataType<R> outType, int arity, Runnable activator) {
            this.in1 = in1;
            this.in2 = in2;
            this.out = out;
            this.trace1 = trace1;
            this.trace2 = trace2;
            this.keyType = keyType;
            this.valType1 = valType1;
            this.valType2 = valType2;
            this.f = f;
            this.longs = longs;
            this.outType = outType;
            this.arity = arity;
            this.acknowledged1 = Antichain.of(new long[arity]);
            this.acknowledged2 = acknowledged1;
            this.side1 = new Side(arity);
            this.side2 = new Side(arity);
            this.joined = new long[arity];
            this.activator = activator;
        }

        // made once: a lambda per activation was most of what the join allocated per step
        private final InputPort.MessageConsumer<ListContainer<Batch>> fromLeft = (cap, msg) -> receive(cap, msg, true);
        private final InputPort.MessageConsumer<ListContainer<Batch>> fromRight = (cap, msg) -> receive(cap, msg, false);

        /**
         * Joins each batch of one input's message with the other input's trace (as far as the fuel
         * lasts; the rest waits in {@link #pending}), then acknowledges it.
         */
        private void receive(Capability cap, ListContainer<Batch> msg, boolean left) {
            for (int i = 0; i < msg.size(); i++) {
                Batch batch = msg.get(i);
                TraceHandle other = left ? trace2 : trace1;
                if (other != null) {
                    Work w = start(batch, other, left ? acknowledged2 : acknowledged1, left);
                    if (!pending.isEmpty() || !run(cap, w)) {
                        w.cap = cap.retain();
                        pending.addLast(w);
                    } else finish(w);
                } else batch.release();
                if (left) acknowledged1 = batch.upper();
                else acknowledged2 = batch.upper();
            }
        }

        @Override
        public void schedule() {
            fuel = FUEL;
            deadline = System.nanoTime() + SLICE_NANOS;
            while (!pending.isEmpty() && fuel > 0) {
                Work w = pending.peekFirst();
                if (!run(w.cap, w)) break;
                pending.removeFirst();
                w.cap.drop();
                w.cap = null;
                finish(w);
            }
            in1.forEach(fromLeft);
            in2.forEach(fromRight);
            // Empty batches are never sent, so acknowledge through them from the input frontiers:
            // otherwise a quiet input would hold every later batch of its trace pending.
            acknowledged1 = catchUp(trace1, acknowledged1, in1.frontier());
            acknowledged2 = catchUp(trace2, acknowledged2, in2.frontier());
            trace1 = advance(trace1, acknowledged1, in2.frontier());
            trace2 = advance(trace2, acknowledged2, in1.frontier());
            if (!pending.isEmpty()) activator.run();
        }

        /** The latest boundary of {@code handle}'s trace that {@code frontier} has passed, if beyond {@code acknowledged}. */
        private static Antichain catchUp(TraceHandle handle, Antichain acknowledged, Antichain frontier) {
            if (handle == null) return acknowledged;
            Antichain boundary = handle.boundaryAtOrBefore(frontier);
            if (boundary == null || boundary.equals(acknowledged) || !acknowledged.dominates(boundary)) return acknowledged;
            return boundary;
        }

        /** Moves a trace handle on: boundaries kept at what was received, history kept from where the other input may still be. */
        private static TraceHandle advance(TraceHandle handle, Antichain acknowledged, Antichain otherFrontier) {
            if (handle == null) return null;
            if (otherFrontier.isEmpty()) {
                handle.drop();
                return null;
            }
            if (!acknowledged.equals(handle.physicalCompaction()) && handle.physicalCompaction().dominates(acknowledged)) {
                handle.setPhysicalCompaction(acknowledged);
            }
            if (!otherFrontier.equals(handle.logicalCompaction()) && handle.logicalCompaction().dominates(otherFrontier)) {
                handle.setLogicalCompaction(otherFrontier);
            }
            return handle;
        }

        /**
         * The join of a new batch of one input ({@code batchIsLeft}: input 1) with the other
         * input's trace through its acknowledged frontier, not yet done: by looking up each of the
         * batch's keys when they are sparse in the trace, else by walking both in key order (see
         * {@link Seeks}). The trace is read through a held cursor, so the work may go on in later
         * activations whatever the trace does meanwhile.
         */
        private Work start(Batch batch, TraceHandle trace, Antichain acknowledged, boolean batchIsLeft) {
            Work w = idle == null ? new Work() : idle;
            idle = null;
            w.batch = batch;
            w.news = batch.cursor();
            w.history = trace.heldCursorThrough(acknowledged, w.history);
            w.batchIsLeft = batchIsLeft;
            // a batch held in parts is walked, never looked up key by key (its keys are not on the heap at once)
            w.sparse = !batch.isParted() && Seeks.sparse(batch.keyCount(), trace.largestBatchKeys());
            w.probe = 0;
            w.inKey = false;
            if (w.sparse) w.history.prepareSeeks(batch.keys());
            return w;
        }

        /** Done with {@code w}: releases what it read and keeps it for the next batch. */
        private void finish(Work w) {
            w.history.release();
            w.batch.release();
            w.batch = null;
            w.news = null;
            idle = w;
        }

        /**
         * Does {@code w}'s join until it is complete (true) or the activation's {@link #fuel} runs
         * out (false: {@code w} remembers where it stopped, within a key if need be), sending what
         * it produced under {@code cap}.
         */
        private boolean run(Capability cap, Work w) {
            current = out.newContainer();
            boolean done = w.sparse ? runSparse(cap, w) : runMerge(cap, w);
            out.send(cap, current);
            current = null;
            return done;
        }

        /** The sparse join: each of the batch's keys looked up in the trace. */
        private boolean runSparse(Capability cap, Work w) {
            Column keys = w.batch.keys();
            Cursor news = w.news;
            Cursor history = w.history;
            for (int n = w.batch.keyCount(); w.probe < n; w.probe++, news.stepKey()) {
                if (!w.inKey) {
                    if (!history.seekKeyExact(keys, w.probe)) continue;
                    if (w.batchIsLeft) load(w, news, history);
                    else load(w, history, news);
                }
                if (!pairs(cap, w)) return false;
            }
            return true;
        }

        /** The dense join: both cursors walked in key order. */
        private boolean runMerge(Capability cap, Work w) {
            Cursor c1 = w.batchIsLeft ? w.news : w.history;
            Cursor c2 = w.batchIsLeft ? w.history : w.news;
            while (c1.keyValid() && c2.keyValid()) {
                if (!w.inKey) {
                    int cmp = c1.keyColumn().compare(c1.keyIndex(), c2.keyColumn(), c2.keyIndex());
                    if (cmp < 0) {
                        c1.seekKey(c2.keyColumn(), c2.keyIndex());
                        continue;
                    }
                    if (cmp > 0) {
                        c2.seekKey(c1.keyColumn(), c1.keyIndex());
                        continue;
                    }
                    load(w, c1, c2);
                }
                if (!pairs(cap, w)) return false;
                c1.stepKey();
                c2.stepKey();
            }
            return true;
        }

        /** Reads the cursors' (equal) current keys' updates into the sides; {@code c1} reads input 1's side, {@code c2} input 2's. */
        private void load(Work w, Cursor c1, Cursor c2) {
            if (longs != null) {
                longKey = ((LongColumn) c1.keyColumn()).getLong(c1.keyIndex());
                side1.loadLongs(c1);
                side2.loadLongs(c2);
            } else {
                key = keyType.get(c1.keyColumn(), c1.keyIndex());
                side1.load(c1, valType1);
                side2.load(c2, valType2);
            }
            w.inKey = true;
            w.a = 0;
            w.b = 0;
        }

        /**
         * Sends the pairs of the loaded key's updates from where {@code w} left off, into
         * {@link #current}: true once all are sent, false if the fuel ran out first.
         */
        private boolean pairs(Capability cap, Work w) {
            int a = w.a;
            int bi = w.b;
            Updates o = current;
            for (; a < side1.updates; a++, bi = 0) {
                for (; bi < side2.updates; bi++) {
                    if (fuel <= 0) {
                        w.a = a;
                        w.b = bi;
                        current = o;
                        return false;
                    }
                    fuel--;
                    for (int k = 0; k < arity; k++) joined[k] = Math.max(side1.times[a * arity + k], side2.times[bi * arity + k]);
                    long diff = Math.multiplyExact(side1.diffs[a], side2.diffs[bi]);
                    if (longs != null) {
                        ((LongColumn) o.keys()).add(longs.join(longKey, side1.longVals[side1.valOf[a]], side2.longVals[side2.valOf[bi]]));
                        ((UnitColumn) o.vals()).add();
                        o.push(joined, 0, diff);
                    } else {
                        @SuppressWarnings("unchecked")
                        V1 v1 = (V1) side1.vals.get(side1.valOf[a]);
                        @SuppressWarnings("unchecked")
                        V2 v2 = (V2) side2.vals.get(side2.valOf[bi]);
                        Collection.append(o, outType, f.join(key, v1, v2), joined, 0, diff);
                    }
                    if (o.size() >= CHUNK) {
                        out.send(cap, o);
                        o = out.newContainer();
                        // past its slice the activation ends as when its fuel is spent
                        if (System.nanoTime() - deadline > 0) fuel = 0;
                    }
                }
            }
            w.inKey = false;
            current = o;
            return true;
        }
    }

    /**
     * One batch's join with the other input's trace, as far as it has got: the batch (released
     * when done), a cursor over it and a held cursor over the trace, and where within a key's
     * pairs it stopped. Kept for the next batch once done, so a join that never runs out of fuel
     * allocates none.
     */
    private static final class Work {
        Capability cap;
        Batch batch;
        Cursor news;
        HeldCursor history;
        boolean batchIsLeft;
        boolean sparse;
        /** Sparse: the batch key being looked up. */
        int probe;
        /** Whether the sides hold the current key's updates, of which pairs {@code (a, b)} onward are still to send. */
        boolean inKey;
        int a;
        int b;
    }

    /** One key's updates from one side, read out of a cursor: values and their (time, diff)s. */
    private static final class Side {
        final int arity;
        /** The key's values, read once per key (not once per pair of updates). */
        final List<Object> vals = new ArrayList<>();
        int[] valOf = new int[16];
        long[] times;
        long[] diffs = new long[16];
        int updates;

        Side(int arity) {
            this.arity = arity;
            this.times = new long[16 * arity];
        }

        private int loading;
        private final Cursor.TimeDiffConsumer loader = (t, off, diff) -> push(t, off, diff);

        private void push(long[] t, int off, long diff) {
            if (updates == diffs.length) {
                diffs = java.util.Arrays.copyOf(diffs, updates * 2);
                valOf = java.util.Arrays.copyOf(valOf, updates * 2);
                times = java.util.Arrays.copyOf(times, updates * 2 * arity);
            }
            System.arraycopy(t, off, times, updates * arity, arity);
            valOf[updates] = loading;
            diffs[updates++] = diff;
        }

        /** The key's values as longs (for {@link #loadLongs}), by index as in {@link #vals}. */
        long[] longVals = new long[16];

        /** {@link #load} of a key whose values are in a {@link LongColumn}: no object per value. */
        void loadLongs(Cursor c) {
            updates = 0;
            int n = 0;
            while (c.valValid()) {
                if (n == longVals.length) longVals = java.util.Arrays.copyOf(longVals, n * 2);
                longVals[n] = ((LongColumn) c.valColumn()).getLong(c.valIndex());
                loading = n++;
                c.forEachTime(loader);
                c.stepVal();
            }
        }

        void load(Cursor c, DataType<?> type) {
            vals.clear();
            updates = 0;
            while (c.valValid()) {
                loading = vals.size();
                vals.add(type.get(c.valColumn(), c.valIndex()));
                c.forEachTime(loader);
                c.stepVal();
            }
        }
    }
}
