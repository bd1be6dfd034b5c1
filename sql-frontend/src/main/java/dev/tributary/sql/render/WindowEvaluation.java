package dev.tributary.sql.render;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.WindowSpec.BoundKind;
import dev.tributary.sql.ast.WindowSpec.Exclusion;
import dev.tributary.sql.ast.WindowSpec.Mode;
import dev.tributary.sql.expr.Accumulation;
import dev.tributary.sql.expr.AggregateFunction;
import dev.tributary.sql.expr.DateTimes;
import dev.tributary.sql.expr.Numerics;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.NonFiniteNumeric;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One window function over one partition, as PostgreSQL evaluates it: the partition's rows in
 * window order (a row that occurs n times is n positions), peers (rows equal in the order)
 * grouped, each position's frame found from the frame's mode and bounds, and the function's
 * value per position.
 *
 * <p>Frame bounds only move forward as the position does, so an aggregate that is exact sums
 * ({@link Accumulation}) slides over the partition, adding the rows that enter its frame and
 * subtracting those that leave: linear in the partition for any frame. min, max, bool_and,
 * bool_or, string_agg and floating-point sums over frames that start at the partition's start
 * fold the rows in as the frame's end moves (as PostgreSQL's running aggregates do); any other
 * aggregate is evaluated over each position's frame (reused while the frame stays the same).
 */
final class WindowEvaluation {
    private final Plan.WindowFunction fn;
    private final Object[][] rows;
    private final int n;
    /** Per position: the first and last position of its peer group, and the group's number. */
    private final int[] groupStart;
    private final int[] groupEnd;
    private final int[] group;
    /** Per group number, its first position. */
    private final int[] groupFirst;
    private final Plan.SortKey rangeKey;
    private final SqlType rangeType;
    /** What lies before the rows, when they are a slice of the partition. */
    private Before before = Before.NOTHING;
    /** The positions whose values are asked for: {@code [from, to]}. */
    private int from;
    private int to;

    /**
     * What a slice of a partition needs to know of the positions before it, for the values of
     * functions that reach back to the partition's start (see {@link WindowMaintenance}): how many
     * positions ({@code positions}) and peer groups ({@code groups}) come before it (the slice
     * starts a peer group), and, for an aggregate over frames from the partition's start, the
     * exact sums of those positions ({@code sums}) or the aggregate's value over them
     * ({@code folded}, when {@code hasFolded}).
     */
    record Before(long positions, long groups, Sums sums, Object folded, boolean hasFolded) {
        static final Before NOTHING = new Before(0, 0, null, null, false);
    }

    /**
     * {@code rows} by position, in window order; {@code peers} tells positions apart in the
     * window's order; {@code rangeKey} is the ORDER BY column a RANGE frame with an offset
     * measures (null otherwise), of type {@code rangeType}.
     */
    WindowEvaluation(Plan.WindowFunction fn, Object[][] rows, Comparator<Object[]> peers, Plan.SortKey rangeKey, SqlType rangeType) {
        this.fn = fn;
        this.rows = rows;
        this.n = rows.length;
        this.rangeKey = rangeKey;
        this.rangeType = rangeType;
        this.scratch = new Object[fn.args().size()];
        groupStart = new int[n];
        groupEnd = new int[n];
        group = new int[n];
        int[] firsts = new int[n + 1];
        int groups = 0;
        for (int i = 0; i < n; i++) {
            if (i == 0 || peers.compare(rows[i - 1], rows[i]) != 0) firsts[groups++] = i;
            group[i] = groups - 1;
            groupStart[i] = firsts[groups - 1];
        }
        firsts[groups] = n;
        groupFirst = Arrays.copyOf(firsts, groups + 1);
        for (int i = 0; i < n; i++) groupEnd[i] = groupFirst[group[i] + 1] - 1;
    }

    /** The function's value at every position. */
    Object[] values() {
        return values(Before.NOTHING, 0, n - 1);
    }

