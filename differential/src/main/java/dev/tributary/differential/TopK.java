package dev.tributary.differential;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.Trace;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.TraceWriter;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Capability;
import dev.tributary.timely.CapabilitySet;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OperatorLogic;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The first values of every key, in the values' order: a min, a max, an {@code ORDER BY ...
 * LIMIT} per group.
 *
 * <p>Model: for every key and time {@code t}, the output at {@code t} holds the values of the
 * input at {@code t}, in order, counted in units (a value of count {@code c} is {@code c} units):
 * {@code offset} units skipped, then at most {@code limit} units taken, each value with the number
 * of its units taken ({@code limit < 0}: no limit). Values whose count is not positive are passed
 * over.
 *
 * <p>Work per changed key and time is a walk of the key's values in order until the units are
 * found, plus the key's few outputs: not a pass over all of the key's values, so the minimum of a
 * group of millions changes as cheaply as that of a group of ten. (A reduce would load the group
 * and sort it for every change.) The walk passes values whose count at {@code t} is zero: recent
 * retractions not yet merged with what they retract, which the trace's merges consolidate away.
 *
 * <p>It works in rounds, as {@link Reduce} does: when the input frontier moves from {@code F} to
 * {@code F'}, the times in {@code up(F) \ up(F')} are decided. With totally ordered times a key's
 * output changes only at the times its input changes, so a key is evaluated at the times of its
 * fresh updates (from the batches as they arrived) and the waiting ones, in order; those not yet
 * complete wait with the key and hold a capability. The output is an arrangement this operator
 * writes and reads (the output before each evaluation). In a nested scope (partially ordered
 * times) it is a {@link Reduce} that sorts each changed key's values.
 */
final class TopK {
    private TopK() {}

    static <K, V> Arrangement<K, V> topK(Arrangement<K, V> source, String name, long offset, long limit) {
        if (offset < 0) throw new IllegalArgumentException("topK '" + name + "': offset " + offset + " is negative");
        Scope scope = source.scope();
        if (scope.arity() != 1) return source.reduce(name, sorting(source.valType().order(), offset, limit), source.valType());
        OperatorBuilder b = scope.operator("topK:" + name);
        InputPort<ListContainer<Batch>> in = b.input(source.batches(), Pact.pipeline());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        TraceHandle input = source.trace().share();
        // the source may be another dataflow's trace (an import): the share goes if this dataflow
        // is dropped or its build throws (a seed that does not fit), or it pins that trace's
        // compaction for good (see Scope#onDrop)
        scope.onDrop(input::drop);
        input.setPhysicalCompaction(Antichain.empty(1));
        Column keyProto = source.keyType().newColumn(1);
        Column valProto = source.valType().newColumn(1);
        dev.tributary.arrangements.Seed seed = dev.tributary.arrangements.Seed.of(scope);
        TraceHandle output = seed.trace(scope, name, keyProto, valProto, 1, Trace.EFFORT);
        TraceHandle own = output.share();
        own.setPhysicalCompaction(Antichain.empty(1));
        TraceWriter writer = new TraceWriter(new Batcher(keyProto, valProto, 1), output.trace(), out, b.displayName(), 1);
        Runnable idle = b.idleActivator();
        output.trace().onCompactionMoved(idle);
        Logic<K, V> logic = new Logic<>(b.displayName(), in, input, own, writer, source.keyType(), source.valType(), offset, limit, idle);
        if (seed.seeded()) logic.resumeAt(seed.from());
        b.build(logic);
        return Arrangement.wrap(out.stream(), output, source.keyType(), source.valType());
    }

    /** The same selection as a reducer over a whole group, for partially ordered times. */
    static <K, V> Reducer<K, V, V> sorting(Comparator<? super V> order, long offset, long limit) {
        return (key, input, output) -> {
            Integer[] idx = new Integer[input.size()];
            for (int i = 0; i < idx.length; i++) idx[i] = i;
            Arrays.sort(idx, (x, y) -> order.compare(input.value(x), input.value(y)));
            long skip = offset;
            long take = limit < 0 ? Long.MAX_VALUE : limit;
            for (int j = 0; j < idx.length && take > 0; j++) {
                long c = input.count(idx[j]);
                if (c <= 0) continue;
                long skipped = Math.min(skip, c);
                skip -= skipped;
                long n = Math.min(c - skipped, take);
                if (n > 0) {
                    output.add(input.value(idx[j]), n);
                    take -= n;
                }
            }
        };
    }

