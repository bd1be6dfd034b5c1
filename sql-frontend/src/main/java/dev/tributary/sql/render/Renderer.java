package dev.tributary.sql.render;

import dev.tributary.arrangements.BytesColumn;

import dev.tributary.asofjoin.AsOfJoin;
import dev.tributary.asofjoin.TemporalFilter;
import dev.tributary.changeslog.ChangeLog;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.EventTime;
import dev.tributary.differential.HalfJoin;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.Variable;
import dev.tributary.differential.KV;
import dev.tributary.differential.Reducer;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.plan.AggregateCall;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;

import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import dev.tributary.timely.Scope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lowers a {@link Plan} to differential operators over {@link Row}s in one scope.
 *
 * <p>Every node becomes incremental operators: filters and maps are stateless; joins arrange both
 * sides by key; reduce, distinct and top-k arrange by group and recompute only the groups that
 * changed. Scalar expressions are evaluated per row; an error raised by one becomes an error row
 * (see {@link Rendered}) instead of failing the dataflow.
 */
public final class Renderer {
    /** Where stored collections come from: the scope's view of a table, materialized view or index. */
    @FunctionalInterface
    public interface Sources {
        /** Collection {@code id} of the catalog in {@code scope}, with its errors. */
        Rendered get(long id, Scope scope);

        /**
         * {@link #get(long, Scope)}, where the source may leave out the rows that fail
         * {@code rows}, tested where they are stored before they are copied: rows that the reader
         * drops anyway (a filter's leading byte tests). A source may ignore it.
         */
        default Rendered get(long id, Scope scope, Collection.ColumnTest rows) {
            return get(id, scope);
        }

        /** Only the errors of collection {@code id} in {@code scope}. */
        default Collection<Row> errors(long id, Scope scope) {
            return get(id, scope).errs();
        }

        /** Index {@code id}'s arrangement (key to row) imported into {@code scope}. */
        default Arrangement<Row, Row> index(long id, Scope scope) {
            throw new IllegalStateException("no index " + id + " here");
        }

        /**
         * The time from which collection {@code id}, imported now, has its updates at the times
         * they were written, the same on every worker: before it, compaction may have moved an
         * update onto a later time (up to this one), so those times say nothing of the updates'
         * order. 0: every update is at its own time.
         */
        default long since(long id) {
            return 0;
        }
    }

    static final DataType<Row> ROW = RowDataType.INSTANCE;
    private static final List<SqlType> FLAGGED_ERROR = List.of(SqlType.BOOLEAN, SqlType.TEXT, SqlType.TEXT);

    private final Scope scope;
    private final Sources sources;
    private final Map<Integer, Rendered> lets = new HashMap<>();
    private final List<InputSession<Row>> constants = new ArrayList<>();

    /** The renderer of the scope around this one's loop, which renders what the loop only reads; null at the top. */
    private final Renderer outside;
    /** The ids of the loop's bindings and of the Lets bound inside it: a subplan that reads none of them is the same in every round. */
    private final java.util.Set<Integer> loopIds;

    public Renderer(Scope scope, Sources sources) {
        this.scope = scope;
        this.sources = sources;
        this.outside = null;
        this.loopIds = java.util.Set.of();
        this.nodes = new ArrayList<>();
    }

    /**
     * The operators rendered for one plan node: ids {@code firstOperator} to {@code endOperator}
     * (exclusive) of the dataflow were built while it was rendered (its inputs' among them, as
     * they are rendered inside it), and operator {@code output} sends its rows. EXPLAIN ANALYZE
     * charges each operator to the innermost node whose range holds it.
     */
    public record RenderedNode(Plan plan, int firstOperator, int endOperator, int output) {}

    /** Every plan node rendered here (and in nested loops' renderers), inputs before the nodes that read them. */
    private final List<RenderedNode> nodes;

    /** The plan nodes rendered so far, with their operators (see {@link RenderedNode}); a node fused into the one above it has none. */
    public List<RenderedNode> nodes() {
        return List.copyOf(nodes);
    }

    /** A renderer for the body of a {@link Plan.LetRec} in {@code inner}, nested in {@code outside}'s scope. */
    private Renderer(Renderer outside, Scope inner, java.util.Set<Integer> loopIds) {
        this.scope = inner;
        this.sources = outside.sources;
        this.outside = outside;
        this.loopIds = new java.util.HashSet<>(loopIds);
        this.nodes = outside.nodes;
    }

    /** Closes the inputs that feed constant rows, once the dataflow is built. */
    public void sealConstants() {
        for (InputSession<Row> s : constants) s.close();
        constants.clear();
    }

    public Rendered render(Plan plan) {
        int first = scope.operatorCount();
        Rendered r = renderNode(plan);
        nodes.add(new RenderedNode(plan, first, scope.operatorCount(), r.oks().stream().operatorId()));
        return r;
    }

