package dev.tributary.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The data set of the point-select comparison: {@code kv(k bigint PRIMARY KEY, v text)} with
 * keys {@code 0 .. rows-1}, a materialized view {@code kv_view} over all of it, and an index
 * {@code kv_view_k} on the view's key.
 *
 * <p>The statements are the same on every server: PostgreSQL accepts all of them, and there a
 * materialized view is a heap with a B-tree index like the table, so neither server is asked to
 * do something the other is spared. The value of a key is a function of the key
 * ({@link #value}), so a reader can check every answer without keeping the table.
 */
final class KvDataset {
    /** Rows per INSERT statement while loading: few round trips, statements of about 30 KB. */
    private static final int ROWS_PER_INSERT = 1000;

    private final int rows;

    KvDataset(int rows) {
        if (rows < 1) throw new IllegalArgumentException("rows must be at least 1, not " + rows);
        this.rows = rows;
    }

    int rows() {
        return rows;
    }

    /** The value stored under key {@code k}. */
    static String value(long k) {
        return "value-" + k;
    }

    /**
     * Drops what an earlier run left, creates and fills the table, then the view and its index
     * (built over the loaded rows, as on a server that already holds data), and checks that the
     * view holds every row.
     */
    void load(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS kv CASCADE");
            s.execute("CREATE TABLE kv (k bigint PRIMARY KEY, v text)");
            StringBuilder insert = new StringBuilder();
            for (int from = 0; from < rows; from += ROWS_PER_INSERT) {
                insert.setLength(0);
                insert.append("INSERT INTO kv VALUES ");
                int to = Math.min(rows, from + ROWS_PER_INSERT);
                for (int k = from; k < to; k++) {
                    if (k > from) insert.append(", ");
                    insert.append('(').append(k).append(", '").append(value(k)).append("')");
                }
                s.execute(insert.toString());
            }
            s.execute("CREATE MATERIALIZED VIEW kv_view AS SELECT k, v FROM kv");
            s.execute("CREATE INDEX kv_view_k ON kv_view (k)");
            long count;
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM kv_view")) {
                r.next();
                count = r.getLong(1);
            }
            if (count != rows) throw new IllegalStateException("kv_view holds " + count + " rows after loading " + rows);
        }
    }
}