    private static final class Logic<K, V> implements OperatorLogic {
        private final String opName;
        private final InputPort<ListContainer<Batch>> in;
        /** Schedules the operator at a step where its worker is otherwise idle, to merge its output. */
        private final Runnable idle;
        private TraceHandle input;
        private TraceHandle output;
        private final TraceWriter writer;
        private final DataType<K> keyType;
        private final long offset;
        private final long limit;
        /** Capabilities for the received batches not yet decided and for the waiting times. */
        private final CapabilitySet caps = new CapabilitySet();
        private Antichain done = Antichain.of(new long[1]);
        private final List<Batch> fresh = new ArrayList<>();
        /** Keys with times not yet complete, and those times (sorted). */
        private final TreeMap<K, long[]> waiting;
        /** The key being visited, as the one value of a column. */
        private final Column probe;
        private final Column dueProbe;
        private final List<K> due = new ArrayList<>();
        /** The visited key's candidate times. */
        private long[] times = new long[16];
        private int timeCount;
        private final Cursor.TimeDiffConsumer collectTime = (t, off, diff) -> addTime(t[off]);
        /** The visited key's output in this round (not yet in the output trace): values, times, diffs. */
        private final Column emitted;
        private long[] emittedTimes = new long[8];
        private long[] emittedDiffs = new long[8];
        /** The selection at the time being evaluated less the output there, by value. */
        private final Reduce.Change<V> change;
        private Updates roundOutput;
        /** The most bytes of a round's output buffer kept for the next round. */
        private static final long ROUND_OUTPUT_KEPT = 1L << 20;
        private final long[] time1 = new long[1];

        Logic(String opName, InputPort<ListContainer<Batch>> in, TraceHandle input, TraceHandle output, TraceWriter writer, DataType<K> keyType,
                DataType<V> valType, long offset, long limit, Runnable idle) {
            this.idle = idle;
            this.opName = opName;
            this.in = in;
            this.input = input;
            this.output = output;
            this.writer = writer;
            this.keyType = keyType;
            this.offset = offset;
            this.limit = limit;
            this.waiting = new TreeMap<>(keyType.order());
            this.probe = keyType.newColumn(1);
            this.dueProbe = keyType.newColumn(1);
            this.emitted = valType.newColumn(8);
            this.change = new Reduce.Change<>(valType);
            this.roundOutput = Updates.type(keyType.newColumn(1), valType.newColumn(1), 1).create();
        }

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
            Antichain.Builder minimal = new Antichain.Builder(1);
            for (long[] ts : waiting.values()) minimal.insert(new long[] {ts[0]});
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

        private void round(Antichain frontier) {
            long hi = frontier.isEmpty() ? Long.MAX_VALUE : frontier.get(0)[0];
            due.clear();
            for (Map.Entry<K, long[]> e : waiting.entrySet()) {
                if (e.getValue()[0] < hi) due.add(e.getKey());
            }
            Cursor news = fresh.size() == 1 ? fresh.get(0).cursor() : Batch.cursor(fresh);
            if (!news.keyValid() && due.isEmpty()) {
                releaseFresh();
                return;
            }
            Cursor inputs = input.reusedCursor();
            Cursor outputs = output.reusedCursor();
            int d = 0;
            while (news.keyValid() || d < due.size()) {
                int c;
                if (!news.keyValid()) c = 1;
                else if (d < due.size()) {
                    dueProbe.clear();
                    keyType.append(dueProbe, due.get(d));
                    c = news.keyColumn().compare(news.keyIndex(), dueProbe, 0);
                } else c = -1;
                probe.clear();
                timeCount = 0;
                if (c <= 0) {
                    probe.append(news.keyColumn(), news.keyIndex());
                    while (news.valValid()) {
                        news.forEachTime(collectTime);
                        news.stepVal();
                    }
                    news.stepKey();
                } else {
                    keyType.append(probe, due.get(d));
                }
                K key = null;
                if (c >= 0) key = due.get(d++);
                long[] before = waiting.isEmpty() ? null : waiting.remove(key != null ? key : keyType.get(probe, 0));
                if (before != null) for (long t : before) addTime(t);
                visit(inputs, outputs, hi);
            }
            releaseFresh();
            writer.pushBuffered(roundOutput);
            roundOutput.clear();
            // sized for a hydration's output: not kept for the small rounds that follow
            if (roundOutput.heapBytes() > ROUND_OUTPUT_KEPT) roundOutput = Updates.type(roundOutput.keys().emptyLike(1), roundOutput.vals().emptyLike(1), 1).create();
        }