    private Rendered renderNode(Plan plan) {
        if (outside != null && java.util.Collections.disjoint(Plans.freeRefs(plan), loopIds)) {
            // the same in every round: computed once outside the loop, and entered
            Rendered r = outside.render(plan);
            return new Rendered(r.oks().enter(scope), r.errs().enter(scope));
        }
        return switch (plan) {
            case Plan.Get g -> sources.get(g.id(), scope);
            case Plan.IndexedGet g -> sources.get(g.source(), scope);
            case Plan.Constant c -> constant(c);
            case Plan.Filter f -> fused(f);
            case Plan.Map m -> fused(m);
            case Plan.FlatMap m -> flatMap(render(m.input()), m);
            case Plan.Window w -> window(render(w.input()), w);
            case Plan.Sessions x -> sessions(render(x.input()), x);
            case Plan.PaneAggregate x -> PaneAggregation.render(render(x.input()), x);
            case Plan.SessionAggregate x -> PaneAggregation.render(render(x.input()), x);
            case Plan.Project p -> p.input() instanceof Plan.Filter || p.input() instanceof Plan.Map
                    || p.input() instanceof Plan.FlatMap m && WindowExpansion.applies(m) ? fused(p) : project(render(p.input()), p);
            case Plan.Join j -> join(j);
            case Plan.DeltaJoin d -> d.paths().isEmpty() ? render(d.fallback()) : deltaJoin(d);
            case Plan.Reduce r -> reduce(render(r.input()), r);
            case Plan.AsOfLookup a -> asOfLookup(a);
            case Plan.Lookup l -> lookup(l);
            case Plan.AsofJoin a -> asofJoin(a);
            case Plan.RepeatRow r -> {
                Rendered in = render(r.input());
                RowCodec codec = new RowCodec(r.input().types());
                int column = r.count();
                yield new Rendered(in.oks().flatMapUpdates((row, t, n, out) -> {
                    Object c = codec.get(row, column);
                    if (c != null) out.update(row, t, Math.multiplyExact(n, (Long) c));
                }, ROW), in.errs());
            }
            case Plan.TemporalFilter t -> {
                Rendered in = render(t.input());
                RowCodec codec = new RowCodec(t.input().types());
                int[] lower = t.lower().stream().mapToInt(Integer::intValue).toArray();
                int[] upper = t.upper().stream().mapToInt(Integer::intValue).toArray();
                yield new Rendered(TemporalFilter.apply(in.oks(), (row, out) -> {
                    long lo = Long.MIN_VALUE;
                    long hi = Long.MAX_VALUE;
                    for (int c : lower) {
                        Object v = codec.get(row, c);
                        if (v == null) return false;
                        lo = Math.max(lo, (Long) v);
                    }
                    for (int c : upper) {
                        Object v = codec.get(row, c);
                        if (v == null) return false;
                        hi = Math.min(hi, (Long) v);
                    }
                    out[0] = lo;
                    out[1] = hi;
                    return true;
                }), in.errs());
            }
            case Plan.EventTime e -> eventTime(render(e.input()), e);
            case Plan.CommitTime x -> {
                Rendered in = render(x.input());
                RowCodec at = new RowCodec(List.of(SqlType.TIMESTAMPTZ));
                yield new Rendered(in.oks().flatMapUpdates((row, t, n, out) -> out.update(Row.concat(row, at.encode(java.time.Instant.ofEpochMilli(t))), t, n),
                        ROW), in.errs());
            }
            case Plan.FirstRows x -> {
                Rendered in = render(x.input());
                RowCodec.Projection group = new RowCodec(x.input().types()).projection(x.groupKey().stream().mapToInt(Integer::intValue).toArray());
                yield new Rendered(dev.tributary.differential.FirstRows.of(in.oks(), group::apply, ROW, x.limit(), x.offset()), in.errs());
            }
            case Plan.TimeColumn x -> {
                Rendered in = render(x.input());
                RowCodec at = new RowCodec(List.of(SqlType.BIGINT));
                yield new Rendered(in.oks().flatMapUpdates((row, t, n, out) -> out.update(Row.concat(row, at.encode(t)), t, n), ROW), in.errs());
            }
            case Plan.SystemTime x -> {
                // the clocks of the streams under it: every EventTime rendered from here on
                int mark = clocks.size();
                Rendered in = render(x.input());
                List<dev.tributary.timely.Stream<dev.tributary.timely.LongContainer>> mine = new ArrayList<>();
                for (EventTime.Reclocked<Row, Row> stream : clocks.subList(mark, clocks.size())) mine.add(stream.clock());
                if (mine.isEmpty()) yield in;
                yield new Rendered(EventTime.toSystemTime(in.oks(), mine), EventTime.toSystemTime(in.errs(), mine));
            }
            case Plan.Delay x -> {
                Rendered in = render(x.input());
                RowCodec codec = new RowCodec(x.input().types());
                int column = x.column();
                boolean expire = x.expire();
                yield new Rendered(in.oks().flatMapUpdates((row, t, n, out) -> {
                    long end = codec.getTicks(row, column, Long.MIN_VALUE);
                    if (end == Long.MIN_VALUE) {
                        out.update(row, t, n);
                        return;
                    }
                    long at = Math.max(t, end - 1);
                    out.update(row, at, n);
                    if (expire && end > at) out.update(row, end, -n);
                }, ROW), in.errs());
            }
            case Plan.Expire x -> {
                Rendered in = render(x.input());
                RowCodec codec = new RowCodec(x.input().types());
                int column = x.column();
                long after = x.after();
                yield new Rendered(in.oks().flatMapUpdates((row, t, n, out) -> {
                    long at = codec.getTicks(row, column, Long.MIN_VALUE);
                    if (at == Long.MIN_VALUE) {
                        out.update(row, t, n);
                        return;
                    }
                    long end = at + after;
                    if (end <= t) return; // past it already: inserted and retracted at once
                    out.update(row, t, n);
                    out.update(row, end, -n);
                }, ROW), in.errs());
            }
            case Plan.Inserts x -> {
                Rendered in = render(x.input());
                // consolidated first: a join emits a pair's +1 and -1 at one time when the two
                // cancel (a delta against a trace's insertion and its expiry), and only their sum,
                // nothing, is a change
                yield new Rendered(in.oks().consolidate().flatMapUpdates((row, t, n, out) -> {
                    if (n > 0) out.update(row, t, n);
                }, ROW), in.errs());
            }
            case Plan.AtClose x -> {
                Rendered in = render(x.input());
                RowCodec codec = new RowCodec(x.input().types());
                int column = x.column();
                yield new Rendered(in.oks().flatMapUpdates((row, t, n, out) -> {
                    long end = codec.getTicks(row, column, Long.MIN_VALUE);
                    if (end == Long.MIN_VALUE || end - 1 == t) out.update(row, t, n);
                }, ROW), in.errs());
            }
            case Plan.Changes c -> {
                Rendered in = render(c.input());
                RowCodec tail = RowCodec.of(SqlType.TIMESTAMPTZ, SqlType.BIGINT);
                yield new Rendered(ChangeLog.of(in.oks(), c.since(),
                        (row, time, diff) -> Row.concat(row, tail.encode(java.time.Instant.ofEpochMilli(time), diff)), ROW), in.errs());
            }
            case Plan.Distinct d -> {
                Rendered in = render(d.input());
                yield new Rendered(in.oks().distinct(), in.errs());
            }
            case Plan.TopK t -> topK(render(t.input()), t);
            case Plan.Union u -> {
                Rendered acc = null;
                for (Plan p : u.inputs()) {
                    Rendered r = render(p);
                    acc = acc == null ? r : new Rendered(acc.oks().concat(r.oks()), acc.errs().concat(r.errs()));
                }
                yield acc;
            }
            case Plan.Negate n -> {
                Rendered in = render(n.input());
                yield new Rendered(in.oks().negate(), in.errs());
            }
            case Plan.Threshold t -> {
                Rendered in = render(t.input());
                yield new Rendered(in.oks().threshold(n -> n > 0 ? n : 0), in.errs());
            }
            case Plan.Let l -> {
                // inside a loop, what reads this binding reads something of this scope
                if (outside != null) loopIds.add(l.id());
                letValues.put(l.id(), l.value());
                lets.put(l.id(), render(l.value()));
                yield render(l.body());
            }
            case Plan.LetRec r -> letRec(r);
            case Plan.LetRef r -> {
                Rendered v = lets.get(r.id());
                if (v == null) throw new IllegalStateException("plan refers to let " + r.id() + " outside its binding");
                yield v;
            }
        };
    }

    /** What each stream in event time rendered here has dropped and how far its watermark is, in the order they were rendered. */
    public List<EventTime.Stats> streams() {
        return List.copyOf(streams);
    }

    private final List<EventTime.Stats> streams = new ArrayList<>();
    /** The streams rendered so far, whose clocks a {@link Plan.SystemTime} above them reads. */
    private final List<EventTime.Reclocked<Row, Row>> clocks = new ArrayList<>();

