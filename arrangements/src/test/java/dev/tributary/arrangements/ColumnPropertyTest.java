package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Columns against plain Java values: compare agrees in sign with the value order (within a column
 * and across two columns of a class), equal agrees with compare, equal values hash alike (both hashes), and
 * append, emptyLike, trim and clear keep values intact. Also the index sort and time advancing the
 * batcher and merger are built on.
 */
class ColumnPropertyTest {
    /** Checks a column class against {@code order} on values {@code a} and {@code b}, stored by {@code add}, read back by {@code get}. */
    static <T> void checkColumn(Column proto, List<T> a, List<T> b, Comparator<? super T> order, BiConsumer<Column, T> add,
            BiFunction<Column, Integer, T> get, Comparator<? super T> sameValue) {
        Column ca = proto.emptyLike(0);
        Column cb = proto.emptyLike(a.size() + 1);
        a.forEach(v -> add.accept(ca, v));
        b.forEach(v -> add.accept(cb, v));
        assertThat(ca.size()).isEqualTo(a.size());
        assertThat(cb.size()).isEqualTo(b.size());
        for (int i = 0; i < a.size(); i++) {
            assertThat(sameValue.compare(get.apply(ca, i), a.get(i))).as("value %d read back", i).isZero();
            assertThat(ca.compare(i, ca, i)).isZero();
            for (int j = 0; j < b.size(); j++) {
                int expected = Integer.signum(order.compare(a.get(i), b.get(j)));
                assertThat(Integer.signum(ca.compare(i, cb, j))).as("compare(%s, %s)", ca.get(i), cb.get(j)).isEqualTo(expected);
                assertThat(Integer.signum(cb.compare(j, ca, i))).as("compare(%s, %s)", cb.get(j), ca.get(i)).isEqualTo(-expected);
                assertThat(ca.equal(i, cb, j)).as("equal(%s, %s)", ca.get(i), cb.get(j)).isEqualTo(expected == 0);
                if (expected == 0) {
                    assertThat(ca.hash(i)).as("hashes of equal values %s", ca.get(i)).isEqualTo(cb.hash(j));
                    assertThat(ca.localHash(i)).as("local hashes of equal values %s", ca.get(i)).isEqualTo(cb.localHash(j));
                }
            }
        }
        // append from both, trim, append again, clear and reuse
        Column c = ca.emptyLike(1);
        List<T> model = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            c.append(ca, i);
            model.add(a.get(i));
        }
        for (int j = 0; j < b.size(); j++) {
            c.append(cb, j);
            model.add(b.get(j));
        }
        c.trim();
        for (int j = b.size() - 1; j >= 0; j--) {
            c.append(cb, j);
            model.add(b.get(j));
        }
        assertThat(c.size()).isEqualTo(model.size());
        for (int i = 0; i < model.size(); i++) {
            assertThat(sameValue.compare(get.apply(c, i), model.get(i))).as("appended value %d", i).isZero();
        }
        assertThat(c.heapBytes()).isPositive();
        c.clear();
        assertThat(c.size()).isZero();
        c.trim();
        for (int i = 0; i < a.size(); i++) c.append(ca, i);
        for (int i = 0; i < a.size(); i++) {
            assertThat(sameValue.compare(get.apply(c, i), a.get(i))).as("value %d after clear", i).isZero();
            assertThat(c.equal(i, ca, i)).isTrue();
        }
    }

    @Property(seed = "1001")
    void longColumnOrdersNumerically(@ForAll @Size(max = 20) List<Long> a, @ForAll @Size(max = 20) List<Long> b) {
        checkColumn(new LongColumn(), a, b, Comparator.naturalOrder(), (c, v) -> ((LongColumn) c).add(v), (c, i) -> ((LongColumn) c).getLong(i),
                Comparator.naturalOrder());
    }

    @Provide
    Arbitrary<List<byte[]>> byteStrings() {
        Arbitrary<Byte> b = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.of((byte) 0, (byte) 1, (byte) 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff)),
                net.jqwik.api.Tuple.of(1, Arbitraries.bytes()));
        return b.array(byte[].class).ofMaxSize(5).list().ofMaxSize(20);
    }

    /** Bytewise unsigned order, a proper prefix first: written out, not delegated to the JDK. */
    static int unsignedOrder(byte[] x, byte[] y) {
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = Integer.compare(x[i] & 0xff, y[i] & 0xff);
            if (c != 0) return c;
        }
        return Integer.compare(x.length, y.length);
    }

    @Property(seed = "1002")
    void bytesColumnOrdersBytewiseUnsignedThenByLength(@ForAll("byteStrings") List<byte[]> a, @ForAll("byteStrings") List<byte[]> b) {
        checkColumn(new BytesColumn(), a, b, ColumnPropertyTest::unsignedOrder, (c, v) -> ((BytesColumn) c).add(v), (c, i) -> ((BytesColumn) c).getBytes(i),
                ColumnPropertyTest::unsignedOrder);
    }

    @Property(seed = "1003")
    void bytesColumnStoresSlicesOfLargerArrays(@ForAll("byteStrings") List<byte[]> a, @ForAll @IntRange(min = 0, max = 3) int pad) {
        BytesColumn c = new BytesColumn(1, 1);
        for (byte[] v : a) {
            byte[] padded = new byte[v.length + 2 * pad];
            Arrays.fill(padded, (byte) 0x55);
            System.arraycopy(v, 0, padded, pad, v.length);
            c.add(padded, pad, v.length);
        }
        for (int i = 0; i < a.size(); i++) assertThat(c.getBytes(i)).isEqualTo(a.get(i));
    }

    /** A range appended at once, and a value put together from parts, are what appending value by value gives. */
    @Property(seed = "1007")
    void bytesColumnAppendsRangesAndParts(@ForAll("byteStrings") List<byte[]> a, @ForAll("byteStrings") List<byte[]> before,
            @ForAll @IntRange(max = 20) int x, @ForAll @IntRange(max = 20) int y) {
        BytesColumn source = new BytesColumn(1, 1);
        for (byte[] v : a) source.add(v);
        int from = Math.min(x, y) % (a.size() + 1);
        int to = Math.max(from, Math.max(x, y) % (a.size() + 1));
        BytesColumn ranged = new BytesColumn(1, 1);
        BytesColumn oneByOne = new BytesColumn(1, 1);
        for (byte[] v : before) {
            ranged.add(v);
            oneByOne.add(v);
        }
        ranged.appendRange(source, from, to);
        for (int i = from; i < to; i++) oneByOne.append(source, i);
        // every value of a again, each from two parts split in its middle
        for (byte[] v : a) {
            ranged.addPart(v, 0, v.length / 2);
            ranged.addPart(v, v.length / 2, v.length - v.length / 2);
            ranged.endValue();
            oneByOne.add(v);
        }
        assertThat(ranged.size()).isEqualTo(oneByOne.size());
        for (int i = 0; i < ranged.size(); i++) assertThat(ranged.getBytes(i)).isEqualTo(oneByOne.getBytes(i));
        int end = to;
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ranged.appendRange(source, 0, source.size() + 1 + end))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Property(seed = "1004")
    void objectColumnOrdersByItsComparator(@ForAll @Size(max = 15) List<@net.jqwik.api.constraints.StringLength(max = 3) @net.jqwik.api.constraints.CharRange(from = 'a', to = 'c') String> a,
            @ForAll @Size(max = 15) List<@net.jqwik.api.constraints.StringLength(max = 3) @net.jqwik.api.constraints.CharRange(from = 'a', to = 'c') String> b) {
        Comparator<String> byLengthThenText = Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder());
        checkColumn(new ObjectColumn<>(byLengthThenText), a, b, byLengthThenText, (c, v) -> cast(c).add(v), (c, i) -> cast(c).getValue(i),
                Comparator.naturalOrder());
        checkColumn(ObjectColumn.<String>natural(), a, b, Comparator.naturalOrder(), (c, v) -> cast(c).add(v), (c, i) -> cast(c).getValue(i),
                Comparator.naturalOrder());
    }

    @SuppressWarnings("unchecked")
    private static ObjectColumn<String> cast(Column c) {
        return (ObjectColumn<String>) c;
    }

    @Property(seed = "1005")
    void unitColumnValuesAreAllEqual(@ForAll @IntRange(max = 20) int n, @ForAll @IntRange(max = 20) int m) {
        List<Integer> a = new ArrayList<>(java.util.Collections.nCopies(n, 0));
        List<Integer> b = new ArrayList<>(java.util.Collections.nCopies(m, 0));
        checkColumn(new UnitColumn(), a, b, Comparator.naturalOrder(), (c, v) -> ((UnitColumn) c).add(), (c, i) -> 0, Comparator.naturalOrder());
    }

    @Test
    void bytesOrderCornerCases() {
        BytesColumn c = new BytesColumn();
        byte[][] ascending = {{}, {0}, {0, 0}, {1}, {0x7f}, {0x7f, (byte) 0xff}, {(byte) 0x80}, {(byte) 0xff}, {(byte) 0xff, 0}};
        for (byte[] v : ascending) c.add(v);
        for (int i = 0; i + 1 < ascending.length; i++) {
            assertThat(c.compare(i, c, i + 1)).as("%s < %s", Arrays.toString(ascending[i]), Arrays.toString(ascending[i + 1])).isNegative();
        }
        LongColumn l = new LongColumn();
        l.add(Long.MIN_VALUE);
        l.add(-1);
        l.add(Long.MAX_VALUE);
        assertThat(l.compare(0, l, 2)).isNegative();
        assertThat(l.compare(2, l, 1)).isPositive();
    }

    @Property(seed = "1006")
    void indexSortIsAStableSortByTheOrder(@ForAll @Size(max = 120) List<@IntRange(min = 0, max = 9) Integer> keys) {
        int n = keys.size();
        int[] idx = new int[n + 3];
        for (int i = 0; i < n; i++) idx[i] = i;
        new IndexSort().sort(idx, n, (x, y) -> Integer.compare(keys.get(x), keys.get(y)));
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) expected.add(i);
        expected.sort(Comparator.comparing(keys::get));
        List<Integer> actual = new ArrayList<>();
        for (int i = 0; i < n; i++) actual.add(idx[i]);
        assertThat(actual).isEqualTo(expected);
    }

    @Provide
    Arbitrary<long[]> gridTimes() {
        return Arbitraries.longs().between(0, 5).array(long[].class).ofSize(2);
    }

    /**
     * Advancing a time by a frontier keeps every comparison with times at or beyond the frontier,
     * only moves it forward, and is idempotent.
     */
    @Property(seed = "1007")
    void advancingByAFrontierKeepsComparisonsWithLaterTimes(@ForAll("gridTimes") long[] t,
            @ForAll @Size(min = 1, max = 3) List<@net.jqwik.api.From("gridTimes") long[]> sinceTimes) {
        dev.tributary.timely.Antichain since = dev.tributary.timely.Antichain.fromTimes(2, sinceTimes);
        long[] advanced = t.clone();
        Times.advance(advanced, 0, since, new long[2]);
        assertThat(Model.lessEqual(t, advanced)).as("advance(%s) by %s = %s moved back", Arrays.toString(t), since, Arrays.toString(advanced)).isTrue();
        long[] twice = advanced.clone();
        Times.advance(twice, 0, since, new long[2]);
        assertThat(twice).isEqualTo(advanced);
        for (long x = 0; x <= 7; x++) {
            for (long y = 0; y <= 7; y++) {
                long[] later = {x, y};
                if (!since.lessEqual(later)) continue;
                assertThat(Model.lessEqual(advanced, later))
                        .as("advance(%s) by %s = %s compared with %s", Arrays.toString(t), since, Arrays.toString(advanced), Arrays.toString(later))
                        .isEqualTo(Model.lessEqual(t, later));
            }
        }
    }
}
