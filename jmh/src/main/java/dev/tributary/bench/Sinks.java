package dev.tributary.bench;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.timely.InputPort;
import dev.tributary.timely.ListContainer;
import dev.tributary.timely.OperatorBuilder;
import dev.tributary.timely.OutputPort;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Stream;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * Ends of the differential benchmarks' dataflows: sinks that fold what reaches them into a
 * checksum (so a run that lost or duplicated updates fails its check) and give a probe on a
 * silent output, so that the probe is not a second reader of the stream (which would copy every
 * container).
 */
final class Sinks {
    private Sinks() {}

    /** A cell written by one worker's sink, read after the worker has stopped (or by the worker itself). */
    static final class Sum {
        long value;
    }

    /** Sums {@code weight(record) * diff} over the collection's updates into {@code sum}. */
    static <D> Probe sum(Collection<D> collection, ToLongFunction<? super D> weight, Sum sum) {
        DataType<D> type = collection.type();
        return fold(collection.stream(), data -> {
            long s = 0;
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) s += weight.applyAsLong(type.get(data.keys(), i)) * diffs[i];
            sum.value += s;
        });
    }

    /** Sums the diffs of the collection's updates into {@code sum}, without reading their data. */
    static Probe sumDiffs(Collection<?> collection, Sum sum) {
        return fold(collection.stream(), data -> {
            long s = 0;
            long[] diffs = data.diffs();
            for (int i = 0; i < data.size(); i++) s += diffs[i];
            sum.value += s;
        });
    }

    /** A sink calling {@code f} on each container of {@code stream}, and a probe on its silent output. */
    private static Probe fold(Stream<Updates> stream, Consumer<Updates> f) {
        OperatorBuilder b = stream.scope().operator("checksum");
        InputPort<Updates> in = b.input(stream, Pact.pipeline());
        OutputPort<Updates> out = b.output(stream.type());
        InputPort.MessageConsumer<Updates> fold = (cap, data) -> f.accept(data);
        b.build(() -> in.forEach(fold));
        return out.stream().probe();
    }

    /**
     * Sums {@code val * diff} (or {@code diff} alone when {@code weighted} is false) over the
     * updates of batches of a {@code (long, long)} arrangement into {@code sum}, reading the
     * columns in place.
     */
    static Probe sumBatches(Stream<ListContainer<Batch>> batches, boolean weighted, Sum sum) {
        OperatorBuilder b = batches.scope().operator("checksum");
        InputPort<ListContainer<Batch>> in = b.input(batches, Pact.pipeline());
        OutputPort<ListContainer<Batch>> out = b.output(ListContainer.type());
        long[] diffs = new long[1];
        Cursor.TimeDiffConsumer add = (t, off, diff) -> diffs[0] += diff;
        InputPort.MessageConsumer<ListContainer<Batch>> fold = (cap, msg) -> {
            for (Batch batch : msg) {
                Cursor c = batch.cursor();
                while (c.keyValid()) {
                    while (c.valValid()) {
                        diffs[0] = 0;
                        c.forEachTime(add);
                        sum.value += weighted ? ((LongColumn) c.valColumn()).getLong(c.valIndex()) * diffs[0] : diffs[0];
                        c.stepVal();
                    }
                    c.stepKey();
                }
                batch.release();
            }
        };
        b.build(() -> in.forEach(fold));
        return out.stream().probe();
    }
}