    private Rendered eventTime(Rendered in, Plan.EventTime e) {
        RowCodec codec = new RowCodec(e.input().types());
        int column = e.timeColumn();
        SqlType type = e.input().types().get(column);
        ScalarExpr watermark = e.watermark();
        Object[] scratch = new Object[e.input().arity()];
        EventTime.Stats stats = new EventTime.Stats();
        streams.add(stats);
        Collection<Row> rows = in.oks();
        Collection<Row> errors = in.errs();
        // the stream's commits are told apart only where its tables' times still are
        long since = since(e.input());
        if (e.fromNow()) {
            long from = e.from();
            rows = rows.flatMapUpdates((row, t, n, out) -> {
                if (t > from) out.update(row, t, n);
            }, ROW);
            errors = errors.flatMapUpdates((row, t, n, out) -> {
                if (t > from) out.update(row, t, n);
            }, ROW);
        }
        EventTime.Reclocked<Row, Row> r = EventTime.assign(rows, errors, row -> codec.getTicks(row, column, EventTime.NONE), largest -> {
            // the watermark is an expression of the largest event time alone (the binder checked)
            scratch[column] = TimeWindows.fromTicks(largest, type);
            try {
                Object w = watermark.eval(scratch);
                return w == null ? Long.MIN_VALUE : TimeWindows.ticks(w);
            } catch (SqlException x) {
                // out of range near the ends of time: the watermark stays where it was
                return Long.MIN_VALUE;
            }
        }, since, stats);
        clocks.add(r);
        return new Rendered(r.data(), r.errors());
    }

    /** Per Let binding rendered here, its value, for {@link #since(Plan)} of what refers to it. */
    private final Map<Integer, Plan> letValues = new HashMap<>();

    /**
     * The latest {@link Sources#since} of the stored collections {@code plan} reads (through the
     * bindings it refers to): from there on its input's times are the times of the writes.
     */
    private long since(Plan plan) {
        return switch (plan) {
            case Plan.Get g -> sources.since(g.id());
            case Plan.IndexedGet g -> sources.since(g.source());
            case Plan.LetRef r -> {
                Plan value = letValue(r.id());
                yield value == null ? 0 : since(value);
            }
            default -> {
                long[] latest = {0};
                Plans.withInputs(plan, in -> {
                    latest[0] = Math.max(latest[0], since(in));
                    return in;
                });
                yield latest[0];
            }
        };
    }

    /** Binding {@code id}'s value, bound here or around this loop (null for a loop's own bindings: its variables). */
    private Plan letValue(int id) {
        for (Renderer r = this; r != null; r = r.outside) {
            Plan value = r.letValues.get(id);
            if (value != null) return value;
        }
        return null;
    }

    private Rendered constant(Plan.Constant c) {
        InputSession<Row> in = InputSession.create(scope, "constant", ROW);
        RowCodec codec = new RowCodec(c.types());
        // a dataflow seeded from a checkpoint holds the constant's rows in its state already
        if (scope.worker() == 0 && !dev.tributary.arrangements.Seed.of(scope).seeded()) {
            for (Object[] row : c.rows()) in.insert(codec.encode(row));
        }
        constants.add(in);
        return new Rendered(in.collection(), emptyErrors());
    }

    /**
     * The bindings as variables of a new iterative scope, each set to its value computed from all
     * of them; outside, each binding is its value after the last round, and every binding's
     * errors (and, under a limit that raises, its failure to converge) are the errors of each.
     */
    private Rendered letRec(Plan.LetRec r) {
        Scope inner = scope.iterative("recursive");
        Renderer loop = new Renderer(this, inner, r.ids());
        Collection<Row> none = emptyErrors().enter(inner);
        Map<Integer, Variable<Row>> variables = new HashMap<>();
        Collection<Row> errors = emptyErrors();
        for (Plan.Binding b : r.bindings()) {
            Variable<Row> v;
            if (b.initial() == null) {
                v = Variable.empty(inner, ROW, r.limit());
            } else {
                Rendered initial = render(b.initial());
                errors = errors.concat(initial.errs());
                v = Variable.from(initial.oks().enter(inner), r.limit());
            }
            variables.put(b.id(), v);
            loop.lets.put(b.id(), new Rendered(v.collection(), none));
        }
        Map<Integer, Rendered> values = new HashMap<>();
        for (Plan.Binding b : r.bindings()) {
            Rendered value = loop.render(b.value());
            variables.get(b.id()).set(value.oks());
            values.put(b.id(), value);
        }
        for (Plan.Binding b : r.bindings()) {
            errors = errors.concat(values.get(b.id()).errs().leave());
            if (!r.errorAtLimit()) continue;
            Row error = Errors.encode(new SqlException("54000", "recursive query \"" + b.name() + "\" did not converge within " + r.limit()
                    + " iterations; the recursion may not terminate, or it needs more rounds: raise max_recursion_iterations (SET max_recursion_iterations = n)"));
            // a row still changing in the last round, at an outer time, means no fixed point by then
            errors = errors.concat(variables.get(b.id()).overflow().leave().threshold(n -> n != 0 ? 1 : 0).map(x -> error, ROW).distinct());
        }
        // a binding's contents in its last round: its value's once it converged, and what the limit's round left otherwise
        for (Plan.Binding b : r.bindings()) lets.put(b.id(), new Rendered(variables.get(b.id()).collection().leave(), errors));
        return render(r.body());
    }

    private Collection<Row> emptyErrors() {
        if (outside != null) return outside.emptyErrors().enter(scope);
        InputSession<Row> none = InputSession.create(scope, "no-errors", ROW);
        constants.add(none);
        return none.collection();
    }

    /** What a row-at-a-time step makes of one row: the row to pass on, or null to drop it. */
    @FunctionalInterface
    private interface RowStep {
        Row apply(Row row);
    }

    /** {@code step} applied to every row; an error it raises becomes an error row instead. */
    private static Rendered rowByRow(Rendered in, RowStep step) {
        return rowsByRow(in, (row, emit) -> {
            Row r = step.apply(row);
            if (r != null) emit.accept(r);
        });
    }

    /** As {@link #rowByRow}, for a step that makes any number of rows of each row. */
    private static Rendered rowsByRow(Rendered in, java.util.function.BiConsumer<Row, java.util.function.Consumer<Row>> step) {
        KV<Collection<Row>, Collection<Row>> split = in.oks().flatMapOr((row, out) -> {
            try {
                step.accept(row, out::ok);
            } catch (RuntimeException e) {
                out.other(errorRow(e));
            }
        }, ROW, ROW);
        return new Rendered(split.key(), in.errs().concat(split.val()));
    }

