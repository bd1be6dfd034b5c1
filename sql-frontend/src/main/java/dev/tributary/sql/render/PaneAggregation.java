package dev.tributary.sql.render;

import dev.tributary.differential.Collection;
import dev.tributary.differential.KV;
import dev.tributary.differential.Panes;
import dev.tributary.differential.SessionWindows;
import dev.tributary.differential.WindowAggregator;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.plan.AggregateCall;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@link Plan.PaneAggregate} rendered on {@link Panes}, and {@link Plan.SessionAggregate} on
 * {@link SessionWindows}: a group's aggregate in a pane is its row
 * count, each accumulable aggregate's exact sums ({@link Sums}), and for min and max the pane's
 * values with their counts until the pane first goes into a window (or a session into another),
 * then their min or max. Windows (and sessions that meet) merge their panes' counts and sums, and the min or max of their panes'. A group whose
 * aggregate fails (a sum out of range) gives an error row in its window's place.
 */
final class PaneAggregation {
    private PaneAggregation() {}

    private static final RowCodec FLAG = RowCodec.of(SqlType.BOOLEAN);
    private static final Row OK = FLAG.encode(Boolean.FALSE);
    private static final Row FAILED = FLAG.encode(Boolean.TRUE);

    private enum Kind { ROWS, SUMS, ORDERED }

    static Rendered render(Rendered in, Plan.PaneAggregate p) {
        return render(in, p.input(), p.time(), p.groupKey(), p.aggregates(), p.types(), (groups, key, time) ->
                Panes.aggregate(in.oks(), "aggregate", p.slide(), p.size(), p.offset(), p.cumulative(), key, Renderer.ROW, time, groups, Renderer.ROW));
    }

    static Rendered render(Rendered in, Plan.SessionAggregate p) {
        java.util.Set<Integer> keys = new java.util.HashSet<>();
        for (int k : p.groupKey()) if (k >= 0) keys.add(k);
        if (keys.equals(new java.util.HashSet<>(p.partition()))) {
            return render(in, p.input(), p.time(), p.groupKey(), p.aggregates(), p.types(), (groups, key, time) ->
                    SessionWindows.aggregate(in.oks(), "aggregate", p.gap(), key, Renderer.ROW, time, groups, Renderer.ROW));
        }
        // sessions by the partition, and within each session a group per value of the group key
        RowCodec.Projection partitionOf = new RowCodec(p.input().types()).projection(p.partition().stream().mapToInt(Integer::intValue).toArray());
        return render(in, p.input(), p.time(), p.groupKey(), p.aggregates(), p.types(), (groups, key, time) ->
                SessionWindows.aggregate(in.oks(), "aggregate", p.gap(), partitionOf::apply, Renderer.ROW, time, new Subgroups(groups, key), Renderer.ROW));
    }

    /** A session's groups (by the whole group key, of which the partition is part), each with its aggregates. */
    private record Subgroups(Groups groups, java.util.function.Function<Row, Row> key) implements WindowAggregator<Row, Row, HashMap<Row, Acc>, Row> {
        @Override
        public HashMap<Row, Acc> create() {
            return new HashMap<>();
        }

        @Override
        public void add(HashMap<Row, Acc> acc, Row data, long diff) {
            groups.add(acc.computeIfAbsent(key.apply(data), k -> groups.create()), data, diff);
        }

        @Override
        public void merge(HashMap<Row, Acc> into, HashMap<Row, Acc> from) {
            for (Map.Entry<Row, Acc> e : from.entrySet()) groups.merge(into.computeIfAbsent(e.getKey(), k -> groups.create()), e.getValue());
        }

        @Override
        public void results(Row partition, long start, long end, HashMap<Row, Acc> acc, Consumer<Row> out) {
            for (Map.Entry<Row, Acc> e : acc.entrySet()) groups.results(e.getKey(), start, end, e.getValue(), out);
        }
    }

    /** Builds the windows' operator over the groups' aggregates, a row's group key and its window time. */
    private interface Windowing {
        Collection<Row> build(Groups groups, java.util.function.Function<Row, Row> key, java.util.function.ToLongFunction<Row> time);
    }

