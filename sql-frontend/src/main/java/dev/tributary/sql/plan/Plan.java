package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * The logical plan: a relational expression over multisets of rows, the form every query takes
 * between the binder and the renderer, whether it is answered once or maintained.
 *
 * <p>Every node knows its output column types; columns are referred to by position (the binder
 * has resolved all names). Semantics are bag semantics with signed multiplicities, so
 * {@link Negate} and {@link Union} express differences and {@link Threshold} clamps at zero.
 * A node is a value: plans are compared, printed by {@link Explain}, and rewritten by
 * {@link Optimizer} without side effects.
 */
public sealed interface Plan {
    /** The types of the output columns, in order. */
    List<SqlType> types();

    default int arity() {
        return types().size();
    }

    /**
     * {@code CHANGES(input AS OF since)}: the input's history from {@code since} on as an
     * append-only relation, each consolidated update {@code (row, t, n)} becoming the row
     * {@code (row..., change_time = t, change_diff = n)} present from {@code t} on; updates before
     * {@code since} are folded into its contents at {@code since}. {@code types} are the input's
     * followed by timestamptz and bigint.
     */
    record Changes(Plan input, long since, List<SqlType> types) implements Plan {
        public Changes {
            types = List.copyOf(types);
        }
    }

    /**
     * The correlated lookup {@code x AS OF SYSTEM TIME expr SINCE since}: each row of {@code outer}
     * meets, once, the rows of {@code dimension} whose columns {@code dimensionKey} equal its columns
     * {@code outerKey}, as {@code dimension} was at the time in its column {@code time} (bigint
     * milliseconds; NULL, or before {@code since}, finds nothing). It leaves at the later of its own
     * time and that time, so a future time holds it back, and it never changes when the dimension
     * changes later. The output is outer's columns, dimension's, and a boolean "found"; with
     * {@code left}, a row that found nothing leaves once with NULL dimension columns and false.
     * Runs on a half-join ({@code dev.tributary.asofjoin.AsOfJoin}); its state is the dimension's
     * history since {@code since} plus the rows still waiting.
     */
    record AsOfLookup(Plan outer, Plan dimension, List<Integer> outerKey, List<Integer> dimensionKey, int time, long since,
                      boolean left, List<SqlType> types) implements Plan {
        /** {@code since} of a lookup without SINCE: as far back as the dimension is readable when the dataflow starts. */
        public static final long READABLE = Long.MIN_VALUE;

        public AsOfLookup {
            outerKey = List.copyOf(outerKey);
            dimensionKey = List.copyOf(dimensionKey);
            types = List.copyOf(types);
        }
    }

    /**
     * A stream's rows joined with a table as the table is at each row's own time, what a join of a
     * STREAM with a table is: each row of {@code stream} with the rows of {@code table} whose
     * {@code tableKey} columns equal its {@code streamKey} columns at the row's time, once, then a
     * boolean "found"; a row that finds nothing leaves once with NULL table columns and false. A
     * half join: the stream's rows are not stored, and a later change of the table changes no
     * result already given. Planned below the stream's {@link EventTime}, in system time, so a row
     * reads the table as of its commit.
     */
    record Lookup(Plan stream, Plan table, List<Integer> streamKey, List<Integer> tableKey) implements Plan {
        public Lookup {
            streamKey = List.copyOf(streamKey);
            tableKey = List.copyOf(tableKey);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(stream.types());
            t.addAll(table.types());
            t.add(SqlType.BOOLEAN);
            return t;
        }
    }

    /**
     * {@code left ASOF [LEFT] JOIN right}: each row of {@code left} with the one row of
     * {@code right} of equal keys whose {@code rightTime} is nearest its {@code leftTime} on the
     * side {@code op} allows ({@code leftTime op rightTime}: for {@code >=} the latest right row at
     * or before, for {@code >} strictly before, for {@code <=} and {@code <} the earliest at or
     * after, strictly after); of right rows tied at that time the last in row order. A left row
     * that finds none (a NULL key or time included) is dropped, or with {@code leftOuter} kept once
     * with NULL right columns. Each copy of a left row is matched: the output has left's counts.
     * Columns: left's, then right's.
     */
    record AsofJoin(Plan left, Plan right, List<Integer> leftKey, List<Integer> rightKey, int leftTime, int rightTime, String op,
            boolean leftOuter) implements Plan {
        public AsofJoin {
            leftKey = List.copyOf(leftKey);
            rightKey = List.copyOf(rightKey);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(left.types());
            t.addAll(right.types());
            return t;
        }
    }

