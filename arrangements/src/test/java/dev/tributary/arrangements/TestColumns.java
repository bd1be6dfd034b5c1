package dev.tributary.arrangements;

import java.util.Comparator;

/** Columns of {@code long}s for tests that run once on {@link LongColumn}s and once on the general path ({@link ObjectColumn}s). */
final class TestColumns {
    private TestColumns() {}

    static Column column(boolean longs) {
        return longs ? new LongColumn() : new ObjectColumn<Long>(Comparator.naturalOrder());
    }

    @SuppressWarnings("unchecked")
    static void add(Column c, long v) {
        if (c instanceof LongColumn l) l.add(v);
        else ((ObjectColumn<Long>) c).add(v);
    }
}
