package dev.tributary.sql.render;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.KV;
import dev.tributary.differential.KeyedCollection;
import dev.tributary.differential.Reducer;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.Accumulation;
import dev.tributary.sql.plan.AggregateCall;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A GROUP BY's aggregates, each in the shape that keeps a change's work proportional to the
 * change whatever the group's size (DESIGN.md, section 6):
 * <ul>
 *   <li><b>accumulable</b> (count, sum and avg of exact types, bool_and, bool_or: those with an
 *       {@link Accumulation}): every row is exploded into the amounts it adds to its group's
 *       sums, keyed by (group, sum), with the amount as its multiplicity, so the arrangement's
 *       consolidation adds them up; a reduce per group then reads only its totals, a handful of
 *       values. A DISTINCT one first takes the distinct (group, arguments).</li>
 *   <li><b>ordered</b> (min and max): the group's non-NULL arguments arranged in order (reversed
 *       for max) and {@link Arrangement#topK} of one: a walk to the first value that is there.</li>
 *   <li><b>basic</b> (string_agg, array_agg, sums of floating-point numbers): a reduce over the
 *       group's rows, linear in the group per change.</li>
 * </ul>
 * The accumulable part always runs, with a count of rows, and says which groups exist. Where
 * other parts exist, a reduce per group collates one row from each part into the result.
 *
 * <p>The result is what {@link Aggregation#evaluate} gives for the group, row for row: its
 * collection of {@code (group key, flag, aggregate values...)} rows, the flag true for a group
 * whose aggregate failed, whose row then holds {@code (sqlstate, message)} instead.
 */
final class Grouping {
    private Grouping() {}

    private static final DataType<Row> ROW = Renderer.ROW;
    private static final DataType<KV<Row, Row>> KEYED = DataType.pairs(ROW, ROW);
    /** A sum's name: aggregate slot ({@link #ROWS} for the row count), component, key, chunk (-1: a plain sum). */
    private static final RowCodec SUM = RowCodec.of(SqlType.BIGINT, SqlType.BIGINT, SqlType.BIGINT, SqlType.BIGINT);
    private static final int ROWS = -1;
    /** The component of an aggregate's sum of its own argument rows ({@link Accumulation.Totals#rows}), where they are not the group's. */
    private static final int ROW_COMPONENT = -1;
    /** A collated part's tag: {@link #MAIN}, an ordered aggregate's slot, or {@link #BASIC}. */
    private static final RowCodec TAG = RowCodec.of(SqlType.BIGINT);
    private static final RowCodec FLAG = RowCodec.of(SqlType.BOOLEAN);
    private static final int MAIN = -1;
    private static final int BASIC = -2;
    private static final RowCodec FLAGGED_ERROR = RowCodec.of(SqlType.BOOLEAN, SqlType.TEXT, SqlType.TEXT);

    private enum Shape { ACCUMULABLE, ORDERED, BASIC }

    /**
     * The groups of {@code in} with their aggregates, as an arrangement from group key to
     * {@code (flag, values...)} (or a flagged error), one row per group that has rows.
     */
    static Arrangement<Row, Row> aggregate(Rendered in, Plan.Reduce r) {
        List<SqlType> inTypes = r.input().types();
        RowCodec inCodec = new RowCodec(inTypes);
        int[] key = r.groupKey().stream().mapToInt(Integer::intValue).toArray();
        List<AggregateCall> aggs = r.aggregates();
        Shape[] shapes = new Shape[aggs.size()];
        boolean collate = false;
        for (int a = 0; a < aggs.size(); a++) {
            AggregateCall call = aggs.get(a);
            String name = call.function().name();
            shapes[a] = call.function().accumulation() != null ? Shape.ACCUMULABLE
                    : name.equals("min") || name.equals("max") ? Shape.ORDERED : Shape.BASIC;
            collate |= shapes[a] != Shape.ACCUMULABLE;
        }
        int carrier = existenceCarrier(aggs, shapes);
        // with an unfiltered min or max and nothing to accumulate, the rows that say which groups
        // exist are those its part does not hold: the ones whose argument is NULL (often none)
        Collection<Row> counted = carrier < 0 ? in.oks() : in.oks().filter(row -> inCodec.isNull(row, aggs.get(carrier).args().get(0)));
        Arrangement<Row, Row> main = accumulate(counted, inCodec, key, aggs, shapes);
        if (!collate) return main;

        List<SqlType> flagged = new ArrayList<>();
        flagged.add(SqlType.BOOLEAN);
        for (AggregateCall a : aggs) flagged.add(a.function().resultType());
        RowCodec outCodec = new RowCodec(flagged);
        Collection<KV<Row, Row>> parts = main.asCollection().map(kv -> KV.of(kv.key(), Row.concat(TAG.encode((long) MAIN), kv.val())), KEYED);
        List<Integer> basic = new ArrayList<>();
        Map<List<Integer>, Arrangement<Row, Row>> ascending = new HashMap<>();
        boolean monotonic = dev.tributary.sql.plan.Plans.insertsOnly(r.input());
        for (int a = 0; a < aggs.size(); a++) {
            if (shapes[a] == Shape.ORDERED && monotonic) parts = parts.concat(monotonicExtreme(in.oks(), inCodec, key, aggs.get(a), a));
            else if (shapes[a] == Shape.ORDERED) parts = parts.concat(ordered(in.oks(), inCodec, key, aggs, a, ascending));
            else if (shapes[a] == Shape.BASIC) basic.add(a);
        }
        if (!basic.isEmpty()) {
            Arrangement<Row, Row> reduced = basic(in.oks(), inCodec, key, aggs, basic);
            parts = parts.concat(reduced.asCollection().map(kv -> KV.of(kv.key(), Row.concat(TAG.encode((long) BASIC), kv.val())), KEYED));
        }
        RowCodec[] orderedCodecs = new RowCodec[aggs.size()];
        for (int a = 0; a < aggs.size(); a++) if (shapes[a] == Shape.ORDERED) orderedCodecs[a] = RowCodec.of(aggs.get(a).function().resultType());
        RowCodec mainCodec = flaggedCodec(aggs, shapes, Shape.ACCUMULABLE);
        RowCodec basicCodec = flaggedCodec(aggs, shapes, Shape.BASIC);
        Reducer<Row, Row, Row> collation = (k, input, output) -> {
            Object[] out = new Object[aggs.size() + 1];
            out[0] = Boolean.FALSE;
            boolean present = false;
            Row error = null;
            for (int i = 0; i < input.size(); i++) {
                Row v = input.value(i);
                int tag = (int) (long) (Long) TAG.get(v, 0);
                Row part = untagged(v);
                if (tag == MAIN || tag == BASIC) {
                    if (Boolean.TRUE.equals(FLAG.get(part, 0))) {
                        if (error == null) error = part;
                        continue;
                    }
                    present |= tag == MAIN;
                    Shape shape = tag == MAIN ? Shape.ACCUMULABLE : Shape.BASIC;
                    Object[] values = (tag == MAIN ? mainCodec : basicCodec).decode(part);
                    int p = 1;
                    for (int a = 0; a < aggs.size(); a++) if (shapes[a] == shape) out[a + 1] = values[p++];
                } else {
                    present |= tag == carrier;
                    out[tag + 1] = orderedCodecs[tag].decode(arranged(part, aggs.get(tag)))[0];
                }
            }
            if (error != null) output.add(error, 1);
            else if (present) output.add(outCodec.encode(out), 1);
        };
        return parts.arrangeByKey(KV::key, ROW, KV::val, ROW).reduce("collate", collation, ROW);
    }

    /**
     * The slot of an ordered aggregate (min or max) without FILTER, whose part then has a row for
     * every group with a non-NULL argument, when no aggregate is accumulable; -1 otherwise. The
     * accumulable part, which always runs to say which groups exist, then counts only the rows
     * whose argument for it is NULL, instead of every row (a min and max per group over a million
     * rows explodes none, not a million).
     */
    private static int existenceCarrier(List<AggregateCall> aggs, Shape[] shapes) {
        int carrier = -1;
        for (int a = 0; a < aggs.size(); a++) {
            if (shapes[a] == Shape.ACCUMULABLE) return -1;
            if (carrier < 0 && shapes[a] == Shape.ORDERED && aggs.get(a).filter() < 0) carrier = a;
        }
        return carrier;
    }

    /** The row layout of one part's output: the flag, then the values of the aggregates of {@code shape}. */
    private static RowCodec flaggedCodec(List<AggregateCall> aggs, Shape[] shapes, Shape shape) {
        List<SqlType> types = new ArrayList<>();
        types.add(SqlType.BOOLEAN);
        for (int a = 0; a < aggs.size(); a++) if (shapes[a] == shape) types.add(aggs.get(a).function().resultType());
        return new RowCodec(types);
    }

    // ------------------------------------------------------------------ accumulable

    /** Where one update's amounts go: each becomes a record (group, sum name) with the amount times the row's multiplicity. */
    private static final class Amounts extends Sums.Chunks {
        Row group;
        int slot;
        long multiplicity;
        Collection.KeyedSink<Row, Row> out;

        /** Counts one argument row of the aggregate (one whose rows are not the group's: filtered, or distinct). */
        void row() {
            emit(ROW_COMPONENT, 0, -1, 1);
        }

        @Override
        void emit(int component, int key, int chunk, long amount) {
            if (amount == 0) return;
            out.add(group, sumName(slot, component, key, chunk), Math.multiplyExact(amount, multiplicity));
        }
    }

    /** Sum names made so far: a row adds to the same few sums as every other. */
    private static final java.util.concurrent.ConcurrentHashMap<List<Integer>, Row> NAMES = new java.util.concurrent.ConcurrentHashMap<>();

    /** The name of a sum, encoded once. */
    private static Row sumName(int slot, int component, int key, int chunk) {
        if (slot == (short) slot && component == (short) component && key == (short) key && chunk == (short) chunk) {
            // the usual names, made for every input row: a direct-mapped cache, with no key object to make and hash
            long packed = (slot & 0xFFFFL) << 48 | (component & 0xFFFFL) << 32 | (key & 0xFFFFL) << 16 | (chunk & 0xFFFFL);
            int at = (int) ((packed * 0x9E3779B97F4A7C15L) >>> 54);
            CachedName cached = NAME_CACHE.get(at);
            if (cached != null && cached.packed() == packed) return cached.name();
            Row name = SUM.encode((long) slot, (long) component, (long) key, (long) chunk);
            NAME_CACHE.set(at, new CachedName(packed, name));
            return name;
        }
        return NAMES.computeIfAbsent(List.of(slot, component, key, chunk), n -> SUM.encode((long) slot, (long) component, (long) key, (long) chunk));
    }

    /** A sum's name and its four parts, packed 16 bits each. */
    private record CachedName(long packed, Row name) {}

    /** 1024 names, by a hash of their packed parts; entries are immutable, so workers may race to fill them. */
    private static final java.util.concurrent.atomic.AtomicReferenceArray<CachedName> NAME_CACHE = new java.util.concurrent.atomic.AtomicReferenceArray<>(1024);

    /**
     * The accumulable aggregates (and the row count) by group: rows and, for DISTINCT ones, the
     * distinct (group, arguments) exploded into sums, arranged by group, and reduced from the
     * totals to {@code (flag, values...)} in the order of the aggregates.
     */
    private static Arrangement<Row, Row> accumulate(Collection<Row> rows, RowCodec inCodec, int[] key, List<AggregateCall> aggs, Shape[] shapes) {
        List<Integer> plain = new ArrayList<>();
        Map<List<Integer>, List<Integer>> distinct = new LinkedHashMap<>();
        boolean[] countsRows = new boolean[aggs.size()];
        for (int a = 0; a < aggs.size(); a++) {
            if (shapes[a] != Shape.ACCUMULABLE) continue;
            AggregateCall call = aggs.get(a);
            // count(*) is the row count every group has anyway: no sum of its own
            countsRows[a] = call.function().name().equals("count") && call.args().isEmpty() && call.filter() < 0;
            if (countsRows[a]) continue;
            if (!call.distinct()) {
                plain.add(a);
                continue;
            }
            List<Integer> source = new ArrayList<>(call.args());
            source.add(call.filter());
            distinct.computeIfAbsent(source, s -> new ArrayList<>()).add(a);
        }
        int[] plainSlots = plain.stream().mapToInt(Integer::intValue).toArray();
        // one sink and one argument array per aggregate for the rows of this worker's dataflow, not
        // per row: an accumulation reads its arguments and keeps none of them
        Amounts amounts = new Amounts();
        Object[][] argsOf = new Object[aggs.size()][];
        for (int a : plainSlots) argsOf[a] = new Object[aggs.get(a).args().size()];
        RowCodec.Projection groupOf = inCodec.projection(key);
        KeyedCollection<Row, Row> sums = rows.explodeByKey((row, n, out) -> {
            Row group = groupOf.apply(row);
            out.add(group, sumName(ROWS, 0, 0, -1), n);
            if (plainSlots.length == 0) return;
            amounts.group = group;
            amounts.multiplicity = n;
            amounts.out = out;
            for (int a : plainSlots) {
                AggregateCall call = aggs.get(a);
                // only the columns read are decoded, not the row
                if (call.filter() >= 0 && !Boolean.TRUE.equals(inCodec.get(row, call.filter()))) continue;
                amounts.slot = a;
                if (call.filter() >= 0) amounts.row();
                Object[] args = argsOf[a];
                for (int i = 0; i < args.length; i++) args[i] = inCodec.get(row, call.args().get(i));
                call.function().accumulation().add(args, amounts);
            }
        }, ROW, ROW, true);
        for (Map.Entry<List<Integer>, List<Integer>> e : distinct.entrySet()) {
            List<Integer> args = e.getKey().subList(0, e.getKey().size() - 1);
            int filter = e.getKey().get(e.getKey().size() - 1);
            int[] argColumns = args.stream().mapToInt(Integer::intValue).toArray();
            int[] slots = e.getValue().stream().mapToInt(Integer::intValue).toArray();
            Collection<Row> passing = filter < 0 ? rows : rows.filter(row -> Boolean.TRUE.equals(inCodec.get(row, filter)));
            Amounts distinctAmounts = new Amounts();
            sums = sums.concat(distinctArguments(passing, inCodec, key, argColumns).explodeByKey((kv, n, out) -> {
                distinctAmounts.group = kv.key();
                distinctAmounts.multiplicity = n;
                distinctAmounts.out = out;
                Object[] argValues = inCodec.project(argColumns).decode(kv.val());
                for (int a : slots) {
                    distinctAmounts.slot = a;
                    distinctAmounts.row();
                    aggs.get(a).function().accumulation().add(argValues, distinctAmounts);
                }
            }, ROW, ROW, true));
        }
        RowCodec partCodec = flaggedCodec(aggs, shapes, Shape.ACCUMULABLE);
        int slotCount = aggs.size();
        Reducer<Row, Row, Row> totals = (k, input, output) -> {
            Sums[] bySlot = new Sums[slotCount];
            long rowCount = 0;
            for (int i = 0; i < input.size(); i++) {
                Object[] name = SUM.decode(input.value(i));
                int slot = (int) (long) (Long) name[0];
                if (slot == ROWS) {
                    rowCount += input.count(i);
                    continue;
                }
                if (bySlot[slot] == null) bySlot[slot] = new Sums();
                long component = (Long) name[1];
                if (component == ROW_COMPONENT) bySlot[slot].rows += input.count(i);
                else bySlot[slot].add((int) component, (int) (long) (Long) name[2], (int) (long) (Long) name[3], input.count(i));
            }
            if (rowCount <= 0) return;
            for (int a : plainSlots) {
                if (aggs.get(a).filter() >= 0) continue;
                if (bySlot[a] == null) bySlot[a] = new Sums();
                bySlot[a].rows = rowCount;
            }
            try {
                Object[] out = new Object[partCodec.arity()];
                out[0] = Boolean.FALSE;
                int p = 1;
                for (int a = 0; a < slotCount; a++) {
                    if (shapes[a] != Shape.ACCUMULABLE) continue;
                    out[p++] = countsRows[a] ? (Object) rowCount : aggs.get(a).function().accumulation().result(bySlot[a] == null ? new Sums() : bySlot[a]);
                }
                output.add(partCodec.encode(out), 1);
            } catch (RuntimeException e) {
                output.add(failedGroup(e), 1);
            }
        };
        return sums.arrange().reduce("aggregate", totals, ROW);
    }

    /**
     * Per group, its distinct argument tuples, once each: {@code (group, arguments)}. Tuples are
     * told apart by their arguments' key forms, as PostgreSQL compares them ({@code 1.0} and
     * {@code 1.00}, {@code '1 mon'} and {@code '30 days'} are one), and each stands for its
     * least tuple as written (a numeric(10,2) column's values keep their two digits).
     */
    private static Collection<KV<Row, Row>> distinctArguments(Collection<Row> rows, RowCodec inCodec, int[] key, int[] args) {
        RowCodec keyCodec = inCodec.project(key);
        RowCodec argCodec = inCodec.project(args);
        RowCodec byArguments = keyCodec.concat(argCodec);
        int[] groupColumns = new int[key.length];
        for (int i = 0; i < key.length; i++) groupColumns[i] = i;
        Arrangement<Row, Row> tuples = rows.arrangeByKey(row -> {
            Object[] normalized = argCodec.decode(inCodec.project(row, args));
            for (int i = 0; i < normalized.length; i++) normalized[i] = dev.tributary.sql.row.Keys.normalize(normalized[i]);
            return Row.concat(inCodec.project(row, key), argCodec.encode(normalized));
        }, ROW, row -> inCodec.project(row, args), ROW);
        return tuples.topK("distinct", 0, 1).asCollection().map(kv -> KV.of(byArguments.project(kv.key(), groupColumns), kv.val()), KEYED);
    }

    /** The flagged error row of a group whose aggregate failed: an {@link SqlException}'s state and message, anything else as XX000. */
    private static Row failedGroup(RuntimeException e) {
        SqlException x = e instanceof SqlException s ? s : Errors.internal(e);
        return FLAGGED_ERROR.encode(Boolean.TRUE, x.sqlState(), x.getMessage());
    }

    // ------------------------------------------------------------------ ordered

    /**
     * min or max: the group's non-NULL arguments (FILTER applied) arranged in order, reversed for
     * max by complementing the encoded bytes (every encoded value is prefix-free, so the
     * complement sorts in the opposite order), and the first of them; tagged with {@code slot}.
     *
     * <p>A min and a max of the same argument and filter (a common pair) share the work of
     * arranging the rows: the max's arrangement is made from the min's, whose batches hold each
     * group's distinct values once, not from every row again. {@code ascending} holds the
     * arrangements made for mins, by argument and filter.
     */
    private static Collection<KV<Row, Row>> ordered(Collection<Row> rows, RowCodec inCodec, int[] key, List<AggregateCall> aggs, int slot,
            Map<List<Integer>, Arrangement<Row, Row>> ascending) {
        AggregateCall call = aggs.get(slot);
        List<Integer> source = List.of(call.args().get(0), call.filter());
        boolean max = call.function().name().equals("max");
        int min = firstMinOver(aggs, source);
        Arrangement<Row, Row> values;
        if (!max) values = ascending.computeIfAbsent(source, s -> arrangedValues(rows, inCodec, key, call));
        else if (min < 0) values = arrangedValues(rows, inCodec, key, call);
        else {
            values = ascending.computeIfAbsent(source, s -> arrangedValues(rows, inCodec, key, aggs.get(min)))
                    .asCollection().map(kv -> KV.of(kv.key(), arranged(kv.val(), call)), KEYED)
                    .arrangeByKey(KV::key, ROW, KV::val, ROW);
        }
        Row tag = TAG.encode((long) slot);
        return values.topK(call.function().name(), 0, 1).asCollection().map(kv -> KV.of(kv.key(), Row.concat(tag, kv.val())), KEYED);
    }

    /**
     * {@link #ordered}'s part of a min or max over rows that only grow: per group only its
     * extreme so far is kept ({@link dev.tributary.differential.MonotonicTopK}), not every value.
     */
    private static Collection<KV<Row, Row>> monotonicExtreme(Collection<Row> rows, RowCodec inCodec, int[] key, AggregateCall call, int slot) {
        int arg = call.args().get(0);
        int filter = call.filter();
        RowCodec.Projection groupOf = inCodec.projection(key);
        RowCodec.Projection argOf = inCodec.projection(new int[] {arg});
        Collection<KV<Row, Row>> values = rows.filter(row -> !inCodec.isNull(row, arg) && (filter < 0 || Boolean.TRUE.equals(inCodec.get(row, filter))))
                .map(row -> KV.of(groupOf.apply(row), arranged(argOf.apply(row), call)), KEYED);
        Row tag = TAG.encode((long) slot);
        return dev.tributary.differential.MonotonicTopK.topK(values, call.function().name(), KV::key, ROW, (x, y) -> x.val().compareTo(y.val()), 0, 1)
                .map(kv -> KV.of(kv.key(), Row.concat(tag, kv.val())), KEYED);
    }

    /** The first ordered min among {@code aggs} over {@code source} (argument, filter), or -1. */
    private static int firstMinOver(List<AggregateCall> aggs, List<Integer> source) {
        for (int a = 0; a < aggs.size(); a++) {
            AggregateCall c = aggs.get(a);
            if (c.function().name().equals("min") && c.function().accumulation() == null && List.of(c.args().get(0), c.filter()).equals(source)) return a;
        }
        return -1;
    }

    /** The group's non-NULL arguments of {@code call} (FILTER applied), arranged by group in {@code call}'s order. */
    private static Arrangement<Row, Row> arrangedValues(Collection<Row> rows, RowCodec inCodec, int[] key, AggregateCall call) {
        int arg = call.args().get(0);
        int filter = call.filter();
        int[] argColumn = {arg};
        RowCodec.Projection groupOf = inCodec.projection(key);
        RowCodec.Projection argOf = inCodec.projection(argColumn);
        if (filter < 0 && !call.function().name().equals("max")) {
            // a min without FILTER: NULLs dropped and the pairs cut out of the rows' bytes, no row made
            return rows.arrangeByKeyColumns((from, i, into) -> {
                BytesColumn r = (BytesColumn) from;
                return !inCodec.isNull(r.slab(), r.start(i), arg) && groupOf.map(from, i, into);
            }, ROW, argOf::map, ROW);
        }
        Collection<Row> present = rows.filter(row -> !inCodec.isNull(row, arg) && (filter < 0 || Boolean.TRUE.equals(inCodec.get(row, filter))));
        return present.arrangeByKey(groupOf::apply, ROW, row -> arranged(argOf.apply(row), call), ROW);
    }

    /** An ordered aggregate's value as arranged (complemented for max), or back: complementing is its own inverse. */
    private static Row arranged(Row value, AggregateCall call) {
        if (!call.function().name().equals("max")) return value;
        byte[] out = value.toBytes();
        for (int i = 0; i < out.length; i++) out[i] = (byte) ~out[i];
        return Row.fromBytes(out);
    }

    /** A collated row without its tag. */
    private static Row untagged(Row v) {
        return TAG.suffix(v);
    }

    // ------------------------------------------------------------------ basic

    /** The basic aggregates of {@code slots}: a reduce over each group's rows, to {@code (flag, values...)}. */
    private static Arrangement<Row, Row> basic(Collection<Row> rows, RowCodec inCodec, int[] key, List<AggregateCall> aggs, List<Integer> slots) {
        List<SqlType> inTypes = inCodec.types();
        List<SqlType> types = new ArrayList<>();
        types.add(SqlType.BOOLEAN);
        for (int a : slots) types.add(aggs.get(a).function().resultType());
        RowCodec outCodec = new RowCodec(types);
        Reducer<Row, Row, Row> logic = (k, input, output) -> {
            try {
                int size = input.size();
                Object[][] values = new Object[size][];
                long[] counts = new long[size];
                for (int i = 0; i < size; i++) {
                    counts[i] = input.count(i);
                    if (counts[i] < 0) throw new SqlException("XX000", "a group of an aggregate holds a row a negative number of times; this is a bug");
                    values[i] = inCodec.decode(input.value(i));
                }
                Object[] out = new Object[slots.size() + 1];
                out[0] = Boolean.FALSE;
                for (int s = 0; s < slots.size(); s++) out[s + 1] = Aggregation.evaluate(aggs.get(slots.get(s)), inTypes, values, counts);
                output.add(outCodec.encode(out), 1);
            } catch (RuntimeException e) {
                output.add(failedGroup(e), 1);
            }
        };
        return rows.arrangeByKeyColumns(inCodec.projection(key)::map, ROW, Collection::copy, ROW).reduce("aggregate", logic, ROW);
    }
}
