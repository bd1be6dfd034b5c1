package dev.tributary.differential;

import dev.tributary.arrangements.Arrange;
import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.Consolidation;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Capability;
import dev.tributary.timely.ContainerType;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import java.util.Arrays;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

/**
 * A multiset that changes over time, carried as a stream of updates {@code (data, time, diff)}.
 *
 * <p>The collection's contents at time {@code t} are the sum of the diffs of its updates at
 * times {@code <= t}; every operator here promises that the accumulated output at each time is
 * the operator applied to the accumulated input at that time, however updates were batched or
 * distributed over workers. Updates travel in {@link Updates} containers: the data in the key
 * column (as laid out by the collection's {@link DataType}), no value, the time and the diff.
 * Stateless operators ({@code map}, {@code filter}, ...) keep records on their worker; keyed
 * operators arrange their input first, which exchanges it by key.
 */
public final class Collection<D> {
    private final Stream<Updates> stream;
    private final DataType<D> type;

    Collection(Stream<Updates> stream, DataType<D> type) {
        this.stream = stream;
        this.type = type;
    }

    /** The underlying stream of update containers. */
    public Stream<Updates> stream() {
        return stream;
    }

    public DataType<D> type() {
        return type;
    }

    public Scope scope() {
        return stream.scope();
    }

    /**
     * Each update of {@code data} keyed by {@code keyOf}: the key in a container's keys, the datum
     * in its values, so that an exchange by key sends it to the worker that holds the key's state.
     */
    static <D, K> Stream<Updates> keyed(Collection<D> data, Function<? super D, ? extends K> keyOf, DataType<K> keyType, String name) {
        DataType<D> dataType = data.type();
        Updates proto = new Updates(keyType.newColumn(1), dataType.newColumn(1), 1);
        ContainerType<Updates> keyedType = Updates.type(proto.keys(), proto.vals(), 1);
        dev.tributary.timely.OperatorBuilder kb = data.scope().operator(name);
        dev.tributary.timely.InputPort<Updates> raw = kb.input(data.stream(), dev.tributary.timely.Pact.pipeline());
        dev.tributary.timely.OutputPort<Updates> keyedOut = kb.output(keyedType);
        kb.build(() -> raw.forEach((cap, batch) -> {
            Updates o = keyedOut.newContainer(batch.size());
            long[] times = batch.times();
            long[] diffs = batch.diffs();
            for (int i = 0; i < batch.size(); i++) {
                keyType.append(o.keys(), keyOf.apply(dataType.get(batch.keys(), i)));
                o.vals().append(batch.keys(), i);
                o.push(times, i, diffs[i]);
            }
            keyedOut.send(cap, o);
        }));
        return keyedOut.stream();
    }

    static ContainerType<Updates> containerType(DataType<?> type, int arity) {
        return Updates.type(type.newColumn(16), new UnitColumn(), arity);
    }

    /** Appends value {@code x} of {@code from} (the layout of {@code into}'s data) at {@code time} with {@code diff} to {@code into}, a container of a collection's kind. */
    static void appendCopy(Updates into, Column from, int x, long[] times, int offset, long diff) {
        into.keys().append(from, x);
        ((UnitColumn) into.vals()).add();
        into.push(times, offset, diff);
    }

    /** Appends {@code (value, time, diff)} to {@code into}, a container of this collection's kind. */
    static <R> void append(Updates into, DataType<R> type, R value, long[] times, int offset, long diff) {
        type.append(into.keys(), value);
        ((UnitColumn) into.vals()).add();
        into.push(times, offset, diff);
    }

