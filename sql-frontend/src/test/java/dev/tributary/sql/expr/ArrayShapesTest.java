package dev.tributary.sql.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.ShapedArray;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Subscripts, slices, concatenation and stacking of shaped arrays; expected values are PostgreSQL 15's. */
class ArrayShapesTest {
    private static final SqlType INTS = SqlType.array(SqlType.INTEGER);

    private static List<?> ints(String text) {
        return (List<?>) Values.fromText(text, INTS);
    }

    private static String text(List<?> a) {
        return Values.toText(a, INTS);
    }

    private static String slice(String array, Long[] lower, Long[] upper) {
        return text(ArrayShapes.slice(ints(array), lower, upper));
    }

    private static Long[] bounds(Long... b) {
        return b;
    }

    @Test
    void anElementNeedsOneSubscriptPerDimension() {
        List<?> a = ints("{{1,2},{3,4}}");
        assertThat(ArrayShapes.element(a, new long[] {1, 2})).isEqualTo(2L);
        assertThat(ArrayShapes.element(a, new long[] {2, 1})).isEqualTo(3L);
        assertThat(ArrayShapes.element(a, new long[] {1})).isNull();
        assertThat(ArrayShapes.element(a, new long[] {1, 2, 3})).isNull();
        assertThat(ArrayShapes.element(a, new long[] {3, 1})).isNull();
        assertThat(ArrayShapes.element(ints("[0:1]={7,8}"), new long[] {0})).isEqualTo(7L);
        assertThat(ArrayShapes.element(ints("{}"), new long[] {1})).isNull();
    }

    @Test
    void slicesClipToTheArrayAndStartAtOne() {
        assertThat(slice("{1,2,3}", bounds(2L), bounds(3L))).isEqualTo("{2,3}");
        assertThat(slice("{1,2,3}", bounds((Long) null), bounds(2L))).isEqualTo("{1,2}");
        assertThat(slice("{1,2,3}", bounds(2L), bounds((Long) null))).isEqualTo("{2,3}");
        assertThat(slice("{1,2,3}", bounds(5L), bounds(6L))).isEqualTo("{}");
        assertThat(slice("{1,2,3}", bounds(0L), bounds(1L))).isEqualTo("{1}");
        assertThat(slice("{1,2,3}", bounds(3L), bounds(2L))).isEqualTo("{}");
        assertThat(slice("{1,2,3}", bounds(-5L), bounds(10L))).isEqualTo("{1,2,3}");
        // more dimensions sliced than the array has: empty
        assertThat(slice("{1,2,3}", bounds(1L, 1L), bounds(2L, 1L))).isEqualTo("{}");
        // a slice's lower bounds are 1 whatever the array's
        assertThat(slice("[0:3]={1,2,3,4}", bounds(1L), bounds(2L))).isEqualTo("{2,3}");
        assertThat(slice("[0:3]={1,2,3,4}", bounds((Long) null), bounds(1L))).isEqualTo("{1,2}");
        // dimensions not sliced are taken whole
        assertThat(slice("{{1,2},{3,4}}", bounds(1L), bounds(1L))).isEqualTo("{{1,2}}");
        assertThat(slice("{{1,2,3},{4,5,6}}", bounds(1L, 2L), bounds(2L, 3L))).isEqualTo("{{2,3},{5,6}}");
        assertThat(slice("{}", bounds(1L), bounds(2L))).isEqualTo("{}");
    }

    /** A slice holds exactly the elements whose subscripts lie in the clipped ranges, in row-major order. */
    @Property(seed = "27", tries = 300)
    void aSliceIsTheElementsInItsRanges(@ForAll("arrays") List<?> a, @ForAll("ranges") List<Long[]> ranges) {
        int n = ShapedArray.dimensions(a);
        int k = Math.min(ranges.size(), n);
        Long[] lower = new Long[k], upper = new Long[k];
        for (int d = 0; d < k; d++) {
            lower[d] = ranges.get(d)[0];
            upper[d] = ranges.get(d)[1];
        }
        List<?> s = ArrayShapes.slice(a, lower, upper);
        // the model: clip each range, then read element by element
        long[] from = new long[n], to = new long[n];
        boolean empty = false;
        for (int d = 0; d < n; d++) {
            long lo = ShapedArray.lower(a, d), hi = lo + ShapedArray.length(a, d) - 1;
            from[d] = d < k && lower[d] != null ? Math.max(lower[d], lo) : lo;
            to[d] = d < k && upper[d] != null ? Math.min(upper[d], hi) : hi;
            empty |= from[d] > to[d];
        }
        if (empty) {
            assertThat(s).isEmpty();
            return;
        }
        List<Object> expected = new ArrayList<>();
        long[] at = from.clone();
        while (true) {
            expected.add(ArrayShapes.element(a, at));
            int d = n - 1;
            while (d >= 0 && at[d] == to[d]) at[d] = from[d--];
            if (d < 0) break;
            at[d]++;
        }
        assertThat(new ArrayList<Object>(s)).isEqualTo(expected);
        for (int d = 0; d < n; d++) {
            assertThat(ShapedArray.length(s, d)).isEqualTo((int) (to[d] - from[d] + 1));
            assertThat(ShapedArray.lower(s, d)).isEqualTo(1);
        }
    }