    /** A chain of filters, maps and projections over one input, run as one pass per row ({@link MapFilterProject}). */
    private Rendered fused(Plan top) {
        List<Plan> steps = new ArrayList<>();
        Plan base = top;
        while (base instanceof Plan.Filter || base instanceof Plan.Map || base instanceof Plan.Project) {
            steps.add(0, base);
            base = switch (base) {
                case Plan.Filter f -> f.input();
                case Plan.Map m -> m.input();
                case Plan.Project p -> p.input();
                default -> throw new IllegalStateException();
            };
        }
        MapFilterProject mfp = MapFilterProject.of(steps, base.types());
        // a projection of a window table is written as the windows are: no second pass copying each row
        if (base instanceof Plan.FlatMap m && mfp.isProjection() && WindowExpansion.applies(m)) return windows(render(m.input()), m, mfp.pickedColumns());
        // a stored collection's rows that fail the filter's leading byte tests are not even copied out
        Rendered in = base instanceof Plan.Get g && mfp.hasByteTests()
                ? sources.get(g.id(), scope, (column, i) -> !(column instanceof BytesColumn b) || mfp.passesByteTests(b.slab(), b.start(i)))
                : render(base);
        // byte tests and picked columns cannot fail: a map from column to column, no error output
        if (mfp.picksBytes()) return new Rendered(in.oks().mapColumns((from, i, into) -> mfp.applyInto((BytesColumn) from, i, (BytesColumn) into), ROW), in.errs());
        return rowByRow(in, mfp::apply);
    }

    /**
     * Per partition: the rows in window order, each copy of a row a position, each position with
     * its function's value appended. At the top level a partition is kept as such and a change
     * evaluates only the positions it may change ({@link WindowMaintenance}); inside a loop, whose
     * times are not totally ordered, it is a reduce keyed by the partition columns that sorts and
     * evaluates the partition again ({@link WindowEvaluation}) whenever it changes.
     */
    private Rendered window(Rendered in, Plan.Window w) {
        List<SqlType> types = w.input().types();
        RowCodec codec = new RowCodec(types);
        if (scope.arity() == 1) return maintainedWindow(in, w, codec);
        RowCodec flag = new RowCodec(List.of(SqlType.BOOLEAN));
        Row ok = flag.encode(false);
        RowCodec errCodec = new RowCodec(FLAGGED_ERROR);
        RowCodec outCodec = new RowCodec(w.types());
        int[] key = w.partition().stream().mapToInt(Integer::intValue).toArray();
        Comparator<Object[]> order = rowOrder(w.order(), types);
        Plan.WindowFunction fn = w.function();
        Plan.SortKey rangeKey = fn.frame().mode() == dev.tributary.sql.ast.WindowSpec.Mode.RANGE && !w.order().isEmpty() ? w.order().get(0) : null;
        SqlType rangeType = rangeKey == null ? null : types.get(rangeKey.column());
        Reducer<Row, Row, Row> logic = (k, input, output) -> {
            int size = input.size();
            Object[][] rows = new Object[size][];
            Integer[] idx = sortedGroup(input, codec, order, rows);
            long total = 0;
            for (int j = 0; j < size; j++) total += Math.max(0, input.count(idx[j]));
            Object[] values;
            Object[][] positions;
            try {
                if (total > Integer.MAX_VALUE - 8) throw new SqlException("54000", "a window partition holds more than " + (Integer.MAX_VALUE - 8) + " rows");
                positions = new Object[(int) total][];
                int at = 0;
                for (int j = 0; j < size; j++) {
                    for (long c = input.count(idx[j]); c > 0; c--) positions[at++] = rows[idx[j]];
                }
                values = new WindowEvaluation(fn, positions, order, rangeKey, rangeType).values();
            } catch (RuntimeException e) {
                // the partition's error, as a row: it is the query's error while the partition is as it is
                SqlException error = e instanceof SqlException se ? se : Errors.internal(e);
                output.add(errCodec.encode(true, error.sqlState(), error.getMessage()), 1);
                return;
            }
            for (int i = 0; i < positions.length; i++) {
                Object[] r = positions[i];
                Object[] out = Arrays.copyOf(r, r.length + 1);
                out[r.length] = values[i];
                output.add(Row.concat(ok, outCodec.encode(out)), 1);
            }
        };
        Arrangement<Row, Row> grouped = in.oks().arrangeByKeyColumns(codec.projection(key)::map, ROW, Collection::copy, ROW);
        return unflag(grouped.reduce("window", logic, ROW).values(), w.types(), in);
    }

    /** {@link #window} at the top level: each row keyed by its sort key, per partition a {@link WindowMaintenance}. */
    private Rendered maintainedWindow(Rendered in, Plan.Window w, RowCodec codec) {
        List<SqlType> types = w.input().types();
        RowCodec keyed = SORT_KEY.concat(codec);
        int[] key = w.partition().stream().mapToInt(c -> c + 1).toArray();
        RowCodec.Projection partitionOf = keyed.projection(key);
        Plan.WindowFunction fn = w.function();
        Plan.SortKey rangeKey = fn.frame().mode() == dev.tributary.sql.ast.WindowSpec.Mode.RANGE && !w.order().isEmpty() ? w.order().get(0) : null;
        SqlType rangeType = rangeKey == null ? null : types.get(rangeKey.column());
        List<Plan.SortKey> order = w.order();
        Collection<Row> sorted = in.oks().map(r -> Row.concat(SORT_KEY.encode(sortKey(r, codec, order)), r), ROW);
        WindowMaintenance logic = new WindowMaintenance(fn, keyed, w.types(), rowOrder(order, types), rangeKey, rangeType, WindowMaintenance.CHUNK);
        Collection<Row> flagged = dev.tributary.differential.KeyedProcess.process(sorted, "window", partitionOf::apply, ROW, logic, ROW);
        return unflag(flagged, w.types(), in);
    }

    /**
     * Splits a reduce's flagged output ({@code false} then a row of {@code types}, or
     * {@code true} then an error's SQLSTATE and message) into rows and {@code in}'s errors plus these.
     */
    private static Rendered unflag(Collection<Row> flaggedRows, List<SqlType> types, Rendered in) {
        RowCodec flag = new RowCodec(List.of(SqlType.BOOLEAN));
        RowCodec errCodec = new RowCodec(FLAGGED_ERROR);
        List<SqlType> flagged = new ArrayList<>();
        flagged.add(SqlType.BOOLEAN);
        flagged.addAll(types);
        RowCodec flaggedCodec = new RowCodec(flagged);
        int[] unflagged = new int[types.size()];
        for (int c = 0; c < unflagged.length; c++) unflagged[c] = c + 1;
        KV<Collection<Row>, Collection<Row>> split = flaggedRows.flatMapOr((row, out) -> {
            if (Boolean.TRUE.equals(flag.get(row, 0))) {
                Object[] e = errCodec.decode(row);
                out.other(Errors.encode(new SqlException((String) e[1], (String) e[2])));
            } else {
                out.ok(flaggedCodec.project(row, unflagged));
            }
        }, ROW, ROW);
        return new Rendered(split.key(), in.errs().concat(split.val()));
    }

