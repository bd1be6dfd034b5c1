package dev.tributary.differential;

import dev.tributary.arrangements.Arrange;
import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.TraceHandle;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;

/**
 * A collection of {@code (key, val)} pairs indexed by key: a stream of sealed batches plus a
 * handle to this worker's trace of them. The state of joins and reductions, shared by every
 * operator and dataflow that reads it, never copied.
 *
 * <p>The arrangement's own handle follows the batch stream's frontier once the dataflow runs, so
 * it holds back neither compaction nor merging; every operator reading the trace takes its own
 * share when it is built. To read history at a time, take a {@link TraceHandle#share()} of
 * {@link #trace()} before the frontier passes it.
 */
public final class Arrangement<K, V> {
    private final Stream<ListContainer<Batch>> batches;
    private final TraceHandle trace;
    private final DataType<K> keyType;
    private final DataType<V> valType;
    /** For an imported arrangement, where its flatten counts what it has read of the import; null otherwise. */
    private final dev.tributary.arrangements.Hydration hydration;
    /**
     * For an imported arrangement, the earliest time it is read at ({@link #readableFrom}; null
     * otherwise): its flatten advances earlier times to it (see
     * {@link Collection#flattenBatches(Stream, DataType, BatchRecord, dev.tributary.arrangements.Hydration, long[])}).
     */
    private final long[] importSince;

    private Arrangement(Stream<ListContainer<Batch>> batches, TraceHandle trace, DataType<K> keyType, DataType<V> valType,
                        dev.tributary.arrangements.Hydration hydration, long[] importSince) {
        this.hydration = hydration;
        this.importSince = importSince;
        this.batches = batches;
        this.trace = trace;
        this.keyType = keyType;
        this.valType = valType;
    }

    /** Arranges {@code updates} (keys and values in columns of the two types), exchanging them by key. */
    static <K, V> Arrangement<K, V> arrange(Stream<Updates> updates, String name, DataType<K> keyType, DataType<V> valType) {
        return arrange(updates, name, keyType, valType, dev.tributary.arrangements.Trace.EFFORT);
    }

    /** {@link #arrange(Stream, String, DataType, DataType)} into a trace whose merges get {@code effort} (for tests: {@link dev.tributary.arrangements.Trace#UNFUELED}). */
    static <K, V> Arrangement<K, V> arrange(Stream<Updates> updates, String name, DataType<K> keyType, DataType<V> valType, long effort) {
        Arrange.Arranged a = Arrange.arrange(updates, name, keyType.newColumn(1), valType.newColumn(1), effort);
        return wrap(a.batches(), a.trace(), keyType, valType);
    }

    /** An arrangement over {@code batches} and {@code trace}, whose handle then follows the batches' frontier. */
    static <K, V> Arrangement<K, V> wrap(Stream<ListContainer<Batch>> batches, TraceHandle trace, DataType<K> keyType, DataType<V> valType) {
        return wrap(batches, trace, keyType, valType, null, null);
    }

    /** {@link #wrap(Stream, TraceHandle, DataType, DataType)}, whose flatten counts what it reads into {@code hydration} (an import's). */
    private static <K, V> Arrangement<K, V> wrap(Stream<ListContainer<Batch>> batches, TraceHandle trace, DataType<K> keyType, DataType<V> valType,
                                                 dev.tributary.arrangements.Hydration hydration, long[] importSince) {
        follow(batches, trace);
        return new Arrangement<>(batches, trace, keyType, valType, hydration, importSince);
    }