    @Provide
    Arbitrary<List<?>> arrays() {
        Arbitrary<int[]> lengths = Arbitraries.integers().between(1, 3).array(int[].class).ofMinSize(1).ofMaxSize(3);
        return lengths.flatMap(l -> Arbitraries.integers().between(-2, 2).array(int[].class).ofSize(l.length).map(lowers -> {
            int total = Arrays.stream(l).reduce(1, (x, y) -> x * y);
            Object[] elements = new Object[total];
            for (int i = 0; i < total; i++) elements[i] = (long) i;
            return ShapedArray.of(l, lowers, elements);
        }));
    }

    @Provide
    Arbitrary<List<Long[]>> ranges() {
        Arbitrary<Long> bound = Arbitraries.longs().between(-3, 4).injectNull(0.2);
        return Combinators.combine(bound, bound).as((x, y) -> new Long[] {x, y}).list().ofMinSize(1).ofMaxSize(3);
    }

    @Test
    void concatenationFollowsPostgresqlsShapes() {
        assertThat(text(ArrayShapes.concat(ints("{{1,2}}"), ints("{3,4}")))).isEqualTo("{{1,2},{3,4}}");
        assertThat(text(ArrayShapes.concat(ints("{3,4}"), ints("{{1,2}}")))).isEqualTo("{{3,4},{1,2}}");
        assertThat(text(ArrayShapes.concat(ints("{{1,2}}"), ints("{{3,4}}")))).isEqualTo("{{1,2},{3,4}}");
        assertThat(text(ArrayShapes.concat(ints("[0:1]={1,2}"), ints("{3}")))).isEqualTo("[0:2]={1,2,3}");
        assertThat(text(ArrayShapes.concat(ints("{3}"), ints("[0:1]={1,2}")))).isEqualTo("{3,1,2}");
        assertThat(text(ArrayShapes.concat(ints("{9,9}"), ints("[0:1][1:2]={{1,2},{3,4}}")))).isEqualTo("[0:2][1:2]={{9,9},{1,2},{3,4}}");
        assertThat(text(ArrayShapes.concat(ints("{}"), ints("{{1}}")))).isEqualTo("{{1}}");
        assertThat(text(ArrayShapes.withElement(ints("[0:1]={1,2}"), 0L, false))).isEqualTo("[0:2]={0,1,2}");
        assertThat(text(ArrayShapes.withElement(ints("{}"), 0L, true))).isEqualTo("{0}");
        assertThat(error(() -> ArrayShapes.concat(ints("{{1,2}}"), ints("{3}"))).sqlState()).isEqualTo("2202E");
        assertThat(error(() -> ArrayShapes.concat(ints("[1:2][3:4]={{1,2},{3,4}}"), ints("{{5,6}}"))).detail())
                .isEqualTo("Arrays with differing element dimensions are not compatible for concatenation.");
        assertThat(error(() -> ArrayShapes.concat(ints("{1}"), ints("{{{1}}}"))).detail())
                .isEqualTo("Arrays of 1 and 3 dimensions are not compatible for concatenation.");
        assertThat(error(() -> ArrayShapes.withElement(ints("{{1}}"), 2L, true)).sqlState()).isEqualTo("22000");
    }

    @Test
    void stackingNeedsEqualShapes() {
        assertThat(text(ArrayShapes.stack(new Object[] {ints("{1,2}"), ints("{3,4}")}))).isEqualTo("{{1,2},{3,4}}");
        assertThat(text(ArrayShapes.stack(new Object[] {null, ints("{}")}))).isEqualTo("{}");
        assertThat(ShapedArray.boundsText(ArrayShapes.stack(new Object[] {ints("[0:1]={1,2}")}))).isEqualTo("[1:1][0:1]");
        assertThat(error(() -> ArrayShapes.stack(new Object[] {ints("{1,2}"), ints("{3}")})).sqlState()).isEqualTo("2202E");
        assertThat(error(() -> ArrayShapes.stack(new Object[] {null, ints("{1}")})).sqlState()).isEqualTo("2202E");
        assertThat(error(() -> ArrayShapes.stack(new Object[] {ints("{1}"), ints("[0:0]={1}")})).sqlState()).isEqualTo("2202E");
        assertThat(text(ArrayShapes.accumulate(List.of(ints("[0:1]={1,2}"), ints("[0:1]={3,4}"))))).isEqualTo("[1:2][0:1]={{1,2},{3,4}}");
        assertThat(error(() -> ArrayShapes.accumulate(Arrays.asList(ints("{1}"), null))).sqlState()).isEqualTo("22004");
        assertThat(error(() -> ArrayShapes.accumulate(List.of(ints("{}")))).sqlState()).isEqualTo("2202E");
        assertThat(error(() -> ArrayShapes.accumulate(List.of(ints("{{{{{{1}}}}}}")))).sqlState()).isEqualTo("54000");
    }

    private static SqlException error(Runnable r) {
        SqlException e = catchThrowableOfType(SqlException.class, r::run);
        assertThat(e).isNotNull();
        return e;
    }
}