    /**
     * SESSION windows: each partition's rows arranged under it, and a reduce that walks them in
     * order of time, starting a session where a time lies {@code gap} or more past the last one.
     * A session's rows are made again whenever the partition changes (a new row can merge two
     * sessions, a deleted one split one), so a partition's work is its size: fine for many
     * partitions of moderate size, costly for one huge one. Output is flagged: a window end past
     * the time type's range is an error row (22008), split off after the reduce.
     */
    private Rendered sessions(Rendered in, Plan.Sessions x) {
        List<SqlType> types = x.input().types();
        RowCodec codec = new RowCodec(types);
        SqlType timeType = types.get(x.time());
        RowCodec produced = new RowCodec(List.of(timeType, timeType));
        RowCodec flag = new RowCodec(List.of(SqlType.BOOLEAN));
        Row ok = flag.encode(false);
        RowCodec errCodec = new RowCodec(FLAGGED_ERROR);
        int column = x.time();
        long gap = x.gap();
        int[] key = x.partition().stream().mapToInt(Integer::intValue).toArray();
        Reducer<Row, Row, Row> logic = (k, input, output) -> {
            int size = input.size();
            long[] times = new long[size];
            Integer[] idx = new Integer[size];
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (input.count(i) <= 0) continue;
                long t = codec.getTicks(input.value(i), column, Long.MIN_VALUE);
                // a NULL time, or an infinite one (the long's extremes), is in no session, as in no other window
                if (t == Long.MIN_VALUE || t == Long.MAX_VALUE) continue;
                times[i] = t;
                idx[n++] = i;
            }
            Arrays.sort(idx, 0, n, (a, b) -> Long.compare(times[a], times[b]));
            int first = 0;
            while (first < n) {
                int last = first;
                while (last + 1 < n && times[idx[last + 1]] - times[idx[last]] < gap) last++;
                long start = times[idx[first]];
                Row bounds;
                try {
                    long end = Math.addExact(times[idx[last]], gap);
                    bounds = produced.encode(TimeWindows.fromTicks(start, timeType), TimeWindows.fromTicks(end, timeType));
                } catch (ArithmeticException | SqlException e) {
                    SqlException error = e instanceof SqlException se ? se
                            : new SqlException("22008", timeType + " out of range for the end of a session window starting at " + TimeWindows.fromTicks(start, timeType));
                    output.add(errCodec.encode(true, error.sqlState(), error.getMessage()), 1);
                    first = last + 1;
                    continue;
                }
                for (int j = first; j <= last; j++) {
                    int i = idx[j];
                    output.add(Row.concat(ok, Row.concat(input.value(i), bounds)), input.count(i));
                }
                first = last + 1;
            }
        };
        Arrangement<Row, Row> grouped = in.oks().arrangeByKeyColumns(codec.projection(key)::map, ROW, Collection::copy, ROW);
        return unflag(grouped.reduce("sessions", logic, ROW).values(), x.types(), in);
    }

    private Rendered flatMap(Rendered in, Plan.FlatMap m) {
        if (WindowExpansion.applies(m)) return windows(in, m, WindowExpansion.allColumns(m));
        RowCodec inCodec = new RowCodec(m.input().types());
        int n = m.input().arity();
        // an output row is the input row's bytes and then the produced columns' (rows concatenate
        // column-wise): the input's columns are not encoded again for each row it makes
        RowCodec producedCodec = new RowCodec(m.types().subList(n, m.types().size()));
        // a row's rows are taken from the function a fuel's worth at a time (expandOr): one call
        // that makes a billion of them holds the worker no longer than any other step
        KV<Collection<Row>, Collection<Row>> split = in.oks().expandOr(row -> expansion(m.function(), inCodec, producedCodec, row), ROW, ROW);
        return new Rendered(split.key(), in.errs().concat(split.val()));
    }

    /**
     * The rows of table function {@code f} over {@code row} (of {@code inCodec}), each the row's
     * bytes and then the function's values encoded with {@code producedCodec}, as an expansion
     * taken a budget at a time; an error, the function's or its values', is the expansion's last
     * output, on the other side. The general path of a {@link Plan.FlatMap}, and what a window
     * function's path on bytes ({@link WindowExpansion}) must agree with.
     */
    static Collection.Expansion<Row, Row> expansion(dev.tributary.sql.expr.TableFunction f, RowCodec inCodec, RowCodec producedCodec, Row row) {
        Object[] values = inCodec.decode(row);
        java.util.Iterator<Object[]> rows;
        try {
            rows = f.evaluate(values);
        } catch (RuntimeException e) {
            return failed(e);
        }
        return (out, budget) -> {
            try {
                for (long k = 0; k < budget && rows.hasNext(); k++) {
                    out.ok(Row.concat(row, producedCodec.encode(rows.next())));
                }
                return rows.hasNext();
            } catch (RuntimeException e) {
                out.other(errorRow(e));
                return false;
            }
        };
    }

    /**
     * A window function's rows (TUMBLE, HOP, CUMULATE over a time column), made on the rows'
     * bytes ({@link WindowExpansion}), each output row {@code columns} of the input's columns
     * then the window's; fuelled as every expansion is.
     */
    private static Rendered windows(Rendered in, Plan.FlatMap m, int[] columns) {
        KV<Collection<Row>, Collection<Row>> split = in.oks().expandColumnsOr(WindowExpansion.of(m, columns), ROW, ROW);
        return new Rendered(split.key(), in.errs().concat(split.val()));
    }

    /** An expansion whose only output is the error row of {@code e}. */
    private static Collection.Expansion<Row, Row> failed(RuntimeException e) {
        Row error = errorRow(e);
        return (out, budget) -> {
            out.other(error);
            return false;
        };
    }

    /** The error row for {@code e}: its SQLSTATE if it is a SQL error, XX000 otherwise. */
    private static Row errorRow(RuntimeException e) {
        return Errors.encode(e instanceof SqlException s ? s : Errors.internal(e));
    }

    private Rendered project(Rendered in, Plan.Project p) {
        RowCodec codec = new RowCodec(p.input().types());
        int[] columns = p.columns().stream().mapToInt(Integer::intValue).toArray();
        return new Rendered(in.oks().mapColumns(codec.projection(columns)::map, ROW), in.errs());
    }

    private Rendered join(Plan.Join j) {
        Side left = side(j.left(), j.leftKey());
        Side right = side(j.right(), j.rightKey());
        Collection<Row> joined = left.arranged.join(right.arranged, (k, a, b) -> Row.concat(a, b), ROW);
        return new Rendered(joined, left.errs.concat(right.errs));
    }

    private record Side(Arrangement<Row, Row> arranged, Collection<Row> errs) {}

    /** The as-of lookup on a half-join: the dimension arranged by its key, each outer row looked up once at its time. */
    /**
     * A stream's rows looked up in a table at their own times: a half join at each row's time
     * (strict: no, a row sees its own transaction's table changes), left (a row that finds nothing
     * still leaves, flagged), so that the {@link Plan.EventTime} above it sees every row of the
     * stream and its watermark is the stream's.
     */
    private Rendered lookup(Plan.Lookup l) {
        Rendered stream = render(l.stream());
        Side table = side(l.table(), l.tableKey());
        RowCodec streamCodec = new RowCodec(l.stream().types());
        int[] key = l.streamKey().stream().mapToInt(Integer::intValue).toArray();
        Row nothing = new RowCodec(l.table().types()).encode(new Object[l.table().arity()]);
        RowCodec flag = RowCodec.of(SqlType.BOOLEAN);
        Row found = flag.encode(true);
        Row notFound = flag.encode(false);
        long asOf = HalfJoin.asOf(List.of(table.arranged()));
        Collection<Row> out = stream.oks().halfJoin(row -> streamCodec.project(row, key), table.arranged(), new HalfJoin.ReadTime.OwnTime<>(false, asOf), true,
                (row, match) -> match == null ? Row.concat(Row.concat(row, nothing), notFound) : Row.concat(Row.concat(row, match), found), ROW, null);
        return new Rendered(out, stream.errs().concat(table.errs()));
    }

    /**
     * ASOF JOIN: both sides' rows, tagged, arranged together by the key (right rows with a NULL
     * key or time are left out first), and a reduce that sorts a key's right rows by time and finds
     * each left row's nearest by binary search. A key's result is made again when it changes, so a
     * change costs the size of its key's group on both sides.
     */
    private Rendered asofJoin(Plan.AsofJoin a) {
        Rendered left = render(a.left());
        Rendered right = render(a.right());
        List<SqlType> lt = a.left().types();
        List<SqlType> rt = a.right().types();
        RowCodec flag = RowCodec.of(SqlType.BOOLEAN);
        Row isLeft = flag.encode(true);
        Row isRight = flag.encode(false);
        List<SqlType> ltTagged = new ArrayList<>(List.of(SqlType.BOOLEAN));
        ltTagged.addAll(lt);
        List<SqlType> rtTagged = new ArrayList<>(List.of(SqlType.BOOLEAN));
        rtTagged.addAll(rt);
        RowCodec lc = new RowCodec(ltTagged);
        RowCodec rc = new RowCodec(rtTagged);
        int[] lk = a.leftKey().stream().mapToInt(k -> k + 1).toArray();
        int[] rk = a.rightKey().stream().mapToInt(k -> k + 1).toArray();
        int[] lcols = new int[lt.size()];
        for (int c = 0; c < lcols.length; c++) lcols[c] = c + 1;
        int[] rcols = new int[rt.size()];
        for (int c = 0; c < rcols.length; c++) rcols[c] = c + 1;
        int ltime = a.leftTime() + 1;
        int rtime = a.rightTime() + 1;
        SqlType timeType = lt.get(a.leftTime());
        boolean before = a.op().startsWith(">"); // the right row's time is at or before the left's
        boolean strict = a.op().length() == 1;
        RowCodec rightCodec = new RowCodec(rt);
        Row nothing = rightCodec.encode(new Object[rt.size()]);
        Collection<Row> rights = right.oks().filter(row -> {
            if (rightCodec.isNull(row, a.rightTime())) return false;
            for (int k : a.rightKey()) if (rightCodec.isNull(row, k)) return false;
            return true;
        }).map(row -> Row.concat(isRight, row), ROW);
        Collection<Row> tagged = left.oks().map(row -> Row.concat(isLeft, row), ROW).concat(rights);
        Arrangement<Row, Row> grouped = tagged.arrangeByKey(row -> Boolean.TRUE.equals(flag.get(row, 0)) ? lc.project(row, lk) : rc.project(row, rk), ROW,
                row -> row, ROW);
        Reducer<Row, Row, Row> logic = (k, input, output) -> {
            int size = input.size();
            List<Integer> rs = new ArrayList<>();
            Object[] times = new Object[size];
            boolean[] isLeftRow = new boolean[size];
            for (int i = 0; i < size; i++) {
                if (input.count(i) <= 0) continue;
                Row row = input.value(i);
                boolean l = Boolean.TRUE.equals(flag.get(row, 0));
                isLeftRow[i] = l;
                times[i] = (l ? lc : rc).get(row, l ? ltime : rtime);
                if (!l) rs.add(i);
            }
            // right rows by time; of equal times the last in row order is the match (values come in row order)
            rs.sort((x, y) -> Values.compare(times[x], times[y], timeType));
            for (int i = 0; i < size; i++) {
                long n = input.count(i);
                if (n <= 0 || !isLeftRow[i]) continue;
                Row row = input.value(i);
                int match = -1;
                Object t = times[i];
                boolean keyNull = false;
                for (int c : lk) keyNull |= lc.isNull(row, c);
                if (t != null && !keyNull && !rs.isEmpty()) {
                    // the first right row whose time is past t (before: past or, strictly, at t)
                    int lo = 0;
                    int hi = rs.size();
                    while (lo < hi) {
                        int mid = (lo + hi) >>> 1;
                        int cmp = Values.compare(times[rs.get(mid)], t, timeType);
                        boolean pastT = before ? (strict ? cmp >= 0 : cmp > 0) : (strict ? cmp > 0 : cmp >= 0);
                        if (pastT) hi = mid;
                        else lo = mid + 1;
                    }
                    if (before) {
                        if (lo > 0) match = rs.get(lo - 1);
                    } else if (lo < rs.size()) {
                        // the earliest time after t: of its ties, the last
                        int last = lo;
                        while (last + 1 < rs.size() && Values.compare(times[rs.get(last + 1)], times[rs.get(lo)], timeType) == 0) last++;
                        match = rs.get(last);
                    }
                }
                Row l = lc.project(row, lcols);
                if (match >= 0) output.add(Row.concat(l, rc.project(input.value(match), rcols)), n);
                else if (a.leftOuter()) output.add(Row.concat(l, nothing), n);
            }
        };
        Collection<Row> oks = grouped.reduce("asof", logic, ROW).values();
        return new Rendered(oks, left.errs().concat(right.errs()));
    }

    private Rendered asOfLookup(Plan.AsOfLookup a) {
        Rendered outer = render(a.outer());
        Side dim = side(a.dimension(), a.dimensionKey());
        RowCodec outerCodec = new RowCodec(a.outer().types());
        int[] key = a.outerKey().stream().mapToInt(Integer::intValue).toArray();
        int time = a.time();
        Row nothing = new RowCodec(a.dimension().types()).encode(new Object[a.dimension().arity()]);
        RowCodec flag = RowCodec.of(SqlType.BOOLEAN);
        Row found = flag.encode(true);
        Row notFound = flag.encode(false);
        long since = a.since() == Plan.AsOfLookup.READABLE ? HalfJoin.asOf(List.of(dim.arranged())) : a.since();
        AsOfJoin<Row> lookup = AsOfJoin.lookup(outer.oks(), row -> outerCodec.project(row, key), row -> {
            // SQL's = never matches NULL, and a dimension read through an index may hold NULL keys
            for (int k : key) if (outerCodec.isNull(row, k)) return Long.MIN_VALUE;
            Object t = outerCodec.get(row, time);
            return t == null ? Long.MIN_VALUE : (Long) t;
        }, since, dim.arranged(), a.left(), (row, match) -> match == null ? Row.concat(Row.concat(row, nothing), notFound)
                : Row.concat(Row.concat(row, match), found), ROW);
        return new Rendered(lookup.output(), outer.errs().concat(dim.errs()));
    }

    /**
     * A delta join: for each input, its changes looked up in the other inputs' indexes one after
     * another (inputs before it in the join's order as of just before each change's time, inputs
     * after it as of that time, so simultaneous changes count once), then put in the join's
     * column order; the union of these is the join's change. Nothing but the indexes is arranged.
     */
    private Rendered deltaJoin(Plan.DeltaJoin d) {
        int n = d.inputs().size();
        Collection<Row> oks = null;
        Collection<Row> errs = null;
        for (int i = 0; i < n; i++) {
            Collection<Row> e = sources.errors(d.inputs().get(i).id(), scope);
            errs = errs == null ? e : errs.concat(e);
        }
        // every lookup's index, imported first: the terms read them all as beginning at one time,
        // the latest of their sinces (see HalfJoin.ReadTime.OwnTime), so that the history they
        // hold is counted once however much of it each has compacted
        List<List<Arrangement<Row, Row>>> indexes = new ArrayList<>();
        List<Arrangement<Row, Row>> all = new ArrayList<>();
        for (Plan.DeltaPath path : d.paths()) {
            List<Arrangement<Row, Row>> lookups = new ArrayList<>();
            for (Plan.DeltaStep step : path.steps()) lookups.add(sources.index(step.index(), scope));
            indexes.add(lookups);
            all.addAll(lookups);
        }
        long asOf = HalfJoin.asOf(all);
        for (int p = 0; p < d.paths().size(); p++) {
            Plan.DeltaPath path = d.paths().get(p);
            int start = path.start();
            Rendered changes = filterWith(sources.get(d.inputs().get(start).id(), scope), d.inputs().get(start).types(), d.filters().get(start), 0);
            errs = errs.concat(changes.errs());
            Collection<Row> acc = changes.oks();
            List<Integer> layout = new ArrayList<>(List.of(start));
            List<SqlType> accTypes = new ArrayList<>(d.inputs().get(start).types());
            for (int q = 0; q < path.steps().size(); q++) {
                Plan.DeltaStep step = path.steps().get(q);
                int[] probe = new int[step.probe().size()];
                for (int k = 0; k < probe.length; k++) probe[k] = position(d, layout, step.probe().get(k));
                RowCodec accCodec = new RowCodec(accTypes);
                // SQL's = never matches NULL: rows with a NULL probe column look nothing up
                acc = acc.filter(row -> {
                    for (int c : probe) if (accCodec.isNull(row, c)) return false;
                    return true;
                });
                acc = acc.halfJoin(row -> accCodec.project(row, probe), indexes.get(p).get(q), new HalfJoin.ReadTime.OwnTime<>(step.input() < start, asOf),
                        false, (row, found) -> Row.concat(row, found), ROW, null);
                int width = accTypes.size();
                accTypes.addAll(d.inputs().get(step.input()).types());
                layout.add(step.input());
                Rendered filtered = filterWith(new Rendered(acc, emptyErrors()), accTypes, d.filters().get(step.input()), width);
                acc = filtered.oks();
                errs = errs.concat(filtered.errs());
            }
            int[] order = new int[accTypes.size()];
            for (int c = 0; c < order.length; c++) order[c] = position(d, layout, c);
            RowCodec finalCodec = new RowCodec(accTypes);
            Collection<Row> term = acc.map(row -> finalCodec.project(row, order), ROW);
            oks = oks == null ? term : oks.concat(term);
        }
        Rendered joined = new Rendered(oks, errs);
        return d.residual().isEmpty() ? joined : filterWith(joined, d.types(), d.residual(), 0);
    }

    /** Where column {@code column} (join order) is in a row whose inputs are laid out in {@code layout} order. */
    private static int position(Plan.DeltaJoin d, List<Integer> layout, int column) {
        int pos = 0;
        for (int input : layout) {
            int o = d.offset(input);
            int w = d.inputs().get(input).arity();
            if (column >= o && column < o + w) return pos + column - o;
            pos += w;
        }
        throw new IllegalStateException("column " + column + " is not joined yet");
    }

    /** Rows of {@code types} filtered by {@code predicates} over the columns from {@code shift} on. */
    private Rendered filterWith(Rendered in, List<SqlType> types, List<ScalarExpr> predicates, int shift) {
        if (predicates.isEmpty()) return in;
        int[] map = new int[types.size()];
        for (int c = 0; c < map.length; c++) map[c] = c + shift < map.length ? c + shift : -1;
        List<ScalarExpr> shifted = new ArrayList<>();
        for (ScalarExpr p : predicates) shifted.add(shift == 0 ? p : dev.tributary.sql.expr.ScalarExprs.remap(p, map));
        RowCodec codec = new RowCodec(types);
        java.util.BitSet read = new java.util.BitSet();
        for (ScalarExpr p : shifted) dev.tributary.sql.expr.ScalarExprs.columns(p, read);
        int last = read.length() - 1;
        return rowByRow(in, row -> {
            Object[] values = codec.decode(row, read, last);
            for (ScalarExpr p : shifted) {
                if (!Boolean.TRUE.equals(p.eval(values))) return null;
            }
            return row;
        });
    }

    /** One input of a join arranged by its key: an index's arrangement when it has the key, else a new one. */
    private Side side(Plan input, List<Integer> key) {
        if (input instanceof Plan.IndexedGet g && g.key().equals(key)) {
            return new Side(sources.index(g.index(), scope), sources.errors(g.source(), scope));
        }
        Rendered r = render(input);
        RowCodec codec = new RowCodec(input.types());
        int[] k = key.stream().mapToInt(Integer::intValue).toArray();
        return new Side(r.oks().arrangeByKeyColumns(codec.projection(k)::map, ROW, Collection::copy, ROW), r.errs());
    }

    /** A GROUP BY: its aggregates rendered by {@link Grouping}, errors split off, and a global aggregate's row on empty input. */
    private Rendered reduce(Rendered in, Plan.Reduce r) {
        List<SqlType> inTypes = r.input().types();
        int[] key = r.groupKey().stream().mapToInt(Integer::intValue).toArray();
        List<AggregateCall> aggs = r.aggregates();
        List<SqlType> aggTypes = new ArrayList<>();
        aggTypes.add(SqlType.BOOLEAN);
        for (AggregateCall a : aggs) aggTypes.add(a.function().resultType());
        RowCodec outCodec = new RowCodec(aggTypes);
        RowCodec errCodec = new RowCodec(FLAGGED_ERROR);
        Arrangement<Row, Row> reduced = Grouping.aggregate(in, r);
        List<SqlType> keyTypes = new ArrayList<>();
        for (int c : key) keyTypes.add(inTypes.get(c));
        int[] payload = new int[aggs.size()];
        for (int i = 0; i < payload.length; i++) payload[i] = i + 1;
        KV<Collection<Row>, Collection<Row>> split = reduced.asCollection().flatMapOr((kv, out) -> {
            if (Boolean.TRUE.equals(outCodec.get(kv.val(), 0))) {
                Object[] e = errCodec.decode(kv.val());
                out.other(Errors.encode(new SqlException((String) e[1], (String) e[2])));
            } else {
                out.ok(Row.concat(kv.key(), outCodec.project(kv.val(), payload)));
            }
        }, ROW, ROW);
        Collection<Row> oks = split.key();
        if (r.global() && key.length == 0) {
            // SQL's aggregate without GROUP BY has one row even for empty input: the defaults,
            // present exactly while the reduce has no row of its own.
            Object[] defaults = new Object[aggs.size()];
            for (int a = 0; a < aggs.size(); a++) defaults[a] = Aggregation.evaluate(aggs.get(a), inTypes, new Object[0][], new long[0]);
            RowCodec resultCodec = new RowCodec(r.types());
            Row defaultRow = resultCodec.encode(defaults);
            Rendered constant = constant(new Plan.Constant(List.<Object[]>of(defaults), r.types()));
            Collection<Row> present = reduced.asCollection().map(kv -> defaultRow, ROW);
            oks = oks.concat(constant.oks()).concat(present.negate());
        }
        return new Rendered(oks, in.errs().concat(split.val()));
    }

    /**
     * A group's values decoded into {@code rows} and their positions in {@code order}; values
     * arrive in row order, so the stable sort breaks ties by the whole row.
     */
    private static Integer[] sortedGroup(Reducer.Input<Row> input, RowCodec codec, Comparator<Object[]> order, Object[][] rows) {
        Integer[] idx = new Integer[rows.length];
        for (int i = 0; i < rows.length; i++) {
            idx[i] = i;
            rows[i] = codec.decode(input.value(i));
        }
        Arrays.sort(idx, (a, b) -> order.compare(rows[a], rows[b]));
        return idx;
    }

    /**
     * ORDER BY ... LIMIT/OFFSET per group (and DISTINCT ON): each row arranged under its group,
     * as its sort key (bytes whose order is the ORDER BY's) then the row itself, which breaks
     * ties; {@link Arrangement#topK} then takes the first rows by walking the group in that
     * order, not by sorting it.
     */
    private Rendered topK(Rendered in, Plan.TopK t) {
        List<SqlType> types = t.input().types();
        RowCodec codec = new RowCodec(types);
        int[] key = t.groupKey().stream().mapToInt(Integer::intValue).toArray();
        RowCodec keyed = SORT_KEY.concat(codec);
        int[] row = new int[types.size()];
        for (int c = 0; c < row.length; c++) row[c] = c + 1;
        if (dev.tributary.sql.plan.Plans.insertsOnly(t.input())) {
            // rows that only come: per group only those still among its first are kept
            Collection<Row> sorted = in.oks().map(r -> Row.concat(SORT_KEY.encode(sortKey(r, codec, t.order())), r), ROW);
            RowCodec.Projection group = keyed.projection(java.util.Arrays.stream(key).map(c -> c + 1).toArray());
            Collection<Row> top = dev.tributary.differential.MonotonicTopK.topK(sorted, "topk", group::apply, ROW, ROW.order(), t.offset(), t.limit());
            return new Rendered(top.map(v -> keyed.project(v, row), ROW), in.errs());
        }
        Arrangement<Row, Row> grouped = in.oks().arrangeByKey(r -> codec.project(r, key), ROW,
                r -> Row.concat(SORT_KEY.encode(sortKey(r, codec, t.order())), r), ROW);
        Collection<Row> oks = grouped.topK("topk", t.offset(), t.limit()).flatten((k, v) -> keyed.project(v, row), ROW);
        return new Rendered(oks, in.errs());
    }

    /** A sort key: bytes in a BYTEA column, which keeps their unsigned order. */
    static final RowCodec SORT_KEY = RowCodec.of(SqlType.BYTEA);

    /**
     * The bytes of {@code row}'s sort key, whose unsigned order is {@code order}'s: per key, a
     * byte that puts NULL first or last, then (for a value) the column as encoded, complemented
     * when descending (an encoded value is prefix-free, so its complement sorts in reverse).
     * Numbers and intervals are encoded in their key form, so that values PostgreSQL orders as
     * equal (1.0 and 1.00) tie, to be ordered by the rest of the row; arrays with their shape
     * ({@link RowCodec#arrayOrderBytes}), so that arrays of every shape sort as in PostgreSQL.
     */
    static dev.tributary.sql.types.Bytea sortKey(Row row, RowCodec codec, List<Plan.SortKey> order) {
        int last = -1;
        for (Plan.SortKey k : order) last = Math.max(last, k.column());
        // one walk over the row for every key column: a wide row's text columns are stepped over once
        int[] at = codec.bounds(row, last);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(64);
        for (Plan.SortKey k : order) {
            int c = k.column();
            boolean isNull = RowCodec.isNullAt(row, at[c]);
            out.write(isNull == k.nullsFirst() ? 0 : 1);
            if (isNull) continue;
            SqlType type = codec.types().get(c);
            byte[] bytes = switch (type.kind()) {
                case NUMERIC, INTERVAL, JSONB -> RowCodec.of(type).encode(dev.tributary.sql.row.Keys.normalize(codec.get(row, c))).toBytes();
                case ARRAY -> codec.arrayOrderBytes(row, c);
                default -> row.slice(at[c], at[c + 1]);
            };
            if (k.descending()) for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) ~bytes[i];
            out.writeBytes(bytes);
        }
        return dev.tributary.sql.types.Bytea.copyOf(out.toByteArray());
    }

    /** The order of decoded rows by sort keys, NULLs placed as each key says. */
    public static Comparator<Object[]> rowOrder(List<Plan.SortKey> keys, List<SqlType> types) {
        return (a, b) -> {
            for (Plan.SortKey k : keys) {
                Object x = a[k.column()];
                Object y = b[k.column()];
                int c;
                if (x == null || y == null) {
                    if (x == y) continue;
                    c = (x == null) == k.nullsFirst() ? -1 : 1;
                    return c;
                }
                c = Values.compare(x, y, types.get(k.column()));
                if (c != 0) return k.descending() ? -c : c;
            }
            return 0;
        };
    }
}
