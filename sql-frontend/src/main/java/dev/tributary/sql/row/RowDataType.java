package dev.tributary.sql.row;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.differential.DataType;
import java.util.Comparator;

/**
 * {@link Row}s as a dataflow data type: stored in a {@link BytesColumn} (one slab, no object per
 * row), ordered by {@link Row#compareTo} (unsigned bytewise, the SQL order), hashed by
 * {@link Row#hash} (the column's hash of the same bytes), so a row and its stored copy sort,
 * compare equal and route to workers alike.
 */
public final class RowDataType implements DataType<Row> {
    public static final RowDataType INSTANCE = new RowDataType();

    private static final Comparator<Row> ORDER = Comparator.naturalOrder();

    private RowDataType() {}

    @Override
    public Column newColumn(int capacity) {
        return new BytesColumn(capacity, Math.max(16, capacity * 16));
    }

    @Override
    public void append(Column column, Row value) {
        ((BytesColumn) column).add(value.bytes);
    }

    @Override
    public Row get(Column column, int i) {
        byte[] bytes = ((BytesColumn) column).getBytes(i);
        return bytes.length == 0 ? Row.EMPTY : new Row(bytes);
    }

    @Override
    public Comparator<Row> order() {
        return ORDER;
    }

    @Override
    public String toString() {
        return "rows";
    }
}
