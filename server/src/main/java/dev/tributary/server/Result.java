package dev.tributary.server;

import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * What one statement returned: its command tag (as PostgreSQL names it: {@code SELECT 3},
 * {@code INSERT 0 1}, {@code CREATE TABLE}), and for statements with rows, the column names,
 * types and rows (each an {@code Object[]} of SQL values as {@link SqlType} describes, NULL as
 * {@code null}), and the notices it sent on the way (PostgreSQL's NoticeResponse), in order.
 */
public record Result(String tag, List<String> columns, List<SqlType> types, List<Object[]> rows, List<Notice> notices) {
    public Result {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        rows = List.copyOf(rows);
        notices = List.copyOf(notices);
    }

    /** A result without notices. */
    public Result(String tag, List<String> columns, List<SqlType> types, List<Object[]> rows) {
        this(tag, columns, types, rows, List.of());
    }

    static Result command(String tag) {
        return new Result(tag, List.of(), List.of(), List.of());
    }

    /** This result with {@code notice} added after its other notices. */
    public Result withNotice(Notice notice) {
        List<Notice> all = new ArrayList<>(notices);
        all.add(notice);
        return new Result(tag, columns, types, rows, all);
    }

    /** Whether the statement returns rows (a query, SHOW, EXPLAIN), even if there were none. */
    public boolean hasRows() {
        return !columns.isEmpty();
    }

    /** The rows as PostgreSQL's text output, NULL as {@code null}. */
    public List<List<String>> text() {
        List<List<String>> out = new ArrayList<>();
        for (Object[] row : rows) {
            List<String> r = new ArrayList<>();
            for (int i = 0; i < row.length; i++) r.add(row[i] == null ? null : Values.toText(row[i], types.get(i)));
            out.add(r);
        }
        return out;
    }
}