    /** Each record's data replaced by {@code f} of it. */
    public <R> Collection<R> map(Function<? super D, ? extends R> f, DataType<R> outType) {
        int arity = scope().arity();
        return new Collection<>(stream.unary("map", Pact.pipeline(), containerType(outType, arity), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) append(o, outType, f.apply(type.get(data.keys(), i)), times, i * arity, diffs[i]);
            out.send(cap, o);
        })), outType);
    }

    /**
     * Writes the image of value {@code i} of a collection's column straight into the column of the
     * mapped collection, or drops it, with no object for either: a projection of encoded rows
     * copies byte ranges from one slab to the other.
     */
    @FunctionalInterface
    public interface ColumnMapper {
        /** Appends the image of {@code from}'s value {@code i} to {@code into} (one value) and says so, or appends nothing and returns false. */
        boolean map(Column from, int i, Column into);
    }

    /** {@link #map} (and a filter) done column to column by {@code f}, the records' data never made into objects. */
    public <R> Collection<R> mapColumns(ColumnMapper f, DataType<R> outType) {
        int arity = scope().arity();
        return new Collection<>(stream.unary("map", Pact.pipeline(), containerType(outType, arity), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            Column from = data.keys();
            Column into = o.keys();
            UnitColumn units = (UnitColumn) o.vals();
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                if (!f.map(from, i, into)) continue;
                units.add();
                o.push(times, i * arity, diffs[i]);
            }
            out.send(cap, o);
        })), outType);
    }

    /** Where {@link Exploder} puts the records it makes of one update. */
    @FunctionalInterface
    public interface ExplodeSink<R> {
        /** A record at the exploded update's time, with multiplicity {@code diff}. */
        void add(R data, long diff);
    }

    /** Makes records, each with its own multiplicity, of one {@code (data, diff)}. */
    @FunctionalInterface
    public interface Exploder<D, R> {
        void explode(D data, long diff, ExplodeSink<R> out);
    }

    /**
     * Each update {@code (d, t, n)} replaced by the records {@code f} makes of {@code (d, n)}, at
     * the same time {@code t}, each with the multiplicity {@code f} gives it: differential
     * dataflow's explode. A multiplicity can carry a value (a sum's addend times {@code n}), so
     * that consolidation adds the values up: how accumulable aggregates keep no more than their
     * totals. A zero multiplicity is dropped.
     */
    public <R> Collection<R> explode(Exploder<? super D, R> f, DataType<R> outType) {
        return explode(f, outType, false);
    }

    /**
     * {@link #explode(Exploder, DataType)}; with {@code combine}, the records of one message that
     * are {@code equals} at the same time are sent as one, with their multiplicities added: where
     * many updates add to few records (every row of a group to the group's sums), the arrangement
     * that consolidates them then sorts a handful per message, not one per update. Where a
     * message's records turn out mostly distinct (many small groups), combining is dropped for
     * the next {@value #COMBINE_PAUSE} messages: hashing every record would then cost more than
     * it saves. Only for data whose {@code equals} and {@code hashCode} agree with its type's
     * equality.
     */
    public <R> Collection<R> explode(Exploder<? super D, R> f, DataType<R> outType, boolean combine) {
        // the sink of every keyed explode is also a plain one, whose values are units
        return new Collection<>(explodeInto((d, n, out) -> f.explode(d, n, (ExplodeSink<R>) out), outType, DataType.unit(), combine), outType);
    }

    /** Where {@link KeyedExploder} puts the records it makes of one update. */
    @FunctionalInterface
    public interface KeyedSink<K, V> {
        /** A record {@code (key, val)} at the exploded update's time, with multiplicity {@code diff}. */
        void add(K key, V val, long diff);
    }

    /** Makes keyed records, each with its own multiplicity, of one {@code (data, diff)}. */
    @FunctionalInterface
    public interface KeyedExploder<D, K, V> {
        void explode(D data, long diff, KeyedSink<K, V> out);
    }

    /**
     * {@link #explode(Exploder, DataType, boolean)} into {@code (key, val)} records held in key and
     * value columns, ready to be arranged by key: what {@code explode(...).arrangeByKey(KV::key,
     * ..., KV::val, ...)} arranges, without a record object per update and a second pass to split
     * it (a grouping's build explodes every row into its group's sums).
     */
    public <K, V> KeyedCollection<K, V> explodeByKey(KeyedExploder<? super D, K, V> f, DataType<K> keyType, DataType<V> valType, boolean combine) {
        return new KeyedCollection<>(explodeInto(f, keyType, valType, combine), keyType, valType);
    }

    private <K, V> Stream<Updates> explodeInto(KeyedExploder<? super D, K, V> f, DataType<K> keyType, DataType<V> valType, boolean combine) {
        int arity = scope().arity();
        int[] pause = new int[1];
        ContainerType<Updates> outType = Updates.type(keyType.newColumn(16), valType.newColumn(16), arity);
        Combiner combiner = combine ? new Combiner(new Updates(keyType.newColumn(16), valType.newColumn(16), arity)) : null;
        return stream.unary("explode", Pact.pipeline(), outType, (in, out) -> in.forEach((cap, data) -> {
            boolean combining = combine && pause[0] == 0;
            if (pause[0] > 0) pause[0]--;
            ExplodingSink<K, V> sink = new ExplodingSink<>(out.newContainer(data.size()), keyType, valType, data.times(), arity, combining ? combiner : null);
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                sink.at(i);
                f.explode(type.get(data.keys(), i), diffs[i], sink);
            }
            sink.flush();
            if (combining && sink.out.size() * 2 > sink.records) pause[0] = COMBINE_PAUSE;
            out.send(cap, sink.out);
        }));
    }

    /**
     * Where one message's exploded records go: appended to {@link #out} at the time of the update
     * being exploded, or, combining, added up by {@code (key, val)} per time and appended at each
     * change of time. Also the sink of a plain {@link Exploder}, whose records have unit values.
     */
    private static final class ExplodingSink<K, V> implements KeyedSink<K, V>, ExplodeSink<K> {
        final Updates out;
        private final DataType<K> keyType;
        private final DataType<V> valType;
        private final long[] times;
        private final int arity;
        private final Combiner combiner;
        long records;
        private int at;
        /** The first update whose records {@link #combiner} holds. */
        private int from;

        ExplodingSink(Updates out, DataType<K> keyType, DataType<V> valType, long[] times, int arity, Combiner combiner) {
            this.out = out;
            this.keyType = keyType;
            this.valType = valType;
            this.times = times;
            this.arity = arity;
            this.combiner = combiner;
        }

        /** The records that follow are made of update {@code i}. */
        void at(int i) {
            if (combiner != null && i > from && !java.util.Arrays.equals(times, i * arity, (i + 1) * arity, times, from * arity, (from + 1) * arity)) {
                flush();
                from = i;
            }
            at = i;
        }

        @Override
        public void add(K key, V val, long diff) {
            if (combiner != null) {
                records++;
                Updates held = combiner.held;
                keyType.append(held.keys(), key);
                valType.append(held.vals(), val);
                held.push(times, from * arity, diff);
            } else if (diff != 0) {
                keyType.append(out.keys(), key);
                valType.append(out.vals(), val);
                out.push(times, at * arity, diff);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void add(K data, long diff) {
            add(data, (V) Unit.UNIT, diff);
        }

        /** Appends the combined records, with their added multiplicities, at the time of update {@link #from}, and empties the combiner. */
        void flush() {
            if (combiner != null) combiner.addUpInto(out, times, from * arity);
        }
    }

    /**
     * The records of one time an exploding operator is combining, held in columns as they come
     * (no record object per update), and added up by {@code (key, val)} ({@link Consolidation})
     * when the time changes or the message ends. Kept by the operator across messages.
     */
    private static final class Combiner {
        final Updates held;
        private final Consolidation consolidation = new Consolidation();
        private int[] records = new int[32];

        Combiner(Updates held) {
            this.held = held;
        }

        /** Appends each distinct held record once, in the order of its first arrival, with its multiplicities' non-zero sum, at {@code times[timeOffset..]}; empties the held records. */
        void addUpInto(Updates out, long[] times, int timeOffset) {
            int n = held.size();
            if (n == 0) return;
            if (records.length < n) records = new int[Math.max(n, 2 * records.length)];
            for (int i = 0; i < n; i++) records[i] = i;
            Column keys = held.keys();
            Column vals = held.vals();
            long[] diffs = held.diffs();
            int kept = consolidation.addUp(keys, vals, null, 1, diffs, records, n);
            for (int i = 0; i < kept; i++) {
                int x = records[i];
                out.keys().append(keys, x);
                out.vals().append(vals, x);
                out.push(times, timeOffset, diffs[x]);
            }
            held.clear();
        }
    }

    /** Messages {@link #explode(Exploder, DataType, boolean)} sends uncombined after one whose records were mostly distinct. */
    static final int COMBINE_PAUSE = 16;

    /** Where {@link UpdateExpander} puts the updates it makes of one. */
    @FunctionalInterface
    public interface UpdateSink<R> {
        /** An update {@code (data, time, diff)}; {@code time} must be at or after the time of the update being expanded. */
        void update(R data, long time, long diff);
    }

    /** Makes any number of updates of one {@code (data, time, diff)}. */
    @FunctionalInterface
    public interface UpdateExpander<D, R> {
        void expand(D data, long time, long diff, UpdateSink<R> out);
    }

    /**
     * Each update {@code (d, t, n)} replaced by the updates {@code f} makes of it, each at a time
     * {@code >= t}: the one primitive under moving records in time (temporal filters, history
     * folded into a snapshot), making times and counts data ({@code CHANGES}) and repeating records.
     * Top-level times only.
     */
    public <R> Collection<R> flatMapUpdates(UpdateExpander<? super D, R> f, DataType<R> outType) {
        requireTopLevel("flatMapUpdates");
        ContainerType<Updates> out = containerType(outType, 1);
        return new Collection<>(stream.unary("flatMapUpdates", Pact.pipeline(), out, (in, port) -> {
            // one sink per activation, not per record: it files each update under its output time
            final class BySink implements UpdateSink<R> {
                final java.util.TreeMap<Long, Updates> byTime = new java.util.TreeMap<>();
                final long[] at = new long[1];
                long from;

                @Override
                public void update(R r, long t, long n) {
                    if (t < from) throw new IllegalArgumentException("an update at " + from + " was expanded to one at " + t + "; times may only move forward");
                    if (n == 0) return;
                    at[0] = t;
                    Updates o = byTime.get(t);
                    if (o == null) byTime.put(t, o = port.newContainer());
                    append(o, outType, r, at, 0, n);
                }
            }
            BySink sink = new BySink();
            in.forEach((cap, data) -> {
                long[] times = data.times();
                long[] diffs = data.diffs();
                for (int i = 0; i < data.size(); i++) {
                    sink.from = times[i];
                    f.expand(type.get(data.keys(), i), times[i], diffs[i], sink);
                }
                long capTime = cap.time()[0];
                for (var e : sink.byTime.entrySet()) {
                    if (e.getKey() == capTime) port.send(cap, e.getValue());
                    else port.send(cap, new long[] {e.getKey()}, e.getValue());
                }
                sink.byTime.clear();
            });
        }), outType);
    }

    /** Each update moved to a later time: {@code (d, t, n)} becomes {@code (d, later(t), n)}, which must be {@code >= t}. */
    public Collection<D> delay(java.util.function.LongUnaryOperator later) {
        return flatMapUpdates((d, t, n, out) -> out.update(d, later.applyAsLong(t), n), type);
    }

    /** Makes a record of an update: its data, time and multiplicity. */
    @FunctionalInterface
    public interface Reifier<D, R> {
        R apply(D data, long time, long diff);
    }

    /**
     * Each update's time and multiplicity made part of its data: {@code (d, t, n)} becomes
     * {@code (f(d, t, n), t, +1)}, so the result only grows. Consolidate first if each {@code (d, t)}
     * should appear once.
     */
    public <R> Collection<R> reify(Reifier<? super D, ? extends R> f, DataType<R> outType) {
        return flatMapUpdates((d, t, n, out) -> out.update(f.apply(d, t, n), t, 1), outType);
    }

    private void requireTopLevel(String op) {
        if (scope().arity() != 1) {
            throw new IllegalArgumentException(op + " works on top-level times only; scope '" + scope().name() + "' has " + scope().arity() + " coordinates");
        }
    }

    /** Each record replaced by the records {@code f} gives for it, each with the record's time and diff. */
    public <R> Collection<R> flatMap(Function<? super D, ? extends Iterable<? extends R>> f, DataType<R> outType) {
        int arity = scope().arity();
        return new Collection<>(stream.unary("flatMap", Pact.pipeline(), containerType(outType, arity), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                for (R r : f.apply(type.get(data.keys(), i))) append(o, outType, r, times, i * arity, diffs[i]);
            }
            out.send(cap, o);
        })), outType);
    }

    /** Where {@link #flatMapOr} sends a record's results: to the main output or the other one. */
    public interface Outputs<R, E> {
        void ok(R value);

        void other(E value);
    }

    /**
     * How many records {@link #flatMapOr} emits in one activation before it yields the worker: a
     * cross product of table functions makes billions of rows of a few, and one activation that
     * made them all held the worker (and every statement waiting on it) until the heap ran out.
     */
    static final int FLAT_MAP_FUEL = 1 << 16;

    /**
     * How long one activation of {@link #expandOr} may spend in one record's results, besides its
     * fuel: a commit that needs a dozen worker steps to reach an index waits up to a slice (and
     * what the slice's output costs downstream) per step when a runaway expansion shares the
     * worker. With the fuel alone a step of a cross product of table functions ran 20-40 ms and a
     * read of a view after a write beside it took 100-400 ms at p99; with 1 ms slices about 20 ms,
     * with these about 12 ms; large expansions were no slower with them (they are no faster with
     * no slice at all).
     */
    static final long FLAT_MAP_SLICE_NANOS = 100_000;

    /** How many results of one record {@link #expandOr} emits between two looks at the clock. */
    private static final int FLAT_MAP_CLOCK_EVERY = 1 << 10;

    /**
     * Each record replaced by what {@code f} emits for it, to one of two collections, each with
     * the record's time and diff. The SQL layer sends rows to the first and the errors met while
     * computing them to the second, so a bad row is data, not a failed dataflow.
     *
     * <p>Fuelled: once an activation has emitted {@link #FLAT_MAP_FUEL} records it sends them and
     * stops between two input records, keeping the rest of its input (and a capability for its
     * time) for its next activation, which it schedules; so the worker goes back to its loop
     * (other dataflows, commands, cancels) and what follows consumes the output as it comes. One
     * record's results are emitted in one go: see {@link #expandOr} for records that make many.
     */
    public <R, E> KV<Collection<R>, Collection<E>> flatMapOr(java.util.function.BiConsumer<? super D, Outputs<R, E>> f,
            DataType<R> okType, DataType<E> otherType) {
        return expanding(f, null, okType, otherType);
    }

    /**
     * A record's results, emitted a part at a time: {@link #expandOr} keeps it between activations
     * while it has more, so one record that makes millions of results (a table function over a
     * large range) does not hold the worker for all of them.
     */
    public interface Expansion<R, E> {
        /**
         * Emits the next results, about {@code budget} of them (at least one while any remain);
         * whether any remain after these.
         */
        boolean emit(Outputs<R, E> out, long budget);
    }

    /**
     * As {@link #flatMapOr}, with each record's results made by the expansion {@code f} returns
     * for it (null for none), and fuelled within a record too: an activation stops when its fuel
     * is spent, also in the middle of a record's results, or when one record's results have taken
     * it {@link #FLAT_MAP_SLICE_NANOS}; the next one goes on from there, after the worker's other
     * dataflows have had a step when it stopped within a record
     * ({@link dev.tributary.timely.OperatorBuilder#yieldActivator}).
     */
    public <R, E> KV<Collection<R>, Collection<E>> expandOr(Function<? super D, ? extends Expansion<R, E>> f,
            DataType<R> okType, DataType<E> otherType) {
        return expanding(null, f, okType, otherType);
    }

    /**
     * Where a {@link ColumnExpander} writes a record's results: a result is appended to
     * {@link #into()} as one value, then {@link #ok()} gives it the record's time and diff.
     */
    public interface ColumnOutputs<E> {
        /** The main output's column: append exactly one value to it, then call {@link #ok()}. */
        Column into();

        /** The value just appended to {@link #into()} is a result of the record being expanded. */
        void ok();

        /** {@code value} goes to the other output. */
        void other(E value);
    }

    /**
     * Expands a record read where it is stored, writing its results straight into the output's
     * column: no object for the record or its results. Stateless between calls (all it needs to
     * go on with a record is the position it returned), so one expander serves every record, and
     * a record whose expansion is unfinished is read again from wherever its container moved.
     */
    @FunctionalInterface
    public interface ColumnExpander<E> {
        /** What {@link #expand} returns when the record has no more results. */
        long DONE = -1;

        /**
         * Emits results of value {@code i} of {@code from}, beginning at {@code position} (0 for a
         * record's first call, else what its previous call returned), about {@code budget} of
         * them (at least one while any remain); the position to go on from, or {@link #DONE}.
         * {@code from} may be another column at the next call for the same record.
         */
        long expand(Column from, int i, long position, ColumnOutputs<E> out, long budget);
    }

    /**
     * {@link #expandOr} with each record's results written by {@code f} into the main output's
     * column as it reads the record in place (a table function over encoded rows that appends the
     * input row's bytes and a few more, with no row object on either side); fuelled and sliced as
     * {@link #expandOr} is. {@code okType} must be the type whose column {@code f} writes.
     */
    public <R, E> KV<Collection<R>, Collection<E>> expandColumnsOr(ColumnExpander<E> f, DataType<R> okType, DataType<E> otherType) {
        return expanding(null, null, f, okType, otherType);
    }

    /** {@link #flatMapOr} ({@code eager} given) or {@link #expandOr} ({@code lazy} given). */
    private <R, E> KV<Collection<R>, Collection<E>> expanding(java.util.function.BiConsumer<? super D, Outputs<R, E>> eager,
            Function<? super D, ? extends Expansion<R, E>> lazy, DataType<R> okType, DataType<E> otherType) {
        return expanding(eager, lazy, null, okType, otherType);
    }

    /** {@link #flatMapOr} ({@code eager} given), {@link #expandOr} ({@code lazy} given) or {@link #expandColumnsOr} ({@code columns} given). */
    private <R, E> KV<Collection<R>, Collection<E>> expanding(java.util.function.BiConsumer<? super D, Outputs<R, E>> eager,
            Function<? super D, ? extends Expansion<R, E>> lazy, ColumnExpander<E> columns, DataType<R> okType, DataType<E> otherType) {
        int arity = scope().arity();
        dev.tributary.timely.OperatorBuilder b = scope().operator(eager != null ? "flatMapOr" : columns != null ? "expandColumnsOr" : "expandOr");
        dev.tributary.timely.InputPort<Updates> in = b.input(stream, Pact.pipeline());
        dev.tributary.timely.OutputPort<Updates> okPort = b.output(containerType(okType, arity));
        dev.tributary.timely.OutputPort<Updates> otherPort = b.output(containerType(otherType, arity));
        Runnable again = b.activator();
        // One record's expansion that outlasts a slice (a table function's billion rows) is what
        // runs away: it stops at the slice's end and waits for the worker's other dataflows to
        // have had a step. Between records only the fuel counts, and the ordinary activation: the
        // upstream paces a record-by-record step, and a slice there let a scan produce faster than
        // slices consumed, piling its input up here (a 250 MB table summed in a 128 MB heap ran out
        // of memory so).
        Runnable afterOthers = b.yieldActivator();
        ContainerType<Updates> inType = stream.type();
        b.build(new dev.tributary.timely.OperatorLogic() {
            /** Input records not expanded yet, each container with a capability for its time. */
            private final java.util.ArrayDeque<KV<Capability, Updates>> waiting = new java.util.ArrayDeque<>();
            private long fuel;
            /** Where the first waiting container's next record is. */
            private int waitingFrom;
            /** The unfinished expansion of the record at {@link #waitingFrom}, or null. */
            private Expansion<R, E> started;
            /** Where the unfinished column expansion of the record at {@link #waitingFrom} goes on, or {@link ColumnExpander#DONE}. */
            private long resumeAt = ColumnExpander.DONE;

            /** When this activation's slice ends ({@link #FLAT_MAP_SLICE_NANOS}). */
            private long deadline;
            /** Records emitted since the clock was last read. */
            private long sinceClock;

            @Override
            public void schedule() {
                fuel = FLAT_MAP_FUEL;
                deadline = System.nanoTime() + FLAT_MAP_SLICE_NANOS;
                sinceClock = 0;
                while (!waiting.isEmpty() && fuel > 0) {
                    KV<Capability, Updates> w = waiting.peek();
                    int next = expand(w.key(), w.val(), waitingFrom);
                    if (next < w.val().size()) {
                        waitingFrom = next;
                        break;
                    }
                    waitingFrom = 0;
                    waiting.poll().key().drop();
                }
                in.forEach((cap, data) -> {
                    int next = waiting.isEmpty() && fuel > 0 ? expand(cap, data, 0) : 0;
                    if (next < data.size()) {
                        // the container goes back to the runtime: what is left of it is copied
                        // (when it is the first to wait, started or resumeAt belongs to its first record)
                        Updates rest = inType.create(data.size() - next);
                        for (int i = next; i < data.size(); i++) rest.appendFrom(data, i);
                        waiting.add(KV.of(cap.retain(), rest));
                    }
                });
                if (started != null || resumeAt != ColumnExpander.DONE) afterOthers.run();
                else if (!waiting.isEmpty()) again.run();
            }

            /**
             * Expands {@code data}'s records from {@code from} on until the fuel is spent; the
             * index of the first not expanded completely (its expansion then in {@link #started}).
             */
            private int expand(Capability cap, Updates data, int from) {
                Updates oks = okPort.newContainer((int) Math.min(data.size() - from, FLAT_MAP_FUEL));
                Updates others = otherPort.newContainer();
                long[] times = data.times();
                long[] diffs = data.diffs();
                int[] at = new int[1];
                Outputs<R, E> outputs = new Outputs<>() {
                    @Override
                    public void ok(R value) {
                        append(oks, okType, value, times, at[0] * arity, diffs[at[0]]);
                    }

                    @Override
                    public void other(E value) {
                        append(others, otherType, value, times, at[0] * arity, diffs[at[0]]);
                    }
                };
                ColumnOutputs<E> columnOutputs = columns == null ? null : new ColumnOutputs<>() {
                    @Override
                    public Column into() {
                        return oks.keys();
                    }

                    @Override
                    public void ok() {
                        ((UnitColumn) oks.vals()).add();
                        oks.push(times, at[0] * arity, diffs[at[0]]);
                    }

                    @Override
                    public void other(E value) {
                        outputs.other(value);
                    }
                };
                int i = from;
                while (i < data.size() && fuel > 0) {
                    at[0] = i;
                    int before = oks.size() + others.size();
                    boolean unfinished = false;
                    if (eager != null) {
                        eager.accept(type.get(data.keys(), i), outputs);
                    } else if (columns != null) {
                        long position = resumeAt == ColumnExpander.DONE ? 0 : resumeAt;
                        resumeAt = columns.expand(data.keys(), i, position, columnOutputs, Math.min(fuel, FLAT_MAP_CLOCK_EVERY));
                        unfinished = resumeAt != ColumnExpander.DONE;
                    } else {
                        Expansion<R, E> e = started != null ? started : lazy.apply(type.get(data.keys(), i));
                        started = null;
                        if (e != null && e.emit(outputs, Math.min(fuel, FLAT_MAP_CLOCK_EVERY))) {
                            started = e;
                            unfinished = true;
                        }
                    }
                    long emitted = Math.max(1, oks.size() + others.size() - before);
                    fuel -= emitted;
                    if (unfinished) {
                        sinceClock += emitted;
                        if (sinceClock >= FLAT_MAP_CLOCK_EVERY) {
                            sinceClock = 0;
                            // past its slice the activation ends within the record, as when its fuel is spent
                            if (System.nanoTime() - deadline > 0) fuel = 0;
                        }
                        if (fuel > 0) continue;
                        break;
                    }
                    i++;
                }
                if (oks.size() > 0) okPort.send(cap, oks);
                if (others.size() > 0) otherPort.send(cap, others);
                return i;
            }
        });
        return KV.of(new Collection<>(okPort.stream(), okType), new Collection<>(otherPort.stream(), otherType));
    }

    /**
     * Each record meets the values of its key in {@code arranged} as they were just before its
     * time ({@code strict}) or at its time, and leaves at its time: {@code f(record, value)} with
     * the product of the counts. The building block of delta joins; see {@link HalfJoin}.
     */
    public <K, V, R> Collection<R> halfJoin(Function<? super D, ? extends K> keyOf, Arrangement<K, V> arranged, boolean strict,
            java.util.function.BiFunction<? super D, ? super V, ? extends R> f, DataType<R> outType) {
        return HalfJoin.halfJoin(this, keyOf, arranged, new HalfJoin.ReadTime.OwnTime<>(strict), false, f, outType, null);
    }

    /**
     * Each record meets the values of its key in {@code arranged} at the time {@code readTime}
     * gives, once, and leaves: {@code f(record, value)} with the product of the counts, and with
     * {@code outer} {@code f(record, null)} when there is no value; {@code accounting} (may be null)
     * reports what the operator holds. See {@link HalfJoin}.
     */
    public <K, V, R> Collection<R> halfJoin(Function<? super D, ? extends K> keyOf, Arrangement<K, V> arranged,
            HalfJoin.ReadTime<D> readTime, boolean outer, java.util.function.BiFunction<? super D, ? super V, ? extends R> f,
            DataType<R> outType, HalfJoin.Accounting accounting) {
        return HalfJoin.halfJoin(this, keyOf, arranged, readTime, outer, f, outType, accounting);
    }

    /** The records whose data satisfies {@code p}. */
    public Collection<D> filter(Predicate<? super D> p) {
        return new Collection<>(stream.unary("filter", Pact.pipeline(), stream.type(), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            for (int i = 0; i < data.size(); i++) {
                if (p.test(type.get(data.keys(), i))) o.appendFrom(data, i);
            }
            out.send(cap, o);
        })), type);
    }

    /** Every diff negated: the collection subtracted rather than added. */
    public Collection<D> negate() {
        int arity = scope().arity();
        return new Collection<>(stream.unary("negate", Pact.pipeline(), stream.type(), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                o.keys().append(data.keys(), i);
                ((UnitColumn) o.vals()).add();
                o.push(times, i * arity, -diffs[i]);
            }
            out.send(cap, o);
        })), type);
    }

    /** The multiset sum of this collection and {@code other}. */
    public Collection<D> concat(Collection<D> other) {
        return new Collection<>(stream.concat(other.stream), type);
    }

    /**
     * The same collection with its updates consolidated: at most one update per {@code (data, time)},
     * none with a zero diff, each released once its time is complete. Exchanges records by data.
     */
    public Collection<D> consolidate() {
        return flattenBatches(Arrange.batch(stream, "consolidate", type.newColumn(1), new UnitColumn()), type,
                (keys, k, vals, v) -> type.get(keys, k));
    }

    /** Receives one update as it passes. */
    @FunctionalInterface
    public interface UpdateConsumer<D> {
        void accept(D data, long[] time, long diff);
    }

    /** Calls {@code action} for every update as it passes (on the worker that holds it), unchanged. */
    public Collection<D> inspect(UpdateConsumer<? super D> action) {
        int arity = scope().arity();
        return new Collection<>(stream.inspect((t, data) -> {
            long[] times = data.times();
            for (int i = 0; i < data.size(); i++) {
                action.accept(type.get(data.keys(), i), Arrays.copyOfRange(times, i * arity, (i + 1) * arity), data.diffs()[i]);
            }
        }), type);
    }

    /** A probe on this collection's frontier: every update at a time the probe has passed has been delivered. */
    public Probe probe() {
        return stream.probe();
    }

    /** This collection inside {@code inner}, nested directly in its scope: each time {@code t} becomes {@code (t, 0)}. */
    public Collection<D> enter(Scope inner) {
        int arity = scope().arity();
        ContainerType<Updates> inType = containerType(type, arity + 1);
        return new Collection<>(stream.enter(inner, inType, (data, o) -> {
            long[] times = data.times();
            long[] t = new long[arity + 1];
            for (int i = 0; i < data.size(); i++) {
                System.arraycopy(times, i * arity, t, 0, arity);
                o.keys().append(data.keys(), i);
                ((UnitColumn) o.vals()).add();
                o.push(t, 0, data.diffs()[i]);
            }
        }), type);
    }

    /** This collection in the enclosing scope: each time {@code (t, i)} becomes {@code t}, so updates of all rounds add up. */
    public Collection<D> leave() {
        int arity = scope().arity();
        ContainerType<Updates> outType = containerType(type, arity - 1);
        return new Collection<>(stream.leave(outType, (data, o) -> {
            long[] times = data.times();
            for (int i = 0; i < data.size(); i++) {
                o.keys().append(data.keys(), i);
                ((UnitColumn) o.vals()).add();
                o.push(times, i * arity, data.diffs()[i]);
            }
        }), type);
    }

    /** The same updates with the innermost time coordinate advanced by one: what a loop's next round sees. */
    Collection<D> stepRound() {
        return stepRound(Long.MAX_VALUE);
    }

    /**
     * {@link #stepRound()} for the updates of rounds below {@code limit}; the updates of round
     * {@code limit} and later are dropped, so a loop fed by this stops after that round.
     */
    Collection<D> stepRound(long limit) {
        int arity = scope().arity();
        return new Collection<>(stream.unary("round+1", Pact.pipeline(), stream.type(), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            long[] times = data.times();
            long[] t = new long[arity];
            for (int i = 0; i < data.size(); i++) {
                System.arraycopy(times, i * arity, t, 0, arity);
                if (t[arity - 1] >= limit || t[arity - 1] == Long.MAX_VALUE) continue;
                t[arity - 1]++;
                o.keys().append(data.keys(), i);
                ((UnitColumn) o.vals()).add();
                o.push(t, 0, data.diffs()[i]);
            }
            out.send(cap, o);
        })), type);
    }

    /** The updates whose innermost time coordinate is exactly {@code round}, at their times. */
    Collection<D> inRound(long round) {
        int arity = scope().arity();
        return new Collection<>(stream.unary("in round " + round, Pact.pipeline(), stream.type(), (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            long[] times = data.times();
            for (int i = 0; i < data.size(); i++) {
                if (times[i * arity + arity - 1] != round) continue;
                o.keys().append(data.keys(), i);
                ((UnitColumn) o.vals()).add();
                o.push(times, i * arity, data.diffs()[i]);
            }
            if (o.size() > 0) out.send(cap, o);
        })), type);
    }

    /**
     * The fixed point of {@code body} starting from this collection: the limit of
     * {@code x0 = this, x(i+1) = body(x(i))}, maintained at every outer time as this collection
     * (and anything {@code body} brings in with {@link #enter}) changes. {@code body} receives
     * the loop variable inside a new nested scope ({@code scope()} of its argument).
     */
    public Collection<D> iterate(Function<Collection<D>, Collection<D>> body) {
        Scope inner = scope().iterative("iterate");
        Variable<D> variable = Variable.from(enter(inner));
        Collection<D> result = body.apply(variable.collection());
        variable.set(result);
        return result.leave();
    }

    /** This collection arranged by {@code key}, with {@code val} as the value of each record. */
    public <K, V> Arrangement<K, V> arrangeByKey(Function<? super D, ? extends K> key, DataType<K> keyType, Function<? super D, ? extends V> val,
            DataType<V> valType) {
        int arity = scope().arity();
        ContainerType<Updates> kvType = Updates.type(keyType.newColumn(16), valType.newColumn(16), arity);
        Stream<Updates> kv = stream.unary("key", Pact.pipeline(), kvType, (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                D d = type.get(data.keys(), i);
                keyType.append(o.keys(), key.apply(d));
                valType.append(o.vals(), val.apply(d));
                o.push(times, i * arity, diffs[i]);
            }
            out.send(cap, o);
        }));
        return Arrangement.arrange(kv, "byKey", keyType, valType);
    }

    /**
     * {@link #arrangeByKey} done column to column: {@code key} and {@code val} each write one
     * value for each record straight from this collection's column into the key and value
     * columns, with no object made for the record, its key or its value. A record whose
     * {@code key} writes nothing and returns false is dropped (a filter on the way in).
     *
     * @throws IllegalStateException (in the dataflow) if {@code val} writes no value for a record whose key was written
     */
    public <K, V> Arrangement<K, V> arrangeByKeyColumns(ColumnMapper key, DataType<K> keyType, ColumnMapper val, DataType<V> valType) {
        int arity = scope().arity();
        ContainerType<Updates> kvType = Updates.type(keyType.newColumn(16), valType.newColumn(16), arity);
        Stream<Updates> kv = stream.unary("key", Pact.pipeline(), kvType, (in, out) -> in.forEach((cap, data) -> {
            Updates o = out.newContainer(data.size());
            Column from = data.keys();
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                if (!key.map(from, i, o.keys())) continue;
                if (!val.map(from, i, o.vals())) {
                    throw new IllegalStateException("arrangeByKeyColumns in " + scope().name() + ": the value mapper wrote no value for record " + i);
                }
                o.push(times, i * arity, diffs[i]);
            }
            out.send(cap, o);
        }));
        return Arrangement.arrange(kv, "byKey", keyType, valType);
    }

    /** A {@link ColumnMapper} that copies each value as it is. */
    public static boolean copy(Column from, int i, Column into) {
        into.append(from, i);
        return true;
    }

    /**
     * {@link #arrangeByKey} of a collection of {@code long}s into {@code long} keys and values,
     * with no object made per record: the same arrangement as
     * {@code arrangeByKey(d -> key.applyAsLong(d), DataType.longs(), d -> val.applyAsLong(d), DataType.longs())}.
     *
     * @throws IllegalArgumentException if this collection's type is not {@link DataType#longs()}
     */
    public Arrangement<Long, Long> arrangeLongsByKey(LongUnaryOperator key, LongUnaryOperator val) {
        if (!(type instanceof DataType.Longs)) {
            throw new IllegalArgumentException("arrangeLongsByKey needs a collection of longs; " + this + " holds " + type + ": use arrangeByKey");
        }
        int arity = scope().arity();
        ContainerType<Updates> kvType = Updates.type(new LongColumn(16), new LongColumn(16), arity);
        Stream<Updates> kv = stream.unary("key", Pact.pipeline(), kvType, new LongKeying(key, val, arity));
        return Arrangement.arrange(kv, "byKey", DataType.longs(), DataType.longs());
    }

    /** {@link #arrangeLongsByKey}'s keying operator; its message consumer is made once, not per activation. */
    private static final class LongKeying implements Stream.UnaryLogic<Updates, Updates> {
        private final LongUnaryOperator key;
        private final LongUnaryOperator val;
        private final int arity;
        private dev.tributary.timely.InputPort.MessageConsumer<Updates> consumer;

        LongKeying(LongUnaryOperator key, LongUnaryOperator val, int arity) {
            this.key = key;
            this.val = val;
            this.arity = arity;
        }

        @Override
        public void schedule(dev.tributary.timely.InputPort<Updates> in, dev.tributary.timely.OutputPort<Updates> out) {
            if (consumer == null) consumer = (cap, data) -> out.send(cap, keyed(data, out.newContainer(data.size())));
            in.forEach(consumer);
        }

        private Updates keyed(Updates data, Updates o) {
            LongColumn records = (LongColumn) data.keys();
            LongColumn keys = (LongColumn) o.keys();
            LongColumn vals = (LongColumn) o.vals();
            long[] times = data.times();
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) {
                long d = records.getLong(i);
                keys.add(key.applyAsLong(d));
                vals.add(val.applyAsLong(d));
                o.push(times, i * arity, diffs[i]);
            }
            return o;
        }
    }

    /** This collection arranged by its data itself, with no value. */
    public Arrangement<D, Unit> arrangeBySelf() {
        return Arrangement.arrange(stream, "bySelf", type, DataType.unit());
    }

    /** Each distinct data with its (non-zero) count. */
    public Collection<KV<D, Long>> count() {
        return arrangeBySelf().count().asCollection();
    }

    /** Each data whose count is positive, once. */
    public Collection<D> distinct() {
        return threshold(n -> n > 0 ? 1 : 0);
    }

    /** Each data with its count replaced by {@code f} of it (dropped where that is zero). */
    public Collection<D> threshold(LongUnaryOperator f) {
        return Reduce.reduce(arrangeBySelf(), "threshold", (key, in, out) -> {
            long n = 0;
            for (int i = 0; i < in.size(); i++) n += in.count(i);
            long m = f.applyAsLong(n);
            if (m != 0) out.add(Unit.UNIT, m);
        }, DataType.unit(), false).flatten((k, u) -> k, type);
    }

    /**
     * Pairs every record of this collection with every record of {@code other} that has the same
     * key: {@code f(d, e)} at the lattice join of their times, with the product of their diffs.
     * Arranges both inputs by key; to share an arrangement among several joins, arrange once and
     * use {@link Arrangement#join}.
     */
    public <E, K, R> Collection<R> join(Collection<E> other, Function<? super D, ? extends K> key, Function<? super E, ? extends K> otherKey,
            DataType<K> keyType, java.util.function.BiFunction<? super D, ? super E, ? extends R> f, DataType<R> outType) {
        return arrangeByKey(key, keyType, d -> d, type).join(other.arrangeByKey(otherKey, keyType, e -> e, other.type), (k, d, e) -> f.apply(d, e), outType);
    }

    /**
     * The records whose key is in {@code keys}, each with its count multiplied by the key's
     * count there (so {@code keys} is usually distinct).
     */
    public <K> Collection<D> semijoin(Collection<K> keys, Function<? super D, ? extends K> keyOf) {
        return arrangeByKey(keyOf, keys.type, d -> d, type).join(keys.arrangeBySelf(), (k, d, u) -> d, type);
    }

    /** The records whose key is not in {@code keys} ({@code keys} must be distinct: counts 0 or 1). */
    public <K> Collection<D> antijoin(Collection<K> keys, Function<? super D, ? extends K> keyOf) {
        return concat(semijoin(keys, keyOf).negate());
    }

    /** Reads one record of a batch, in place, into a collection element. */
    @FunctionalInterface
    interface BatchRecord<R> {
        R read(Column keys, int key, Column vals, int val);
    }

    /** A test of value {@code index} of {@code column} where it is stored (a filter read before anything is copied). */
    @FunctionalInterface
    public interface ColumnTest {
        boolean test(Column column, int index);
    }

    /**
     * The record that is a batch's key ({@code keys}) or its value itself, in the column layout of
     * {@code type}, the collection's own: {@link #flattenBatches} appends it from the batch's
     * column to its output's, with no object made and decoded per record; with a {@code test}
     * (null: none), only the records that pass it.
     */
    record CopiedColumn<R>(DataType<R> type, boolean keys, ColumnTest test) implements BatchRecord<R> {
        @Override
        public R read(Column keyColumn, int key, Column valColumn, int val) {
            return keys ? type.get(keyColumn, key) : type.get(valColumn, val);
        }
    }

    /** The updates of a stream of batches as a collection, each {@code (key, val)} read by {@code f}. */
    static <R> Collection<R> flattenBatches(Stream<ListContainer<Batch>> batches, DataType<R> outType, BatchRecord<R> f) {
        return flattenBatches(batches, outType, f, null, null);
    }

    /**
     * Updates {@link #flattenBatches} reads from its batches in one activation, at most (and
     * about). 2^14: beside a 1M-row aggregate, 8 clients' INSERT p99 6-7 ms where 2^18 gave 11-17 ms,
     * and views over 1M rows build as fast (BENCHMARKS.md, session 17).
     */
    static final int FLATTEN_BUDGET = 1 << 14;

    /**
     * The heap a container {@link #flattenBatches} sends may reach before it is sent, whatever its
     * count: 16k rows of 250 bytes made 6 MB containers, several of which in flight through a
     * view's build ran a 192 MB server out of memory (arrays that large are also humongous
     * allocations in G1, each in regions of its own).
     */
    static final long FLATTEN_CONTAINER_BYTES = 1 << 20;

    /**
     * {@link #flattenBatches(Stream, DataType, BatchRecord)}, counting what it reads into
     * {@code hydration} (null: not counted), for a flatten of an imported arrangement. It reads at
     * most about {@value #FLATTEN_BUDGET} updates per activation and sends them, keeping its place
     * in the batch and its capability for the rest, and asks to run again: a view built over a
     * million existing rows then takes many short steps of its worker, between which the worker
     * runs everything else, instead of one long one; and what follows it works on bounded messages.
     *
     * <p>With {@code since} (one time of a totally ordered scope; null: none) every earlier time is
     * advanced to {@code since}, and a value's updates that land there are added up into one. An
     * import passes the time it can be read at from then on: the import's existing batches hold
     * the times at which their data was written (a table loaded by ten COPYs, ten times), which
     * no reader can tell apart any more, and without this every operator downstream computed its
     * result at each of them in turn, and a reduce kept each of those results in its output.
     */
    static <R> Collection<R> flattenBatches(Stream<ListContainer<Batch>> batches, DataType<R> outType, BatchRecord<R> f,
                                            dev.tributary.arrangements.Hydration hydration, long[] since) {
        int arity = batches.scope().arity();
        dev.tributary.timely.OperatorBuilder b = batches.scope().operator("flatten");
        dev.tributary.timely.InputPort<ListContainer<Batch>> in = b.input(batches, Pact.pipeline());
        dev.tributary.timely.OutputPort<Updates> out = b.output(containerType(outType, arity));
        Runnable activate = b.activator();
        b.build(new dev.tributary.timely.OperatorLogic() {
            /** A batch received and not yet read through, with a capability for its time. */
            record Queued(Batch batch, dev.tributary.timely.Capability cap) {}

            private final java.util.ArrayDeque<Queued> queued = new java.util.ArrayDeque<>();
            private final Advance advance = since == null ? null : new Advance(since);
            private final CopiedColumn<R> copied = f instanceof CopiedColumn<R> cc ? cc : null;
            private final CopyAtEachTime copyAtEachTime = new CopyAtEachTime();
            /** The place in the first queued batch (null: not started). */
            private dev.tributary.arrangements.Cursor at;

            @Override
            public void schedule() {
                in.forEach((cap, msg) -> {
                    for (int i = 0; i < msg.size(); i++) {
                        Batch batch = msg.get(i);
                        if (batch.isEmpty()) {
                            batch.release();
                            continue;
                        }
                        queued.add(new Queued(batch, cap.retain()));
                    }
                });
                long budget = FLATTEN_BUDGET;
                while (!queued.isEmpty() && budget > 0) {
                    Queued head = queued.peek();
                    Batch batch = head.batch();
                    if (at == null) at = batch.cursor();
                    Updates o = out.newContainer((int) Math.min(budget, batch.updateCount()));
                    var c = at;
                    // values read, passed or not: a filtered read is bounded (and counted) as a full one
                    long read = 0;
                    while (c.keyValid() && o.size() + read < budget && o.heapBytes() < FLATTEN_CONTAINER_BYTES) {
                        while (c.valValid() && o.size() + read < budget && o.heapBytes() < FLATTEN_CONTAINER_BYTES) {
                            if (copied != null) {
                                Column from = copied.keys() ? c.keyColumn() : c.valColumn();
                                int x = copied.keys() ? c.keyIndex() : c.valIndex();
                                if (copied.test() != null && !copied.test().test(from, x)) {
                                    read++;
                                } else if (advance == null) {
                                    copyAtEachTime.into = o;
                                    copyAtEachTime.from = from;
                                    copyAtEachTime.x = x;
                                    c.forEachTime(copyAtEachTime);
                                } else {
                                    advance.copy(c, o, from, x);
                                }
                            } else {
                                R r = f.read(c.keyColumn(), c.keyIndex(), c.valColumn(), c.valIndex());
                                if (advance == null) c.forEachTime((times, off, diff) -> append(o, outType, r, times, off, diff));
                                else advance.value(c, o, outType, r);
                            }
                            c.stepVal();
                        }
                        if (!c.valValid()) c.stepKey();
                    }
                    budget -= Math.max(1, o.size() + read);
                    if (hydration != null) hydration.addDone(o.size() + read);
                    out.send(head.cap(), o);
                    if (!c.keyValid()) {
                        at = null;
                        queued.poll();
                        batch.release();
                        head.cap().drop();
                    }
                }
                if (!queued.isEmpty()) activate.run();
            }
        });
        return new Collection<>(out.stream(), outType);
    }

    /** Appends value {@code x} of {@code from} to {@code into} at each of the times it is given: one per flatten, not an object per value. */
    private static final class CopyAtEachTime implements dev.tributary.arrangements.Cursor.TimeDiffConsumer {
        Updates into;
        Column from;
        int x;

        @Override
        public void accept(long[] times, int offset, long diff) {
            appendCopy(into, from, x, times, offset, diff);
        }
    }

    /**
     * Advances a flattened value's times (totally ordered) to a since, one time each (see
     * {@link #flattenBatches(Stream, DataType, BatchRecord, dev.tributary.arrangements.Hydration, long[])}):
     * the updates at or before it, which come first, are summed into one at the since, and the
     * rest pass unchanged.
     */
    private static final class Advance implements dev.tributary.arrangements.Cursor.TimeDiffConsumer {
        private final long[] since;
        /** The sum of the current value's diffs at or before {@link #since}. */
        private long advancedDiff;
        private Updates into;
        private DataType<Object> type;
        private Object value;
        /** Where the current value is copied from, when it is copied ({@link #copy}) rather than appended as an object. */
        private Column from;
        private int x;

        Advance(long[] since) {
            if (since.length != 1) throw new IllegalArgumentException("advancing flattened times needs totally ordered times, not arity " + since.length);
            this.since = since;
        }

        @SuppressWarnings("unchecked")
        <R> void value(dev.tributary.arrangements.Cursor c, Updates into, DataType<R> type, R value) {
            this.into = into;
            this.type = (DataType<Object>) type;
            this.value = value;
            advancedDiff = 0;
            c.forEachTime(this);
            if (advancedDiff != 0) append(into, this.type, value, since, 0, advancedDiff);
            this.value = null;
        }

        /** {@link #value} of value {@code x} of {@code from}, copied column to column ({@link CopiedColumn}). */
        void copy(dev.tributary.arrangements.Cursor c, Updates into, Column from, int x) {
            this.into = into;
            this.from = from;
            this.x = x;
            advancedDiff = 0;
            c.forEachTime(this);
            if (advancedDiff != 0) appendCopy(into, from, x, since, 0, advancedDiff);
            this.from = null;
        }

        @Override
        public void accept(long[] times, int offset, long diff) {
            if (times[offset] <= since[0]) advancedDiff += diff;
            else if (from != null) appendCopy(into, from, x, times, offset, diff);
            else append(into, type, value, times, offset, diff);
        }
    }

    @Override
    public String toString() {
        return "Collection[" + scope().name() + ", " + type + "]";
    }
}
