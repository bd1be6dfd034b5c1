package dev.tributary.differential;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.Trace;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.TraceWriter;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.CapabilitySet;
import dev.tributary.timely.ContainerType;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OperatorLogic;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reduction by key, maintained at interesting times.
 *
 * <p>Model: the output at time {@code t} holds, for every key, {@code logic(key, input@t)}. The
 * operator works in rounds: when its input frontier moves from {@code F} to {@code F'}, the
 * times in {@code up(F) \ up(F')} become complete, and only they are decided in the round. For a
 * key whose input changed (or that has times waiting), the candidate times are the lattice-join
 * closure of the times of its input updates, its output updates and its waiting times: between
 * two such times neither the input nor the output can change. Each candidate in the round's
 * region is evaluated, in an order that puts earlier times first, and the operator emits the
 * difference between {@code logic(input@t)} and the output accumulated at {@code t}; candidates
 * not yet complete wait with the key for a later round. With totally ordered times the closure
 * is the set of times itself. The output is a new arrangement whose trace this operator writes
 * and reads; with totally ordered times it reads it only for keys with waiting times, and
 * derives the output before the round from the input for the rest ({@code deriveOutput}).
 */
final class Reduce {
    private Reduce() {}

    static <K, V, R> Arrangement<K, R> reduce(Arrangement<K, V> source, String name, Reducer<K, V, R> logic, DataType<R> outType) {
        return reduce(source, name, logic, outType, true);
    }

    /**
     * {@link #reduce(Arrangement, String, Reducer, DataType)}; with {@code readsKey} false the
     * logic is promised never to read its key, which it is then given as {@code null}, so keys
     * are never made into objects (the library's count, sum, min, max and threshold).
     */
    static <K, V, R> Arrangement<K, R> reduce(Arrangement<K, V> source, String name, Reducer<K, V, R> logic, DataType<R> outType, boolean readsKey) {
        Scope scope = source.scope();
        int arity = scope.arity();
        OperatorBuilder b = scope.operator("reduce:" + name);
        InputPort<ListContainer<Batch>> in = b.input(source.batches(), Pact.pipeline());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        TraceHandle input = source.trace().share();
        // the source may be another dataflow's trace (an import): the share goes if this dataflow
        // is dropped or its build throws (a seed that does not fit), or it pins that trace's
        // compaction for good (see Scope#onDrop)
        scope.onDrop(input::drop);
        input.setPhysicalCompaction(Antichain.empty(arity));
        Column keyProto = source.keyType().newColumn(1);
        Column outProto = outType.newColumn(1);
        dev.tributary.arrangements.Seed seed = dev.tributary.arrangements.Seed.of(scope);
        TraceHandle output = seed.trace(scope, name, keyProto, outProto, arity, Trace.EFFORT);
        TraceHandle own = output.share();
        own.setPhysicalCompaction(Antichain.empty(arity));
        TraceWriter writer = new TraceWriter(new Batcher(keyProto, outProto, arity), output.trace(), out, b.displayName(), arity);
        Runnable idle = b.idleActivator();
        output.trace().onCompactionMoved(idle);
        Logic<K, V, R> logic1 = new Logic<>(b.displayName(), in, input, own, writer, source.keyType(), source.valType(), logic, readsKey, outType, arity, idle);
        if (seed.seeded()) logic1.resumeAt(seed.from());
        b.build(logic1);
        return Arrangement.wrap(out.stream(), output, source.keyType(), outType);
    }

    private static final class Logic<K, V, R> implements OperatorLogic {
        private final InputPort<ListContainer<Batch>> in;
        /** Schedules the operator at a step where its worker is otherwise idle, to merge its output. */
        private final Runnable idle;
        private TraceHandle input;
        private TraceHandle output;
        private final TraceWriter writer;
        private final DataType<K> keyType;
        private final DataType<V> valType;
        private final Reducer<K, V, R> logic;
        private final boolean readsKey;
        private final int arity;
        private final ContainerType<Updates> outContainers;
        /** Capabilities for the received batches not yet decided and for the waiting times: an antichain. */
        private final CapabilitySet caps = new CapabilitySet();
        private final String opName;
        /** The input frontier through which every time is decided. */
        private Antichain done;
        /** Batches received since the last round. */
        private final List<Batch> fresh = new ArrayList<>();
        /** Keys with candidate times not yet complete, and those times. */
        private final TreeMap<K, List<long[]>> waiting;
        /** The key being visited, as the one value of a column: keys are read and written in place, not as objects. */
        private final Column probe;
        /** The fresh batches' keys, when there are several batches (reused across rounds). */
        private final Column freshKeys;
        /** A waiting key, to order it against the fresh batches' keys. */
        private final Column dueProbe;
        /** The visited key as an object, made only when needed (waiting times, a reducer that reads keys). */
        private K visiting;
        private final KeyHistory<V> in1;
        private final KeyHistory<R> out1;
        /** The visited key's fresh updates: the round's batches at the key. */
        private final KeyHistory<V> new1;
        /** The input accumulated at the time being evaluated: what the reducer reads. */
        private final Values<V> values;
        /** The output accumulated at the time being evaluated. */
        private final Values<R> current;
        /** The reducer's output at the time being evaluated, minus {@link #current}. */
        private final Change<R> change;
        /** This round's output, pushed to the writer in one piece at the end of the round. */
        private Updates roundOutput;
        /** The most bytes of a round's output buffer kept for the next round. */
        private static final long ROUND_OUTPUT_KEPT = 1L << 20;
        /** Output updates a round hands to the writer at once (see {@link #round}). */
        private static final int ROUND_FLUSH = 1 << 16;
        /** Keys waiting with a time in the round, in key order (reused across rounds). */
        private final List<K> due = new ArrayList<>();

        Logic(String opName, InputPort<ListContainer<Batch>> in, TraceHandle input, TraceHandle output, TraceWriter writer, DataType<K> keyType,
                DataType<V> valType, Reducer<K, V, R> logic, boolean readsKey, DataType<R> outType, int arity, Runnable idle) {
            this.idle = idle;
            this.opName = opName;
            this.in = in;
            this.input = input;
            this.output = output;
            this.writer = writer;
            this.keyType = keyType;
            this.valType = valType;
            this.logic = logic;
            this.readsKey = readsKey;
            this.arity = arity;
            this.outContainers = Updates.type(keyType.newColumn(1), outType.newColumn(1), arity);
            this.done = Antichain.of(new long[arity]);
            this.waiting = new TreeMap<>(keyType.order());
            this.probe = keyType.newColumn(1);
            this.dueProbe = keyType.newColumn(1);
            this.freshKeys = keyType.newColumn(16);
            this.in1 = new KeyHistory<>(valType, arity);
            this.out1 = new KeyHistory<>(outType, arity);
            this.new1 = new KeyHistory<>(valType, arity);
            this.values = new Values<>(in1);
            this.current = new Values<>(out1);
            this.change = new Change<>(outType);
            this.roundOutput = outContainers.create();
        }

        /** Made once, not per activation. */
        private final InputPort.MessageConsumer<ListContainer<Batch>> receive = (cap, msg) -> {
            for (int i = 0; i < msg.size(); i++) fresh.add(msg.get(i));
            caps.insert(cap);
        };

        /** Every time before {@code from} is decided already: the output trace was seeded with it. */
        void resumeAt(Antichain from) {
            done = from;
            writer.resumeAt(from);
        }

        @Override
        public void schedule() {
            in.forEach(receive);
            Antichain frontier = in.frontier();
            if (!frontier.equals(done) && done.dominates(frontier)) decide(frontier);
            // The output's merges go on in the worker's idle steps, as an arrange operator's do:
            // otherwise a trace that stops changing keeps the batches it has, and a reduce built
            // over data written at many times keeps a result per key for each of them.
            if (!output.isDropped() && output.trace().exert(Trace.IDLE_FUEL)) idle.run();
        }

        /** Decides the times the frontier's move to {@code frontier} completes, and compacts behind it. */
        private void decide(Antichain frontier) {
            round(frontier);
            input.forgetReusedCursor();
            output.forgetReusedCursor();
            writer.advance(frontier);
            done = frontier;
            // Keep capabilities only for the waiting times: an idle reduce holds nothing, so a
            // loop around it can finish a round of the outer scope.
            Antichain.Builder minimal = new Antichain.Builder(arity);
            for (List<long[]> times : waiting.values()) {
                for (long[] t : times) minimal.insert(t);
            }
            caps.downgradeTo(minimal.build(), opName);
            if (frontier.isEmpty()) {
                input.drop();
                output.drop();
                waiting.clear();
                return;
            }
            input.setLogicalCompaction(frontier);
            output.setLogicalCompaction(frontier);
        }

        private Capability capabilityFor(long[] t) {
            Capability c = caps.holder(t);
            if (c == null) throw new IllegalStateException("operator '" + opName + "' holds no capability at or before " + Timestamps.toString(t) + " (holds " + caps + ")");
            return c;
        }

        /** Decides every time in {@code up(done) \\ up(frontier)}. */
        private void round(Antichain frontier) {
            // Keys to visit: those of the fresh batches (walked in order) and those waiting with a
            // time in the region (collected first, since visiting a key rewrites its waiting entry).
            due.clear();
            for (Map.Entry<K, List<long[]>> e : waiting.entrySet()) {
                for (long[] t : e.getValue()) {
                    if (!frontier.lessEqual(t)) {
                        due.add(e.getKey());
                        break;
                    }
                }
            }
            // usually one fresh batch a round: its own cursor, not a list of one
            Cursor news = fresh.size() == 1 ? fresh.get(0).cursor() : Batch.cursor(fresh);
            if (!news.keyValid() && due.isEmpty()) {
                releaseFresh();
                return;
            }
            Column keys = roundKeys();
            Cursor inputs = keys == null ? input.reusedCursor() : Seeks.prepared(input.reusedCursor(), keys);
            // with totally ordered times the output is derived, not read, for keys with fresh
            // updates (deriveOutput); the rest (waiting keys) read it unprepared when they come
            outputs = arity == 1 ? null : keys == null ? output.reusedCursor() : Seeks.prepared(output.reusedCursor(), keys);
            int d = 0;
            while (news.keyValid() || d < due.size()) {
                int c;
                if (!news.keyValid()) {
                    c = 1;
                } else if (d < due.size()) {
                    dueProbe.clear();
                    keyType.append(dueProbe, due.get(d));
                    c = news.keyColumn().compare(news.keyIndex(), dueProbe, 0);
                } else {
                    c = -1;
                }
                probe.clear();
                visiting = null;
                if (c <= 0) {
                    probe.append(news.keyColumn(), news.keyIndex());
                    new1.load(news, probe);
                    takeNewTimes();
                    news.stepKey();
                } else {
                    keyType.append(probe, due.get(d));
                    new1.clear();
                }
                if (c >= 0) visiting = due.get(d++);
                visit(inputs, frontier);
                newCount = 0;
                // a hydration's round visits every key: its output goes to the writer's batcher
                // as it grows (which pages it out where it is large), not all at the round's end
                if (roundOutput.size() >= ROUND_FLUSH) {
                    writer.pushBuffered(roundOutput);
                    roundOutput.clear();
                }
            }
            visiting = null;
            outputs = null;
            due.clear();
            releaseFresh();
            writer.pushBuffered(roundOutput);
            roundOutput.clear();
            // sized for a hydration's output: not kept for the small rounds that follow
            if (roundOutput.heapBytes() > ROUND_OUTPUT_KEPT) roundOutput = outContainers.create();
        }

        /** Lets go of the round's fresh batches: the round read them, and keeps nothing of them. */
        private void releaseFresh() {
            for (int i = 0; i < fresh.size(); i++) fresh.get(i).release();
            fresh.clear();
        }

        /**
         * The distinct keys of the fresh batches, in order: the keys the round will seek; null if a
         * fresh batch is paged (a hydration's: its keys are not copied onto the heap, and the round,
         * visiting most keys, seeks them in order without preparing).
         */
        private Column roundKeys() {
            for (int i = 0; i < fresh.size(); i++) if (fresh.get(i).isParted()) return null;
            if (fresh.size() == 1) return fresh.get(0).keys();
            freshKeys.clear();
            for (Cursor c = Batch.cursor(fresh); c.keyValid(); c.stepKey()) freshKeys.append(c.keyColumn(), c.keyIndex());
            return freshKeys;
        }


        /** The visited key as an object. */
        private K key() {
            if (visiting == null) visiting = keyType.get(probe, 0);
            return visiting;
        }

        /** The round's cursor over the output trace, made when first needed (null: not yet). */
        private Cursor outputs;

        private Cursor outputs() {
            if (outputs == null) outputs = output.reusedCursor();
            return outputs;
        }

        private void visit(Cursor inputs, Antichain frontier) {
            in1.load(inputs, probe);
            List<long[]> before = waiting.isEmpty() ? null : waiting.remove(key());
            // arity 1: the key's first fresh or waiting time
            long first = Long.MAX_VALUE;
            if (arity == 1) {
                for (int i = 0; i < newCount; i++) first = Math.min(first, newTimes[i]);
                if (before != null) {
                    for (long[] t : before) first = Math.min(first, t[0]);
                }
            }
            if (arity == 1 && before == null && newCount > 0) deriveOutput(first, frontier);
            else out1.load(outputs(), probe);
            List<long[]> later = null;
            if (arity == 1) {
                // Totally ordered times: the closure is the distinct times themselves.
                int m = distinctTimes(before);
                in1.startSweep();
                out1.startSweep();
                // Only times at or after a new time can have changed (see closure()).
                long lo = Math.max(first, done.isEmpty() ? Long.MAX_VALUE : done.get(0)[0]);
                long hi = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
                for (int i = 0; i < m; i++) {
                    long t = scratchTimes[i];
                    if (t < lo) continue;
                    if (t >= hi) {
                        if (later == null) later = new ArrayList<>(2);
                        later.add(new long[] {t});
                    } else {
                        time1[0] = t;
                        evaluate(time1);
                    }
                }
            } else {
                for (long[] t : closure(before)) {
                    if (!done.lessEqual(t) || !afterNew(t, before)) continue;
                    if (frontier.lessEqual(t)) {
                        if (later == null) later = new ArrayList<>(2);
                        later.add(t);
                    } else {
                        evaluate(t);
                    }
                }
            }
            if (later != null) waiting.put(key(), later);
        }

        private final long[] time1 = new long[1];

        /** The key's fresh updates' own times (before any compaction), flat with a stride of {@code arity}. */
        private long[] newTimes = new long[16];
        private int newCount;

        /** Copies the times of the fresh updates {@link #new1} holds into {@link #newTimes}. */
        private void takeNewTimes() {
            int n = new1.updates * arity;
            if (n > newTimes.length) newTimes = new long[Math.max(n, newTimes.length * 2)];
            System.arraycopy(new1.times, 0, newTimes, 0, n);
            newCount = new1.updates;
        }

        /** Per value of {@link #in1}, its count before this round's fresh updates ({@link #deriveOutput}). */
        private long[] priorCounts = new long[16];

        /**
         * Totally ordered times, a key with fresh updates and no waiting times: sets {@link #out1}
         * to the output before the round without reading the output trace. Every time before the
         * round is decided, so the output accumulated there is the logic of the input accumulated
         * there; and the input before the round is the input trace below the frontier (its
         * history, compacted no later than the round's first time, and the fresh updates there)
         * less the fresh updates below the frontier (fresh batches may reach past it: messages
         * arrive before the progress that covers them). Times in between do not matter: the
         * earliest time the round evaluates is the key's first fresh time {@code first}, where
         * the derived output is placed.
         */
        private void deriveOutput(long first, Antichain frontier) {
            long hi = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            time1[0] = first;
            // a fresh value that cancelled against history in a merge is absent from the input
            // trace, yet had a count before the round: give it a place (a zero update at a fresh time)
            boolean appended = false;
            for (int v = 0, n = new1.vals.size(); v < n; v++) {
                if (in1.indexOf(new1.vals, v) < 0) {
                    in1.add(new1.vals, v, time1, 0);
                    appended = true;
                }
            }
            int n = in1.vals.size();
            if (priorCounts.length < n) priorCounts = new long[Math.max(n, priorCounts.length * 2)];
            Arrays.fill(priorCounts, 0, n, 0);
            for (int u = 0; u < in1.updates; u++) {
                if (in1.times[u] < hi) priorCounts[in1.valOf(u)] += in1.diff(u);
            }
            for (int u = 0; u < new1.updates; u++) {
                if (new1.times[u] < hi) priorCounts[in1.indexOf(new1.vals, new1.valOf(u))] -= new1.diff(u);
            }
            values.clear();
            if (!appended) {
                for (int v = 0; v < n; v++) {
                    if (priorCounts[v] != 0) values.add(v, priorCounts[v]);
                }
            } else {
                // A value given a place above comes after the trace's, out of order, and the
                // reducer reads the values in their order: a max then took such a value for the
                // greatest (found by SeededRebuildPropertyTest, where a restored view's import is
                // compacted to its checkpoint and a retraction there cancels in a merge).
                List<Integer> prior = new ArrayList<>();
                for (int v = 0; v < n; v++) {
                    if (priorCounts[v] != 0) prior.add(v);
                }
                Column vals = in1.vals;
                prior.sort((x, y) -> vals.compare(x, vals, y));
                for (int v : prior) values.add(v, priorCounts[v]);
            }
            out1.clear();
            if (values.size() == 0) return;
            change.clear();
            logic.reduce(readsKey ? key() : null, values, change);
            for (int i = 0; i < change.size(); i++) {
                if (change.count(i) != 0) out1.add(change.vals, i, time1, change.count(i));
            }
        }

        /** Whether {@code t} is at or after one of the key's fresh times or waiting times. */
        private boolean afterNew(long[] t, List<long[]> waitingTimes) {
            for (int i = 0; i < newCount; i++) {
                boolean le = true;
                for (int k = 0; k < arity && le; k++) le = newTimes[i * arity + k] <= t[k];
                if (le) return true;
            }
            if (waitingTimes != null) {
                for (long[] w : waitingTimes) {
                    if (Timestamps.lessEqual(w, t)) return true;
                }
            }
            return false;
        }

        /**
         * The join closure of the key's input, output, fresh and waiting times, sorted so that
         * earlier times come first. Only those at or after a fresh or waiting time matter: a time
         * made of history alone was decided when that history was new, and compaction (which
         * advances history times) must not make it look undecided. And the fresh times are taken
         * from the batches as they arrived, because in the compacted trace a fresh update may
         * already have cancelled against history.
         */
        private List<long[]> closure(List<long[]> waitingTimes) {
            List<long[]> times = new ArrayList<>();
            in1.addTimes(times);
            out1.addTimes(times);
            if (waitingTimes != null) times.addAll(waitingTimes);
            for (int i = 0; i < newCount; i++) times.add(Arrays.copyOfRange(newTimes, i * arity, (i + 1) * arity));
            times.sort(Timestamps::compare);
            List<long[]> all = new ArrayList<>(times.size());
            for (long[] t : times) if (all.isEmpty() || !Arrays.equals(all.get(all.size() - 1), t)) all.add(t);
            // a chain (each time at or after the one before it in the sorted order, as a loop's
            // rounds at one outer time are) is closed under join already
            boolean chain = true;
            for (int i = 1; i < all.size() && chain; i++) chain = Timestamps.lessEqual(all.get(i - 1), all.get(i));
            if (chain) return all;
            TreeSet<long[]> set = new TreeSet<>(Timestamps::compare);
            set.addAll(all);
            for (int i = 0; i < all.size(); i++) {
                for (int j = 0; j < i; j++) {
                    long[] joined = Timestamps.join(all.get(i), all.get(j));
                    if (set.add(joined)) all.add(joined);
                }
            }
            return new ArrayList<>(set);
        }

        private long[] scratchTimes = new long[16];

        /** Arity 1: the distinct times of the key's input, output, fresh and waiting times, sorted into {@code scratchTimes}; returns their number. */
        private int distinctTimes(List<long[]> waitingTimes) {
            int n = in1.updates + out1.updates + newCount + (waitingTimes == null ? 0 : waitingTimes.size());
            if (scratchTimes.length < n) scratchTimes = new long[n * 2];
            System.arraycopy(in1.times, 0, scratchTimes, 0, in1.updates);
            System.arraycopy(out1.times, 0, scratchTimes, in1.updates, out1.updates);
            System.arraycopy(newTimes, 0, scratchTimes, in1.updates + out1.updates, newCount);
            int m = in1.updates + out1.updates + newCount;
            if (waitingTimes != null) {
                for (long[] t : waitingTimes) scratchTimes[m++] = t[0];
            }
            if (m > 1) Arrays.sort(scratchTimes, 0, m);
            int d = 0;
            for (int i = 0; i < m; i++) {
                if (d > 0 && scratchTimes[i] == scratchTimes[d - 1]) continue;
                scratchTimes[d++] = scratchTimes[i];
            }
            return d;
        }

        /** Emits, at {@code t}, the difference between the logic's output and the output so far. */
        private void evaluate(long[] t) {
            values.clear();
            if (arity == 1) in1.sweepTo(t[0], values);
            else in1.accumulate(t, values);
            change.clear();
            if (values.size() > 0) logic.reduce(readsKey ? key() : null, values, change);
            current.clear();
            if (arity == 1) out1.sweepTo(t[0], current);
            else out1.accumulate(t, current);
            for (int i = 0; i < current.size(); i++) change.merge(out1.vals, current.index(i), -current.count(i));
            boolean any = false;
            Column changed = change.vals;
            for (int i = 0; i < change.size(); i++) {
                long d = change.count(i);
                if (d == 0) continue;
                any = true;
                roundOutput.keys().append(probe, 0);
                roundOutput.vals().append(changed, i);
                roundOutput.push(t, d);
                out1.add(changed, i, t, d);
            }
            if (any) writer.hold(capabilityFor(t));
        }
    }

    /**
     * Values of one {@link KeyHistory} with counts: what the reducer reads. Entries name the
     * history's values by index, so nothing is copied and a value becomes an object only when the
     * reducer asks for it (once per key visit, by the history).
     */
    static final class Values<V> implements Reducer.Input<V> {
        private final KeyHistory<V> source;
        private int[] index = new int[8];
        private long[] counts = new long[8];
        private int size;

        Values(KeyHistory<V> source) {
            this.source = source;
        }

        void clear() {
            size = 0;
        }

        /** Appends value {@code v} of the source history with {@code count}. */
        void add(int v, long count) {
            if (size == counts.length) {
                counts = Arrays.copyOf(counts, size * 2);
                index = Arrays.copyOf(index, size * 2);
            }
            index[size] = v;
            counts[size++] = count;
        }

        /** Entry {@code i}'s value's index in the source history. */
        int index(int i) {
            return index[i];
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public V value(int i) {
            return source.value(index[i]);
        }

        @Override
        public long count(int i) {
            return counts[i];
        }
    }

    /**
     * The reducer's output at one time, values equal under the type's order merged, held in a
     * column of the output type: output values are written to the trace from here in place.
     */
    static final class Change<R> implements Reducer.Output<R> {
        private final DataType<R> type;
        final Column vals;
        /** One value, the one being added, in a column so that it compares against {@link #vals}. */
        private final Column incoming;
        private long[] counts = new long[8];

        /** Finds an output value among {@link #vals}: a reducer may output many (a top-k). */
        private final ValueIndex index;

        Change(DataType<R> type) {
            this.type = type;
            this.vals = type.newColumn(8);
            this.incoming = type.newColumn(1);
            this.index = new ValueIndex(vals);
        }

        void clear() {
            vals.clear();
            index.clear();
        }

        int size() {
            return vals.size();
        }

        long count(int i) {
            return counts[i];
        }

        @Override
        public void add(R value, long count) {
            incoming.clear();
            type.append(incoming, value);
            merge(incoming, 0, count);
        }

        @Override
        public void addLong(long value, long count) {
            if (!(incoming instanceof LongColumn longs)) {
                throw new IllegalStateException("addLong on a reduce whose output type is " + type + ", not longs; use add(value, count)");
            }
            incoming.clear();
            longs.add(value);
            merge(incoming, 0, count);
        }

        /** Adds {@code count} to the entry equal to value {@code i} of {@code column} (same class), or appends one. */
        void merge(Column column, int i, long count) {
            int n = vals.size();
            int j = index.find(column, i);
            if (j >= 0) {
                counts[j] += count;
                return;
            }
            if (n == counts.length) counts = Arrays.copyOf(counts, n * 2);
            vals.append(column, i);
            counts[n] = count;
        }
    }

    /**
     * One key's updates from a trace, read once per round: its distinct values in order, and
     * each update's value, time and diff. Updates added during the round (this round's output)
     * join them. Values are copied from the trace into a column, in place; each becomes an object
     * only if asked for ({@link #value}), at most once per load.
     */
    static final class KeyHistory<V> {
        private final DataType<V> type;
        private final int arity;
        final Column vals;
        /** Values made into objects so far in this load, by index ({@code null}: not yet). */
        private Object[] objects = new Object[16];
        private boolean anyObjects;
        private int[] valOf = new int[16];
        long[] times;
        private long[] diffs = new long[16];
        int updates;
        private long[] counts = new long[16];
        private int loading;
        private final Cursor.TimeDiffConsumer loader = (t, off, diff) -> push(loading, t, off, diff);

        /** Finds a value among {@link #vals}: a key may hold millions of them (a global aggregate). */
        private final ValueIndex index;

        KeyHistory(DataType<V> type, int arity) {
            this.type = type;
            this.arity = arity;
            this.vals = type.newColumn(16);
            this.times = new long[16 * arity];
            this.index = new ValueIndex(vals);
        }

        /** Value {@code v} as an object, made once per load. */
        @SuppressWarnings("unchecked")
        V value(int v) {
            if (v >= objects.length) objects = Arrays.copyOf(objects, Math.max(v + 1, objects.length * 2));
            Object o = objects[v];
            if (o == null) {
                o = type.get(vals, v);
                objects[v] = o;
                anyObjects = true;
            }
            return (V) o;
        }

        /** Arity 1: the loaded updates' indexes in time order, and how many have been added into {@code counts}. */
        private int[] order = new int[16];
        private long[] packed = new long[16];
        private int swept;
        private int sweepEnd;
        private boolean sweeping;

        /**
         * Arity 1: prepares to accumulate at increasing times without re-reading the history for
         * each: sorts the loaded updates by time once; {@link #sweepTo} then adds those up to each
         * time. Updates {@link #add}ed later are at or before every later time, so they count at once.
         */
        void startSweep() {
            if (order.length < updates) {
                order = new int[updates * 2];
                packed = new long[updates * 2];
            }
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int i = 0; i < updates; i++) {
                min = Math.min(min, times[i]);
                max = Math.max(max, times[i]);
            }
            if (updates < (1 << 25) && max - min >= 0 && max - min < (1L << 38)) {
                for (int i = 0; i < updates; i++) packed[i] = (times[i] - min) << 25 | i;
                Arrays.sort(packed, 0, updates);
                for (int i = 0; i < updates; i++) order[i] = (int) (packed[i] & ((1 << 25) - 1));
            } else {
                Integer[] boxed = new Integer[updates];
                for (int i = 0; i < updates; i++) boxed[i] = i;
                Arrays.sort(boxed, (x, y) -> Long.compare(times[x], times[y]));
                for (int i = 0; i < updates; i++) order[i] = boxed[i];
            }
            int n = vals.size();
            if (counts.length < n) counts = new long[n * 2];
            Arrays.fill(counts, 0, n, 0);
            swept = 0;
            sweepEnd = updates;
            sweeping = true;
        }

        /** Arity 1, after {@link #startSweep}: adds each value's count accumulated at {@code t} (non-decreasing across calls) to {@code into}, a view of this history. */
        void sweepTo(long t, Values<V> into) {
            while (swept < sweepEnd && times[order[swept]] <= t) {
                int u = order[swept++];
                counts[valOf[u]] += diffs[u];
            }
            for (int v = 0, n = vals.size(); v < n; v++) {
                if (counts[v] != 0) into.add(v, counts[v]);
            }
        }

        /** Empties this history, for the next key. */
        void clear() {
            if (anyObjects) {
                Arrays.fill(objects, 0, Math.min(objects.length, vals.size()), null);
                anyObjects = false;
            }
            vals.clear();
            index.clear();
            updates = 0;
            sweeping = false;
        }

        /** Reads the updates of {@code key} (the one value of its column) from {@code c}, looked up exactly (the visits' keys come in order). */
        void load(Cursor c, Column key) {
            clear();
            if (!c.seekKeyExact(key, 0)) return;
            while (c.valValid()) {
                loading = vals.size();
                vals.append(c.valColumn(), c.valIndex());
                c.forEachTime(loader);
                c.stepVal();
            }
        }

        private void push(int v, long[] t, int off, long diff) {
            if (updates == diffs.length) {
                diffs = Arrays.copyOf(diffs, updates * 2);
                valOf = Arrays.copyOf(valOf, updates * 2);
                times = Arrays.copyOf(times, updates * 2 * arity);
            }
            System.arraycopy(t, off, times, updates * arity, arity);
            valOf[updates] = v;
            diffs[updates++] = diff;
        }

        /** The index among the values of value {@code i} of {@code column} (same class), or -1. */
        int indexOf(Column column, int i) {
            return index.find(column, i);
        }

        /** The value index of update {@code u}. */
        int valOf(int u) {
            return valOf[u];
        }

        /** The diff of update {@code u}. */
        long diff(int u) {
            return diffs[u];
        }

        /** Adds an update of value {@code i} of {@code column} (same class; found or appended among the values). */
        void add(Column column, int i, long[] t, long diff) {
            int n = vals.size();
            int v = indexOf(column, i);
            if (v < 0) {
                v = n;
                vals.append(column, i);
                if (counts.length < n + 1) counts = Arrays.copyOf(counts, (n + 1) * 2);
                counts[v] = 0;
            }
            push(v, t, 0, diff);
            if (sweeping) counts[v] += diff;
        }

        void addTimes(java.util.Collection<long[]> set) {
            for (int i = 0; i < updates; i++) set.add(Arrays.copyOfRange(times, i * arity, (i + 1) * arity));
        }

        /** Adds each value's count accumulated at {@code t}, where non-zero, to {@code into} (a view of this history), in value order. */
        void accumulate(long[] t, Values<V> into) {
            int n = vals.size();
            if (counts.length < n) counts = new long[n * 2];
            Arrays.fill(counts, 0, n, 0);
            for (int i = 0; i < updates; i++) {
                boolean le = true;
                for (int k = 0; k < arity; k++) {
                    if (times[i * arity + k] > t[k]) {
                        le = false;
                        break;
                    }
                }
                if (le) counts[valOf[i]] += diffs[i];
            }
            for (int v = 0; v < n; v++) {
                if (counts[v] != 0) into.add(v, counts[v]);
            }
        }
    }
}