    /** Advances {@code handle}'s frontiers with the stream's: the reader that only keeps the trace alive. */
    private static void follow(Stream<ListContainer<Batch>> batches, TraceHandle handle) {
        OperatorBuilder b = batches.scope().operator("follow:" + handle.trace().name());
        InputPort<ListContainer<Batch>> in = b.input(batches, Pact.pipeline());
        b.build(() -> {
            in.forEach((cap, data) -> {
                for (int i = 0; i < data.size(); i++) data.get(i).release();
            });
            Antichain f = in.frontier();
            if (handle.isDropped()) return;
            if (!f.isEmpty() && !f.equals(handle.logicalCompaction()) && handle.logicalCompaction().dominates(f)) handle.setLogicalCompaction(f);
            if (!f.equals(handle.physicalCompaction()) && handle.physicalCompaction().dominates(f)) handle.setPhysicalCompaction(f);
        });
    }

    /** The sealed batches, as they are added. */
    public Stream<ListContainer<Batch>> batches() {
        return batches;
    }

    /** This arrangement's handle to the worker's trace. */
    public TraceHandle trace() {
        return trace;
    }

    public DataType<K> keyType() {
        return keyType;
    }

    public DataType<V> valType() {
        return valType;
    }

    public Scope scope() {
        return batches.scope();
    }

    /**
     * This arrangement in another dataflow of the same worker: the existing batches, then every
     * new one. Nothing is copied; the trace is shared.
     */
    public Arrangement<K, V> importInto(Scope scope) {
        return importInto(scope, trace);
    }

    /**
     * {@link #importInto(Scope)} through {@code reader}, another handle of this arrangement's
     * trace: the import's handle starts at {@code reader}'s compaction, so history that reader
     * keeps (an object's retained history) stays readable in the new dataflow.
     */
    public Arrangement<K, V> importInto(Scope scope, TraceHandle reader) {
        if (reader.trace() != trace.trace()) throw new IllegalArgumentException("handle of trace '" + reader.trace().name() + "' is not one of '" + trace.trace().name() + "'");
        Arrange.Arranged a = Arrange.importTrace(reader, scope, trace.trace().name());
        return wrap(a.batches(), a.trace(), keyType, valType, dev.tributary.arrangements.Hydration.of(scope), readableFrom(a.trace()));
    }

    /**
     * The time to which an import through {@code h} may advance earlier times (null: none, with
     * partially ordered times): the trace's since, before which no reader of the trace can tell
     * times apart (a handle's own since is not enough: another handle may keep history that a
     * read of the new dataflow asks for), but not past the last time the trace holds, at which a
     * reader may read it while the since is ahead of the upper (a server's tables' since follows
     * the clock; an idle table's upper does not).
     */
    private static long[] readableFrom(TraceHandle h) {
        Antichain since = h.trace().since();
        Antichain upper = h.upper();
        if (since.size() != 1 || since.get(0).length != 1 || upper.size() > 1) return null;
        long t = since.get(0)[0];
        if (upper.size() == 1) t = Math.min(t, upper.get(0)[0] - 1);
        return new long[] {t};
    }

    /**
     * Per key, the first values in the values' order: {@code offset} units skipped, then at most
     * {@code limit} taken ({@code limit < 0}: all the rest), a value of count {@code c} being
     * {@code c} units. A min is {@code topK(name, 0, 1)} over the values; a max the same over
     * values whose order is reversed. Work per change is a walk to the units taken, not a pass
     * over the key's values; see {@link TopK}.
     */
    public Arrangement<K, V> topK(String name, long offset, long limit) {
        return TopK.topK(this, name, offset, limit);
    }

    /**
     * Pairs every {@code (key, v1)} here with every {@code (key, v2)} of {@code other}: the output
     * {@code f(key, v1, v2)} at the lattice join of the two times, with the product of the diffs.
     */
    public <V2, R> Collection<R> join(Arrangement<K, V2> other, Joiner<? super K, ? super V, ? super V2, ? extends R> f, DataType<R> outType) {
        return JoinCore.join(this, other, f, outType);
    }

