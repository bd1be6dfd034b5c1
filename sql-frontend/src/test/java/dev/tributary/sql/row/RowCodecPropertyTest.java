package dev.tributary.sql.row;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The row encoding against {@link SqlValues}' model of SQL comparison: every property
 * recomputes its answer from the Java values, never from another encoding.
 */
class RowCodecPropertyTest {
    record Sample(List<SqlType> types, Object[] values) {}

    record Pair(List<SqlType> types, Object[] a, Object[] b) {}

    record Many(List<SqlType> types, List<Object[]> rows) {}

    @Provide
    Arbitrary<Sample> samples() {
        return SqlValues.schemas(5).flatMap(t -> SqlValues.rows(t).map(v -> new Sample(t, v)));
    }

    @Provide
    Arbitrary<Pair> pairs() {
        return SqlValues.schemas(3).flatMap(t -> Combinators.combine(SqlValues.rows(t), SqlValues.rows(t)).as((a, b) -> new Pair(t, a, b)));
    }

    /** Single-column pairs, where the encoding of one type decides the whole comparison. */
    @Provide
    Arbitrary<Pair> columnPairs() {
        return Arbitraries.of(SqlValues.ALL_TYPES).flatMap(t -> {
            List<SqlType> types = List.of(t);
            return Combinators.combine(SqlValues.rows(types), SqlValues.rows(types)).as((a, b) -> new Pair(types, a, b));
        });
    }

    @Provide
    Arbitrary<Many> manies() {
        return SqlValues.schemas(3).flatMap(t -> SqlValues.rows(t).list().ofMaxSize(12).map(r -> new Many(t, r)));
    }

    @Property(seed = "705", tries = 2000)
    void decodeInvertsEncode(@ForAll("samples") Sample s) {
        RowCodec codec = new RowCodec(s.types());
        Row row = codec.encode(s.values());
        Object[] back = codec.decode(row);
        for (int c = 0; c < s.types().size(); c++) {
            Object expected = SqlValues.decodedForm(s.types().get(c), s.values()[c]);
            assertThat(back[c]).as("column %d of type %s", c, s.types().get(c)).isEqualTo(expected);
            assertThat(codec.get(row, c)).isEqualTo(expected);
            assertThat(codec.isNull(row, c)).isEqualTo(expected == null);
        }
        assertThat(codec.encode(back)).as("re-encoding the decoded values").isEqualTo(row);
    }

    @Property(seed = "706", tries = 3000)
    void bytesOrderLikeSqlValues(@ForAll("pairs") Pair p) {
        checkOrder(p);
    }

    @Property(seed = "707", tries = 3000)
    void bytesOrderLikeSqlValuesOneColumn(@ForAll("columnPairs") Pair p) {
        checkOrder(p);
    }

    private static void checkOrder(Pair p) {
        RowCodec codec = new RowCodec(p.types());
        Row a = codec.encode(p.a());
        Row b = codec.encode(p.b());
        int model = Integer.signum(SqlValues.compareRows(p.types(), p.a(), p.b()));
        assertThat(Integer.signum(a.compareTo(b))).isEqualTo(model);
        assertThat(Integer.signum(b.compareTo(a))).isEqualTo(-model);
        assertThat(a.equals(b)).isEqualTo(model == 0);
        if (model == 0) {
            assertThat(a.hashCode()).isEqualTo(b.hashCode());
            assertThat(a.hash()).isEqualTo(b.hash());
        }
    }

    @Property(seed = "708", tries = 1000)
    void concatIsTheRowOfBothRowsValues(@ForAll("samples") Sample x, @ForAll("samples") Sample y) {
        RowCodec cx = new RowCodec(x.types());
        RowCodec cy = new RowCodec(y.types());
        Object[] both = new Object[x.values().length + y.values().length];
        System.arraycopy(x.values(), 0, both, 0, x.values().length);
        System.arraycopy(y.values(), 0, both, x.values().length, y.values().length);
        Row joined = cx.concat(cx.encode(x.values()), cy.encode(y.values()));
        assertThat(joined).isEqualTo(cx.concat(cy).encode(both));
        assertThat(cx.concat(cy).decode(joined)).hasSize(both.length);
    }

