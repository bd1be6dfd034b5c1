package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The windows a row's time falls into, as the table functions {@code TUMBLE}, {@code HOP} and
 * {@code CUMULATE} give them (Flink's and RisingWave's window table functions): each input row
 * once per window that holds its time, with the window's {@code window_start} (inclusive) and
 * {@code window_end} (exclusive) added.
 *
 * <p>Windows are aligned to the epoch (1970-01-01 00:00, UTC for {@code timestamptz}) plus an
 * optional offset, and measured in microseconds; a time column of an integer type takes integer
 * sizes and its windows are of its own units. A hop's windows start every {@code slide} and last
 * {@code size} (a row falls into none when it lies in a gap between windows shorter than the
 * slide); a tumble is a hop whose slide is its size; a cumulating window starts every
 * {@code size} and gives its prefixes that end every {@code step}: {@code [s, s + step)},
 * {@code [s, s + 2 step)}, ..., {@code [s, s + size)}. Each row's windows come out in order of
 * start, then end. A row whose time is NULL, or infinite, falls into no window. Every window is a function of
 * its row alone, so a window table over a table is maintained like any other expansion of rows:
 * a deleted row's windows are retracted with it.
 */
public final class TimeWindows {
    private TimeWindows() {}

    /** Whether {@code t} can be a window function's time column. */
    public static boolean isTimeType(SqlType t) {
        return t.isInteger() || t.kind() == SqlType.Kind.TIMESTAMP || t.kind() == SqlType.Kind.TIMESTAMPTZ;
    }

    /** The type of a window function's sizes for a time column of type {@code t}: an interval, or a bigint for an integer time. */
    public static SqlType sizeType(SqlType t) {
        return t.isInteger() ? SqlType.BIGINT : SqlType.INTERVAL;
    }

    /**
     * A size or offset (a value of {@link #sizeType}) in the time column's units; 22023 for an
     * interval with months (a month has no fixed length), or one too long.
     */
    public static long units(Object size, String function, String what) {
        if (size instanceof Long l) return l;
        Interval iv = (Interval) size;
        if (iv.months() != 0) {
            throw new SqlException("22023", "the " + what + " of " + function + " cannot be in months or years: a month has no fixed length; give it in days");
        }
        try {
            return Math.addExact(Math.multiplyExact(iv.days(), Interval.MICROS_PER_DAY), iv.micros());
        } catch (ArithmeticException e) {
            throw new SqlException("22008", "the " + what + " of " + function + " is out of range");
        }
    }

    /**
     * The table function giving {@code (window_start, window_end)} for {@code time}'s value: a
     * {@code function} ("tumble", "hop" or "cumulate") whose windows start every {@code every}
     * (the slide; a cumulating window's size) and last {@code size} (a cumulating window's
     * prefixes grow by {@code size}: its step), all in the time column's units; {@code shown} are
     * the arguments as written, for EXPLAIN. The caller checks that {@code every} and
     * {@code size} are positive, and for "cumulate" that the step divides the size.
     */
    public static TableFunction windows(String function, ScalarExpr time, List<ScalarExpr> shown, long every, long size, long offset) {
        SqlType t = time.type();
        List<ScalarExpr> args = new java.util.ArrayList<>();
        args.add(time);
        args.addAll(shown);
        return new TableFunction(function, args, List.of("window_start", "window_end"), List.of(t, t), new Windows(function, t, every, size, offset));
    }

    /**
     * The rows of a window function ({@link #windows}) over a time of type {@code type}: a value,
     * not a lambda, so that a renderer can tell a window function from other table functions and
     * expand rows on their bytes with a {@link Cursor}, which gives the same windows.
     */
    public record Windows(String function, SqlType type, long every, long size, long offset) implements TableFunction.Rows {
        /** Whether the windows are cumulating ones (else a hop's, or a tumble's). */
        public boolean cumulate() {
            return function.equals("cumulate");
        }

        @Override
        public Iterator<Object[]> apply(Object[] x) {
            SqlType t = type;
            long at = ticks(x[0]);
            long[] bounds;
            // no window ends at or after infinity, none begins at -infinity (as the panes of an aggregation over windows see it)
            if (!InfiniteTimes.isFinite(x[0])) return java.util.Collections.emptyIterator();
            try {
                bounds = cumulate() ? cumulating(at, every, size, offset) : hopping(at, every, size, offset);
            } catch (ArithmeticException e) {
                throw new SqlException(t.isInteger() ? "22003" : "22008", t + " out of range for the windows of " + function + " at " + x[0]);
            }
            return new Iterator<>() {
                private int i;

                @Override
                public boolean hasNext() {
                    return i < bounds.length;
                }

                @Override
                public Object[] next() {
                    if (i >= bounds.length) throw new NoSuchElementException();
                    Object[] row = {value(bounds[i], t, function), value(bounds[i + 1], t, function)};
                    i += 2;
                    return row;
                }
            };
        }
    }