    /**
     * The function's value at positions {@code [from, to]} (the rest of the array left null), the
     * rows being a slice of the partition with {@code before} before it. The slice must hold
     * every position those positions' values read, but for what {@code before} stands for.
     */
    Object[] values(Before before, int from, int to) {
        this.before = before;
        this.from = from;
        this.to = to;
        Object[] out = new Object[n];
        switch (fn.kind()) {
            case ROW_NUMBER -> {
                for (int i = from; i <= to; i++) out[i] = before.positions() + i + 1;
            }
            case RANK -> {
                for (int i = from; i <= to; i++) out[i] = before.positions() + groupStart[i] + 1;
            }
            case DENSE_RANK -> {
                for (int i = from; i <= to; i++) out[i] = before.groups() + group[i] + 1;
            }
            case PERCENT_RANK -> {
                for (int i = 0; i < n; i++) out[i] = n > 1 ? (double) groupStart[i] / (n - 1) : 0.0;
            }
            case CUME_DIST -> {
                for (int i = 0; i < n; i++) out[i] = (double) (groupEnd[i] + 1) / n;
            }
            case NTILE -> ntile(out);
            case LAG, LEAD -> shifted(out, fn.kind() == Plan.WindowKind.LAG ? -1 : 1);
            case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> picked(out);
            case AGGREGATE -> aggregated(out);
        }
        return out;
    }

    private Object arg(int position, int k) {
        return rows[position][fn.args().get(k)];
    }

    /** PostgreSQL's ntile: the bucket count read at the partition's first row; the first (rows mod buckets) buckets one row larger. */
    private void ntile(Object[] out) {
        if (n == 0) return;
        Object buckets = arg(0, 0);
        if (buckets == null) return;
        long b = ((Number) buckets).longValue();
        if (b <= 0) throw new SqlException("22014", "argument of ntile must be greater than zero");
        long per = n / b;
        long extra = n % b;
        long bucket = 1;
        long left = per + (extra > 0 ? 1 : 0);
        for (int i = 0; i < n; i++) {
            if (left == 0) {
                bucket++;
                left = per + (bucket <= extra ? 1 : 0);
            }
            out[i] = bucket;
            left--;
        }
    }

    /** lag ({@code direction} -1) or lead (+1): the value so many positions away in the partition, else the default. */
    private void shifted(Object[] out, int direction) {
        int args = fn.args().size();
        for (int i = from; i <= to; i++) {
            long offset = 1;
            if (args > 1) {
                Object o = arg(i, 1);
                if (o == null) continue; // a NULL offset gives NULL
                offset = ((Number) o).longValue();
            }
            long at = i + direction * offset;
            out[i] = at >= 0 && at < n ? arg((int) at, 0) : args > 2 ? arg(i, 2) : null;
        }
    }

    /** first_value, last_value and nth_value: a row of the frame (less its exclusion), or NULL when the frame has too few. */
    private void picked(Object[] out) {
        int[] bounds = new int[2];
        for (int i = from; i <= to; i++) {
            long k;
            if (fn.kind() == Plan.WindowKind.NTH_VALUE) {
                Object nth = arg(i, 1);
                if (nth == null) continue;
                k = ((Number) nth).longValue();
                if (k <= 0) throw new SqlException("22016", "argument of nth_value must be greater than zero");
            } else {
                k = 1;
            }
            frame(i, bounds);
            int[] ex = excluded(i);
            long size = frameSize(bounds[0], bounds[1], ex);
            if (size == 0) continue;
            long index = fn.kind() == Plan.WindowKind.LAST_VALUE ? size - 1 : k - 1;
            if (index >= size) continue;
            out[i] = arg(positionAt(bounds[0], bounds[1], ex, index), 0);
        }
    }

    // ------------------------------------------------------------------ frames

    /** Position {@code i}'s frame before exclusion: {@code bounds[0]..bounds[1]}, empty when the first is past the second. */
    private void frame(int i, int[] bounds) {
        Plan.WindowFrame f = fn.frame();
        bounds[0] = Math.max(0, edge(i, f.startKind(), f.startOffset(), true));
        bounds[1] = Math.min(n - 1, edge(i, f.endKind(), f.endOffset(), false));
    }