    private static Rendered render(Rendered in, Plan input, int time, List<Integer> groupKey, List<AggregateCall> aggs, List<SqlType> types, Windowing windowing) {
        List<SqlType> inTypes = input.types();
        RowCodec inCodec = new RowCodec(inTypes);
        Kind[] kinds = new Kind[aggs.size()];
        for (int a = 0; a < kinds.length; a++) {
            AggregateCall call = aggs.get(a);
            kinds[a] = call.function().name().equals("count") && call.args().isEmpty() && call.filter() < 0 ? Kind.ROWS
                    : call.function().accumulation() != null ? Kind.SUMS : Kind.ORDERED;
        }
        int[] keyOf = groupKey.stream().filter(k -> k >= 0).mapToInt(Integer::intValue).toArray();
        RowCodec.Projection project = inCodec.projection(keyOf);
        Groups groups = new Groups(groupKey, aggs, inCodec, kinds, inCodec.project(keyOf), new RowCodec(types), inTypes.get(time));
        Collection<Row> flagged = windowing.build(groups, project::apply, row -> inCodec.getTicks(row, time, Panes.NONE));
        KV<Collection<Row>, Collection<Row>> split = flagged.flatMapOr((row, out) -> {
            if (Boolean.TRUE.equals(FLAG.get(row, 0))) out.other(FLAG.suffix(row));
            else out.ok(FLAG.suffix(row));
        }, Renderer.ROW, Renderer.ROW);
        return new Rendered(split.key(), in.errs().concat(split.val()));
    }

    /** A group's aggregates in a pane or a window. */
    private static final class Acc {
        long rows;
        final Sums[] sums;
        /** Per min or max: the values and their counts, until the pane first goes into a window. */
        final HashMap<Row, long[]>[] values;
        /** Per min or max: its panes' results (a window's), or the pane's own once it has gone into one. */
        final List<Object>[] results;

        @SuppressWarnings("unchecked")
        Acc(int aggregates) {
            sums = new Sums[aggregates];
            values = new HashMap[aggregates];
            results = new List[aggregates];
        }
    }

    /** The aggregates of the plan's groups as {@link Panes} keeps them. */
    private static final class Groups extends Sums.Chunks implements WindowAggregator<Row, Row, Acc, Row> {
        private final List<Integer> groupKey;
        private final RowCodec inCodec;
        private final Kind[] kinds;
        private final RowCodec keyCodec;
        private final RowCodec outCodec;
        private final SqlType timeType;
        private final List<AggregateCall> aggs;
        private final Object[][] args;
        private final RowCodec.Projection[] valueOf;
        private final RowCodec[] valueCodec;
        /** The input columns the aggregates read (arguments, filters), and the last of them (-1: none). */
        private final java.util.BitSet reads = new java.util.BitSet();
        private final int last;
        /** Where {@link #emit} adds: the sums being updated, and the update's multiplicity. */
        private Sums target;
        private long multiplicity;

        Groups(List<Integer> groupKey, List<AggregateCall> aggs, RowCodec inCodec, Kind[] kinds, RowCodec keyCodec, RowCodec outCodec, SqlType timeType) {
            this.groupKey = groupKey;
            this.inCodec = inCodec;
            this.kinds = kinds;
            this.keyCodec = keyCodec;
            this.outCodec = outCodec;
            this.timeType = timeType;
            this.aggs = aggs;
            args = new Object[aggs.size()][];
            valueOf = new RowCodec.Projection[aggs.size()];
            valueCodec = new RowCodec[aggs.size()];
            for (AggregateCall call : aggs) {
                for (int c : call.args()) reads.set(c);
                if (call.filter() >= 0) reads.set(call.filter());
            }
            last = reads.length() - 1;
            for (int a = 0; a < aggs.size(); a++) {
                args[a] = new Object[aggs.get(a).args().size()];
                if (kinds[a] == Kind.ORDERED) {
                    int[] arg = {aggs.get(a).args().get(0)};
                    valueOf[a] = inCodec.projection(arg);
                    valueCodec[a] = inCodec.project(arg);
                }
            }
        }

        @Override
        public Acc create() {
            return new Acc(aggs.size());
        }

