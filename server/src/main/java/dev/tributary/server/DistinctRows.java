package dev.tributary.server;

import dev.tributary.sql.row.Row;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Changes that add each of a list of rows once, the rows known to be distinct (a COPY into a
 * table with a primary key, whose keys were checked to be distinct): an unmodifiable map from
 * row to 1 over the list, in its order, made without hashing a million rows into a map first.
 * Iterating is all it is for; a lookup by row is a linear search.
 */
final class DistinctRows extends AbstractMap<Row, Long> {
    private final List<Row> rows;

    DistinctRows(List<Row> rows) {
        this.rows = rows;
    }

    @Override
    public int size() {
        return rows.size();
    }

    @Override
    public Set<Map.Entry<Row, Long>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<Row, Long>> iterator() {
                Iterator<Row> it = rows.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return it.hasNext();
                    }

                    @Override
                    public Map.Entry<Row, Long> next() {
                        return Map.entry(it.next(), 1L);
                    }
                };
            }

            @Override
            public int size() {
                return rows.size();
            }
        };
    }
}