    /**
     * The windows of one time after another, as longs, for a caller that writes their bounds
     * itself (a row's bytes, then the bounds' encodings): the windows {@link Windows#apply} gives,
     * in its order, with its errors, and no array or value per time. {@link #seek} raises the
     * errors that give a row no window (22008 or 22003 when one would end or start outside the
     * long, 54000 for too many); {@link #fits} says whether a window's bounds are values of the
     * time's type (a smallint's or integer's range), where {@link Windows#apply} raises
     * {@link #outOfType}. Mutable: one per operator, used by its thread.
     */
    public static final class Cursor {
        private final Windows w;
        private final boolean cumulate;
        /** As in {@link #windows}: windows start every {@code every} and last (a cumulating window's prefixes grow by) {@code size}. */
        private final long every;
        private final long size;
        private final long lowest;
        private final long highest;
        /** A hop's last start; a cumulating window's start. */
        private long base;
        /** A hop's windows; a cumulating window's first prefix (in steps) that holds the time. */
        private long first;
        private long count;

        public Cursor(Windows w) {
            this.w = w;
            this.cumulate = w.cumulate();
            this.every = w.every();
            this.size = w.size();
            SqlType.Kind kind = w.type().kind();
            this.lowest = kind == SqlType.Kind.SMALLINT ? Short.MIN_VALUE : kind == SqlType.Kind.INTEGER ? Integer.MIN_VALUE : Long.MIN_VALUE;
            this.highest = kind == SqlType.Kind.SMALLINT ? Short.MAX_VALUE : kind == SqlType.Kind.INTEGER ? Integer.MAX_VALUE : Long.MAX_VALUE;
        }

        /**
         * Moves to the windows of {@code at}, a finite time in its type's units; how many there
         * are (window {@code k} is {@code [start(k), end(k))}, in order of start, then end).
         *
         * @throws SqlException what {@link Windows#apply} raises before its first window
         */
        public long seek(long at) {
            try {
                if (cumulate) {
                    // as cumulating(at, every, size, offset): the step is size; every end is checked by the last (the largest)
                    base = Math.subtractExact(at, Math.floorMod(Math.subtractExact(at, w.offset()), every));
                    first = (at - base) / size + 1;
                    long steps = every / size;
                    count = steps - first + 1;
                    if (count > Integer.MAX_VALUE / 2) throw new SqlException("54000", "a row would fall into " + count + " windows: the step is too short for the size");
                    Math.addExact(base, Math.multiplyExact(steps, size));
                    return count;
                }
                // as hopping(at, every, size, offset); its starts below the long's range wrap and then
                // their ends overflow, so it fails exactly when the first start or the last end is out of range
                base = Math.subtractExact(at, Math.floorMod(Math.subtractExact(at, w.offset()), every));
                long reach = Math.addExact(Math.subtractExact(base, at), size);
                if (reach <= 0) return count = 0;
                count = (reach - 1) / every + 1;
                if (count > Integer.MAX_VALUE / 2) throw new SqlException("54000", "a row would fall into " + count + " windows: the window is too long for its slide");
                Math.subtractExact(base, (count - 1) * every);
                Math.addExact(base, size);
                return count;
            } catch (ArithmeticException e) {
                count = 0;
                SqlType t = w.type();
                throw new SqlException(t.isInteger() ? "22003" : "22008", t + " out of range for the windows of " + w.function() + " at " + fromTicks(at, t));
            }
        }

        /** Where window {@code k} (below what {@link #seek} returned) starts. */
        public long start(long k) {
            return cumulate ? base : base - (count - 1 - k) * every;
        }

        /** Where window {@code k} (below what {@link #seek} returned) ends. */
        public long end(long k) {
            return cumulate ? base + (first + k) * size : base - (count - 1 - k) * every + size;
        }

        /** Whether a window from {@code start} to {@code end} is of values of the time's type; if not, its row's windows stop at it with {@link #outOfType}. */
        public boolean fits(long start, long end) {
            return start >= lowest && end <= highest;
        }

