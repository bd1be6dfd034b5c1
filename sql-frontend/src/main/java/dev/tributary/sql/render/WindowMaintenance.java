package dev.tributary.sql.render;

import dev.tributary.differential.KeyedProcess;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.WindowSpec.BoundKind;
import dev.tributary.sql.ast.WindowSpec.Exclusion;
import dev.tributary.sql.ast.WindowSpec.Mode;
import dev.tributary.sql.expr.Accumulation;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One window function kept up to date per partition ({@link KeyedProcess}), so that a change
 * costs about the positions whose value it changes, not the partition.
 *
 * <p>Model: a partition is its positions in window order with the value last emitted for each
 * ({@link WindowRows}); the output is each position's row with its value. A time's changes are
 * applied (a removed position's output retracted at once), and then only the positions whose
 * value may differ are evaluated again: those whose value reads a position between the first
 * and last change (widened to peer groups where peers matter). How far a value reads is the
 * function's reach: lag and lead read as far as the largest offset the partition has seen; a
 * frame reads back to its start and forward to its end (positions for ROWS, peer groups for
 * GROUPS); row_number and the ranks read every position before (a change moves all after it);
 * percent_rank, cume_dist, ntile and RANGE frames with offsets read the whole partition. The
 * evaluation ({@link WindowEvaluation}) runs over a slice: the changed positions and what they
 * read. A value that reads back to the partition's start does not make the slice start there
 * where the positions before can be summed up: the ranks take the count of positions (and
 * dense_rank the last value) before the slice; an aggregate with exact sums over frames from the
 * partition's start takes the sums of the chunks before; min, max and the like over running
 * frames take the value last emitted before the slice. A position is emitted again only if its
 * value changed.
 *
 * <p>A partition whose evaluation fails has one error row as its output, in place of its rows,
 * until a change lets it evaluate again (then it is evaluated whole).
 */
final class WindowMaintenance implements KeyedProcess.Logic<Row, Row, WindowMaintenance.Partition, Row> {
    /** A partition's positions, and the error emitted in their place (null when none). */
    static final class Partition {
        final WindowRows rows;
        /** The largest offset of lag or lead among the rows the partition has held. */
        long reach;
        Row error;

        Partition(int capacity, long reach) {
            this.rows = new WindowRows(capacity);
            this.reach = reach;
        }
    }

    private static final RowCodec FLAG = RowCodec.of(SqlType.BOOLEAN);
    private static final Row OK = FLAG.encode(Boolean.FALSE);
    private static final RowCodec ERROR = RowCodec.of(SqlType.BOOLEAN, SqlType.TEXT, SqlType.TEXT);
    static final int CHUNK = 512;

    private final Plan.WindowFunction fn;
    /** Keyed rows: the sort key, then the input row. */
    private final RowCodec keyed;
    /** The function's value: an output row is the input row's bytes, then these. */
    private final RowCodec value;
    private final Comparator<Object[]> order;
    private final Plan.SortKey rangeKey;
    private final SqlType rangeType;
    private final int capacity;
    private final Plan.WindowFrame frame;
    /** Whether values depend on peers: a change to one of a peer group may change the others'. */
    private final boolean peers;
    private final Accumulation accumulation;
    /** Positions evaluated so far (the slices' sizes): what a change costs, for tests. */
    long evaluated;

    WindowMaintenance(Plan.WindowFunction fn, RowCodec keyed, List<SqlType> outTypes, Comparator<Object[]> order, Plan.SortKey rangeKey, SqlType rangeType, int capacity) {
        this.fn = fn;
        this.keyed = keyed;
        this.value = RowCodec.of(outTypes.get(outTypes.size() - 1));
        this.order = order;
        this.rangeKey = rangeKey;
        this.rangeType = rangeType;
        this.capacity = capacity;
        this.frame = fn.frame();
        this.accumulation = fn.kind() == Plan.WindowKind.AGGREGATE ? fn.aggregate().accumulation() : null;
        this.peers = switch (fn.kind()) {
            case RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST -> true;
            case ROW_NUMBER, NTILE, LAG, LEAD -> false;
            case FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE -> frame.mode() != Mode.ROWS || frame.exclusion() == Exclusion.GROUP || frame.exclusion() == Exclusion.TIES;
        };
    }

    @Override
    public Partition create(Row key) {
        return new Partition(capacity, fn.args().size() > 1 ? 0 : 1);
    }

    @Override
    public long bytes(Partition p) {
        return p.rows.bytes() + 64;
    }

    @Override
    public boolean apply(Row key, Partition p, Object[] data, long[] diffs, int count, KeyedProcess.Output<Row> emit) {
        WindowRows rows = p.rows;
        boolean whole = p.error != null;
        if (whole) {
            emit.emit(p.error, -1);
            p.error = null;
        }
        boolean shifts = fn.kind() == Plan.WindowKind.LAG || fn.kind() == Plan.WindowKind.LEAD;
        for (int i = 0; i < count; i++) {
            Row r = (Row) data[i];
            long diff = diffs[i];
            if (diff > 0) {
                rows.insert(r, diff);
                if (shifts && fn.args().size() > 1) {
                    Object offset = keyed.get(r, fn.args().get(1) + 1);
                    if (offset != null) p.reach = Math.max(p.reach, Math.min(Integer.MAX_VALUE, Math.abs(((Number) offset).longValue())));
                }
            } else {
                long gone = rows.remove(r, -diff, (row, value) -> {
                    if (value != WindowRows.NONE) emit.emit(output(row, value), -1);
                });
                if (gone < -diff) {
                    throw new IllegalStateException("window partition " + key + " retracts " + (-diff) + " copies of a row it holds " + gone + " of");
                }
            }
        }
        int n = rows.size();
        if (n == 0) return true;
        int sLo = Math.max(0, rows.bound((Row) data[0], false) - 1);
        int sHi = Math.min(n - 1, rows.bound((Row) data[count - 1], true));
        int[] region = whole ? new int[] {0, n - 1} : affected(p, sLo, sHi);
        Slice slice = slice(p, region[0], region[1]);
        int a = slice.from;
        Object[][] decoded = new Object[slice.to - a + 1][];
        evaluated += decoded.length;
        // positions in order, chunk by chunk: no search per position
        int c = rows.chunkOf(a);
        int at = a - rows.start(c);
        for (int q = a; q <= slice.to; q++) {
            WindowRows.Chunk ch = rows.chunk(c);
            decoded[q - a] = decode(ch.rows[at]);
            if (++at == ch.size) {
                c++;
                at = 0;
            }
        }
        Object[] values;
        try {
            WindowEvaluation eval = new WindowEvaluation(fn, decoded, order, rangeKey, rangeType);
            values = eval.values(slice.before, region[0] - a, region[1] - a);
        } catch (RuntimeException e) {
            fail(p, e, emit);
            return false;
        }
        c = rows.chunkOf(region[0]);
        at = region[0] - rows.start(c);
        for (int q = region[0]; q <= region[1]; q++) {
            WindowRows.Chunk ch = rows.chunk(c);
            Object v = values[q - a];
            Object old = ch.values[at];
            if (old == WindowRows.NONE || !Objects.equals(old, v)) {
                if (old != WindowRows.NONE) emit.emit(output(ch.rows[at], old), -1);
                emit.emit(output(ch.rows[at], v), 1);
                ch.values[at] = v;
            }
            if (++at == ch.size) {
                c++;
                at = 0;
            }
        }
        return false;
    }

    /** The partition's outputs replaced by one error row, until a change lets it evaluate again. */
    private void fail(Partition p, RuntimeException e, KeyedProcess.Output<Row> emit) {
        SqlException error = e instanceof SqlException se ? se : Errors.internal(e);
        WindowRows rows = p.rows;
        for (int q = 0; q < rows.size(); q++) {
            Object v = rows.value(q);
            if (v != WindowRows.NONE) emit.emit(output(rows.row(q), v), -1);
        }
        rows.clearValues();
        p.error = ERROR.encode(true, error.sqlState(), error.getMessage());
        emit.emit(p.error, 1);
    }

    private Object[] decode(Row keyedRow) {
        Object[] all = keyed.decode(keyedRow);
        return java.util.Arrays.copyOfRange(all, 1, all.length);
    }

    /** The output row of a position: its row's bytes (each column's encoding delimits itself) then its value's. */
    private Row output(Row keyedRow, Object v) {
        return Row.concat(OK, Row.concat(Renderer.SORT_KEY.suffix(keyedRow), value.encode(v)));
    }

    // ------------------------------------------------------------------ reach

    /** No bound: the reach is the partition's end. */
    private static final long ALL = Long.MAX_VALUE;

    /** Whether the whole partition is read by every value. */
    private boolean readsAll() {
        return switch (fn.kind()) {
            case PERCENT_RANK, CUME_DIST, NTILE -> true;
            case ROW_NUMBER, RANK, DENSE_RANK, LAG, LEAD -> false;
            case FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE -> frame.mode() == Mode.RANGE
                    && (isOffset(frame.startKind()) || isOffset(frame.endKind()));
        };
    }

    private static boolean isOffset(BoundKind k) {
        return k == BoundKind.PRECEDING || k == BoundKind.FOLLOWING;
    }

    /** How far back a value reads: positions (ROWS, lag/lead) or peer groups (otherwise). */
    private long back(Partition p) {
        return switch (fn.kind()) {
            case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE -> ALL;
            case LAG, LEAD -> p.reach;
            case FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE -> switch (frame.startKind()) {
                case UNBOUNDED_PRECEDING -> ALL;
                case PRECEDING -> (Long) frame.startOffset();
                case CURRENT_ROW, FOLLOWING, UNBOUNDED_FOLLOWING -> 0;
            };
        };
    }

    /** How far forward a value reads. */
    private long forward(Partition p) {
        return switch (fn.kind()) {
            case ROW_NUMBER, RANK, DENSE_RANK -> 0;
            case PERCENT_RANK, CUME_DIST, NTILE -> ALL;
            case LAG, LEAD -> p.reach;
            case FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE -> switch (frame.endKind()) {
                case UNBOUNDED_FOLLOWING -> ALL;
                case FOLLOWING -> (Long) frame.endOffset();
                case CURRENT_ROW, PRECEDING, UNBOUNDED_PRECEDING -> 0;
            };
        };
    }

    /** Whether reaches count peer groups rather than positions. */
    private boolean byGroups() {
        return switch (fn.kind()) {
            case LAG, LEAD, ROW_NUMBER, NTILE -> false;
            case RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST -> true;
            case FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE -> frame.mode() != Mode.ROWS;
        };
    }

    /**
     * The positions whose values may differ after changes between positions {@code sLo} and
     * {@code sHi} (which take in the neighbours of what was removed): those whose reach meets them.
     */
    int[] affected(Partition p, int sLo, int sHi) {
        WindowRows rows = p.rows;
        int n = rows.size();
        if (readsAll()) return new int[] {0, n - 1};
        int lo = sLo;
        int hi = sHi;
        if (peers) {
            lo = groupStart(rows, lo);
            hi = groupEnd(rows, hi);
        }
        // a position reads back as far as back(): it is affected if a change lies within that after it
        lo = step(rows, lo, forward(p), false);
        hi = step(rows, hi, back(p), true);
        if (peers) {
            lo = groupStart(rows, lo);
            hi = groupEnd(rows, hi);
        }
        return new int[] {lo, hi};
    }

    /** What the evaluation of positions {@code [lo, hi]} reads: a slice of the partition, and what stands for the positions before it. */
    record Slice(int from, int to, WindowEvaluation.Before before) {}

    Slice slice(Partition p, int lo, int hi) {
        WindowRows rows = p.rows;
        int n = rows.size();
        if (readsAll()) return new Slice(0, n - 1, WindowEvaluation.Before.NOTHING);
        int to = peers ? groupEnd(rows, step(rows, hi, forward(p), true)) : step(rows, hi, forward(p), true);
        long back = back(p);
        if (back == ALL && lo > 0) {
            WindowEvaluation.Before before = before(rows, lo);
            if (before != null) return new Slice(lo, to, before);
        }
        int from = step(rows, lo, back, false);
        if (peers) from = groupStart(rows, from);
        return new Slice(from, to, WindowEvaluation.Before.NOTHING);
    }

    /**
     * What stands for positions {@code [0, lo)} (lo starts a peer group where peers matter) for a
     * function that reads back to the partition's start, or null when nothing does and the slice
     * must start at the partition's start.
     */
    private WindowEvaluation.Before before(WindowRows rows, int lo) {
        switch (fn.kind()) {
            case ROW_NUMBER, RANK:
                return new WindowEvaluation.Before(lo, 0, null, null, false);
            case DENSE_RANK:
                return new WindowEvaluation.Before(lo, (Long) rows.value(lo - 1), null, null, false);
            case AGGREGATE:
                // frames from the partition's start that end at or after their own position
                if (frame.endKind() == BoundKind.PRECEDING) return null;
                if (accumulation != null) return new WindowEvaluation.Before(lo, 0, sumsBefore(rows, lo), null, false);
                if (frame.endKind() == BoundKind.CURRENT_ROW && frame.exclusion() == Exclusion.NO_OTHERS && WindowEvaluation.folds(fn.aggregate())) {
                    return new WindowEvaluation.Before(lo, 0, null, rows.value(lo - 1), true);
                }
                return null;
            default:
                return null;
        }
    }

    /** The aggregate's exact sums over positions {@code [0, lo)}: the chunks' summaries, and the rows of the last chunk before lo. */
    private Sums sumsBefore(WindowRows rows, int lo) {
        Sums total = new Sums();
        int last = rows.chunkOf(lo);
        for (int c = 0; c < last; c++) {
            WindowRows.Chunk ch = rows.chunk(c);
            if (ch.summary == null) ch.summary = sums(ch, ch.size);
            total.addAll((Sums) ch.summary);
        }
        total.addAll(sums(rows.chunk(last), lo - rows.start(last)));
        return total;
    }

    /** The exact sums of the first {@code k} positions of {@code ch}. */
    private Sums sums(WindowRows.Chunk ch, int k) {
        Sums sums = new Sums();
        Sums.Signed sink = new Sums.Signed(sums, 1);
        List<Integer> args = fn.args();
        Object[] scratch = new Object[args.size()];
        for (int i = 0; i < k; i++) {
            Object[] row = decode(ch.rows[i]);
            if (fn.filter() >= 0 && !Boolean.TRUE.equals(row[fn.filter()])) continue;
            sums.rows++;
            for (int j = 0; j < scratch.length; j++) scratch[j] = row[args.get(j)];
            accumulation.add(scratch, sink);
        }
        return sums;
    }

    // ------------------------------------------------------------------ walking

    /** From {@code at}, {@code by} positions (or peer groups) later ({@code later}) or earlier, within the partition. */
    private int step(WindowRows rows, int at, long by, boolean later) {
        int n = rows.size();
        if (by == 0) return at;
        if (by == ALL || by >= n) return later ? n - 1 : 0;
        if (!byGroups()) return later ? (int) Math.min(n - 1, at + by) : (int) Math.max(0, at - by);
        int q = at;
        for (long k = 0; k < by; k++) {
            if (later) {
                q = groupEnd(rows, q);
                if (q == n - 1) break;
                q = groupEnd(rows, q + 1);
            } else {
                q = groupStart(rows, q);
                if (q == 0) break;
                q = groupStart(rows, q - 1);
            }
        }
        return q;
    }

    private int groupStart(WindowRows rows, int q) {
        Object key = sortKey(rows.row(q));
        while (q > 0 && sortKey(rows.row(q - 1)).equals(key)) q--;
        return q;
    }

    private int groupEnd(WindowRows rows, int q) {
        Object key = sortKey(rows.row(q));
        while (q < rows.size() - 1 && sortKey(rows.row(q + 1)).equals(key)) q++;
        return q;
    }

    /** The sort key of a keyed row: equal for peers. */
    private Object sortKey(Row keyedRow) {
        return keyed.get(keyedRow, 0);
    }
}