    private int edge(int i, BoundKind kind, Object offset, boolean start) {
        Mode mode = fn.frame().mode();
        return switch (kind) {
            case UNBOUNDED_PRECEDING -> 0;
            case UNBOUNDED_FOLLOWING -> n - 1;
            case CURRENT_ROW -> mode == Mode.ROWS ? i : start ? groupStart[i] : groupEnd[i];
            case PRECEDING, FOLLOWING -> {
                boolean back = kind == BoundKind.PRECEDING;
                yield switch (mode) {
                    case ROWS -> {
                        long k = (Long) offset;
                        long at = back ? i - k : i + k;
                        yield (int) Math.max(-1, Math.min(n, at));
                    }
                    case GROUPS -> {
                        long k = (Long) offset;
                        long g = back ? group[i] - k : group[i] + k;
                        int groups = groupFirst.length - 1;
                        if (g < 0) yield start ? 0 : -1;
                        if (g >= groups) yield start ? n : n - 1;
                        yield start ? groupFirst[(int) g] : groupFirst[(int) g + 1] - 1;
                    }
                    case RANGE -> rangeEdge(i, offset, back, start);
                };
            }
        };
    }

    /**
     * A RANGE frame's offset edge: the first (start) or last (end) position whose ORDER BY value
     * is within {@code offset} of position {@code i}'s, before ({@code back}) or after it in
     * window order. A row whose value is NULL has its peers for such an edge; rows with NULL
     * are never within an offset of a value.
     */
    private int rangeEdge(int i, Object offset, boolean back, boolean start) {
        Object v = rows[i][rangeKey.column()];
        if (v == null) return start ? groupStart[i] : groupEnd[i];
        // the positions holding values: NULLs sort together at one end
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi && rows[lo][rangeKey.column()] == null) lo++;
        while (hi >= lo && rows[hi][rangeKey.column()] == null) hi--;
        // in window order, "preceding" values are smaller ascending and larger descending
        boolean subtract = back != rangeKey.descending();
        Object target = shift(v, offset, subtract);
        if (target == null) {
            // past the type's range: every value is within the offset on that side
            return start ? (back ? lo : hi + 1) : (back ? lo - 1 : hi);
        }
        // the first position at or after the target in window order (start), or the last at or before it (end)
        int a = lo;
        int b = hi + 1;
        while (a < b) {
            int mid = (a + b) >>> 1;
            int c = compareInOrder(rows[mid][rangeKey.column()], target);
            if (start ? c < 0 : c <= 0) a = mid + 1;
            else b = mid;
        }
        return start ? a : a - 1;
    }

    private int compareInOrder(Object x, Object y) {
        // a date is compared with its start as a timestamp: the target of date +/- interval is one
        int c = rangeType.kind() == SqlType.Kind.DATE ? InfiniteTimes.atStartOfDay((LocalDate) x).compareTo((LocalDateTime) y) : Values.compare(x, y, rangeType);
        return rangeKey.descending() ? -c : c;
    }

    /**
     * {@code v} less or plus {@code offset}, or null when that is outside the type's range, or
     * undefined: an infinite offset from the infinity of the other sign (NaN) reaches, as
     * PostgreSQL chooses, every value.
     */
    private Object shift(Object v, Object offset, boolean subtract) {
        try {
            return switch (rangeType.kind()) {
                case SMALLINT, INTEGER, BIGINT -> subtract ? Math.subtractExact((Long) v, (Long) offset) : Math.addExact((Long) v, (Long) offset);
                case NUMERIC -> {
                    Object r = subtract ? Numerics.subtract(v, offset) : Numerics.add(v, offset);
                    yield r == NonFiniteNumeric.NAN && v != NonFiniteNumeric.NAN ? null : r;
                }
                case REAL, DOUBLE -> {
                    double d = ((Number) v).doubleValue();
                    double o = ((Number) offset).doubleValue();
                    double r = subtract ? d - o : d + o;
                    if (Double.isNaN(r) && !Double.isNaN(d)) yield null;
                    yield rangeType.kind() == SqlType.Kind.REAL ? (Object) (float) r : (Object) r;
                }
                case DATE -> subtract ? DateTimes.minus(InfiniteTimes.atStartOfDay((LocalDate) v), (Interval) offset) : DateTimes.plus(InfiniteTimes.atStartOfDay((LocalDate) v), (Interval) offset);
                case TIMESTAMP -> subtract ? DateTimes.minus((LocalDateTime) v, (Interval) offset) : DateTimes.plus((LocalDateTime) v, (Interval) offset);
                case TIMESTAMPTZ -> {
                    LocalDateTime t = LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC);
                    yield (subtract ? DateTimes.minus(t, (Interval) offset) : DateTimes.plus(t, (Interval) offset)).toInstant(ZoneOffset.UTC);
                }
                default -> throw new IllegalStateException("RANGE offset over " + rangeType);
            };
        } catch (ArithmeticException | SqlException | java.time.DateTimeException e) {
            return null;
        }
    }

    /** The positions frame-using functions leave out at position {@code i}: {@code [from, to]} pairs (empty ranges have from > to). */
    private int[] excluded(int i) {
        return switch (fn.frame().exclusion()) {
            case NO_OTHERS -> NONE;
            case CURRENT_ROW -> new int[] {i, i};
            case GROUP -> new int[] {groupStart[i], groupEnd[i]};
            case TIES -> new int[] {groupStart[i], i - 1, i + 1, groupEnd[i]};
        };
    }

    private static final int[] NONE = new int[0];

    /** How many positions of {@code [s, e]} are not excluded. */
    private static long frameSize(int s, int e, int[] ex) {
        if (s > e) return 0;
        long size = e - s + 1;
        for (int k = 0; k < ex.length; k += 2) {
            int a = Math.max(s, ex[k]);
            int b = Math.min(e, ex[k + 1]);
            if (a <= b) size -= b - a + 1;
        }
        return size;
    }

    /** The {@code index}-th position of {@code [s, e]} that is not excluded. */
    private static int positionAt(int s, int e, int[] ex, long index) {
        long at = s + index;
        // step over each excluded range at or before the position reached (they are in order)
        for (int k = 0; k < ex.length; k += 2) {
            int a = Math.max(s, ex[k]);
            int b = Math.min(e, ex[k + 1]);
            if (a > b) continue;
            if (a <= at) at += b - a + 1;
        }
        return (int) at;
    }

    // ------------------------------------------------------------------ aggregates

    private void aggregated(Object[] out) {
        AggregateFunction agg = fn.aggregate();
        Accumulation acc = agg.accumulation();
        Plan.WindowFrame f = fn.frame();
        if (acc != null) {
            sliding(out, acc);
        } else if (f.startKind() == BoundKind.UNBOUNDED_PRECEDING && f.exclusion() == Exclusion.NO_OTHERS && folds(agg)) {
            folded(out, agg);
        } else {
            each(out, agg);
        }
    }

    /** Whether {@code agg} of a running frame can fold each new row into the result so far (the result is one of its own arguments' kind). */
    static boolean folds(AggregateFunction agg) {
        return switch (agg.name()) {
            case "min", "max", "bool_and", "bool_or", "every", "string_agg" -> true;
            case "sum" -> agg.argTypes().get(0).kind() == SqlType.Kind.REAL || agg.argTypes().get(0).kind() == SqlType.Kind.DOUBLE;
            default -> false;
        };
    }

    private Object[] args(int position) {
        Object[] a = new Object[fn.args().size()];
        for (int k = 0; k < a.length; k++) a[k] = rows[position][fn.args().get(k)];
        return a;
    }

    private boolean counted(int position) {
        return fn.filter() < 0 || Boolean.TRUE.equals(rows[position][fn.filter()]);
    }

    /** Exact sums slid over the partition: each row added as it enters a frame and subtracted as it leaves. */
    private void sliding(Object[] out, Accumulation acc) {
        Sums sums = new Sums();
        Sums.Signed plus = new Sums.Signed(sums, 1);
        Sums.Signed minus = new Sums.Signed(sums, -1);
        int[] bounds = new int[2];
        int s = 0;
        int e = -1; // the frame held in sums: [s, e]
        // frames from the partition's start also hold what comes before the slice
        Sums prefix = fn.frame().startKind() == BoundKind.UNBOUNDED_PRECEDING ? before.sums() : null;
        for (int i = from; i <= to; i++) {
            frame(i, bounds);
            int ns = bounds[0];
            int ne = bounds[1];
            if (ns > ne) {
                // an empty frame: start again from nothing at the next non-empty one
                out[i] = acc.result(new Sums());
                continue;
            }
            if (ns > e) {
                sums = new Sums();
                if (prefix != null) sums.addAll(prefix);
                plus = new Sums.Signed(sums, 1);
                minus = new Sums.Signed(sums, -1);
                s = ns;
                e = ns - 1;
            }
            while (e < ne) add(acc, ++e, plus, sums, 1);
            while (s < ns) add(acc, s++, minus, sums, -1);
            int[] ex = excluded(i);
            for (int k = 0; k < ex.length; k += 2) for (int p = Math.max(s, ex[k]); p <= Math.min(e, ex[k + 1]); p++) add(acc, p, minus, sums, -1);
            out[i] = acc.result(sums);
            for (int k = 0; k < ex.length; k += 2) for (int p = Math.max(s, ex[k]); p <= Math.min(e, ex[k + 1]); p++) add(acc, p, plus, sums, 1);
        }
    }

    private void add(Accumulation acc, int position, Sums.Signed sink, Sums sums, int sign) {
        if (!counted(position)) return;
        sums.rows += sign;
        // an accumulation reads its arguments and keeps nothing of them: one array serves every row
        for (int k = 0; k < scratch.length; k++) scratch[k] = rows[position][fn.args().get(k)];
        acc.add(scratch, sink);
    }

    private final Object[] scratch;

    /** A running frame: each row folded into the result so far as the frame's end passes it. */
    private void folded(Object[] out, AggregateFunction agg) {
        int[] bounds = new int[2];
        Object[] state = null; // the result so far, as an argument row
        int e = -1;
        long[] two = {1, 1};
        long[] one = {1};
        boolean seeded = before.hasFolded();
        for (int i = from; i <= to; i++) {
            frame(i, bounds);
            while (e < bounds[1]) {
                e++;
                if (!counted(e)) continue;
                Object[] next = args(e);
                if (seeded) {
                    // the value over the positions before the slice stands for them, as its first argument
                    seeded = false;
                    state = next.clone();
                    state[0] = before.folded();
                }
                Object result = state == null ? agg.evaluate(List.<Object[]>of(next), one) : agg.evaluate(List.of(state, next), two);
                state = next.clone();
                state[0] = result;
            }
            out[i] = state != null ? state[0] : seeded ? before.folded() : agg.evaluate(List.of(), new long[0]);
        }
    }

    /** Any other aggregate: evaluated over each position's frame, again only when the frame changes. */
    private void each(Object[] out, AggregateFunction agg) {
        int[] bounds = new int[2];
        int lastS = -2;
        int lastE = -2;
        int[] lastEx = null;
        Object last = null;
        for (int i = from; i <= to; i++) {
            frame(i, bounds);
            int[] ex = excluded(i);
            if (bounds[0] == lastS && bounds[1] == lastE && Arrays.equals(ex, lastEx)) {
                out[i] = last;
                continue;
            }
            List<Object[]> argRows = new ArrayList<>();
            for (int p = bounds[0]; p <= bounds[1]; p++) {
                if (isExcluded(p, ex) || !counted(p)) continue;
                argRows.add(args(p));
            }
            long[] mult = new long[argRows.size()];
            Arrays.fill(mult, 1);
            last = agg.evaluate(argRows, mult);
            out[i] = last;
            lastS = bounds[0];
            lastE = bounds[1];
            lastEx = ex;
        }
    }

    private static boolean isExcluded(int p, int[] ex) {
        for (int k = 0; k < ex.length; k += 2) if (p >= ex[k] && p <= ex[k + 1]) return true;
        return false;
    }
}