        private void addTime(long t) {
            if (timeCount == times.length) times = Arrays.copyOf(times, timeCount * 2);
            times[timeCount++] = t;
        }

        private void releaseFresh() {
            for (int i = 0; i < fresh.size(); i++) fresh.get(i).release();
            fresh.clear();
        }

        /** Evaluates the visited key at its candidate times in the round, in order; the rest wait. */
        private void visit(Cursor inputs, Cursor outputs, long hi) {
            long lo = done.isEmpty() ? Long.MAX_VALUE : done.get(0)[0];
            Arrays.sort(times, 0, timeCount);
            emitted.clear();
            int later = 0;
            long last = Long.MIN_VALUE;
            for (int i = 0; i < timeCount; i++) {
                long t = Math.max(times[i], lo);
                if (t == last) continue;
                last = t;
                if (t >= hi) times[later++] = t;
                else evaluate(inputs, outputs, t);
            }
            if (later > 0) waiting.put(keyType.get(probe, 0), Arrays.copyOf(times, later));
        }

        /** Emits, at {@code t}, the difference between the key's selection and its output so far. */
        private void evaluate(Cursor inputs, Cursor outputs, long t) {
            time1[0] = t;
            change.clear();
            // the selection: the first units of the input at t, in value order
            inputs.seekKey(probe, 0);
            if (inputs.keyValid() && inputs.keyColumn().equal(inputs.keyIndex(), probe, 0)) {
                inputs.rewindVals();
                long skip = offset;
                long take = limit < 0 ? Long.MAX_VALUE : limit;
                while (inputs.valValid() && take > 0) {
                    long n = inputs.accumulate(time1);
                    if (n > 0) {
                        long skipped = Math.min(skip, n);
                        skip -= skipped;
                        long taken = Math.min(n - skipped, take);
                        if (taken > 0) {
                            change.merge(inputs.valColumn(), inputs.valIndex(), taken);
                            take -= taken;
                        }
                    }
                    inputs.stepVal();
                }
            }
            // less the output at t: the trace's, and this round's earlier emissions for the key
            outputs.seekKey(probe, 0);
            if (outputs.keyValid() && outputs.keyColumn().equal(outputs.keyIndex(), probe, 0)) {
                outputs.rewindVals();
                while (outputs.valValid()) {
                    long n = outputs.accumulate(time1);
                    if (n != 0) change.merge(outputs.valColumn(), outputs.valIndex(), -n);
                    outputs.stepVal();
                }
            }
            for (int i = 0; i < emitted.size(); i++) {
                if (emittedTimes[i] <= t) change.merge(emitted, i, -emittedDiffs[i]);
            }
            boolean any = false;
            for (int i = 0; i < change.size(); i++) {
                long diff = change.count(i);
                if (diff == 0) continue;
                any = true;
                roundOutput.keys().append(probe, 0);
                roundOutput.vals().append(change.vals, i);
                roundOutput.push(time1, diff);
                int e = emitted.size();
                if (e == emittedTimes.length) {
                    emittedTimes = Arrays.copyOf(emittedTimes, e * 2);
                    emittedDiffs = Arrays.copyOf(emittedDiffs, e * 2);
                }
                emitted.append(change.vals, i);
                emittedTimes[e] = t;
                emittedDiffs[e] = diff;
            }
            if (any) writer.hold(capabilityFor(time1));
        }

        private Capability capabilityFor(long[] t) {
            Capability c = caps.holder(t);
            if (c == null) throw new IllegalStateException("operator '" + opName + "' holds no capability at or before " + t[0] + " (holds " + caps + ")");
            return c;
        }
    }
}