        @Override
        public void add(Acc acc, Row row, long diff) {
            acc.rows += diff;
            if (last < 0) return; // count(*) only
            // the columns the aggregates read, decoded in one walk of the row
            Object[] read = inCodec.decode(row, reads, last);
            for (int a = 0; a < kinds.length; a++) {
                AggregateCall call = aggs.get(a);
                if (kinds[a] == Kind.ROWS) continue;
                if (call.filter() >= 0 && !Boolean.TRUE.equals(read[call.filter()])) continue;
                if (kinds[a] == Kind.ORDERED) {
                    int column = call.args().get(0);
                    if (read[column] == null) continue;
                    if (acc.values[a] == null) acc.values[a] = new HashMap<>();
                    long[] count = acc.values[a].computeIfAbsent(valueOf[a].apply(row), v -> new long[1]);
                    count[0] += diff;
                    continue;
                }
                if (acc.sums[a] == null) acc.sums[a] = new Sums();
                Sums s = acc.sums[a];
                // a filtered aggregate counts its own rows; the others' are the group's
                if (call.filter() >= 0) s.rows += diff;
                Object[] values = args[a];
                for (int i = 0; i < values.length; i++) values[i] = read[call.args().get(i)];
                target = s;
                multiplicity = diff;
                call.function().accumulation().add(values, this);
            }
        }

        @Override
        void emit(int component, int key, int chunk, long amount) {
            if (amount != 0) target.add(component, key, chunk, Math.multiplyExact(amount, multiplicity));
        }

        @Override
        public void merge(Acc window, Acc pane) {
            window.rows += pane.rows;
            for (int a = 0; a < kinds.length; a++) {
                switch (kinds[a]) {
                    case ROWS -> { }
                    case SUMS -> {
                        if (pane.sums[a] == null) continue;
                        if (window.sums[a] == null) window.sums[a] = new Sums();
                        window.sums[a].addAll(pane.sums[a]);
                    }
                    case ORDERED -> {
                        settle(pane, a);
                        if (pane.results[a] == null) continue;
                        if (window.results[a] == null) window.results[a] = new ArrayList<>();
                        window.results[a].addAll(pane.results[a]);
                    }
                }
            }
        }

        /** A pane's min or max from its values: it takes no more updates once it goes into a window. */
        private void settle(Acc pane, int a) {
            HashMap<Row, long[]> values = pane.values[a];
            if (values == null) return;
            pane.values[a] = null;
            Object result = ordered(a, values, pane.results[a]);
            pane.results[a] = result == null ? null : new ArrayList<>(List.of(result));
        }

        /** Min or max {@code a} over {@code values} (counted) and {@code results}. */
        private Object ordered(int a, HashMap<Row, long[]> values, List<Object> results) {
            List<Object[]> rows = new ArrayList<>();
            List<Long> counts = new ArrayList<>();
            if (results != null) for (Object r : results) {
                rows.add(new Object[] {r});
                counts.add(1L);
            }
            if (values != null) for (Map.Entry<Row, long[]> e : values.entrySet()) {
                if (e.getValue()[0] <= 0) continue;
                rows.add(valueCodec[a].decode(e.getKey()));
                counts.add(e.getValue()[0]);
            }
            if (rows.isEmpty()) return null;
            long[] m = new long[counts.size()];
            for (int i = 0; i < m.length; i++) m[i] = counts.get(i);
            return aggs.get(a).function().evaluate(rows, m);
        }

        @Override
        public void results(Row key, long start, long end, Acc acc, Consumer<Row> out) {
            if (acc.rows <= 0) return;
            try {
                Object[] row = new Object[outCodec.arity()];
                Object[] keys = keyCodec.decode(key);
                int k = 0;
                int c = 0;
                for (int g : groupKey) {
                    row[c++] = g == Plan.PaneAggregate.WINDOW_START ? TimeWindows.fromTicks(start, timeType)
                            : g == Plan.PaneAggregate.WINDOW_END ? TimeWindows.fromTicks(end, timeType) : keys[k++];
                }
                for (int a = 0; a < kinds.length; a++) {
                    AggregateCall call = aggs.get(a);
                    row[c++] = switch (kinds[a]) {
                        case ROWS -> acc.rows;
                        case SUMS -> {
                            Sums s = acc.sums[a] == null ? new Sums() : acc.sums[a];
                            if (call.filter() < 0) s.rows = acc.rows;
                            yield call.function().accumulation().result(s);
                        }
                        case ORDERED -> ordered(a, acc.values[a], acc.results[a]);
                    };
                }
                out.accept(Row.concat(OK, outCodec.encode(row)));
            } catch (RuntimeException e) {
                out.accept(Row.concat(FAILED, Errors.encode(e instanceof SqlException s ? s : Errors.internal(e))));
            }
        }
    }
}
