package dev.tributary.differential;

import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.ObjectColumn;
import dev.tributary.arrangements.UnitColumn;
import java.util.Comparator;

/**
 * How values of type {@code D} are stored in columns, ordered and hashed: the one place a
 * collection's element type meets the columnar layer.
 *
 * <p>Contract: {@link #order()} is a total order consistent with equality, and the columns made
 * by {@link #newColumn} order and hash values exactly as {@link #order()} and
 * {@link Object#hashCode()}-based equality do; two collections joined on a key must use the
 * same key type, so equal keys land on the same worker.
 */
public interface DataType<D> {
    /** An empty column for values of this type. */
    Column newColumn(int capacity);

    /** Appends {@code value} to {@code column} (made by {@link #newColumn}). */
    void append(Column column, D value);

    /** Value {@code i} of {@code column}. */
    D get(Column column, int i);

    /** The order of values, as the columns sort them. */
    Comparator<? super D> order();

    /** {@code long} values in a primitive column. */
    static DataType<Long> longs() {
        return Longs.INSTANCE;
    }

    /** Strings in their natural (UTF-16 code unit) order. */
    static DataType<String> strings() {
        return natural();
    }

    /** Values with a natural order, in an object column. */
    static <D extends Comparable<? super D>> DataType<D> natural() {
        return ordered(Comparator.naturalOrder());
    }

    /** Values ordered by {@code order} (which must agree with {@code equals}), in an object column. */
    static <D> DataType<D> ordered(Comparator<? super D> order) {
        return new Objects<>(order);
    }

    /** Pairs, ordered by key and then by value. */
    static <K, V> DataType<KV<K, V>> pairs(DataType<K> keys, DataType<V> vals) {
        Comparator<? super K> ko = keys.order();
        Comparator<? super V> vo = vals.order();
        return ordered((KV<K, V> a, KV<K, V> b) -> {
            int c = ko.compare(a.key(), b.key());
            return c != 0 ? c : vo.compare(a.val(), b.val());
        });
    }

    /** The type with one value, {@link Unit#UNIT}, stored as nothing. */
    static DataType<Unit> unit() {
        return Units.INSTANCE;
    }

    /** {@link DataType#longs()}. */
    final class Longs implements DataType<Long> {
        static final Longs INSTANCE = new Longs();

        private Longs() {}

        @Override
        public Column newColumn(int capacity) {
            return new LongColumn(capacity);
        }

        @Override
        public void append(Column column, Long value) {
            ((LongColumn) column).add(value);
        }

        @Override
        public Long get(Column column, int i) {
            return ((LongColumn) column).getLong(i);
        }

        @Override
        public Comparator<Long> order() {
            return Comparator.naturalOrder();
        }

        @Override
        public String toString() {
            return "longs";
        }
    }

    /** {@link DataType#ordered}. */
    final class Objects<D> implements DataType<D> {
        private final Comparator<? super D> order;

        private Objects(Comparator<? super D> order) {
            this.order = order;
        }

        @Override
        public Column newColumn(int capacity) {
            return new ObjectColumn<D>(order, capacity);
        }

        @Override
        @SuppressWarnings("unchecked")
        public void append(Column column, D value) {
            ((ObjectColumn<D>) column).add(value);
        }

        @Override
        @SuppressWarnings("unchecked")
        public D get(Column column, int i) {
            return ((ObjectColumn<D>) column).getValue(i);
        }

        @Override
        public Comparator<? super D> order() {
            return order;
        }
    }

    /** {@link DataType#unit()}. */
    final class Units implements DataType<Unit> {
        static final Units INSTANCE = new Units();

        private Units() {}

        @Override
        public Column newColumn(int capacity) {
            return new UnitColumn();
        }

        @Override
        public void append(Column column, Unit value) {
            ((UnitColumn) column).add();
        }

        @Override
        public Unit get(Column column, int i) {
            return Unit.UNIT;
        }

        @Override
        public Comparator<Unit> order() {
            return (a, b) -> 0;
        }
    }
}