    /**
     * A temporal filter: each row present exactly while the system time is at or after every
     * column of {@code lower} and before every column of {@code upper} (bigint milliseconds; a NULL
     * bound: never present). See {@code dev.tributary.asofjoin.TemporalFilter}.
     */
    record TemporalFilter(Plan input, List<Integer> lower, List<Integer> upper) implements Plan {
        public TemporalFilter {
            lower = List.copyOf(lower);
            upper = List.copyOf(upper);
        }

        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * A stream in event time ({@code STREAM ... WATERMARK FOR}): {@code input}'s rows, which come
     * at the system times they commit, each moved to the event time in column {@code timeColumn}
     * (microseconds for a timestamp, the integer itself otherwise), with the watermark, {@code
     * watermark} of the largest event time seen (an expression over that column alone), as the
     * frontier; a row already below the watermark when it commits is dropped and counted. See
     * {@code dev.tributary.differential.EventTime}. {@code fromNow}: the rows committed before the
     * stream started are left out; {@code from} is that start (set when the stream starts).
     * {@code appendOnly}: the input is an append-only table, so the stream only ever inserts.
     */
    record EventTime(Plan input, int timeColumn, ScalarExpr watermark, boolean fromNow, long from, boolean appendOnly) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * {@code input}'s rows, each with the system time it committed at appended (a timestamptz):
     * a STREAM's processing time, what {@code PROCTIME()} reads.
     */
    record CommitTime(Plan input) implements Plan {
        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(input.types());
            t.add(SqlType.TIMESTAMPTZ);
            return t;
        }
    }

