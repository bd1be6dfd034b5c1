package dev.tributary.sql.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.differential.Collection;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.TableFunction;
import dev.tributary.sql.expr.TimeWindows;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link WindowExpansion}, the window functions' path on bytes, against the general path it
 * replaces ({@link Renderer#expansion}: the row decoded, {@link TimeWindows.Windows} evaluated, its
 * values encoded after the row): for random rows, functions, sizes, slides and offsets, the same
 * output rows, byte for byte and in order, and the same error rows, also when the output is a
 * projection of the window table's columns and when a row's expansion is taken a few rows at a
 * time from a column that moves between calls (as an unfinished expansion's container is copied).
 */
class WindowExpansionTest {
    private static final List<SqlType> TIME_TYPES = List.of(SqlType.TIMESTAMP, SqlType.TIMESTAMPTZ, SqlType.SMALLINT, SqlType.INTEGER, SqlType.BIGINT);
    private static final List<SqlType> OTHER_TYPES = List.of(SqlType.BIGINT, SqlType.TEXT, SqlType.TIMESTAMP, SqlType.INTEGER, SqlType.BOOLEAN);

    /** A window table over rows of {@code types} whose time is column {@code time}, its output {@code columns} of the table's, and the input rows. */
    record Case(Plan.FlatMap flatMap, int[] columns, List<Row> rows, long budgetSeed) {
        @Override
        public String toString() {
            TimeWindows.Windows w = (TimeWindows.Windows) flatMap.function().rows();
            RowCodec codec = new RowCodec(flatMap.input().types());
            List<String> shown = rows.stream().map(codec::format).toList();
            return w + " over " + flatMap.input().types() + " at column " + flatMap.function().args().get(0) + ", output " + Arrays.toString(columns) + ", rows " + shown;
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        return Arbitraries.randomValue(WindowExpansionTest::randomCase);
    }

    @Property(seed = "2604")
    void theBytesPathMakesTheGeneralPathsRowsAndErrors(@ForAll("cases") Case c) {
        RowCodec outCodec = new RowCodec(c.flatMap().types());
        RowCodec inCodec = new RowCodec(c.flatMap().input().types());
        RowCodec produced = new RowCodec(c.flatMap().function().columnTypes());
        WindowExpansion fast = WindowExpansion.of(c.flatMap(), c.columns());
        Random budgets = new Random(c.budgetSeed());
        for (Row row : c.rows()) {
            List<String> expected = new ArrayList<>();
            Collection.Expansion<Row, Row> general = Renderer.expansion(c.flatMap().function(), inCodec, produced, row);
            Collection.Outputs<Row, Row> record = new Collection.Outputs<>() {
                @Override
                public void ok(Row r) {
                    expected.add("row " + hex(outCodec.project(r, c.columns())));
                }

                @Override
                public void other(Row e) {
                    expected.add("error " + hex(e));
                }
            };
            while (general.emit(record, 1 + budgets.nextInt(4))) {
                // taken a few at a time, as the operator takes them
            }
            assertThat(bytesPath(fast, row, budgets)).as("the windows of %s", inCodec.format(row)).isEqualTo(expected);
        }
    }

    /**
     * The rows and errors {@code fast} makes of {@code row}, taken a random budget at a time from
     * a column in which the row sits at a random place, a new column for each call.
     */
    private static List<String> bytesPath(WindowExpansion fast, Row row, Random random) {
        List<String> out = new ArrayList<>();
        BytesColumn into = new BytesColumn();
        Collection.ColumnOutputs<Row> outputs = new Collection.ColumnOutputs<>() {
            @Override
            public Column into() {
                return into;
            }

            @Override
            public void ok() {
                assertThat(into.size()).as("one value appended per row").isEqualTo(out.stream().filter(s -> s.startsWith("row")).count() + 1);
                out.add("row " + HexFormat.of().formatHex(into.getBytes(into.size() - 1)));
            }

            @Override
            public void other(Row e) {
                out.add("error " + hex(e));
            }
        };
        long position = 0;
        while (true) {
            BytesColumn from = new BytesColumn();
            int before = random.nextInt(3);
            for (int k = 0; k < before; k++) from.add(new byte[] {1, 9, (byte) k}); // bytes of no row: the row is read at its own place
            from.add(row.toBytes());
            int budget = random.nextInt(8) == 0 ? 1024 : 1 + random.nextInt(4);
            int had = out.size();
            position = fast.expand(from, before, position, outputs, budget);
            assertThat(out.size() - had).as("outputs of one call").isLessThanOrEqualTo(budget);
            if (position == Collection.ColumnExpander.DONE) return out;
            assertThat(out.size()).as("a call that leaves more emits some").isGreaterThan(had);
        }
    }

    private static String hex(Row r) {
        return HexFormat.of().formatHex(r.toBytes());
    }

    // ------------------------------------------------------------------------------------------
    // Cases

    static Case randomCase(Random r) {
        SqlType t = TIME_TYPES.get(r.nextInt(TIME_TYPES.size()));
        List<SqlType> types = new ArrayList<>();
        for (int k = r.nextInt(4); k > 0; k--) types.add(OTHER_TYPES.get(r.nextInt(OTHER_TYPES.size())));
        int time = r.nextInt(types.size() + 1);
        types.add(time, t);
        String function = List.of("tumble", "hop", "cumulate").get(r.nextInt(3));
        long[] sizes = sizes(r, function, t);
        long offset = switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> r.nextInt(2001) - 1000;
            case 2 -> (long) (r.nextGaussian() * sizes[0]);
            default -> r.nextLong();
        };
        TableFunction f = TimeWindows.windows(function, new ScalarExpr.ColumnRef(time, t), List.of(), sizes[0], sizes[1], offset);
        Plan.FlatMap m = new Plan.FlatMap(new Plan.Get(1, "t", types, false), f);
        RowCodec codec = new RowCodec(types);
        List<Row> rows = new ArrayList<>();
        for (int k = 1 + r.nextInt(8); k > 0; k--) {
            Object[] values = new Object[types.size()];
            for (int c = 0; c < values.length; c++) values[c] = c == time ? timeValue(r, t) : otherValue(r, types.get(c));
            rows.add(codec.encode(values));
        }
        int width = types.size() + 2;
        int[] columns;
        if (r.nextBoolean()) {
            columns = java.util.stream.IntStream.range(0, width).toArray();
        } else {
            columns = new int[1 + r.nextInt(width + 1)];
            for (int k = 0; k < columns.length; k++) columns[k] = r.nextInt(width);
        }
        return new Case(m, columns, rows, r.nextLong());
    }

    /**
     * {@code {every, size}} as {@link TimeWindows#windows} takes them for {@code function}: a
     * tumble's equal, a cumulating window's a whole number of steps; a few windows per time
     * (the general path makes an array of them), or for a hop, sometimes more than its 54000 limit.
     */
    private static long[] sizes(Random r, String function, SqlType t) {
        long unit = t.isInteger() ? 1 : List.of(1L, 1_000_000L, 86_400_000_000L).get(r.nextInt(3));
        long size = switch (r.nextInt(4)) {
            case 0 -> 1 + r.nextInt(20);
            case 1 -> unit * (1 + r.nextInt(100));
            case 2 -> 1 + (r.nextLong() >>> (1 + r.nextInt(63)));
            default -> Long.MAX_VALUE - r.nextInt(1000);
        };
        return switch (function) {
            case "tumble" -> new long[] {size, size};
            case "cumulate" -> {
                long steps = 1 + r.nextInt(r.nextBoolean() ? 5 : 300);
                long step = Math.max(1, size / steps);
                yield new long[] {step * steps, step};
            }
            default -> {
                if (r.nextInt(10) == 0) yield new long[] {1 + r.nextInt(2), (1L << 33) + r.nextInt(1000)};
                // slides from a three-hundredth of the size to past it (gaps between windows)
                long slide = Math.max(1, size / (1 + r.nextInt(300)));
                if (r.nextInt(5) == 0) slide = size > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : size + 1 + r.nextInt(Math.max(1, (int) Math.min(size, 1000)));
                yield new long[] {slide, size};
            }
        };
    }

    /** A time of type {@code t}: NULL, ±infinity, near 0 (before 1970 too), near the type's limits, or anywhere. */
    private static Object timeValue(Random r, SqlType t) {
        long lowest = switch (t.kind()) {
            case SMALLINT -> Short.MIN_VALUE;
            case INTEGER -> Integer.MIN_VALUE;
            case BIGINT -> Long.MIN_VALUE;
            default -> Long.MIN_VALUE + 1; // the extremes are the infinities
        };
        long highest = switch (t.kind()) {
            case SMALLINT -> Short.MAX_VALUE;
            case INTEGER -> Integer.MAX_VALUE;
            case BIGINT -> Long.MAX_VALUE;
            default -> Long.MAX_VALUE - 1;
        };
        long ticks = switch (r.nextInt(8)) {
            case 0 -> r.nextInt(2001) - 1000;
            case 1 -> (long) (r.nextGaussian() * 1e15); // within some decades of 1970, either side
            case 2 -> lowest + r.nextInt(1000);
            case 3 -> highest - r.nextInt(1000);
            case 4 -> {
                if (t.isInteger()) yield r.nextLong(lowest, highest);
                yield r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE; // the infinities
            }
            case 5 -> Long.MIN_VALUE; // NULL below
            default -> t.isInteger() && t.kind() != SqlType.Kind.BIGINT ? r.nextLong(lowest, highest + 1) : r.nextLong();
        };
        if (ticks == Long.MIN_VALUE && r.nextBoolean()) return null;
        ticks = Math.max(t.isInteger() ? lowest : Long.MIN_VALUE, Math.min(t.isInteger() ? highest : Long.MAX_VALUE, ticks));
        return TimeWindows.fromTicks(ticks, t);
    }

    private static Object otherValue(Random r, SqlType t) {
        if (r.nextInt(5) == 0) return null;
        return switch (t.kind()) {
            case BIGINT, INTEGER -> (long) r.nextInt();
            case TEXT -> "x".repeat(r.nextInt(12)) + (char) ('a' + r.nextInt(26));
            case TIMESTAMP -> LocalDateTime.of(1900 + r.nextInt(200), 1 + r.nextInt(12), 1 + r.nextInt(28), r.nextInt(24), 0);
            case BOOLEAN -> r.nextBoolean();
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    // ------------------------------------------------------------------------------------------
    // Cases the random ones reach rarely

    /** Cumulating windows with more prefixes than the limit: 54000 on both paths (random cases keep them few: the general path makes an array). */
    @Test
    void tooManyCumulatingWindowsIsTheSameError() {
        long step = 1;
        long size = 1L << 33;
        TableFunction f = TimeWindows.windows("cumulate", new ScalarExpr.ColumnRef(0, SqlType.BIGINT), List.of(), size, step, 0);
        Plan.FlatMap m = new Plan.FlatMap(new Plan.Get(1, "t", List.of(SqlType.BIGINT), false), f);
        Row row = RowCodec.of(SqlType.BIGINT).encode(size * 3); // a window's start: every prefix holds it
        Case c = new Case(m, WindowExpansion.allColumns(m), List.of(row), 7);
        theBytesPathMakesTheGeneralPathsRowsAndErrors(c);
        List<String> out = bytesPath(WindowExpansion.of(m, c.columns()), row, new Random(1));
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).startsWith("error ");
    }

    /** A smallint time whose windows run past its range: the windows before the first that does, then 22003, as the general path gives them. */
    @Test
    void windowsPastASmallintsRangeStopAtAnError() {
        TableFunction f = TimeWindows.windows("hop", new ScalarExpr.ColumnRef(0, SqlType.SMALLINT), List.of(), 2, 10, 0);
        Plan.FlatMap m = new Plan.FlatMap(new Plan.Get(1, "t", List.of(SqlType.SMALLINT), false), f);
        Row row = RowCodec.of(SqlType.SMALLINT).encode((long) Short.MAX_VALUE - 3);
        Case c = new Case(m, WindowExpansion.allColumns(m), List.of(row), 3);
        theBytesPathMakesTheGeneralPathsRowsAndErrors(c);
        List<String> out = bytesPath(WindowExpansion.of(m, c.columns()), row, new Random(2));
        assertThat(out).hasSize(2); // [32756, 32766), then [32758, 32768), which does not fit
        assertThat(out.get(0)).startsWith("row ");
        assertThat(out.get(1)).startsWith("error ");
    }
}