    @Property(seed = "709", tries = 1000)
    void projectIsTheRowOfTheChosenValues(@ForAll("samples") Sample s, @ForAll List<@net.jqwik.api.constraints.IntRange(max = 4) Integer> picks) {
        int n = s.types().size();
        int[] columns = picks.stream().filter(i -> i < n).mapToInt(Integer::intValue).toArray();
        Object[] chosen = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) chosen[i] = s.values()[columns[i]];
        RowCodec codec = new RowCodec(s.types());
        Row projected = codec.project(codec.encode(s.values()), columns);
        assertThat(projected).isEqualTo(codec.project(columns).encode(chosen));
    }

    /** A projection set up once gives the rows {@code project} gives, as a row and appended to a column after other rows. */
    @Property(seed = "711", tries = 1000)
    void projectionAsARowAndIntoAColumn(@ForAll("samples") Sample s, @ForAll List<@net.jqwik.api.constraints.IntRange(max = 4) Integer> picks) {
        int n = s.types().size();
        int[] columns = picks.stream().filter(i -> i < n).mapToInt(Integer::intValue).toArray();
        RowCodec codec = new RowCodec(s.types());
        Row row = codec.encode(s.values());
        Row expected = codec.project(row, columns);
        RowCodec.Projection projection = codec.projection(columns);
        assertThat(projection.apply(row)).isEqualTo(expected);
        // the row read in place from a slab that holds other bytes before it
        BytesColumn source = new BytesColumn(2, 4);
        source.add(new byte[] {9, 9, 9});
        RowDataType.INSTANCE.append(source, row);
        BytesColumn into = new BytesColumn(1, 1);
        into.add(new byte[] {7});
        projection.into(source.slab(), source.start(1), into);
        assertThat(into.size()).isEqualTo(2);
        assertThat(RowDataType.INSTANCE.get(into, 1)).isEqualTo(expected);
        assertThat(into.getBytes(0)).containsExactly(7);
    }

    /** A builder fed a row's values (integers, text, timestamps and dates in their direct forms) makes the bytes {@code encode} makes, row after row. */
    @Property(seed = "712", tries = 1000)
    void builderEncodesAsEncodeDoes(@ForAll("manies") Many m) {
        RowCodec codec = new RowCodec(m.types());
        RowCodec.Builder b = codec.builder();
        for (Object[] values : m.rows()) {
            b.reset();
            for (int c = 0; c < values.length; c++) {
                Object v = values[c];
                SqlType.Kind kind = m.types().get(c).kind();
                if (v instanceof Long l && (kind == SqlType.Kind.INTEGER || kind == SqlType.Kind.BIGINT || kind == SqlType.Kind.SMALLINT)) {
                    b.putInteger(l);
                } else if (v instanceof String text && kind == SqlType.Kind.TEXT) {
                    byte[] utf8 = ("x" + text).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    b.putText(utf8, 1, utf8.length);
                } else if (v instanceof java.time.LocalDateTime t && dev.tributary.sql.types.InfiniteTimes.isFinite(t)) {
                    b.putTimestamp(micros(t.toEpochSecond(java.time.ZoneOffset.UTC), t.getNano()));
                } else if (v instanceof java.time.Instant t && dev.tributary.sql.types.InfiniteTimes.isFinite(t)) {
                    b.putTimestamp(micros(t.getEpochSecond(), t.getNano()));
                } else if (v instanceof java.time.LocalDate d && dev.tributary.sql.types.InfiniteTimes.isFinite(d)) {
                    b.putDate(Math.toIntExact(d.toEpochDay()));
                } else {
                    b.putValue(v);
                }
            }
            assertThat(java.util.Arrays.copyOf(b.buffer(), b.length())).isEqualTo(codec.encode(values).toBytes());
        }
    }

    /** Microseconds since the epoch of a time within a long's range of them, without overflowing on the way near its least value. */
    private static long micros(long seconds, int nanos) {
        long us = nanos / 1000;
        if (seconds < 0 && us > 0) {
            seconds++;
            us -= 1_000_000L;
        }
        return seconds * 1_000_000L + us;
    }

    @Property(seed = "710", tries = 500)
    void dataTypeStoresOrdersAndHashesRowsLikeRows(@ForAll("manies") Many m) {
        RowCodec codec = new RowCodec(m.types());
        List<Row> rows = new ArrayList<>();
        for (Object[] v : m.rows()) rows.add(codec.encode(v));
        RowDataType type = RowDataType.INSTANCE;
        Column column = type.newColumn(2);
        for (Row r : rows) type.append(column, r);
        Column copy = column.emptyLike(0);
        copy.appendRange(column, 0, column.size());
        assertThat(column.size()).isEqualTo(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(type.get(column, i)).isEqualTo(rows.get(i));
            assertThat(column.hash(i)).isEqualTo(rows.get(i).hash());
            for (int j = 0; j < rows.size(); j++) {
                int expected = Integer.signum(SqlValues.compareRows(m.types(), m.rows().get(i), m.rows().get(j)));
                assertThat(Integer.signum(column.compare(i, copy, j))).isEqualTo(expected);
                assertThat(Integer.signum(type.order().compare(rows.get(i), rows.get(j)))).isEqualTo(expected);
                assertThat(column.equal(i, copy, j)).isEqualTo(expected == 0);
            }
        }
    }

    /** A time column's type and a long of its units: anywhere, near 0, near the limits (the extremes a timestamp's infinities). */
    record Ticks(SqlType type, long ticks) {}

    @Provide
    Arbitrary<Ticks> ticks() {
        return Arbitraries.of(SqlType.TIMESTAMP, SqlType.TIMESTAMPTZ, SqlType.SMALLINT, SqlType.INTEGER, SqlType.BIGINT).flatMap(t -> {
            long lowest = t.kind() == SqlType.Kind.SMALLINT ? Short.MIN_VALUE : t.kind() == SqlType.Kind.INTEGER ? Integer.MIN_VALUE : Long.MIN_VALUE;
            long highest = t.kind() == SqlType.Kind.SMALLINT ? Short.MAX_VALUE : t.kind() == SqlType.Kind.INTEGER ? Integer.MAX_VALUE : Long.MAX_VALUE;
            return Arbitraries.oneOf(Arbitraries.longs().between(lowest, highest), Arbitraries.longs().between(-100_000_000L, 100_000_000L),
                    Arbitraries.longs().between(lowest, lowest + 2_000_000), Arbitraries.longs().between(highest - 2_000_000, highest)).map(v -> new Ticks(t, v));
        });
    }

    /**
     * {@link RowCodec.Builder#putTicks} writes the bytes {@link RowCodec#encode} writes for the
     * time that is those ticks (a timestamp's extremes its infinities), and {@link RowCodec#getTicks}
     * reads the ticks back, from a row and from where a column starts in a slab.
     */
    @Property(seed = "714")
    void putTicksEncodesTheTimeOfItsTicks(@ForAll("ticks") Ticks x) {
        SqlType t = x.type();
        long v = x.ticks();
        RowCodec codec = RowCodec.of(SqlType.TEXT, t, t);
        RowCodec.Builder b = codec.builder();
        b.reset();
        byte[] text = "ab".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        b.putText(text, 0, text.length);
        b.putTicks(v);
        b.putTicks(v);
        Row built = Row.fromBytes(java.util.Arrays.copyOf(b.buffer(), b.length()));
        Object value = switch (t.kind()) {
            case TIMESTAMP -> v == Long.MAX_VALUE || v == Long.MIN_VALUE ? dev.tributary.sql.types.InfiniteTimes.of(t.kind(), Long.signum(v))
                    : java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(v, 1_000_000L), (int) Math.floorMod(v, 1_000_000L) * 1000, java.time.ZoneOffset.UTC);
            case TIMESTAMPTZ -> v == Long.MAX_VALUE || v == Long.MIN_VALUE ? dev.tributary.sql.types.InfiniteTimes.of(t.kind(), Long.signum(v))
                    : java.time.Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1000);
            default -> v;
        };
        assertThat(built).isEqualTo(codec.encode("ab", value, value));
        assertThat(codec.getTicks(built, 1, 0)).isEqualTo(v);
        int[] at = codec.bounds(built.toBytes(), 0, 2);
        assertThat(codec.getTicks(built.toBytes(), at[2], 2, 0)).isEqualTo(v);
    }
}