        /** The error of a window that does not {@link #fit}: what {@link Windows#apply} raises for it (22003). */
        public SqlException outOfType() {
            return new SqlException("22003", w.type().kind().pgName() + " out of range for the windows of " + w.function());
        }
    }

    /** The windows of a hop that hold {@code at}, as start and end pairs, in order of start. */
    static long[] hopping(long at, long slide, long size, long offset) {
        long last = Math.subtractExact(at, Math.floorMod(Math.subtractExact(at, offset), slide));
        long reach = Math.addExact(Math.subtractExact(last, at), size);
        if (reach <= 0) return new long[0];
        long n = (reach - 1) / slide + 1;
        if (n > Integer.MAX_VALUE / 2) throw new SqlException("54000", "a row would fall into " + n + " windows: the window is too long for its slide");
        long[] bounds = new long[2 * (int) n];
        for (int i = 0; i < n; i++) {
            long start = last - (n - 1 - i) * slide;
            bounds[2 * i] = start;
            bounds[2 * i + 1] = Math.addExact(start, size);
        }
        return bounds;
    }

    /** The prefixes of {@code at}'s cumulating window that hold it, as start and end pairs, shortest first. */
    static long[] cumulating(long at, long size, long step, long offset) {
        long start = Math.subtractExact(at, Math.floorMod(Math.subtractExact(at, offset), size));
        long first = (at - start) / step + 1;
        long steps = size / step;
        if (steps - first + 1 > Integer.MAX_VALUE / 2) throw new SqlException("54000", "a row would fall into " + (steps - first + 1) + " windows: the step is too short for the size");
        long[] bounds = new long[2 * (int) (steps - first + 1)];
        for (long k = first, i = 0; k <= steps; k++, i += 2) {
            bounds[(int) i] = start;
            bounds[(int) i + 1] = Math.addExact(start, Math.multiplyExact(k, step));
        }
        return bounds;
    }

    /**
     * A value of a time column (timestamp, timestamptz or integer) in its units: microseconds
     * since the epoch, or the integer; the long's extremes for the infinities, as in a stored row.
     */
    public static long ticks(Object v) {
        int inf = InfiniteTimes.sign(v);
        if (inf != 0) return inf > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        return switch (v) {
            case Long l -> l;
            case LocalDateTime ts -> micros(ts.toEpochSecond(ZoneOffset.UTC), ts.getNano());
            case Instant i -> micros(i.getEpochSecond(), i.getNano());
            default -> throw new IllegalArgumentException("not a window function's time: " + v.getClass().getName());
        };
    }

    /**
     * {@code seconds} and {@code nanos} since the epoch in microseconds. A time in the last second
     * before the long's least microsecond has a second whose microseconds are below it: the
     * second is rounded up first, so that every time a row can hold has its ticks (the stored
     * long), not an overflow.
     */
    private static long micros(long seconds, int nanos) {
        long micros = nanos / 1_000;
        if (seconds < 0 && micros > 0) {
            seconds++;
            micros -= 1_000_000L;
        }
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), micros);
    }

    /** The time column value of type {@code t} that is {@code ticks} of its units (see {@link #ticks}). */
    public static Object fromTicks(long ticks, SqlType t) {
        return value(ticks, t, "a stream");
    }

    private static Object value(long ticks, SqlType t, String function) {
        if ((ticks == Long.MAX_VALUE || ticks == Long.MIN_VALUE) && !t.isInteger()) return InfiniteTimes.of(t.kind(), Long.signum(ticks));
        return switch (t.kind()) {
            case TIMESTAMP -> LocalDateTime.ofEpochSecond(Math.floorDiv(ticks, 1_000_000L), (int) Math.floorMod(ticks, 1_000_000L) * 1_000, ZoneOffset.UTC);
            case TIMESTAMPTZ -> Instant.ofEpochSecond(Math.floorDiv(ticks, 1_000_000L), Math.floorMod(ticks, 1_000_000L) * 1_000);
            case SMALLINT -> {
                if (ticks != (short) ticks) throw new SqlException("22003", "smallint out of range for the windows of " + function);
                yield ticks;
            }
            case INTEGER -> {
                if (ticks != (int) ticks) throw new SqlException("22003", "integer out of range for the windows of " + function);
                yield ticks;
            }
            default -> ticks;
        };
    }
}