    /**
     * {@link #join} of {@code long} keys and values into a collection of {@code long}s, with no
     * object made per key, value or output record: the same updates as
     * {@code join(other, (k, v1, v2) -> f.join(k, v1, v2), DataType.longs())}.
     *
     * @throws IllegalArgumentException if the key type or either value type is not {@link DataType#longs()}
     */
    public Collection<Long> joinLongs(Arrangement<K, ?> other, LongJoiner f) {
        return JoinCore.joinLongs(this, other, f);
    }

    /**
     * For each key whose values changed, {@code logic} applied to the key's accumulated values
     * (with their counts) at every time where the result can change; the output arrangement holds
     * {@code logic}'s result for every key at every time.
     */
    public <R> Arrangement<K, R> reduce(String name, Reducer<K, V, R> logic, DataType<R> outType) {
        return Reduce.reduce(this, name, logic, outType);
    }

    /** Per key, the sum of its values' counts (keys whose count is zero are absent). */
    public Arrangement<K, Long> count() {
        return Reduce.reduce(this, "count", (key, in, out) -> {
            long n = 0;
            for (int i = 0; i < in.size(); i++) n += in.count(i);
            if (n != 0) out.addLong(n, 1);
        }, DataType.longs(), false);
    }

    /** Per key, the sum over its values of {@code amount(value) * count}. */
    public Collection<KV<K, Long>> sum(ToLongFunction<? super V> amount) {
        return Reduce.reduce(this, "sum", (key, in, out) -> {
            long s = 0;
            for (int i = 0; i < in.size(); i++) s = Math.addExact(s, Math.multiplyExact(amount.applyAsLong(in.value(i)), in.count(i)));
            out.addLong(s, 1);
        }, DataType.longs(), false).asCollection();
    }

    /** Per key, its least value with a positive count. */
    public Collection<KV<K, V>> min() {
        return Reduce.reduce(this, "min", (key, in, out) -> {
            for (int i = 0; i < in.size(); i++) {
                if (in.count(i) > 0) {
                    out.add(in.value(i), 1);
                    return;
                }
            }
        }, valType, false).asCollection();
    }

    /** Per key, its greatest value with a positive count. */
    public Collection<KV<K, V>> max() {
        return Reduce.reduce(this, "max", (key, in, out) -> {
            for (int i = in.size() - 1; i >= 0; i--) {
                if (in.count(i) > 0) {
                    out.add(in.value(i), 1);
                    return;
                }
            }
        }, valType, false).asCollection();
    }

    /** The arranged pairs as a collection. */
    public Collection<KV<K, V>> asCollection() {
        return flatten(KV::of, DataType.pairs(keyType, valType));
    }

    /** The arranged values as a collection: {@code flatten((k, v) -> v, valType)}, copied column to column with no object per record. */
    public Collection<V> values() {
        return values(null);
    }

    /** {@link #values()}, of those that pass {@code test} (null: all), tested in their column before they are copied. */
    public Collection<V> values(Collection.ColumnTest test) {
        return Collection.flattenBatches(batches, valType, new Collection.CopiedColumn<>(valType, false, test), hydration, importSince);
    }

    /** The arranged keys as a collection: {@code flatten((k, v) -> k, keyType)}, copied column to column with no object per record. */
    public Collection<K> keys() {
        return keys(null);
    }

    /** {@link #keys()}, of those that pass {@code test} (null: all), tested in their column before they are copied. */
    public Collection<K> keys(Collection.ColumnTest test) {
        return Collection.flattenBatches(batches, keyType, new Collection.CopiedColumn<>(keyType, true, test), hydration, importSince);
    }

    /** The arranged pairs as a collection of {@code f(key, val)}. */
    public <R> Collection<R> flatten(BiFunction<? super K, ? super V, ? extends R> f, DataType<R> outType) {
        return Collection.flattenBatches(batches, outType, (keys, k, vals, v) -> f.apply(keyType.get(keys, k), valType.get(vals, v)), hydration, importSince);
    }

    @Override
    public String toString() {
        return "Arrangement[" + trace.trace().name() + "]";
    }
}