    /**
     * {@code input}, computed in event time from streams ({@link EventTime}), back in system time:
     * each of its updates at the first system time at which every stream's watermark had passed
     * it, when it became final. What a materialized view over streams keeps, and what its readers
     * see. See {@code dev.tributary.differential.EventTime#toSystemTime}.
     */
    record SystemTime(Plan input) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * Each update of {@code input} moved to the event time just before column {@code column}'s
     * value (a window's end) when that is later: what {@code EMIT ON WINDOW CLOSE} does, so that a
     * window's rows come out once, final, when the watermark reaches its end. With {@code expire}
     * each update is also retracted at the window's end, so that what is kept of a closed window
     * (an aggregation's state) adds up to nothing and compaction behind the watermark frees it;
     * an {@link AtClose} above keeps the retractions from the output.
     */
    record Delay(Plan input, int column, boolean expire) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * Each row of {@code input} retracted again at the event time {@code after} past its column
     * {@code column} (an event time), when the watermark has passed the last time it could still
     * matter (an interval join's bound); a row that comes already past it is left out. Only below
     * an {@link Inserts}: the retractions free state, they are not changes of the result.
     */
    record Expire(Plan input, int column, long after) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * The insertions of {@code input} and not its retractions (of its changes consolidated per
     * row and time): over streams that only insert (append-only tables), where every retraction
     * below is an {@link Expire}'s.
     */
    record Inserts(Plan input) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * The updates of {@code input} at the last instant of their window (column {@code column}'s
     * value, a window's end, less one) and no others: over an expiring {@link Delay}, each
     * window's rows once, without the retractions that free its state.
     */
    record AtClose(Plan input, int column) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * A TUMBLE or HOP window aggregate under {@code EMIT ON WINDOW CLOSE}, on panes of
     * {@code gcd(slide, size)} (with {@code cumulative} a CUMULATE's, {@code slide} its step, on
     * panes of the step): each row updates one pane's aggregate, each window's result
     * merges its panes' when the watermark passes its end, and a pane is freed once no open
     * window holds it (see {@code dev.tributary.differential.Panes}). The rows are those of a
     * {@link Reduce} grouping {@code input}'s rows expanded into their windows, delayed to
     * their windows' close and expiring there: each at the event time just before its
     * {@code window_end}, retracted at {@code window_end}. A {@code groupKey} entry is a column of
     * {@code input}, or {@link #WINDOW_START} or {@link #WINDOW_END}; windows are of column
     * {@code time}'s value (in its units, see {@code TimeWindows}). Aggregates are those whose
     * panes merge: count, sum and avg of exact types, bool_and, bool_or, min and max, none
     * DISTINCT.
     */
    record PaneAggregate(Plan input, int time, long slide, long size, long offset, boolean cumulative, List<Integer> groupKey, List<AggregateCall> aggregates)
            implements Plan {
        /** A group key entry: the window's start. */
        public static final int WINDOW_START = -1;
        /** A group key entry: the window's end. */
        public static final int WINDOW_END = -2;

        public PaneAggregate {
            groupKey = List.copyOf(groupKey);
            aggregates = List.copyOf(aggregates);
        }

        @Override
        public List<SqlType> types() {
            return types(input, time, groupKey, aggregates);
        }

        /** The group key's columns' types (the window's of the time column's), then the aggregates'. */
        static List<SqlType> types(Plan input, int time, List<Integer> groupKey, List<AggregateCall> aggregates) {
            List<SqlType> in = input.types();
            List<SqlType> t = new ArrayList<>();
            for (int c : groupKey) t.add(c >= 0 ? in.get(c) : in.get(time));
            for (AggregateCall a : aggregates) t.add(a.function().resultType());
            return t;
        }
    }

    /**
     * A SESSION window aggregate under {@code EMIT ON WINDOW CLOSE} over the insertions of a
     * stream in event time (column {@code time} the stream's event time): per group of
     * {@code partition}'s columns the sessions, and per session and group of {@code groupKey}'s
     * columns (the partition's and maybe more), each session's aggregate kept as its
     * rows come and merged when a row joins two sessions, emitted once the watermark passes the
     * session's end (see {@code dev.tributary.differential.SessionWindows}). The rows are those of
     * a {@link Reduce} over the rows of {@link Sessions} delayed to their window's close and
     * expiring there; group keys and aggregates as in {@link PaneAggregate}.
     */
    record SessionAggregate(Plan input, int time, long gap, List<Integer> partition, List<Integer> groupKey, List<AggregateCall> aggregates)
            implements Plan {
        public SessionAggregate {
            partition = List.copyOf(partition);
            groupKey = List.copyOf(groupKey);
            aggregates = List.copyOf(aggregates);
        }

        @Override
        public List<SqlType> types() {
            return PaneAggregate.types(input, time, groupKey, aggregates);
        }
    }

    /**
     * Each row of {@code input} with its update's time appended as a bigint: over a stream in
     * event time the event time (in the time column's units), otherwise the system time (ms).
     * What the first rows of a stream are ordered by when a LIMIT has no ORDER BY.
     */
    record TimeColumn(Plan input) implements Plan {
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(input.types());
            t.add(SqlType.BIGINT);
            return t;
        }
    }

    /**
     * The first rows of each group of {@code groupKey}'s values of {@code input}, a stream that only
     * inserts: by time, and within a time by the rows' order, the rows at positions
     * {@code [offset, offset + limit)} ({@code limit} -1: all), each at its own time and never
     * retracted. What a LIMIT without ORDER BY over such a stream gives, keeping a count per group
     * rather than the rows (see {@code dev.tributary.differential.FirstRows}).
     */
    record FirstRows(Plan input, List<Integer> groupKey, long limit, long offset) implements Plan {
        public FirstRows {
            groupKey = List.copyOf(groupKey);
        }

        public List<SqlType> types() {
            return input.types();
        }
    }

    /** Each row of {@code input} its column {@code count} times (multiplicity times the count; NULL: none), as {@code repeat_row} does. */
    record RepeatRow(Plan input, int count) implements Plan {
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * A stored collection of the catalog: a table, materialized view or index, by its id.
     * {@code appendOnly}: an APPEND ONLY table, whose rows are only ever inserted.
     */
    record Get(long id, String name, List<SqlType> types, boolean appendOnly) implements Plan {
        public Get {
            types = List.copyOf(types);
        }

        /** A collection that may change in any way. */
        public Get(long id, String name, List<SqlType> types) {
            this(id, name, types, false);
        }
    }

    /**
     * Stored collection {@code source} read through index {@code index}, whose arrangement is keyed
     * by the values of columns {@code key}: a join on exactly those columns uses the index's
     * arrangement as it is instead of arranging the collection again. Anywhere else it is just
     * the collection.
     */
    record IndexedGet(long index, String indexName, long source, List<Integer> key, List<SqlType> types) implements Plan {
        public IndexedGet {
            key = List.copyOf(key);
            types = List.copyOf(types);
        }
    }

    /**
     * An inner join of three or more stored collections on column equalities, which can run as a
     * delta join: each input's changes are looked up, one input after another, in indexes of the
     * others ({@link DeltaPath}), and no intermediate result is arranged. The output is the
     * inputs' columns concatenated, with each input's {@code filters} (over its own columns) and
     * the {@code residual} predicates (over all columns) applied. Until a planner that knows the
     * indexes has chosen {@code paths} for every input (empty: not chosen), it means
     * {@code fallback}, the same join planned as binary joins.
     */
    record DeltaJoin(List<Get> inputs, List<List<ScalarExpr>> filters, List<Equality> equalities, List<ScalarExpr> residual,
                     Plan fallback, List<DeltaPath> paths) implements Plan {
        public DeltaJoin {
            inputs = List.copyOf(inputs);
            filters = filters.stream().map(List::copyOf).toList();
            equalities = List.copyOf(equalities);
            residual = List.copyOf(residual);
            paths = List.copyOf(paths);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>();
            for (Get g : inputs) t.addAll(g.types());
            return t;
        }

        /** The first column of input {@code i} among the concatenated columns. */
        public int offset(int i) {
            int o = 0;
            for (int k = 0; k < i; k++) o += inputs.get(k).arity();
            return o;
        }
    }

    /** Column {@code leftColumn} of input {@code left} equals column {@code rightColumn} of input {@code right} (SQL {@code =}). */
    record Equality(int left, int leftColumn, int right, int rightColumn) {}

    /** How one input's changes are joined: starting from input {@code start}, look up each step's input in turn. */
    record DeltaPath(int start, List<DeltaStep> steps) {
        public DeltaPath {
            steps = List.copyOf(steps);
        }
    }

    /**
     * Look up input {@code input} in index {@code index}, probing with the values of
     * {@code probe} (columns in the concatenated numbering, of inputs already joined), in the
     * order of the index's key.
     */
    record DeltaStep(int input, long index, String indexName, List<Integer> probe) {
        public DeltaStep {
            probe = List.copyOf(probe);
        }
    }

    /** Literal rows (each an {@code Object[]} of SQL values), with multiplicity one each. */
    record Constant(List<Object[]> rows, List<SqlType> types) implements Plan {
        public Constant {
            rows = List.copyOf(rows);
            types = List.copyOf(types);
        }

        public static Constant empty(List<SqlType> types) {
            return new Constant(List.of(), types);
        }
    }

    /** The rows for which every predicate is true (not false, not NULL). */
    record Filter(Plan input, List<ScalarExpr> predicates) implements Plan {
        public Filter {
            predicates = List.copyOf(predicates);
        }

        @Override
        public List<SqlType> types() {
            return input.types();
        }
    }

    /** Each row extended by the values of {@code exprs}, evaluated over the row as it was before. */
    record Map(Plan input, List<ScalarExpr> exprs) implements Plan {
        public Map {
            exprs = List.copyOf(exprs);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(input.types());
            for (ScalarExpr e : exprs) t.add(e.type());
            return t;
        }
    }

    /**
     * Each row extended by each row of a set-returning function called with arguments over it:
     * a row for which the function gives no rows is dropped, one for which it gives n rows is n
     * rows (PostgreSQL's lateral function call in FROM).
     */
    record FlatMap(Plan input, dev.tributary.sql.expr.TableFunction function) implements Plan {
        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(input.types());
            t.addAll(function.columnTypes());
            return t;
        }
    }

    /** What a window function computes (see {@link Window}). */
    enum WindowKind { ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE }

    /**
     * A window's frame: which rows of its partition a row's frame-using function (first_value,
     * last_value, nth_value, an aggregate) reads, as PostgreSQL defines it. Offsets are constants,
     * non-negative, of {@code offsetType} (bigint for ROWS and GROUPS; for RANGE of a type that
     * adds to the ORDER BY column's: the column's own, or interval for dates and times).
     */
    record WindowFrame(dev.tributary.sql.ast.WindowSpec.Mode mode, dev.tributary.sql.ast.WindowSpec.BoundKind startKind, Object startOffset,
                       dev.tributary.sql.ast.WindowSpec.BoundKind endKind, Object endOffset, dev.tributary.sql.ast.WindowSpec.Exclusion exclusion,
                       SqlType offsetType) {
        /** PostgreSQL's default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (with no ORDER BY, every row is a peer). */
        public static final WindowFrame DEFAULT = new WindowFrame(dev.tributary.sql.ast.WindowSpec.Mode.RANGE,
                dev.tributary.sql.ast.WindowSpec.BoundKind.UNBOUNDED_PRECEDING, null, dev.tributary.sql.ast.WindowSpec.BoundKind.CURRENT_ROW, null,
                dev.tributary.sql.ast.WindowSpec.Exclusion.NO_OTHERS, SqlType.BIGINT);
    }

    /**
     * One window function call as a {@link Window} computes it: {@code args} are input columns
     * (lag's value, offset and default; ntile's bucket count; nth_value's value and n; an
     * aggregate's arguments, coerced to its types), {@code filter} the input column of an
     * aggregate's FILTER (-1 for none), {@code type} the result's type.
     */
    record WindowFunction(WindowKind kind, List<Integer> args, dev.tributary.sql.expr.AggregateFunction aggregate, int filter, WindowFrame frame, SqlType type) {
        public WindowFunction {
            args = List.copyOf(args);
        }

        /** This function reading input column {@code map[c]} wherever it read column {@code c}. */
        public WindowFunction remap(int[] map) {
            List<Integer> a = new ArrayList<>();
            for (int c : args) a.add(map[c]);
            return new WindowFunction(kind, a, aggregate, filter < 0 ? -1 : map[filter], frame, type);
        }

        /** How EXPLAIN names it. */
        public String describe() {
            return kind == WindowKind.AGGREGATE ? aggregate.name() : kind.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * Each row extended by {@code function} computed over its partition (the rows with equal
     * {@code partition} columns) in {@code order} (rows equal in it are peers), as PostgreSQL
     * computes window functions: row_number numbers the rows (each copy of a row its own number;
     * ties in an order PostgreSQL leaves unspecified, here the rows' own), rank counts the rows
     * before the row's peers plus one, dense_rank the peer groups before it plus one, lag and lead
     * read the row so many before or after, ntile, percent_rank and cume_dist as PostgreSQL's;
     * first_value, last_value, nth_value and aggregates read the row's frame.
     */
    record Window(Plan input, List<Integer> partition, List<SortKey> order, WindowFunction function) implements Plan {
        public Window {
            partition = List.copyOf(partition);
            order = List.copyOf(order);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(input.types());
            t.add(function.type());
            return t;
        }
    }

    /**
     * Session windows ({@code SESSION}): per group of equal {@code partition} columns, the rows
     * whose {@code time} column values lie less than {@code gap} apart, one after another, form a
     * session {@code [first time, last time + gap)}; each row with its session's
     * {@code window_start} and {@code window_end} appended (of the time column's type). A row whose
     * time is NULL is in no session. Unlike TUMBLE and HOP a row's window depends on the other
     * rows of its partition: a row arriving between two sessions merges them, and one deleted can
     * split a session in two.
     */
    record Sessions(Plan input, List<Integer> partition, int time, long gap) implements Plan {
        public Sessions {
            partition = List.copyOf(partition);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(input.types());
            t.add(input.types().get(time));
            t.add(input.types().get(time));
            return t;
        }
    }

    /** Each row reduced to the given columns, in the given order (columns may repeat). */
    record Project(Plan input, List<Integer> columns) implements Plan {
        public Project {
            columns = List.copyOf(columns);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> in = input.types();
            List<SqlType> t = new ArrayList<>(columns.size());
            for (int c : columns) t.add(in.get(c));
            return t;
        }
    }

    /**
     * The inner equi-join of {@code left} and {@code right}: every pair of rows whose key
     * columns are equal, as the left row's columns followed by the right row's. Keys compare
     * as encoded values, so NULL matches NULL here; SQL's {@code =} is had by filtering NULL
     * keys out first, which the binder does.
     */
    record Join(Plan left, Plan right, List<Integer> leftKey, List<Integer> rightKey) implements Plan {
        public Join {
            leftKey = List.copyOf(leftKey);
            rightKey = List.copyOf(rightKey);
            if (leftKey.size() != rightKey.size()) throw new IllegalArgumentException("join keys of different lengths: " + leftKey + " and " + rightKey);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> t = new ArrayList<>(left.types());
            t.addAll(right.types());
            return t;
        }
    }

    /**
     * Groups by the key columns and computes each aggregate per group: the output is the key
     * columns followed by one column per aggregate. With no key columns there is exactly one
     * output row, also for empty input (SQL's global aggregate), when {@code global} is set.
     */
    record Reduce(Plan input, List<Integer> groupKey, List<AggregateCall> aggregates, boolean global) implements Plan {
        public Reduce {
            groupKey = List.copyOf(groupKey);
            aggregates = List.copyOf(aggregates);
        }

        @Override
        public List<SqlType> types() {
            List<SqlType> in = input.types();
            List<SqlType> t = new ArrayList<>();
            for (int c : groupKey) t.add(in.get(c));
            for (AggregateCall a : aggregates) t.add(a.function().resultType());
            return t;
        }
    }

    /** Each distinct row once. */
    record Distinct(Plan input) implements Plan {
        @Override
        public List<SqlType> types() {
            return input.types();
        }
    }

    /**
     * Per group of equal {@code groupKey} columns, the rows at positions
     * {@code [offset, offset + limit)} in {@code order} ({@code limit < 0}: no limit). Ties in the
     * order are broken by the whole row, so the result is deterministic.
     */
    record TopK(Plan input, List<Integer> groupKey, List<SortKey> order, long limit, long offset) implements Plan {
        public TopK {
            groupKey = List.copyOf(groupKey);
            order = List.copyOf(order);
        }

        @Override
        public List<SqlType> types() {
            return input.types();
        }
    }

    /** The multiset sum of the inputs, which have the same column types. */
    record Union(List<Plan> inputs) implements Plan {
        public Union {
            inputs = List.copyOf(inputs);
            if (inputs.isEmpty()) throw new IllegalArgumentException("a union needs at least one input");
        }

        @Override
        public List<SqlType> types() {
            return inputs.get(0).types();
        }
    }

    /** Every multiplicity negated. */
    record Negate(Plan input) implements Plan {
        @Override
        public List<SqlType> types() {
            return input.types();
        }
    }

    /** Every row with its multiplicity if positive; rows with zero or negative multiplicity vanish. */
    record Threshold(Plan input) implements Plan {
        @Override
        public List<SqlType> types() {
            return input.types();
        }
    }

    /** {@code body}, in which {@link LetRef}s to {@code id} stand for one shared {@code value}. */
    record Let(int id, Plan value, Plan body) implements Plan {
        @Override
        public List<SqlType> types() {
            return body.types();
        }
    }

    /**
     * Bindings defined in terms of themselves and of each other, and a body that reads them
     * ({@code WITH RECURSIVE}, {@code WITH MUTUALLY RECURSIVE}): a binding's value may read any
     * binding through a {@link LetRef} to its id. All bindings start empty and are recomputed
     * together, round after round, each from the others' values of the round before, until no
     * binding changes; the body reads those final values. {@code limit} caps the rounds: a
     * binding still changing after that many stops there, and the result carries an error when
     * {@code errorAtLimit} (otherwise it is what the last round gave).
     */
    record LetRec(List<Binding> bindings, Plan body, long limit, boolean errorAtLimit) implements Plan {
        public LetRec {
            bindings = List.copyOf(bindings);
            if (limit < 1) throw new IllegalArgumentException("a recursion limit is at least one round");
        }

        @Override
        public List<SqlType> types() {
            return body.types();
        }

        /** The ids this node binds. */
        public java.util.Set<Integer> ids() {
            java.util.Set<Integer> ids = new java.util.HashSet<>();
            for (Binding b : bindings) ids.add(b.id());
            return ids;
        }
    }

    /**
     * One binding of a {@link LetRec}: the value of {@code LetRef(id)}, named as the query named
     * it. It holds {@code initial} in round 0 (nothing when null; {@code initial} reads no
     * binding of its LetRec), and in each later round what {@code value} gave in the round before.
     */
    record Binding(int id, String name, Plan initial, Plan value) {
        public List<SqlType> types() {
            return value.types();
        }
    }

    /** The value bound by the enclosing {@link Let} or {@link LetRec} with this id. */
    record LetRef(int id, List<SqlType> types) implements Plan {
        public LetRef {
            types = List.copyOf(types);
        }
    }

    /** One sort key of an ORDER BY: a column, its direction, and where NULLs go. */
    record SortKey(int column, boolean descending, boolean nullsFirst) {}
}
