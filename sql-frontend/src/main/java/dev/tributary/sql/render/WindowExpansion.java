package dev.tributary.sql.render;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.differential.Collection;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * TUMBLE, HOP and CUMULATE over encoded rows: each row's time read from its bytes, its windows
 * computed as longs ({@link TimeWindows.Cursor}), and each output row written straight into the
 * output column as byte ranges of the input row and the two bounds' encodings. The rows, their
 * order and the errors are those of the general path (the input row decoded, the table function
 * evaluated, its values encoded after the input row's bytes), which made an {@code Object[]},
 * two timestamps and two rows per window and took 15% of Nexmark q5's worker time.
 *
 * <p>An output row may be a projection of the expansion's columns (the input's, then
 * {@code window_start} and {@code window_end}), so that a projection above the windows (q5 keeps
 * the auction and the window, not the time) is not a second pass copying every row again.
 *
 * <p>Not thread-safe (its cursor and bounds' buffer are scratch): one per operator, as the
 * renderer makes one per rendered dataflow, which one worker runs.
 */
final class WindowExpansion implements Collection.ColumnExpander<Row> {
    /** An output row's part that is the window's start's encoding, its end's, or both, back to back; other parts are input columns. */
    private static final int START = -1;
    private static final int END = -2;
    private static final int BOUNDS = -3;

    private final RowCodec inCodec;
    private final int time;
    /** Whether the time's extremes are infinities (a timestamp's), in no window, or values (an integer's). */
    private final boolean infinite;
    private final TimeWindows.Cursor cursor;
    private final RowCodec.Builder bounds;
    /** The output row's parts in order: input columns {@code [from[p], to[p]]}, or {@link #START}, {@link #END}, {@link #BOUNDS} in {@code from[p]}. */
    private final int[] from;
    private final int[] to;
    /** The last input column read (the time, or one that is copied). */
    private final int last;
    /** The error row of a window outside a smallint's or integer's range, made at its first use. */
    private Row outOfType;

    /**
     * Whether {@code m} is a window function whose time is a column of its input: one that a
     * {@link WindowExpansion} expands.
     */
    static boolean applies(Plan.FlatMap m) {
        return m.function().rows() instanceof TimeWindows.Windows && m.function().args().get(0) instanceof ScalarExpr.ColumnRef;
    }

    /**
     * The expansion of {@code m} (which {@link #applies}) whose output row is the columns
     * {@code columns} of the input row's columns followed by {@code window_start} and
     * {@code window_end} (all of them, in order, for the window table itself).
     */
    static WindowExpansion of(Plan.FlatMap m, int[] columns) {
        return new WindowExpansion(m, columns);
    }

    /** The output columns of {@code m} unprojected: the input's, then the window's two. */
    static int[] allColumns(Plan.FlatMap m) {
        return java.util.stream.IntStream.range(0, m.types().size()).toArray();
    }

    private WindowExpansion(Plan.FlatMap m, int[] columns) {
        if (!applies(m)) throw new IllegalArgumentException("not a window function over a column: " + m.function());
        TimeWindows.Windows w = (TimeWindows.Windows) m.function().rows();
        inCodec = new RowCodec(m.input().types());
        int n = inCodec.arity();
        time = ((ScalarExpr.ColumnRef) m.function().args().get(0)).index();
        SqlType t = m.input().types().get(time);
        infinite = !t.isInteger();
        cursor = new TimeWindows.Cursor(w);
        bounds = RowCodec.of(t, t).builder();
        // the parts: runs of adjacent input columns, each copied as one range, and the bounds
        List<int[]> parts = new ArrayList<>();
        int lastRead = time;
        for (int c : columns) {
            if (c < 0 || c >= n + 2) throw new IndexOutOfBoundsException("column " + c + " of a window table of " + (n + 2) + " columns");
            int[] prev = parts.isEmpty() ? null : parts.get(parts.size() - 1);
            if (c < n) {
                lastRead = Math.max(lastRead, c);
                if (prev != null && prev[0] >= 0 && prev[1] == c - 1) prev[1] = c;
                else parts.add(new int[] {c, c});
            } else if (c == n + 1 && prev != null && prev[0] == START) {
                prev[0] = BOUNDS;
            } else {
                parts.add(new int[] {c == n ? START : END, 0});
            }
        }
        last = lastRead;
        from = parts.stream().mapToInt(p -> p[0]).toArray();
        to = parts.stream().mapToInt(p -> p[1]).toArray();
    }

    @Override
    public long expand(Column column, int i, long position, Collection.ColumnOutputs<Row> out, long budget) {
        BytesColumn rows = (BytesColumn) column;
        byte[] b = rows.slab();
        // the scratch of RowCodec's projections: read here, before anything else walks a row
        int[] at = inCodec.bounds(b, rows.start(i), last);
        int timeAt = at[time];
        // a NULL time is in no window (the function is strict), nor is an infinite one
        if (RowCodec.isNullAt(b, timeAt)) return DONE;
        long t = inCodec.getTicks(b, timeAt, time, 0);
        if (infinite && (t == Long.MAX_VALUE || t == Long.MIN_VALUE)) return DONE;
        long count;
        try {
            count = cursor.seek(t);
        } catch (SqlException e) {
            out.other(Errors.encode(e));
            return DONE;
        }
        BytesColumn into = (BytesColumn) out.into();
        long k = position;
        for (long stop = Math.min(count, position + budget); k < stop; k++) {
            long start = cursor.start(k);
            long end = cursor.end(k);
            if (!cursor.fits(start, end)) {
                if (outOfType == null) outOfType = Errors.encode(cursor.outOfType());
                out.other(outOfType);
                return DONE;
            }
            bounds.reset();
            bounds.putTicks(start);
            int mid = bounds.length();
            bounds.putTicks(end);
            byte[] encoded = bounds.buffer();
            for (int p = 0; p < from.length; p++) {
                int f = from[p];
                switch (f) {
                    case START -> into.addPart(encoded, 0, mid);
                    case END -> into.addPart(encoded, mid, bounds.length() - mid);
                    case BOUNDS -> into.addPart(encoded, 0, bounds.length());
                    default -> into.addPart(b, at[f], at[to[p] + 1] - at[f]);
                }
            }
            into.endValue();
            out.ok();
        }
        return k < count ? k : DONE;
    }
}
